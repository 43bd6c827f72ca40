"""Geometric table extraction (no LLM): fixture papers against their gold, tiny PDFs drawn
here for the shapes that matter, and the real corpus where it is present."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fpdf import FPDF

from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import DocumentText, Page
from legco_assets.core.settings import Settings
from legco_assets.core.tables import (
    TablesResult,
    embed_tables,
    embed_tables_in_pages,
    find_tables,
    geometric_tables,
)

from .conftest import FIXTURES
from .pdf_factory import make_pdf

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
PAPERS = ["paper_a_tables", "paper_b_speaking_notes", "paper_e_qa", "paper_l_faq"]


def norm(cell: str) -> str:
    return " ".join(cell.split())


def cells(header: list[str], rows: list[list[str]]) -> list[list[str]]:
    return [[norm(c) for c in header]] + [[norm(c) for c in r] for r in rows]


def load(path: Path) -> tuple[bytes, list[Page]]:
    source = read_source(path)
    return source.data, clean_pages(extract_document(source).pages)


# -- fixture papers -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fixture_results() -> dict[str, tuple[list[Page], TablesResult, dict]]:
    out = {}
    for name in PAPERS:
        data, pages = load(FIXTURES / f"{name}.pdf")
        gold = json.loads((FIXTURES / f"{name}.gold.json").read_text(encoding="utf-8"))
        out[name] = (pages, find_tables(data, pages, Settings()), gold)
    return out


@pytest.mark.parametrize("name", PAPERS)
def test_every_gold_table_matches_cell_for_cell(fixture_results, name: str) -> None:
    pages, result, gold = fixture_results[name]
    assert gold["tables"], "fixture without tables"
    for expected in gold["tables"]:
        want = cells(expected["header"], expected["rows"])
        found = [t for t in result.tables if t.page == expected["page"] and cells(t.header, t.rows) == want]
        assert found, f"{expected['table_id']} on page {expected['page']} not found cell for cell"
        table = found[0]
        assert table.method == "geometric"
        assert table.continues_from_previous == (expected["continued_from_page"] is not None)
        assert table.markdown == to_markdown(table.header, table.rows)
        assert table.bbox and table.bbox[0] < table.bbox[2] and table.bbox[1] < table.bbox[3]
    # and nothing invented: one table per gold fragment
    assert len(result.tables) == len(gold["tables"])
    assert result.pages_with_tables == sorted({t["page"] for t in gold["tables"]})
    assert result.vision_pages == 0 and result.warnings == []
    assert result.stats["tables"] == len(result.tables) and result.stats["seconds"] >= 0


@pytest.mark.parametrize("name", PAPERS)
def test_tables_in_answers_become_markdown_in_the_text(fixture_results, name: str) -> None:
    """Bar (a): every table inside an answer appears as one Markdown table (continued parts
    stitched, header once) in the document text, and in the per-page text."""
    pages, result, gold = fixture_results[name]
    by_id: dict[str, list[dict]] = {}
    for fragment in gold["tables"]:
        by_id.setdefault(fragment["table_id"], []).append(fragment)
    text, embedded = embed_tables(DocumentText.from_pages(pages).text, result.tables)
    paged = "\n\n".join(p.cleaned for p in embed_tables_in_pages(pages, result.tables))
    assert embedded == len(by_id)
    for table_id, fragments in by_id.items():
        stitched = to_markdown(fragments[0]["header"], [r for f in fragments for r in f["rows"]])
        assert text.count(stitched) == 1, table_id
        assert paged.count(stitched) == 1, table_id
        last_cell = norm(fragments[-1]["rows"][-1][-1])
        if last_cell:
            # the raw cell-per-line copy is gone: the last cell's text now sits only in Markdown
            assert all(line.startswith("|") for line in text.split("\n") if norm(line) == last_cell)


def test_in_pair_tables_exist_in_the_fixtures(fixture_results) -> None:
    in_pair = [t for name in PAPERS for t in fixture_results[name][2]["tables"] if t["in_pair"]]
    assert len(in_pair) >= 10


def test_thin_space_numbers_stay_one_cell(fixture_results) -> None:
    _, result, _ = fixture_results["paper_a_tables"]
    numbers = [
        c for t in result.tables for r in t.rows for c in r[1:] if " " in c and c.replace(" ", "").isdigit()
    ]
    assert numbers, "paper A has thousands with thin spaces"
    assert all(len(part) == 3 for n in numbers for part in n.split(" ")[1:])


# -- tiny PDFs drawn here ---------------------------------------------------------------------------
def new_pdf() -> FPDF:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    return pdf


def grid(
    pdf: FPDF,
    x: float,
    y: float,
    widths: list[float],
    rows: list[list[str]],
    h: float = 18,
    outer: bool = True,
) -> float:
    """Cells with text and a full set of ruling lines (optionally no left/right border)."""
    xs = [x]
    for w in widths:
        xs.append(xs[-1] + w)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            pdf.text(xs[c] + 3, y + r * h + 12, text)
    bottom = y + len(rows) * h
    for r in range(len(rows) + 1):
        pdf.line(xs[0], y + r * h, xs[-1], y + r * h)
    for i, xv in enumerate(xs):
        if outer or 0 < i < len(xs) - 1:
            pdf.line(xv, y, xv, bottom)
    return bottom


def save(pdf: FPDF, path: Path) -> Path:
    pdf.output(str(path))
    return path


def test_ruled_table_with_spaced_numbers(tmp_path: Path) -> None:
    pdf = new_pdf()
    pdf.add_page()
    pdf.text(60, 60, "Reply: the figures are as follows.")
    rows = [["Year", "Applications", "Approved"], ["2022", "11 991", "1 109"], ["2023", "12 005", "987"]]
    grid(pdf, 60, 80, [100, 120, 120], rows)
    pdf.text(60, 180, "End of reply.")
    tables = geometric_tables(save(pdf, tmp_path / "t.pdf").read_bytes())
    assert list(tables) == [1]
    (table,) = tables[1]
    assert table.header == ["Year", "Applications", "Approved"]
    assert table.rows == [["2022", "11 991", "1 109"], ["2023", "12 005", "987"]]
    assert table.bbox == pytest.approx([60, 80, 400, 134], abs=1)


def test_open_sided_table_and_spanned_header(tmp_path: Path) -> None:
    pdf = new_pdf()
    pdf.add_page()
    x, y, w, h = 60, 80, [120, 100, 100], 18
    xs = [x, x + w[0], x + w[0] + w[1], x + sum(w)]
    pdf.text(x + 3, y + 12, "District")
    pdf.text(xs[1] + 3, y + 12, "Budget")  # spans the two number columns
    pdf.text(xs[1] + 3, y + h + 12, "2024")
    pdf.text(xs[2] + 3, y + h + 12, "2025")
    body = [["Sha Tin", "1 200", "1 350"], ["Tuen Mun", "980", "1 020"]]
    for r, row in enumerate(body):
        for c, text in enumerate(row):
            pdf.text(xs[c] + 3, y + (r + 2) * h + 12, text)
    for r in (0, 2, 3, 4):
        pdf.line(xs[0], y + r * h, xs[3], y + r * h)
    pdf.line(xs[1], y + h, xs[3], y + h)  # under "Budget" only
    pdf.line(xs[1], y, xs[1], y + 4 * h)  # inner verticals; no outer border
    pdf.line(xs[2], y + h, xs[2], y + 4 * h)
    (table,) = geometric_tables(save(pdf, tmp_path / "t.pdf").read_bytes())[1]
    assert table.header == ["District", "Budget 2024", "Budget 2025"]
    assert table.rows == body


def test_shaded_cells_one_text_line_at_a_time_are_one_cell(tmp_path: Path) -> None:
    """Word processors shade a cell paragraph by paragraph: the joins are not rules."""
    pdf = new_pdf()
    pdf.add_page()
    x, y = 60, 80
    cols = [(x, 150), (x + 152, 250)]  # a 2 pt white gutter between the columns
    pdf.set_fill_color(220, 235, 250)
    rows = [
        ["Period", "Threshold"],
        ["Before 18 January", "18 hours each week"],
        ["On or after 18 January", "17 hours each week"],
    ]
    top = y
    for r, row in enumerate(rows):
        lines = [[c] if r == 0 else [c, "(see note)"] for c in row]
        height = 16 * len(lines[0])
        for (cx, cw), cell_lines in zip(cols, lines):
            for i, line in enumerate(cell_lines):
                pdf.rect(cx, top + i * 16, cw, 16, style="F")  # one shaded box per line
                pdf.text(cx + 3, top + i * 16 + 12, line)
        top += height + 2  # white gutter between rows
    (table,) = geometric_tables(save(pdf, tmp_path / "t.pdf").read_bytes())[1]
    assert table.header == ["Period", "Threshold"]
    assert table.rows == [
        ["Before 18 January (see note)", "18 hours each week (see note)"],
        ["On or after 18 January (see note)", "17 hours each week (see note)"],
    ]


def test_rows_packed_in_one_ruled_band_are_split(tmp_path: Path) -> None:
    """Budget sheets rule only the header and the frame: each text line is a row."""
    pdf = new_pdf()
    pdf.add_page()
    x, y, w = 60, 80, [150, 90, 90]
    xs = [x, x + w[0], x + w[0] + w[1], x + sum(w)]
    for c, text in enumerate(["", "Actual", "Estimate"]):
        pdf.text(xs[c] + 3, y + 12, text)
    body = [["Education", "85.5", "99.6"], ["Social Welfare", "79.5", "93.9"], ["Health", "72.5", "87.1"]]
    for r, row in enumerate(body):
        for c, text in enumerate(row):
            pdf.text(xs[c] + 3, y + 30 + r * 14, text)
    bottom = y + 20 + 14 * len(body) + 6
    for yy in (y, y + 18, bottom):
        pdf.line(xs[0], yy, xs[3], yy)
    for xv in xs:
        pdf.line(xv, y, xv, bottom)
    (table,) = geometric_tables(save(pdf, tmp_path / "t.pdf").read_bytes())[1]
    assert table.header == ["", "Actual", "Estimate"]
    assert table.rows == body


def _packed_band(tmp_path: Path, widths: list[float], header: list[str], lines: list[list[str]]) -> Path:
    """A table ruled around its header and frame only, its body cells printed a line at a
    time (``lines``: the text lines of each body cell, one list per column)."""
    pdf = new_pdf()
    pdf.add_page()
    x, y = 60, 80
    xs = [x]
    for w in widths:
        xs.append(xs[-1] + w)
    for c, text in enumerate(header):
        pdf.text(xs[c] + 3, y + 12, text)
    for c, column in enumerate(lines):
        for r, text in enumerate(column):
            pdf.text(xs[c] + 3, y + 30 + r * 14, text)
    bottom = y + 20 + 14 * max(len(column) for column in lines) + 6
    for yy in (y, y + 18, bottom):
        pdf.line(xs[0], yy, xs[-1], yy)
    for xv in xs:
        pdf.line(xv, y, xv, bottom)
    return save(pdf, tmp_path / "band.pdf")


def test_rows_packed_in_a_band_with_a_narrow_label_column_are_split(tmp_path: Path) -> None:
    """The budget media sheets' layout: the label column is so narrow that a short label
    fills most of it, which is what a wrapped line looks like; every column of figures
    prints one figure of one kind per line, so each line is a row all the same."""
    labels = ["Education", "Social Welfare", "Health", "Total"]
    actual, change = ["85.5", "79.5", "72.5", "237.5"], ["+7.8%", "+14.2%", "+5.4%", "+9.1%"]
    path = _packed_band(tmp_path, [74, 70, 70], ["", "Actual", "Change"], [labels, actual, change])
    (table,) = geometric_tables(path.read_bytes())[1]
    assert table.rows == [list(row) for row in zip(labels, actual, change)]


def test_a_wrapped_label_beside_a_figure_and_its_share_stays_one_row(tmp_path: Path) -> None:
    """A row printing a count with its share in brackets below, its label wrapped over the
    same two lines: the figures are of two kinds, so the two lines are one row."""
    labels = ["Students in special", "schools"]
    figures = ["1 240", "(12.5%)"]
    path = _packed_band(tmp_path, [100, 70], ["Group", "Number"], [labels, figures])
    (table,) = geometric_tables(path.read_bytes())[1]
    assert table.rows == [["Students in special schools", "1 240 (12.5%)"]]


def test_stacked_boxes_are_not_a_table(tmp_path: Path) -> None:
    pdf = new_pdf()
    pdf.add_page()
    pdf.rect(60, 80, 400, 40)
    pdf.text(66, 100, "IMPORTANT NOTE")
    pdf.rect(60, 120, 400, 60)
    pdf.text(66, 140, "An employee should not work for another employer.")
    pdf.rect(60, 180, 400, 30)
    pdf.text(66, 200, "Otherwise he may be prosecuted.")
    assert geometric_tables(save(pdf, tmp_path / "t.pdf").read_bytes()) == {}


def test_pages_without_ruling_lines_get_no_tables(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "plain.pdf", [["Year  Applications  Approved", "2022  11 991  1 109"], ["text only"]]
    )
    data, pages = load(path)
    result = find_tables(data, pages, Settings())
    assert result.tables == [] and result.pages_with_tables == []


def _continued_pdf(tmp_path: Path, repeat_header: bool) -> Path:
    pdf = new_pdf()
    header = ["Code", "Project", "Budget"]
    first = [[f"A{i}", f"Project {i}", f"{i} 000"] for i in range(1, 6)]
    second = [[f"B{i}", f"Project {i + 5}", f"{i + 5} 500"] for i in range(1, 4)]
    pdf.add_page()
    pdf.text(60, 700, "Answer A1: the projects are listed below.")
    grid(pdf, 60, 714, [80, 160, 100], [header] + first)  # runs to the page bottom
    pdf.text(280, 830, "E-1")
    pdf.add_page()
    grid(pdf, 60, 60, [80, 160, 100], ([header] if repeat_header else []) + second)
    pdf.text(60, 160 + 18 * 2, "Question A2: next question.")
    pdf.text(280, 830, "E-2")
    return save(pdf, tmp_path / "continued.pdf")


@pytest.mark.parametrize("repeat_header", [True, False])
def test_table_continued_on_next_page(tmp_path: Path, repeat_header: bool) -> None:
    data, pages = load(_continued_pdf(tmp_path, repeat_header))
    result = find_tables(data, pages, Settings())
    assert [t.page for t in result.tables] == [1, 2]
    first, second = result.tables
    assert not first.continues_from_previous and second.continues_from_previous
    assert second.header == ["Code", "Project", "Budget"]
    assert second.rows == [[f"B{i}", f"Project {i + 5}", f"{i + 5} 500"] for i in range(1, 4)]
    text, n = embed_tables(DocumentText.from_pages(pages).text, result.tables)
    assert n == 1
    assert to_markdown(first.header, first.rows + second.rows) in text
    assert text.count("| Code | Project | Budget |") == 1
    assert text.index("Answer A1") < text.index("| Code |") < text.index("Question A2")


def test_token_chunks_of_a_continued_tables_rows_start_on_the_page_they_are_printed_on(
    tmp_path: Path,
) -> None:
    """The table is stitched onto page 1, where it starts; a token window that begins in the
    rows printed at the top of page 2 starts on page 2 (its link once opened page 1),
    and every window's pages are the lowest and highest its characters are printed on."""
    from legco_assets.core.pipeline import build_chunks
    from legco_assets.core.settings import Strategy

    pdf = new_pdf()
    header = ["Code", "Project", "Budget"]
    pdf.add_page()
    pdf.text(60, 640, "Answer A1: the projects are listed below.")
    grid(
        pdf,
        60,
        654,
        [80, 160, 100],
        [header] + [[f"A{i}", f"Road works {i}", f"{i} 000"] for i in range(1, 10)],
    )
    pdf.text(280, 830, "E-1")
    pdf.add_page()
    grid(pdf, 60, 60, [80, 160, 100], [[f"B{i}", f"Harbour works {i}", f"{i} 500"] for i in range(1, 31)])
    pdf.text(60, 640, "Question A2: the next question is about the budget of the harbour works.")
    pdf.text(280, 830, "E-2")
    data, pages = load(save(pdf, tmp_path / "continued.pdf"))
    tables = find_tables(data, pages, Settings()).tables
    assert [t.page for t in tables] == [1, 2] and tables[1].continues_from_previous
    chunks = build_chunks(
        "t", Strategy.token, pages, Settings(chunk_size=60, chunk_overlap=0), sections=[], tables=tables
    )
    assert sum("| Code |" in c.text for c in chunks) == 1  # one table, stitched on page 1
    for chunk in chunks:
        on_1 = "Answer A1" in chunk.text or re.search(r"\| A\d", chunk.text) is not None
        on_2 = "Question A2" in chunk.text or re.search(r"\| B\d", chunk.text) is not None
        assert (chunk.page_start, chunk.page_end) == (1 if on_1 else 2, 2 if on_2 else 1), chunk.text
    assert any(
        c.text.lstrip().startswith("| B") and c.page_start == 2 for c in chunks
    )  # a window starts in page 2's rows


