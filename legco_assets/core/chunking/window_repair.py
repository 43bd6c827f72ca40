"""Token windows repaired only where they touch a Markdown table or a contents list.

Why: twice (issues 51 and 52, 2026-11-29), windows recomputed over the whole paper so as to
respect tables and contents lists cost held-out retrieval. Once one window moved at the
paper's first table, every later window moved with it, and over sets of ~40 questions that
reshuffle alone drops some sets by two. Here the windows are the plain grid's
(:func:`.token_chunking.token_windows` with ``tables=False``), and only a window that touches
a table or a contents list changes; every other window keeps its span and text byte for byte.

- A window that starts inside a table row starts at that row's start instead (it only gains
  overlap); one that ends inside a row ends at the previous row boundary (the next window,
  whose start also goes back to a row's start, covers the row).
- A window that starts in a table's body leads with the header row and separator again
  (:class:`.TableCuts`); when header and window exceed the size, whole rows leave its end,
  and the next window starts no later than where this one now ends, so nothing is lost.
- A row longer than a window is the one exception: it is cut between two cells.
- A window loses the lines of a contents list; one left with nothing else is dropped.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..tokens import count_tokens
from .boundaries import best_cut
from .table_rows import MarkdownTable, TableCuts


@dataclass(frozen=True)
class Window:
    """One repaired window: ``text`` is what the chunk holds (a repeated header, then the
    characters of ``[start, end)`` outside any contents list); ``start``/``end`` index the
    whole text."""

    start: int
    end: int
    text: str


def repair_windows(
    text: str, grid: list[tuple[int, int]], size: int, skip: list[tuple[int, int]] | None = None
) -> list[Window]:
    """The ``grid``'s windows of ``text`` with those that touch a table or a ``skip`` span
    (a contents list's lines, in order) repaired; the others unchanged."""
    cuts = TableCuts(text)
    spans: list[tuple[int, int, str]] = []
    grid_end = 0  # where the grid's window before ended
    for start, end in grid:
        _bridge(cuts, spans, _start_at_row(cuts, start, spans[-1][0] if spans else -1), grid_end, size)
        spans.append(_repaired(cuts, spans, start, end, size))
        grid_end = end
    _bridge(cuts, spans, len(text), len(text), size)  # the last window lost rows: to the end
    windows = [_without_contents(text, start, end, header, skip or []) for start, end, header in spans]
    return [w for w in windows if w is not None]


def _bridge(cuts: TableCuts, spans: list[tuple[int, int, str]], start: int, upto: int, size: int) -> None:
    """Windows from where the last one ends up to ``upto`` (the grid's last end), added while
    a next window starting at ``start`` would leave a gap: a repaired window that lost rows
    from its end is followed by one more window, so that the grid's next window, and every
    one after it, stays where it was."""
    while spans and start > spans[-1][1]:
        bridge = _repaired(cuts, spans, spans[-1][1], max(upto, spans[-1][1] + 1), size)
        if bridge[1] <= spans[-1][1]:
            return  # no progress: the next window starts earlier instead (``_repaired``)
        spans.append(bridge)


def _repaired(
    cuts: TableCuts, before: list[tuple[int, int, str]], start: int, end: int, size: int
) -> tuple[int, int, str]:
    """One grid window with its table repairs; ``before``: the windows already repaired."""
    if not cuts.tables:
        return start, end, ""
    previous_start = before[-1][0] if before else -1
    if before and start > before[-1][1]:
        start = before[-1][1]  # the window before lost rows from its end: cover them
    start = _start_at_row(cuts, start, previous_start)
    end = max(_end_at_row(cuts, start, end), start + 1)
    header = cuts.header_at(start)
    if header and count_tokens(header) >= size // 2:  # a header this long would starve the rows
        header = ""
    return start, _fit(cuts, start, end, header, size), header


def _table_holding(cuts: TableCuts, pos: int) -> MarkdownTable | None:
    """The table with ``start < pos <= end`` (a window ending at ``pos`` ends in it)."""
    k = bisect.bisect_left([t.start for t in cuts.tables], pos) - 1
    if k >= 0 and cuts.tables[k].start < pos <= cuts.tables[k].end:
        return cuts.tables[k]
    return None


def _at_row_boundary(text: str, pos: int) -> bool:
    return pos <= 0 or pos >= len(text) or text[pos - 1] == "\n" or text[pos] == "\n"


def _start_at_row(cuts: TableCuts, start: int, previous_start: int) -> int:
    """``start`` moved back to the start of the row it falls in (of the table, in its header
    or separator); a piece of a row longer than a window starts where the grid's does."""
    table = _table_holding(cuts, start)
    if table is None or start == table.end:
        return start
    if start < table.body:
        return table.start if table.start > previous_start else start
    if _at_row_boundary(cuts.text, start):
        return start
    row = cuts.text.rfind("\n", 0, start) + 1
    return row if row > previous_start else start  # else a piece of a row longer than a window


def _end_at_row(cuts: TableCuts, start: int, end: int) -> int:
    """``end`` moved back to the row boundary before it (before the table when it falls in
    the header, or when no data row would be left); between two cells when one row is longer
    than the window."""
    table = _table_holding(cuts, end)
    if table is None or end == table.end:
        return end
    if end <= table.body:
        return table.start if table.start > start else end
    if _at_row_boundary(cuts.text, end):
        return end
    row = cuts.text.rfind("\n", 0, end) + 1
    if row > table.body and row > start:
        return row
    if table.start > start:
        return table.start
    return _between_cells(cuts.text, start, end)


def _between_cells(text: str, start: int, end: int) -> int:
    """The last cell boundary (an unescaped ``|``) in the second half of ``(start, end)``,
    where a row longer than a window is cut; ``end`` (the grid's cut, inside a cell longer
    than half a window) if none."""
    k = end
    while True:
        k = text.rfind("|", start + (end - start) // 2, k)
        if k <= start + (end - start) // 2:
            return end
        if text[k - 1] != "\\":
            return k


def _fit(cuts: TableCuts, start: int, end: int, header: str, size: int) -> int:
    """``end`` moved back until the header and ``[start, end)`` fit in ``size`` tokens:
    whole rows leave a table's end, prose is cut at its best boundary."""
    text, lead = cuts.text, header + "\n" if header else ""
    while end - start > 1 and count_tokens(lead + text[start:end]) > size:
        table = _table_holding(cuts, end)
        if table is not None and table.body < end:
            last_row = text.rfind("\n", start, end - 1) + 1
            if last_row > max(start, table.body):
                end = last_row  # drop the last row
                continue
            if table.start > start:
                end = table.start  # no row left: the table goes to the next window
                continue
            cell = _between_cells(text, start, end - 1)
            if cell < end - 1:
                end = cell  # one row longer than the window: its last cells go
                continue
        limit = start + max(1, int((end - start) * 0.95))
        cut = best_cut(text, start, limit, start + (limit - start) // 2)
        end = max(_end_at_row(cuts, start, cut), start + 1)
    return end


def _without_contents(
    text: str, start: int, end: int, header: str, skip: list[tuple[int, int]]
) -> Window | None:
    """The window without the contents lines it holds (and the blank lines after each);
    ``None`` when nothing else is left. Its span runs from its first kept character to its
    last."""
    parts: list[tuple[int, int]] = []
    pos = start
    for low, high in skip:
        if high <= pos or low >= end:
            continue
        if low > pos:
            parts.append((pos, low))
        rest = text[high:end]
        pos = max(pos, high + len(rest) - len(rest.lstrip()))
    if pos < end:
        parts.append((pos, end))
    body = "".join(text[a:b] for a, b in parts)
    if not body.strip():
        return None
    first, last = parts[0][0], parts[-1][1]
    return Window(first, last, f"{header}\n{body}" if header else body)
