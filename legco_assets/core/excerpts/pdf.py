"""PDF excerpts: a chunk's pages imported into a new document, its characters highlighted.

One library does all of it, pypdfium2 (PDFium), which already reads every paper here,
AES-encrypted ones included: ``PdfDocument.import_pages`` copies the pages with their
resources, and a ``Highlight`` annotation per page carries one quadrilateral per line of the
chunk's characters (their loose boxes, so the mark covers the line's height). Reading the
highlights back (:func:`highlighted_text`) is what the ≥ 99% check measures.
"""

from __future__ import annotations

import ctypes
import io
from dataclasses import dataclass, field
from typing import Any

from ..read import normalise_chars_aligned, pdfium_page_chars, upright_textpage
from .align import IGNORED, significant

HIGHLIGHT_RGBA = (255, 226, 0, 110)  # a marker pen's yellow, translucent


@dataclass
class PdfText:
    """Every significant character of a PDF in text order: ``text``, and for each of its
    characters the page (0-based) and PDFium char index it came from."""

    text: str
    page_of: list[int]
    char_of: list[int]
    page_starts: list[int] = field(default_factory=list)  # offset in ``text`` where each page starts

    def page_span(self, first: int, last: int) -> tuple[int, int]:
        """[start, end) of 1-based pages ``first``..``last`` in ``text``."""
        count = len(self.page_starts)
        start = self.page_starts[min(max(first, 1), count) - 1]
        end = self.page_starts[last] if last < count else len(self.text)
        return start, end


class PdfSource:
    """The source PDF opened once for all of a strategy's excerpts."""

    def __init__(self, data: bytes):
        import pypdfium2 as pdfium

        self.pdf = pdfium.PdfDocument(data)
        self._textpages: dict[int, Any] = {}
        self._pages: dict[int, Any] = {}
        self.text = self._read_text()

    def page(self, index: int) -> Any:
        self.textpage(index)
        return self._pages[index]

    def textpage(self, index: int) -> Any:
        if index not in self._textpages:
            self._pages[index] = self.pdf[index]
            self._textpages[index] = upright_textpage(self._pages[index])
        return self._textpages[index]

    def _read_text(self) -> PdfText:
        chars: list[str] = []
        page_of: list[int] = []
        char_of: list[int] = []
        starts: list[int] = []
        for index in range(len(self.pdf)):
            starts.append(len(page_of))
            kept, offsets = significant(pdfium_page_chars(self.textpage(index).raw))
            chars.append(kept)
            page_of.extend([index] * len(kept))
            char_of.extend(offsets)
        return PdfText("".join(chars), page_of, char_of, starts)

    def boxes(self, page: int, char_indexes: list[int]) -> list[tuple[float, float, float, float]]:
        """Loose boxes (left, top, right, bottom in PDF points) of chars on a page."""
        import pypdfium2.raw as pdfium_c

        textpage = self.textpage(page).raw
        rect = pdfium_c.FS_RECTF()
        out = []
        for i in char_indexes:
            if pdfium_c.FPDFText_GetLooseCharBox(textpage, i, ctypes.byref(rect)) and rect.right > rect.left:
                out.append((rect.left, rect.top, rect.right, rect.bottom))
        return out

    def close(self) -> None:
        for textpage in self._textpages.values():
            textpage.close()
        for page in self._pages.values():
            page.close()
        self.pdf.close()


