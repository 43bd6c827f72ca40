"""Stage 1, read: a paper's bytes into pages of text (PDF through pypdfium2, HTML, DOCX,
text), page furniture cleaned away, heading hints from the typography, scanned pages
transcribed by a vision LLM when one is configured.

Code outside this package imports only the names below. Those of :mod:`.paper` and
:mod:`.transcribe` are loaded when first asked for: both reach the settings and the LLM
client (pydantic, a fifth of a second), which ``legco-assets chunk`` must not wait for before
it starts reading a long PDF (:func:`start_extract`)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

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
from .pdfium_calls import bare_calls
from .preprocess import (
    Furniture,
    clean_pages,
    clean_text,
    is_furniture,
    normalise_chars,
    normalise_chars_aligned,
    page_furniture,
)
from .visible import pdfium_page_chars

if TYPE_CHECKING:
    from .paper import (
        MIN_TEXT_CHARS_PER_PAGE,
        detect_language,
        guess_title,
        readable_pages,
        require_text,
        text_pages,
    )
    from .transcribe import NO_TEXT, merged_raw, reply_text, scanned_pages, transcribe_scanned

# the names loaded when first asked for, by module
_LAZY_MODULES = {
    "paper": (
        "MIN_TEXT_CHARS_PER_PAGE",
        "detect_language",
        "guess_title",
        "readable_pages",
        "require_text",
        "text_pages",
    ),
    "transcribe": ("NO_TEXT", "merged_raw", "reply_text", "scanned_pages", "transcribe_scanned"),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, from its module (kept here once loaded)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


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
    "bare_calls",
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
