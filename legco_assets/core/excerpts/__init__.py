"""Stage 6, excerpts: for every chunk, the part of the original paper it came from with its
own text highlighted (PDF pages with a highlight annotation, an HTML page with ``<mark>``,
a text excerpt), so a reader can check a chunk, or a cited answer, against the source.

Sits above chunking (it reads chunk records) and below the pipeline.
Code outside this package imports only the names below."""

from __future__ import annotations

from .align import align, significant
from .check import held_ratio, shown_text
from .make import EXTENSIONS, MANIFEST, ExcerptReport, chunk_body, excerpt_file, excerpt_kind, write_excerpts
from .pdf import highlighted_text
from .text import CONTEXT_CHARS, marked_html, marked_text

__all__ = [
    "CONTEXT_CHARS",
    "EXTENSIONS",
    "MANIFEST",
    "ExcerptReport",
    "align",
    "chunk_body",
    "excerpt_file",
    "excerpt_kind",
    "held_ratio",
    "highlighted_text",
    "marked_html",
    "marked_text",
    "shown_text",
    "significant",
    "write_excerpts",
]
