"""Heading candidates from the page itself: PDFium's font size and weight per line.

Why: a paper's text says little about which short line is a title. ``10. 在政府推出…`` is a
numbered paragraph whose first line happens to be short; ``(三) 寬減…`` is a list item;
``Chapter 2`` / ``Liability for …`` is one title on two lines. The typesetter already said
which is which: titles are set larger or bolder than the running text. PDFium gives each
character's font size, weight, text matrix and render mode, so a line's style costs a few
calls.

Speed: reading the style of every character of a 500-page paper would cost more than the
text extraction itself, so only *candidate lines* are read, one character each: lines that
open a block (at the top of a page, after a blank line, a finished sentence or a short last
line of a paragraph), are not as long as the page's running lines, and do not end a
sentence or a clause (a title never does); plus one long line per page for the body style.
Font names (``…-Bold``) are read once per font (PDFium keeps a document's fonts while the
document is open, so a font handle names one font). :func:`page_samples` runs while the
extractor has the text page open; :func:`assign_levels` then ranks the styles
document-wide, once all pages are read.
"""

from __future__ import annotations

import bisect
import ctypes
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .. import markers
from .pdfium_calls import bare_calls

CANDIDATE_MAX_WIDTH = 96  # display width (CJK = 2) of the longest line read as a possible title
BODY_SAMPLES_PER_PAGE = 1  # long lines per page read for the body style
SIZE_STEP = 0.5  # sizes are compared in half points
LARGER = 1.08  # a title set this much larger than the body needs no weight
BOLD_WEIGHT = 600  # PDFium weight of a bold face
BOLD_OVER_BODY = 150  # or this much heavier than the body's face (Light body, Medium titles)
FILL_STROKE = 2  # text render mode: filled and stroked, a drawn "fake bold"
SHORT_LINE = 0.7  # a line this much shorter than the page's longest ends its block (a paragraph's last line)
FULL_LINE = 0.9  # a line this close to the page's longest is running text (a numbered paragraph's first line)
TITLE_PAGE = 1  # a style seen only on this page is the paper's title, not an outline level
CELL_GAP = 1.2  # a gap this many times the font size between two words: two cells of a row
ROW_OVERLAP = 0.5  # lines side by side sharing this much of their height: cells of one row
CELL_REACH = 3.0  # the next cell of a row starts within this many font sizes (a column gutter, a
# two-up spread's other page, is farther or holds running text)
ROW_REACH = 24  # how many lines either side a cell's neighbours in its row may be (text order)
RULE_TOLERANCE = 2.0  # points: drawn edges this close are one column edge
GRID_COLUMNS = 2  # columns of a drawn grid whose lines are cells, not titles
MIN_COLUMN = 2.0  # a space between drawn edges this many line heights wide holds a column's text


# the sentence and clause ends of markers.SENTENCE_END / CLAUSE_END, but for the question
# mark: a question set apart by its type is a heading that asks (an FAQ without labels)
_ENDS = set("。．.!！;；,，、:：")
_CLOSERS = "」』”’\"')）]］】 "


CAPITALS_MIN_LETTERS = 4  # a line in capitals with fewer letters is an abbreviation, not a title in capitals
ASKING_LEVEL = 6  # heading level of a question an FAQ sets apart without a heading of its own


def labelled(line: str) -> bool:
    """A question or answer label opens the line (問1. …, 答 1 : …, Q1. …, A1 …)."""
    return bool(
        markers.ZH_QUESTION.match(line)
        or markers.ZH_ANSWER.match(line)
        or markers.EN_QUESTION.match(line)
        and not line[:1].isdigit()
        and _has_text_after_label(line)
        or markers.EN_ANSWER.match(line)
        and _has_text_after_label(line)
    )


def _has_text_after_label(line: str) -> bool:
    match = markers.EN_QUESTION.match(line) or markers.EN_ANSWER.match(line)
    return bool(match and match["text"] and len(match["text"]) > 3)


