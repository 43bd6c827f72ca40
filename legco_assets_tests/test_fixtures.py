"""The committed fixture papers agree with their gold annotations (read back with pypdfium2).

The gold files are written by legco_assets_tests/fixtures/generate_fixtures.py from its own
data model; these tests check that what a text extractor sees in the PDFs matches them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

TESTS = Path(__file__).resolve().parent
PDF_DIR = TESTS / "fixtures" / "pdfs"
SAMPLES = TESTS.parent / "data" / "samples"
GOLD_FILES = sorted(PDF_DIR.glob("*.gold.json"))
_WS = re.compile(r"\s+")

EXPECTED = {  # file: (pages, language, number of pairs)
    "paper_a_tables.pdf": (18, "zh", 0),
    "paper_b_speaking_notes.pdf": (4, "zh", 3),
    "paper_e_qa.pdf": (27, "zh", 15),
    "paper_l_faq.pdf": (36, "en", 24),
}


def norm(text: str) -> str:
    return _WS.sub("", text)


def page_texts(path: Path) -> list[str]:
    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()


@pytest.fixture(scope="module", params=GOLD_FILES, ids=lambda p: p.name.replace(".gold.json", ""))
def paper(request):
    gold = json.loads(request.param.read_text(encoding="utf-8"))
    pdf = PDF_DIR / gold["file"]
    assert pdf.is_file(), f"{pdf} is missing beside {request.param.name}"
    return gold, page_texts(pdf)


def test_every_expected_fixture_is_committed():
    assert {json.loads(p.read_text(encoding="utf-8"))["file"] for p in GOLD_FILES} == set(EXPECTED)


def test_page_count_language_and_pair_count(paper):
    gold, pages = paper
    want_pages, want_lang, want_pairs = EXPECTED[gold["file"]]
    assert len(pages) == gold["pages"] == want_pages
    assert gold["language"] == want_lang
    assert len(gold["pairs"]) == want_pairs
    assert [p["question_index"] for p in gold["pairs"]] == list(range(want_pairs))


def test_each_question_starts_on_its_recorded_page(paper):
    gold, pages = paper
    for pair in gold["pairs"]:
        head = norm(pair["question"])[:10]
        assert len(head) == 10
        assert head in norm(pages[pair["page"] - 1]), (pair["qa_id"], pair["page"])
        earlier = [i + 1 for i in range(pair["page"] - 1) if norm(pair["question"]) in norm(pages[i])]
        assert not earlier, (pair["qa_id"], earlier)


def test_answers_start_and_end_on_their_recorded_pages(paper):
    gold, pages = paper
    for pair in gold["pairs"]:
        assert norm(pair["answer_first_line"]) in norm(pages[pair["answer_start_page"] - 1]), pair["qa_id"]
        assert norm(pair["answer_last_line"]) in norm(pages[pair["answer_end_page"] - 1]), pair["qa_id"]
        assert pair["page"] <= pair["answer_start_page"] <= pair["answer_end_page"]


def test_footer_and_date_close_every_page_and_header_only_on_page_one(paper):
    gold, pages = paper
    prefix = gold["header_line"].strip("()")
    assert gold["footer_lines"] == [f"{prefix}-{n}" for n in range(1, len(pages) + 1)]
    for n, text in enumerate(pages, 1):
        lines = [l.strip() for l in text.splitlines() if l.strip()]
        assert lines[-2:] == [f"{prefix}-{n}", "2025-05-15"], n
        assert (lines[0] == gold["header_line"]) == (n == 1), n


def test_table_cells_are_on_their_recorded_pages(paper):
    gold, pages = paper
    for frag in gold["tables"]:
        page = norm(pages[frag["page"] - 1])
        for cell in frag["header"] + [c for row in frag["rows"] for c in row]:
            assert norm(cell) in page, (frag["table_id"], frag["page"], cell)
        if frag["continues_to_page"]:
            assert frag["continues_to_page"] == frag["page"] + 1


CHINESE_GOLD = [p for p in GOLD_FILES if json.loads(p.read_text(encoding="utf-8"))["language"] == "zh"]


@pytest.mark.parametrize("gold_file", CHINESE_GOLD, ids=lambda p: p.name.replace(".gold.json", ""))
def test_chinese_papers_extract_real_characters(gold_file):
    pages = [
        page.get_textpage().get_text_range()
        for page in pdfium.PdfDocument(str(gold_file).replace(".gold.json", ".pdf"))
    ]
    for n, text in enumerate(pages, 1):
        assert "\ufffd" not in text and "\u25a1" not in text, n
        assert len(re.findall(r"[\u4e00-\u9fff]", text)) >= 20, n


def test_paper_e_covers_the_layout_cases():
    gold = json.loads((PDF_DIR / "paper_e_qa.gold.json").read_text(encoding="utf-8"))
    pairs = {p["qa_id"]: p for p in gold["pairs"]}
    assert list(pairs) == [
        "A1",
        "A2",
        "A3",
        "B1",
        "B2",
        "B3",
        "C1",
        "C2",
        "C3",
        "D1",
        "D2",
        "D3",
        "O1",
        "O2",
        "O3",
    ]
    assert {p["question_marker"] for p in gold["pairs"] if p["kind"] == "marked"} >= {
        "問 A1：",
        "問A2:",
        "問 A3︰",
    }
    assert sum(p["answer_start_page"] > p["page"] for p in gold["pairs"]) >= 2  # 問 and 答 on different pages
    assert (
        sum(p["answer_end_page"] > p["answer_start_page"] for p in gold["pairs"]) >= 2
    )  # answers span pages
    continued = [t for t in gold["tables"] if t["continues_to_page"]]
    assert continued and all(t["in_pair"] for t in continued)
    assert any("\u2009" in c for t in gold["tables"] for r in t["rows"] for c in r)
    assert any(p["internal_notes"] for p in gold["pairs"]) and any(p["follow_ups"] for p in gold["pairs"])


def test_paper_a_has_no_pairs_but_has_code_rows_and_numbered_notes():
    gold = json.loads((PDF_DIR / "paper_a_tables.gold.json").read_text(encoding="utf-8"))
    text = "".join(page_texts(PDF_DIR / "paper_a_tables.pdf"))
    assert gold["pairs"] == [] and "問" not in text and "答" not in text
    kinds = {t["kind"] for t in gold["traps"]}
    assert {"code_cell_row", "numbered_list"} <= kinds
    assert any(t["text"].startswith("A1 ") for t in gold["traps"])


def test_paper_l_has_toc_and_numbered_list_traps():
    gold = json.loads((PDF_DIR / "paper_l_faq.gold.json").read_text(encoding="utf-8"))
    pages = page_texts(PDF_DIR / "paper_l_faq.pdf")
    assert gold["toc_lines"] and all(t["page"] == 2 for t in gold["toc_lines"])
    headings = {h["text"]: h["page"] for h in gold["headings"]}
    for line in gold["toc_lines"]:
        assert headings[line["entry"]] == line["points_to_page"]
        assert norm(line["entry"]) in norm(pages[line["points_to_page"] - 1])
    assert len(gold["narrative_headings"]) == 9
    assert gold["topic_headings"] == ["Licensing", "Allowances", "Enforcement", "Others"]
    assert any(t["kind"] == "numbered_list" and t["owner"] for t in gold["traps"])


def test_samples_are_small_pdfs():
    names = {"sample_zh_qa.pdf", "sample_en_qa.pdf", "sample_zh_speaking_notes.pdf"}
    assert names <= {p.name for p in SAMPLES.glob("*.pdf")}
    assert sum((SAMPLES / n).stat().st_size for n in names) < 600 * 1024
    for n in names:
        assert 3 <= len(page_texts(SAMPLES / n)) <= 8
