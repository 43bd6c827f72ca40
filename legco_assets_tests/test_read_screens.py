"""The reader's cheap screens give the answers of the slow, exact reading they stand in for.

The visible-text screen (PDFium's character boxes asked about the regions around the page,
one walk over a page's objects for their render modes) only decides which pages are read
character by character; reading every page that way must give the same text. The heading
reader's drawn edges are read only for the paths around a candidate line; a grid judged from
those must be the grid judged from all of the page's edges. Checked on the committed fixture
PDFs (off-page placeholders, an invisible line, ruled tables) and on a short paper from
another producer (reportlab platypus, CJK word-wrap: short text runs, gridded tables)."""

from __future__ import annotations

import sys
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest

from legco_assets.core.read import headings, visible

PDFS = Path(__file__).resolve().parent / "fixtures" / "pdfs"
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    found = sorted(PDFS.glob("*.pdf"))
    try:
        import reportlab  # noqa: F401
    except ImportError:
        return found
    sys.path.insert(0, str(SCRIPTS))
    try:
        from make_long_paper import make_platypus_paper
    finally:
        sys.path.remove(str(SCRIPTS))
    return [*found, make_platypus_paper(8, tmp_path_factory.mktemp("platypus") / "platypus.pdf")]


def _pages(path: Path):  # type: ignore[no-untyped-def]
    pdf = pdfium.PdfDocument(str(path))
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            yield page, textpage
            textpage.close()
            page.close()
    finally:
        pdf.close()


def test_the_screen_reads_every_page_as_the_character_by_character_reading_does(papers: list[Path]) -> None:
    flagged = 0
    for path in papers:
        for page, textpage in _pages(path):
            text = textpage.get_text_range()
            seen = visible.visible_text(raw, page, textpage.raw, text)
            screen = visible._Screen(raw)
            screen.walk(page.raw, raw.FPDFPage_CountObjects, raw.FPDFPage_GetObject)
            invisible = screen.invisible if not visible._scanned(raw, page.raw, page.get_bbox()) else set()
            exact = visible._filtered(raw, textpage.raw, page.get_bbox(), invisible)
            if exact.dropped:
                flagged += 1
                assert (seen.text, seen.aligned, seen.dropped) == (exact.text, exact.aligned, exact.dropped)
            else:
                assert (seen.text, seen.aligned, seen.dropped) == (text, text, 0), (path.name, page)
    assert flagged, "the fixtures hold pages with text a reader does not see"


def test_the_screen_lists_the_pages_paths(papers: list[Path]) -> None:
    for path in papers:
        for page, textpage in _pages(path):
            seen = visible.visible_text(raw, page, textpage.raw, textpage.get_text_range())
            objects = [
                raw.FPDFPage_GetObject(page.raw, n) for n in range(raw.FPDFPage_CountObjects(page.raw))
            ]
            paths = [o for o in objects if raw.FPDFPageObj_GetType(o) == raw.FPDF_PAGEOBJ_PATH]
            assert [visible._address(o) for o in seen.paths] == [visible._address(o) for o in paths]


def test_a_grid_read_around_a_line_is_the_grid_read_from_every_edge(papers: list[Path]) -> None:
    inside = 0
    for path in papers:
        for page, textpage in _pages(path):
            every = sorted(headings.vertical_rules(raw, page.raw))
            rules = headings._Rules(raw, page.raw)
            reader = headings._Reader(raw, textpage.raw, {})
            text = textpage.get_text_range()
            start = 0
            for line in text.split("\r\n"):
                stripped = line.strip()
                if stripped:
                    box = reader.line_box(start + len(line) - len(line.lstrip()), stripped)
                    near = rules.crossing(box[2] + headings.RULE_TOLERANCE, box[3] - headings.RULE_TOLERANCE)
                    assert headings.in_grid(near, box) == (bool(every) and headings.in_grid(every, box))
                    inside += headings.in_grid(near, box)
                start += len(line) + 2
    assert inside, "the fixtures hold lines inside drawn grids"
