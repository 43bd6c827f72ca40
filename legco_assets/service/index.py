"""The search index a long-lived server answers from, kept fresh while ingests write to it.

Why a snapshot: an embedded Chroma client keeps its vector index in memory and never sees
what another process (``legco-assets ingest``, ``dagster dev``) wrote after it opened the
store (a vector query and a ``get`` by id both miss the new chunks; only the row count read
from SQLite moves). So the server opens a *new* client when the store changed, loads every
strategy's scope (BM25, vectors, question vectors) on it, and swaps the whole snapshot in at
once: a search runs on one snapshot from start to end, never on half of a reload.

Why a completeness test: an ingest writes a paper's chunks in batches of 256, so a reload
in the middle of a write would see half of it. A paper's stored chunks are whole when their
ids are those of its ``chunks-<strategy>.jsonl`` (written before Chroma is) and they share
one version (``content_sha256``). While any paper is not whole the server keeps the snapshot
it has; once the store has been quiet for :data:`SETTLE_S` with a paper still not whole (its
re-chunk blocked by a check, say: a state that will not change by itself), it takes the new
snapshot as it is.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from legco_assets.core.artifacts import Artifacts
from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import Retriever, open_client, open_collection, with_retries
from legco_assets.core.settings import Settings, Strategy

from .tables import PaperTables

CHECK_EVERY_S = 0.5  # how often a request looks at the store for a change (a stat and a count)
SETTLE_S = 20.0  # a store unchanged this long is taken as it is, whole or not


@dataclass
class Snapshot:
    """One loaded view of the store: its client, the retriever over it, and the papers' titles."""

    retriever: Retriever
    signature: tuple[Any, ...]
    titles: dict[str, tuple[str, str]] = field(default_factory=dict)  # document -> (title, language)

    @property
    def collection(self) -> Any:
        return self.retriever.collection


def store_signature(settings: Settings, collection: Any) -> tuple[Any, ...]:
    """What changes when any process writes the store: the row count (read from SQLite, so
    another process's writes show) and the modification times of Chroma's files."""
    stamps: list[int] = []
    if not settings.chroma_host:
        root = Path(settings.chroma_dir)
        for name in ("chroma.sqlite3", "chroma.sqlite3-wal"):
            try:
                stamps.append((root / name).stat().st_mtime_ns)
            except OSError:
                stamps.append(0)
    return (with_retries(collection.count), *stamps)


def unfinished_documents(settings: Settings, records: list[ChunkRecord]) -> list[str]:
    """``document:strategy`` of each paper whose stored latest chunks are not the whole of its
    chunk file, or mix versions: a write still going on (see the module docstring)."""
    groups: dict[tuple[str, str], list[ChunkRecord]] = defaultdict(list)
    for record in records:
        groups[(record.document_id, record.metadata.strategy_type)].append(record)
    unfinished = []
    for (document, strategy), stored in sorted(groups.items()):
        versions = {r.metadata.content_sha256 for r in stored}
        if len(versions) > 1 or not _matches_file(settings, document, strategy, stored):
            unfinished.append(f"{document}:{strategy}")
    return unfinished


def _matches_file(settings: Settings, document: str, strategy: str, stored: list[ChunkRecord]) -> bool:
    """Whether the stored chunks are those of the paper's chunk file; True when the file is
    gone or holds another version (nothing to compare with: the store is all there is)."""
    try:
        written = Artifacts(settings, document).read_chunks(Strategy.parse(strategy))
    except (OSError, ValueError, KeyError):
        return True
    if not written or written[0].metadata.content_sha256 != stored[0].metadata.content_sha256:
        return True
    return {r.id for r in written} == {r.id for r in stored}


def _titles(settings: Settings, documents: set[str]) -> dict[str, tuple[str, str]]:
    out = {}
    for document in documents:
        try:
            info = Artifacts(settings, document).source()
            out[document] = (info.title or info.filename, info.language)
        except (OSError, ValueError, KeyError, TypeError):
            out[document] = (document, "")
    return out


def _fresh_client(settings: Settings) -> Any:
    """A Chroma client that reads the store as it is now, not as this process first saw it
    (the embedded client is shared per path; its cache is dropped first)."""
    if not settings.chroma_host:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    return open_client(settings)


