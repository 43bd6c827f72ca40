"""Scoring: every ranker's candidates collected once per (question, strategy), then each mode
and fusion ranked from them and every ranking judged by the hit rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..search import (
    PLAIN_VECTOR,
    Fusion,
    Hit,
    Mode,
    Rankings,
    Reranker,
    Retriever,
    Scope,
    fuse,
    ranked_hits,
    rerank_hits,
)
from .hit_rule import holds_answer_end
from .metrics import DEPTH, QuestionResult, score_ranking
from .papers import Paper, paper_language
from .questions import GoldQuestion, script_language

Translated = dict[
    tuple[str, str], tuple[str, Rankings]
]  # (question id, strategy) -> (translation, its rankings)


def collect_rankings(
    retriever: Retriever,
    questions: Sequence[GoldQuestion],
    papers: dict[str, Paper],
    strategies: Sequence[str],
    per_document: bool = False,
) -> dict[tuple[str, str], Rankings]:
    """Every ranker's candidates for every (question, strategy), computed once so that
    every mode and every fusion weight is scored on the same candidates."""
    depth = max(DEPTH, retriever.fusion.depth)
    out = {}
    for strategy in strategies:
        for q in questions:
            doc = papers[q.document].document_id if per_document else None
            out[(q.id, strategy)] = retriever.rankings(q.question, strategy, depth, doc, plain=True)
    return out


def collect_translated(
    retriever: Retriever,
    questions: Sequence[GoldQuestion],
    strategies: Sequence[str],
    translations: Mapping[str, str],
) -> Translated:
    """Every ranker's candidates for each question's translation (``translations``: question
    text -> the question in the other language, as the LLM gave it); questions without one
    are searched alone, as when the LLM call fails."""
    depth = max(DEPTH, retriever.fusion.depth)
    return {
        (q.id, strategy): (
            translations[q.question],
            retriever.rankings(translations[q.question], strategy, depth),
        )
        for strategy in strategies
        for q in questions
        if translations.get(q.question)
    }


def rank(
    rankings: Rankings,
    query: str,
    mode: Mode,
    fusion: Fusion,
    scope: Scope,
    translated: tuple[str, Rankings] | None = None,
    reranker: Reranker | None = None,
) -> list[Hit]:
    """The first ``DEPTH`` hits of one mode, from precomputed rankings (hybrid: with the
    translated query's, when there is one, and re-ordered by ``reranker``, when given)."""
    if mode is Mode.hybrid:
        return rerank_hits(query, fuse(query, rankings, fusion, scope, translated), reranker)[:DEPTH]
    ranking = rankings.get(PLAIN_VECTOR, rankings["vector"]) if mode is Mode.vector else rankings[mode.value]
    return ranked_hits(ranking[:DEPTH], mode.value)


def score_all(
    retriever: Retriever,
    questions: Sequence[GoldQuestion],
    papers: dict[str, Paper],
    rankings: dict[tuple[str, str], Rankings],
    strategies: Sequence[str],
    modes: Sequence[Mode],
    fusion: Fusion,
    translated: Translated | None = None,
    reranker: Reranker | None = None,
) -> list[QuestionResult]:
    """Score every (strategy, mode, question) with the hit rule."""
    translated = translated or {}
    results = []
    for strategy in strategies:
        scope = retriever.scope(strategy)
        for mode in modes:
            for q in questions:
                paper = papers[q.document]
                anchor = paper.anchor(q)
                ideal = sum(holds_answer_end(r, paper.document_id, anchor) for r in scope.records)
                key = (q.id, strategy)
                hits = rank(rankings[key], q.question, mode, fusion, scope, translated.get(key), reranker)
                first, relevant, chars = score_ranking(hits, paper.document_id, anchor, ideal)
                cross = script_language(q.lang) != paper_language(paper)
                results.append(
                    QuestionResult(q.id, strategy, mode.value, q.lang, cross, first, relevant, ideal, chars)
                )
    return results
