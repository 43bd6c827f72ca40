"""A document's tables from its page geometry: the ``page_tables`` stage's tables without an
LLM, and its fallback for every page (:mod:`.stage`).

Without an LLM (the default) tables come from page geometry, read straight from PDFium
(:mod:`.page_reader`), made into grids and cells (:mod:`.grid`):

* **Gate.** Every page's path objects are read (bounds only, a few microseconds each); only a
  page whose ruling lines and rectangles could form a grid (at least 3 horizontal and 3
  vertical edges) gets any further work. Most pages stop here, which keeps the stage at
  hundreds of pages per second.
* **Grid.** Thin rectangles and axis-aligned line segments become horizontal and vertical
  edges; edges are snapped, joined, and grouped into connected components (a component is a
  table). Its distinct x and y positions make a grid; a missing ruling line between two grid
  cells merges them (a spanned cell). Tables drawn without outer side borders still work:
  the ends of the ruling lines close the grid.
* **Cells.** Each character near a grid (PDFium text page, tight boxes; text lines far
  from every grid are skipped whole) goes to the cell holding its centre; a cell's text is
  its lines top to bottom, characters left to right, with a space only where the PDF has one
  between non-CJK characters (so ``11 991`` stays one cell and justified Chinese is not
  letter-spaced).
* **Header.** The first row, plus the rows its cells span down into (multi-row headers are
  merged per column: ``2020-21 Estimate``).
* **Cores.** A long document's pages are read in worker processes too (:mod:`.workers`).

pdfplumber gives the same grids but is 10-30x slower per table page (see
``scripts/bench_tables.py``), so it is not used here.

Tables without any ruling lines are not reconstructed from text alone: aligned-column
guessing on LegCo papers (justified Chinese, two-up spreads, bullet lists of amounts) is not
reliable enough to rewrite an answer's text without an LLM. With a vision LLM configured
(:mod:`.vision`), pages with a detected table are read from their image instead.

A table that goes on over a page break is linked to its first part in :mod:`.continued`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..records import Table
from .grid import build_grid, edge_components, merge_edges, table_from_grid
from .page_reader import SNAP, PageReader


# -- a page's tables --------------------------------------------------------------------------------
def page_tables_of(raw: Any, pdf: Any, page_number: int) -> list[Table]:
    page = raw.FPDF_LoadPage(pdf, page_number - 1)
    if not page:
        return []
    try:
        height = raw.FPDF_GetPageHeightF(page)
        reader = PageReader(raw, page, height)
        h, v = reader.edges()
        if len(h) < 2 or not v:  # no grid possible: most pages stop here
            return []
        h, v = merge_edges(h), merge_edges(v)
        if len(h) * len(v) > 250_000:  # a chart or map, not a table: skip its O(h*v) grouping
            return []
        groups = [g for g in edge_components(h, v) if len(g[0]) >= 2 and len(g[1]) >= 1]
        grids = [g for g in (build_grid(gh, gv) for gh, gv in groups) if g is not None]
        if not grids:
            return []
        textpage = raw.FPDFText_LoadPage(page)
        try:
            chars = reader.chars(textpage, [g.bbox for g in grids])
        finally:
            raw.FPDFText_ClosePage(textpage)
        tables = [t for t in (table_from_grid(page_number, g, chars) for g in grids) if t is not None]
        # nested grids (a boxed page frame around a real table): keep the innermost tables
        return _drop_containers(sorted(tables, key=lambda t: (t.bbox or [0, 0])[1]))
    finally:
        raw.FPDF_ClosePage(page)


def _drop_containers(tables: list[Table]) -> list[Table]:
    def inside(a: list[float], b: list[float]) -> bool:
        return a[0] >= b[0] - SNAP and a[1] >= b[1] - SNAP and a[2] <= b[2] + SNAP and a[3] <= b[3] + SNAP

    out = []
    for t in tables:
        if any(
            o is not t and o.bbox and t.bbox and inside(o.bbox, t.bbox) and o.bbox != t.bbox for o in tables
        ):
            continue
        out.append(t)
    return out


def tables_of(pdf: Any, numbers: Iterable[int]) -> Iterator[tuple[int, list[Table]]]:
    """``(page number, tables)`` for each of ``numbers`` with a table, on an open document."""
    import pypdfium2.raw as raw

    count = len(pdf)
    for number in numbers:
        if 1 <= number <= count:
            found = page_tables_of(raw, pdf.raw, number)
            if found:
                yield number, found


def iter_geometric_tables(
    pdf_bytes: bytes, page_numbers: Iterable[int] | None = None
) -> Iterator[tuple[int, list[Table]]]:
    """``(page number, tables)`` for each page with a table, page by page (PDFium)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        yield from tables_of(pdf, list(page_numbers) if page_numbers is not None else range(1, len(pdf) + 1))
    finally:
        pdf.close()


def geometric_tables(pdf_bytes: bytes, page_numbers: Iterable[int] | None = None) -> dict[int, list[Table]]:
    """Tables per 1-based page number, from ruling lines and character boxes (PDFium)."""
    return dict(iter_geometric_tables(pdf_bytes, page_numbers))