def asked_apart(line: str) -> bool:
    """A line an FAQ sets apart (a ``<dt>``, an accordion's button, a paragraph all in bold)
    that asks: a heading hint of :data:`ASKING_LEVEL`, so the outline cuts the paper there
    (:mod:`structure.asked_headings`). Not a labelled one: its label makes it a pair anyway."""
    return bool(markers.QUESTION_END.search(line)) and not labelled(line)


_Style = tuple[float, bool, bool]  # size in half points, bold, a type's titles in capitals
_Found = tuple[int, str, _Style, int]  # page, line, style, the line's row on its page


@dataclass(frozen=True)
class LineStyle:
    """How one line is set: effective size in points (text matrix applied), weight, bold."""

    size: float
    weight: int
    drawn_bold: bool  # fill+stroke render mode, or a Bold face by name

    def key(self, body_weight: int) -> _Style:
        """Style class: size in half points, whether it reads as bold against the body, and
        (set later, by :func:`_capitals_above`) whether it is its type's titles in capitals."""
        bold = self.drawn_bold or self.weight >= max(BOLD_WEIGHT, body_weight + BOLD_OVER_BODY)
        return round(self.size / SIZE_STEP) * SIZE_STEP, bold, False


@dataclass
class PageSamples:
    """One page's candidate lines with their style, and the style of a few body lines."""

    number: int
    candidates: list[tuple[str, LineStyle]]
    body: list[LineStyle]
    rows: list[int]  # each candidate's line number on the page


def _width(line: str) -> int:
    """:func:`structure.text.display_width` without a regex, for every line of every page: a CJK
    character is three UTF-8 bytes and one character, so (bytes + characters) / 2 counts it
    twice and ASCII once (other three-byte marks count twice too, which is fine here)."""
    return (len(line.encode("utf-8")) + len(line)) // 2


def candidate_line(line: str) -> bool:
    """A line that may be a title: short, with letters, not ending a sentence or a clause
    (a question may: :mod:`asked_headings`)."""
    s = line.strip()
    if not s or _width(s) > CANDIDATE_MAX_WIDTH or s.rstrip(_CLOSERS)[-1:] in _ENDS:
        return False
    if len(s) <= 12 and (markers.PAGE_NUMBER.match(s) or markers.PAGE_LABEL.match(s)):
        return False
    return any(ch.isalpha() for ch in s)


def starts_lower(text: str) -> bool:
    """Whether a line starts mid-sentence (its first letter after any label is lower case):
    a title never does, though its wrapped second line may."""
    first = next((ch for ch in markers.LEADING_LABEL.sub("", text) if ch.isalpha()), "")
    return first.islower()


