"""One PDFium page's drawn edges and characters, read through PDFium's raw API: what the
table geometry (:mod:`.geometry`) is built from.

Why the raw API: reading a page's path objects (bounds only, a few microseconds each) is
what keeps the gate cheap on every page, and reading characters is most of the cost of a
table page, so both go straight to PDFium's C functions, reusing their ctypes buffers; the
walk over every object and the per-character and per-rectangle calls go without ctypes'
argument conversion (:mod:`..read.pdfium_calls`: out-parameters by reference).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..read import bare_calls, normalise_chars_aligned, pdfium_page_chars

SNAP = 3.0  # points: edges closer than this are one line
THIN = 3.0  # points: a filled rectangle thinner than this is a ruling line
MIN_EDGE = 4.0  # points: shorter edges (dots, corners) are ignored


# -- page geometry --------------------------------------------------------------------------------
@dataclass
class Edge:
    pos: float  # y (top-based) of a horizontal edge, x of a vertical one
    lo: float  # x0 / top
    hi: float  # x1 / bottom


@dataclass(slots=True)
class PageChar:
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


class _Box:
    """Four doubles PDFium writes a box into, with references to them in the order each of
    its functions takes them (the calls of :mod:`..read.pdfium_calls` take references)."""

    def __init__(self) -> None:
        self.l, self.r, self.b, self.t = (ctypes.c_double() for _ in range(4))
        refs = {name: ctypes.byref(value) for name, value in zip("lrbt", (self.l, self.r, self.b, self.t))}
        self.char = tuple(refs[k] for k in "lrbt")  # FPDFText_GetCharBox: left, right, bottom, top
        self.rect = tuple(refs[k] for k in "ltrb")  # FPDFText_GetRect: left, top, right, bottom


class PageReader:
    """Reads edges and characters of one PDFium page through the raw API (fast)."""

    def __init__(self, raw: Any, page: Any, height: float) -> None:
        self.raw = raw
        self.calls = bare_calls()
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

    def _box(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        h: list[Edge],
        v: list[Edge],
        fill_only: tuple[int, int, int] | None = None,
    ) -> None:
        """A rectangle (or a thin one: a ruling line) in PDF coordinates. A filled box with
        no outline is kept aside: its sides are lines only where its colour ends."""
        x0, x1 = min(x0, x1), max(x0, x1)
        top, bottom = self.height - max(y0, y1), self.height - min(y0, y1)
        width, tall = x1 - x0, bottom - top
        if width < MIN_EDGE and tall < MIN_EDGE:
            return
        if tall <= THIN:
            h.append(Edge((top + bottom) / 2, x0, x1))
        elif width <= THIN:
            v.append(Edge((x0 + x1) / 2, top, bottom))
        elif fill_only is not None:
            self.fills.append((x0, top, x1, bottom, fill_only))
        else:
            h.append(Edge(top, x0, x1))
            h.append(Edge(bottom, x0, x1))
            v.append(Edge(x0, top, bottom))
            v.append(Edge(x1, top, bottom))

    def _fill_edges(self, h: list[Edge], v: list[Edge]) -> None:
        """Sides of filled boxes, except where a box of the same colour continues across
        them (word processors shade a cell one text line at a time)."""
        fills = self.fills
        if len(fills) > 400:  # a drawing, not a table: treat every box as outlined
            for x0, top, x1, bottom, _ in fills:
                h += [Edge(top, x0, x1), Edge(bottom, x0, x1)]
                v += [Edge(x0, top, bottom), Edge(x1, top, bottom)]
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
                h.append(Edge(top, x0, x1))
            if not covered(x0, x1, below):
                h.append(Edge(bottom, x0, x1))
            if not covered(top, bottom, left):
                v.append(Edge(x0, top, bottom))
            if not covered(top, bottom, right):
                v.append(Edge(x1, top, bottom))

    def _segment(self, p: tuple[float, float], q: tuple[float, float], h: list[Edge], v: list[Edge]) -> None:
        (x0, y0), (x1, y1) = p, q
        if abs(y0 - y1) <= 0.5 and abs(x1 - x0) >= MIN_EDGE:
            h.append(Edge(self.height - (y0 + y1) / 2, min(x0, x1), max(x0, x1)))
        elif abs(x0 - x1) <= 0.5 and abs(y1 - y0) >= MIN_EDGE:
            v.append(Edge((x0 + x1) / 2, self.height - max(y0, y1), self.height - min(y0, y1)))

    def _matrix(self, obj: Any) -> Matrix:
        m = self.raw.FS_MATRIX()
        if not self.raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
            return _IDENTITY
        return (m.a, m.b, m.c, m.d, m.e, m.f)

    def _path(self, obj: Any, outer: Matrix, h: list[Edge], v: list[Edge]) -> None:
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
        get_segment, get_type, get_point, bezier = (
            raw.FPDFPath_GetPathSegment,
            raw.FPDFPathSegment_GetType,
            raw.FPDFPathSegment_GetPoint,
            raw.FPDF_SEGMENT_BEZIERTO,
        )
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

    def edges(self) -> tuple[list[Edge], list[Edge]]:
        """The page's ruling lines and box sides, from its paths and those of its forms
        (three deep), read last object first and a form's own objects right after it."""
        calls, page = self.calls, self.page
        get_object, get_type = calls.FPDFPage_GetObject, calls.FPDFPageObj_GetType
        path_kind, form_kind = self.raw.FPDF_PAGEOBJ_PATH, self.raw.FPDF_PAGEOBJ_FORM
        h: list[Edge] = []
        v: list[Edge] = []
        for index in range(calls.FPDFPage_CountObjects(page) - 1, -1, -1):
            obj = get_object(page, index)
            kind = get_type(obj)
            if kind == path_kind:
                self._path(obj, _IDENTITY, h, v)
            elif kind == form_kind:
                self._form(obj, _IDENTITY, 1, h, v)
        self._fill_edges(h, v)
        return h, v

    def _form(self, form: Any, outer: Matrix, depth: int, h: list[Edge], v: list[Edge]) -> None:
        """The paths of a form XObject whose objects are ``depth`` deep (a form inside is
        read while they are less than 3 deep), last object first."""
        raw = self.raw
        inner = _mul(self._matrix(form), outer)
        for index in range(raw.FPDFFormObj_CountObjects(form) - 1, -1, -1):
            obj = raw.FPDFFormObj_GetObject(form, index)
            kind = raw.FPDFPageObj_GetType(obj)
            if kind == raw.FPDF_PAGEOBJ_PATH:
                self._path(obj, inner, h, v)
            elif kind == raw.FPDF_PAGEOBJ_FORM and depth < 3:
                self._form(obj, inner, depth + 1, h, v)

    def chars(self, textpage: Any, regions: list[list[float]]) -> list[PageChar]:
        """Characters whose box centre may fall inside one of ``regions`` (grid bboxes,
        top-based ``[x0, top, x1, bottom]``). Text lines far from every region are skipped
        whole (:meth:`_visits`), the rest of the page after one box lookup per character:
        reading characters is most of the cost of a table page."""
        raw, calls = self.raw, self.calls
        height = self.height
        get_box, is_generated = calls.FPDFText_GetCharBox, calls.FPDFText_IsGenerated
        box = _Box()
        l, r, b, t = box.l, box.r, box.b, box.t
        loose = raw.FS_RECTF()
        loose_ref = ctypes.byref(loose)
        # the near test in PDF coordinates (y up): a centre within 2 * SNAP of a region
        margin = 2 * SNAP
        boxes = [
            (x0 - margin, x1 + margin, height - bottom - margin, height - top + margin)
            for x0, top, x1, bottom in regions
        ]
        text = pdfium_page_chars(textpage)
        out: list[PageChar] = []
        space = printed = False
        for start, end in self._visits(textpage, text, boxes):
            for index in range(start, end):
                ch = text[index]
                if ch.isspace() or ch in "\x00\x02\ufffe":
                    if ch.isspace():
                        space = True
                        printed = printed or (ch not in "\r\n" and not is_generated(textpage, index))
                    continue
                if not get_box(textpage, index, *box.char):
                    continue
                cx, cy = (l.value + r.value) / 2, (b.value + t.value) / 2
                for bx0, bx1, by0, by1 in boxes:
                    if bx0 <= cx <= bx1 and by0 <= cy <= by1:
                        break
                else:
                    space = printed = False
                    continue
                out.append(
                    self._char(
                        textpage,
                        index,
                        ch,
                        l.value,
                        height - t.value,
                        r.value,
                        height - b.value,
                        loose,
                        loose_ref,
                        space,
                        printed,
                    )
                )
                space = printed = False
        fixed = normalise_chars_aligned("".join(c.ch for c in out))
        for c, f in zip(out, fixed):
            if f != c.ch and not f.isspace():
                c.ch = f
        return out

    def _char(
        self,
        textpage: Any,
        index: int,
        ch: str,
        x0: float,
        top: float,
        x1: float,
        bottom: float,
        loose: Any,
        loose_ref: Any,
        space: bool,
        printed: bool,
    ) -> PageChar:
        """One character near a grid, with its loose box where that tells more."""
        # loose boxes (advance width, ascent/descent) make gaps between glyphs honest
        # ("1" has a narrow ink box); tight boxes keep lines apart, except for flat
        # glyphs such as "一" and "─"
        if self.calls.FPDFText_GetLooseCharBox(textpage, index, loose_ref):
            x0, x1 = loose.left, loose.right
            loose_top, loose_bottom = self.height - loose.top, self.height - loose.bottom
            if bottom - top < 0.4 * (loose_bottom - loose_top):
                top, bottom = loose_top, loose_bottom
        return PageChar(ch, x0, top, x1, bottom, space, printed)

    def _visits(
        self, textpage: Any, text: str, boxes: list[tuple[float, float, float, float]]
    ) -> Iterator[tuple[int, int]]:
        """Index ranges of ``text`` to read char by char: all of it, except the start of a
        text line that lies far from every box. Exact, not a guess: a line is skipped only
        when PDFium's rectangles of its text (loose boxes), widened by their own height,
        miss every box, and up to (not including) its last printed character, which is
        read as usual and, being far too, leaves the space flags as the skipped ones would."""
        box = _Box()  # its own: the caller reads characters between the ranges given
        start = 0
        position = 0
        for line in text.split("\n"):
            end = position + len(line)
            last = end - 1
            while last >= position and (text[last].isspace() or text[last] in "\x00\x02\ufffe"):
                last -= 1
            if last - position >= 8 and self._line_far(textpage, position, last, boxes, box):
                yield start, position
                start = last
            position = end + 1
        yield start, len(text)

    def _line_far(
        self,
        textpage: Any,
        first: int,
        last: int,
        boxes: list[tuple[float, float, float, float]],
        box: _Box,
    ) -> bool:
        calls = self.calls
        l, t, r, b = box.l, box.t, box.r, box.b
        count = calls.FPDFText_CountRects(textpage, first, last - first + 1)
        if count <= 0:
            return False
        get_rect, rect = calls.FPDFText_GetRect, box.rect
        for i in range(count):
            if not get_rect(textpage, i, *rect):
                return False
            x0, x1, y0, y1 = l.value, r.value, b.value, t.value
            if x0 > x1:
                x0, x1 = x1, x0
            if y0 > y1:
                y0, y1 = y1, y0
            slack = y1 - y0 + 1.0  # the rectangle widened by its own height
            x0, x1, y0, y1 = x0 - slack, x1 + slack, y0 - slack, y1 + slack
            for bx0, bx1, by0, by1 in boxes:
                if x0 <= bx1 and bx0 <= x1 and y0 <= by1 and by0 <= y1:
                    return False
        # the last printed character is read as usual; it must be a far one
        if not calls.FPDFText_GetCharBox(textpage, last, *box.char):
            return False
        cx, cy = (l.value + r.value) / 2, (b.value + t.value) / 2
        return not any(bx0 <= cx <= bx1 and by0 <= cy <= by1 for bx0, bx1, by0, by1 in boxes)
