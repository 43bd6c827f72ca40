"""A plain-text record's printed pages, from the page tops it carries inline.

Why: a Council record saved as text (the Official Record's ``.txt``) keeps its pages' tops in
the running text: the running header (``立法會 ─ 2013年6月5日`` / ``LEGISLATIVE COUNCIL ─ 5 June
2013``), then the printed page number, about every forty lines. Read as one page, those lines
sit inside answers (a reply after a page top was not seen as one), its chunks all say page 1,
and every chunk crossing a page carries the header. Cut at the page tops, the text is pages
like a PDF's, and the cleaner drops the header and the number as it does a PDF's furniture.

A page top is a short line the record repeats, followed (blank lines aside) by a bare number;
the numbers rise page by page (an appendix's ``A1``, ``A2`` count on by themselves). Fewer
than :data:`MIN_PAGE_TOPS` such tops, or numbers out of step: the text stays one page.
"""

from __future__ import annotations

import re
from collections import defaultdict

from .preprocess import MAX_HEADER_CHARS

MIN_PAGE_TOPS = 3  # a header seen on fewer pages is not a page layout
NUMBER_WITHIN = 3  # lines from the header to the page number (a blank line between them)
MAX_STEP = 2  # printed numbers rise by one a page (two where a blank page was left out)
_PAGE_NUMBER = re.compile(r"(?P<series>[A-Z]{0,2})(?P<number>\d{1,5})")  # an appendix's ``A1``


def printed_pages(text: str) -> list[str] | None:
    """The pages of ``text`` cut before each page top (the header line), each keeping its
    header and number for the cleaner; None when the text carries no page tops."""
    lines = text.split("\n")
    tops = _page_tops(lines)
    if len(tops) < MIN_PAGE_TOPS:
        return None
    # text before the first top (a cover printed without the header) is a page of its own;
    # blank lines before it go with the first page
    cuts = ([0] if any(ln.strip() for ln in lines[: tops[0]]) else []) + tops
    cuts[0] = 0
    return ["\n".join(lines[a:b]) for a, b in zip(cuts, [*cuts[1:], len(lines)])]


def _page_tops(lines: list[str]) -> list[int]:
    """Line indexes of the page tops of the header that marks the most pages: one pass over
    the lines (a short line with a page number right below), then the numbers checked."""
    numbered: dict[str, list[tuple[int, str, int]]] = defaultdict(list)
    for i, line in enumerate(lines):
        header = line.strip()
        if not 0 < len(header) <= MAX_HEADER_CHARS:
            continue
        below = next((t for t in (ln.strip() for ln in lines[i + 1 : i + 1 + NUMBER_WITHIN]) if t), "")
        m = _PAGE_NUMBER.fullmatch(below)
        if m:
            numbered[header].append((i, m["series"], int(m["number"])))
    best: list[int] = []
    for found in numbered.values():
        if len(found) >= MIN_PAGE_TOPS and len(found) > len(best) and _in_step(found):
            best = [i for i, _, _ in found]
    return best


def _in_step(found: list[tuple[int, str, int]]) -> bool:
    """The numbers under one header rise page by page in each series (else a repeated line
    beside figures, not a page top)."""
    return all(
        series != next_series or 0 < next_number - number <= MAX_STEP
        for (_, series, number), (_, next_series, next_number) in zip(found, found[1:])
    )
