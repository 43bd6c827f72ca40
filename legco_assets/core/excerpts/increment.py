"""A strategy's highlights as a PDF incremental update of the stored paper.

Why an update and not a copy: a copy of the paper carries its fonts and images again (per
chunk, as excerpts were first stored: 817 MB of excerpts for 7.5 MB of papers). A PDF may be extended by
appending an *update section* (ISO 32000 §7.5.6): the changed objects, a cross-reference
section and a trailer whose ``/Prev`` points at the original's. So the stored paper plus the
update *is* the highlighted copy, and what a strategy stores is only the update: its
annotations and the page dictionaries that list them, a tenth of the paper or less.

Neither library writes just that: PDFium's incremental save re-writes every object it parsed
(a page's fonts, once its text is read: the paper again), and pypdf refuses incremental
writes of encrypted papers (three of the Labour Department's). pypdf reads the paper's
objects, serialises ours and encrypts their strings with the paper's key; this module only
lays out the section (objects, xref table, trailer).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

HIGHLIGHT_COLOR = (1.0, 0.886, 0.0)  # a marker pen's yellow
HIGHLIGHT_OPACITY = 0.43
AUTHOR = "legco-assets"  # /T of our annotations: what the readers and the cut look for
_STARTXREF = re.compile(rb"startxref\s+(\d+)")

Quad = tuple[float, float, float, float]  # left, top, right, bottom in PDF points


@dataclass
class Highlight:
    """One chunk's highlight on one page (0-based): a quadrilateral per line run."""

    page: int
    chunk_id: str
    quads: list[Quad] = field(default_factory=list)


def pdf_increment(source: bytes, highlights: list[Highlight]) -> bytes:
    """The bytes to append to ``source`` so that it carries ``highlights`` as Highlight
    annotations (``/Contents``: the chunk id, ``/T``: :data:`AUTHOR`), the paper's own
    annotations kept."""
    from pypdf import PdfReader
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, NameObject, NumberObject

    reader = PdfReader(io.BytesIO(source))
    if reader.is_encrypted:
        reader.decrypt("")
    trailer = reader.trailer
    next_number = int(trailer["/Size"])
    objects: dict[int, tuple[int, Any]] = {}  # number -> (generation, object)
    by_page: dict[int, list[Highlight]] = {}
    for highlight in highlights:
        if highlight.quads:
            by_page.setdefault(highlight.page, []).append(highlight)
    for index, marks in sorted(by_page.items()):
        page = reader.pages[index]
        ref = page.indirect_reference
        annots = ArrayObject(list(page["/Annots"])) if "/Annots" in page else ArrayObject()
        for mark in marks:
            objects[next_number] = (0, _annotation(mark, ref))
            annots.append(IndirectObject(next_number, 0, reader))
            next_number += 1
        copy = DictionaryObject(dict.items(page))
        copy[NameObject("/Annots")] = annots
        objects[ref.idnum] = (ref.generation, copy)
    tail = DictionaryObject(
        {
            NameObject("/Size"): NumberObject(next_number),
            NameObject("/Prev"): NumberObject(_startxref(source)),
        }
    )
    for key in ("/Root", "/Info", "/ID", "/Encrypt"):
        if key in trailer:
            tail[NameObject(key)] = dict.__getitem__(trailer, key)
    encryption = getattr(reader, "_encryption", None) if reader.is_encrypted else None
    return _section(len(source), objects, tail, encryption)


def _annotation(mark: Highlight, page_ref: Any) -> Any:
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        FloatObject,
        NameObject,
        NumberObject,
        TextStringObject,
    )

    def numbers(values: list[float]) -> Any:
        return ArrayObject(NumberObject(v) if v == int(v) else FloatObject(round(v, 2)) for v in values)

    quads = [
        v
        for left, top, right, bottom in mark.quads
        for v in (left, top, right, top, left, bottom, right, bottom)
    ]
    rect = [
        min(q[0] for q in mark.quads),
        min(q[3] for q in mark.quads),
        max(q[2] for q in mark.quads),
        max(q[1] for q in mark.quads),
    ]
    return DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Highlight"),
            NameObject("/F"): NumberObject(4),  # print
            NameObject("/P"): page_ref,
            NameObject("/Rect"): numbers(rect),
            NameObject("/QuadPoints"): numbers(quads),
            NameObject("/C"): numbers(list(HIGHLIGHT_COLOR)),
            NameObject("/CA"): FloatObject(HIGHLIGHT_OPACITY),
            NameObject("/Contents"): TextStringObject(mark.chunk_id),
            NameObject("/T"): TextStringObject(AUTHOR),
        }
    )


def _startxref(source: bytes) -> int:
    """Where the paper's last cross-reference section starts (its last ``startxref``)."""
    found = _STARTXREF.findall(source[-4096:]) or _STARTXREF.findall(source)
    if not found:
        raise ValueError("no startxref in the PDF")
    return int(found[-1])


def _section(offset: int, objects: dict[int, tuple[int, Any]], trailer: Any, encryption: Any) -> bytes:
    """The update section: each object, an xref table of its offsets (``offset``: where the
    section starts in the whole file), the trailer and ``startxref``."""
    out = io.BytesIO()
    out.write(b"\n")
    positions: dict[int, tuple[int, int]] = {}
    for number, (generation, obj) in sorted(objects.items()):
        if encryption is not None:
            obj = encryption.encrypt_object(obj, number, generation)
        positions[number] = (offset + out.tell(), generation)
        out.write(f"{number} {generation} obj\n".encode())
        obj.write_to_stream(out)
        out.write(b"\nendobj\n")
    xref = offset + out.tell()
    out.write(b"xref\n")
    for run in _runs(sorted(positions)):
        out.write(f"{run[0]} {len(run)}\n".encode())
        for number in run:
            position, generation = positions[number]
            out.write(f"{position:010d} {generation:05d} n\r\n".encode())
    out.write(b"trailer\n")
    trailer.write_to_stream(out)
    out.write(f"\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _runs(numbers: list[int]) -> list[list[int]]:
    """Sorted object numbers as runs of consecutive ones (an xref subsection each)."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and runs[-1][-1] + 1 == number:
            runs[-1].append(number)
        else:
            runs.append([number])
    return runs
