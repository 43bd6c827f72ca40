"""Does an excerpt show its chunk? The highlighted (or marked) characters are read back from
the strategy's excerpt file, by the chunk they name, and the chunk's own characters looked
for in them, in order, the way they were found in the source (:mod:`align`): Markdown table
syntax and whitespace do not count, nor the context lines the chunker writes above a chunk
(:func:`make.chunk_body`)."""

from __future__ import annotations

from pathlib import Path

from ..records import ChunkRecord
from .align import align, significant
from .links import link_bytes, split_link
from .make import chunk_body
from .pdf import highlighted_texts
from .text import marked_chunks, marked_html, marked_text


def shown_texts(path: Path) -> dict[str, str]:
    """The characters each chunk's highlight marks in a strategy's excerpt file, by chunk
    id (PDF: the annotations' ``/Contents``) or ``chunk-<index>`` (HTML page)."""
    data = link_bytes(path)
    if path.suffix == ".pdf":
        return highlighted_texts(data)
    return {f"chunk-{index}": text for index, text in marked_chunks(data.decode("utf-8")).items()}


def shown_text(path: Path) -> str:
    """The characters a cut excerpt (one chunk's, from the ``excerpt`` command) marks: under
    its highlights (PDF), inside ``<mark>`` (HTML), between the marker lines (text)."""
    if path.suffix == ".pdf":
        return "".join(highlighted_texts(path.read_bytes()).values())
    page = path.read_text(encoding="utf-8")
    return marked_html(page) if path.suffix == ".html" else marked_text(page)


def shown_of(record: ChunkRecord, texts: dict[str, str]) -> str:
    """A chunk's marked characters among :func:`shown_texts` of its file."""
    return texts.get(record.id) or texts.get(f"chunk-{record.metadata.chunk_index}", "")


def held_share(record: ChunkRecord, shown: str) -> float:
    """Share of the chunk's characters that ``shown`` (its marked characters) holds."""
    needle, _ = significant(chunk_body(record))
    hay, _ = significant(shown)
    return align(needle, hay).ratio


def held_ratio(record: ChunkRecord, link: str | Path | None = None) -> float:
    """Share of the chunk's characters its excerpt marks: ``link`` a cut excerpt's file,
    else the record's ``chunk_file_path``."""
    if link is not None and "#" not in str(link):
        return held_share(record, shown_text(Path(link)))
    path, _ = split_link(str(link or record.metadata.chunk_file_path))
    return held_share(record, shown_of(record, shown_texts(path)))
