"""Search the stored chunks: BM25, Chroma vectors, and their fusion; what is stored, per version.

Why hybrid: BM25 finds exact figures, names and ordinance titles that an embedding blurs;
the multilingual embedding finds paraphrases and answers an English question about a
Chinese paper, where BM25 is at chance. A third ranker compares the query with the
*question* of each Q&A chunk (``question_text``, embedded on its own): a user's question is
closest to the paper's question, not to a long answer full of figures, and this is what the
question strategy gives retrieval that token windows cannot. Since issue 29 every chunk of
the question strategy takes part in it (:data:`QUESTION_SIDE`): a narrative chunk by its own
vector, each kind ranked among its own, its vote under a question's
(``Fusion.narrative_weight``). Before, only Q&A chunks had that vote, so a Q&A chunk of any
paper outranked every narrative chunk (on the blind narrative dev set the question strategy
found no answer in its first five).

The rankings are fused by weighted reciprocal rank fusion (``weight / (k + rank)``, k = 60).
BM25's vote for a chunk is scaled by how much of the query the chunk matched (IDF-weighted
coverage, :meth:`.bm25_index.Bm25Index.coverage`): this routes by language without a
language detector, since an English query covers next to nothing of a Chinese chunk, and it
also silences BM25 when an English question about a Chinese paper matches stray words of an
English paper. Ranks alone forget how far a ranker's first candidate stands above the rest:
an exact match that BM25 scores far ahead of its field, or a paper question nearly identical
to the user's, votes no more than a near miss in first place. So each vote also counts by its
margin (the candidate's score as a z-score over its ranker's first :attr:`Fusion.margin_depth`,
above the mean only), at the same weights, blended with the reciprocal ranks at
:attr:`Fusion.margin_share` (issue 29, fourth round: :func:`margins`). Neither says whether a
chunk holds the whole question or repeats one rare word of it, so the share of the query's
words a chunk holds counts on its own too, at :attr:`Fusion.coverage_share` (its sixth
round: :func:`blend`). The weights were
chosen on the eval's development sets (:mod:`.evaluation`, ``docs/retrieval.md``) and then
scored once on blind sets written after the choice.

Before the chunk-vector search of question chunks the query vector loses half of the mean
vector of the scope's chunks in the query's script (:data:`LANGUAGE_CENTERING`). A multilingual encoder puts a
language component into every vector (Libovický et al., 2020, "On the Language Neutrality of
Pre-trained Multilingual Representations"), so a Chinese question is near *every* Chinese
chunk and an English paper that answers it loses to a Chinese paper on a nearby subject.
Taking that shared component out of the query lets content count more than language. It is
done on the query side only, so Chroma still does the search over the stored vectors. It
helps the fusion of question chunks but hurts long token windows and the chunk vectors used
alone, so it is set per strategy and ``vector`` mode searches with the plain query. The
question ranker has the same bias (a Chinese query is nearest the Chinese papers' questions)
and takes out :data:`QUESTION_CENTERING` of the mean question vector of the query's script.

Without an LLM, a fourth ranker carries the query across scripts for BM25: its words
rendered in the other language by CC-CEDICT (:mod:`.dictionary_translation`, issue 29's
second round), its vote weighted by how much of the query was rendered, and only for papers
with no version in the query's language stored (:func:`dictionary_votes`, its fifth round).
With an LLM configured, hybrid search also runs the rankers for the query translated into
the papers' other language and adds their votes (:mod:`.query_translation`): the one lever
that closes most of the cross-language gap.

Filters are the same for every ranker: strategy, optionally one document, and the latest
version only unless ``all_versions`` is asked for. The BM25 index of a (strategy, versions)
scope is loaded from ``data/cache/bm25`` and rebuilt only when the stored chunks change
(:func:`.bm25_index.load_or_build`); question vectors come from the embedding cache.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..llm import unfenced
from .bm25_index import Bm25Index, load_or_build, script_of
from .dictionary_translation import translate_words, vocabulary_test
from .question_side import question_side
from .sections import lift
from .vector_store import stored_chunks, with_retries

RRF_K = 60
# Share of the query-script mean chunk vector taken out of the chunk-vector query, per strategy
# (eval: docs/retrieval.md).
# Token windows lose with it (Hit@5 0.66 -> 0.59 on the fixture eval), so they keep 0.
LANGUAGE_CENTERING = {"question": 0.5}
QUESTION_CENTERING = 0.75  # share of the query-script mean question vector the question ranker removes
# what the question-side ranker compares the query with (:mod:`.question_side`): "qa", Q&A
# chunks' questions only (before issue 29); "opening", every chunk, a narrative chunk by its
# headings and opening; "chunk", every chunk, a narrative chunk by its own text's vector.
# Per strategy: token windows have no questions, and a second vote of their own vectors only
# loses there (docs/retrieval.md)
QUESTION_SIDES = ("qa", "opening", "chunk")
QUESTION_SIDE = {"question": "chunk", "token": "qa"}
PER_KIND = True  # rank Q&A chunks and the others each among their own kind in that ranker
OVERSAMPLE = 50  # extra unfiltered results asked for, so a scope's share of them is rarely short
# BM25 of the query's words in the other script, from the dictionary (:mod:`.dictionary_translation`)
DICTIONARY = "bm25-dictionary"
FUSED = ("vector", "question", "bm25", DICTIONARY)  # the rankers hybrid mode fuses
PLAIN_VECTOR = "vector-plain"  # the vector mode's ranking, uncentred, when the eval asks for it
RECORD_KEYS = ("document_id", "page_number")  # stored as Chroma metadata, top-level in records


class Mode(str, Enum):
    """How to rank: fused, chunk embeddings only, or BM25 only."""

    hybrid = "hybrid"
    vector = "vector"
    bm25 = "bm25"


@dataclass(frozen=True)
class Fusion:
    """Weights of the reciprocal rank fusion (hybrid mode).

    A chunk's fused score is the sum over rankers of ``weight / (k + rank)``; BM25's weight
    is multiplied by ``coverage ** coverage_power`` (see the module docstring) and by
    ``cross_script_bm25_weight`` when the chunk is not in the query's script. ``depth``
    candidates are taken from each ranker before fusing."""

    k: int = RRF_K
    vector_weight: float = 1.0
    question_weight: float = 1.0
    # BM25's vote equals the two embedding rankers' together (issue 29, third round: on
    # every set then scored, BM25 alone beat the hybrid in the question's own language, the
    # two USE rankers outvoting its exact matches with near misses); chosen with
    # ``coverage_power`` on the development sets, the best real-paper figures that keep the
    # fixture papers' bars of issue 6 (docs/retrieval.md)
    bm25_weight: float = 2.0
    coverage_power: float = 0.5
    cross_script_bm25_weight: float = 1.0
    depth: int = 50
    translation_weight: float = 1.0  # the translated query's votes (with an LLM configured)
    # a chunk's score is at least this share of its other-language counterpart's
    # (:func:`inherit_counterparts`; 0 turns it off)
    counterpart_share: float = 0.0
    # share of a chunk's section-mates' (decayed) fused scores added to its own
    # (:func:`.sections.lift`; 0 turns it off)
    section_share: float = 0.0
    # the question-side ranker's vote for a chunk asked by its own text or its opening rather
    # than by a question of the paper's own (:mod:`.question_side`), as a share of
    # ``question_weight``: under 1, so that a tie between a paper's question and a narrative
    # chunk goes to the question. This weight, the question ranker's 1 (was 2) and the
    # dictionary's vote were chosen together on the development sets of issue 29's second
    # round (docs/retrieval.md)
    narrative_weight: float = 0.8
    # BM25 of the dictionary's rendering of the query in the other script, as a share of
    # BM25's own vote (its coverage is of the rendering); 0 turns it off
    dictionary_weight: float = 1.0
    # whether the dictionary also votes for chunks of papers whose version in the query's own
    # language is stored (:func:`dictionary_votes`); off since issue 29's fifth round
    dictionary_on_paired: bool = False
    # share of the fused score that comes from the votes' margins rather than their ranks
    # (:func:`margins`; 0 is the plain weighted reciprocal rank fusion), and how many of a
    # ranker's first candidates its margins are measured against. Chosen on the development
    # sets of issue 29's fourth round (docs/retrieval.md)
    margin_share: float = 0.3
    margin_depth: int = 20
    # share of the fused score that comes from how much of the query's words a chunk holds
    # (BM25's IDF-weighted coverage, of the dictionary's rendering off the query's script),
    # beside the ranks and margins (:func:`blend`; 0 turns it off). Chosen with
    # ``margin_share`` (was 0.4) on the development sets of issue 29's sixth round
    coverage_share: float = 0.2

    def bm25_vote(self, candidate: "Candidate", query_script: str, chunk_script: str) -> float:
        """The weight of BM25's vote for one chunk."""
        weight = self.bm25_weight * candidate.coverage**self.coverage_power
        return weight if query_script == chunk_script else weight * self.cross_script_bm25_weight


