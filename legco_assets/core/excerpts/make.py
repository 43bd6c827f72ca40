"""Write a strategy's excerpts of a paper, re-making them only when a chunk changed.

A strategy's excerpts are one file in the paper's ``excerpts/`` folder (:mod:`links`): a PDF
paper's highlighted copy, stored as an update of the stored paper (:mod:`increment`), each
chunk's highlight an annotation naming its id; a web page's or DOCX/TXT/Markdown paper's text
once in an HTML page, each chunk's characters marked with its index, stored gzipped (the
marks put a text paper's page over the paper's size). Either way the fonts, images and text
are not stored again per chunk, so all of a strategy's excerpts of a paper take less than
the paper. ``<strategy>.json`` beside it keys each chunk by a
hash of what it shows (the source's sha256, the chunk's text and pages, the format): when
every key is unchanged the file is kept, else it is re-made whole. One chunk's own excerpt
(what its link opens) is cut from that file on demand, nothing stored per chunk
(:func:`cut_excerpt`).
"""

from __future__ import annotations

import bisect
import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from ..records import ChunkMetadata, ChunkRecord, DocumentText, Page, join_path
from ..settings import Strategy
from ..storage import StorePath, write_whole
from .align import Alignment, align, significant, table_free
from .increment import pdf_increment
from .links import chunk_link, compressed, excerpt_file, excerpt_kind, link_bytes, stored_file
from .pdf import PdfSource, chunk_highlights, cut_pages
from .text import chunk_page, html_page, on_words, withheld_html

FORMAT = "5"  # bump when the excerpts' look changes: every excerpt is re-made
SPAN_SLACK = 200  # characters either side of a chunk's recorded span


def manifest_file(folder: StorePath, strategy: Strategy) -> StorePath:
    """The manifest of a strategy's excerpts in a paper's ``excerpts`` folder."""
    return folder / f"{strategy.value}.json"


def chunk_body(record: ChunkRecord) -> str:
    """The chunk's text less the context lines the chunker writes above the paper's own
    text (the heading path of a narrative chunk, a supplementary question's follow-up line):
    they say where the chunk is, they are not printed there. Tables lose their Markdown."""
    lines = record.text.split("\n")
    path = join_path(record.metadata.section_path)
    if lines and path and lines[0].strip() == path:
        lines = lines[1:]
    elif lines and record.metadata.question_kind == "supplementary":
        lines = lines[1:]
    return table_free("\n".join(lines))


@dataclass
class Excerpt:
    """One chunk's excerpt, as the manifest and the asset's metadata show it: ``link`` is
    its ``chunk_file_path`` (``excerpt/<id>``), ``pages`` (1-based) those its highlight is
    on in a PDF (its own pages when none was found: what its cut holds), its first page
    otherwise."""

    index: int
    link: str
    kind: str
    pages: list[int]
    matched: int
    total: int
    key: str

    @property
    def ratio(self) -> float:
        return self.matched / self.total if self.total else 1.0


@dataclass
class ExcerptReport:
    """What a run of :func:`write_excerpts` did: ``written``/``reused`` count chunks
    (located again, or kept as they were), ``deleted`` files of an older layout."""

    kind: str
    file: str = ""
    bytes: int = 0
    excerpts: list[Excerpt] = field(default_factory=list)
    written: int = 0
    reused: int = 0
    deleted: int = 0
    seconds: float = 0.0

    @property
    def located(self) -> float:
        """Share of the chunks' characters found in the source (and so highlighted)."""
        total = sum(e.total for e in self.excerpts)
        return sum(e.matched for e in self.excerpts) / total if total else 1.0


def _key(record: ChunkRecord, source_sha256: str) -> str:
    meta = record.metadata
    what = [FORMAT, source_sha256, record.id, record.text, meta.page_start, meta.page_end]
    return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode("utf-8")).hexdigest()


