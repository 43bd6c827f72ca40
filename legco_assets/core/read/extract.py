"""Read a document's text layer, page by page, and render page images.

One entry point, :func:`extract_document`, chooses the reader by content: PDFs go through
pypdfium2 (fast, opens every real paper we have, including AES with an empty password) and
fall back to pypdf only when PDFium cannot open the file; DOCX, TXT, Markdown and HTML
(:mod:`html_reader`) become a single page. The bytes are read once and hashed, so the text
always matches the sha256 we record even if the file is replaced while we read it.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass
from functools import cached_property, partial
from typing import Any

from ..errors import DocumentError
from ..forked import SharedRun
from ..records import ExtractedDocument, Page
from ..storage import StorePath, location
from .headings import PageSamples, assign_levels, page_samples
from .qa_tables import asks_and_answers, label_cell, row_asks, row_title
from .record_pages import printed_pages
from .visible import visible_text

_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+\S")
TEXT_SUFFIXES = {".txt": "txt", ".md": "md", ".markdown": "md"}
HTML_SUFFIXES = {".html", ".htm"}
SUPPORTED_SUFFIXES = {".pdf", ".docx", *TEXT_SUFFIXES, *HTML_SUFFIXES}


@dataclass(frozen=True)
class SourceBytes:
    """A file's content read once, with its hash."""

    path: StorePath
    data: bytes

    @cached_property
    def sha256(self) -> str:
        """Hashed once: callers read it per chunk (``to_record``), and re-hashing a 3 MB
        paper for each of its 500 chunks was a quarter of the whole no-LLM pipeline."""
        return hashlib.sha256(self.data).hexdigest()


def read_source(path: str | StorePath) -> SourceBytes:
    """Read the whole file (local, or in an object store); missing or unreadable files become
    a DocumentError."""
    p = location(path)
    if p.suffix.lower() not in SUPPORTED_SUFFIXES:
        raise DocumentError(
            p, f"unsupported file type {p.suffix or '(none)'} (supported: PDF, DOCX, TXT, Markdown, HTML)"
        )
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise DocumentError(p, f"cannot read file ({exc.strerror or exc})") from exc
    if not data:
        raise DocumentError(p, "empty file (0 bytes)")
    return SourceBytes(p, data)


def document_kind(source: SourceBytes) -> str:
    suffix = source.path.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    if suffix == ".docx":
        return "docx"
    if suffix in HTML_SUFFIXES:
        return "html"
    return TEXT_SUFFIXES[suffix]


def extract_document(source: SourceBytes) -> ExtractedDocument:
    """Text per page (raw only; :mod:`preprocess` fills ``cleaned``)."""
    with start_extract(source) as reading:
        return reading.result()


class PendingDocument:
    """:func:`extract_document` begun (:func:`start_extract`): :meth:`result` gives the
    document, :meth:`close` (or leaving the ``with``) stops what was started for it."""

    def __init__(self, source: SourceBytes) -> None:
        self.source = source
        self.kind = document_kind(source)
        self._pdf = _start_pdf_texts(source) if self.kind == "pdf" else None

    def result(self) -> ExtractedDocument:
        if self.kind != "pdf":
            return _document(self.source, self.kind, None)
        if self._pdf is None:
            raise RuntimeError(f"{self.source.path}: its reading was closed or has given its document")
        pdf, self._pdf = self._pdf, None
        return _document(self.source, self.kind, pdf.result())

    def close(self) -> None:
        if self._pdf is not None:
            self._pdf.close()
            self._pdf = None

    def __enter__(self) -> PendingDocument:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_extract(source: SourceBytes) -> PendingDocument:
    """:func:`extract_document`, begun now: a long PDF's pages are shared with a forked copy
    of this process, which starts reading them from the back at once where this process can
    fork (:class:`..forked.SharedRun`: single-threaded, a core to spare). Why begun: the
    caller starts its table workers next, and their threads would rule the fork out."""
    return PendingDocument(source)