DEFAULT_FUSION = Fusion()
DEFAULT_MODE = Mode.hybrid
PLAIN_RRF = Fusion(question_weight=0.0, coverage_power=0.0, dictionary_weight=0.0, margin_share=0.0, coverage_share=0.0)  # the textbook fusion, for comparison


@dataclass
class Candidate:
    """A chunk as one ranker saw it. ``coverage`` is BM25's (1.0 for the other rankers)."""

    record: dict[str, Any]
    score: float
    coverage: float = 1.0
    rank: int | None = None  # the rank it is voted at, when not its place in its ranker's list

    @property
    def id(self) -> str:
        return str(self.record["id"])


@dataclass
class Hit:
    """One ranked chunk: the DESIGN.md chunk record plus its rank and score.

    ``ranks`` holds its 1-based rank in each ranker that found it (``vector``,
    ``question``, ``bm25``; prefixed with :data:`TRANSLATED` for the translated query)."""

    record: dict[str, Any]
    rank: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    counterpart: dict[str, Any] | None = None  # the other language's version of this chunk, when stored
    links: list[dict[str, Any]] = field(default_factory=list)  # its appendix (or the exchange it answers), when stored

    @property
    def id(self) -> str:
        return str(self.record["id"])

    @property
    def text(self) -> str:
        return str(self.record["text"])

    @property
    def metadata(self) -> dict[str, Any]:
        return self.record["metadata"]

    def to_json(self) -> dict[str, Any]:
        """The chunk record with ``rank`` and ``score`` (the ``query --json`` line), and its
        ``counterpart`` record when the other language's version is stored."""
        out = {**self.record, "rank": self.rank, "score": round(self.score, 6)}
        if self.counterpart is not None:
            out["counterpart"] = self.counterpart
        if self.links:
            out["linked"] = [{"id": r["id"], "page_number": r["page_number"], "question_id": r["metadata"].get("question_id"),
                              "annex": r["metadata"].get("annex")} for r in self.links]
        return out


