"""The typed tables a token window overlaps, and the header of the first, kept beside the
window's text rather than in it.

Why: the token strategy's windows are the plain windows of the specification (repeating a
table's header inside them cost held-out questions: see :class:`.TokenChunkingStrategy`), so
a window that starts in a table's rows holds numbers under no column names, and nothing in
its text says which table they belong to. The window's metadata says it instead:
``table_ids`` (``<document_id>:table:<n>``, the typed tables ``page_tables`` writes, in the
order the window meets them) and ``table_header`` (the first one's header row and separator
as the Markdown prints them: ``table_header + "\\n" + text`` reads as a table when the text
starts at a row). The indexed text stays byte for byte what it was.

Where each table lies comes from the weave itself (:func:`.tables.weave_pages_placed`), not
from matching text: a window holding only rows has no header line to match.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..records import Chunk, DocumentText, Page
from ..tables import table_id


@dataclass(frozen=True)
class TablePlace:
    """One Markdown table's span in the document's joined text, and whose it is."""

    start: int  # its header row's first character
    end: int  # just after its last row
    table_id: str
    header: str  # its header row and separator, as printed


def table_places(
    document_id: str,
    doc: DocumentText,
    pages: list[Page],
    placed: dict[int, list[tuple[int, int, int]]],
) -> list[TablePlace]:
    """The woven tables' spans in ``doc.text`` (joined from ``pages``, in their order), from
    the weave's spans in each page's text (``(start, end, number)`` by page number)."""
    out: list[TablePlace] = []
    for page, page_start in zip(pages, doc.page_starts, strict=True):
        for start, end, number in placed.get(page.number, []):
            at, until = page_start + start, page_start + end
            header = "\n".join(doc.text[at:until].split("\n", 2)[:2])
            out.append(TablePlace(at, until, table_id(document_id, number), header))
    return sorted(out, key=lambda p: p.start)


def mark_window_tables(chunks: list[Chunk], places: list[TablePlace]) -> list[Chunk]:
    """Set ``table_ids`` and ``table_header`` on each window whose span
    (``char_start``..``char_end``) overlaps a table; the others keep neither (absent, not
    empty). The text is not touched."""
    if not places:
        return chunks
    for chunk in chunks:
        if chunk.char_start is None or chunk.char_end is None:
            continue
        held = [p for p in places if p.start < chunk.char_end and chunk.char_start < p.end]
        if not held:
            continue
        chunk.table_ids = list(dict.fromkeys(p.table_id for p in held))
        chunk.table_header = held[0].header
    return chunks