def _document(
    source: SourceBytes, kind: str, pdf: tuple[str, list[str], dict[int, list[list[Any]]], list[int]] | None
) -> ExtractedDocument:
    """The document of ``source`` (``pdf``: a PDF's texts as :class:`_PdfTexts` read them)."""
    if kind == "html":
        from .html_reader import read_html

        html = read_html(source.path, source.data)
        headings = [[h["text"], h["level"]] for h in html.headings]
        page = Page(number=1, raw=html.text, headings=headings, breaks=html.breaks)
        return ExtractedDocument(path=str(source.path), kind=kind, extractor="lxml", pages=[page])
    hints: dict[int, list[list[Any]]] = {}
    hidden: list[int] = []
    if pdf is not None:
        extractor, texts, hints, hidden = pdf
    elif kind == "docx":
        text, docx_hints = _docx_text(source)
        extractor, texts, hints = "python-docx", [text], {1: docx_hints}
    else:
        text = source.data.decode("utf-8", errors="replace").lstrip("\ufeff")
        extractor, texts = "text", (printed_pages(text) if kind == "txt" else None) or [text]
        if kind == "md":
            hints = {1: markdown_headings(texts[0])}
    if kind != "pdf" and not "".join(texts).strip():
        raise DocumentError(source.path, "empty document (no text)")
    unreadable = {i + 1 for i, t in enumerate(texts) if kind == "pdf" and unreadable_text(t)}
    pages = [
        Page(number=n, raw="", unreadable=True)
        if n in unreadable
        else Page(number=n, raw=t, headings=hints.get(n, []))
        for n, t in enumerate(texts, 1)
    ]
    for page, count in zip(pages, hidden):
        page.off_page_chars = count
    return ExtractedDocument(path=str(source.path), kind=kind, extractor=extractor, pages=pages)


# characters no text is written in: control codes and the replacement character (not private
# use: Hong Kong fonts put HKSCS characters there, symbol fonts their bullets)
_UNMAPPED = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ufffd]")
UNMAPPED_SHARE = 0.1  # of a page's characters: a text layer, not text
UNMAPPED_MIN_CHARS = 20  # fewer characters: too few to judge


def unreadable_text(text: str) -> bool:
    """A PDF page's text layer that maps its glyphs to no characters: a font embedded
    without a Unicode map leaves PDFium the glyphs' numbers, the commonest of which read as
    control codes (``\\x01\\r\\n\\x04\\x05…``). Written text never holds them, so
    a tenth of a page in them is garbage, not text: chunked, it would be indexed and found by
    nothing. Such a page is read as a scanned one (a vision model transcribes it when
    configured; the ``text_layer_readable`` check names it). One pass of a compiled pattern:
    the hot path reads every page through it."""
    chars = len("".join(text.split()))
    return chars >= UNMAPPED_MIN_CHARS and len(_UNMAPPED.findall(text)) >= UNMAPPED_SHARE * chars


def _normalise_newlines(text: str) -> str:
    # PDFium separates lines with \r\n and marks soft hyphens with \x02 / \ufffe.
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x02", "").replace("\ufffe", "")


class _PdfTexts:
    """A PDF's texts being read: extractor, text per page, heading hints, and per page the
    characters left out as off the page or invisible (:mod:`visible`). PDFium reads it
    (:class:`_PdfiumTexts`); pypdf only where PDFium refused the file, when it opened or
    while it read."""

    def __init__(self, source: SourceBytes) -> None:
        self.source = source
        self._pdfium: _PdfiumTexts | None = None
        self._refused: Exception | None = None
        try:
            self._pdfium = _PdfiumTexts(source)
        except DocumentError:
            raise
        except Exception as pdfium_error:  # PDFium refused the file: the pure-Python reader
            self._refused = pdfium_error

    def result(self) -> tuple[str, list[str], dict[int, list[list[Any]]], list[int]]:
        if self._pdfium is not None:
            try:
                return ("pypdfium2", *self._pdfium.result())
            except DocumentError:
                raise
            except Exception as pdfium_error:
                self._refused = pdfium_error
        assert self._refused is not None
        try:
            texts, hidden = _pypdf_texts(self.source)
            return "pypdf", texts, {}, hidden
        except DocumentError:
            raise
        except Exception:
            raise DocumentError(self.source.path, _pdf_reason(self._refused)) from self._refused

    def close(self) -> None:
        if self._pdfium is not None:
            self._pdfium.close()


def _start_pdf_texts(source: SourceBytes) -> _PdfTexts:
    if not source.data.lstrip()[:5].startswith(b"%PDF"):
        raise DocumentError(source.path, "not a PDF (the file does not start with %PDF)")
    return _PdfTexts(source)


def _pdf_reason(exc: Exception) -> str:
    message = str(exc).lower()
    if "password" in message:
        return "encrypted PDF (a password is required to open it)"
    return "corrupt or truncated PDF (cannot be parsed)"


