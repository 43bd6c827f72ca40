"""Does an excerpt show its chunk? The highlighted (or marked) characters are read back from
the excerpt file and the chunk's own characters looked for in them, in order, the way they
were found in the source (:mod:`align`): Markdown table syntax and whitespace do not count,
nor the context lines the chunker writes above a chunk (:func:`make.chunk_body`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .align import align, significant
from .make import chunk_body
from .pdf import highlighted_text
from .text import marked_html, marked_text


def shown_text(path: Path) -> str:
    """The characters an excerpt marks: under its highlights (PDF), inside ``<mark>``
    (HTML), between the marker lines (text)."""
    if path.suffix == ".pdf":
        return highlighted_text(path.read_bytes())
    page = path.read_text(encoding="utf-8")
    return marked_html(page) if path.suffix == ".html" else marked_text(page)


def held_ratio(record: dict[str, Any], path: Path) -> float:
    """Share of the chunk's characters that the excerpt's marked characters hold."""
    needle, _ = significant(chunk_body(record))
    shown, _ = significant(shown_text(path))
    return align(needle, shown).ratio