class _Locator:
    """The source opened once: finds a chunk's characters and writes its excerpt."""

    def __init__(self, document_kind: str, data: bytes, pages: list[Page], title: str):
        self.kind = excerpt_kind(document_kind)
        self.title = title
        self.pdf: PdfSource | None = None
        self.data = data
        if self.kind == "pdf":
            self.pdf = PdfSource(data)
            self.hay, self.doc = self.pdf.text.text, None
        else:
            self.doc = DocumentText.from_pages(pages)
            self.hay, self.offsets = significant(self.doc.text)

    def _window(self, meta: ChunkMetadata) -> tuple[int, int]:
        """Where in the source's significant characters to look first: the chunk's pages of a
        PDF; in a one-page paper its own span (``char_start``/``char_end`` index the text we
        read, as nothing was woven in), else a page question chunk's answer would be found
        in the page's own list of its questions at the top."""
        if self.pdf is not None:
            return self.pdf.text.page_span(meta.page_start, meta.page_end)
        assert self.doc is not None
        if meta.char_start is not None and meta.char_end is not None:
            start = bisect.bisect_left(self.offsets, max(0, meta.char_start - SPAN_SLACK))
            return start, bisect.bisect_left(self.offsets, meta.char_end + SPAN_SLACK)
        starts = self.doc.page_starts
        first, last = min(max(meta.page_start, 1), len(starts)), meta.page_end
        end = bisect.bisect_left(self.offsets, starts[last]) if last < len(starts) else len(self.hay)
        return bisect.bisect_left(self.offsets, starts[first - 1]), end

    def locate(self, record: ChunkRecord) -> Alignment:
        needle, _ = significant(chunk_body(record))
        start, end = self._window(record.metadata)
        return align(needle, self.hay, start, end)

    def marks(self, found: Alignment) -> dict[int, list[int]]:
        """A PDF chunk's found characters as PDFium char indexes by page (0-based)."""
        assert self.pdf is not None
        marks: dict[int, list[int]] = {}
        for position in found.positions():
            marks.setdefault(self.pdf.text.page_of[position], []).append(self.pdf.text.char_of[position])
        return marks

    def spans(self, found: Alignment) -> list[tuple[int, int]]:
        """A text chunk's found characters as spans of the text read, on word boundaries."""
        assert self.doc is not None
        spans = [(self.offsets[s], self.offsets[e - 1] + 1) for s, e in found.spans]
        return on_words(self.doc.text, spans)

    def render(
        self, strategy: Strategy, records: list[ChunkRecord]
    ) -> tuple[bytes, list[tuple[Alignment, list[int]]]]:
        """The strategy's file as stored (a PDF's update section, an HTML page gzipped) and
        each chunk's alignment and highlighted pages (1-based)."""
        shown: list[tuple[Alignment, list[int]]] = []
        if self.pdf is not None:
            highlights = []
            for record in records:
                found = self.locate(record)
                mine = chunk_highlights(self.pdf, self.marks(found), record.id)
                highlights.extend(mine)
                meta = record.metadata
                own = set(range(meta.page_start, meta.page_end + 1)) & set(range(1, len(self.pdf.pdf) + 1))
                shown.append((found, sorted({h.page + 1 for h in mine} or own)))
            return pdf_increment(self.data, highlights), shown
        assert self.doc is not None
        chunks = []
        for record in records:
            found = self.locate(record)
            chunks.append((record.metadata.chunk_index, self.spans(found)))
            shown.append((found, [record.metadata.page_start]))
        return compressed(
            html_page(self.doc.text, chunks, f"{self.title} — {strategy.value}").encode("utf-8")
        ), shown

    def close(self) -> None:
        if self.pdf is not None:
            self.pdf.close()


