"""A Hansard's appendices: sections of their own, linked both ways with the exchange whose
reply points to them, and kept together by ``query`` and ``answer``.

The fixtures (``fixtures/hansard/``, made by ``generate_hansard_fixtures``) are a Chinese and
an English Hansard-like paper whose two appendices answer 1-S1 and 2-S2; the real 2012
Chinese Hansard prints 附錄I (for 1-S1) and refers to a 附錄II it does not print.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from legco_assets import cli
from legco_assets.core import pipeline
from legco_assets.core.read import read_source, text_pages
from legco_assets.core.records import DocumentText, Page
from legco_assets.core.search import Retriever, answer_question, open_collection, replace_document
from legco_assets.core.search.vector_store import from_chroma, to_chroma
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure import detect_structure, find_structure, link_annexes, same_member

from .conftest import CORPUS, TESTS

HANSARD = TESTS / "fixtures" / "hansard"
PAPERS = {"zh": "hansard_annex_zh", "en": "hansard_annex_en"}
HANSARD_2012 = CORPUS / "legco" / "hansard_20121121_translate-c.pdf"


def _gold(lang: str) -> list[dict[str, Any]]:
    return json.loads((HANSARD / f"{PAPERS[lang]}.json").read_text(encoding="utf-8"))["appendices"]


def _chunks(path: Path) -> list[dict[str, Any]]:
    return pipeline.chunk_file(path, Strategy.question, Settings(), use_llm=False)


@pytest.fixture(scope="module")
def chunked() -> dict[str, list[dict[str, Any]]]:
    return {lang: _chunks(HANSARD / f"{name}.pdf") for lang, name in PAPERS.items()}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_each_appendix_is_linked_both_ways_with_the_exchange_it_answers(chunked, lang: str) -> None:
    records = chunked[lang]
    by_id = {r["id"]: r for r in records}
    annexes = [r for r in records if r["metadata"]["section_type"] == "annex"]
    assert [(r["metadata"]["annex"], r["metadata"]["answers_question_id"]) for r in annexes] == [
        (g["annex"], g["answers_question_id"]) for g in _gold(lang)
    ]
    for annex, gold in zip(annexes, _gold(lang)):
        exchange = next(r for r in records if r["metadata"].get("question_id") == gold["answers_question_id"])
        assert exchange["metadata"]["annex_ids"] == [annex["id"]]
        assert (
            by_id[exchange["metadata"]["annex_ids"][0]]["metadata"]["answers_question_id"]
            == gold["answers_question_id"]
        )
        assert annex["page_number"] == gold["page"]
    linked = [r["metadata"]["question_id"] for r in records if "annex_ids" in r["metadata"]]
    assert linked == [g["answers_question_id"] for g in _gold(lang)], (
        "no other exchange points to an appendix"
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_an_appendix_is_a_top_level_section_led_by_its_question_subject_and_asker(chunked, lang: str) -> None:
    records = chunked[lang]
    for annex, gold in zip([r for r in records if r["metadata"]["section_type"] == "annex"], _gold(lang)):
        meta = annex["metadata"]
        assert meta["section_path"] == [gold["annex"], gold["title"]]
        exchange = next(r for r in records if r["metadata"].get("question_id") == gold["answers_question_id"])
        subject, asker = exchange["metadata"]["section_path"][-1], exchange["metadata"]["asker"]
        context = annex["text"].split("\n")[0]
        assert gold["answers_question_id"] in context and subject in context and asker in context
        assert context.startswith(gold["annex"])
        assert meta["has_table"] and "|---|" in annex["text"], "the appendix's table is Markdown"
        rows = [line for line in annex["text"].split("\n") if line.startswith("|")]
        assert all(cell in "".join(rows) for cell in gold["cells"])
    adjournment = [
        r
        for r in records
        if r["metadata"]["section_type"] != "annex" and r["page_number"] >= _gold(lang)[0]["page"]
    ]
    assert adjournment == [], "nothing of the appendices is left under the adjournment"


def test_a_reply_pointing_to_an_unnumbered_annex_is_linked_by_the_title() -> None:
    text = (
        "議員質詢的口頭答覆\n公共泳池\n1. 陳家樂議員：主席，政府會否延長泳池開放時間？\n"
        "民政及青年事務局局長：主席，會。\n周浩鼎議員：主席，各區泳池的入場人次為何？\n"
        "民政及青年事務局局長：主席，詳情載於附件。(附件)\n主席：第二項質詢。\n公共圖書館\n"
        "2. 李慧琼議員：主席，圖書館會否延長開放時間？\n民政及青年事務局局長：主席，會。\n下次會議\n主席：我現在宣布休會。\n"
        "附件\n書面答覆\n民政及青年事務局局長就周浩鼎議員對第一項質詢的補充質詢所作書面答覆\n各區泳池的入場人次如下。"
    )
    doc = DocumentText.from_pages([Page(1, text, text)])
    sections, report = link_annexes(doc, detect_structure(doc))
    annex = next(s for s in sections if s.type == "annex")
    asked = next(s for s in sections if s.qa_id == "1-S1")
    assert (
        annex.path[0] == "附件"
        and annex.extra["answers_question_id"] == "1-S1"
        and asked.extra["annexes"] == ["附件"]
    )
    assert report.unresolved_references == [] and report.unlinked_appendices == []
    assert "下次會議" in [s.heading for s in sections] and not any(
        "附件" in s.text for s in sections if s.heading == "下次會議"
    )


def test_a_written_reply_that_runs_into_the_appendix_ends_where_it_starts() -> None:
    text = (
        "議員質詢的口頭答覆\n公共泳池\n1. 陳家樂議員：主席，泳池會否延長開放時間？\n民政及青年事務局局長：主席，會。\n"
        "周浩鼎議員：主席，各區泳池的入場人次為何？\n民政及青年事務局局長：主席，我會在會後提供。(附錄I)\n"
        "議員質詢的書面答覆\n海濱長廊\n2. 謝偉俊議員：主席，誰清潔海濱長廊？\n發展局局長：主席，食物環境衞生署。\n"
        "附錄I\n書面答覆\n民政及青年事務局局長就周浩鼎議員對第一項質詢的補充質詢所作書面答覆\n各區泳池的入場人次如下。"
    )
    doc = DocumentText.from_pages([Page(1, text, text)])
    sections, _ = link_annexes(doc, detect_structure(doc))
    written = next(s for s in sections if s.qa_id == "2")
    assert written.text.endswith("食物環境衞生署。") and written.answer == "主席，食物環境衞生署。"
    assert next(s for s in sections if s.type == "annex").extra["answers_question_id"] == "1-S1"


def test_papers_without_council_questions_are_left_as_they_are() -> None:
    text = "備用問答\n問1：附錄I列出甚麼？\n答1：各區數字。(附錄I)\n附錄I\n書面答覆\n勞工及福利局局長就林健鋒議員對第一項質詢的補充質詢所作書面答覆\n數字如下。"
    doc = DocumentText.from_pages([Page(1, text, text)])
    before = detect_structure(doc)
    after, report = link_annexes(doc, list(before))
    assert after == before and report.linked == []


def test_member_names_compare_without_titles() -> None:
    assert same_member("MR CHAN KA-LOK", "Mr CHAN Ka-lok") and same_member(
        "DR ELIZABETH QUAT", "Dr Elizabeth QUAT"
    )
    assert same_member("林健鋒議員", "林健鋒議員") and not same_member("林健鋒議員", "易志明議員")
    assert not same_member("MR CHAN KA-LOK", "Mr Holden CHOW") and not same_member(None, "Mr CHAN")


def test_chroma_keeps_annex_ids_as_a_list() -> None:
    meta = {"annex_ids": ["doc:question:8", "doc:question:9"], "section_path": ["A", "B"]}
    stored = to_chroma(meta)
    assert stored["annex_ids"] == "doc:question:8 doc:question:9" and from_chroma(stored) == meta


# -- search and answering --------------------------------------------------------------------
@pytest.fixture
def stored(env_data_dir: Path, chunked) -> Settings:
    settings = Settings.from_env()
    collection = open_collection(settings)
    for lang, name in PAPERS.items():
        records = [{**r, "document_id": name.replace("_", "-")} for r in chunked[lang]]
        sha = records[0]["metadata"]["content_sha256"]
        replace_document(collection, records, records[0]["document_id"], "question", sha)
    return settings


def _cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue()


def test_query_shows_the_link_under_a_hit(stored: Settings) -> None:
    code, out = _cli(
        "query", "各區使用醫療券的長者人數", "--strategy", "question", "--mode", "bm25", "-k", "3"
    )
    assert code == 0
    assert "⤷ appendix 附錄I  hansard-annex-zh:question:8" in out, out
    assert "⤷ answers 1-S1  hansard-annex-zh:question:1" in out, out
    code, out = _cli(
        "query",
        "loans of public libraries in each district",
        "--strategy",
        "question",
        "--mode",
        "bm25",
        "-k",
        "3",
        "--json",
    )
    hits = [json.loads(line) for line in out.splitlines()]
    annex = next(h for h in hits if h["metadata"].get("answers_question_id") == "2-S2")
    assert [link["question_id"] for link in annex["linked"]] == ["2-S2"]


def test_answer_puts_the_linked_appendix_into_the_context_and_back(stored: Settings) -> None:
    retriever = Retriever.open(stored)
    asked = answer_question(
        retriever, "葛珮帆議員問過去三年各區圖書館的借閱數字", None, "question", mode="bm25", k_start=1
    )
    ids = [b.hit.id for b in asked.blocks]
    assert ids[:2] in (
        ["hansard-annex-zh:question:5", "hansard-annex-zh:question:9"],
        ["hansard-annex-zh:question:9", "hansard-annex-zh:question:5"],
    )
    english = answer_question(
        retriever,
        "Written answer loans Yau Tsim Mong Sha Tin Yuen Long",
        None,
        "question",
        mode="bm25",
        k_start=1,
    )
    assert [b.hit.id for b in english.blocks][:2] == [
        "hansard-annex-en:question:9",
        "hansard-annex-en:question:5",
    ]
    prompt = english.messages[1]["content"]
    assert "[1] document: hansard-annex-en | page: 4 | Appendix II answering question: 2-S2" in prompt
    assert "[2] document: hansard-annex-en | page: 2 | question: 2-S2" in prompt


# -- the real 2012 Hansard ------------------------------------------------------------------------
@pytest.mark.skipif(not HANSARD_2012.exists(), reason="shared corpus not present")
def test_real_2012_hansard_appendix_i_answers_1_s1_both_ways() -> None:
    records = _chunks(HANSARD_2012)
    annex = [r for r in records if r["metadata"]["section_type"] == "annex"]
    assert [
        (r["metadata"]["annex"], r["metadata"]["answers_question_id"], r["page_number"]) for r in annex
    ] == [("附錄I", "1-S1", 249)]
    assert (
        annex[0]["metadata"]["section_path"][0] == "附錄I" and "林健鋒議員" in annex[0]["text"].split("\n")[0]
    )
    exchange = next(r for r in records if r["metadata"].get("question_id") == "1-S1")
    assert exchange["metadata"]["annex_ids"] == [annex[0]["id"]] and "(附錄I)" in exchange["text"]
    assert not any(
        r["metadata"]["section_path"][:1] == ["下次會議"] and r["page_number"] >= 249 for r in records
    )


@pytest.mark.skipif(not HANSARD_2012.exists(), reason="shared corpus not present")
def test_real_2012_hansard_names_the_appendix_it_refers_to_but_does_not_print() -> None:
    source = read_source(HANSARD_2012)
    _, pages = text_pages(source)
    result = find_structure(pages, Settings())
    report = result.annexes.to_dict()
    assert [(a["annex"], a["answers_question_id"]) for a in report["linked"]] == [("附錄I", "1-S1")]
    assert report["unresolved_references"] == [{"question_id": "2-S3", "appendix": "2"}]
