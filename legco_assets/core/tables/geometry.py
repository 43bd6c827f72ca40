"""Find the tables on a document's pages: the pure function behind the ``page_tables`` asset.

Without an LLM (the default) tables come from page geometry, read straight from PDFium:

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
  its lines top to bottom, characters left to right, with a space only where the PDF has one between non-CJK characters (so ``11 991`` stays one cell and
  justified Chinese is not letter-spaced).
* **Header.** The first row, plus the rows its cells span down into (multi-row headers are
  merged per column: ``2020-21 Estimate``).
* **Cores.** Geometry needs only the bytes: for a long document (``PARALLEL_MIN_PAGES``)
  :class:`GeometricTables` reads pages in worker processes too, while the caller reads
  the text layer, and hands them over in page order (:func:`iter_page_tables`) so that
  the first sections can be chunked before the last page is read; the result is the same
  as on one core.

pdfplumber gives the same grids but is 10-30x slower per table page (see
``scripts/bench_tables.py``), so it is not used here.

Tables without any ruling lines are not reconstructed from text alone: aligned-column
guessing on LegCo papers (justified Chinese, two-up spreads, bullet lists of amounts) is not
reliable enough to rewrite an answer's text without an LLM. With a vision LLM configured
(:mod:`vision_tables`), pages with a detected table are read from their image instead.

A table at the bottom of a page followed at the top of the next page by a table with the
same columns, with no text in between, is marked ``continues_from_previous``; when the later
part does not repeat the header, it gets the first part's header and all its rows as rows.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import re
import signal
import subprocess
import sys
import threading
import time
from bisect import bisect_right
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Iterator

from ..markdown_tables import to_markdown
from ..read import normalise_chars_aligned, pdf_page_count, pdfium_page_chars
from ..records import Page, Table
from ..settings import Settings

if TYPE_CHECKING:
    from ..llm import LLMClient

SNAP = 3.0  # points: edges closer than this are one line
THIN = 3.0  # points: a filled rectangle thinner than this is a ruling line
MIN_EDGE = 4.0  # points: shorter edges (dots, corners) are ignored
_CJK_RANGES = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x2FFFF))


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    if code < 0x2E80:  # Latin, digits, punctuation: most characters of a table
        return False
    return any(lo <= code <= hi for lo, hi in _CJK_RANGES)


@dataclass
class TablesResult:
    """What ``page_tables`` stores: the tables and what it took to find them."""

    tables: list[Table]
    pages_with_tables: list[int]
    vision_pages: int = 0
    warnings: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TablesResult":
        return cls(
            tables=[Table.from_dict(t) for t in data.get("tables", [])],
            pages_with_tables=list(data.get("pages_with_tables", [])),
            vision_pages=int(data.get("vision_pages", 0)),
            warnings=list(data.get("warnings", [])),
            stats=dict(data.get("stats", {})),
        )


# -- page geometry --------------------------------------------------------------------------------
@dataclass
class _Edge:
    pos: float  # y (top-based) of a horizontal edge, x of a vertical one
    lo: float  # x0 / top
    hi: float  # x1 / bottom


@dataclass(slots=True)
class _Char:
    ch: str
    x0: float
    top: float
    x1: float
    bottom: float
    space_before: bool  # PDFium put a space (printed or inferred from a gap) before it
    printed_space: bool = False  # the PDF itself has a space character there

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.top + self.bottom) / 2


Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _mul(m: Matrix, n: Matrix) -> Matrix:
    """``m`` then ``n`` (PDF row-vector convention)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


