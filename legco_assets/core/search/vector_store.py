"""Chroma: one collection holding both strategies' chunks, replace-by-document writes.

Ids are ``<document_id>:<strategy>:<index>`` for the latest version of a document, so a
re-run overwrites exactly what it wrote before (no duplicates; a run killed half-way is
finished by the next). When a document changes (new sha256), its previous chunks are kept
under ``<document_id>@<sha8>:<strategy>:<index>`` with ``is_latest_version = false``, and
queries filter on the flag by default. :func:`stored_versions` says what is stored, per
document, strategy and version.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..records import ChunkMetadata, ChunkRecord
from ..settings import Settings, Strategy
from ..sources import counterpart_changes
from .embeddings import embedding_function
from .hits import stored_strategy

COLLECTION = "legco_chunks"
# Chunks per upsert: a paper's strategy in one call as a rule. Each call costs Chroma a fixed
# part besides its rows (16 papers' strategies, 5,373 real chunks: 15.7 s of Chroma's own
# work in 28 calls of 256, 12.5 s in 16 calls); below every Chroma's largest batch (5,461).
BATCH = 1024
T = TypeVar("T")


def with_retries(action: Callable[[], T], attempts: int = 5, first_delay: float = 0.5) -> T:
    """Retry a Chroma call with exponential backoff (a server may be briefly unreachable)."""
    delay = first_delay
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except Exception as exc:  # chromadb raises several unrelated types for I/O failures
            if attempt == attempts or not _transient(exc):
                raise
            time.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")


def _transient(exc: Exception) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    return any(
        word in text for word in ("connect", "timeout", "timed out", "unavailable", "refused", "reset")
    )


def open_client(settings: Settings) -> Any:
    """Embedded ``PersistentClient`` under the data dir, or ``HttpClient`` for a server."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if settings.chroma_host:
        return with_retries(
            lambda: chromadb.HttpClient(
                host=settings.chroma_host, port=settings.chroma_port, settings=chroma_settings
            )
        )
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=chroma_settings)


def open_collection(settings: Settings, client: Any | None = None) -> Any:
    client = client or open_client(settings)
    return with_retries(
        lambda: client.get_or_create_collection(
            COLLECTION,
            embedding_function=embedding_function(settings),
            metadata={"hnsw:space": "cosine"},
        )
    )


@dataclass
class WriteResult:
    written: int
    deleted: int
    archived: int
    ids: list[str]


def replace_document(
    collection: Any,
    records: Sequence[ChunkRecord | Mapping[str, Any]],
    document_id: str,
    strategy: Strategy | str,
    sha256: str,
) -> WriteResult:
    """Make the collection hold exactly ``records`` (typed, or their JSON form: a
    ``chunks-*.jsonl`` line) as the latest chunks of this document+strategy (or the
    evaluation's chunk set: :func:`.hits.stored_strategy`); archive the previous version's
    chunks if the content changed."""
    records = [ChunkRecord.of(r) for r in records]
    current = latest_rows(
        collection, {"document_id": document_id}, ["documents", "embeddings"], stored_strategy(strategy)
    )
    archived = _archive_previous(collection, current, sha256)
    new_ids = [r.id for r in records]
    stale = [i for i in current["ids"] if i not in set(new_ids)]
    if stale:
        with_retries(lambda: collection.delete(ids=stale))
    held = dict(zip(current["ids"], current["metadatas"] or []))
    for i in range(0, len(records), BATCH):
        batch = records[i : i + BATCH]
        # with_retries calls the lambda at once, within this iteration: `batch` cannot go stale
        with_retries(
            lambda: collection.upsert(
                ids=[r.id for r in batch],  # noqa: B023
                documents=[r.text for r in batch],  # noqa: B023
                metadatas=[_whole(r.to_chroma(), held.get(r.id)) for r in batch],  # noqa: B023
            )
        )
    return WriteResult(written=len(records), deleted=len(stale), archived=archived, ids=new_ids)


