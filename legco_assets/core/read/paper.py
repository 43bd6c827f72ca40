"""A paper's pages as the later stages read them: cleaned, scanned pages transcribed, and a
paper with no text refused here rather than chunked into nothing; with its language and
title guessed from them for ``source_document``."""

from __future__ import annotations

from pathlib import Path

from .. import markers
from ..errors import DocumentError
from ..llm import LLMClient
from ..records import ExtractedDocument, Page
from ..settings import Settings
from .extract import SourceBytes, extract_document
from .preprocess import clean_pages
from .transcribe import Transcription, transcribe_scanned

MIN_TEXT_CHARS_PER_PAGE = 50  # fewer non-blank characters: a stamp or page number, not text


def detect_language(text: str) -> str:
    letters = sum(ch.isalpha() for ch in text[:20000]) or 1
    cjk = markers.cjk_count(text[:20000])
    return "zh-Hant" if cjk / letters > 0.2 else "en"


def guess_title(pages: list[Page]) -> str:
    for page in pages[:2]:
        for line in page.cleaned.split("\n"):
            if len(line.strip()) >= 4:
                return line.strip()[:120]
    return ""


def require_text(path: str | Path, pages: list[Page]) -> None:
    """Fail a PDF whose text layer is (nearly) empty: a scan needs OCR/vision.

    A page counts as text when it has at least ``MIN_TEXT_CHARS_PER_PAGE`` non-blank
    characters beyond a stamp; a scanned paper has at most a paper-number stamp."""
    counts = [len("".join(p.cleaned.split())) for p in pages]
    with_text = sum(c >= MIN_TEXT_CHARS_PER_PAGE for c in counts)
    if with_text * 2 < len(counts) or sum(counts) < MIN_TEXT_CHARS_PER_PAGE:
        unreadable = sum(p.unreadable for p in pages)
        if unreadable:
            raise DocumentError(
                path,
                f"unreadable text layer ({unreadable} of {len(pages)} pages: "
                "fonts without a Unicode map give control codes, not characters; "
                "configure a vision LLM to transcribe it)",
            )
        raise DocumentError(
            path,
            f"no extractable text ({sum(counts)} characters in {len(pages)} pages; scanned? "
            "configure a vision LLM to transcribe it)",
        )


def text_pages(source: SourceBytes) -> tuple[ExtractedDocument, list[Page]]:
    """The text layer as extracted, and its pages cleaned (nothing transcribed)."""
    extracted = extract_document(source)
    pages = clean_pages(extracted.pages)
    return extracted, pages


def readable_pages(
    extracted: ExtractedDocument, data: bytes, settings: Settings, llm: LLMClient | None
) -> Transcription | None:
    """``extracted``'s pages cleaned in place and, in a PDF, its scanned pages transcribed
    (with a vision LLM; the extractor then says ``+vision``). What the transcription did,
    for a PDF (then :func:`require_text`: kept apart, so what it did is recorded even when
    the paper fails); None for other kinds."""
    extracted.pages = clean_pages(extracted.pages)
    if extracted.kind != "pdf":
        return None
    transcription = transcribe_scanned(data, extracted.pages, settings, llm, MIN_TEXT_CHARS_PER_PAGE)
    extracted.pages = transcription.pages
    if transcription.transcribed:
        extracted.extractor += "+vision"
    return transcription