class _PageReader:
    """Reads edges and characters of one PDFium page through the raw API (fast)."""

    def __init__(self, raw: Any, page: Any, height: float) -> None:
        self.raw = raw
        self.page = page
        self.height = height
        self._f = [ctypes.c_float() for _ in range(4)]
        self._u = [ctypes.c_uint() for _ in range(4)]
        self._modes = (ctypes.c_int(), ctypes.c_int())  # fill mode, stroke (reused: per path)
        self._point = (ctypes.c_float(), ctypes.c_float())
        self.fills: list[tuple[float, float, float, float, tuple[int, int, int]]] = []

    def _paint(self, obj: Any) -> tuple[bool, tuple[int, int, int] | None]:
        """(stroked, fill colour) of a path; white or transparent paint counts as none."""
        raw = self.raw
        fill_mode, stroke = self._modes
        if not raw.FPDFPath_GetDrawMode(obj, fill_mode, stroke):
            return True, None
        r, g, b, a = self._u

        def painted(getter: Any) -> tuple[int, int, int] | None:
            if not getter(obj, r, g, b, a):
                return (0, 0, 0)
            if a.value == 0 or (r.value > 245 and g.value > 245 and b.value > 245):
                return None
            return (r.value, g.value, b.value)

        stroked = bool(stroke.value) and painted(raw.FPDFPageObj_GetStrokeColor) is not None
        fill = painted(raw.FPDFPageObj_GetFillColor) if fill_mode.value else None
        return stroked, fill

    def _box(self, x0: float, y0: float, x1: float, y1: float, h: list[_Edge], v: list[_Edge], fill_only: tuple[int, int, int] | None = None) -> None:
        """A rectangle (or a thin one: a ruling line) in PDF coordinates. A filled box with
        no outline is kept aside: its sides are lines only where its colour ends."""
        x0, x1 = min(x0, x1), max(x0, x1)
        top, bottom = self.height - max(y0, y1), self.height - min(y0, y1)
        width, tall = x1 - x0, bottom - top
        if width < MIN_EDGE and tall < MIN_EDGE:
            return
        if tall <= THIN:
            h.append(_Edge((top + bottom) / 2, x0, x1))
        elif width <= THIN:
            v.append(_Edge((x0 + x1) / 2, top, bottom))
        elif fill_only is not None:
            self.fills.append((x0, top, x1, bottom, fill_only))
        else:
            h.append(_Edge(top, x0, x1))
            h.append(_Edge(bottom, x0, x1))
            v.append(_Edge(x0, top, bottom))
            v.append(_Edge(x1, top, bottom))

    def _fill_edges(self, h: list[_Edge], v: list[_Edge]) -> None:
        """Sides of filled boxes, except where a box of the same colour continues across
        them (word processors shade a cell one text line at a time)."""
        fills = self.fills
        if len(fills) > 400:  # a drawing, not a table: treat every box as outlined
            for x0, top, x1, bottom, _ in fills:
                h += [_Edge(top, x0, x1), _Edge(bottom, x0, x1)]
                v += [_Edge(x0, top, bottom), _Edge(x1, top, bottom)]
            return

        def covered(lo: float, hi: float, spans: list[tuple[float, float]]) -> bool:
            got = sum(max(0.0, min(b, hi) - max(a, lo)) for a, b in spans)
            return got >= 0.8 * (hi - lo)

        probe = 0.6  # just across a side: same colour there means the side is not drawn
        for x0, top, x1, bottom, colour in fills:
            same = [f for f in fills if f[4] == colour]
            above = [(f[0], f[2]) for f in same if f[1] < top - probe < f[3]]
            below = [(f[0], f[2]) for f in same if f[1] < bottom + probe < f[3]]
            left = [(f[1], f[3]) for f in same if f[0] < x0 - probe < f[2]]
            right = [(f[1], f[3]) for f in same if f[0] < x1 + probe < f[2]]
            if not covered(x0, x1, above):
                h.append(_Edge(top, x0, x1))
            if not covered(x0, x1, below):
                h.append(_Edge(bottom, x0, x1))
            if not covered(top, bottom, left):
                v.append(_Edge(x0, top, bottom))
            if not covered(top, bottom, right):
                v.append(_Edge(x1, top, bottom))

    def _segment(self, p: tuple[float, float], q: tuple[float, float], h: list[_Edge], v: list[_Edge]) -> None:
        (x0, y0), (x1, y1) = p, q
        if abs(y0 - y1) <= 0.5 and abs(x1 - x0) >= MIN_EDGE:
            h.append(_Edge(self.height - (y0 + y1) / 2, min(x0, x1), max(x0, x1)))
        elif abs(x0 - x1) <= 0.5 and abs(y1 - y0) >= MIN_EDGE:
            v.append(_Edge((x0 + x1) / 2, self.height - max(y0, y1), self.height - min(y0, y1)))

    def _matrix(self, obj: Any) -> Matrix:
        m = self.raw.FS_MATRIX()
        if not self.raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
            return _IDENTITY
        return (m.a, m.b, m.c, m.d, m.e, m.f)

    def _path(self, obj: Any, outer: Matrix, h: list[_Edge], v: list[_Edge]) -> None:
        raw = self.raw
        stroked, fill = self._paint(obj)
        if not stroked and fill is None:
            return
        fill_only = fill if not stroked else None
        count = raw.FPDFPath_CountSegments(obj)
        if count <= 5 and outer == _IDENTITY:
            # a rectangle or a single line: the object's bounds say it all
            l, b, r, t = self._f
            if raw.FPDFPageObj_GetBounds(obj, l, b, r, t):
                if count <= 2 or self._is_box(obj, count):
                    self._box(l.value, b.value, r.value, t.value, h, v, fill_only)
                    return
        matrix = _mul(self._matrix(obj), outer)
        x, y = ctypes.c_float(), ctypes.c_float()
        start = previous = None
        for index in range(count):
            seg = raw.FPDFPath_GetPathSegment(obj, index)
            if not seg or not raw.FPDFPathSegment_GetPoint(seg, x, y):
                continue
            point = _apply(matrix, x.value, y.value)
            kind = raw.FPDFPathSegment_GetType(seg)
            if kind == raw.FPDF_SEGMENT_MOVETO:
                start = previous = point
                continue
            if kind == raw.FPDF_SEGMENT_LINETO and previous is not None:
                self._segment(previous, point, h, v)
            previous = point
            if raw.FPDFPathSegment_GetClose(seg) and start is not None:
                self._segment(point, start, h, v)
                previous = start

    def _is_box(self, obj: Any, count: int) -> bool:
        """True when a short path is an axis-aligned rectangle (not a diagonal or curve)."""
        raw = self.raw
        get_segment, get_type, get_point, bezier = raw.FPDFPath_GetPathSegment, raw.FPDFPathSegment_GetType, raw.FPDFPathSegment_GetPoint, raw.FPDF_SEGMENT_BEZIERTO
        x, y = self._point
        points = []
        for index in range(count):
            seg = get_segment(obj, index)
            if get_type(seg) == bezier:
                return False
            get_point(seg, x, y)
            points.append((x.value, y.value))
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            if abs(x0 - x1) > 0.5 and abs(y0 - y1) > 0.5:
                return False
        return True

    def edges(self) -> tuple[list[_Edge], list[_Edge]]:
        raw = self.raw
        h: list[_Edge] = []
        v: list[_Edge] = []
        stack: list[tuple[Any, Matrix, int]] = []
        count = raw.FPDFPage_CountObjects(self.page)
        for index in range(count):
            stack.append((raw.FPDFPage_GetObject(self.page, index), _IDENTITY, 0))
        while stack:
            obj, outer, depth = stack.pop()
            kind = raw.FPDFPageObj_GetType(obj)
            if kind == raw.FPDF_PAGEOBJ_PATH:
                self._path(obj, outer, h, v)
            elif kind == raw.FPDF_PAGEOBJ_FORM and depth < 3:
                inner = _mul(self._matrix(obj), outer)
                for index in range(raw.FPDFFormObj_CountObjects(obj)):
                    stack.append((raw.FPDFFormObj_GetObject(obj, index), inner, depth + 1))
        self._fill_edges(h, v)
        return h, v

    def chars(self, textpage: Any, regions: list[list[float]]) -> list[_Char]:
        """Characters whose box centre may fall inside one of ``regions`` (grid bboxes,
        top-based ``[x0, top, x1, bottom]``). Text lines far from every region are skipped
        whole (:meth:`_visits`), the rest of the page after one box lookup per character:
        reading characters is most of the cost of a table page."""
        raw = self.raw
        height = self.height
        get_box, is_generated = raw.FPDFText_GetCharBox, raw.FPDFText_IsGenerated
        l, r, b, t = (ctypes.c_double() for _ in range(4))
        loose = raw.FS_RECTF()
        loose_ref = ctypes.byref(loose)
        # the near test in PDF coordinates (y up): a centre within 2 * SNAP of a region
        margin = 2 * SNAP
        boxes = [(x0 - margin, x1 + margin, height - bottom - margin, height - top + margin) for x0, top, x1, bottom in regions]
        text = pdfium_page_chars(textpage)
        out: list[_Char] = []
        space = printed = False
        for start, end in self._visits(textpage, text, boxes):
            for index in range(start, end):
                ch = text[index]
                if ch.isspace() or ch in "\x00\x02\ufffe":
                    if ch.isspace():
                        space = True
                        printed = printed or (ch not in "\r\n" and not is_generated(textpage, index))
                    continue
                if not get_box(textpage, index, l, r, b, t):
                    continue
                cx, cy = (l.value + r.value) / 2, (b.value + t.value) / 2
                for bx0, bx1, by0, by1 in boxes:
                    if bx0 <= cx <= bx1 and by0 <= cy <= by1:
                        break
                else:
                    space = printed = False
                    continue
                out.append(self._char(textpage, index, ch, l.value, height - t.value, r.value, height - b.value, loose, loose_ref, space, printed))
                space = printed = False
        fixed = normalise_chars_aligned("".join(c.ch for c in out))
        for c, f in zip(out, fixed):
            if f != c.ch and not f.isspace():
                c.ch = f
        return out

    def _char(self, textpage: Any, index: int, ch: str, x0: float, top: float, x1: float, bottom: float, loose: Any, loose_ref: Any, space: bool, printed: bool) -> _Char:
        """One character near a grid, with its loose box where that tells more."""
        # loose boxes (advance width, ascent/descent) make gaps between glyphs honest
        # ("1" has a narrow ink box); tight boxes keep lines apart, except for flat
        # glyphs such as "一" and "─"
        if self.raw.FPDFText_GetLooseCharBox(textpage, index, loose_ref):
            x0, x1 = loose.left, loose.right
            loose_top, loose_bottom = self.height - loose.top, self.height - loose.bottom
            if bottom - top < 0.4 * (loose_bottom - loose_top):
                top, bottom = loose_top, loose_bottom
        return _Char(ch, x0, top, x1, bottom, space, printed)

    def _visits(self, textpage: Any, text: str, boxes: list[tuple[float, float, float, float]]) -> Iterator[tuple[int, int]]:
        """Index ranges of ``text`` to read char by char: all of it, except the start of a
        text line that lies far from every box. Exact, not a guess: a line is skipped only
        when PDFium's rectangles of its text (loose boxes), widened by their own height,
        miss every box, and up to (not including) its last printed character, which is
        read as usual and, being far too, leaves the space flags as the skipped ones would."""
        l, t, r, b = (ctypes.c_double() for _ in range(4))
        start = 0
        position = 0
        for line in text.split("\n"):
            end = position + len(line)
            last = end - 1
            while last >= position and (text[last].isspace() or text[last] in "\x00\x02\ufffe"):
                last -= 1
            if last - position >= 8 and self._line_far(textpage, position, last, boxes, l, t, r, b):
                yield start, position
                start = last
            position = end + 1
        yield start, len(text)

    def _line_far(self, textpage: Any, first: int, last: int, boxes: list[tuple[float, float, float, float]], l: Any, t: Any, r: Any, b: Any) -> bool:
        raw = self.raw
        count = raw.FPDFText_CountRects(textpage, first, last - first + 1)
        if count <= 0:
            return False
        for i in range(count):
            if not raw.FPDFText_GetRect(textpage, i, l, t, r, b):
                return False
            slack = abs(t.value - b.value) + 1.0
            x0, x1 = min(l.value, r.value) - slack, max(l.value, r.value) + slack
            y0, y1 = min(t.value, b.value) - slack, max(t.value, b.value) + slack
            for bx0, bx1, by0, by1 in boxes:
                if x0 <= bx1 and bx0 <= x1 and y0 <= by1 and by0 <= y1:
                    return False
        # the last printed character is read as usual; it must be a far one
        if not raw.FPDFText_GetCharBox(textpage, last, l, r, b, t):
            return False
        cx, cy = (l.value + r.value) / 2, (b.value + t.value) / 2
        return not any(bx0 <= cx <= bx1 and by0 <= cy <= by1 for bx0, bx1, by0, by1 in boxes)


