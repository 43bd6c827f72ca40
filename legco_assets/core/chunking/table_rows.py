"""Markdown tables inside a text being cut into windows: where a cut may fall, and the
header a window that continues a table repeats.

Why: a window cut at the best boundary before its token limit (a clause's comma in
``59,676``, a space between two cells) could end inside a table row, and the next window
then began with the row's last cells and no header: the row's first cells were in another
chunk, and nothing said what the columns were. As docling's HybridChunker does, a cut inside
a table now falls between two rows, and a window that starts inside a table's body starts
with the table's header row and separator again (its token budget pays for them). A row
longer than a whole window is the one exception: it is cut between two cells (before a
``|``), and each piece still gets the header.

A table is a run of lines that start with ``|`` whose second line is a separator
(``|---|---|``), as :func:`markdown_tables.to_markdown` writes them. A text without ``|``
costs one ``in`` test.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")


@dataclass(frozen=True)
class MarkdownTable:
    """One Markdown table's place in a text."""

    start: int  # first character of the header row
    body: int  # first character of the first data row (``end`` + 1 when there is none)
    end: int  # just after the last row's last character (its newline excluded)
    header: str  # the header row and the separator, as printed


def find_tables(text: str) -> list[MarkdownTable]:
    """The Markdown tables of ``text`` in order."""
    if "|" not in text:
        return []
    tables: list[MarkdownTable] = []
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    k = 0
    while k < len(lines):
        if not lines[k].lstrip().startswith("|"):
            k += 1
            continue
        end = k
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        if end - k >= 2 and _SEPARATOR.match(lines[k + 1].strip()):
            header = lines[k].strip() + "\n" + lines[k + 1].strip()
            tables.append(MarkdownTable(starts[k], starts[k + 2], starts[end] - 1, header))
        k = end
    return tables


class TableCuts:
    """Row-boundary cuts and repeated headers for the windows of one text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tables = find_tables(text)
        self._starts = [t.start for t in self.tables]

    def _inside(self, pos: int) -> MarkdownTable | None:
        """The table ``pos`` falls strictly inside (a cut there would split it)."""
        if not self.tables:
            return None
        k = bisect.bisect_right(self._starts, pos) - 1
        if k >= 0 and self.tables[k].start < pos < self.tables[k].end:
            return self.tables[k]
        return None

    def header_at(self, start: int) -> str:
        """The header a window starting at ``start`` repeats: the table's, when ``start`` is
        in its body (a later row, or the rest of a row cut between cells); else empty."""
        if not self.tables:
            return ""
        k = bisect.bisect_right(self._starts, start) - 1
        if k >= 0 and self.tables[k].body <= start < self.tables[k].end:
            return self.tables[k].header
        return ""

    def cut(self, start: int, end: int) -> int:
        """``end`` moved back to a row boundary when it falls inside a table: before the row
        it would split, or before the whole table when it would split the header; between
        two cells when the row began at ``start`` (a row longer than the window)."""
        table = self._inside(end)
        if table is None:
            return end
        if end >= table.body:
            row = self.text.rfind("\n", 0, end) + 1  # where the row holding ``end`` starts
            if row > table.body and row > start:
                return row
        if table.start > start:
            return table.start
        return self._between_cells(start, end)

    def _between_cells(self, start: int, end: int) -> int:
        """The last cell boundary (an unescaped ``|``) after ``start`` and before ``end``."""
        k = end
        while True:
            k = self.text.rfind("|", start + 1, k)
            if k <= start:
                return end
            if self.text[k - 1] != "\\":
                return k

    def snap(self, pos: int, start: int, end: int) -> int:
        """A next window's start moved to a row's start when it falls inside a table: the
        row it is in, else the next one, inside ``(start, end)``; ``end`` (no overlap) when
        neither is."""
        table = self._inside(pos)
        if table is None or self.text[pos - 1] == "\n" and pos >= table.body:
            return pos
        if pos < table.body:
            return table.start if start < table.start < end else end
        row = self.text.rfind("\n", 0, pos) + 1
        if start < row < end:
            return row
        after = self.text.find("\n", pos) + 1
        return after if start < after < end else end
