"""The search index on disk: each stored paper's latest segment per strategy
(:mod:`.segments`), written by the same steps that write Chroma, read by a server.

Layout: ``<index dir>/<strategy>/<document id, quoted>/<written ns>-<sha256 prefix>/``, one
folder per paper and strategy (a new version replaces the old one; a removed paper's folder
goes). ``GENERATION`` at the top is rewritten after every change: a reader that finds it
unchanged knows nothing changed, at the cost of one ``stat``. Writers from several processes
(Dagster runs in parallel, the command line) take ``.lock`` for each change.

Why beside Chroma rather than inside it: Chroma keeps the chunk vectors and answers the
vector ranker, but it has no keyword index, and an embedded Chroma client does not see what
another process wrote after it opened the store; what a server needs to rank a new paper
must be readable without reopening it. The index dir is on this machine's disk (beside an
embedded Chroma, :attr:`..settings.Settings.local_dir`), since it is memory-mapped.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
import urllib.parse
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..records import ChunkRecord
from ..settings import Settings
from .hits import stored_strategy
from .segments import read_description, write_overlay, write_segment
from .vector_store import latest_rows, with_retries

GENERATION = "GENERATION"
LOCK = ".lock"


class SegmentStore:
    """The index dir: write, update, remove and list the papers' segments."""

    def __init__(self, root: Path):
        self.root = Path(root)

    @classmethod
    def of(cls, settings: Settings) -> SegmentStore:
        return cls(settings.index_dir)

    def exists(self) -> bool:
        """Whether an index was ever written here (a store made before has none)."""
        return (self.root / GENERATION).exists()

    def generation(self) -> str:
        """Changes with every write ("" before the first): the file's text, a fresh
        ``time_ns`` each time (a file's mtime may not move between two quick writes)."""
        try:
            return (self.root / GENERATION).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                self._touch()
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _touch(self) -> None:
        staging = self.root / f".{GENERATION}.tmp-{os.getpid()}"
        staging.write_text(str(time.time_ns()), encoding="utf-8")
        os.replace(staging, self.root / GENERATION)

    def paper_dir(self, strategy: str, document_id: str) -> Path:
        return self.root / stored_strategy(strategy) / urllib.parse.quote(document_id, safe="")

    # -- listing ---------------------------------------------------------------------------
    def listing(self) -> dict[tuple[str, str], Path]:
        """(strategy, document id) → the folder of its latest segment."""
        out: dict[tuple[str, str], Path] = {}
        if not self.root.is_dir():
            return out
        for strategy_dir in sorted(p for p in self.root.iterdir() if p.is_dir()):
            for paper in sorted(p for p in strategy_dir.iterdir() if p.is_dir()):
                folder = _latest(paper)
                if folder is not None:
                    out[(strategy_dir.name, urllib.parse.unquote(paper.name))] = folder
        return out

    # -- writing ---------------------------------------------------------------------------
    def write(
        self,
        records: list[ChunkRecord],
        metadatas: list[dict[str, Any]],
        vectors: list[Any],
        sides: str,
        embed: Callable[[list[str]], list[Any]],
    ) -> Path | None:
        """Make this paper version's segment the latest of its paper and strategy (the older
        one removed); nothing for no records. Returns its folder."""
        if not records:
            return None
        first = records[0]
        paper = self.paper_dir(first.metadata.strategy_type, first.document_id)
        name = f"{time.time_ns():020d}-{first.metadata.content_sha256[:16]}"
        with self.locked():
            write_segment(paper / name, records, metadatas, vectors, sides, embed)
            for old in paper.iterdir():
                if old.name != name:
                    shutil.rmtree(old, ignore_errors=True)
        return paper / name

    def update(self, changes: dict[str, dict[str, Any]]) -> int:
        """Apply metadata ``changes`` (chunk id → keys, as Chroma's ``update`` was given them)
        to the latest segments holding those chunks. Returns how many chunks were found."""
        by_paper: dict[tuple[str, str], dict[str, dict[str, Any]]] = defaultdict(dict)
        for chunk_id, keys in changes.items():
            parts = chunk_id.rsplit(":", 2)
            if len(parts) == 3 and "@" not in parts[0]:  # an archived version's id: not indexed here
                by_paper[(parts[1], parts[0])][chunk_id] = keys
        found = 0
        if not self.exists():  # a store without an index: nothing to keep in step
            return found
        with self.locked():
            for (strategy, document), mine in by_paper.items():
                folder = _latest(self.paper_dir(strategy, document))
                if folder is not None:
                    write_overlay(folder, mine)
                    found += len(mine)
        return found

    def remove(self, document_id: str) -> list[str]:
        """Remove every strategy's segment of the paper; the folders removed, as lines."""
        removed: list[str] = []
        if not self.exists():
            return removed
        with self.locked():
            for strategy_dir in sorted(p for p in self.root.iterdir() if p.is_dir()):
                paper = strategy_dir / urllib.parse.quote(document_id, safe="")
                if paper.exists():
                    shutil.rmtree(paper)
                    removed.append(f"{strategy_dir.name}/{paper.name}")
        return removed