def record_from_stored(chunk_id: str, text: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """Chroma's (id, document, metadata) back into the chunk record shape of DESIGN.md."""
    meta = {k: v for k, v in metadata.items() if k not in RECORD_KEYS}
    return {
        "id": chunk_id,
        "document_id": metadata.get("document_id"),
        "text": text,
        "page_number": metadata.get("page_number", metadata.get("page_start")),
        "metadata": meta,
    }


def chunk_filter(strategy: str | None, document: str | None = None, all_versions: bool = False) -> dict[str, Any] | None:
    """The Chroma ``where`` clause for the query filters (None when nothing is filtered)."""
    clauses: list[dict[str, Any]] = []
    if strategy:
        clauses.append({"strategy_type": strategy})
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

    records: list[dict[str, Any]]
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
    position: dict[str, int] = field(init=False, repr=False)
    # documents whose other-language version is stored in the scope too (``counterpart_document_id``)
    paired: set[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.position = {r["id"]: i for i, r in enumerate(self.records)}
        stored = {r["document_id"] for r in self.records}
        self.paired = {r["document_id"] for r in self.records if r["metadata"].get("counterpart_document_id") in stored}

    def script(self, chunk_id: str, text: str) -> str:
        """The chunk's script, from the index (computed once per build) when it is there."""
        row = self.position.get(chunk_id)
        return self.index.scripts[row] if row is not None else script_of(text)


def _script_means(vectors: np.ndarray, scripts: list[str]) -> dict[str, np.ndarray]:
    """The mean of the unit vectors of each script: the language component that
    :meth:`Retriever.centred` takes out of the query."""
    if not len(vectors):
        return {}
    labels = np.asarray(scripts)
    return {s: vectors[labels == s].mean(axis=0) for s in sorted(set(scripts))}


def _unit_rows(vectors: list[Any]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.size == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


class Retriever:
    """Ranked search over one Chroma collection.

    Keeps each scope's chunks, BM25 index and question vectors in memory; a scope is
    reloaded when the collection's size changes (a new document or version was written),
    so a long-lived process sees new chunks without a restart. ``embedder`` is the
    collection's embedding function: the query is embedded once per search, by the same
    model (and the same ``embed_query`` prefixing) as the stored chunks."""

    def __init__(
        self,
        collection: Any,
        embedder: Callable[..., Any],
        cache_dir: Path | None = None,
        fusion: Fusion = DEFAULT_FUSION,
        centering: float | None = None,
        question_centering: float = QUESTION_CENTERING,
        translator: Callable[[str], str | None] | None = None,
        reranker: Reranker | None = None,
        question_sides: str | None = None,
        per_kind: bool | None = None,
    ):
        self.collection = collection
        self.translator = translator  # query -> the query in the other language (an LLM), or None
        self.reranker = reranker  # (query, fused top records) -> the model's order of them, or None
        self._translations: dict[str, str | None] = {}
        self.embedder = embedder
        self.cache_dir = cache_dir
        self.fusion = fusion
        self.centering = centering  # None: LANGUAGE_CENTERING of the searched strategy
        self.question_centering = question_centering
        # which chunks take part in the question-side ranker, and by what (:data:`QUESTION_SIDES`)
        self.question_sides = question_sides  # None: QUESTION_SIDE of the searched strategy
        # rank Q&A chunks and the others each among their own kind in that ranker
        self.per_kind = PER_KIND if per_kind is None else per_kind
        self._scopes: dict[tuple[str, bool], Scope] = {}

    @classmethod
    def open(
        cls,
        settings: Any,
        fusion: Fusion = DEFAULT_FUSION,
        collection: Any | None = None,
        translate: bool = True,
        rerank: bool = True,
    ) -> "Retriever":
        """The configured collection and embedding function, BM25 cached under the data dir;
        with an LLM configured, hybrid search also runs the query in the papers' other
        language (``translate``, :mod:`.query_translation`) and has the model re-order the
        fused top chunks (``rerank``, :mod:`.rerank`)."""
        from ..llm import LLMClient
        from .embeddings import embedding_function
        from .query_translation import translator
        from .rerank import reranker
        from .vector_store import open_collection

        llm = LLMClient.from_settings(settings) if translate or rerank else None
        return cls(
            collection or open_collection(settings),
            embedding_function(settings),
            settings.cache_dir / "bm25",
            fusion,
            translator=translator(llm) if translate else None,
            reranker=reranker(llm) if rerank else None,
        )

    # -- scopes ----------------------------------------------------------------------------
    def scope(self, strategy: str, all_versions: bool = False) -> Scope:
        """The loaded scope, (re)loading it when absent or when the collection changed."""
        key = (strategy, all_versions)
        count = with_retries(self.collection.count)
        current = self._scopes.get(key)
        if current is None or current.count != count:
            current = self._load_scope(strategy, all_versions, count)
            self._scopes[key] = current
        return current

    def forget_scopes(self) -> None:
        """Load every scope again at its next search (after changing how the question-side
        ranker sees chunks: its vectors are built with the scope)."""
        self._scopes.clear()

    def _load_scope(self, strategy: str, all_versions: bool, count: int) -> Scope:
        started = time.perf_counter()
        where = chunk_filter(strategy, None, all_versions)
        stored = sorted(stored_chunks(self.collection, where, embeddings=True), key=lambda c: c["id"])
        name = f"{strategy}-{'all' if all_versions else 'latest'}"
        index, built = load_or_build(self.cache_dir, name, stored)
        records = [record_from_stored(c["id"], c["text"], c["metadata"]) for c in stored]
        asked = np.array([bool(r["metadata"].get("question_text")) for r in records], dtype=bool)
        sides = self.question_sides or QUESTION_SIDE.get(strategy, "qa")
        rows = [i for i in range(len(records)) if asked[i] or sides != "qa"]
        if sides == "chunk":  # a narrative chunk is asked by its own text's vector
            side = [None if asked[i] else stored[i]["embedding"] for i in rows]
            embedded = iter(self._embed_unique([question_side(records[i]) for i, v in zip(rows, side) if v is None]))
            questions = _unit_rows([next(embedded) if v is None else v for v in side])
        else:
            questions = _unit_rows(self._embed_unique([question_side(records[i]) for i in rows]))
        return Scope(
            records=records,
            index=index,
            documents=np.array([r["document_id"] for r in records], dtype=object),
            question_rows=np.array(rows, dtype=np.int64),
            asked=asked,
            question_vectors=questions,
            script_means=_script_means(_unit_rows([c["embedding"] for c in stored]), index.scripts),
            question_means=_script_means(questions, [index.scripts[i] for i in rows]),
            count=count,
            built=built,
            seconds=time.perf_counter() - started,
        )

    def _embed_unique(self, texts: list[str]) -> list[Any]:
        """Vectors for ``texts``, embedding each distinct text once (parts of a split pair
        repeat their question)."""
        distinct = list(dict.fromkeys(texts))
        vectors = dict(zip(distinct, self.embedder(distinct))) if distinct else {}
        return [vectors[t] for t in texts]

    def embed_query(self, query: str) -> np.ndarray:
        embed = getattr(self.embedder, "embed_query", self.embedder)
        return np.asarray(embed([query])[0], dtype=np.float32)

    def centering_share(self, strategy: str) -> float:
        """How much of the query-script mean the hybrid chunk-vector ranker removes."""
        return LANGUAGE_CENTERING.get(strategy, 0.0) if self.centering is None else self.centering

    @staticmethod
    def centred(vector: np.ndarray, query: str, means: dict[str, np.ndarray], share: float) -> np.ndarray:
        """The query vector at unit length, less ``share`` of ``means[script of the query]``
        (see the module docstring); unchanged but for the length when there is no such mean."""
        unit = vector / max(float(np.linalg.norm(vector)), 1e-12)
        mean = means.get(script_of(query))
        return unit if mean is None or not share else unit - share * mean

    # -- rankers ---------------------------------------------------------------------------
    def bm25_ranking(self, query: str, scope: Scope, n: int, document: str | None = None) -> list[Candidate]:
        """Best ``n`` chunks by BM25 (positive scores only), with their query coverage."""
        mask = (scope.documents == document) if document else None
        return [Candidate(scope.records[i], score, cov) for i, score, cov in scope.index.top(query, n, mask)]

    def dictionary_ranking(self, query: str, scope: Scope, n: int, document: str | None = None) -> list[Candidate]:
        """BM25 of the query's words rendered in the other script by the dictionary, when
        the scope holds chunks in that script (:mod:`.dictionary_translation`)."""
        other = "zh" if script_of(query) == "en" else "en"
        if other not in scope.script_means:
            return []
        rendering = translate_words(query, vocabulary_test(scope.index.vocabulary))
        if not rendering.text:
            return []
        found = self.bm25_ranking(rendering.text, scope, n, document)
        return [replace(c, coverage=c.coverage * rendering.share) for c in found]

    def vector_ranking(
        self, vector: np.ndarray, scope: Scope, strategy: str, n: int, document: str | None = None, all_versions: bool = False
    ) -> list[Candidate]:
        """Best ``n`` chunks of the scope by cosine similarity of their text, from Chroma.

        Chroma answers an unfiltered query in about a millisecond but needs tens of
        milliseconds for a ``where`` filter on a large collection (it builds the allowed-id
        set per query), and returning texts and metadata costs more than the search. The
        scope already holds the filtered chunks' records, so Chroma is asked for ids and
        distances only: restricted to the document's ids when one is given; unfiltered with
        extra results kept by scope membership when the scope is a large share of the
        collection; otherwise with the ``where`` filter."""
        if document is not None:
            ids = [r["id"] for r, doc in zip(scope.records, scope.documents) if doc == document]
            return self._query(vector, scope, min(n, len(ids)), ids=ids) if ids else []
        if scope.records and len(scope.records) * 4 >= scope.count:
            extra = (n + OVERSAMPLE) * -(-scope.count // len(scope.records))
            kept = self._query(vector, scope, min(extra, scope.count))[:n]
            if len(kept) >= min(n, len(scope.records)):
                return kept
        return self._query(vector, scope, n, where=chunk_filter(strategy, None, all_versions))

    def _query(
        self, vector: np.ndarray, scope: Scope, n: int, where: dict[str, Any] | None = None, ids: list[str] | None = None
    ) -> list[Candidate]:
        """Chroma's nearest ids and distances, as candidates of the scope (others dropped)."""
        got = with_retries(
            lambda: self.collection.query(query_embeddings=[vector.tolist()], n_results=n, where=where, ids=ids, include=["distances"])
        )
        pairs = zip(got["ids"][0], got["distances"][0])
        return [Candidate(scope.records[scope.position[i]], 1.0 - float(d)) for i, d in pairs if i in scope.position]

    def question_ranking(self, vector: np.ndarray, scope: Scope, n: int, document: str | None = None) -> list[Candidate]:
        """Best ``n`` chunks by cosine similarity of their question side alone (a Q&A chunk's
        question; another chunk's own vector, or its headings and opening:
        :data:`QUESTION_SIDE`; ``vector``: the query, already centred by the caller). With
        ``per_kind``, each kind's best ``n`` carry their rank among their own kind."""
        if not len(scope.question_rows):
            return []
        rows = scope.question_rows
        sims = scope.question_vectors @ (vector / max(float(np.linalg.norm(vector)), 1e-12))
        if document:
            keep = scope.documents[rows] == document
            rows, sims = rows[keep], sims[keep]
        order = np.argsort(-sims, kind="stable")
        if not self.per_kind:
            return [Candidate(scope.records[int(rows[j])], float(sims[j])) for j in order[:n]]
        # each kind ranked among its own: a paper's question and a narrative chunk's opening
        # are not on one scale, and neither kind should fill the list by its scale alone
        out: list[Candidate] = []
        kinds = scope.asked[rows[order]]
        for kind in (True, False):
            mine = order[kinds == kind][:n]
            out += [Candidate(scope.records[int(rows[j])], float(sims[j]), rank=r) for r, j in enumerate(mine, start=1)]
        return sorted(out, key=lambda c: (c.rank, -c.score))[:n]

    def rankings(
        self, query: str, strategy: str, n: int, document: str | None = None, all_versions: bool = False, plain: bool = False
    ) -> dict[str, list[Candidate]]:
        """Every ranker's best ``n`` candidates (the input of :func:`fuse`); with ``plain``,
        also the vector mode's own ranking under :data:`PLAIN_VECTOR` (the eval scores
        every mode from one call)."""
        return self._rankings(query, self.scope(strategy, all_versions), strategy, n, document, all_versions, plain)

    def _rankings(
        self,
        query: str,
        scope: Scope,
        strategy: str,
        n: int,
        document: str | None,
        all_versions: bool,
        plain: bool = False,
        dictionary: bool = True,
    ) -> dict[str, list[Candidate]]:
        """Every ranker's candidates; ``dictionary=False`` for a query that is itself a
        translation (an LLM's), which is not carried back across."""
        vector = self.embed_query(query)
        share = self.centering_share(strategy)
        out = {
            "vector": self.vector_ranking(self.centred(vector, query, scope.script_means, share), scope, strategy, n, document, all_versions),
            "question": self.question_ranking(self.centred(vector, query, scope.question_means, self.question_centering), scope, n, document),
            "bm25": self.bm25_ranking(query, scope, n, document),
            DICTIONARY: self.dictionary_ranking(query, scope, n, document) if dictionary else [],
        }
        if plain:  # with no centering the plain ranking is the one just made
            out[PLAIN_VECTOR] = self.vector_ranking(vector, scope, strategy, n, document, all_versions) if share else out["vector"]
        return out

    # -- search ----------------------------------------------------------------------------
    def translation(self, query: str) -> str | None:
        """The query in the papers' other language (None without a translator or a usable
        reply), asked once per query in this process."""
        if self.translator is None:
            return None
        if query not in self._translations:
            if len(self._translations) >= 1024:
                self._translations.clear()
            self._translations[query] = self.translator(query)
        return self._translations[query]

    def search(
        self,
        query: str,
        k: int = 5,
        strategy: str = "token",
        mode: Mode | str = DEFAULT_MODE,
        document: str | None = None,
        all_versions: bool = False,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query``, best first."""
        mode = Mode(mode)
        if not query.strip() or k <= 0:
            return []
        scope = self.scope(strategy, all_versions)
        if mode is Mode.vector:
            return with_counterparts(ranked_hits(self.vector_ranking(self.embed_query(query), scope, strategy, k, document, all_versions), "vector"), scope)
        if mode is Mode.bm25:
            return with_counterparts(ranked_hits(self.bm25_ranking(query, scope, k, document), "bm25"), scope)
        depth = max(k, self.fusion.depth)
        candidates = self._rankings(query, scope, strategy, depth, document, all_versions)
        translation = self.translation(query)
        translated = None
        if translation:
            translated = (translation, self._rankings(translation, scope, strategy, depth, document, all_versions, dictionary=False))
        fused = fuse(query, candidates, self.fusion, scope, translated, document)
        return with_counterparts(rerank_hits(query, fused, self.reranker)[:k], scope)


Reranker = Callable[[str, list[dict[str, Any]]], "list[int] | None"]  # (query, records) -> their order, best first


def rerank_hits(query: str, hits: list[Hit], reranker: Reranker | None) -> list[Hit]:
    """``hits`` with the first :data:`.rerank.DEPTH` in the reranker's order (those it names
    first, their place in ``Hit.ranks`` as ``reranked``; the rest after them in fused order),
    renumbered; unchanged without a reranker or a usable reply."""
    from .rerank import DEPTH, reorder

    top = hits[:DEPTH]
    named = reranker(query, [h.record for h in top]) if reranker and top else None
    order = [i for i in dict.fromkeys(named or []) if 0 <= i < len(top)]
    if not order:
        return hits
    place = {index: n for n, index in enumerate(order, start=1)}
    marked = [Hit(h.record, h.rank, h.score, {**h.ranks, RERANKED: place[i]} if i in place else h.ranks, h.counterpart) for i, h in enumerate(top)]
    moved = reorder(marked, order) + hits[DEPTH:]
    return [Hit(h.record, n, h.score, h.ranks, h.counterpart) for n, h in enumerate(moved, start=1)]


def ranked_hits(candidates: list[Candidate], ranker: str) -> list[Hit]:
    """One ranker's candidates as hits (its own score, its own order)."""
    return [Hit(c.record, i, c.score, {ranker: i}) for i, c in enumerate(candidates, start=1)]


Rankings = dict[str, list[Candidate]]
TRANSLATED = "translated "  # prefix of a ranker's name in ``Hit.ranks`` for the translated query
RERANKED = "reranked"  # the model's place for a chunk in ``Hit.ranks`` (:func:`rerank_hits`)


def fuse(
    query: str,
    rankings: Rankings,
    fusion: Fusion,
    scope: Scope | None = None,
    translated: tuple[str, Rankings] | None = None,
    document: str | None = None,
) -> list[Hit]:
    """Weighted reciprocal rank fusion of the rankers' candidates, blended with their
    margins (:func:`margins`, ``fusion.margin_share``) and the chunks' coverage of the
    query's words (``fusion.coverage_share``: :func:`blend`), best first; with ``translated`` (the
    query in the other language and its rankings), its votes count too, times
    ``fusion.translation_weight``; with ``fusion.counterpart_share`` and a ``scope``, chunks
    inherit their counterparts' scores (:func:`inherit_counterparts`; ``document``: the
    search's document filter, which an inherited chunk must pass too); with
    ``fusion.section_share``, chunks of one section lift each other (:func:`.sections.lift`)."""
    by_rank: dict[str, float] = defaultdict(float)
    by_margin: dict[str, float] = defaultdict(float)
    by_cover: dict[str, float] = defaultdict(float)
    records: dict[str, dict[str, Any]] = {}
    ranks: dict[str, dict[str, int]] = defaultdict(dict)
    votes = [(query, rankings, 1.0, "")]
    if translated:
        votes.append((translated[0], translated[1], fusion.translation_weight, TRANSLATED))
    for text, lists, share, prefix in votes:
        query_script = script_of(text)
        for ranker in FUSED:
            found = lists.get(ranker, []) if ranker != DICTIONARY else dictionary_votes(lists.get(ranker, []), fusion, scope)
            ahead = margins([cand.score for cand in found], fusion.margin_depth)
            for place, (cand, margin) in enumerate(zip(found, ahead), start=1):
                rank = cand.rank or place
                weight = share * vote_weight(fusion, ranker, cand, query_script, scope)
                by_rank[cand.id] += weight / (fusion.k + rank)
                by_margin[cand.id] += weight * margin
                if ranker in WORD_RANKERS:  # its share of the query's words: the best reading of them
                    by_cover[cand.id] = max(by_cover[cand.id], share * cand.coverage)
                records.setdefault(cand.id, cand.record)
                ranks[cand.id][prefix + ranker] = rank
    scores = blend(by_rank, by_margin, by_cover, fusion)
    if scope is not None and fusion.counterpart_share > 0:
        inherit_counterparts(scores, records, ranks, scope, fusion.counterpart_share, document)
    lift(scores, records, fusion.section_share)
    order = sorted(scores, key=lambda i: -scores[i])
    return [Hit(records[i], n, scores[i], ranks[i]) for n, i in enumerate(order, start=1)]


def vote_weight(fusion: Fusion, ranker: str, cand: Candidate, query_script: str, scope: Scope | None) -> float:
    """The weight of one ranker's vote for one candidate: BM25's scaled by its coverage (and
    by ``cross_script_bm25_weight`` off the query's script), the dictionary's as BM25's of a
    rendering in the chunk's script, the question ranker's under a question's for a chunk
    with no question of its own."""
    if ranker == "bm25":
        chunk_script = scope.script(cand.id, cand.record["text"]) if scope else script_of(cand.record["text"])
        return fusion.bm25_vote(cand, query_script, chunk_script)
    if ranker == DICTIONARY:
        return fusion.dictionary_weight * fusion.bm25_vote(cand, query_script, query_script)
    if ranker == "question":
        asked = bool(cand.record["metadata"].get("question_text"))
        return fusion.question_weight * (1.0 if asked else fusion.narrative_weight)
    return fusion.vector_weight


def dictionary_votes(found: list[Candidate], fusion: Fusion, scope: Scope | None) -> list[Candidate]:
    """The dictionary's candidates that vote: only chunks of papers with no version in the
    query's language stored (``scope.paired``), unless ``fusion.dictionary_on_paired``. Why:
    the dictionary is the route to a paper published in the other language only; where the
    query's own version is stored, BM25 and the vectors reach it directly, and the word-bag
    rendering mostly drags in the other version's near misses (on the development sets of
    issue 29's fifth round, Q&A and narrative Hit@1 rose, cross-language did not fall)."""
    if fusion.dictionary_on_paired or scope is None or not scope.paired:
        return found
    return [c for c in found if c.record["document_id"] not in scope.paired]


MARGIN_FIELD = 3  # a ranker needs at least this many candidates for one to stand out


def margins(scores: list[float], depth: int) -> list[float]:
    """How far each candidate's score stands above its ranker's field: the z-score over the
    first ``depth`` candidates, 0 at or below their mean. Why: reciprocal ranks give the
    first place the same vote whether it wins by a mile or by a hair; the margin lets a
    ranker that is sure (an exact BM25 match, a paper question that is the user's own) be
    heard over near misses, on any ranker's scale (cosine, BM25) alike."""
    if len(scores) < MARGIN_FIELD:
        return [0.0] * len(scores)
    field_ = np.asarray(scores[:depth], dtype=float)
    spread = float(field_.std())
    if spread <= 0.0:
        return [0.0] * len(scores)
    mean = float(field_.mean())
    return [max((s - mean) / spread, 0.0) for s in scores]


WORD_RANKERS = ("bm25", DICTIONARY)  # the rankers that match the query's words (their candidates carry a coverage)


def blend(by_rank: dict[str, float], by_margin: dict[str, float], by_cover: dict[str, float], fusion: Fusion) -> dict[str, float]:
    """The fused scores: the reciprocal-rank and margin sums and the word coverages, each
    scaled to its best, mixed at ``fusion.margin_share`` of margin and
    ``fusion.coverage_share`` of coverage (both 0: the reciprocal-rank sums as they are).

    Why coverage counts on its own: BM25's rank and margin say a chunk matched the query's
    rarest words best, not that it holds *all* of them; a chunk holding every word of a
    paraphrased question is the answer more often than one repeating one of them (issue 29,
    sixth round: Hit@1 0.618 → 0.638 on the development sets, 0.640 → 0.655 on a blind set
    scored once; docs/retrieval.md)."""
    margin, cover = fusion.margin_share, fusion.coverage_share
    if margin <= 0.0 and cover <= 0.0:
        return dict(by_rank)
    top_rank = max(by_rank.values(), default=0.0) or 1.0
    top_margin = max(by_margin.values(), default=0.0) or 1.0
    top_cover = max(by_cover.values(), default=0.0) or 1.0
    return {
        i: (1.0 - margin - cover) * by_rank[i] / top_rank + margin * by_margin.get(i, 0.0) / top_margin + cover * by_cover.get(i, 0.0) / top_cover
        for i in by_rank
    }


COUNTERPART = "counterpart"  # in ``Hit.ranks``: the fused rank of the counterpart a chunk inherited from


def inherit_counterparts(
    scores: dict[str, float], records: dict[str, dict[str, Any]], ranks: dict[str, dict[str, int]], scope: Scope, share: float, document: str | None = None
) -> None:
    """Raise each chunk's fused score to ``share`` of its counterpart's where that is better
    (in place). Why: an English question finds the English version of a Q&A pair far more
    easily than the Chinese one (BM25 cannot cross languages), and the Chinese pair is the same
    answer; letting it ride on its counterpart brings the paper's other version up with it.
    Only original scores are inherited (no chains), from chunks the rankers found."""
    original = dict(scores)
    fused_rank = {i: n for n, i in enumerate(sorted(original, key=lambda i: -original[i]), start=1)}
    for chunk_id, score in original.items():
        partner = records[chunk_id]["metadata"].get("counterpart_id")
        row = scope.position.get(partner) if partner else None
        if row is None or share * score <= scores.get(partner, 0.0):
            continue
        record = scope.records[row]
        if document is not None and record["document_id"] != document:
            continue
        scores[partner] = share * score
        records.setdefault(partner, record)
        ranks[partner][COUNTERPART] = fused_rank[chunk_id]


def counterpart_of(record: dict[str, Any], scope: Scope) -> dict[str, Any] | None:
    """The stored record of ``record``'s other-language version in ``scope``, if any."""
    partner = record["metadata"].get("counterpart_id")
    row = scope.position.get(partner) if partner else None
    return scope.records[row] if row is not None else None


def with_counterparts(hits: list[Hit], scope: Scope) -> list[Hit]:
    """The hits, each with its counterpart's record attached, and its appendix or the exchange
    an appendix answers (:mod:`annex_links`; ``query`` shows both under the hit)."""
    from .annex_links import linked_records

    for hit in hits:
        hit.counterpart = counterpart_of(hit.record, scope)
        hit.links = linked_records(hit.record, scope)
    return hits


def in_language_of(query: str, hits: list[Hit]) -> list[Hit]:
    """The hits with each one not in the query's script swapped for its counterpart when that
    is (a counterpart already among the hits is not repeated): ``answer`` reads and cites the
    version in the question's language when the paper has one."""
    script = script_of(query)
    out: list[Hit] = []
    seen: set[str] = set()
    for hit in hits:
        chosen = hit
        if hit.counterpart is not None and script_of(hit.text) != script and script_of(hit.counterpart["text"]) == script:
            chosen = Hit(hit.counterpart, hit.rank, hit.score, hit.ranks, hit.record)
        if chosen.id not in seen:
            seen.add(chosen.id)
            out.append(chosen)
    return out


# -- what is stored ---------------------------------------------------------------------------
def stored_versions(collection: Any, document_id: str | None = None) -> list[dict[str, Any]]:
    """Per document, strategy and version: the latest flag, file name and chunk count.

    Latest versions first within a document and strategy; the basis of ``legco-assets
    documents`` and of the ``vector_index`` metadata table."""
    where = {"document_id": document_id} if document_id else None
    groups: dict[tuple[str, str, str, bool, str], int] = defaultdict(int)
    counterparts: dict[str, str] = {}  # document -> its paired other-language version (latest chunks)
    for chunk in stored_chunks(collection, where):
        m = chunk["metadata"]
        key = (m["document_id"], m["strategy_type"], m["content_sha256"][:12], bool(m["is_latest_version"]), m["filename"])
        groups[key] += 1
        if m.get("counterpart_document_id") and m["is_latest_version"]:
            counterparts[m["document_id"]] = m["counterpart_document_id"]
    ordered = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], not kv[0][3], kv[0][2]))
    rows = []
    for (d, s, v, latest, f), n in ordered:
        row: dict[str, Any] = {"document_id": d, "strategy": s, "version": v, "latest": latest, "filename": f, "chunks": n}
        if latest and d in counterparts:
            row["counterpart_document_id"] = counterparts[d]
        rows.append(row)
    return rows


def versions_markdown(rows: list[dict[str, Any]]) -> str:
    """The stored-versions table as Markdown (for Dagster metadata)."""
    lines = ["| document | strategy | version | latest | chunks |", "|---|---|---|---|---|"]
    lines += [
        f"| {r['document_id']} | {r['strategy']} | {r['version']} | {'yes' if r['latest'] else 'no'} | {r['chunks']} |"
        for r in rows
    ]
    return "\n".join(lines)


# -- adaptive context for answering -----------------------------------------------------------
ANSWER_PROMPT_VERSION = "answer-v1"
K_START, K_MAX, K_STEP = 2, 6, 2
CONTEXT_TOKENS = 3000
ANSWER_SYSTEM = (
    "You answer questions about Hong Kong Legislative Council papers using ONLY the numbered "
    "context passages. Never use outside knowledge. Reply with one JSON object and nothing else.\n"
    'If the passages contain the answer: {"sufficient": true, "answer": "...", "citations": '
    '[{"document_id": "...", "page": 3, "question_id": "A1"}]} citing every passage you used '
    "(its document, page and question id when it has one).\n"
    'If they do not: {"sufficient": false}.\n'
    "Answer in the language of the question."
)


@dataclass
class ContextBlock:
    """One retrieved chunk as it goes into the prompt (possibly cut to fit the budget)."""

    hit: Hit
    text: str
    tokens: int
    truncated: bool

    def citation(self) -> dict[str, Any]:
        """Where this passage is: document, page and question id (when it has one)."""
        cite: dict[str, Any] = {"document_id": self.hit.record["document_id"], "page": self.hit.record["page_number"]}
        if self.hit.metadata.get("question_id"):
            cite["question_id"] = self.hit.metadata["question_id"]
        return cite

    def header(self, number: int) -> str:
        cite = self.citation()
        parts = [f"document: {cite['document_id']}", f"page: {cite['page']}"]
        if "question_id" in cite:
            parts.append(f"question: {cite['question_id']}")
        if self.hit.metadata.get("answers_question_id"):  # a Hansard appendix: say which exchange it answers
            parts.append(f"{self.hit.metadata.get('annex', 'appendix')} answering question: {self.hit.metadata['answers_question_id']}")
        return f"[{number}] " + " | ".join(parts)


def assemble_context(hits: list[Hit], budget_tokens: int) -> list[ContextBlock]:
    """The hits, best first, as long as they fit ``budget_tokens``; the first one that does
    not fit is cut to the room left (a partial answer beats none), and assembly stops."""
    from ..tokens import count_tokens, encoding

    blocks: list[ContextBlock] = []
    left = budget_tokens
    for hit in hits:
        needed = count_tokens(hit.text)
        if needed <= left:
            blocks.append(ContextBlock(hit, hit.text, needed, False))
            left -= needed
            continue
        if left > 0:
            cut = encoding().decode(encoding().encode(hit.text, disallowed_special=())[:left])
            blocks.append(ContextBlock(hit, cut, left, True))
        break
    return blocks


def render_context(blocks: list[ContextBlock]) -> str:
    return "\n\n".join(f"{b.header(n)}\n{b.text}" for n, b in enumerate(blocks, start=1))


def answer_messages(question: str, blocks: list[ContextBlock]) -> list[dict[str, str]]:
    """The chat messages sent to the model for one round."""
    user = f"Context passages:\n\n{render_context(blocks)}\n\nQuestion: {question}"
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}]


