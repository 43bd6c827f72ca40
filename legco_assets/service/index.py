"""The search index a long-lived server answers from, kept fresh while ingests write to it.

The server reads the papers' segments (:mod:`legco_assets.core.search.segments`), written
by the ingest when each paper is indexed: it never embeds a stored chunk or builds a keyword
index, and it holds in memory only compact columns per chunk (the rest is memory-mapped, a
hit's text read by id). When the index changes (its ``GENERATION`` file, one ``stat`` per
:data:`CHECK_EVERY_S`), it opens the new or changed segments alone, drops the removed ones,
and assembles each strategy's scope again from the open segments: a search runs on one
:class:`Snapshot` from start to end, and a segment is whole or absent (written aside and
renamed into place), so no search sees half a paper or a second copy of the index.

The chunk and question vectors are ranked from the segments too (:mod:`.vector_rows`: an int8
scan, the best candidates rescored in float32: the rows a float32 scan gives), not by Chroma:
an embedded Chroma client does not see what another process wrote after it opened the store,
and once that process has written, a filtered query on the old client fails ("Error finding
id"); reopening the client on every change loads the whole store again. The server opens
Chroma only to write the index of a store made before there was one.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from legco_assets.core.artifacts import Artifacts
from legco_assets.core.search import (
    Retriever,
    Segment,
    SegmentStore,
    StaleSegment,
    embedding_function,
    follow_store,
    forget_cached,
    index_paper,
    index_store,
    open_collection,
    open_segment,
    overlay_stamp,
    paper_rows,
    segment_scope,
    with_retries,
)
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.storage import is_remote

from .tables import PaperTables

CHECK_EVERY_S = 0.5  # how often a request looks at the index for a change (one stat)
FOLLOW_EVERY_S = 5.0  # how often a server whose papers others ingest looks at the shared store
log = logging.getLogger(__name__)


@dataclass
class Snapshot:
    """One view of the index: the retriever over its scopes, and the papers' titles."""

    retriever: Retriever
    generation: str
    segments: dict[tuple[str, str], Segment] = field(default_factory=dict)
    titles: dict[str, tuple[str, str]] = field(default_factory=dict)  # document -> (title, language)


def _title(settings: Settings, document: str) -> tuple[str, str]:
    try:
        info = Artifacts(settings, document).source()
        return (info.title or info.filename, info.language)
    except (OSError, ValueError, KeyError, TypeError):
        return (document, "")


