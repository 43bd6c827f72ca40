"""Which characters of a PDF page a reader sees: text printed outside the page's visible
area (its crop box) or drawn invisibly is in the text layer but not on the page.

Why: a word processor's template leaves placeholders beside the page (``香港_A--Cont 1–6``
at x ≈ 706 pt on a page 595 pt wide), and a 2-up spread carries the other half's page
number beyond its box; read as text they become chunks that nobody can find in the paper.
Such characters are dropped at reading and counted (``Page.off_page_chars``), so the
``page_text`` metadata says something was left out and why.

Invisible text (render mode 3) is dropped too, except over a picture that fills the page:
there it is a scan's OCR layer, the page's only readable text.

Speed: every page is screened first, and characters are looked at one by one only on a page
that the screen flags, so a paper whose text is all on its pages reads as fast as before:
PDFium says in four calls whether any character's box reaches beyond the box
(:func:`_reaches_off`), and one walk over the page's objects reads each text object's
render mode (:class:`_Screen`).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

from .pdfium_calls import bare_calls

INVISIBLE_MODE = 3  # PDF text render mode 3: neither filled nor stroked
SCAN_COVERAGE = 0.5  # an image over this share of the page makes invisible text an OCR layer
_EDGE = 1.0  # pt of slack at the box's edges: glyph boxes overhang by a hair


@dataclass(frozen=True)
class VisibleText:
    """A page's text with what a reader cannot see taken out.

    ``text``: the page's text without those characters (and without lines that held nothing
    else); ``aligned``: the page's text index for index with PDFium's characters, those
    characters blanked (the heading reader maps characters to their styles by index);
    ``dropped``: how many characters were left out; ``paths``: the page's top-level path
    objects (handles, valid while the page is open), which the screen's walk met anyway:
    the heading reader looks for a drawn grid among them without a walk of its own."""

    text: str
    aligned: str
    dropped: int
    paths: tuple[Any, ...] = field(default=(), compare=False, repr=False)


def visible_text(raw: Any, page: Any, textpage: Any, text: str) -> VisibleText:
    """``text`` (the text page's ``get_text_range``) as a reader sees it on ``page``."""
    crop = page.get_bbox()  # the crop box within the media box: what a viewer shows
    screen = _Screen(raw)
    calls = bare_calls()
    screen.walk(page.raw, calls.FPDFPage_CountObjects, calls.FPDFPage_GetObject)
    invisible = screen.invisible
    if invisible and _scanned(raw, page.raw, crop):
        invisible = set()  # a scan's OCR layer is meant to be read
    paths = tuple(screen.paths)
    if not invisible and not _reaches_off(raw, textpage, crop):
        return VisibleText(text, text, 0, paths)
    seen = _filtered(raw, textpage, crop, invisible)
    # a page the screen flagged that hides nothing after all reads as its text page says
    return (
        VisibleText(seen.text, seen.aligned, seen.dropped, paths)
        if seen.dropped
        else VisibleText(text, text, 0, paths)
    )


def _inside(x: float, y: float, crop: tuple[float, float, float, float]) -> bool:
    left, bottom, right, top = crop
    return left - _EDGE <= x <= right + _EDGE and bottom - _EDGE <= y <= top + _EDGE


# beyond any page: the far side of the four regions around the box (PDFium's rectangles are floats)
_FAR = 1e30


def _reaches_off(raw: Any, textpage: Any, crop: tuple[float, float, float, float]) -> bool:
    """Whether any character's box reaches past the box (with ``_EDGE`` of slack), asked of
    PDFium's text page for the four regions around it: the count of the text it finds
    there (``FPDFText_GetBoundedText`` without a buffer: the characters whose boxes meet
    the region) is 0 only when none does. A character whose centre is off the box has its
    box reaching there, so no page that :func:`_filtered` would change is missed; a glyph
    that merely overhangs the edge flags a page that then reads as its text page says.

    Why the text page: it holds every character's box already, so four calls answer what a
    bounds call per text object answered (a Hansard page holds ~140 text objects, a page of
    reportlab's CJK word-wrap ~160), about half of the screen's time."""
    left, bottom, right, top = crop
    regions = (
        (-_FAR, _FAR, left - _EDGE, -_FAR),  # left, top, right, bottom (PDF space, y up)
        (right + _EDGE, _FAR, _FAR, -_FAR),
        (-_FAR, bottom - _EDGE, _FAR, -_FAR),
        (-_FAR, _FAR, _FAR, top + _EDGE),
    )
    bounded = raw.FPDFText_GetBoundedText
    return any(bounded(textpage, *region, None, 0) > 0 for region in regions)


class _Screen:
    """One walk over a page's objects (inside form XObjects too): which text objects are
    drawn in render mode 3 (by address), and the page's top-level path objects.

    Each object costs a render-mode call (PDFium answers -1 for an object that is not text,
    so no type call is needed for text), made without ctypes' argument conversion
    (:mod:`.pdfium_calls`); whether text reaches off the page is asked of the text page
    instead (:func:`_reaches_off`). The screen only says which pages are read character by
    character; what is left out is decided there (:func:`_filtered`)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.invisible: set[int] = set()
        self.paths: list[Any] = []  # top-level path objects, in page order

    def walk(self, container: Any, count: Any, get: Any, nested: bool = False) -> None:
        """The hot loop (a Hansard page holds ~140 text objects, a reportlab page ~160):
        PDFium's functions bound to locals, no call of ours per object. ``nested``: inside
        a form, whose paths are not the page's own."""
        raw, calls = self.raw, bare_calls()
        get_mode, get_type, form_type = (
            calls.FPDFTextObj_GetTextRenderMode,
            calls.FPDFPageObj_GetType,
            raw.FPDF_PAGEOBJ_FORM,
        )
        path_type, paths = raw.FPDF_PAGEOBJ_PATH, (None if nested else self.paths)
        for i in range(count(container)):
            obj = get(container, i)
            mode = get_mode(obj)
            if mode == INVISIBLE_MODE:
                self.invisible.add(_address(obj))
            elif mode < 0:
                kind = get_type(obj)
                if kind == form_type:  # a form XObject: its objects for their modes
                    self.walk(obj, raw.FPDFFormObj_CountObjects, raw.FPDFFormObj_GetObject, True)
                elif kind == path_type and paths is not None:
                    paths.append(obj)


def _address(obj: Any) -> int:
    return ctypes.cast(obj, ctypes.c_void_p).value or 0


def _scanned(raw: Any, page: Any, crop: tuple[float, float, float, float]) -> bool:
    """A top-level image covers at least ``SCAN_COVERAGE`` of the crop box."""
    area = max((crop[2] - crop[0]) * (crop[3] - crop[1]), 1.0)
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    refs = (ctypes.byref(left), ctypes.byref(bottom), ctypes.byref(right), ctypes.byref(top))
    for i in range(raw.FPDFPage_CountObjects(page)):
        obj = raw.FPDFPage_GetObject(page, i)
        if raw.FPDFPageObj_GetType(obj) == raw.FPDF_PAGEOBJ_IMAGE and raw.FPDFPageObj_GetBounds(obj, *refs):
            width = min(right.value, crop[2]) - max(left.value, crop[0])
            height = min(top.value, crop[3]) - max(bottom.value, crop[1])
            if width > 0 and height > 0 and width * height >= SCAN_COVERAGE * area:
                return True
    return False


def _filtered(
    raw: Any, textpage: Any, crop: tuple[float, float, float, float], invisible: set[int]
) -> VisibleText:
    """Character by character, on a flagged page: a character whose box's centre is off the
    crop box, or whose text object is invisible, is left out; whitespace (PDFium's generated
    spaces and line breaks among it) is kept, and a line left blank is dropped whole."""
    chars = pdfium_page_chars(textpage)
    hidden = [False] * len(chars)
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    refs = (ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top))
    for i, char in enumerate(chars):
        if char.isspace():
            continue
        if invisible and _address(raw.FPDFText_GetTextObject(textpage, i)) in invisible:
            hidden[i] = True
        elif raw.FPDFText_GetCharBox(textpage, i, *refs):
            hidden[i] = not _inside((left.value + right.value) / 2, (bottom.value + top.value) / 2, crop)
    aligned = "".join(" " if h else c for c, h in zip(chars, hidden))
    return VisibleText(_kept_lines(chars, hidden), aligned, sum(hidden))