def _latest(paper: Path) -> Path | None:
    names = sorted(p.name for p in paper.iterdir() if p.is_dir() and not p.name.startswith("."))
    return paper / names[-1] if names else None


# -- from Chroma ------------------------------------------------------------------------------
def embed_unique(embedder: Callable[[list[str]], Any]) -> Callable[[list[str]], list[Any]]:
    """``embedder`` asked for each distinct text once (parts of a split pair repeat their question)."""

    def embed(texts: list[str]) -> list[Any]:
        distinct = list(dict.fromkeys(texts))
        vectors = dict(zip(distinct, embedder(distinct))) if distinct else {}
        return [vectors[t] for t in texts]

    return embed


def index_paper(
    store: SegmentStore,
    collection: Any,
    embedder: Callable[[list[str]], Any],
    document_id: str,
    strategy: str,
) -> int:
    """Write the segment of a paper's latest stored chunks of ``strategy``, read back from
    Chroma as a scope built from Chroma reads them (so both rank alike). Returns its rows."""
    if not store.exists():  # the first index of a store made before: every paper it holds
        index_store(store, collection, embedder)
    return _write_paper(store, collection, embedder, document_id, stored_strategy(strategy))


def _write_paper(
    store: SegmentStore,
    collection: Any,
    embedder: Callable[[list[str]], Any],
    document_id: str,
    strategy: str,
) -> int:
    from .retrieval import QUESTION_SIDE

    got = latest_rows(collection, {"document_id": document_id}, ["documents", "embeddings"], strategy)
    records = [
        ChunkRecord.from_chroma(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])
    ]
    if not records:
        return 0
    sides = QUESTION_SIDE.get(strategy, "qa")
    store.write(records, list(got["metadatas"]), list(got["embeddings"]), sides, embed_unique(embedder))
    return len(records)


def index_store(
    store: SegmentStore,
    collection: Any,
    embedder: Callable[[list[str]], Any],
    say: Callable[[str], None] = lambda line: None,
) -> int:
    """Write the segment of every paper's latest chunks of every strategy Chroma holds: the
    index of a store made before there was one (``legco-assets reindex``). Returns the papers."""
    with store.locked():
        pass  # the index exists from now on (an empty one too: a reader need not look again)
    got = with_retries(lambda: collection.get(where={"is_latest_version": True}, include=["metadatas"]))
    pairs = sorted({(m["document_id"], m["strategy_type"]) for m in got["metadatas"] or []})
    for n, (document, strategy) in enumerate(pairs, start=1):
        rows = _write_paper(store, collection, embedder, document, strategy)
        say(f"indexed {document} ({strategy}): {rows} chunks [{n}/{len(pairs)}]")
    return len(pairs)


def follow_store(
    store: SegmentStore,
    collection: Any,
    embedder: Callable[[list[str]], Any],
    say: Callable[[str], None] = lambda line: None,
) -> int:
    """Bring the index in step with what Chroma holds now: the papers whose latest stored
    version is not the one indexed here are indexed again, those Chroma no longer holds are
    removed. For a machine whose papers are ingested by others (a data dir in object storage,
    a shared Chroma server); returns how many papers changed."""
    got = with_retries(lambda: collection.get(where={"is_latest_version": True}, include=["metadatas"]))
    stored = {(m["strategy_type"], m["document_id"]): m.get("content_sha256") for m in got["metadatas"] or []}
    indexed = {}
    for key, folder in store.listing().items():
        try:
            indexed[key] = read_description(folder).get("sha256")
        except (OSError, ValueError):
            indexed[key] = None
    changed = 0
    for (strategy, document), sha in sorted(stored.items()):
        if indexed.get((strategy, document)) != sha:
            _write_paper(store, collection, embedder, document, strategy)
            say(f"indexed {document} ({strategy}) from the shared store")
            changed += 1
    for document in sorted({d for _, d in indexed} - {d for _, d in stored}):
        store.remove(document)
        say(f"removed {document}: no longer in the shared store")
        changed += 1
    return changed
