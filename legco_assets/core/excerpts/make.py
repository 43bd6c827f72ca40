"""Write every chunk's excerpt, re-making only those whose chunk changed.

The excerpt of chunk ``<index>`` of a strategy is ``excerpts/<strategy>/<index>.<ext>`` in the
paper's artifact folder (``pdf``, ``html`` or ``txt`` by the kind of paper), so its path is
known from the chunk alone and ``vector_index`` can store it without waiting for this stage.
``manifest.json`` beside them keys each excerpt by a hash of what it shows (the source's
sha256, the chunk's text and pages, the format), so a re-run re-writes only changed chunks.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..records import DocumentText, Page
from ..sources import atomic_write_text
from .align import Alignment, align, significant, table_free
from .pdf import PdfSource, pdf_excerpt
from .text import html_excerpt, text_excerpt

FORMAT = "3"  # bump when the excerpts' look changes: every excerpt is re-made
MANIFEST = "manifest.json"
EXTENSIONS = {"pdf": "pdf", "html": "html", "text": "txt"}
SPAN_SLACK = 200  # characters either side of a chunk's recorded span


def excerpt_kind(document_kind: str) -> str:
    """``pdf`` for a PDF paper, ``html`` for a web page, ``text`` for DOCX/TXT/Markdown."""
    return document_kind if document_kind in ("pdf", "html") else "text"


def excerpt_file(folder: Path, index: int, document_kind: str) -> Path:
    """Where chunk ``index``'s excerpt lives in a strategy's excerpt folder."""
    return folder / f"{index}.{EXTENSIONS[excerpt_kind(document_kind)]}"


def chunk_body(record: dict[str, Any]) -> str:
    """The chunk's text less the context lines the chunker writes above the paper's own
    text (the heading path of a narrative chunk, a supplementary question's follow-up line):
    they say where the chunk is, they are not printed there. Tables lose their Markdown."""
    meta = record["metadata"]
    lines = record["text"].split("\n")
    path = " > ".join(meta.get("section_path") or [])
    if lines and path and lines[0].strip() == path:
        lines = lines[1:]
    elif lines and meta.get("question_kind") == "supplementary":
        lines = lines[1:]
    return table_free("\n".join(lines))


@dataclass
class Excerpt:
    """One written excerpt, as the manifest and the asset's metadata show it."""

    index: int
    file: str
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
    """What a run of :func:`write_excerpts` did."""

    kind: str
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


def _key(record: dict[str, Any], source_sha256: str) -> str:
    meta = record["metadata"]
    what = [FORMAT, source_sha256, record["id"], record["text"], meta.get("page_start"), meta.get("page_end")]
    return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode("utf-8")).hexdigest()


class _Locator:
    """The source opened once: finds a chunk's characters and writes its excerpt."""

    def __init__(self, document_kind: str, data: bytes, pages: list[Page], title: str):
        self.kind = excerpt_kind(document_kind)
        self.title = title
        self.pdf: PdfSource | None = None
        if self.kind == "pdf":
            self.pdf = PdfSource(data)
            self.hay, self.doc = self.pdf.text.text, None
        else:
            self.doc = DocumentText.from_pages(pages)
            self.hay, self.offsets = significant(self.doc.text)

    def _window(self, meta: dict[str, Any]) -> tuple[int, int]:
        """Where in the source's significant characters to look first: the chunk's pages of a
        PDF; in a one-page paper its own span (``char_start``/``char_end`` index the text we
        read, as nothing was woven in), else a page question chunk's answer would be found
        in the page's own list of its questions at the top."""
        if self.pdf is not None:
            return self.pdf.text.page_span(meta["page_start"], meta["page_end"])
        assert self.doc is not None
        if meta.get("char_start") is not None and meta.get("char_end") is not None:
            start = bisect.bisect_left(self.offsets, max(0, meta["char_start"] - SPAN_SLACK))
            return start, bisect.bisect_left(self.offsets, meta["char_end"] + SPAN_SLACK)
        starts = self.doc.page_starts
        first, last = min(max(meta["page_start"], 1), len(starts)), meta["page_end"]
        end = bisect.bisect_left(self.offsets, starts[last]) if last < len(starts) else len(self.hay)
        return bisect.bisect_left(self.offsets, starts[first - 1]), end

    def locate(self, record: dict[str, Any]) -> Alignment:
        needle, _ = significant(chunk_body(record))
        start, end = self._window(record["metadata"])
        return align(needle, self.hay, start, end)

    def render(self, record: dict[str, Any], found: Alignment) -> tuple[bytes, list[int]]:
        meta = record["metadata"]
        note = f"{record['id']} — {self.title}"
        if self.pdf is not None:
            text = self.pdf.text
            marks: dict[int, list[int]] = {}
            for position in found.positions():
                marks.setdefault(text.page_of[position], []).append(text.char_of[position])
            pages = sorted(set(range(meta["page_start"] - 1, meta["page_end"])) | set(marks))
            pages = [p for p in pages if 0 <= p < len(self.pdf.pdf)]
            return pdf_excerpt(self.pdf, pages, marks, note), [p + 1 for p in pages]
        assert self.doc is not None
        spans = [(self.offsets[s], self.offsets[e - 1] + 1) for s, e in found.spans]
        render = html_excerpt if self.kind == "html" else text_excerpt
        return render(self.doc.text, spans, note).encode("utf-8"), [meta["page_start"]]

    def close(self) -> None:
        if self.pdf is not None:
            self.pdf.close()


def write_excerpts(
    folder: Path, document_kind: str, data: bytes, pages: list[Page], records: list[dict[str, Any]], source_sha256: str, title: str = ""
) -> ExcerptReport:
    """Excerpts of ``records`` (one strategy's chunks) into ``folder``; unchanged ones kept,
    ones of chunks that no longer exist deleted."""
    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    manifest_path = folder / MANIFEST
    old = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    report = ExcerptReport(excerpt_kind(document_kind))
    locator: _Locator | None = None
    try:
        for record in records:
            index = record["metadata"]["chunk_index"]
            path = excerpt_file(folder, index, document_kind)
            key = _key(record, source_sha256)
            kept = old.get(str(index))
            if kept and kept["key"] == key and path.exists():
                report.excerpts.append(Excerpt(**kept))
                report.reused += 1
                continue
            locator = locator or _Locator(document_kind, data, pages, title or records[0].get("document_id", ""))
            found = locator.locate(record)
            content, shown = locator.render(record, found)
            path.write_bytes(content)
            report.excerpts.append(Excerpt(index, path.name, report.kind, shown, found.matched, found.total, key))
            report.written += 1
    finally:
        if locator is not None:
            locator.close()
    wanted = {e.file for e in report.excerpts} | {MANIFEST}
    for stale in folder.iterdir():
        if stale.is_file() and stale.name not in wanted:
            stale.unlink()
            report.deleted += 1
    atomic_write_text(manifest_path, json.dumps({str(e.index): asdict(e) for e in report.excerpts}, ensure_ascii=False, indent=0))
    report.seconds = time.perf_counter() - started
    return report