def parse_answer(reply: str) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """(sufficient, answer, citations) from the model's reply.

    The reply should be the JSON object the prompt asks for (code fences tolerated); a model
    that ignores the format still gets through: a reply starting with ``INSUFFICIENT`` or
    ``{"sufficient": false`` means not enough context, any other text is the answer."""
    text = unfenced(reply)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        if not data.get("sufficient", bool(data.get("answer"))):
            return False, None, []
        cites = [c for c in data.get("citations") or [] if isinstance(c, dict)]
        return True, str(data.get("answer") or "").strip() or None, cites
    if text.upper().startswith("INSUFFICIENT"):
        return False, None, []
    return True, text, []


@dataclass
class AnswerRound:
    """One call to the model: how many chunks it saw and what it said."""

    k: int
    chunk_ids: list[str]
    context_tokens: int
    sufficient: bool


@dataclass
class Answer:
    """The outcome of :func:`answer_question`.

    Without an LLM, ``answer`` is None, ``rounds`` is empty and ``messages`` is what would
    have been sent for the first round."""

    question: str
    answer: str | None
    citations: list[dict[str, Any]]
    sufficient: bool
    rounds: list[AnswerRound]
    blocks: list[ContextBlock]
    messages: list[dict[str, str]]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "sufficient": self.sufficient,
            "citations": self.citations,
            "k": len(self.blocks),
            "rounds": [vars(r) for r in self.rounds],
            "context": [{**b.citation(), "id": b.hit.id, "tokens": b.tokens, "truncated": b.truncated} for b in self.blocks],
        }


