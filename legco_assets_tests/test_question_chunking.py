"""The question strategy: pair chunks, splitting, narrative and notes chunks, fallbacks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from legco_assets.core.chunking import QuestionChunkingStrategy
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import Chunk, DocumentText, Page, Table
from legco_assets.core.structure import detect_structure
from legco_assets.core.tokens import count_tokens

from .conftest import fixture_pdf


def doc_of(*pages: str) -> DocumentText:
    return DocumentText.from_pages([Page(number=n + 1, raw=t, cleaned=t) for n, t in enumerate(pages)])


def chunk(doc: DocumentText, **kwargs: object) -> list[Chunk]:
    strategy = QuestionChunkingStrategy(**kwargs)  # type: ignore[arg-type]
    return strategy.chunk_text("doc", doc, detect_structure(doc), None)


def _page_text(doc: DocumentText, number: int) -> str:
    ends = [*doc.page_starts[1:], len(doc.text)]
    return doc.text[doc.page_starts[number - 1] : ends[number - 1]]


def squash(text: str | None) -> str:
    return re.sub(r"\s", "", text or "")


PAPER = doc_of(
    "文件標題\n發言要點\n⚫ 主席，多謝委員會。\n⚫ 框架包括：\n➢ 平台牌照；\n➢ 車輛許可證。\n⚫ 多謝主席。\n"
    "備用問答\n(A) 排水系統\n問 A1：政府會否興建新的雨水排放隧道？\n答 A1：渠務署正進行可行性研究。",
    "研究會在2026年完成。\n[內部參考：工程費用未定。]\n[如被追問：費用為何？未有確實預算。]\n"
    "問 A2：全港有多少個水浸黑點？\n答 A2：五個。",
)


# -- pairs --------------------------------------------------------------------------------------
def test_pair_chunk_text_and_metadata() -> None:
    chunks = chunk(PAPER)
    qa = [c for c in chunks if c.section_type == "qa"]
    assert [c.question_id for c in qa] == ["A1", "A2"]
    assert [c.question_index for c in qa] == [0, 1]
    a1 = qa[0]
    assert a1.text.startswith(
        "問 A1：政府會否興建新的雨水排放隧道？\n答 A1：渠務署正進行可行性研究。\n研究會在2026年完成。"
    )
    assert "問 A2" not in a1.text and "\n\n" not in a1.text
    assert (a1.page_start, a1.page_end) == (1, 2)
    assert a1.question_text == "政府會否興建新的雨水排放隧道？"
    assert a1.section_heading == "(A) 排水系統"
    assert a1.token_count == count_tokens(a1.text)
    record = a1.to_record("paper.pdf", "sha").to_json()
    assert record["page_number"] == 1 and record["id"] == f"doc:question:{a1.index}"
    meta = record["metadata"]
    assert (
        meta["question_id"] == "A1" and meta["section_type"] == "qa" and meta["strategy_type"] == "question"
    )
    assert "part" not in meta and "fallback" not in meta


def test_index_is_the_position_and_q_keys_are_absent_elsewhere() -> None:
    chunks = chunk(PAPER)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        meta = c.metadata("paper.pdf", "sha").to_json()
        if c.section_type != "qa":
            assert not {"question_id", "question_index", "question_text"} & set(meta)


def test_follow_ups_stay_and_internal_refs_can_go() -> None:
    a1 = [c for c in chunk(PAPER) if c.question_id == "A1"][0]
    assert "[內部參考" in a1.text and "[如被追問" in a1.text
    a1 = [c for c in chunk(PAPER, include_internal_refs=False) if c.question_id == "A1"][0]
    assert "內部參考" not in a1.text and "[如被追問：費用為何？未有確實預算。]" in a1.text


def test_long_pair_is_split_and_every_piece_repeats_the_question() -> None:
    answer = "\n".join(
        f"第{n}段：渠務署會繼續監察排水系統的運作情況，並因應需要改善設施。" for n in range(120)
    )
    doc = doc_of(f"問 A1：政府會否改善排水系統？\n答 A1：{answer}\n問 A2：下一題？\n答 A2：答案。")
    chunks = chunk(doc, max_tokens=300)
    pieces = [c for c in chunks if c.question_id == "A1"]
    assert len(pieces) > 3
    assert [(c.part, c.parts) for c in pieces] == [(n, len(pieces)) for n in range(1, len(pieces) + 1)]
    for piece in pieces:
        assert piece.text.startswith("問 A1：政府會否改善排水系統？\n")
        assert piece.token_count <= 300
        assert piece.question_index == 0 and piece.question_text == "政府會否改善排水系統？"
    body = "".join(squash(p.text.split("\n", 1)[1]) for p in pieces)
    assert squash(answer) in body  # nothing lost, cut at line ends
    assert all(p.text.split("\n", 1)[1].startswith(("第", "答 A1")) for p in pieces)
    assert [c.question_id for c in chunks][-1] == "A2"


def test_split_falls_back_to_sentences_inside_one_long_paragraph() -> None:
    answer = "這是一句很長的答覆內容。" * 400
    doc = doc_of(f"問 A1：甲？\n答 A1：{answer}")
    pieces = chunk(doc, max_tokens=200)
    assert len(pieces) > 5
    assert all(p.token_count <= 200 and p.text.startswith("問 A1：甲？\n") for p in pieces)
    assert all(p.text.endswith("。") for p in pieces)


def test_a_long_markdown_table_is_split_with_its_header() -> None:
    rows = "\n".join(f"| {2000 + n} 年度 | {n * 137} 宗 |" for n in range(150))
    doc = doc_of(
        f"問 A1：過去的個案數目為何？\n答 A1：數字如下：\n| 年份 | 個案 |\n|---|---|\n{rows}\n以上數字已包括所有地區。"
    )
    pieces = chunk(doc, max_tokens=250)
    assert len(pieces) > 3 and all(p.has_table and p.token_count <= 250 for p in pieces)
    for piece in pieces:
        if "年度 |" in piece.text:
            assert "| 年份 | 個案 |\n|---|---|" in piece.text
    assert sum(p.text.count("年度 |") for p in pieces) == 150


# -- narrative and speaking notes ------------------------------------------------------------------
def test_speaking_notes_one_chunk_per_top_level_bullet() -> None:
    notes = [c for c in chunk(PAPER) if c.section_type == "speaking_notes"]
    assert [c.text for c in notes] == [
        "發言要點\n⚫ 主席，多謝委員會。",
        "發言要點\n⚫ 框架包括：\n➢ 平台牌照；\n➢ 車輛許可證。",
        "發言要點\n⚫ 多謝主席。",
    ]
    assert all(c.section_heading == "發言要點" for c in notes)
    # each bullet's own span of the document, not its section's
    assert [squash(PAPER.text[c.char_start : c.char_end]) for c in notes] == [
        squash(c.text.removeprefix("發言要點\n")) for c in notes
    ]


def test_heading_only_and_toc_give_no_chunk() -> None:
    doc = doc_of("Contents\nLicensing ........ 2", "Licensing\nQ1 Who applies?\nAny company.")
    chunks = chunk(doc)
    assert [c.section_type for c in chunks] == ["qa"]
    assert "........" not in chunks[0].text


def test_narrative_is_split_under_its_heading_and_parent() -> None:
    para = "The Government will continue to monitor the scheme and review the arrangements. " * 12
    body = "\n\n".join([para] * 8)
    doc = doc_of(f"Chapter 2\n\n1. Background\n{body}\n\nStandby Questions and Answers\nQ1 Why?\nBecause.")
    chunks = chunk(doc, chunk_size=300, chunk_overlap=50)
    narrative = [c for c in chunks if c.section_type == "narrative"]
    assert len(narrative) > 3
    for c in narrative:
        # the context line is the section path on one line
        assert c.text.startswith("Chapter 2 > 1. Background\n") and c.token_count <= 300
        assert c.section_heading == "1. Background" and c.section_path == ["Chapter 2", "1. Background"]


def test_narrative_pieces_report_their_own_pages() -> None:
    pages = [
        "\n".join(
            f"Page {n} paragraph {k}: the scheme is reviewed every year by the department." for k in range(40)
        )
        for n in range(1, 5)
    ]
    pages[0] = "1. Background\n" + pages[0]
    chunks = chunk(doc_of(*pages), chunk_size=300, chunk_overlap=0)
    assert len(chunks) > 4 and all(c.fallback == "sections" for c in chunks)
    assert chunks[0].page_start == 1 and chunks[-1].page_end == 4
    for c in chunks:
        first_page = int(c.text.split("\n")[1].split()[1])
        last_page = int(c.text.split("\n")[-1].split()[1])
        assert (c.page_start, c.page_end) == (first_page, last_page)


# -- fallbacks ----------------------------------------------------------------------------------
def test_no_pairs_with_headings_falls_back_to_sections() -> None:
    doc = doc_of("第一部分：工程項目預算\n項目 預算\n甲 100\n乙 200\n第二部分：設施容量\n地區 數目\n東區 3")
    chunks = chunk(doc)
    assert [c.fallback for c in chunks] == ["sections", "sections"]
    assert all(c.section_type != "qa" for c in chunks)
    assert chunks[0].metadata("a.pdf", "sha").to_json()["fallback"] == "sections"


def test_no_structure_falls_back_to_token_windows() -> None:
    doc = doc_of(*["plain words without any headings or questions " * 80] * 3)
    chunks = chunk(doc, chunk_size=200, chunk_overlap=20)
    assert len(chunks) > 3
    assert {c.fallback for c in chunks} == {"token"}
    assert {c.section_type for c in chunks} == {"narrative"}
    assert all(c.strategy == "question" and c.token_count <= 200 for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_empty_document_gives_no_chunks() -> None:
    assert chunk(doc_of("")) == []


# -- fixture papers ---------------------------------------------------------------------------------
def fixture(name: str) -> tuple[DocumentText, dict]:
    path = fixture_pdf(name)
    gold = json.loads(Path(str(path).replace(".pdf", ".gold.json")).read_text(encoding="utf-8"))
    return DocumentText.from_pages(clean_pages(extract_document(read_source(path)).pages)), gold


def furniture_lines(gold: dict) -> set[str]:
    return set(gold["footer_lines"]) | {gold["footer_date"], gold["header_line"]}


@pytest.mark.parametrize("name", ["paper_e_qa.pdf", "paper_l_faq.pdf", "paper_b_speaking_notes.pdf"])
def test_fixture_pair_chunks_hold_whole_answers(name: str) -> None:
    doc, gold = fixture(name)
    chunks = chunk(doc)
    qa = [c for c in chunks if c.section_type == "qa"]
    assert [c.question_id for c in qa] == [g["qa_id"] for g in gold["pairs"]]
    for n, (c, g) in enumerate(zip(qa, gold["pairs"])):
        text = squash(c.text)
        assert c.page_start == g["page"] and c.page_end == g["answer_end_page"], g["qa_id"]
        assert c.question_index == g["question_index"] and c.section_heading == g["heading"], g["qa_id"]
        assert squash(g["question"]) in text and squash(g["answer_first_line"]) in text, g["qa_id"]
        assert text.endswith(squash(g["answer_last_line"])), g["qa_id"]
        assert c.has_table == g["has_table"], g["qa_id"]
        if n + 1 < len(gold["pairs"]):
            assert squash(gold["pairs"][n + 1]["question"]) not in text, g["qa_id"]


@pytest.mark.parametrize(
    "name", ["paper_e_qa.pdf", "paper_l_faq.pdf", "paper_b_speaking_notes.pdf", "paper_a_tables.pdf"]
)
def test_fixture_chunks_carry_no_page_furniture(name: str) -> None:
    doc, gold = fixture(name)
    furniture = furniture_lines(gold)
    for c in chunk(doc):
        assert not furniture & {line.strip() for line in c.text.split("\n")}, c.index
        assert c.token_count <= (3000 if c.section_type == "qa" else 1000)
        assert c.text.strip()


def test_fixture_e_internal_notes_follow_the_setting() -> None:
    doc, gold = fixture("paper_e_qa.pdf")
    kept = {c.question_id: squash(c.text) for c in chunk(doc)}
    dropped = {c.question_id: squash(c.text) for c in chunk(doc, include_internal_refs=False)}
    for g in gold["pairs"]:
        for note in g["internal_notes"]:
            assert squash(note) in kept[g["qa_id"]] and squash(note) not in dropped[g["qa_id"]]
        for follow_up in g["follow_ups"]:
            assert squash(follow_up) in dropped[g["qa_id"]]


def test_fixture_e_split_pairs_keep_metadata() -> None:
    doc, gold = fixture("paper_e_qa.pdf")
    chunks = chunk(doc, max_tokens=400)
    for g in gold["pairs"]:
        pieces = [c for c in chunks if c.question_id == g["qa_id"]]
        assert all(c.token_count <= 400 for c in pieces)
        assert all(squash(c.text).startswith(squash(g["question_marker"] + g["question"])) for c in pieces)
        assert all(c.question_index == g["question_index"] for c in pieces)
        assert pieces[0].page_start == g["page"]
        for piece in pieces[1:]:  # on the question's page, unless its own reply starts 2+ pages later
            reply = piece.text[len(pieces[0].text.split("\n")[0]) :].split("\n")
            first = next(ln for ln in reply[1:] if len(ln.strip()) >= 8 and ln.strip() not in g["question"])
            if piece.page_start != g["page"]:  # its reply starts pages after the question: there
                assert piece.page_start > g["page"] + 1, (g["qa_id"], piece.part)
                assert first.strip() in _page_text(doc, piece.page_start), (g["qa_id"], piece.part)
        if len(pieces) > 1:
            assert [c.part for c in pieces] == list(range(1, len(pieces) + 1)) and {
                c.parts for c in pieces
            } == {len(pieces)}
        assert squash(pieces[-1].text).endswith(squash(g["answer_last_line"]))


def test_fixture_b_speaking_note_bullets() -> None:
    doc, gold = fixture("paper_b_speaking_notes.pdf")
    notes = [c for c in chunk(doc) if c.section_type == "speaking_notes"]
    top = [b for b in gold["speaking_note_bullet_details"] if b["level"] == 0]
    assert len(notes) == len(top)
    for c, bullet in zip(notes, top):
        assert squash(c.text).startswith(squash("發言要點" + bullet["glyph"] + bullet["text"]))
    for bullet in gold["speaking_note_bullets"]:
        assert sum(squash(bullet) in squash(c.text) for c in notes) == 1
    spans = [(c.char_start, c.char_end) for c in notes]
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:])), (
        "bullets' spans follow each other"
    )
    for c in notes:
        assert squash(doc.text[c.char_start : c.char_end]) == squash(c.text.removeprefix("發言要點\n"))


def test_fixture_a_falls_back_without_error() -> None:
    doc, gold = fixture("paper_a_tables.pdf")
    chunks = chunk(doc)
    assert chunks and not gold["pairs"]
    assert all(c.section_type != "qa" and c.fallback == "sections" for c in chunks)
    assert {c.section_heading for c in chunks} >= {"第一部分：工程項目預算", "第四部分：附錄代碼"}


def test_fixture_tables_are_embedded_as_markdown() -> None:
    doc, gold = fixture("paper_e_qa.pdf")
    tables = [
        Table(
            page=t["page"],
            header=t["header"],
            rows=t["rows"],
            markdown=to_markdown(t["header"], t["rows"]),
            method="heuristic",
        )
        for t in gold["tables"]
    ]
    strategy = QuestionChunkingStrategy()
    chunks = strategy.chunk_text("e", doc, detect_structure(doc), tables)
    by_id = {c.question_id: c for c in chunks if c.section_type == "qa"}
    for t in gold["tables"]:
        pair = by_id[t["in_pair"]]
        assert pair.has_table and "|---|" in pair.text, t["table_id"]
        assert f"| {' | '.join(t['header'])} |" in pair.text or t.get("continued_from_page"), t["table_id"]