def test_separate_tables_with_text_between_are_not_continuations(tmp_path: Path) -> None:
    pdf = new_pdf()
    rows = [["Code", "Budget"], ["A1", "1 000"], ["A2", "2 000"]]
    pdf.add_page()
    grid(pdf, 60, 700, [100, 100], rows)
    pdf.text(60, 780, "Note: figures are provisional.")
    pdf.add_page()
    grid(pdf, 60, 60, [100, 100], rows)
    data, pages = load(save(pdf, tmp_path / "t.pdf"))
    result = find_tables(data, pages, Settings())
    assert [t.continues_from_previous for t in result.tables] == [False, False]


def test_result_round_trips_through_json() -> None:
    data, pages = load(FIXTURES / "paper_e_qa.pdf")
    result = find_tables(data, pages, Settings())
    again = TablesResult.from_dict(json.loads(json.dumps(result.to_dict(), ensure_ascii=False)))
    assert again == result


# -- real corpus (only where it is present) ----------------------------------------------------------
needs_corpus = pytest.mark.skipif(
    not CORPUS.exists(), reason="real corpus (../shared/corpus/real) not present"
)


@needs_corpus
def test_hansard_tables_keep_thin_space_totals_and_merged_headers() -> None:
    data, pages = load(CORPUS / "legco" / "hansard_20121121_translate-c.pdf")
    tables = geometric_tables(data, [9, 77])
    (wages,) = tables[9]
    assert wages.header == [
        "行業",
        "2011年比較2010年總薪酬開支(1) 增幅(百萬港元)",
        "2011年比較2010年總薪酬開支(1) 增加率(%)(2)",
    ]
    assert wages.rows[0] == ["製造(3)", "912.8", "6.0"]
    assert wages.rows[-1] == ["所有行業", "59,639.0", "10.9"]
    (levels,) = tables[77]
    assert levels.rows[-1] == [
        "總計",
        "",
        "2 446",
        "3 570",
        "1 944",
        "1 590",
        "1 158",
        "1 058",
        "225",
        "11 991",
        "100%",
    ]
    page9 = next(p for p in pages if p.number == 9)
    text, n = embed_tables(page9.cleaned, [wages])
    assert n == 1 and wages.markdown in text and "\n製造(3) 912.8 6.0\n" not in text


@needs_corpus
def test_corpus_call_outs_are_not_tables_and_shaded_faq_table_is() -> None:
    data, _ = load(CORPUS / "hkgov" / "ld_ECO_guide_with_FAQ_en.pdf")
    assert 15 not in geometric_tables(data, [15])
    data, _ = load(CORPUS / "hkgov" / "ld_continuous_contract_FAQ_tc.pdf")
    (table,) = geometric_tables(data, [2])[2]
    assert table.header == ["僱傭期", "「連續性合約」規定的工時門檻"]
    assert table.rows[0] == ["新規定適用前：2026年1月18日前", "每星期須最少工作 18 小時。"]
    assert len(table.rows) == 2
