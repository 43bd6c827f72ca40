"""Where a chunk's internal notes lie, and a chunk's text with them withheld.

Standby Q&A papers carry bracketed notes meant for officials only (``[Internal reference: …
should not be disclosed before the Panel meeting.]``, ``[內部參考：…]``). The chunks keep them
(``QA_INCLUDE_INTERNAL_REFS``: an operator searching the papers wants them), so each chunk
records where they are (``internal_spans``, ``has_internal_refs``), and the search service,
which answers people who must not read them, replaces those spans before any text leaves it
(:func:`withheld_record`). Both strategies mark their chunks here, after cutting them, from
the one definition of a note (:func:`..structure.internal_note_spans`).
"""

from __future__ import annotations

from dataclasses import replace

from .. import markers
from ..records import Chunk, ChunkRecord, DocumentText
from ..structure import internal_note_spans

WITHHELD = "[internal reference withheld]"  # what the service shows in a note's place
LEAD_CHARS = 40  # how much of a note's tail, as the document has it, finds it in a chunk


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        elif end > start:
            out.append([start, end])
    return [(s, e) for s, e in out]


def _tail_span(text: str, tail: str) -> tuple[int, int] | None:
    """The span of a note's tail (a note opened before the chunk starts, as a token window
    that begins inside one) in ``text``: from where its first characters appear to its
    closing bracket, else to the end of the paragraph."""
    tail = tail.strip()
    if not tail:
        return None
    lead = tail.split("\n", 1)[0][:LEAD_CHARS]
    start = text.find(lead)
    if start < 0:
        return None
    if text.startswith(tail, start):
        return start, start + len(tail)
    close = markers.BRACKET_CLOSE.search(text, start)
    paragraph_end = text.find("\n\n", start)
    paragraph_end = len(text) if paragraph_end < 0 else paragraph_end
    return start, close.end() if close and close.start() < paragraph_end else paragraph_end


def mark_internal_notes(chunks: list[Chunk], doc: DocumentText) -> list[Chunk]:
    """Set ``internal_spans`` (``[start, end)`` of each note in the chunk's text) and
    ``has_internal_refs`` on the chunks that hold a note or part of one; the others keep
    None (their records carry neither key). ``doc`` is the text the chunks were cut from:
    a chunk whose span starts inside a note (``char_start``) gets the note's tail too."""
    notes = internal_note_spans(doc.text) if markers.INTERNAL_REF.search(doc.text) else []
    for chunk in chunks:
        spans = internal_note_spans(chunk.text)
        start = chunk.char_start
        for note_start, note_end in notes if start is not None else []:
            if note_start < start < note_end:  # type: ignore[operator]
                tail = _tail_span(chunk.text, doc.text[start:note_end])
                if tail:
                    spans.append(tail)
        spans = _merged(spans)
        if spans:
            chunk.internal_spans = [[s, e] for s, e in spans]
            chunk.has_internal_refs = True
    return chunks


def withheld(text: str, spans: list[list[int]] | None, marker: str = WITHHELD) -> str:
    """``text`` with each span replaced by ``marker``."""
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in sorted((int(s), int(e)) for s, e in spans):
        if start < pos:
            start = pos
        out.append(text[pos:start])
        if end > start:
            out.append(marker)
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


def withheld_record(record: ChunkRecord) -> ChunkRecord:
    """The record as the service gives it out: its notes replaced by :data:`WITHHELD`
    (its spans then index the original text, so they go too; the flag stays)."""
    spans = record.metadata.internal_spans
    if not spans:
        return record
    return replace(
        record,
        text=withheld(record.text, spans),
        metadata=replace(record.metadata, internal_spans=None),
    )
