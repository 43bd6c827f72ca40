"""PDF excerpts: where a chunk's characters are on its pages, and the highlights read back.

pypdfium2 (PDFium), which already reads every paper here, AES-encrypted ones included, gives
each character's loose box; a chunk's highlight on a page is one quadrilateral per line run
of its characters (so the mark covers the line's height), written into the strategy's
update of the paper (:mod:`increment`). Reading the highlights back by chunk id
(:func:`highlighted_texts`) is what the ≥ 99% check measures; :func:`cut_pages` makes the
per-chunk PDF on demand (``PdfDocument.import_pages`` copies only those pages' resources).
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..read import normalise_chars_aligned, pdfium_page_chars, upright_textpage
from .align import IGNORED, significant
from .increment import AUTHOR, Highlight
from .quads import line_quads


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


def row_blocks(quads: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Fewer, larger quadrilaterals for a chunk's highlight on a page, so that a strategy's
    highlights of a paper cost a few bytes each: the runs of one row (a table's cells, a
    line) become one, then consecutive rows of the same left and right edges (a paragraph,
    a table) one block; the edges are rounded outwards to whole points."""
    rows: list[list[float]] = []
    for left, top, right, bottom in sorted(quads, key=lambda q: (-q[1], q[0])):
        if rows:
            r = rows[-1]
            if min(top, r[1]) - max(bottom, r[3]) >= 0.5 * min(top - bottom, r[1] - r[3]):
                r[0], r[1], r[2], r[3] = min(r[0], left), max(r[1], top), max(r[2], right), min(r[3], bottom)
                continue
        rows.append([left, top, right, bottom])
    blocks: list[list[float]] = []
    for left, top, right, bottom in rows:
        if blocks:
            b = blocks[-1]
            height = top - bottom
            if abs(b[0] - left) <= 2 and abs(b[2] - right) <= 2 and b[3] - top <= height:
                b[0], b[2], b[3] = min(b[0], left), max(b[2], right), bottom
                continue
        blocks.append([left, top, right, bottom])
    return [(math.floor(l), math.ceil(t), math.ceil(r), math.floor(b)) for l, t, r, b in blocks]


def chunk_highlights(source: PdfSource, marks: dict[int, list[int]], chunk_id: str) -> list[Highlight]:
    """A chunk's highlight on each page it marks: ``marks[page]`` are PDFium char indexes."""
    out = []
    for page in sorted(marks):
        quads = row_blocks(line_quads(source.boxes(page, marks[page])))
        if quads:
            out.append(Highlight(page, chunk_id, quads))
    return out


def cut_pages(data: bytes, chunk_id: str, pages: list[int], made: datetime, redact: bool = False) -> bytes:
    """A PDF of ``pages`` (0-based) of the highlighted copy ``data`` that keeps, of our
    highlights, only ``chunk_id``'s: the per-chunk excerpt, made on demand. Only those
    pages' resources are imported. The same copy gives the same bytes (:func:`settled`):
    ``made`` is when the copy's highlights were written. ``redact``: the pages' internal
    notes taken out (:mod:`.redact`), for readers who must not see them."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    source = pdfium.PdfDocument(data)
    out = pdfium.PdfDocument.new()
    try:
        out.import_pages(source, pages)
        for index in range(len(out)):
            page = out[index]
            for a in reversed(range(pdfium_c.FPDFPage_GetAnnotCount(page.raw))):
                annot = pdfium_c.FPDFPage_GetAnnot(page.raw, a)
                ours = _string(annot, b"T") == AUTHOR and _string(annot, b"Contents") != chunk_id
                pdfium_c.FPDFPage_CloseAnnot(annot)
                if ours:
                    pdfium_c.FPDFPage_RemoveAnnot(page.raw, a)
            page.close()
        if redact:
            from .redact import redact_internal_notes

            redact_internal_notes(out)
        buffer = io.BytesIO()
        out.save(buffer)
        return settled(buffer.getvalue(), hashlib.sha256(data + chunk_id.encode()).digest(), made)
    finally:
        out.close()
        source.close()


_CREATED = re.compile(rb"/CreationDate\(D:\d{14}[+-]\d\d'\d\d'\)")
_ID = re.compile(rb"/ID\s*\[<([0-9A-Fa-f]{32})><([0-9A-Fa-f]{32})>\]")


def settled(pdf: bytes, seed: bytes, made: datetime) -> bytes:
    """PDFium's new file with its two varying values made stable, each overwritten in place
    by one of the same length (the cross-reference offsets stay true): the creation date,
    now ``made``; the file identifier, random, now from ``seed``. So the ``excerpt`` command
    writes the bytes a link opens, and a cut is the same whenever it is made."""
    stamp = made.astimezone(UTC).strftime("D:%Y%m%d%H%M%S+00'00'").encode()
    pdf = _CREATED.sub(lambda _: b"/CreationDate(" + stamp + b")", pdf, count=1)
    ident = seed[:16].hex().upper().encode()
    return _ID.sub(lambda m: m.group(0).replace(m.group(1), ident).replace(m.group(2), ident), pdf, count=1)


def _string(annot: Any, key: bytes) -> str:
    """An annotation's text value (``/Contents``, ``/T``), or ``""``."""
    import pypdfium2.raw as pdfium_c

    size = pdfium_c.FPDFAnnot_GetStringValue(annot, key, None, 0)
    if size <= 2:
        return ""
    buffer = ctypes.create_string_buffer(size)
    pdfium_c.FPDFAnnot_GetStringValue(
        annot, key, ctypes.cast(buffer, ctypes.POINTER(pdfium_c.FPDF_WCHAR)), size
    )
    return buffer.raw[: size - 2].decode("utf-16-le", errors="replace")