def _kept_lines(chars: str, hidden: list[bool]) -> str:
    """The page's lines without the hidden characters; a line that held nothing else goes,
    line break and all, so the lines around it read as if it had never been there."""
    kept: list[str] = []
    start = 0
    for line in chars.split("\r\n"):
        flags = hidden[start : start + len(line)]
        start += len(line) + 2
        if not any(flags):
            kept.append(line)
            continue
        text = "".join(c for c, h in zip(line, flags) if not h)
        if text.strip():
            kept.append(text.rstrip())
    return "\r\n".join(kept)


def pypdf_visible_text(page: Any) -> tuple[str, int]:
    """A pypdf page's text (the fallback reader's, for files PDFium refused) without the
    pieces drawn off its crop box or in render mode 3, and how many characters went. pypdf
    hands each piece with its text and current matrices, and the operators before it
    (``Tr`` sets the render mode, ``q``/``Q`` save and restore it)."""
    box = page.cropbox
    crop = (float(box.left), float(box.bottom), float(box.right), float(box.top))
    modes = [0]
    pieces: list[str] = []
    dropped = 0

    def before(operator: bytes, operands: Any, cm: Any, tm: Any) -> None:
        if operator == b"Tr" and operands:
            modes[-1] = int(operands[0])
        elif operator == b"q":
            modes.append(modes[-1])
        elif operator == b"Q" and len(modes) > 1:
            modes.pop()

    def visit(piece: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        nonlocal dropped
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        if piece.strip() and (modes[-1] == INVISIBLE_MODE or not _inside(x, y, crop)):
            dropped += len("".join(piece.split()))
            pieces.append("\n" * piece.count("\n"))
        else:
            pieces.append(piece)

    text = page.extract_text(visitor_operand_before=before, visitor_text=visit) or ""
    if not dropped:
        return text, 0
    lines = "".join(pieces).split("\n")
    return "\n".join(line for line in lines if line.strip() or not line), dropped


def pdfium_page_chars(textpage: Any) -> str:
    """Every character of a PDFium text page (its raw handle), index for index: char ``i``
    of the page is ``text[i]``, generated spaces and line breaks included, a NUL as a space.
    One PDFium call for the page (a call per character costs more than the rest of the
    page); per character only when the page has characters outside the BMP, which make the
    UTF-16 text longer. The tables' geometry and the excerpts map characters to boxes by it."""
    import ctypes

    import pypdfium2.raw as raw

    count = raw.FPDFText_CountChars(textpage)
    buffer = ctypes.create_string_buffer((count + 1) * 2)
    written = raw.FPDFText_GetText(textpage, 0, count, ctypes.cast(buffer, ctypes.POINTER(ctypes.c_ushort)))
    text = buffer.raw[: max(0, written - 1) * 2].decode("utf-16-le", errors="replace")
    if len(text) != count:
        text = "".join(chr(raw.FPDFText_GetUnicode(textpage, i)) for i in range(count))
    return text.replace("\x00", " ")
