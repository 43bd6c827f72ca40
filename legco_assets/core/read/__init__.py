"""Stage 1, read: a paper's bytes into pages of text (PDF through pypdfium2, HTML, DOCX,
text), page furniture cleaned away, heading hints from the typography, scanned pages
transcribed by a vision LLM when one is configured.

Code outside this package imports only the names below."""

from __future__ import annotations

from .extract import (
    SUPPORTED_SUFFIXES,
    PendingDocument,
    SourceBytes,
    document_kind,
    extract_document,
    pdf_page_count,
    read_source,
    render_page_png,
    start_extract,
    upright_textpage,
)
from .headings import starts_lower
from .html_reader import read_html
from .paper import (
    MIN_TEXT_CHARS_PER_PAGE,
    detect_language,
    guess_title,
    readable_pages,
    require_text,
    text_pages,
)
from .preprocess import (
    Furniture,
    clean_pages,
    clean_text,
    is_furniture,
    normalise_chars,
    normalise_chars_aligned,
    page_furniture,
)
from .transcribe import (
    NO_TEXT,
    merged_raw,
    reply_text,
    scanned_pages,
    transcribe_scanned,
)
from .visible import pdfium_page_chars

__all__ = [
    "Furniture",
    "MIN_TEXT_CHARS_PER_PAGE",
    "NO_TEXT",
    "PendingDocument",
    "SUPPORTED_SUFFIXES",
    "SourceBytes",
    "clean_pages",
    "clean_text",
    "detect_language",
    "document_kind",
    "extract_document",
    "guess_title",
    "is_furniture",
    "merged_raw",
    "normalise_chars",
    "normalise_chars_aligned",
    "page_furniture",
    "pdf_page_count",
    "pdfium_page_chars",
    "read_html",
    "read_source",
    "readable_pages",
    "render_page_png",
    "start_extract",
    "reply_text",
    "require_text",
    "scanned_pages",
    "starts_lower",
    "text_pages",
    "transcribe_scanned",
    "upright_textpage",
]