def highlighted_texts(data: bytes) -> dict[str, str]:
    """For each chunk id our highlights name, the significant characters under its
    highlights, page by page in text order: a character counts when the centre of its box
    lies in one of the chunk's quadrilaterals. One pass over the pages for every chunk."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    pdf = pdfium.PdfDocument(data)
    found: dict[str, list[str]] = {}
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            rects = _highlight_rects(page)
            if rects:
                textpage = upright_textpage(page)
                chars = normalise_chars_aligned(pdfium_page_chars(textpage.raw))
                box = pdfium_c.FS_RECTF()
                centres: list[tuple[str, float, float]] = []
                for i, ch in enumerate(chars):
                    if ch.isspace() or ch in IGNORED:
                        continue
                    if pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, i, ctypes.byref(box)):
                        centres.append((ch, (box.left + box.right) / 2, (box.top + box.bottom) / 2))
                for chunk_id, boxes in rects.items():
                    found.setdefault(chunk_id, []).extend(
                        ch for ch, x, y in centres if any(l <= x <= r and b <= y <= t for l, t, r, b in boxes)
                    )
                textpage.close()
            page.close()
    finally:
        pdf.close()
    return {chunk_id: "".join(chars) for chunk_id, chars in found.items()}


def highlight_pages(data: bytes) -> dict[str, set[int]]:
    """The pages (1-based) each chunk id's highlight is on: the pages a chunk's own excerpt cuts."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    pages: dict[str, set[int]] = {}
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            for chunk_id in _highlight_rects(page):
                pages.setdefault(chunk_id, set()).add(index + 1)
            page.close()
    finally:
        pdf.close()
    return pages


def _highlight_rects(page: Any) -> dict[str, list[tuple[float, float, float, float]]]:
    """Our highlights' quadrilaterals on a page, by the chunk id they name."""
    import pypdfium2.raw as pdfium_c

    rects: dict[str, list[tuple[float, float, float, float]]] = {}
    for a in range(pdfium_c.FPDFPage_GetAnnotCount(page.raw)):
        annot = pdfium_c.FPDFPage_GetAnnot(page.raw, a)
        try:
            if (
                pdfium_c.FPDFAnnot_GetSubtype(annot) != pdfium_c.FPDF_ANNOT_HIGHLIGHT
                or _string(annot, b"T") != AUTHOR
            ):
                continue
            mine = rects.setdefault(_string(annot, b"Contents"), [])
            qp = pdfium_c.FS_QUADPOINTSF()
            for q in range(pdfium_c.FPDFAnnot_CountAttachmentPoints(annot)):
                if pdfium_c.FPDFAnnot_GetAttachmentPoints(annot, q, ctypes.byref(qp)):
                    xs, ys = (qp.x1, qp.x2, qp.x3, qp.x4), (qp.y1, qp.y2, qp.y3, qp.y4)
                    mine.append((min(xs), max(ys), max(xs), min(ys)))
        finally:
            pdfium_c.FPDFPage_CloseAnnot(annot)
    return rects