# fewer pages: read in this process alone (a fork and the pages' pickled text cost more than
# half of their reading saves)
SHARED_MIN_PAGES = 40


class _PdfiumTexts:
    """Text per page as a reader sees it (:mod:`visible`), the heading hints the typography
    gives (:mod:`headings`), read while each text page is open, and the characters left out;
    a long document's pages shared with a forked copy of this process (:class:`SharedRun`),
    which holds the open document too."""

    def __init__(self, source: SourceBytes) -> None:
        import pypdfium2 as pdfium

        try:
            self.pdf = pdfium.PdfDocument(source.data)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise DocumentError(source.path, "encrypted PDF (a password is required to open it)") from exc
            raise
        try:
            if len(self.pdf) == 0:
                raise DocumentError(source.path, "PDF has no pages")
            fonts: dict[int, bool] = {}  # a cache of the document's fonts, per process
            jobs = [partial(_read_page, self.pdf, index, fonts) for index in range(len(self.pdf))]
            self.run: SharedRun[tuple[str, PageSamples, int]] = SharedRun(jobs, len(jobs), SHARED_MIN_PAGES)
        except BaseException:
            self.pdf.close()
            raise

    def result(self) -> tuple[list[str], dict[int, list[list[Any]]], list[int]]:
        try:
            read = self.run.results()
        finally:
            self.close()
        return [t for t, _, _ in read], assign_levels([s for _, s, _ in read]), [h for _, _, h in read]

    def close(self) -> None:
        self.run.close()
        self.pdf.close()


def _read_page(pdf: Any, index: int, fonts: dict[int, bool]) -> tuple[str, PageSamples, int]:
    """One page's text as a reader sees it, its heading samples and its characters left out."""
    import pypdfium2.raw as pdfium_raw

    page = pdf[index]
    try:
        textpage = upright_textpage(page)
        try:
            seen = visible_text(pdfium_raw, page, textpage.raw, textpage.get_text_range())
            samples = page_samples(textpage.raw, seen.aligned, index + 1, fonts, page.raw, seen.paths)
        finally:
            textpage.close()
    finally:
        page.close()
    return _normalise_newlines(seen.text), samples, seen.dropped


