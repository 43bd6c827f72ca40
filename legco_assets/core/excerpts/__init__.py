"""Stage 6, excerpts: for every chunk, the part of the original paper it came from with its
own text highlighted, a strategy's excerpts of a paper in one file that costs less than the
paper (a PDF's highlighted copy stored as an update of the stored paper, each chunk's
highlight an annotation naming it; an HTML page of a web page's or text paper's text, each
chunk's characters marked), and one chunk's excerpt cut from it on demand; where a chunk's
excerpt is as a path and as a URL. (`legco-assets serve` answers them over HTTP.)

Sits above chunking (it reads chunk records) and the artifact folder, below the pipeline.
Code outside this package imports only the names below."""

from __future__ import annotations

from .align import align, significant
from .check import held_ratio, held_share, shown_of, shown_text, shown_texts
from .increment import Highlight, pdf_increment
from .links import EXTENSIONS, chunk_link, excerpt_file, excerpt_kind, excerpt_url, link_bytes, split_link
from .make import ExcerptReport, chunk_body, cut_excerpt, manifest_file, write_excerpts
from .pdf import highlight_pages, highlighted_texts
from .stored import (
    ExcerptsOutcome,
    cut_chunk_excerpt,
    excerpt_folder,
    excerpt_source_kind,
    with_excerpt_paths,
)
from .text import CONTEXT_CHARS, html_page, marked_chunks, marked_html, marked_text

__all__ = [
    "CONTEXT_CHARS",
    "EXTENSIONS",
    "ExcerptReport",
    "ExcerptsOutcome",
    "Highlight",
    "align",
    "chunk_body",
    "chunk_link",
    "cut_chunk_excerpt",
    "cut_excerpt",
    "excerpt_file",
    "excerpt_folder",
    "excerpt_kind",
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
    "marked_text",
    "pdf_increment",
    "shown_of",
    "shown_text",
    "shown_texts",
    "significant",
    "split_link",
    "with_excerpt_paths",
    "write_excerpts",
]