def answer_question(
    retriever: Retriever,
    question: str,
    llm: Any | None,
    strategy: str,
    mode: Mode | str = DEFAULT_MODE,
    document: str | None = None,
    budget_tokens: int = CONTEXT_TOKENS,
    k_start: int = K_START,
    k_max: int = K_MAX,
    k_step: int = K_STEP,
) -> Answer:
    """Answer from the fewest chunks that suffice: start with ``k_start`` chunks and give
    the model ``k_step`` more (up to ``k_max``) while it says the context is insufficient.

    Why adaptive: most questions are answered by their own Q&A chunk, and every extra chunk
    costs tokens and invites the model to mix answers up; only when the first chunks miss
    is more context worth its cost. One search at ``k_max`` serves every round (the fused
    order does not depend on k). ``llm`` is an :class:`.llm.LLMClient` or None."""
    hits = retriever.search(question, k=k_max, strategy=strategy, mode=mode, document=document)
    if document is None:  # a search in one document keeps to it
        hits = in_language_of(question, hits)
    from .annex_links import with_linked

    linked = any(h.metadata.get("annex_ids") or h.metadata.get("answers_question_id") for h in hits)
    scope = retriever.scope(strategy) if linked else None  # an exchange's appendix comes with it, and back
    k = min(k_start, k_max, max(len(hits), 1))
    rounds: list[AnswerRound] = []
    while True:
        picked = with_linked(hits[:k], scope) if scope is not None else hits[:k]
        blocks = assemble_context(picked, budget_tokens)
        messages = answer_messages(question, blocks)
        if llm is None or not blocks:  # nothing to ask about: no call
            return Answer(question, None, [], False, rounds, blocks, messages)
        sufficient, text, cites = _ask(llm, question, blocks, messages)
        rounds.append(AnswerRound(k, [b.hit.id for b in blocks], sum(b.tokens for b in blocks), sufficient))
        budget_left = len(blocks) == len(picked) and not (blocks and blocks[-1].truncated)
        if sufficient or not budget_left or k >= min(k_max, len(hits)):
            return Answer(question, text, cites, sufficient, rounds, blocks, messages)
        k = min(k + k_step, k_max, len(hits))


def _ask(llm: Any, question: str, blocks: list[ContextBlock], messages: list[dict[str, str]]) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """One model call, cached by the question and the exact context it saw."""
    context_hash = hashlib.sha256(render_context(blocks).encode("utf-8")).hexdigest()
    reply = llm.complete("answer", ANSWER_PROMPT_VERSION, messages, {"question": question, "context": context_hash})
    return parse_answer(reply)