class _Reader:
    """Style of single characters of one text page, with the font facts that do not change
    within a font (its name: a ``Bold`` face) looked up once per font. The per-character
    calls go without ctypes' argument conversion (:mod:`.pdfium_calls`)."""

    def __init__(self, raw: object, textpage: object, fonts: dict[int, bool]) -> None:
        self.raw, self.textpage, self.fonts = raw, textpage, fonts
        self.calls = bare_calls()
        self.count = raw.FPDFText_CountChars(textpage)
        # one set of out-parameters for every box read (a box is read ~40 times a page)
        self._edges = [ctypes.c_double() for _ in range(4)]
        self._refs = [ctypes.byref(v) for v in self._edges]

    def size(self, index: int) -> float:
        """Effective font size of one character (text matrix applied)."""
        raw, textpage = self.raw, self.textpage
        size = self.calls.FPDFText_GetFontSize(textpage, index)
        if size < 2.0:  # the size is in the text matrix (``/F1 1 Tf`` scaled by ``Tm``)
            matrix = raw.FS_MATRIX()
            if raw.FPDFText_GetMatrix(textpage, index, ctypes.byref(matrix)):
                size *= abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5 or 1.0
        return size

    def style(self, index: int) -> LineStyle:
        calls, textpage = self.calls, self.textpage
        size = self.size(index)
        weight = calls.FPDFText_GetFontWeight(textpage, index)
        obj = calls.FPDFText_GetTextObject(textpage, index)
        drawn = False
        if obj:
            drawn = calls.FPDFTextObj_GetTextRenderMode(obj) == FILL_STROKE or self._bold_face(obj)
        return LineStyle(round(size, 2), int(weight), drawn)

    def _bold_face(self, obj: object) -> bool:
        font = self.calls.FPDFTextObj_GetFont(obj)
        address = ctypes.c_void_p.from_buffer(font).value or 0
        if address not in self.fonts:
            name = ctypes.create_string_buffer(128)
            self.raw.FPDFFont_GetBaseFontName(font, name, 128)
            lowered = name.value.lower()
            self.fonts[address] = any(tag in lowered for tag in (b"bold", b"-bd", b"black", b"heavy"))
        return self.fonts[address]

    def box(self, index: int) -> tuple[float, float, float, float]:
        """(left, right, bottom, top) of one character, in PDF points."""
        left, right, bottom, top = self._edges
        self.calls.FPDFText_GetCharBox(self.textpage, index, *self._refs)
        return left.value, right.value, bottom.value, top.value

    def line_box(self, start: int, line: str) -> tuple[float, float, float, float]:
        """The box of a (stripped) line from its first and last characters."""
        first, last = self.box(start), self.box(start + len(line) - 1)
        return first[0], last[1], min(first[2], last[2]), max(first[3], last[3])

    def split_in_cells(self, start: int, line: str) -> bool:
        """A wide gap between two words of the line (past a leading label such as ``(II)``):
        the line is cells of a table row that the text layer put on one line."""
        for gap in re.finditer(r"\s+", line):
            if markers.LEADING_LABEL.fullmatch(line[: gap.start()] + " "):
                continue
            space = self.box(start + gap.end())[0] - self.box(start + gap.start() - 1)[1]
            if space <= 0:  # no gap at all: the size is not needed
                continue
            size = round(self.size(start + gap.start() - 1), 2)
            if size > 0 and space > CELL_GAP * size:
                return True
        return False

    def line(self, start: int, line: str) -> LineStyle | None:
        """Style of the line's text (not its label): the character at 2/3 of it, where a
        numbered item's bold number or a heading's leading label never is. ``start``: the
        PDFium index of the line's first (non-blank) character."""
        k = int(len(line) * 2 / 3)
        while k < len(line) - 1 and line[k].isspace():
            k += 1
        if not 0 <= start + k < self.count or line[k].isspace():
            return None
        return self.style(start + k)


def vertical_rules(raw: object, page: object) -> list[tuple[float, float, float]]:
    """(x, bottom, top) of each vertical edge the page draws (a ruling line, a cell's or a
    shaded box's side), in PDF points: the column edges of a drawn table."""
    return [edge for _, _, obj in _Rules(raw, page).all_paths() for edge in _path_edges(raw, obj)]


_SLACK = 0.5  # points: PDFium's bounds are floats; a path's edge may end a rounding past them


