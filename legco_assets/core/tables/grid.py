"""Edges to grids, and a grid with its characters to a :class:`~legco_assets.core.records.Table`.

Why apart from the page reading: this part is plain geometry on points (no PDFium), the
rules that decide what a table is: which edges make one grid, which cells a missing ruling
line merges, how a cell's characters become its text, which rows are the header.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from ..markdown_tables import to_markdown
from ..records import Table
from .page_reader import SNAP, Edge, PageChar


def is_cjk(ch: str) -> bool:
    """CJK radicals to ideographs, compatibility ideographs, full-width forms, and the
    supplementary ideographs (asked of every character of a table's cells: comparisons, no
    loop)."""
    code = ord(ch)
    if code < 0x2E80:  # Latin, digits, punctuation: most characters of a table
        return False
    return (
        code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0xFF00 <= code <= 0xFFEF or 0x20000 <= code <= 0x2FFFF
    )


# -- edges to grids -------------------------------------------------------------------------------
def merge_edges(edges: list[Edge]) -> list[Edge]:
    """Snap edges at (nearly) the same position and join those that overlap or touch."""
    if not edges:
        return []
    edges = sorted(edges, key=lambda e: e.pos)
    groups: list[list[Edge]] = [[edges[0]]]
    for edge in edges[1:]:
        if edge.pos - groups[-1][-1].pos <= SNAP:
            groups[-1].append(edge)
        else:
            groups.append([edge])
    merged: list[Edge] = []
    for group in groups:
        pos = sum(e.pos for e in group) / len(group)
        for edge in sorted(group, key=lambda e: e.lo):
            if merged and merged[-1].pos == pos and edge.lo <= merged[-1].hi + SNAP:
                merged[-1].hi = max(merged[-1].hi, edge.hi)
            else:
                merged.append(Edge(pos, edge.lo, edge.hi))
    return merged


def _cluster(values: Iterable[float], tol: float = SNAP) -> list[float]:
    out: list[list[float]] = []
    for value in sorted(values):
        if out and value - out[-1][-1] <= tol:
            out[-1].append(value)
        else:
            out.append([value])
    return [sum(c) / len(c) for c in out]


def edge_components(h: list[Edge], v: list[Edge]) -> list[tuple[list[Edge], list[Edge]]]:
    """Groups of edges that touch each other (one group per table)."""
    parent = list(range(len(h) + len(v)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, he in enumerate(h):
        for j, ve in enumerate(v):
            if he.lo - SNAP <= ve.pos <= he.hi + SNAP and ve.lo - SNAP <= he.pos <= ve.hi + SNAP:
                a, b = find(i), find(len(h) + j)
                if a != b:
                    parent[a] = b
    groups: dict[int, tuple[list[Edge], list[Edge]]] = {}
    for i, he in enumerate(h):
        groups.setdefault(find(i), ([], []))[0].append(he)
    for j, ve in enumerate(v):
        groups.setdefault(find(len(h) + j), ([], []))[1].append(ve)
    return [g for g in groups.values() if g[0] and g[1]]


def _covered(edges: list[Edge], pos: float, lo: float, hi: float) -> bool:
    """Is the span ``lo..hi`` at ``pos`` (mostly) drawn by one of ``edges``?"""
    need = (hi - lo) * 0.6
    got = 0.0
    for edge in edges:
        if abs(edge.pos - pos) <= SNAP:
            got += max(0.0, min(edge.hi, hi) - max(edge.lo, lo))
    return got >= need


@dataclass
class _Grid:
    xs: list[float]
    ys: list[float]
    cells: list[tuple[int, int, int, int]]  # r0, c0, r1, c1 (inclusive) of each logical cell

    @property
    def bbox(self) -> list[float]:
        return [round(self.xs[0], 2), round(self.ys[0], 2), round(self.xs[-1], 2), round(self.ys[-1], 2)]


def build_grid(h: list[Edge], v: list[Edge]) -> _Grid | None:
    xs = _cluster(e.pos for e in v)
    ys = _cluster(e.pos for e in h)
    # open sides: the ends of the ruling lines close the grid
    left, right = min(e.lo for e in h), max(e.hi for e in h)
    top, bottom = min(e.lo for e in v), max(e.hi for e in v)
    virtual_x = set()
    virtual_y = set()
    if left < xs[0] - SNAP:
        xs.insert(0, left)
        virtual_x.add(0)
    if right > xs[-1] + SNAP:
        xs.append(right)
        virtual_x.add(len(xs) - 1)
    if top < ys[0] - SNAP:
        ys.insert(0, top)
        virtual_y.add(0)
    if bottom > ys[-1] + SNAP:
        ys.append(bottom)
        virtual_y.add(len(ys) - 1)
    rows, cols = len(ys) - 1, len(xs) - 1
    if rows < 2 or cols < 2:
        return None
    parent = list(range(rows * cols))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for r in range(rows):
        for c in range(cols - 1):
            if not _covered(v, xs[c + 1], ys[r], ys[r + 1]):
                union(r * cols + c, r * cols + c + 1)
    for r in range(rows - 1):
        for c in range(cols):
            if not _covered(h, ys[r + 1], xs[c], xs[c + 1]):
                union(r * cols + c, (r + 1) * cols + c)
    spans: dict[int, list[int]] = {}
    for i in range(rows * cols):
        root = find(i)
        r, c = divmod(i, cols)
        span = spans.setdefault(root, [r, c, r, c])
        span[0], span[1] = min(span[0], r), min(span[1], c)
        span[2], span[3] = max(span[2], r), max(span[3], c)
    cells = [tuple(s) for s in spans.values()]
    if len(cells) < 4:
        return None
    return _Grid(xs=xs, ys=ys, cells=sorted(cells))  # type: ignore[arg-type]


def _lines(chars: list[PageChar]) -> list[list[PageChar]]:
    """Group characters into visual lines: a character joins the line whose vertical extent
    holds its centre (so superscript footnote marks stay on their line)."""
    lines: list[tuple[list[float], list[PageChar]]] = []
    for ch in sorted(chars, key=lambda c: (c.top, c.x0)):
        top, bottom = ch.top, ch.bottom
        cy = (top + bottom) / 2
        for extent, members in reversed(lines[-3:]):
            if extent[0] - 0.5 <= cy <= extent[1] + 0.5 or top <= (extent[0] + extent[1]) / 2 <= bottom:
                members.append(ch)
                if top < extent[0]:
                    extent[0] = top
                if bottom > extent[1]:
                    extent[1] = bottom
                break
        else:
            lines.append(([ch.top, ch.bottom], [ch]))
    lines.sort(key=lambda item: item[0][0])
    return [sorted(members, key=lambda c: c.x0) for _, members in lines]


def _line_text(line: list[PageChar]) -> str:
    height = max(c.bottom - c.top for c in line)
    out = [line[0].ch]
    for prev, ch in zip(line, line[1:]):
        cjk = is_cjk(prev.ch[-1]) + is_cjk(ch.ch[0])
        if cjk == 0:
            spaced = ch.space_before or ch.x0 - prev.x1 > 0.45 * height
        else:  # CJK never gets an inferred space (justified and letter-spaced text)
            spaced = cjk == 1 and ch.printed_space
        if spaced:
            out.append(" ")
        out.append(ch.ch)
    return "".join(out)


def _join_lines(texts: list[str]) -> str:
    """Lines of one cell: a space where Latin text wraps, none where CJK text does."""
    if not texts:
        return ""
    joined = texts[0]
    for text in texts[1:]:
        if joined and text and (is_cjk(joined[-1]) or is_cjk(text[0])):
            joined += text
        else:
            joined += " " + text
    return " ".join(joined.split())


_NUMERIC = re.compile(r"^[(+\-−–$]*\d[\d,.\s]*[%)]*\S{0,2}$")


def _figure_shape(text: str) -> tuple[bool, bool, bool]:
    """How a figure is printed: a percentage, in brackets, with a currency sign."""
    return "%" in text, text[:1] in "(（", "$" in text


def _one_figure_per_line(lines: list[str]) -> bool:
    """Every line of a numeric cell prints the same kind of figure: each line is a row's
    value. A row that prints two lines of figures (a count, its share in brackets below)
    mixes kinds, and a label beside it may wrap."""
    return len({_figure_shape(t) for t in lines}) == 1


def _split_band(cells: list[tuple[int, list[list[PageChar]], float]]) -> list[dict[int, str]] | None:
    """Rows packed into one ruled band (no lines between them): each cell has the same
    number of text lines, level across the band, at least one column of numbers, and no
    text line that wraps (reaches the cell's right side), unless every column of numbers
    prints one kind of figure per line, so that no row holds two of its lines (a narrow
    label column is filled by a short label too). Else None: one row."""
    filled = [(col, lines, width) for col, lines, width in cells if lines]
    if len(filled) < 2:
        return None
    k = len(filled[0][1])
    if k < 2 or any(len(lines) != k for _, lines, _ in filled):
        return None
    for i in range(k):
        centres = [(lines[i][0].top + lines[i][0].bottom) / 2 for _, lines, _ in filled]
        height = max(c.bottom - c.top for _, lines, _ in filled for c in lines[i])
        if max(centres) - min(centres) > 0.6 * height:
            return None
    texts = {col: [_line_text(line) for line in lines] for col, lines, _ in filled}
    numeric = [col for col, lines in texts.items() if all(_NUMERIC.match(t) for t in lines)]
    if not numeric:
        return None
    if all(_one_figure_per_line(texts[col]) for col in numeric):
        return [{col: texts[col][i] for col in texts} for i in range(k)]
    for col, lines, width in filled:
        if col in numeric:
            continue
        for line in lines[:-1]:
            if line[-1].x1 - line[0].x0 > 0.75 * width:
                return None
    return [{col: texts[col][i] for col in texts} for i in range(k)]


def table_from_grid(page_number: int, grid: _Grid, chars: list[PageChar]) -> Table | None:
    xs, ys = grid.xs, grid.ys
    rows, cols = len(ys) - 1, len(xs) - 1
    owner: dict[tuple[int, int], int] = {}
    for index, (r0, c0, r1, c1) in enumerate(grid.cells):
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                owner[(r, c)] = index
    buckets: list[list[PageChar]] = [[] for _ in grid.cells]
    left, right, top, bottom = xs[0], xs[-1], ys[0], ys[-1]
    for ch in chars:
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.top + ch.bottom) / 2
        if not (left <= cx <= right and top <= cy <= bottom):
            continue
        # inside the grid: the cell whose left and top edges are the last at or before the
        # centre (one on the right or bottom edge goes to the last cell)
        c = bisect_right(xs, cx) - 1
        r = bisect_right(ys, cy) - 1
        buckets[owner[(r if r < rows else rows - 1, c if c < cols else cols - 1)]].append(ch)
    lines = [_lines(b) for b in buckets]
    texts = [_join_lines([_line_text(line) for line in cell]) for cell in lines]
    if sum(1 for t in texts if t) < 3:
        return None
    header_rows = 1
    for r0, _c0, r1, _c1 in grid.cells:
        if r0 == 0:
            header_rows = max(header_rows, r1 + 1)
    header_rows = min(header_rows, rows - 1)
    # matrix: a cell's text at its top-left; a header cell spanning columns repeats across
    # them (so merged header rows read "2020-21 Estimate"), a body cell does not
    matrix = [["" for _ in range(cols)] for _ in range(rows)]
    for index, (r0, c0, _r1, c1) in enumerate(grid.cells):
        if r0 < header_rows:
            for c in range(c0, c1 + 1):
                matrix[r0][c] = texts[index]
        else:
            matrix[r0][c0] = texts[index]
    # body bands holding several unruled rows become several rows
    expanded: list[list[str]] = matrix[:header_rows]
    bands: list[list[int]] = [[] for _ in range(rows)]
    for index, (r0, _, r1, _) in enumerate(grid.cells):
        for r in range(r0, r1 + 1):
            bands[r].append(index)
    for r in range(header_rows, rows):
        band = bands[r]
        split = None
        if all(grid.cells[i][0] == grid.cells[i][2] == r for i in band):
            split = _split_band(
                [(grid.cells[i][1], lines[i], xs[grid.cells[i][3] + 1] - xs[grid.cells[i][1]]) for i in band]
            )
        if split:
            for sub in split:
                expanded.append([sub.get(c, "") for c in range(cols)])
        else:
            expanded.append(matrix[r])
    matrix = expanded
    # drop columns and rows with no text at all (slivers between double rules)
    keep_cols = [c for c in range(cols) if any(row[c] for row in matrix)]
    matrix = [[row[c] for c in keep_cols] for row in matrix]
    head_part = matrix[:header_rows]
    body = [row for row in matrix[header_rows:] if any(row)]
    if len(keep_cols) < 2 or not body:
        return None
    # boxes stacked on each other (notes, call-outs) are not a table: a table has at least
    # two rows, header included, with two or more different texts side by side
    if sum(1 for row in matrix if len({t for t in row if t}) >= 2) < 2:
        return None
    header = []
    for c in range(len(keep_cols)):
        parts: list[str] = []
        for row in head_part:
            if row[c] and row[c] not in parts:
                parts.append(row[c])
        header.append(" ".join(parts))
    return Table(
        page=page_number,
        header=header,
        rows=body,
        markdown=to_markdown(header, body),
        method="geometric",
        bbox=grid.bbox,
        header_levels=[list(row) for row in head_part] if len(head_part) > 1 else None,
    )
