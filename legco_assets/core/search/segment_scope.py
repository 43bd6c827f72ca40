"""A scope made of the papers' segments (:mod:`.segments`): what a server searches.

A :class:`.hits.Scope` built this way holds in memory only compact columns per chunk (its id,
document, script, flags, filter columns and BM25 length); the postings and the vectors stay
memory-mapped in the segments, and a record is read from its segment when a ranker or a hit
needs it. Assembling a scope from segments already open costs concatenating those columns, so
a server that sees a new paper opens its segment alone and assembles the scope again; nothing
is reloaded and no second copy of the index exists.

BM25 is scored at query time from the segments' postings with the scope's own statistics
(document count, mean length, each token's document frequency), by the formula and float
types of ``bm25s``' Lucene variant: the same scores as :class:`.bm25_index.Bm25Index` built
over the same chunks.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..records import ChunkRecord
from .bm25_index import Bm25Index, tokenize
from .hits import RowFacts, Scope
from .segment_store import SegmentStore
from .segments import SCRIPTS, Segment, open_segment, term_key
from .variants import forms_of
from .vector_rows import SegmentRows

K1, B = 1.5, 0.75  # bm25s' defaults, as the index built over a whole scope has them


class SegmentRecords(Sequence[ChunkRecord]):
    """The records of a scope's rows, each read from its segment when asked for."""

    def __init__(self, segments: list[Segment], starts: np.ndarray):
        self.segments, self.starts = segments, starts
        self.total = int(starts[-1]) if len(starts) else 0

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, row: int) -> ChunkRecord:  # type: ignore[override]
        if not 0 <= row < self.total:
            raise IndexError(row)
        at = int(np.searchsorted(self.starts, row, side="right")) - 1
        return self.segments[at].record(row - int(self.starts[at]))

    def __iter__(self) -> Iterator[ChunkRecord]:
        for segment in self.segments:
            for row in range(segment.rows):
                yield segment.record(row)


class SegmentedBm25(Bm25Index):
    """BM25 over a scope's segments: :class:`.bm25_index.Bm25Index`'s methods, scored from
    the postings at query time (see the module docstring)."""

    def __init__(self, segments: list[Segment], starts: np.ndarray, ids: list[str]):
        scripts = np.concatenate([s.arrays["scripts"] for s in segments]) if segments else np.zeros(0, "<U2")
        super().__init__(ids, scripts, None)  # type: ignore[arg-type]
        self.segments, self.starts = segments, starts
        lengths = (
            np.concatenate([s.arrays["lengths"] for s in segments]) if segments else np.zeros(0, np.int64)
        )
        self.n = len(lengths)
        average = lengths.mean() if self.n else np.float64(1.0)
        self.norm = K1 * ((1 - B) + B * lengths / average)  # per row, float64 as bm25s has it
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def vocabulary(self) -> set[str]:  # type: ignore[override]
        raise TypeError("a segmented index lists no vocabulary: ask known_tokens")

    def known_tokens(self, tokens: set[str]) -> set[str]:
        """Those of ``tokens`` some segment holds: each segment's dictionary searched once
        for all of them."""
        wanted = sorted(tokens)
        keys = np.array([term_key(t) for t in wanted], dtype=np.uint64)
        found = np.zeros(len(keys), dtype=bool)
        for segment in self.segments:
            terms = segment.arrays["terms"]
            if len(terms):
                found |= terms[np.minimum(np.searchsorted(terms, keys), len(terms) - 1)] == keys
        return {t for t, hit in zip(wanted, found) if hit}

    def postings_of(self, tokens: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The scope's rows holding each of ``tokens`` and its count in each. Each segment's
        dictionary is searched once for all of them (a query's tokens over every paper: the
        cost is per segment, not per token); the last queries' are kept (BM25 and its
        coverage ask for the same tokens)."""
        kept = self._postings
        found: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        wanted = []
        for token in dict.fromkeys(tokens):
            known = kept.get(token)
            if known is None:
                wanted.append(token)
            else:
                found[token] = known
        if wanted:
            keys = np.array([term_key(t) for t in wanted], dtype=np.uint64)
            parts: list[tuple[list[np.ndarray], list[np.ndarray]]] = [([], []) for _ in wanted]
            for segment, start in zip(self.segments, self.starts):
                terms = segment.arrays["terms"]
                at = np.searchsorted(terms, keys)
                hit = np.flatnonzero(at < len(terms))
                hit = hit[terms[at[hit]] == keys[hit]]
                indptr, rows, counts = (segment.arrays[n] for n in ("indptr", "post_rows", "post_tf"))
                for j in hit:
                    begin, end = int(indptr[at[j]]), int(indptr[at[j] + 1])
                    parts[j][0].append(rows[begin:end].astype(np.int64) + int(start))
                    parts[j][1].append(counts[begin:end])
            for token, (rows, counts) in zip(wanted, parts):
                found[token] = (
                    (np.concatenate(rows), np.concatenate(counts))
                    if rows
                    else (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))
                )
            if len(kept) > 1024:  # another search may read it meanwhile: it reads its own ``found``
                kept.clear()
            kept.update((t, found[t]) for t in wanted)
        return found

    def scores(self, query: str) -> np.ndarray:
        if not self.n:
            return np.zeros(0, dtype=np.float32)
        scores = np.zeros(self.n, dtype=np.float32)
        tokens = tokenize(query)
        found = self.postings_of(tokens)
        for token in tokens:  # a repeated token counts again, as bm25s counts it
            rows, counts = found[token]
            if not len(rows):
                continue
            idf = np.float32(math.log(1 + (self.n - len(rows) + 0.5) / (len(rows) + 0.5)))
            tf = counts.astype(np.float64)
            np.add.at(scores, rows, (np.float64(idf) * (tf / (self.norm[rows] + tf))).astype(np.float32))
        return scores

    def coverage(self, query: str) -> np.ndarray:
        if not self.n:
            return np.zeros(0, dtype=np.float32)
        covered = np.zeros(self.n, dtype=np.float64)
        total = 0.0
        terms = list(dict.fromkeys(tokenize(query)))
        found = self.postings_of(terms)
        for term in terms:
            rows, _ = found[term]
            weight = _idf(self.n, len(rows))
            total += weight
            covered[rows] += weight
        return (covered / total).astype(np.float32) if total else covered.astype(np.float32)


def _idf(documents: int, frequency: int) -> float:
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


def _means(segments: list[Segment], name: str) -> dict[str, np.ndarray]:
    """The mean unit vector per script, from the segments' sums (``chunk_sums``/``question_sums``)."""
    sums = [s.arrays[name] for s in segments if s.arrays[name].shape[1] > 1]
    if not sums:
        return {}
    total = np.sum(sums, axis=0)
    return {
        script: (total[i, :-1] / total[i, -1]).astype(np.float32)
        for i, script in enumerate(SCRIPTS)
        if total[i, -1] > 0
    }