def _near_any(regions: list[list[float]], x: float, y: float, margin: float = 2 * SNAP) -> bool:
    """True when (x, y) lies within ``margin`` of one of the boxes (exact tests come later)."""
    for x0, top, x1, bottom in regions:
        if x0 - margin <= x <= x1 + margin and top - margin <= y <= bottom + margin:
            return True
    return False


# -- edges to grids -------------------------------------------------------------------------------
def _merge_edges(edges: list[_Edge]) -> list[_Edge]:
    """Snap edges at (nearly) the same position and join those that overlap or touch."""
    if not edges:
        return []
    edges = sorted(edges, key=lambda e: e.pos)
    groups: list[list[_Edge]] = [[edges[0]]]
    for edge in edges[1:]:
        if edge.pos - groups[-1][-1].pos <= SNAP:
            groups[-1].append(edge)
        else:
            groups.append([edge])
    merged: list[_Edge] = []
    for group in groups:
        pos = sum(e.pos for e in group) / len(group)
        for edge in sorted(group, key=lambda e: e.lo):
            if merged and merged[-1].pos == pos and edge.lo <= merged[-1].hi + SNAP:
                merged[-1].hi = max(merged[-1].hi, edge.hi)
            else:
                merged.append(_Edge(pos, edge.lo, edge.hi))
    return merged


