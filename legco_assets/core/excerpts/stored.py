"""The excerpts of a stored paper: where its ``excerpts`` folder is, what kind of excerpt it
gets, each chunk's ``chunk_file_path``, and one chunk's excerpt cut by its id, all read from
the paper's artifact folder (:mod:`..artifacts`).

The cut is what a chunk's link opens, so a server answers it per click: the last few are
kept in memory, keyed by the chunk id and the size and time of its strategy's manifest and
stored file, which every run of ``chunk_excerpts`` rewrites (a re-made excerpt is never
answered from the cache). Nothing is stored per chunk."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from ..artifacts import Artifacts, SourceInfo, chunks_file
from ..records import ChunkRecord
from ..settings import Settings, Strategy
from ..storage import StorePath
from .links import chunk_link, excerpt_file, stored_file
from .make import ExcerptReport, cut_excerpt, manifest_file

CACHED_CUTS = 32  # chunks' excerpts kept in memory: a reader's recent clicks
CACHED_BYTES = 8_000_000  # a larger cut (a long web page) is made again when asked
_cache: OrderedDict[tuple[object, ...], tuple[bytes, str]] = OrderedDict()
_cache_lock = threading.Lock()


@dataclass
class ExcerptsOutcome:
    """What ``chunk_excerpts`` shows: the run's report (:func:`.make.write_excerpts`), the
    folder its links point into, and the paper's own size (the excerpts must cost less)."""

    report: ExcerptReport
    folder: StorePath
    paper_bytes: int


def excerpt_source_kind(info: SourceInfo) -> str:
    """The kind of excerpt a paper gets: a PDF that only pypdf could open is excerpted
    from its text, as PDFium (which cuts and highlights pages) could not read it."""
    return "text" if info.kind == "pdf" and info.extractor == "pypdf" else info.kind


def excerpt_folder(settings: Settings, document_id: str) -> StorePath:
    """A paper's ``excerpts`` folder: one file (and manifest) per strategy."""
    return Artifacts(settings, document_id).path("excerpts")


def with_excerpt_paths(records: list[ChunkRecord]) -> list[ChunkRecord]:
    """The records with ``chunk_file_path``: where each chunk's own excerpt opens
    (``excerpt/<id>``, :func:`.links.chunk_link`). It follows from the chunk's id alone,
    so ``vector_index`` stores it without waiting for the excerpts."""
    return [replace(r, metadata=replace(r.metadata, chunk_file_path=chunk_link(r.id))) for r in records]


def _parts(chunk_id: str) -> tuple[str, Strategy, int]:
    """(document id, strategy, index) of ``DOCUMENT:STRATEGY:INDEX``; ``KeyError`` for
    anything else, a document id that is not one folder name included (``..``, ``a/b``)."""
    parts = chunk_id.rsplit(":", 2)
    if len(parts) != 3 or not parts[2].isdigit():
        raise KeyError(chunk_id)
    document_id, strategy_name, index = parts
    if not document_id or document_id.startswith(".") or any(ch in document_id for ch in "/\\\x00"):
        raise KeyError(chunk_id)
    try:
        return document_id, Strategy.parse(strategy_name), int(index)
    except ValueError:
        raise KeyError(chunk_id) from None


def _stamp(path: StorePath) -> tuple[int, int]:
    """A file's size and modification time (0, 0 when it is not there)."""
    try:
        stat = path.stat()
    except OSError:
        return 0, 0
    return stat.st_size, stat.st_mtime_ns


def cut_chunk_excerpt(settings: Settings, chunk_id: str, withhold: bool = False) -> tuple[bytes, str]:
    """What a stored chunk's link opens (:func:`.make.cut_excerpt`) and its extension
    (``pdf`` or ``html``), from the cache when its excerpts are unchanged; ``withhold``: its
    internal notes redacted (the search service without ``SERVE_INTERNAL_REFS``). ``KeyError``
    when no stored chunk has that id, ``FileNotFoundError`` when its excerpts are not
    written yet."""
    document_id, strategy, index = _parts(chunk_id)
    art = Artifacts(settings, document_id)
    if not art.has("source.json") or not art.has(chunks_file(strategy)):
        raise KeyError(chunk_id)
    info = art.source()
    folder, kind = excerpt_folder(settings, document_id), excerpt_source_kind(info)
    stored = stored_file(excerpt_file(folder, strategy, kind))
    key = (str(folder), chunk_id, withhold, _stamp(manifest_file(folder, strategy)), _stamp(stored))
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    record = next((r for r in art.read_chunks(strategy) if r.metadata.chunk_index == index), None)
    if record is None or record.id != chunk_id:
        raise KeyError(chunk_id)
    cut = cut_excerpt(folder, strategy, kind, record, info.filename, withhold)
    if len(cut[0]) <= CACHED_BYTES:
        with _cache_lock:
            _cache[key] = cut
            while len(_cache) > CACHED_CUTS:
                _cache.popitem(last=False)
    return cut