def _whole(new: dict[str, Any], held: Mapping[str, Any] | None) -> dict[str, Any]:
    """``new`` as the whole metadata of a chunk whose id Chroma holds with ``held``.

    Why: Chroma's upsert merges into the stored keys. A paper chunked again reuses its ids,
    and a key the new chunk lacks (the question id and asker of what is now a narrative
    chunk) would stay, so a filter by speaker would find it; a None value removes it."""
    if not held:
        return new
    return {**{key: None for key in held if key not in new}, **new}


def to_chroma(meta: dict[str, Any]) -> dict[str, Any]:
    """Metadata as Chroma takes it: scalars only (:meth:`.ChunkMetadata.scalars`)."""
    return ChunkMetadata.scalars(meta)


def from_chroma(meta: dict[str, Any]) -> dict[str, Any]:
    """A stored chunk's metadata as the chunk record's JSON form has it: ``section_path``
    (and the id lists) lists again (:meth:`.ChunkMetadata.chroma_json`)."""
    return ChunkMetadata.chroma_json(meta)


def _archive_previous(collection: Any, current: dict[str, Any], sha256: str) -> int:
    """Copy chunks of an older version to version-suffixed ids, flagged not latest."""
    old = [i for i, m in enumerate(current["metadatas"] or []) if m.get("content_sha256") != sha256]
    if not old:
        return 0
    ids, docs, metas, vectors = [], [], [], []
    for i in old:
        meta = dict(current["metadatas"][i])
        meta.pop("chunk_file_path", None)  # excerpts are cut for the latest version's ids only
        doc_id, rest = current["ids"][i].split(":", 1)
        ids.append(f"{doc_id}@{meta['content_sha256'][:8]}:{rest}")
        docs.append(current["documents"][i])
        metas.append(to_chroma({**meta, "is_latest_version": False}))
        vectors.append(current["embeddings"][i])
    with_retries(lambda: collection.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=vectors))
    return len(ids)


def update_metadata(
    collection: Any,
    changes: dict[str, dict[str, Any]],
    also: Callable[[dict[str, dict[str, Any]]], Any] | None = None,
) -> int:
    """Change some metadata keys of stored chunks in place (a None value removes the key),
    with no re-embedding: how a paper ingested second links the first one's chunks. ``also``
    is given the same changes (the search index's segments: :meth:`.segment_store.SegmentStore.update`)."""
    if also is not None and changes:
        also(changes)
    ids = list(changes)
    for i in range(0, len(ids), BATCH):
        batch = ids[i : i + BATCH]
        # called at once by with_retries, within this iteration: `batch` cannot go stale
        with_retries(lambda: collection.update(ids=batch, metadatas=[changes[j] for j in batch]))  # noqa: B023
    return len(ids)


def link_counterparts(
    collection: Any,
    document_id: str,
    partner: str | None,
    also: Callable[[dict[str, dict[str, Any]]], Any] | None = None,
) -> int:
    """Make the stored latest chunks of ``document_id`` and ``partner`` (every strategy) point
    at each other (``partner`` None: unlink ``document_id`` and whoever pointed at it); only
    chunks whose counterpart keys change are written. Returns how many were."""
    docs = [document_id] + ([partner] if partner else [])
    stored = _records(latest_rows(collection, {"document_id": {"$in": docs}}))
    pointing = _records(latest_rows(collection, {"counterpart_document_id": document_id}))
    seen = {c.id for c in stored}
    stored += [c for c in pointing if c.id not in seen]
    return update_metadata(collection, counterpart_changes(stored, document_id, partner), also)


def latest_rows(
    collection: Any, where: dict[str, Any], include: Sequence[str] = (), strategy: str | None = None
) -> dict[str, Any]:
    """Chroma's ``get`` of the latest chunks among those ``where`` names (by their paper, or
    the paper they point at), of one stored strategy or all, with their metadata and
    ``include``: asked by ``where`` alone and narrowed here.

    Why: Chroma's metadata filter intersects the rows of each clause, and ``strategy_type``
    and ``is_latest_version`` hold for most of a store, so a paper's chunks asked with them
    cost time in proportion to everything stored, while the paper alone costs about its own
    rows (a paper's 200 chunks of a strategy: 14 and 15 ms among 8,000 stored, 160 and 28 ms
    among 200,000: ``scripts/bench_chroma_reads.py``)."""
    got = with_retries(lambda: collection.get(where=where, include=["metadatas", *include]))
    keep = [
        i
        for i, meta in enumerate(got["metadatas"] or [])
        if meta.get("is_latest_version") is True and strategy in (None, meta.get("strategy_type"))
    ]
    return {key: _picked(got.get(key), keep) for key in ("ids", "metadatas", *include)}