def segment_scope(segments: list[Segment]) -> Scope:
    """The scope of ``segments`` (one strategy's latest papers), ranking its chunk vectors
    itself (:attr:`.hits.Scope.vectors`)."""
    started = time.perf_counter()
    segments = sorted(segments, key=lambda s: s.document_id + ":")
    sizes = [s.rows for s in segments]
    starts = np.zeros(len(segments) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    ids = [chunk_id for s in segments for chunk_id in s.ids]
    stored = {s.document_id for s in segments}
    documents = np.empty(len(ids), dtype=object)
    for segment, start in zip(segments, starts):
        documents[int(start) : int(start) + segment.rows] = segment.document_id
    question_rows = [
        s.arrays["question_rows"].astype(np.int64) + int(start) for s, start in zip(segments, starts)
    ]
    return Scope(
        records=SegmentRecords(segments, starts),
        index=SegmentedBm25(segments, starts, ids),
        documents=documents,
        question_rows=np.concatenate(question_rows) if question_rows else np.zeros(0, dtype=np.int64),
        question_vectors=_rows(segments, "question_vectors"),
        asked=np.concatenate([s.arrays["asked"] for s in segments]) if segments else np.zeros(0, dtype=bool),
        script_means=_means(segments, "chunk_sums"),
        question_means=_means(segments, "question_sums"),
        count=len(ids),
        built=False,
        seconds=time.perf_counter() - started,
        printed_forms=forms_of(sum((s.variants for s in segments), Counter())),
        ids=ids,
        position={chunk_id: row for row, chunk_id in enumerate(ids)},
        paired={s.document_id for s in segments if any(d in stored for d in s.counterpart_documents if d)},
        facts=RowFacts.concat([s.facts for s in segments]),
        vectors=_rows(segments, "vectors"),
    )


def _rows(segments: list[Segment], name: str) -> SegmentRows:
    return SegmentRows(
        [s.arrays[name] for s in segments],
        [s.arrays[f"{name}_i8"] for s in segments],
        [s.arrays[f"{name}_scale"] for s in segments],
    )


def paper_rows(segments: list[Segment]) -> list[dict[str, Any]]:
    """Per segment, what the document listing shows (``legco-assets documents``, ``/api/documents``)."""
    rows = []
    for segment in segments:
        paper = dict(segment.meta.get("paper", {}))
        counterparts = {d for d in segment.counterpart_documents if d}
        rows.append(
            {
                "document_id": segment.document_id,
                "strategy": segment.strategy,
                "version": str(segment.meta.get("sha256", ""))[:12],
                "filename": paper.get("filename", ""),
                "chunks": segment.rows,
                "counterpart_document_id": min(counterparts) if counterparts else None,
                "date": paper.get("date"),
                "date_precision": paper.get("date_precision"),
                "kind": paper.get("kind"),
                "paper_number": paper.get("paper_number"),
            }
        )
    return rows


def served_scopes(store: SegmentStore) -> dict[str, Scope]:
    """Every strategy's scope of the index in ``store``, each paper's latest segment opened:
    what a server searches, for a process that has no live index (the eval's ``--served``)."""
    by_strategy: dict[str, list[Segment]] = {}
    for (strategy, _), folder in store.listing().items():
        by_strategy.setdefault(strategy, []).append(open_segment(folder))
    return {strategy: segment_scope(segments) for strategy, segments in by_strategy.items()}