def _cluster(values: Iterable[float], tol: float = SNAP) -> list[float]:
    out: list[list[float]] = []
    for value in sorted(values):
        if out and value - out[-1][-1] <= tol:
            out[-1].append(value)
        else:
            out.append([value])
    return [sum(c) / len(c) for c in out]


def _components(h: list[_Edge], v: list[_Edge]) -> list[tuple[list[_Edge], list[_Edge]]]:
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
    groups: dict[int, tuple[list[_Edge], list[_Edge]]] = {}
    for i, he in enumerate(h):
        groups.setdefault(find(i), ([], []))[0].append(he)
    for j, ve in enumerate(v):
        groups.setdefault(find(len(h) + j), ([], []))[1].append(ve)
    return [g for g in groups.values() if g[0] and g[1]]


def _covered(edges: list[_Edge], pos: float, lo: float, hi: float) -> bool:
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


def _grid(h: list[_Edge], v: list[_Edge]) -> _Grid | None:
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


def _lines(chars: list[_Char]) -> list[list[_Char]]:
    """Group characters into visual lines: a character joins the line whose vertical extent
    holds its centre (so superscript footnote marks stay on their line)."""
    lines: list[tuple[list[float], list[_Char]]] = []
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


def _line_text(line: list[_Char]) -> str:
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


def _cell_text(chars: list[_Char]) -> str:
    """Lines top to bottom, characters left to right, spaces only between non-CJK text."""
    return _join_lines([_line_text(line) for line in _lines(chars)]) if chars else ""


_NUMERIC = re.compile(r"^[(+\-−–$]*\d[\d,.\s]*[%)]*\S{0,2}$")


