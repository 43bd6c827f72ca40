"""Does an excerpt show its chunk? The highlighted (or marked) characters are read back from
the strategy's excerpt file, by the chunk they name, or from one chunk's cut excerpt, and the
chunk's own characters looked for in them, in order, the way they were found in the source
(:mod:`align`): Markdown table syntax and whitespace do not count, nor the context lines the
chunker writes above a chunk (:func:`make.chunk_body`)."""

from __future__ import annotations

from pathlib import Path

from ..records import ChunkRecord
from .align import align, significant
from .links import link_bytes
from .make import chunk_body
from .pdf import highlighted_texts
from .text import marked_chunks, marked_html


def shown_texts(path: Path) -> dict[str, str]:
    """The characters each chunk's highlight marks in a strategy's excerpt file, by chunk
    id (PDF: the annotations' ``/Contents``) or ``chunk-<index>`` (HTML page)."""
    data = link_bytes(path)
    if path.suffix == ".pdf":
        return highlighted_texts(data)
    return {f"chunk-{index}": text for index, text in marked_chunks(data.decode("utf-8")).items()}


def shown_in(data: bytes, extension: str) -> str:
    """The characters one chunk's cut excerpt (what its link opens) marks: under its
    highlights (``pdf``), inside ``<mark>`` (``html``)."""
    if extension == "pdf":
        return "".join(highlighted_texts(data).values())
    return marked_html(data.decode("utf-8"))


def shown_text(path: Path) -> str:
    """:func:`shown_in` of a cut excerpt written to ``path`` (the ``excerpt`` command's)."""
    return shown_in(path.read_bytes(), path.suffix.lstrip("."))


def shown_of(record: ChunkRecord, texts: dict[str, str]) -> str:
    """A chunk's marked characters among :func:`shown_texts` of its file."""
    return texts.get(record.id) or texts.get(f"chunk-{record.metadata.chunk_index}", "")


def held_share(record: ChunkRecord, shown: str) -> float:
    """Share of the chunk's characters that ``shown`` (its marked characters) holds."""
    needle, _ = significant(chunk_body(record))
    hay, _ = significant(shown)
    return align(needle, hay).ratio


def held_ratio(record: ChunkRecord, cut: Path) -> float:
    """Share of the chunk's characters its cut excerpt, written to ``cut``, marks."""
    return held_share(record, shown_text(cut))