class _Rules:
    """A page's drawn vertical edges, read for the lines that ask: only the paths whose
    bounds cross a line's whole height can hold an edge that does (:func:`in_grid` uses no
    other), so a candidate outside the page's tables costs a bounds test per path, and a
    path's segments are read once, when a line inside its bounds first asks.

    Why: reading every segment of every path of a page (a gridded table is a few hundred
    segments) cost as much as the page's text on a paper with a table every other page,
    while most of its candidates (the section titles) are nowhere near the table."""

    def __init__(self, raw: object, page: object, objects: Sequence[object] | None = None) -> None:
        """``objects``: the page's top-level path objects when the caller has them (the
        visible-text screen walks the page anyway); else they are looked up here."""
        self.raw, self.page, self.objects = raw, page, objects
        self.paths: list[tuple[float, float, object]] | None = None  # (bottom, top, path object)
        self.read: dict[int, list[tuple[float, float, float]]] = {}  # path's index -> its edges

    def all_paths(self) -> list[tuple[float, float, object]]:
        """The page's path objects, each with the bottom and top of its bounds."""
        if self.paths is None:
            raw, page = self.raw, self.page
            edges = [ctypes.c_float() for _ in range(4)]
            refs = [ctypes.byref(v) for v in edges]
            path_type, get_type, get, bounds = (
                raw.FPDF_PAGEOBJ_PATH,
                raw.FPDFPageObj_GetType,
                raw.FPDFPage_GetObject,
                raw.FPDFPageObj_GetBounds,
            )
            self.paths = []
            objects = self.objects
            if objects is None:
                objects = [get(page, n) for n in range(raw.FPDFPage_CountObjects(page))]
                objects = [obj for obj in objects if get_type(obj) == path_type]
            for obj in objects:
                if bounds(obj, *refs):  # left, bottom, right, top
                    self.paths.append((edges[1].value, edges[3].value, obj))
                else:  # no bounds: read it whenever asked
                    self.paths.append((float("-inf"), float("inf"), obj))
        return self.paths

    def crossing(self, bottom: float, top: float) -> list[tuple[float, float, float]]:
        """The edges of the paths whose bounds reach from ``bottom`` to ``top`` (each path's
        edges in drawing order, the paths in page order)."""
        rules: list[tuple[float, float, float]] = []
        for n, (low, high, obj) in enumerate(self.all_paths()):
            if low - _SLACK <= bottom and top <= high + _SLACK:
                if n not in self.read:
                    self.read[n] = _path_edges(self.raw, obj)
                rules += self.read[n]
        return rules


def _path_edges(raw: object, obj: object) -> list[tuple[float, float, float]]:
    """(x, bottom, top) of each vertical edge of one path object, in page space."""
    rules: list[tuple[float, float, float]] = []
    x, y = ctypes.c_float(), ctypes.c_float()
    m = raw.FS_MATRIX()
    if not raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
        m.a, m.b, m.c, m.d, m.e, m.f = 1.0, 0.0, 0.0, 1.0, 0.0, 0.0
    start = previous = None
    for k in range(raw.FPDFPath_CountSegments(obj)):
        seg = raw.FPDFPath_GetPathSegment(obj, k)
        if not seg or not raw.FPDFPathSegment_GetPoint(seg, x, y):
            continue
        point = (m.a * x.value + m.c * y.value + m.e, m.b * x.value + m.d * y.value + m.f)
        if raw.FPDFPathSegment_GetType(seg) == raw.FPDF_SEGMENT_MOVETO:
            start = previous = point
            continue
        ends = [(previous, point)] if previous else []
        if raw.FPDFPathSegment_GetClose(seg) and start:
            ends.append((point, start))
        for (x0, y0), (x1, y1) in ends:
            if abs(x0 - x1) <= RULE_TOLERANCE and abs(y0 - y1) > RULE_TOLERANCE:
                rules.append(((x0 + x1) / 2, min(y0, y1), max(y0, y1)))
        previous = start if raw.FPDFPathSegment_GetClose(seg) else point
    return rules


def in_grid(rules: list[tuple[float, float, float]], box: tuple[float, float, float, float]) -> bool:
    """Whether a line lies inside a drawn grid of two or more columns: edges crossing the
    line's whole height, with two or more spaces between them wide enough to hold text, and
    the line between the outermost. A title in a drawn box (one cell; a double or rounded
    frame's close edges hold no text), across a table's full width (the edges between its
    columns stop short of a spanning row), or over a short decoration is not inside one."""
    left, right, bottom, top = box
    height = top - bottom
    xs = sorted(x for x, lo, hi in rules if lo <= bottom + RULE_TOLERANCE and top - RULE_TOLERANCE <= hi)
    if not xs:
        return False
    edges = [x for n, x in enumerate(xs) if n == 0 or x - xs[n - 1] > RULE_TOLERANCE]
    columns = sum(b - a >= MIN_COLUMN * height for a, b in zip(edges, edges[1:]))
    return (
        columns >= GRID_COLUMNS and edges[0] - RULE_TOLERANCE <= left and right <= edges[-1] + RULE_TOLERANCE
    )