def _split_band(cells: list[tuple[int, list[list[_Char]], float]]) -> list[dict[int, str]] | None:
    """Rows packed into one ruled band (no lines between them): each cell has the same
    number of text lines, level across the band, at least one column of numbers, and no
    text line that wraps (reaches the cell's right side). Else None: one row."""
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
    for col, lines, width in filled:
        if col in numeric:
            continue
        for line in lines[:-1]:
            if line[-1].x1 - line[0].x0 > 0.75 * width:
                return None
    return [{col: texts[col][i] for col in texts} for i in range(k)]


def _table_from_grid(page_number: int, grid: _Grid, chars: list[_Char]) -> Table | None:
    xs, ys = grid.xs, grid.ys
    rows, cols = len(ys) - 1, len(xs) - 1
    owner: dict[tuple[int, int], int] = {}
    for index, (r0, c0, r1, c1) in enumerate(grid.cells):
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                owner[(r, c)] = index
    buckets: list[list[_Char]] = [[] for _ in grid.cells]
    left, right, top, bottom = xs[0], xs[-1], ys[0], ys[-1]
    for ch in chars:
        cx, cy = (ch.x0 + ch.x1) / 2, (ch.top + ch.bottom) / 2
        if not (left <= cx <= right and top <= cy <= bottom):
            continue
        c = min(cols - 1, max(0, bisect_right(xs, cx) - 1))
        r = min(rows - 1, max(0, bisect_right(ys, cy) - 1))
        buckets[owner[(r, c)]].append(ch)
    lines = [_lines(b) for b in buckets]
    texts = [_join_lines([_line_text(line) for line in cell]) for cell in lines]
    if sum(1 for t in texts if t) < 3:
        return None
    header_rows = 1
    for (r0, c0, r1, c1) in grid.cells:
        if r0 == 0:
            header_rows = max(header_rows, r1 + 1)
    header_rows = min(header_rows, rows - 1)
    # matrix: a cell's text at its top-left; a header cell spanning columns repeats across
    # them (so merged header rows read "2020-21 Estimate"), a body cell does not
    matrix = [["" for _ in range(cols)] for _ in range(rows)]
    for index, (r0, c0, r1, c1) in enumerate(grid.cells):
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
            split = _split_band([(grid.cells[i][1], lines[i], xs[grid.cells[i][3] + 1] - xs[grid.cells[i][1]]) for i in band])
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
    )


def _page_tables(raw: Any, pdf: Any, page_number: int) -> list[Table]:
    page = raw.FPDF_LoadPage(pdf, page_number - 1)
    if not page:
        return []
    try:
        height = raw.FPDF_GetPageHeightF(page)
        reader = _PageReader(raw, page, height)
        h, v = reader.edges()
        if len(h) < 2 or not v:  # no grid possible: most pages stop here
            return []
        h, v = _merge_edges(h), _merge_edges(v)
        if len(h) * len(v) > 250_000:  # a chart or map, not a table: skip its O(h*v) grouping
            return []
        groups = [g for g in _components(h, v) if len(g[0]) >= 2 and len(g[1]) >= 1]
        grids = [g for g in (_grid(gh, gv) for gh, gv in groups) if g is not None]
        if not grids:
            return []
        textpage = raw.FPDFText_LoadPage(page)
        try:
            chars = reader.chars(textpage, [g.bbox for g in grids])
        finally:
            raw.FPDFText_ClosePage(textpage)
        tables = [t for t in (_table_from_grid(page_number, g, chars) for g in grids) if t is not None]
        # nested grids (a boxed page frame around a real table): keep the innermost tables
        return _drop_containers(sorted(tables, key=lambda t: (t.bbox or [0, 0])[1]))
    finally:
        raw.FPDF_ClosePage(page)


def _drop_containers(tables: list[Table]) -> list[Table]:
    def inside(a: list[float], b: list[float]) -> bool:
        return a[0] >= b[0] - SNAP and a[1] >= b[1] - SNAP and a[2] <= b[2] + SNAP and a[3] <= b[3] + SNAP

    out = []
    for t in tables:
        if any(o is not t and o.bbox and t.bbox and inside(o.bbox, t.bbox) and o.bbox != t.bbox for o in tables):
            continue
        out.append(t)
    return out


def _tables_of(pdf: Any, numbers: Iterable[int]) -> Iterator[tuple[int, list[Table]]]:
    """``(page number, tables)`` for each of ``numbers`` with a table, on an open document."""
    import pypdfium2.raw as raw

    count = len(pdf)
    for number in numbers:
        if 1 <= number <= count:
            found = _page_tables(raw, pdf.raw, number)
            if found:
                yield number, found


