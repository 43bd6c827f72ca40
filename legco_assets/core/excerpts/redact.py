"""Internal notes redacted from an excerpt's pages: their characters taken out of the PDF's
content (not covered: a box over text leaves the text selectable, copyable and indexed),
and a black box drawn where they were.

Why here and with PDFium only: an excerpt is a few pages of the stored paper, cut on demand
(:func:`.pdf.cut_pages`), and the search service gives it to readers who must not read the
notes (``SERVE_INTERNAL_REFS`` off). PDFium, which cuts the pages already, maps each
character to the page object that draws it (``FPDFText_GetTextObject``): a text object that
draws only note characters is removed; one that mixes a note with other text is removed and
its other characters drawn again, each as a text object of its own, with the same font,
size, matrix and colour at its own origin, so the page looks the same less the note. The
notes are found by the one definition the chunker uses (:func:`..structure.internal_note_spans`)
on the pages' text read in order, so a note running over a page break is found whole.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from typing import Any

from .. import markers
from ..structure import internal_note_spans
from .quads import line_quads


@dataclass
class _PageChars:
    """One page's characters as PDFium reads them (generated spaces and line breaks too)."""

    page: Any
    textpage: Any
    text: str
    notes: set[int] = field(default_factory=set)


def _page_chars(page: Any) -> _PageChars:
    import pypdfium2.raw as pdfium_c

    textpage = page.get_textpage()
    count = pdfium_c.FPDFText_CountChars(textpage.raw)
    # a line break is a space here: the notes' rule ends an unclosed note at a paragraph
    # break, which a PDF's text layer does not mark (an unclosed one ends with its page below)
    text = "".join(
        " " if ch in "\r\n" else ch
        for ch in (chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i) or 32) for i in range(count))
    )
    return _PageChars(page, textpage, text)


def _find_notes(pages: list[_PageChars]) -> None:
    """Mark each page's note characters (``notes``: char indexes on that page)."""
    joined = "\n".join(p.text for p in pages)
    if not markers.INTERNAL_REF.search(joined):
        return
    starts, pos = [], 0
    for p in pages:
        starts.append(pos)
        pos += len(p.text) + 1
    for start, end in internal_note_spans(joined):
        closed = bool(markers.BRACKET_CLOSE.match(joined[end - 1 : end]))
        for p, offset in zip(pages, starts):
            lo, hi = max(start, offset), min(end, offset + len(p.text))
            if lo < hi:
                p.notes.update(range(lo - offset, hi - offset))
                if not closed:  # an unclosed note ends with the page it starts on
                    break


def _handle(obj: Any) -> int:
    return ctypes.cast(obj, ctypes.c_void_p).value or 0


def _redraw(pdf: Any, page: Any, obj: Any, chars: list[tuple[str, float, float]]) -> None:
    """``chars`` (character, origin x, y) of text object ``obj`` drawn again, one text
    object each, as ``obj`` draws them."""
    import pypdfium2.raw as pdfium_c

    font = pdfium_c.FPDFTextObj_GetFont(obj)
    size = ctypes.c_float()
    pdfium_c.FPDFTextObj_GetFontSize(obj, ctypes.byref(size))
    matrix = pdfium_c.FS_MATRIX()
    pdfium_c.FPDFPageObj_GetMatrix(obj, ctypes.byref(matrix))
    colour = [ctypes.c_uint() for _ in range(4)]
    has_fill = pdfium_c.FPDFPageObj_GetFillColor(obj, *(ctypes.byref(c) for c in colour))
    mode = pdfium_c.FPDFTextObj_GetTextRenderMode(obj)
    for ch, x, y in chars:
        new = pdfium_c.FPDFPageObj_CreateTextObj(pdf.raw, font, size.value)
        if not new:
            continue
        encoded = (ch + "\0").encode("utf-16-le")
        buffer = ctypes.create_string_buffer(encoded, len(encoded))
        pdfium_c.FPDFText_SetText(new, ctypes.cast(buffer, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
        placed = pdfium_c.FS_MATRIX(matrix.a, matrix.b, matrix.c, matrix.d, x, y)
        pdfium_c.FPDFPageObj_SetMatrix(new, ctypes.byref(placed))
        if has_fill:
            pdfium_c.FPDFPageObj_SetFillColor(new, *(c.value for c in colour))
        if mode >= 0:
            pdfium_c.FPDFTextObj_SetTextRenderMode(new, mode)
        pdfium_c.FPDFPage_InsertObject(page.raw, new)


def _redact_page(pdf: Any, chars: _PageChars) -> int:
    """Take the page's note characters out of its content and box where they were; the
    number of characters taken out."""
    import pypdfium2.raw as pdfium_c

    tp, page = chars.textpage.raw, chars.page
    objects: dict[int, Any] = {}
    members: dict[int, list[int]] = {}
    for i in range(len(chars.text)):
        obj = pdfium_c.FPDFText_GetTextObject(tp, i)
        if obj:
            objects[_handle(obj)] = obj
            members.setdefault(_handle(obj), []).append(i)
    boxes = []
    rect = pdfium_c.FS_RECTF()
    for i in sorted(chars.notes):
        if pdfium_c.FPDFText_GetLooseCharBox(tp, i, ctypes.byref(rect)) and rect.right > rect.left:
            boxes.append((rect.left, rect.top, rect.right, rect.bottom))
    removed = 0
    for handle, indexes in members.items():
        hidden = [i for i in indexes if i in chars.notes]
        if not hidden:
            continue
        kept = []
        for i in indexes:
            if i in chars.notes or chars.text[i].isspace():
                continue
            x, y = ctypes.c_double(), ctypes.c_double()
            pdfium_c.FPDFText_GetCharOrigin(tp, i, ctypes.byref(x), ctypes.byref(y))
            kept.append((chars.text[i], x.value, y.value))
        obj = objects[handle]
        if kept:
            _redraw(pdf, page, obj, kept)
        if pdfium_c.FPDFPage_RemoveObject(page.raw, obj):
            pdfium_c.FPDFPageObj_Destroy(obj)
            removed += len(hidden)
    for left, top, right, bottom in line_quads(boxes):
        box = pdfium_c.FPDFPageObj_CreateNewRect(left, bottom, right - left, top - bottom)
        pdfium_c.FPDFPageObj_SetFillColor(box, 0, 0, 0, 255)
        pdfium_c.FPDFPath_SetDrawMode(box, pdfium_c.FPDF_FILLMODE_WINDING, 0)
        pdfium_c.FPDFPage_InsertObject(page.raw, box)
    pdfium_c.FPDFPage_GenerateContent(page.raw)
    return removed


def redact_internal_notes(pdf: Any) -> int:
    """Redact every internal note on the pages of ``pdf`` (an open pypdfium2 document, the
    excerpt being cut); the number of characters taken out."""
    pages = [_page_chars(pdf[index]) for index in range(len(pdf))]
    try:
        _find_notes(pages)
        return sum(_redact_page(pdf, p) for p in pages if p.notes)
    finally:
        for p in pages:
            p.textpage.close()
            p.page.close()