def _pypdf_texts(source: SourceBytes) -> tuple[list[str], list[int]]:
    """The fallback reader, for files PDFium refused. pypdf logs its repairs ("EOF marker
    not found", …) as warnings/errors, which reach stderr when nobody configured logging
    (``legco-assets chunk``); we report our own one-line reason instead, so they are muted."""
    import logging

    from pypdf import PdfReader

    from .visible import pypdf_visible_text

    pypdf_logger = logging.getLogger("pypdf")
    level = pypdf_logger.level
    pypdf_logger.setLevel(logging.CRITICAL)
    try:
        reader = PdfReader(io.BytesIO(source.data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(source.path, "encrypted PDF (a password is required to open it)")
        if len(reader.pages) == 0:
            raise DocumentError(source.path, "PDF has no pages")
        seen = [pypdf_visible_text(page) for page in reader.pages]
        return [_normalise_newlines(text) for text, _ in seen], [hidden for _, hidden in seen]
    finally:
        pypdf_logger.setLevel(level)


def markdown_headings(text: str) -> list[list[Any]]:
    """``# Title`` lines of a Markdown file as heading hints (the line as it reads, level)."""
    hints: list[list[Any]] = []
    for line in text.split("\n"):
        m = _MD_HEADING.match(line)
        if m:
            hints.append([line.strip(), len(m[1])])
    return hints


def _docx_level(paragraph: Any) -> int | None:
    """Outline level of a DOCX paragraph from its style: ``Title`` 1, ``Heading N`` N
    (styles built on a heading style count as it)."""
    style = paragraph.style
    while style is not None:
        name = (style.name or "").strip().lower()
        if name == "title":
            return 1
        if name.startswith("heading") and name[7:].strip().isdigit():
            return int(name[7:].strip())
        style = style.base_style
    return None


def _all_bold(paragraph: Any) -> bool:
    """Every run with text is bold, by the run or by the paragraph's style."""
    runs = [run for run in paragraph.runs if run.text.strip()]
    style_bold = bool(paragraph.style is not None and paragraph.style.font.bold)
    return bool(runs) and all(run.bold or (run.bold is None and style_bold) for run in runs)


def _list_item(paragraph: Any) -> bool:
    """A paragraph of a numbered or bulleted list (Word numbers it; its text has no number)."""
    props = paragraph._p.pPr
    style = (paragraph.style.name or "") if paragraph.style is not None else ""
    return bool(props is not None and props.numPr is not None or style.lower().startswith("list"))


def _docx_text(source: SourceBytes) -> tuple[str, list[list[Any]]]:
    """Paragraphs and tables in body order; tables become Markdown straight away. Paragraphs
    in a Title or Heading style are also returned as heading hints ``[text, level]``, and so
    is a paragraph that asks set apart as an FAQ without labels sets its questions: all in
    bold, or an item of a list (``headings.asked_apart``, as the HTML reader reads a line all
    in bold or an ``<li>``). A table of questions beside their answers is read row by row,
    as the HTML reader reads one (:mod:`qa_tables`)."""
    import docx
    from docx.table import Table as DocxTable
    from docx.text.paragraph import Paragraph

    from ..markdown_tables import to_markdown
    from .headings import ASKING_LEVEL, asked_apart

    try:
        document = docx.Document(io.BytesIO(source.data))
    except Exception as exc:
        raise DocumentError(source.path, "corrupt DOCX (cannot be parsed)") from exc
    blocks: list[str] = []
    hints: list[list[Any]] = []
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(child, document)
            blocks.append(paragraph.text)
            level = _docx_level(paragraph) if paragraph.text.strip() else None
            if (
                not level
                and (_all_bold(paragraph) or _list_item(paragraph))
                and asked_apart(paragraph.text.strip())
            ):
                level = ASKING_LEVEL
            if level:
                hints.append([paragraph.text.strip(), level])
        elif tag == "tbl":
            rows = [[cell.text.strip() for cell in row.cells] for row in DocxTable(child, document).rows]
            if rows and asks_and_answers(rows):
                for line, level in _asked_rows(rows, ASKING_LEVEL):
                    blocks.append(line)
                    if level:
                        hints.append([line, level])
            elif rows:
                blocks.append(to_markdown(rows[0], rows[1:]))
    return "\n".join(blocks), hints


def _asked_rows(rows: list[list[str]], asking_level: int) -> list[tuple[str, int | None]]:
    """An FAQ table's rows as lines, each with its heading level or None: a question (a
    label cell run into it) at ``asking_level``, a category row a level up, the header row
    (``Question | Answer``) dropped, the answer's cells as they read."""
    lines: list[tuple[str, int | None]] = []
    for n, row in enumerate(rows):
        title = row_title(row)
        if title:
            lines.append((title, asking_level - 1))
            continue
        if not row_asks(row):
            if n:
                lines.extend((cell, None) for cell in dict.fromkeys(row) if cell)
            continue
        cells = [cell for cell in dict.fromkeys(row) if cell]  # a merged cell repeats across its columns
        labels = [cell for cell in cells if label_cell(cell)]
        label = labels[0] if labels and cells[0] == labels[0] else ""
        rest = cells[1:] if label else cells
        lines.append((f"{label} {rest[0]}".strip(), asking_level))
        lines.extend((cell, None) for cell in rest[1:])
    return lines


def render_page_png(pdf_bytes: bytes, page_number: int, dpi: int = 150) -> bytes:
    """PNG of one page (1-based) at ``dpi``, for the vision stage."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        page = pdf[page_number - 1]
        image = page.render(scale=dpi / 72).to_pil()
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=False)
        page.close()
        return buffer.getvalue()
    finally:
        pdf.close()


def upright_textpage(page: Any) -> Any:
    """A pypdfium2 page's text page as its content is drawn, whatever the page's /Rotate.

    Why: PDFium orders a rotated page's characters by the lines they make on the screen,
    and text drawn across the page that a viewer turns (a page rotated in Acrobat, a
    landscape annex) then comes out in scrambled runs of its lines. Read unrotated, the
    lines come in order; text drawn turned on the page reads the same either way. The text
    reader and the excerpts both read pages through this, so they agree on the characters'
    order (the tables' geometry places characters by their boxes, which the rotation does
    not move); the page's rotation is put back for rendering."""
    rotation = page.get_rotation()
    if not rotation:
        return page.get_textpage()
    page.set_rotation(0)
    try:
        return page.get_textpage()
    finally:
        page.set_rotation(rotation)


def pdf_page_count(pdf_bytes: bytes) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        return len(pdf)
    finally:
        pdf.close()