def iter_geometric_tables(pdf_bytes: bytes, page_numbers: Iterable[int] | None = None) -> Iterator[tuple[int, list[Table]]]:
    """``(page number, tables)`` for each page with a table, page by page (PDFium)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        yield from _tables_of(pdf, list(page_numbers) if page_numbers is not None else range(1, len(pdf) + 1))
    finally:
        pdf.close()


def geometric_tables(pdf_bytes: bytes, page_numbers: Iterable[int] | None = None) -> dict[int, list[Table]]:
    """Tables per 1-based page number, from ruling lines and character boxes (PDFium)."""
    return dict(iter_geometric_tables(pdf_bytes, page_numbers))


# -- geometry on more than one core ------------------------------------------------------------------
PARALLEL_MIN_PAGES = 100  # fewer pages: starting a worker (~0.1 s of a fresh Python) saves nothing
MAX_WORKERS = 3  # worker processes at most, besides the caller's own
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # so a worker imports this very code


def _spare_cores() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, min(MAX_WORKERS, cores - 1))


def serve_worker(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """A spawned worker process's whole life: read ``(pdf bytes, page numbers)``, then
    :func:`_serve` them."""
    stdin = stdin or sys.stdin.buffer
    pdf_bytes, numbers = pickle.load(stdin)
    _serve(pdf_bytes, numbers, stdout or sys.stdout.buffer)


def _serve(pdf_bytes: bytes, numbers: list[int], stdout: BinaryIO) -> None:
    """Report ``(position, tables)`` for each page in order until done or killed. A page
    that fails is reported as ``(position, None)`` and ends the worker: the caller reads it
    itself."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    pdf = pdfium.PdfDocument(pdf_bytes)
    count = len(pdf)
    for position, number in enumerate(numbers):
        try:
            found = _page_tables(raw, pdf.raw, number) if 1 <= number <= count else []
        except Exception:
            pickle.dump((position, None), stdout)
            stdout.flush()
            return
        pickle.dump((position, found), stdout)
        stdout.flush()