def page_samples(
    textpage: object,
    text: str,
    number: int,
    fonts: dict[int, bool] | None = None,
    page: object = None,
    paths: Sequence[object] | None = None,
) -> PageSamples:
    """Candidate lines of one PDFium text page (``text`` as ``get_text_range`` gave it, so a
    character's position in it is its PDFium index) with their style, and a few body lines'.
    ``fonts``: a cache shared by the pages of one document; ``page``: the raw page, whose
    drawn column edges say which candidate is a table's cell; ``paths``: its top-level path
    objects, when the caller has listed them (:attr:`visible.VisibleText.paths`)."""
    import pypdfium2.raw as raw

    reader = _Reader(raw, textpage, {} if fonts is None else fonts)
    row_cells = _RowCells(reader, _Rules(raw, page, paths) if page is not None else None)
    lines = [ln.strip() for ln in text.split("\r\n")]
    widths = [_width(ln) for ln in lines]
    full = max(widths, default=0)
    candidates: list[tuple[str, LineStyle]] = []
    rows: list[int] = []
    body: list[LineStyle] = []
    pos = 0
    opens = True  # the next line opens a block: page top, after a finished or short line
    for row, (raw_line, line, width) in enumerate(zip(text.split("\r\n"), lines, widths)):
        start, pos = pos, pos + len(raw_line) + 2
        if not width:
            opens = True
            continue
        start += len(raw_line) - len(raw_line.lstrip())
        row_cells.add(row, start, line, width)
        if opens and width < FULL_LINE * full and candidate_line(line):
            style = reader.line(start, line)
            if style:
                candidates.append((line, style))
                rows.append(row)
        elif (
            len(body) < BODY_SAMPLES_PER_PAGE and width > CANDIDATE_MAX_WIDTH // 2 and not line[:1].isdigit()
        ):
            style = reader.line(start, line)
            if style:
                body.append(style)
        opens = width < SHORT_LINE * full or line.rstrip(_CLOSERS)[-1:] in _ENDS
    kept = [
        k for k, row in enumerate(rows) if not row_cells.cell(row, SHORT_LINE * full)
    ]  # once every line's place is known
    return PageSamples(number, [candidates[k] for k in kept], body, [rows[k] for k in kept])


