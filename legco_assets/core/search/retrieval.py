"""Search the stored chunks: the rankers (BM25, Chroma vectors, the question side, the
dictionary) and the retriever that runs them and fuses their votes (:mod:`.fusion`).

Why hybrid: BM25 finds exact figures, names and ordinance titles that an embedding blurs;
the multilingual embedding finds paraphrases and answers an English question about a
Chinese paper, where BM25 is at chance. A third ranker compares the query with the
*question* of each Q&A chunk (``question_text``, embedded on its own): a user's question is
closest to the paper's question, not to a long answer full of figures, and this is what the
question strategy gives retrieval that token windows cannot. Every chunk of the question
strategy takes part in it (:data:`QUESTION_SIDE`): a narrative chunk by its own
vector, each kind ranked among its own, its vote under a question's
(``Fusion.narrative_weight``). Before, only Q&A chunks had that vote, so a Q&A chunk of any
paper outranked every narrative chunk (on the blind narrative dev set the question strategy
found no answer in its first five).

The rankings are fused by weighted reciprocal rank fusion, blended with the votes' margins
and the chunks' coverage of the query's words: :mod:`.fusion` says how and why.

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
rendered in the other language by CC-CEDICT (:mod:`.dictionary_translation`, the second
retrieval round), its vote weighted by how much of the query was rendered, and only for papers
with no version in the query's language stored (:func:`.fusion.dictionary_votes`, the fifth round).
With an LLM configured, hybrid search also runs the rankers for the query translated into
the papers' other language and adds their votes (:mod:`.query_translation`): the one lever
that closes most of the cross-language gap.

Filters are the same for every ranker: strategy, optionally one document or the search
filters (date range, kinds, speaker: :mod:`.filters`), and the latest version only unless
``all_versions`` is asked for. A ranker's ``document`` argument is a document id or the
:class:`.filters.SearchFilters`: BM25 and the question side keep the rows they pass, Chroma is
asked among their ids. The BM25 index of a (strategy, versions)
scope is loaded from ``data/cache/bm25`` and rebuilt only when the stored chunks change
(:func:`.bm25_index.load_or_build`); question vectors come from the embedding cache.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..llm import LLMClient
from ..settings import Strategy
from .bm25_index import load_or_build, script_of, tokenize
from .colloquial import written_form
from .dictionary_translation import asked_words, translate_words, vocabulary_test
from .embeddings import embedding_function
from .filters import SearchFilters, Where, row_mask
from .fusion import DEFAULT_FUSION, DICTIONARY, Fusion, fuse
from .hits import (
    DEFAULT_MODE,
    Candidate,
    Hit,
    Mode,
    Scope,
    chunk_filter,
    distinct,
    ranked_hits,
    stored_strategy,
)
from .links import with_counterparts
from .query_translation import translator
from .question_side import question_vectors, unit_rows
from .rerank import Reranker, rerank_hits, reranker
from .variants import printed_forms
from .vector_rows import ExactRows
from .vector_store import open_collection, stored_vectors, with_retries

# Share of the query-script mean chunk vector taken out of the chunk-vector query, per strategy
# (eval: docs/history/retrieval.md).
# Token windows lose with it (Hit@5 0.66 -> 0.59 on the fixture eval), so they keep 0.
LANGUAGE_CENTERING = {Strategy.question.value: 0.5}
QUESTION_CENTERING = 0.75  # share of the query-script mean question vector the question ranker removes
# what the question-side ranker compares the query with (:mod:`.question_side`): "qa", Q&A
# chunks' questions only (before narrative chunks joined); "opening", every chunk, a narrative chunk by its
# headings and opening; "chunk", every chunk, a narrative chunk by its own text's vector.
# Per strategy: token windows have no questions, and a second vote of their own vectors only
# loses there (docs/history/retrieval.md)
QUESTION_SIDES = ("qa", "opening", "chunk")
QUESTION_SIDE = {Strategy.question.value: "chunk", Strategy.token.value: "qa"}
PER_KIND = True  # rank Q&A chunks and the others each among their own kind in that ranker
OVERSAMPLE = 50  # extra unfiltered results asked for, so a scope's share of them is rarely short
PLAIN_VECTOR = "vector-plain"  # the vector mode's ranking, uncentred, when the eval asks for it


def _distinct_top(ranking: Callable[[int], list[Candidate]], ranker: str, k: int) -> list[Hit]:
    """One ranker's best ``k`` hits, each text once (:func:`.hits.distinct`): asked for
    more while copies of a text leave fewer than ``k`` and the ranker has more to give."""
    n = k
    while True:
        found = ranking(n)
        hits = distinct(ranked_hits(found, ranker))
        if len(hits) >= k or len(found) < n:
            return hits[:k]
        n *= 2


def _script_means(vectors: np.ndarray, scripts: list[str]) -> dict[str, np.ndarray]:
    """The mean of the unit vectors of each script: the language component that
    :meth:`Retriever.centred` takes out of the query."""
    if not len(vectors):
        return {}
    labels = np.asarray(scripts)
    # summed in float64, so a mean added up from the papers' own sums (a server's scope,
    # :mod:`.segment_scope`) is the same vector
    return {
        s: (vectors[labels == s].astype(np.float64).sum(axis=0) / int(np.sum(labels == s))).astype(np.float32)
        for s in sorted(set(scripts))
    }


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
        # reload a scope when the collection's size moves; False: keep the scopes first loaded
        # (a server swaps whole retrievers instead: one opened before another process wrote
        # would load a store half seen, see legco_assets/service/index.py)
        self.follow_store = True
        self._scopes: dict[tuple[str, bool], Scope] = {}

    @classmethod
    def open(
        cls,
        settings: Any,
        fusion: Fusion = DEFAULT_FUSION,
        collection: Any | None = None,
        translate: bool = True,
        rerank: bool = True,
        store: bool = True,
    ) -> Retriever:
        """The configured collection and embedding function, BM25 cached under the data dir;
        with an LLM configured, hybrid search also runs the query in the papers' other
        language (``translate``, :mod:`.query_translation`) and has the model re-order the
        fused top chunks (``rerank``, :mod:`.rerank`). ``store=False``: no collection (a
        retriever whose scopes are given it, a server's: :mod:`.segment_scope`)."""
        llm = LLMClient.from_settings(settings) if translate or rerank else None
        return cls(
            collection or (open_collection(settings) if store else None),
            embedding_function(settings),
            settings.cache_dir / "bm25",
            fusion,
            translator=translator(llm) if translate else None,
            reranker=reranker(llm) if rerank else None,
        )

    # -- scopes ----------------------------------------------------------------------------
    def scope(self, strategy: Strategy | str, all_versions: bool = False) -> Scope:
        """The loaded scope, (re)loading it when absent or (``follow_store``) when the
        collection changed. ``strategy``: a strategy, or a chunk set the evaluation stores
        beside them (:func:`.hits.stored_strategy`)."""
        strategy = stored_strategy(strategy)
        key = (strategy, all_versions)
        current = self._scopes.get(key)
        if current is not None and not self.follow_store:
            return current
        count = with_retries(self.collection.count)
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
        stored = sorted(stored_vectors(self.collection, where), key=lambda pair: pair[0].id)
        records, vectors = [r for r, _ in stored], [v for _, v in stored]
        name = f"{strategy}-{'all' if all_versions else 'latest'}"
        index, built = load_or_build(self.cache_dir, name, records)
        asked = np.array([bool(r.metadata.question_text) for r in records], dtype=bool)
        sides = self.question_sides or QUESTION_SIDE.get(strategy, "qa")
        rows, questions = question_vectors(records, vectors, sides, self._embed_unique)
        return Scope(
            records=records,
            index=index,
            documents=np.array([r.document_id for r in records], dtype=object),
            question_rows=rows,
            asked=asked,
            question_vectors=ExactRows(questions),
            script_means=_script_means(unit_rows(vectors), index.scripts),
            question_means=_script_means(questions, [index.scripts[i] for i in rows]),
            count=count,
            built=built,
            seconds=time.perf_counter() - started,
            printed_forms=printed_forms(r.text for r in records),
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
    def bm25_ranking(
        self, query: str, scope: Scope, n: int, document: Where = None, written: str = ""
    ) -> list[Candidate]:
        """Best ``n`` chunks by BM25 (positive scores only), with their query coverage;
        ``written``: the query's written-Chinese form, searched with it (:mod:`.colloquial`)."""
        mask = row_mask(scope, document)
        return [
            Candidate(scope.records[i], score, cov)
            for i, score, cov in scope.index.top(query, n, mask, written)
        ]

    def dictionary_ranking(self, query: str, scope: Scope, n: int, document: Where = None) -> list[Candidate]:
        """BM25 of the query's words rendered in the other script by the dictionary, when
        the scope holds chunks in that script (:mod:`.dictionary_translation`)."""
        other = "zh" if script_of(query) == "en" else "en"
        if other not in scope.script_means:
            return []
        tokens = {t for word in asked_words(query) for t in tokenize(word)}
        rendering = translate_words(query, vocabulary_test(scope.index.known_tokens(tokens)))
        if not rendering.text:
            return []
        found = self.bm25_ranking(rendering.text, scope, n, document)
        return [replace(c, coverage=c.coverage * rendering.share) for c in found]

    def vector_ranking(
        self,
        vector: np.ndarray,
        scope: Scope,
        strategy: str,
        n: int,
        document: Where = None,
        all_versions: bool = False,
    ) -> list[Candidate]:
        """Best ``n`` chunks of the scope by cosine similarity of their text, from Chroma.

        Chroma answers an unfiltered query in about a millisecond but needs tens of
        milliseconds for a ``where`` filter on a large collection (it builds the allowed-id
        set per query), and returning texts and metadata costs more than the search. The
        scope already holds the filtered chunks' records, so Chroma is asked for ids and
        distances only: restricted to the document's ids when one is given; unfiltered with
        extra results kept by scope membership when the scope is a large share of the
        collection; otherwise with the ``where`` filter. A scope that holds its own vectors
        (a server's) ranks them itself (:meth:`.hits.Scope.nearest`)."""
        mask = row_mask(scope, document)
        if scope.vectors is not None:
            return scope.nearest(vector, n, mask)
        if mask is not None:
            ids = [scope.ids[int(row)] for row in np.flatnonzero(mask)]
            return self._query(vector, scope, min(n, len(ids)), ids=ids) if ids else []
        if scope.records and len(scope.records) * 4 >= scope.count:
            extra = (n + OVERSAMPLE) * -(-scope.count // len(scope.records))
            kept = self._query(vector, scope, min(extra, scope.count))[:n]
            if len(kept) >= min(n, len(scope.records)):
                return kept
        return self._query(vector, scope, n, where=chunk_filter(strategy, None, all_versions))

    def _query(
        self,
        vector: np.ndarray,
        scope: Scope,
        n: int,
        where: dict[str, Any] | None = None,
        ids: list[str] | None = None,
    ) -> list[Candidate]:
        """Chroma's nearest ids and distances, as candidates of the scope (others dropped)."""
        got = with_retries(
            lambda: self.collection.query(
                query_embeddings=[vector.tolist()], n_results=n, where=where, ids=ids, include=["distances"]
            )
        )
        pairs = zip(got["ids"][0], got["distances"][0])
        return [
            Candidate(scope.records[scope.position[i]], 1.0 - float(d))
            for i, d in pairs
            if i in scope.position
        ]

    def question_ranking(
        self, vector: np.ndarray, scope: Scope, n: int, document: Where = None
    ) -> list[Candidate]:
        """Best ``n`` chunks by cosine similarity of their question side alone (a Q&A chunk's
        question; another chunk's own vector, or its headings and opening:
        :data:`QUESTION_SIDE`; ``vector``: the query, already centred by the caller). With
        ``per_kind``, each kind's best ``n`` carry their rank among their own kind."""
        if not len(scope.question_rows):
            return []
        mask = row_mask(scope, document)
        keep = None if mask is None else mask[scope.question_rows]
        kinds = scope.asked[scope.question_rows] if self.per_kind else None
        found, sims = scope.question_vectors.best(vector, n, keep, kinds)
        rows = scope.question_rows[found]
        if not self.per_kind:
            return [Candidate(scope.records[int(row)], float(sim)) for row, sim in zip(rows, sims)]
        # each kind ranked among its own: a paper's question and a narrative chunk's opening
        # are not on one scale, and neither kind should fill the list by its scale alone
        out: list[Candidate] = []
        asked = scope.asked[rows]
        for kind in (True, False):
            mine = np.flatnonzero(asked == kind)
            out += [
                Candidate(scope.records[int(rows[j])], float(sims[j]), rank=r)
                for r, j in enumerate(mine, start=1)
            ]
        return sorted(out, key=lambda c: (c.rank, -c.score))[:n]

    def rankings(
        self,
        query: str,
        strategy: Strategy | str,
        n: int,
        document: Where = None,
        all_versions: bool = False,
        plain: bool = False,
    ) -> dict[str, list[Candidate]]:
        """Every ranker's best ``n`` candidates (the input of :func:`fuse`); with ``plain``,
        also the vector mode's own ranking under :data:`PLAIN_VECTOR` (the eval scores
        every mode from one call)."""
        strategy = stored_strategy(strategy)
        return self._rankings(
            query, self.scope(strategy, all_versions), strategy, n, document, all_versions, plain
        )

    def _rankings(
        self,
        query: str,
        scope: Scope,
        strategy: str,
        n: int,
        document: Where,
        all_versions: bool,
        plain: bool = False,
        dictionary: bool = True,
    ) -> dict[str, list[Candidate]]:
        """Every ranker's candidates; ``dictionary=False`` for a query that is itself a
        translation (an LLM's), which is not carried back across. Either form of a variant
        character finds the same chunks in the same order: the lexical rankers read the query
        folded as the index is (:func:`.variants.variant_fold`), the embedder reads it with
        every variant in the form the scope's chunks print most (:attr:`.hits.Scope.printed_forms`);
        the lexical rankers also read a colloquial question's written form
        (:func:`.colloquial.written_form`), the embedder the question as asked."""
        written = written_form(query) if self.fusion.colloquial_reading else ""
        query = query.translate(scope.printed_forms)
        vector = self.embed_query(query)
        share = self.centering_share(strategy)
        out = {
            "vector": self.vector_ranking(
                self.centred(vector, query, scope.script_means, share),
                scope,
                strategy,
                n,
                document,
                all_versions,
            ),
            "question": self.question_ranking(
                self.centred(vector, query, scope.question_means, self.question_centering), scope, n, document
            ),
            "bm25": self.bm25_ranking(query, scope, n, document, written),
            DICTIONARY: self.dictionary_ranking(written or query, scope, n, document) if dictionary else [],
        }
        if plain:  # with no centering the plain ranking is the one just made
            out[PLAIN_VECTOR] = (
                self.vector_ranking(vector, scope, strategy, n, document, all_versions)
                if share
                else out["vector"]
            )
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
        strategy: Strategy | str = Strategy.token,
        mode: Mode = DEFAULT_MODE,
        document: str | None = None,
        all_versions: bool = False,
        filters: SearchFilters | None = None,
    ) -> list[Hit]:
        """The ``k`` best chunks for ``query`` that pass ``document`` and ``filters``, best first."""
        return self.search_ranked(query, k, strategy, mode, document, all_versions, filters)[0]

    def search_ranked(
        self,
        query: str,
        k: int = 5,
        strategy: Strategy | str = Strategy.token,
        mode: Mode = DEFAULT_MODE,
        document: str | None = None,
        all_versions: bool = False,
        filters: SearchFilters | None = None,
    ) -> tuple[list[Hit], dict[str, list[Candidate]] | None]:
        """:meth:`search`, and the rankers' candidates for the query as asked (hybrid only; None
        otherwise): what a hit's closeness is judged from (:mod:`.closeness`), without ranking
        the query a second time."""
        mode = Mode(mode)  # a plain "bm25" (a script's) as its member; an unknown one refused
        if not query.strip() or k <= 0:
            return [], None
        if filters is not None and filters.active:
            if document and filters.document not in (None, document):
                return [], None
            if document:
                filters = SearchFilters.of(
                    document, filters.date_from, filters.date_to, filters.kinds, filters.speaker
                )
            document = filters  # type: ignore[assignment]  # the rankers take a document id or the filters
        strategy = stored_strategy(strategy)
        scope = self.scope(strategy, all_versions)
        if mode is Mode.vector:
            vector = self.embed_query(query.translate(scope.printed_forms))
            found = _distinct_top(
                lambda n: self.vector_ranking(vector, scope, strategy, n, document, all_versions), "vector", k
            )
            return with_counterparts(found, scope), None
        if mode is Mode.bm25:
            written = written_form(query) if self.fusion.colloquial_reading else ""
            found = _distinct_top(lambda n: self.bm25_ranking(query, scope, n, document, written), "bm25", k)
            return with_counterparts(found, scope), None
        depth = max(k, self.fusion.depth)
        candidates = self._rankings(query, scope, strategy, depth, document, all_versions)
        translation = self.translation(query)
        translated = None
        if translation:
            translated = (
                translation,
                self._rankings(translation, scope, strategy, depth, document, all_versions, dictionary=False),
            )
        fused = fuse(query, candidates, self.fusion, scope, translated, document)
        hits = with_counterparts(rerank_hits(query, distinct(fused), self.reranker)[:k], scope)
        return hits, candidates
