"""What a search works with and hands back: the search mode (:mod:`legco_assets.core.modes`),
a ranker's candidate, the ranked hit, the loaded scope of chunks, and the ``where`` clause of
the query filters. Every record
here is the typed :class:`.records.ChunkRecord`; its JSON form is made only for output
(:meth:`Hit.to_json`).

Every other search module that handles hits (the retriever, the fusion, the annex and
counterpart links, reranking, answering) imports these records; they import none of those.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from ..modes import DEFAULT_MODE as DEFAULT_MODE  # the search imports them from here
from ..modes import Mode as Mode
from ..records import ChunkMetadata, ChunkRecord
from ..settings import Strategy
from ..structure import speaker_key
from .bm25_index import script_of


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
class RowFacts:
    """Per row of a scope, what the search filters and the appendix links compare: the
    paper's date and kind, the exchange's asker and answerer and everyone who speaks in the
    chunk (each name in one form: :func:`..structure.speaker_key`; the speakers a tuple or
    None), the chunk's ``question_id`` and its version. Columns, so a filter is a vector
    comparison and a scope need not keep its records in memory."""

    dates: np.ndarray
    kinds: np.ndarray
    askers: np.ndarray
    answerers: np.ndarray
    speakers: np.ndarray
    question_ids: np.ndarray
    versions: np.ndarray

    @classmethod
    def of(cls, records: Sequence[ChunkRecord]) -> RowFacts:
        metas = [r.metadata for r in records]
        return cls.columns(
            [m.date for m in metas],
            [m.kind for m in metas],
            [m.asker_name or speaker_key(m.asker) for m in metas],
            [m.answerer_name or speaker_key(m.answerer) for m in metas],
            shared_tuples([speaker_key(name) for name in m.speakers or ()] for m in metas),
            [m.question_id for m in metas],
            [m.content_sha256 for m in metas],
        )

    @classmethod
    def columns(cls, *values: Sequence[Any]) -> RowFacts:
        return cls(*(_objects(v) for v in values))

    @classmethod
    def concat(cls, parts: Sequence[RowFacts]) -> RowFacts:
        if not parts:
            return cls.columns([], [], [], [], [], [], [])
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))


def shared_tuples(values: Iterable[Iterable[Any] | None]) -> list[tuple[Any, ...] | None]:
    """Each value as a tuple (None when empty), one object per distinct tuple: a speech's
    speakers repeat on row after row, and a tuple is what a filter's verdicts are cached by."""
    seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    out: list[tuple[Any, ...] | None] = []
    for value in values:
        found = tuple(v for v in value or () if v)
        out.append(seen.setdefault(found, found) if found else None)
    return out


def _objects(values: Sequence[Any]) -> np.ndarray:
    """A column of objects; tuples stay whole (numpy would read a list of them as rows)."""
    values = list(values)
    out = np.empty(len(values), dtype=object)
    if any(isinstance(v, tuple) for v in values):
        for row, value in enumerate(values):
            out[row] = value
    else:
        out[:] = values
    return out


@dataclass
class Scope:
    """The chunks of one (strategy, versions) scope: records, BM25 index, question vectors.

    Built from the records Chroma holds (:meth:`.retrieval.Retriever.scope`), or from the
    papers' stored index entries (:mod:`.segment_scope`: a server's, whose ``records`` are read
    from disk by row and whose matrices are memory-mapped); the rankers read both alike."""

    records: Sequence[ChunkRecord]
    index: Any  # :class:`.bm25_index.Bm25Index`, or the segments' (same methods)
    documents: np.ndarray  # document id per row, for the document filter
    question_rows: np.ndarray  # rows that take part in the question-side ranker (every row by default)
    # unit vectors of their question sides, one per question row (:mod:`.vector_rows`: ``best``)
    question_vectors: Any
    asked: np.ndarray  # per row: the chunk has a question of the paper's own (``question_text``)
    script_means: dict[str, np.ndarray]  # mean unit chunk vector per script ("zh", "en")
    question_means: dict[str, np.ndarray]  # mean unit question vector per script of its chunk
    count: int  # collection.count() when loaded: a cheap staleness signal
    built: bool  # the BM25 index was (re)built on load rather than read from the cache
    seconds: float
    # every variant character in the form the scope's chunks print most: how the embedder reads
    # a query (:func:`.variants.printed_forms`)
    printed_forms: dict[int, str] = field(default_factory=dict)
    # the chunk id of each row; chunk id -> row; documents whose other-language version is
    # stored in the scope too (``counterpart_document_id``); the rows' filter columns. Made
    # from the records when not given.
    ids: Sequence[str] = field(default=None, repr=False)  # type: ignore[assignment]
    position: Mapping[str, int] = field(default=None, repr=False)  # type: ignore[assignment]
    paired: set[str] = field(default=None, repr=False)  # type: ignore[assignment]
    facts: RowFacts = field(default=None, repr=False)  # type: ignore[assignment]
    # the unit chunk vectors of every row (:mod:`.vector_rows`), when the scope ranks them itself
    # (a server's, :mod:`.segment_scope`); None: the vector store ranks them
    vectors: Any = field(default=None, repr=False)
    # the rows each search filter keeps, computed once per scope (:meth:`.filters.SearchFilters.mask`)
    masks: dict[Any, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.ids is None:
            self.ids = [r.id for r in self.records]
        if self.position is None:
            self.position = {chunk_id: i for i, chunk_id in enumerate(self.ids)}
        if self.paired is None:
            stored = {r.document_id for r in self.records}
            self.paired = {
                r.document_id for r in self.records if r.metadata.counterpart_document_id in stored
            }
        if self.facts is None:
            self.facts = RowFacts.of(self.records)

    def script(self, chunk_id: str, text: str) -> str:
        """The chunk's script, from the index (computed once per build) when it is there."""
        row = self.position.get(chunk_id)
        return str(self.index.scripts[row]) if row is not None else script_of(text)

    def nearest(self, vector: np.ndarray, n: int, mask: np.ndarray | None) -> list[Candidate]:
        """The best ``n`` rows by cosine similarity of :attr:`vectors`, among ``mask``'s."""
        rows, sims = self.vectors.best(vector, n, mask)
        return [Candidate(self.records[int(row)], float(sim)) for row, sim in zip(rows, sims)]