def _picked(values: Any, keep: list[int]) -> Any:
    """The rows ``keep`` of one of ``get``'s columns (a list, or an array of embeddings)."""
    if values is None:
        return None
    return values[keep] if hasattr(values, "shape") else [values[i] for i in keep]


def stored_chunks(
    collection: Any, where: dict[str, Any] | None = None, text: bool = True
) -> list[ChunkRecord]:
    """Every stored chunk matching ``where``, as its record, for views and counterparts;
    ``text=False``: with an empty text, for a caller that reads only the metadata (Chroma
    then reads no document)."""
    include = ["metadatas", "documents"] if text else ["metadatas"]
    got = with_retries(lambda: collection.get(where=where, include=include))
    return _records(got)


def stored_vectors(collection: Any, where: dict[str, Any] | None = None) -> list[tuple[ChunkRecord, Any]]:
    """Every stored chunk matching ``where`` with its embedding, for the retriever's scopes
    (BM25, the question vectors, the per-language mean vectors)."""
    got = with_retries(lambda: collection.get(where=where, include=["metadatas", "documents", "embeddings"]))
    return list(zip(_records(got), got["embeddings"]))


def _records(got: Mapping[str, Any]) -> list[ChunkRecord]:
    """Chroma's ``get`` result as chunk records (:meth:`.ChunkRecord.from_chroma`)."""
    texts = got["documents"] if got.get("documents") is not None else [""] * len(got["ids"])
    rows = zip(got["ids"], texts, got["metadatas"] or [])
    return [ChunkRecord.from_chroma(i, d, m) for i, d, m in rows]


# -- what is stored ---------------------------------------------------------------------------
def stored_versions(collection: Any, document_id: str | None = None) -> list[dict[str, Any]]:
    """Per document, strategy and version: the latest flag, file name and chunk count.

    Latest versions first within a document and strategy; the basis of ``legco-assets
    documents`` and of the ``vector_index`` metadata table."""
    where = {"document_id": document_id} if document_id else None
    groups: dict[tuple[str, str, str, bool, str], int] = defaultdict(int)
    counterparts: dict[str, str] = {}  # document -> its paired other-language version (latest chunks)
    papers: dict[tuple[str, str], dict[str, Any]] = {}  # (document, version) -> its date, kind, number
    for chunk in stored_chunks(collection, where, text=False):
        m = chunk.metadata
        paper = {"date": m.date, "kind": m.kind, "paper_number": m.paper_number}
        papers.setdefault((chunk.document_id, m.content_sha256[:12]), {k: v for k, v in paper.items() if v})
        key = (
            chunk.document_id,
            m.strategy_type,
            m.content_sha256[:12],
            bool(m.is_latest_version),
            m.filename,
        )
        groups[key] += 1
        if m.counterpart_document_id and m.is_latest_version:
            counterparts[chunk.document_id] = m.counterpart_document_id
    ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], not kv[0][3], kv[0][2]))
    rows = []
    for (d, s, v, latest, f), n in ordered:
        row: dict[str, Any] = {
            "document_id": d,
            "strategy": s,
            "version": v,
            "latest": latest,
            "filename": f,
            "chunks": n,
            **papers.get((d, v), {}),
        }
        if latest and d in counterparts:
            row["counterpart_document_id"] = counterparts[d]
        rows.append(row)
    return rows


def versions_markdown(rows: list[dict[str, Any]]) -> str:
    """The stored-versions table as Markdown (for Dagster metadata)."""
    lines = ["| document | strategy | version | latest | chunks |", "|---|---|---|---|---|"]
    lines += [
        f"| {r['document_id']} | {r['strategy']} | {r['version']} | "
        f"{'yes' if r['latest'] else 'no'} | {r['chunks']} |"
        for r in rows
    ]
    return "\n".join(lines)