class _RowCells:
    """Whether a candidate line is a cell of a table row: cells the text layer put on one
    line (:meth:`_Reader.split_in_cells`), or a line with other text beside it at the same
    height (the next cell of its row: a heading has its line to itself), or a line inside a
    drawn grid of two or more columns (:func:`in_grid`: cells centred in their rows share no
    height, and wide columns put the next cell far off).

    Speed: the lines that could be a neighbouring cell (short, with letters, not a bare
    label) are listed once per page and found by bisection around each candidate; the lines'
    boxes are read only when a candidate asks, and the page's drawn edges only when a
    candidate is no cell by its text and neighbours, and then only those of the paths
    around it (:class:`_Rules`): most pages of a paper draw no grid, and most of their
    candidates never need it."""

    def __init__(self, reader: _Reader, rules: _Rules | None = None) -> None:
        self.reader = reader
        self.rules = rules  # the page's drawn edges, read for the candidates that ask
        self.lines: dict[int, tuple[int, str]] = {}  # row -> (PDFium index of its first char, text)
        self.widths: dict[int, int] = {}
        self.boxes: dict[int, tuple[float, float, float, float]] = {}
        self.neighbours: list[int] | None = None  # rows that may be another cell, in order

    def add(self, row: int, start: int, line: str, width: int) -> None:
        self.lines[row] = (start, line)
        self.widths[row] = width

    def _box(self, row: int) -> tuple[float, float, float, float]:
        if row not in self.boxes:
            self.boxes[row] = self.reader.line_box(*self.lines[row])
        return self.boxes[row]

    def _may_be_cell(self, short: float) -> list[int]:
        if self.neighbours is None:
            self.neighbours = [
                row
                for row, (_, text) in self.lines.items()
                if self.widths[row] < short
                and any(ch.isalpha() for ch in text)
                and not markers.LEADING_LABEL.fullmatch(text + " ")
            ]
        return self.neighbours

    def cell(self, row: int, short: float) -> bool:
        """``short``: the display width under which a line is no running text (a cell)."""
        start, line = self.lines[row]
        if self.reader.split_in_cells(start, line) or self._beside(row, start, short):
            return True
        if self.rules is None:
            return False
        box = self._box(row)
        rules = self.rules.crossing(box[2] + RULE_TOLERANCE, box[3] - RULE_TOLERANCE)
        return bool(rules) and in_grid(rules, box)

    def _beside(self, row: int, start: int, short: float) -> bool:
        """Another short line at the same height within reach: the next cell of its row."""
        near = self._may_be_cell(short)
        lo, hi = bisect.bisect_left(near, row - ROW_REACH), bisect.bisect_right(near, row + ROW_REACH)
        others = [other for other in near[lo:hi] if other != row]
        if not others:
            return False
        left, right, bottom, top = self._box(row)
        reach = CELL_REACH * round(self.reader.size(start), 2)
        for other in others:
            o_left, o_right, o_bottom, o_top = self._box(other)
            shared = min(top, o_top) - max(bottom, o_bottom)
            gap = o_left - right if o_left >= right else left - o_right if o_right <= left else -1.0
            if 0 <= gap <= reach and shared >= ROW_OVERLAP * min(top - bottom, o_top - o_bottom) > 0:
                return True
        return False


def _body_style(samples: list[PageSamples]) -> tuple[float, int]:
    """The running text's size and weight: the commonest among the long lines (or, in a
    paper of short lines only, among all lines)."""
    styles = [st for page in samples for st in page.body] or [
        st for page in samples for _, st in page.candidates
    ]
    if not styles:
        return 0.0, 400
    size = Counter(round(st.size / SIZE_STEP) * SIZE_STEP for st in styles).most_common(1)[0][0]
    weight = Counter(
        st.weight for st in styles if round(st.size / SIZE_STEP) * SIZE_STEP == size
    ).most_common(1)[0][0]
    return size, weight


def _apart(positions: list[int]) -> bool:
    """Lines of one style that are not one run of neighbouring lines (a title wrapped over
    lines is one run; questions set in bold between their answers are apart)."""
    return positions[-1] - positions[0] >= len(positions)


def _one_style_per_title(found: list[_Found]) -> list[_Found]:
    """The same title printed in styles a half point apart (the same weight) is one style:
    the one it is printed in most often (the first seen on a tie).

    Why: a guide prints its recurring subsection ``違例與罰則`` seventeen times at 12 points
    and twice at 12.48 (a scaled text matrix), which rounds to another half point; as a style
    of its own it ranked above its siblings and took the next subsections as its children.
    A half point is no level a reader sees, and the same words are the same heading; styles
    further apart, or only near in size, stay as they are."""
    styles: dict[str, Counter[_Style]] = {}
    for _, line, key, _ in found:
        styles.setdefault(line.strip(), Counter())[key] += 1
    common: dict[str, _Style] = {}
    for title, counts in styles.items():
        keys = list(counts)
        if len(keys) > 1 and len({bold for _, bold, _ in keys}) == 1:
            sizes = [size for size, _, _ in keys]
            if max(sizes) - min(sizes) <= SIZE_STEP:
                common[title] = counts.most_common(1)[0][0]
    return [(number, line, common.get(line.strip(), key), row) for number, line, key, row in found]


