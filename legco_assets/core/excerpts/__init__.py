"""Stage 6, excerpts: for every chunk, the part of the original paper it came from with its
own text highlighted, a strategy's excerpts of a paper in one file that costs less than the
paper (a PDF's highlighted copy stored as an update of the stored paper, each chunk's
highlight an annotation naming it; an HTML page of a web page's or text paper's text, each
chunk's characters marked), and one chunk's excerpt cut from it on demand, cached: what the
chunk's link (``chunk_file_path``, ``excerpt/<chunk id>`` below ``EXCERPTS_BASE_URL``)
opens, only its pages and only its highlight.

Sits above chunking (it reads chunk records) and the artifact folder, below the pipeline.
Code outside this package imports only the names below."""

from __future__ import annotations

from .align import align, significant
from .check import held_ratio, held_share, shown_in, shown_of, shown_text, shown_texts
from .increment import Highlight, pdf_increment
from .links import EXCERPT_PREFIX, EXTENSIONS, chunk_link, excerpt_file, excerpt_kind, excerpt_url, link_bytes
from .make import ExcerptReport, chunk_body, cut_excerpt, manifest_file, write_excerpts
from .pdf import highlight_pages, highlighted_texts
from .serve import excerpt_server
from .stored import (
    ExcerptsOutcome,
    cut_chunk_excerpt,
    excerpt_folder,
    excerpt_source_kind,
    with_excerpt_paths,
)
from .text import chunk_page, html_page, marked_chunks, marked_html, on_words

__all__ = [
    "EXCERPT_PREFIX",
    "EXTENSIONS",
    "ExcerptReport",
    "ExcerptsOutcome",
    "Highlight",
    "align",
    "chunk_body",
    "chunk_link",
    "chunk_page",
    "cut_chunk_excerpt",
    "cut_excerpt",
    "excerpt_file",
    "excerpt_folder",
    "excerpt_kind",
    "excerpt_server",
    "excerpt_source_kind",
    "excerpt_url",
    "held_ratio",
    "held_share",
    "highlight_pages",
    "highlighted_texts",
    "html_page",
    "link_bytes",
    "manifest_file",
    "marked_chunks",
    "marked_html",
    "on_words",
    "pdf_increment",
    "shown_in",
    "shown_of",
    "shown_text",
    "shown_texts",
    "significant",
    "with_excerpt_paths",
    "write_excerpts",
]