def _single_threaded() -> bool:
    """True when this process runs one thread, native ones included (Linux says so in
    /proc): only then is forking safe (no lock can be left held in the child)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


class _Forked:
    """A worker forked from this process, with what :class:`_Worker` uses of ``Popen``.
    Why: a fork starts reading pages at once, with this process's imports and bytes; a
    fresh Python spends about 0.1 s of a core starting up first. Only from a single-threaded
    process (the CLI, the benchmark); elsewhere (a Dagster run worker) workers are spawned."""

    stdin = None

    def __init__(self, pdf_bytes: bytes, numbers: list[int]) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report its pages, then leave without the parent's exit handlers
            code = 1
            try:
                os.close(read_fd)
                with os.fdopen(write_fd, "wb") as out:
                    _serve(pdf_bytes, numbers, out)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        self.pid = pid
        self.stdout = os.fdopen(read_fd, "rb")
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


class _Worker:
    """One worker process reading one run of pages front to back; a thread collects what
    it reports (``done`` pages so far), and the caller takes pages off the run's back
    (``end``) when it has nothing else to do. Forked when ``fork``, else a fresh Python
    running :func:`serve_worker`; :meth:`start` starts the threads that talk to it."""

    def __init__(self, pdf_bytes: bytes, numbers: list[int], first: int, changed: threading.Condition, fork: bool) -> None:
        self.numbers = numbers
        self.first = first  # position of numbers[0] in the whole list
        self.done = 0
        self.end = len(numbers)
        self.alive = True
        self.found: dict[int, list[Table]] = {}
        self._changed = changed
        self._payload = b""
        self.process: "subprocess.Popen[bytes] | _Forked"
        if fork:
            self.process = _Forked(pdf_bytes, numbers)
        else:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")])))
            command = [sys.executable, "-c", "from legco_assets.core.tables.geometry import serve_worker; serve_worker()"]
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            self._payload = pickle.dumps((pdf_bytes, numbers), protocol=pickle.HIGHEST_PROTOCOL)
        self.reader = threading.Thread(target=self._collect, daemon=True)

    def start(self) -> None:
        if self._payload:
            threading.Thread(target=self._send, args=(self._payload,), daemon=True).start()
            self._payload = b""
        self.reader.start()

    def _send(self, payload: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:  # the pipe holds 64 KiB: the worker reads the rest once it has started
            stdin.write(payload)
            stdin.close()
        except OSError:  # the worker died or was stopped: the caller reads its pages
            pass

    def _collect(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                position, found = pickle.load(stdout)
                if found is None:
                    break
                with self._changed:
                    if found:
                        self.found[self.numbers[position]] = found
                    self.done = position + 1
                    self._changed.notify_all()
        except Exception:  # end of the pipe (done, stopped or crashed)
            pass
        with self._changed:
            self.alive = False
            self._changed.notify_all()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        self.reader.join(timeout=5)


class GeometricTables:
    """The geometric tables of a PDF, found by worker processes while the caller goes on.

    Why: table geometry is a pure function of the bytes and the largest part of the no-LLM
    pipeline, and the rest of the pipeline runs on one core. Started early (``chunk_file``
    starts it before reading the text layer), each worker reads its run of pages front to
    back; :meth:`in_order` hands the pages over in order and, while the next one is still
    with a worker, reads pages off the back of the runs in the calling process until they
    meet, so all finish together however busy the machine is. A page both read is read the
    same way twice (a pure function). Workers are plain processes, not a ``multiprocessing``
    pool (no re-import of the caller's main script, allowed in daemon processes): forked
    from a single-threaded caller, else a fresh Python running :func:`serve_worker` (never
    a fork of a threaded process such as a Dagster run worker). They are never needed: a
    document under ``min_pages`` pages, no spare core, a worker that cannot start or dies,
    or a page that fails in a worker is read in this process, with the same code and the
    same result as :func:`geometric_tables`.
    """

    def __init__(self, pdf_bytes: bytes, page_numbers: Iterable[int] | None = None, workers: int | None = None, min_pages: int | None = None) -> None:
        self.pdf_bytes = pdf_bytes
        self._numbers = list(page_numbers) if page_numbers is not None else None
        self._changed = threading.Condition()
        self._workers: list[_Worker] = []
        self._opened = False
        try:
            count = pdf_page_count(pdf_bytes)
        except Exception:  # PDFium cannot open it: result() raises as geometric_tables does
            return
        self._opened = True
        if self._numbers is None:
            self._numbers = list(range(1, count + 1))
        workers = _spare_cores() if workers is None else workers
        min_pages = PARALLEL_MIN_PAGES if min_pages is None else min_pages
        if workers >= 1 and len(self._numbers) >= max(2, min_pages):
            self._start(workers)

    def _start(self, workers: int) -> None:
        numbers = self._numbers or []
        # runs of equal length, one per worker plus the caller's own share at the back
        size = -(-len(numbers) // workers)
        fork = hasattr(os, "fork") and _single_threaded()  # decided before any thread starts
        try:
            for first in range(0, len(numbers), size):
                self._workers.append(_Worker(self.pdf_bytes, numbers[first : first + size], first, self._changed, fork))
        except OSError:  # cannot start a process here: the caller reads those pages
            pass
        for worker in self._workers:
            worker.start()

    def result(self) -> dict[int, list[Table]]:
        """Tables per page number, in page order, exactly as :func:`geometric_tables` gives."""
        return {number: tables for number, tables in self.in_order() if tables}

    def in_order(self) -> Iterator[tuple[int, list[Table]]]:
        """``(page number, tables)`` for every page asked for (``[]`` when it has none; a
        document read on one core, under ``min_pages``, gives only its pages with tables), in
        the order asked, each as soon as it is known: a caller can use the first pages while
        the workers read the last. While the next page is still with a worker, this process
        reads a page off the back of the busiest worker's run rather than wait. The workers
        are stopped at the end (or when the caller stops early)."""
        if not self._opened:
            yield from geometric_tables(self.pdf_bytes, self._numbers).items()  # raises as it does
            return
        slots = {n: (w, i) for w in self._workers for i, n in enumerate(w.numbers)}
        stolen: dict[int, list[Table]] = {}
        try:
            with _LocalReader(self.pdf_bytes) as local:
                for number in self._numbers or []:
                    yield number, self._page(number, slots.get(number), local, stolen)
        finally:
            self.close()

    def _page(self, number: int, slot: "tuple[_Worker, int] | None", local: "_LocalReader", stolen: dict[int, list[Table]]) -> list[Table]:
        """One page's tables: from its worker once reported, from this process when the
        page is this process's (never given to a worker, taken off a run's back, or left
        by a worker that died); meanwhile pages are taken off the back of the runs."""
        if slot is None:
            return local.page(number)
        worker, position = slot
        while True:
            with self._changed:
                if position < worker.done:
                    return worker.found.get(number, [])
                mine = position >= worker.end or not worker.alive
            if mine:
                return stolen.pop(number) if number in stolen else local.page(number)
            victim = self._busiest()
            if victim is not None:
                taken = victim.numbers[victim.end]
                stolen[taken] = local.page(taken)

    def _busiest(self) -> "_Worker | None":
        """The live worker with the most pages left, its last one now the caller's."""
        with self._changed:
            left = [(w.end - w.done, w) for w in self._workers if w.end > w.done]
            if not left:
                return None
            worker = max(left, key=lambda item: item[0])[1]
            worker.end -= 1
            return worker

    def close(self) -> None:
        """Stop the workers (what they have not reported is dropped)."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()

    def __enter__(self) -> "GeometricTables":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _LocalReader:
    """The caller's own copy of the document, opened only when it reads a page."""

    def __init__(self, pdf_bytes: bytes) -> None:
        self.pdf_bytes = pdf_bytes
        self.pdf: Any = None

    def page(self, number: int) -> list[Table]:
        if self.pdf is None:
            import pypdfium2 as pdfium

            self.pdf = pdfium.PdfDocument(self.pdf_bytes)
        return next((found for _, found in _tables_of(self.pdf, [number])), [])

    def __enter__(self) -> "_LocalReader":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.pdf is not None:
            self.pdf.close()


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
    from .weave import locate_table

    text = _page_text(page)
    span = locate_table(text, table) if text else None
    return span is not None and not text[span[1]:].strip()