def line_quads(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Consecutive character boxes merged into one rectangle per run on a line: a box joins
    the current run when it overlaps it vertically by half its height and starts not far
    left of (or too far right of) the run's end."""
    quads: list[list[float]] = []
    for left, top, right, bottom in boxes:
        if quads:
            q = quads[-1]
            height = max(top - bottom, 1.0)
            overlap = min(top, q[1]) - max(bottom, q[3])
            if overlap >= 0.5 * min(height, q[1] - q[3] or 1.0) and q[2] - height <= left <= q[2] + 3 * height:
                q[1], q[2], q[3] = max(q[1], top), max(q[2], right), min(q[3], bottom)
                continue
        quads.append([left, top, right, bottom])
    return [(q[0], q[1], q[2], q[3]) for q in quads]


def _wide(text: str) -> Any:
    return ctypes.create_string_buffer((text + "\0").encode("utf-16-le"))


def _add_highlight(page: Any, quads: list[tuple[float, float, float, float]], note: str) -> None:
    import pypdfium2.raw as pdfium_c

    annot = pdfium_c.FPDFPage_CreateAnnot(page.raw, pdfium_c.FPDF_ANNOT_HIGHLIGHT)
    try:
        pdfium_c.FPDFAnnot_SetColor(annot, pdfium_c.FPDFANNOT_COLORTYPE_Color, *HIGHLIGHT_RGBA)
        for left, top, right, bottom in quads:
            qp = pdfium_c.FS_QUADPOINTSF(left, top, right, top, left, bottom, right, bottom)
            pdfium_c.FPDFAnnot_AppendAttachmentPoints(annot, ctypes.byref(qp))
        rect = pdfium_c.FS_RECTF(
            min(q[0] for q in quads), max(q[1] for q in quads), max(q[2] for q in quads), min(q[3] for q in quads)
        )
        pdfium_c.FPDFAnnot_SetRect(annot, ctypes.byref(rect))
        pdfium_c.FPDFAnnot_SetStringValue(annot, b"Contents", ctypes.cast(_wide(note), pdfium_c.FPDF_WIDESTRING))
        pdfium_c.FPDFAnnot_SetStringValue(annot, b"T", ctypes.cast(_wide("legco-assets"), pdfium_c.FPDF_WIDESTRING))
    finally:
        pdfium_c.FPDFPage_CloseAnnot(annot)


def pdf_excerpt(source: PdfSource, pages: list[int], marks: dict[int, list[int]], note: str) -> bytes:
    """A new PDF of ``pages`` (0-based, in order) with the chars ``marks[page]`` highlighted.

    The highlight is added to the source's page, already loaded for its text, and goes with
    it when the page is imported; then it is taken off again. Loading the imported copy to
    annotate it instead would parse each page's content a second time (9 ms a page for a
    Hansard: most of the cost)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    annotated = []
    out = pdfium.PdfDocument.new()
    try:
        for index in pages:
            quads = line_quads(source.boxes(index, marks.get(index, [])))
            if quads:
                _add_highlight(source.page(index), quads, note)
                annotated.append(source.page(index))
        out.import_pages(source.pdf, pages)
        buffer = io.BytesIO()
        out.save(buffer)
        return buffer.getvalue()
    finally:
        for page in annotated:  # ours is the last annotation of the page
            pdfium_c.FPDFPage_RemoveAnnot(page.raw, pdfium_c.FPDFPage_GetAnnotCount(page.raw) - 1)
        out.close()


def highlighted_text(data: bytes) -> str:
    """The significant characters under the highlight annotations of a PDF, page by page
    in text order: a character counts when the centre of its box lies in a quadrilateral."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    pdf = pdfium.PdfDocument(data)
    found: list[str] = []
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            rects = _highlight_rects(page)
            if rects:
                textpage = upright_textpage(page)
                chars = normalise_chars_aligned(pdfium_page_chars(textpage.raw))
                box = pdfium_c.FS_RECTF()
                for i, ch in enumerate(chars):
                    if ch.isspace() or ch in IGNORED:
                        continue
                    if not pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, i, ctypes.byref(box)):
                        continue
                    x, y = (box.left + box.right) / 2, (box.top + box.bottom) / 2
                    if any(l <= x <= r and b <= y <= t for l, t, r, b in rects):
                        found.append(ch)
                textpage.close()
            page.close()
    finally:
        pdf.close()
    return "".join(found)


def _highlight_rects(page: Any) -> list[tuple[float, float, float, float]]:
    import pypdfium2.raw as pdfium_c

    rects = []
    for a in range(pdfium_c.FPDFPage_GetAnnotCount(page.raw)):
        annot = pdfium_c.FPDFPage_GetAnnot(page.raw, a)
        try:
            if pdfium_c.FPDFAnnot_GetSubtype(annot) != pdfium_c.FPDF_ANNOT_HIGHLIGHT:
                continue
            qp = pdfium_c.FS_QUADPOINTSF()
            for q in range(pdfium_c.FPDFAnnot_CountAttachmentPoints(annot)):
                if pdfium_c.FPDFAnnot_GetAttachmentPoints(annot, q, ctypes.byref(qp)):
                    xs, ys = (qp.x1, qp.x2, qp.x3, qp.x4), (qp.y1, qp.y2, qp.y3, qp.y4)
                    rects.append((min(xs), max(ys), max(xs), min(ys)))
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annot)
    return rects