def write_excerpts(
    folder: StorePath,
    strategy: Strategy,
    document_kind: str,
    data: bytes,
    pages: list[Page],
    records: list[ChunkRecord],
    source_sha256: str,
    title: str = "",
) -> ExcerptReport:
    """The excerpts of ``records`` (one strategy's chunks) into the paper's ``excerpts``
    ``folder``; for a PDF, ``data`` is the paper as stored beside it (``source.pdf``).
    Kept when no chunk changed."""
    started = time.perf_counter()
    report = ExcerptReport(excerpt_kind(document_kind))
    path = excerpt_file(folder, strategy, document_kind)
    stored = stored_file(path)
    manifest_path = manifest_file(folder, strategy)
    old = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    keys = [_key(record, source_sha256) for record in records]
    if stored.exists() and [old.get(str(r.metadata.chunk_index), {}).get("key") for r in records] == keys:
        report.excerpts = [Excerpt(**old[str(r.metadata.chunk_index)]) for r in records]
        report.reused = len(records)
    elif records:
        locator = _Locator(document_kind, data, pages, title or records[0].document_id)
        try:
            content, shown = locator.render(strategy, records)
        finally:
            locator.close()
        write_whole(stored, content)
        for record, key, (found, on) in zip(records, keys, shown):
            index = record.metadata.chunk_index
            report.excerpts.append(
                Excerpt(index, chunk_link(record.id), report.kind, on, found.matched, found.total, key)
            )
        report.written = len(records)
    report.deleted = _drop_old_layout(folder, strategy, path)
    write_whole(
        manifest_path,
        json.dumps({str(e.index): asdict(e) for e in report.excerpts}, ensure_ascii=False, indent=0),
    )
    report.file = path.name
    report.bytes = stored.stat().st_size if stored.exists() else 0
    report.seconds = time.perf_counter() - started
    return report


def _drop_old_layout(folder: StorePath, strategy: Strategy, path: StorePath) -> int:
    """Delete the files of earlier layouts: the per-chunk files of the first layout
    (``<strategy>/<index>.pdf`` and its manifest) and an uncompressed ``<strategy>.html``
    (``path``, now stored gzipped); the number deleted."""
    deleted = 0
    old = folder / strategy.value
    if old.is_dir():
        for stale in old.iterdir():
            stale.unlink()
            deleted += 1
        old.rmdir()
    if path.suffix == ".html" and path.is_file():
        path.unlink()
        deleted += 1
    return deleted


def cut_excerpt(
    folder: StorePath,
    strategy: Strategy,
    document_kind: str,
    record: ChunkRecord,
    title: str = "",
    withhold: bool = False,
) -> tuple[bytes, str]:
    """What the chunk's link opens, cut on demand from its strategy's file, and the
    extension: for a PDF, the pages its highlight is on (per the manifest, else its own
    pages) with only its highlight; otherwise the paper's text with only its marks, scrolled
    to them (``html``). ``FileNotFoundError`` when the strategy's excerpts, or this chunk's
    (a chunk newer than them), are not written yet. ``withhold``: the internal notes
    redacted from the PDF's pages, replaced by a marker in the HTML (the search service's
    readers; the operator's tools keep them)."""
    meta = record.metadata
    manifest = json.loads(manifest_file(folder, strategy).read_text(encoding="utf-8"))
    if str(meta.chunk_index) not in manifest:
        raise FileNotFoundError(f"{record.id} has no excerpt yet")
    path = excerpt_file(folder, strategy, document_kind)
    data = link_bytes(path)
    if excerpt_kind(document_kind) != "pdf":
        page = chunk_page(
            data.decode("utf-8"), meta.chunk_index, f"{record.id} — {title or record.document_id}"
        )
        return (withheld_html(page) if withhold else page).encode("utf-8"), "html"
    pages = manifest[str(meta.chunk_index)].get("pages") or range(meta.page_start, meta.page_end + 1)
    made = datetime.fromtimestamp(stored_file(path).stat().st_mtime, UTC)
    return cut_pages(data, record.id, [p - 1 for p in pages if p >= 1], made, withhold), "pdf"
