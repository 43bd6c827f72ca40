"""What a search works with and hands back: the search mode (:mod:`legco_assets.core.modes`),
a ranker's candidate, the ranked hit, the loaded scope of chunks, and the ``where`` clause of
the query filters. Every record
here is the typed :class:`.records.ChunkRecord`; its JSON form is made only for output
(:meth:`Hit.to_json`).

Every other search module that handles hits (the retriever, the fusion, the annex and
counterpart links, reranking, answering) imports these records; they import none of those.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..modes import DEFAULT_MODE as DEFAULT_MODE  # the search imports them from here
from ..modes import Mode as Mode
from ..records import ChunkMetadata, ChunkRecord
from ..settings import Strategy
from .bm25_index import Bm25Index, script_of


@dataclass
class Candidate:
    """A chunk as one ranker saw it. ``coverage`` is BM25's (1.0 for the other rankers)."""

    record: ChunkRecord
    score: float
    coverage: float = 1.0
    rank: int | None = None  # the rank it is voted at, when not its place in its ranker's list

    @property
    def id(self) -> str:
        return self.record.id


@dataclass
class Hit:
    """One ranked chunk: its chunk record (docs/design.md#chunk-record) plus its rank and score.

    ``ranks`` holds its 1-based rank in each ranker that found it (``vector``,
    ``question``, ``bm25``; prefixed with :data:`.fusion.TRANSLATED` for the translated query)."""

    record: ChunkRecord
    rank: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    counterpart: ChunkRecord | None = None  # the other language's version of this chunk, when stored
    links: list[ChunkRecord] = field(
        default_factory=list
    )  # its appendix (or the exchange it answers), when stored

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def text(self) -> str:
        return self.record.text

    @property
    def metadata(self) -> ChunkMetadata:
        return self.record.metadata

    def to_json(self) -> dict[str, Any]:
        """The chunk record with ``rank`` and ``score`` (the ``query --json`` line), and its
        ``counterpart`` record when the other language's version is stored."""
        out = {**self.record.to_json(), "rank": self.rank, "score": round(self.score, 6)}
        if self.counterpart is not None:
            out["counterpart"] = self.counterpart.to_json()
        if self.links:
            out["linked"] = [
                {
                    "id": r.id,
                    "page_number": r.page_number,
                    "question_id": r.metadata.question_id,
                    "annex": r.metadata.annex,
                }
                for r in self.links
            ]
        return out


def ranked_hits(candidates: list[Candidate], ranker: str) -> list[Hit]:
    """One ranker's candidates as hits (its own score, its own order)."""
    return [Hit(c.record, i, c.score, {ranker: i}) for i, c in enumerate(candidates, start=1)]


def distinct(hits: list[Hit]) -> list[Hit]:
    """Each chunk text once, where it ranks best, the ranks renumbered. The same
    bytes are one partition now, but a data dir made before may hold one paper under two
    ids, and two papers may share a passage word for word: a reader gains nothing from
    the second copy, and it would push an answer out of the first ``k``."""
    seen: set[str] = set()
    kept = []
    for hit in hits:
        if hit.text not in seen:
            seen.add(hit.text)
            kept.append(hit)
    return [replace(h, rank=n) for n, h in enumerate(kept, start=1)]


def stored_strategy(strategy: Strategy | str) -> str:
    """The ``strategy_type`` the chunks of ``strategy`` are stored under: a strategy's value,
    or the name as given for a set of chunks the evaluation stores beside the strategies'
    (its ``baseline`` windows), so a search takes either. The text, never the member
    (``Strategy.token`` is what a member prints), goes into a filter or a cache file's name."""
    return strategy.value if isinstance(strategy, Strategy) else strategy


def chunk_filter(
    strategy: Strategy | str | None, document: str | None = None, all_versions: bool = False
) -> dict[str, Any] | None:
    """The Chroma ``where`` clause for the query filters (None when nothing is filtered)."""
    clauses: list[dict[str, Any]] = []
    if strategy:
        clauses.append({"strategy_type": stored_strategy(strategy)})
    if document:
        clauses.append({"document_id": document})
    if not all_versions:
        clauses.append({"is_latest_version": True})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


@dataclass
class Scope:
    """The chunks of one (strategy, versions) scope: records, BM25 index, question vectors."""

    records: list[ChunkRecord]
    index: Bm25Index
    documents: np.ndarray  # document id per row, for the document filter
    question_rows: np.ndarray  # rows that take part in the question-side ranker (every row by default)
    question_vectors: np.ndarray  # unit vectors of their question sides, one per question row
    asked: np.ndarray  # per row: the chunk has a question of the paper's own (``question_text``)
    script_means: dict[str, np.ndarray]  # mean unit chunk vector per script ("zh", "en")
    question_means: dict[str, np.ndarray]  # mean unit question vector per script of its chunk
    count: int  # collection.count() when loaded: a cheap staleness signal
    built: bool  # the BM25 index was (re)built on load rather than read from the cache
    seconds: float
    # every variant character in the form the scope's chunks print most: how the embedder reads
    # a query (:func:`.variants.printed_forms`)
    printed_forms: dict[int, str] = field(default_factory=dict)
    position: dict[str, int] = field(init=False, repr=False)
    # documents whose other-language version is stored in the scope too (``counterpart_document_id``)
    paired: set[str] = field(init=False, repr=False)
    # the rows each search filter keeps, computed once per scope (:meth:`.filters.SearchFilters.mask`)
    masks: dict[Any, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self.position = {r.id: i for i, r in enumerate(self.records)}
        stored = {r.document_id for r in self.records}
        self.paired = {r.document_id for r in self.records if r.metadata.counterpart_document_id in stored}

    def script(self, chunk_id: str, text: str) -> str:
        """The chunk's script, from the index (computed once per build) when it is there."""
        row = self.position.get(chunk_id)
        return self.index.scripts[row] if row is not None else script_of(text)