class LiveIndex:
    """The current :class:`Snapshot`, assembled again when the index changed.

    Searches read :attr:`snapshot` once and use it to the end; a change opens what changed
    and swaps the reference (one refresh at a time). Searches take no lock: a snapshot is
    not changed once made."""

    def __init__(self, settings: Settings, translate: bool = True, rerank: bool = True):
        self.settings = settings
        self.translate, self.rerank = translate, rerank
        self.store = SegmentStore.of(settings)
        self._refresh_lock = threading.Lock()
        self._checked = 0.0
        self.reloads = 0  # snapshots assembled after the first
        self.tables = PaperTables(settings)  # the papers' tables as data: a hit's table_ids
        self._titles: dict[str, tuple[str, str]] = {}
        self._base = self._first_retriever()
        if not self.store.exists():
            self._index_store()
        self.snapshot = self._assemble(self.store.generation(), self.store.listing(), {})
        if is_remote(settings.data_dir):  # papers are ingested on other machines
            threading.Thread(target=self._follow, name="follow-store", daemon=True).start()

    def _follow(self) -> None:
        """With the data dir in object storage, other machines ingest into the shared Chroma
        and write their own indexes: this one is brought in step with the store whenever its
        row count moves (looked at every :data:`FOLLOW_EVERY_S`)."""
        collection, count = None, -1
        while True:
            try:
                collection = collection or self._collection()
                now = with_retries(collection.count)
                if now != count:
                    follow_store(self.store, collection, embedding_function(self.settings), log.info)
                    count = now
            except Exception as exc:  # noqa: BLE001 (a store down now is looked at again later)
                log.warning("could not follow the shared store: %s", (str(exc) or repr(exc)).splitlines()[0])
            time.sleep(FOLLOW_EVERY_S)

    def _first_retriever(self) -> Retriever:
        """The embedder, translator and reranker every snapshot's retriever shares; no store."""
        return Retriever.open(self.settings, translate=self.translate, rerank=self.rerank, store=False)

    def _collection(self) -> Any:
        return open_collection(self.settings)

    def _index_store(self) -> None:
        """A store made before the index: its segments written once, from Chroma."""
        log.warning("no search index in %s: writing it from the stored chunks (once)", self.store.root)
        index_store(self.store, self._collection(), embedding_function(self.settings), log.info)

    def _assemble(
        self, generation: str, listed: dict[tuple[str, str], Path], open_now: dict[tuple[str, str], Segment]
    ) -> Snapshot:
        segments: dict[tuple[str, str], Segment] = {}
        for key, folder in listed.items():
            known = open_now.get(key)
            if known is not None and known.stamp == (folder.name, overlay_stamp(folder)):
                segments[key] = known
                continue
            try:
                segments[key] = open_segment(folder)
            except StaleSegment:
                segments[key] = self._reindexed(key)
            except (OSError, ValueError, KeyError):  # removed while listed: the next look drops it
                continue
        for key, old in open_now.items():
            if segments.get(key) is not old:
                forget_cached(old)
        retriever = self._retriever()
        for strategy in Strategy:
            mine = [s for (name, _), s in segments.items() if name == strategy.value]
            retriever._scopes[(strategy.value, False)] = segment_scope(mine)
        for _, document in segments:
            if document not in self._titles:
                self._titles[document] = _title(self.settings, document)
        titles = {document: self._titles[document] for _, document in segments}
        return Snapshot(retriever, generation, segments, titles)

    def _reindexed(self, key: tuple[str, str]) -> Segment:
        """A segment of an older format, written again from Chroma (once)."""
        strategy, document = key
        index_paper(self.store, self._collection(), embedding_function(self.settings), document, strategy)
        return open_segment(self.store.listing()[key])

    def _retriever(self) -> Retriever:
        """A retriever sharing the first one's client, embedder, translator and reranker,
        with its own scopes (set by :meth:`_assemble`, never loaded from the store)."""
        first = self._base
        retriever = Retriever(
            None,
            first.embedder,
            first.cache_dir,
            first.fusion,
            translator=first.translator,
            reranker=first.reranker,
        )
        retriever.follow_store = False
        return retriever

    def current(self) -> Snapshot:
        """The snapshot to answer from, assembled again first when the index changed."""
        now = time.monotonic()
        if now - self._checked < CHECK_EVERY_S or not self._refresh_lock.acquire(blocking=False):
            return self.snapshot
        try:
            self._checked = now
            generation = self.store.generation()
            if generation != self.snapshot.generation:
                self.snapshot = self._assemble(generation, self.store.listing(), self.snapshot.segments)
                self.reloads += 1
        finally:
            self._refresh_lock.release()
        return self.snapshot

    def documents(self) -> list[dict[str, Any]]:
        """The stored latest versions, per document and strategy, with the paper's title and
        language (what ``legco-assets documents`` lists)."""
        snapshot = self.current()
        rows = []
        for row in paper_rows(
            [snapshot.segments[key] for key in sorted(snapshot.segments, key=lambda k: (k[1], k[0]))]
        ):
            title, language = snapshot.titles.get(row["document_id"], (row["document_id"], ""))
            rows.append({**row, "title": title, "language": language})
        keys = (
            "document_id title language strategy version filename chunks counterpart_document_id "
            "date date_precision kind paper_number"
        ).split()
        return [{k: row[k] for k in keys} for row in rows]
