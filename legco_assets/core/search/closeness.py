"""Whether a hit answers the query closely (``strong``) or is only the nearest there is
(``weak``): a judgement added after ranking, which it never changes.

Why: a ranker always returns its k best, so a question the stored papers do not answer gets
hits that look like any others, and a reader (or an assistant) takes the first one for the
answer. The fused score cannot tell: it is scaled to the best hit of each query. The rankers'
own scores can, as they are on one scale across queries: the cosine of the chunk's vector to
the query's (the hybrid vector ranker's, centred as it ranks), the cosine of its question side
(a paper question asked the same way), and the share of the query's words BM25 found in it
(its coverage). A hit is strong when any of them reaches its threshold.

The thresholds (:data:`CLOSENESS`) were chosen on the development sets only, from questions
whose paper is stored and the same questions asked of a store without it, then frozen and
scored once on held-out sets (``scripts/calibrate_closeness.py``; the figures are in
docs/retrieval.md#closeness).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .hits import Candidate, Hit

JUDGED = 30  # how deep each ranker's list is read for a hit's scores (beyond it: none)
STRONG, WEAK = "strong", "weak"


@dataclass(frozen=True)
class Closeness:
    """The thresholds: a hit is strong when its chunk vector's cosine reaches ``vector``, its
    question side's ``question``, or its BM25 coverage ``coverage``."""

    vector: float
    question: float
    coverage: float


@dataclass(frozen=True)
class HitScores:
    """A hit's own scores in each ranker (0 when that ranker did not list it)."""

    vector: float = 0.0
    question: float = 0.0
    coverage: float = 0.0


def hit_scores(rankings: dict[str, list[Candidate]], hit_id: str) -> HitScores:
    """The hit's scores in the rankers' lists (``Retriever.rankings`` of the query)."""

    def best(ranker: str, value: str) -> float:
        found = [getattr(c, value) for c in rankings.get(ranker, [])[:JUDGED] if c.id == hit_id]
        return max(found, default=0.0)

    return HitScores(best("vector", "score"), best("question", "score"), best("bm25", "coverage"))


def is_strong(scores: HitScores, closeness: Closeness) -> bool:
    return (
        scores.vector >= closeness.vector
        or scores.question >= closeness.question
        or scores.coverage >= closeness.coverage
    )


def judge(rankings: dict[str, list[Candidate]], hits: list[Hit], closeness: Closeness) -> list[str]:
    """``strong`` or ``weak`` for each hit, in order."""
    return [STRONG if is_strong(hit_scores(rankings, h.id), closeness) else WEAK for h in hits]


# per strategy (a token window's vector is further from a question than a Q&A pair's): the
# thresholds that flag the most absent questions of the development sets (gold, narrative-dev,
# crosslang-dev, variant-dev, cantonese-dev: each asked of the store less every paper on its
# subject) while flagging at most 10% of the present ones (``scripts/calibrate_closeness.py
# choose``), frozen before any held-out set was scored (docs/retrieval.md#closeness); a token
# window's question side never helped (off)
CLOSENESS: dict[str, Closeness] = {
    "token": Closeness(vector=0.3904, question=math.inf, coverage=0.4078),
    "question": Closeness(vector=0.2904, question=0.415, coverage=0.7367),
}