def _starts_page(table: Table, page: Page | None) -> bool:
    """Nothing (or only a short "continued" line) precedes ``table`` on its page."""
    from .weave import locate_table

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


def link_pages(found: Iterable[tuple[int, list[Table]]], pages: list[Page]) -> Iterator[tuple[int, list[Table]]]:
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
        moved = replace(first, header=list(last.header), rows=rows, continues_from_previous=True)
        if _starts_page(moved, page):
            tables[0] = replace(moved, markdown=to_markdown(moved.header, rows))
    return tables


# -- the page_tables function --------------------------------------------------------------------
def find_tables(
    pdf_bytes: bytes, pages: list[Page], settings: Settings, llm: "LLMClient | None" = None, geometry: GeometricTables | None = None
) -> TablesResult:
    """Tables on the document's pages (the ``page_tables`` asset's pure function).

    Geometry first (always; it is fast and the fallback for every page). With a vision LLM
    configured (``settings.llm_enabled`` and ``settings.qa_vision_enabled``; ``llm`` or one
    built from ``settings``), the pages with a detected table are read from their image and a
    valid reply replaces the geometric tables of that page; a failed or invalid reply keeps
    them and adds a warning. ``stats`` holds what this call spent (LLM calls made/cached,
    failures, tokens, seconds) and ``seconds`` for the whole call. ``geometry``: the same
    document's geometric tables, already started (:class:`GeometricTables`, all pages or
    these pages); without it they are found here, on several cores for a long document.
    """
    from ..llm import LLMClient

    started = time.perf_counter()
    numbers = [p.number for p in pages] if pages else None
    by_page: dict[int, list[Table]] = {}
    warnings: list[str] = []
    # the same keys with or without an LLM, so the asset's metadata always reads the same
    stats: dict[str, Any] = {key: 0 for key in ("llm_calls", "llm_cached", "llm_failures", "llm_tokens_in", "llm_tokens_out", "llm_seconds")}
    vision_pages = 0
    client = None
    if settings.llm_enabled and settings.qa_vision_enabled:
        client = llm if llm is not None else LLMClient.from_settings(settings)

    def detected() -> Iterator[int]:
        if client is None or geometry is not None:
            found: Iterable[tuple[int, list[Table]]] = _geometry_pages(pdf_bytes, numbers, geometry)
        else:  # page by page, so the vision model gets each page as soon as it is found
            found = iter_geometric_tables(pdf_bytes, numbers)
        for number, tables in found:
            if tables:
                by_page[number] = tables
                yield number

    if client is None:
        for _ in detected():
            pass
    else:
        from .vision import read_tables_from_images

        before = client.stats.as_dict()
        # pages go to the vision model as soon as geometry has found a table on them
        outcome = read_tables_from_images(pdf_bytes, pages, detected(), settings, client, by_page)
        after = client.stats.as_dict()
        stats.update({key: round(after[key] - before[key], 3) for key in after})
        warnings.extend(outcome.warnings)
        vision_pages = outcome.pages
        stats.update(outcome.counts)
    stats["geometric_tables"] = sum(len(t) for t in by_page.values())
    if client is not None:
        for number, tables in outcome.tables.items():
            by_page[number] = tables
    tables = link_continuations({k: v for k, v in by_page.items() if v}, pages)
    stats["tables"] = len(tables)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    return TablesResult(
        tables=tables,
        pages_with_tables=sorted({t.page for t in tables}),
        vision_pages=vision_pages,
        warnings=warnings,
        stats=stats,
    )


def iter_page_tables(
    pdf_bytes: bytes, pages: list[Page], settings: Settings, llm: "LLMClient | None" = None, geometry: GeometricTables | None = None
) -> Iterator[tuple[int, list[Table]]]:
    """What :func:`find_tables` finds, as ``(page number, tables)`` in page order. Without
    a vision LLM each page comes as soon as it is read and linked to the page before, so a
    long document's first pages can be chunked while the workers read its last
    (:class:`~legco_assets.core.records.PageTables`); with one, once all are read."""
    if settings.llm_enabled and settings.qa_vision_enabled:
        by_page: dict[int, list[Table]] = {}
        for table in find_tables(pdf_bytes, pages, settings, llm, geometry).tables:
            by_page.setdefault(table.page, []).append(table)
        yield from sorted(by_page.items())
        return
    numbers = [p.number for p in pages] if pages else None
    yield from link_pages(_geometry_pages(pdf_bytes, numbers, geometry), pages)


def _geometry_pages(pdf_bytes: bytes, numbers: list[int] | None, geometry: GeometricTables | None) -> Iterator[tuple[int, list[Table]]]:
    """Geometric tables of ``numbers`` (all pages when None) in order, from ``geometry``
    when it was started for this document, else found here (on several cores when long)."""
    if geometry is None:
        return GeometricTables(pdf_bytes, numbers).in_order()
    wanted = set(numbers) if numbers is not None else None
    return ((n, t) for n, t in geometry.in_order() if wanted is None or n in wanted)