class LiveIndex:
    """The current :class:`Snapshot`, replaced by a whole new one when the store changed.

    Searches read :attr:`snapshot` once and use it to the end; a reload builds the next one
    beside it (one reload at a time) and swaps the reference. The retriever is not
    thread-safe, so one lock serialises the searches themselves (each takes milliseconds)."""

    def __init__(self, settings: Settings, translate: bool = True, rerank: bool = True):
        self.settings = settings
        self.translate, self.rerank = translate, rerank
        self.search_lock = threading.Lock()
        self._reload_lock = threading.Lock()
        self._checked = 0.0
        self._pending: tuple[tuple[Any, ...], float] | None = None  # a changed signature, first seen at
        self.reloads = 0
        self.tables = PaperTables(settings)  # the papers' tables as data: a hit's table_ids
        self._first: Retriever | None = None  # its embedder, translator and reranker are kept
        self.snapshot = self._load(settle=True)

    def _load(self, settle: bool) -> Snapshot | None:
        """A snapshot of the store now; None when a paper is half written and ``settle`` is false."""
        collection = open_collection(self.settings, _fresh_client(self.settings))
        signature = store_signature(self.settings, collection)
        retriever = self._retriever(collection)
        records: list[ChunkRecord] = []
        for strategy in Strategy:
            records += retriever.scope(strategy).records
        if not settle and unfinished_documents(self.settings, records):
            return None
        return Snapshot(retriever, signature, titles=_titles(self.settings, {r.document_id for r in records}))

    def _retriever(self, collection: Any) -> Retriever:
        """A retriever over ``collection`` with the embedder loaded once for the process, its
        scopes kept as first loaded (``follow_store`` off): the server swaps whole snapshots,
        never one scope under a search."""
        if self._first is None:
            retriever = self._first = Retriever.open(
                self.settings, collection=collection, translate=self.translate, rerank=self.rerank
            )
        else:
            first = self._first
            retriever = Retriever(
                collection,
                first.embedder,
                first.cache_dir,
                first.fusion,
                translator=first.translator,
                reranker=first.reranker,
            )
        retriever.follow_store = False
        return retriever

    def current(self) -> Snapshot:
        """The snapshot to answer from, reloaded first when the store changed since it was loaded."""
        now = time.monotonic()
        if now - self._checked < CHECK_EVERY_S or not self._reload_lock.acquire(blocking=False):
            return self.snapshot
        try:
            self._checked = now
            self._refresh(now)
        finally:
            self._reload_lock.release()
        return self.snapshot

    def _refresh(self, now: float) -> None:
        signature = store_signature(self.settings, self.snapshot.collection)
        if signature == self.snapshot.signature:
            self._pending = None
            return
        # quiet since the last look when nothing wrote after it (opening a client writes the
        # store's files itself, so the signature to compare with is the one after that)
        quiet_since = self._pending[1] if self._pending and self._pending[0] == signature else now
        fresh = self._load(settle=now - quiet_since >= SETTLE_S)
        if fresh is not None:
            self.snapshot, self._pending = fresh, None
            self.reloads += 1
        else:
            self._pending = (store_signature(self.settings, self.snapshot.collection), quiet_since)

    def documents(self) -> list[dict[str, Any]]:
        """The stored latest versions in the snapshot, per document and strategy, with the
        paper's title and language (what ``legco-assets documents`` lists)."""
        snapshot = self.current()
        groups: dict[tuple[str, str], list[ChunkRecord]] = defaultdict(list)
        with self.search_lock:
            for strategy in Strategy:
                for record in snapshot.retriever.scope(strategy).records:
                    groups[(record.document_id, strategy.value)].append(record)
        rows = []
        for (document, strategy), records in sorted(groups.items()):
            m = records[0].metadata
            title, language = snapshot.titles.get(document, (document, ""))
            rows.append(
                {
                    "document_id": document,
                    "title": title,
                    "language": language,
                    "strategy": strategy,
                    "version": m.content_sha256[:12],
                    "filename": m.filename,
                    "chunks": len(records),
                    "counterpart_document_id": m.counterpart_document_id,
                    "date": m.date,
                    "date_precision": m.date_precision,
                    "kind": m.kind,
                    "paper_number": m.paper_number,
                }
            )
        return rows
