"""Cheap rules-only tests for a table in extracted text: a block of text that reads as a
table flattened into lines (rows of figures, or one short cell per line).

Why a module of its own: the rules type a narrative block as a table, every section and
answer carries ``has_table``, and chunking keeps a table whole; all of them ask the same
question of plain text, before (or without) any table extractor.
"""

from __future__ import annotations

import re

from .. import markers
from .text import display_width, wider_than

TABLE_RUN = 6  # consecutive short cell lines that make a cell-per-line table
# exactly what str.isdigit() accepts (decimal digits and the superscript, subscript and
# circled digits), as one regex: a field is tested without a per-character Python loop
_DIGIT = re.compile(
    "[\\d\u00b2\u00b3\u00b9\u1369-\u1371\u19da\u2070\u2074-\u2079\u2080-\u2089\u2460-\u2468\u2474-\u247c"
    "\u2488-\u2490\u24ea\u24f5-\u24fd\u24ff\u2776-\u277e\u2780-\u2788\u278a-\u2792"
    "\U00010a40-\U00010a43\U00010e60-\U00010e68\U00011052-\U0001105a\U0001f100-\U0001f10a]"
)


def table_row_figures(line: str) -> int:
    """How many figures a line has if it reads as a table row flattened onto one line (3-10
    fields, no clause punctuation: prose has it, cells rarely do); 0 if it does not."""
    fields = line.split()
    if (
        not 3 <= len(fields) <= 10
        or markers.CJK_CLAUSE_PUNCT.search(line)
        or markers.SENTENCE_END.search(line)
    ):
        return 0
    return sum(1 for f in fields if _DIGIT.search(f)) if _DIGIT.search(line) else 0


def _cell_like(line: str) -> bool:
    """One short cell on its own line."""
    return (
        len(line) <= 30
        and display_width(line) <= 30
        and not markers.SENTENCE_END.search(line)
        and not markers.BULLET.match(line)
    )


def looks_tabular(text: str) -> bool:
    """Cheap rules-only test for a table in extracted text.

    True for a Markdown table; for lines in a row shaped like cells or rows with two rows
    among three lines (``荔枝角雨水排放隧道 3.7 135 2012 1 765``) or two rows of two figures
    each (``Single elder $403,000 $10,770``); or for six or more short cell lines in a row,
    two of them with figures (a cell-per-line table).
    """
    if markers.MARKDOWN_TABLE_RULE.search(text):
        return True
    run = rows = rich_rows = figures = 0
    for line in text.split("\n"):
        s = line.strip()
        row_figures = table_row_figures(s) if s else 0
        if not (row_figures or s and _cell_like(s)):
            run = rows = rich_rows = figures = 0
            continue
        run, rows, rich_rows = run + 1, rows + bool(row_figures), rich_rows + (row_figures >= 2)
        figures += bool(_DIGIT.search(s))
        if (run >= 3 and rows >= 2) or rich_rows >= 2 or (run >= TABLE_RUN and figures >= 2):
            return True
    return False


def mostly_cells(text: str) -> bool:
    """A narrative block that is mostly short cell lines with figures is a table."""
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if len(lines) < 8:
        return False
    cells = [ln for ln in lines if not wider_than(ln, 30) and not markers.SENTENCE_END.search(ln)]
    figures = sum(1 for ln in cells if _DIGIT.search(ln))
    return len(cells) >= 0.7 * len(lines) and figures >= 0.3 * len(cells)
