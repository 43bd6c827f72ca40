"""Outline headings that are rows (or cells) of a table, per real paper.

A heading is counted when its words are cells of one row of a table the geometric reader
finds on the heading's page or the one before (whole cells side by side, or most of one
cell's text): a header row set in bold read as a title. A row whose only cell holds text
is not counted: it is a title spanning the table (a group's label, or a title in a drawn
box). The outline is the one the structure stage gives (``find_structure``), the tables the
ones the ``page_tables`` stage reads; no LLM.

    PYTHONPATH=$PWD .venv/bin/python scripts/table_row_headings.py [FILE ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from legco_assets.core.read import read_source, text_pages
from legco_assets.core.settings import Settings
from legco_assets.core.structure import find_structure, key
from legco_assets.core.tables import find_page_tables

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "corpus" / "real"


def row_headings(path: Path) -> list[tuple[int, str]]:
    """(page, heading) of each outline heading that is a table's row or cell."""
    source = read_source(path)
    _, pages = text_pages(source)
    settings = Settings()
    sections = find_structure(pages, settings).sections
    result = find_page_tables(source, pages, settings)
    tables = result.tables if result else []
    rows: dict[int, list[list[str]]] = {}
    for table in tables:
        for row in [table.header, *table.rows]:
            cells = [key(c) for c in row if c and key(c)]
            if len(cells) > 1:  # a row of one cell is a title across the table (or a boxed title)
                rows.setdefault(table.page, []).append(cells)
    found: dict[str, int] = {}
    for section in sections:
        for heading in section.path:
            page = section.start_page
            k = key(heading)
            if any(_row_text(k, row) for p in (page - 1, page) for row in rows.get(p, [])):
                found.setdefault(heading, page)
    return sorted((page, heading) for heading, page in found.items())


def _row_text(k: str, cells: list[str]) -> bool:
    """Whether the key ``k`` reads as this row: some of its cells side by side, whole (a
    header row on one line), or most of one cell (a cell's text wrapped, cut at the title's
    last line)."""
    for first in range(len(cells)):
        joined = ""
        for cell in cells[first:]:
            joined += cell
            if k == joined:
                return True
    return any(cell.startswith(k) and len(k) * 5 >= len(cell) * 3 for cell in cells)


def main() -> int:
    papers = [Path(a) for a in sys.argv[1:]] or sorted(p for p in REAL.rglob("*.pdf"))
    total = 0
    for path in papers:
        found = row_headings(path)
        total += len(found)
        print(f"{path.name}: {len(found)}" + "".join(f"\n    p.{page}: {heading}" for page, heading in found))
    print(f"all: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
