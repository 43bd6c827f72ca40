"""The metrics of one question and of a table row.

Metrics, per strategy and mode: Hit@1, Hit@5, MRR over the first ``depth`` (10) results,
nDCG@5 with binary relevance (the ideal counts every stored chunk holding the end), and the
characters of context read before the answer: the summed ``len(text)`` of the ranked chunks
up to and including the first hit (all ``depth`` chunks when there is none).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..search import Hit
from .hit_rule import holds_answer_end

DEPTH = 10


@dataclass
class QuestionResult:
    """How one question fared with one strategy and mode."""

    question_id: str
    strategy: str
    mode: str
    lang: str
    cross_language: bool
    first_hit: int | None  # 1-based rank of the first hit within the depth
    relevant: list[bool]  # hit flag per ranked chunk
    ideal: int  # stored chunks that hold the answer's end
    context_chars: int

    @property
    def ndcg5(self) -> float:
        dcg = sum(1 / math.log2(i + 2) for i, rel in enumerate(self.relevant[:5]) if rel)
        idcg = sum(1 / math.log2(i + 2) for i in range(min(5, self.ideal)))
        return dcg / idcg if idcg else 0.0


def score_ranking(
    hits: Sequence[Hit], document_id: str, anchor: str, ideal: int
) -> tuple[int | None, list[bool], int]:
    """First-hit rank, hit flags and characters read until the first hit."""
    relevant = [holds_answer_end(h.record, document_id, anchor) for h in hits]
    first = next((i for i, rel in enumerate(relevant, start=1) if rel), None)
    read = hits[:first] if first else hits
    return first, relevant, sum(len(h.text) for h in read)


@dataclass
class EvalRow:
    """One line of the eval table."""

    strategy: str
    mode: str
    questions: int
    hit1: float
    hit5: float
    mrr: float
    ndcg5: float
    context_chars: float  # mean characters read until the answer (all ``depth`` chunks on a miss)
    subset: str = "all"


def summarise(results: Iterable[QuestionResult], subset: str = "all") -> list[EvalRow]:
    """Average the per-question results per (strategy, mode), in first-seen order."""
    groups: dict[tuple[str, str], list[QuestionResult]] = {}
    for r in results:
        groups.setdefault((r.strategy, r.mode), []).append(r)
    rows = []
    for (strategy, mode), group in groups.items():
        rows.append(
            EvalRow(
                strategy=strategy,
                mode=mode,
                questions=len(group),
                hit1=statistics.fmean(r.first_hit == 1 for r in group),
                hit5=statistics.fmean(bool(r.first_hit and r.first_hit <= 5) for r in group),
                mrr=statistics.fmean(1 / r.first_hit if r.first_hit else 0.0 for r in group),
                ndcg5=statistics.fmean(r.ndcg5 for r in group),
                context_chars=statistics.fmean(r.context_chars for r in group),
                subset=subset,
            )
        )
    return rows