def _capitals(line: str) -> bool:
    """Every letter of the line a capital (at least :data:`CAPITALS_MIN_LETTERS` of them);
    a line with any lower-case or Chinese letter is not."""
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= CAPITALS_MIN_LETTERS and all(c.isascii() and c.isupper() for c in letters)


def _capitals_above(found: list[_Found]) -> list[_Found]:
    """In one type (size and weight), titles set in capitals rank above those in upper and
    lower case, when the type carries both and at least two different titles in capitals.

    Why: a guide prints ``STATUTORY HOLIDAYS`` and ``PAID ANNUAL LEAVE`` in the same 12 point
    bold as the subsections under them (``Holiday Pay``, ``Granting of Annual Leave``); the
    capitals are the only sign of the level, and a reader takes them as the higher one. One
    line in capitals alone may be an abbreviation or an accident of setting, so it changes
    nothing. An annex's heading (``Annex``, ``Appendix 2``, ``附件``) opens a part of the
    paper as its sections in capitals do (``PURPOSE`` … ``ADVICE SOUGHT``), whatever its
    case, so it ranks with them, never under the last of them."""
    capitals: dict[_Style, set[str]] = {}
    mixed: set[_Style] = set()
    for _, line, key, _ in found:
        if _capitals(line):
            capitals.setdefault(key, set()).add(line.strip())
        elif not markers.ANNEX_HEADING.match(line.strip()):
            mixed.add(key)
    raised = {key for key, titles in capitals.items() if len(titles) >= 2 and key in mixed}
    return [
        (number, line, (key[0], key[1], True) if key in raised and _ranks_as_capitals(line) else key, row)
        for number, line, key, row in found
    ]


def _ranks_as_capitals(line: str) -> bool:
    return _capitals(line) or bool(markers.ANNEX_HEADING.match(line.strip()))


def assign_levels(samples: list[PageSamples]) -> dict[int, list[list[object]]]:
    """Heading hints per page number: ``[line, level]`` for every candidate line set larger
    or bolder than the body; level 1 is the largest (then bold before plain) style.

    A style seen only on the first page is the cover's title, not a level of the outline,
    unless its lines there are apart (two topics of a two-page leaflet, with other lines
    between them; a title wrapped over lines is one run).
    """
    body_size, body_weight = _body_style(samples)
    if not body_size:
        return {}
    body_styles = [st.key(body_weight) for page in samples for st in page.body]
    body_bold = sum(bold for _, bold, _ in body_styles) * 2 > len(body_styles)  # bold says nothing then
    found: list[_Found] = []
    for page in samples:
        if page.number == TITLE_PAGE and not page.body and len(samples) > 2:
            continue  # a cover: no running text, its lines are the paper's title, not headings
        for n, (line, style) in enumerate(page.candidates):
            key = style.key(body_weight)
            size, bold, _ = key
            if size >= body_size * LARGER or (bold and not body_bold and size >= body_size - SIZE_STEP):
                found.append((page.number, line, key, page.rows[n]))
    found = _capitals_above(_one_style_per_title(found))
    titled: dict[_Style, set[int]] = {}
    first_page: dict[_Style, list[int]] = {}  # where on the title page each style is used
    for number, _, key, row in found:
        titled.setdefault(key, set()).add(number)
        if number == TITLE_PAGE:
            first_page.setdefault(key, []).append(row)
    kept = [key for key, pages in titled.items() if pages != {TITLE_PAGE} or _apart(first_page[key])]
    rank = {key: n + 1 for n, key in enumerate(sorted(kept, key=lambda k: (-k[0], not k[1], not k[2])))}
    hints: dict[int, list[list[object]]] = {}
    for number, line, key, _ in found:
        if key in rank:
            hints.setdefault(number, []).append([line, rank[key]])
    return hints
