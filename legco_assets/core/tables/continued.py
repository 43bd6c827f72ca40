"""Tables that continue on the next page.

A table at the bottom of a page followed at the top of the next page by a table with the
same columns, with no text in between, is marked ``continues_from_previous``; when the later
part does not repeat the header, it gets the first part's header and all its rows as rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import replace

from ..markdown_tables import to_markdown
from ..records import Page, Table
from .weave import locate_table

# -- tables that continue on the next page ----------------------------------------------------------
_CONTINUED_MARK = re.compile(r"(續|continued|cont['’]d)", re.IGNORECASE)


def _squashed_cells(cells: list[str]) -> list[str]:
    return ["".join(c.split()) for c in cells]


def _page_text(page: Page | None) -> str:
    if page is None:
        return ""
    return page.cleaned if page.cleaned.strip() else page.raw


def _ends_page(table: Table, page: Page | None) -> bool:
    """Nothing but page furniture follows ``table`` on its page."""
    text = _page_text(page)
    span = locate_table(text, table) if text else None
    return span is not None and not text[span[1] :].strip()


def _starts_page(table: Table, page: Page | None) -> bool:
    """Nothing (or only a short "continued" line) precedes ``table`` on its page."""
    text = _page_text(page)
    if not text:
        return False
    candidate = replace(table, continues_from_previous=True)
    span = locate_table(text, candidate)
    if span is None:
        return False
    before = text[: span[0]].strip()
    return not before or (len(before) <= 40 and "\n" not in before and bool(_CONTINUED_MARK.search(before)))


def link_continuations(by_page: dict[int, list[Table]], pages: list[Page]) -> list[Table]:
    """All tables in page order, a table that goes on over a page break marked
    ``continues_from_previous`` on its later part (:func:`link_pages`, for tables at hand)."""
    return [t for _, tables in link_pages(sorted(by_page.items()), pages) for t in tables]


def link_pages(
    found: Iterable[tuple[int, list[Table]]], pages: list[Page]
) -> Iterator[tuple[int, list[Table]]]:
    """``found`` (tables per page, in page order) with continuations marked, each page
    given back as soon as it is read: a part is linked to the page before it only. The later
    part must have the same number of columns, be the first thing on its page, and the
    earlier part the last thing on its page. When the later page does not repeat the header,
    its first row is data: it moves into the rows and the part takes the first part's
    header."""
    page_of = {p.number: p for p in pages}
    previous_number, previous = 0, []
    for number, tables in found:
        if tables and previous and previous_number == number - 1:
            tables = _linked(list(tables), previous[-1], page_of.get(number - 1), page_of.get(number))
        yield number, tables
        previous_number, previous = number, tables


def _linked(tables: list[Table], last: Table, last_page: Page | None, page: Page | None) -> list[Table]:
    """``tables`` of a page, its first marked as going on from ``last`` where it does."""
    first = tables[0]
    if first.width != last.width or not _ends_page(last, last_page):
        return tables
    same_header = _squashed_cells(first.header) == _squashed_cells(last.header)
    if same_header and _starts_page(first, page):
        tables[0] = replace(first, continues_from_previous=True)
    elif not same_header:
        rows = [list(first.header)] + [list(r) for r in first.rows]
        moved = replace(
            first,
            header=list(last.header),
            header_levels=last.header_levels,
            rows=rows,
            continues_from_previous=True,
        )
        if _starts_page(moved, page):
            tables[0] = replace(moved, markdown=to_markdown(moved.header, rows))
    return tables
