"""The retrieval rounds' sweep: each way of giving chunks a question side and each earlier
round's fusion, scored on the same questions, as the defaults were chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..search import Mode
from .metrics import EvalRow, summarise
from .run import EvalRun
from .scoring import collect_rankings, score_all

# how the question-side ranker sees chunks: (question sides, each kind ranked among its own)
QUESTION_SIDES: dict[str, tuple[str | None, bool]] = {
    "Q&A only (the old default)": ("qa", False),
    "default: every chunk (question strategy), own vectors, per kind": (None, True),
}
# changes of :class:`..search.Fusion` that give back an earlier round's fusion: ranks alone and
# the dictionary on every paper (before the fourth round), BM25's weight and coverage power
# before the third, margins at 0.4 and no coverage vote before the sixth
RANKS_ONLY: dict[str, Any] = {"margin_share": 0.0, "coverage_share": 0.0, "dictionary_on_paired": True}
ROUND_5: dict[str, Any] = {
    "margin_share": 0.4,
    "coverage_share": 0.0,
}  # before the coverage vote (sixth round)
ROUND_2_BM25: dict[str, Any] = dict(RANKS_ONLY, bm25_weight=1.0, coverage_power=2.0)
ROUND_FUSIONS: dict[str, dict[str, Any]] = {
    "": {},
    "round 1 weights (question 2, narrative 0.95), no dictionary": dict(
        ROUND_2_BM25, question_weight=2.0, narrative_weight=0.95, dictionary_weight=0.0
    ),
    "round 2 weights (BM25 1, coverage^2)": ROUND_2_BM25,
    "round 3 weights (ranks only, no margins)": RANKS_ONLY,
    "dictionary on paired papers too (round 4)": dict(ROUND_5, dictionary_on_paired=True),
    "round 5 (margins 0.4, no coverage vote)": ROUND_5,
    "no dictionary": {"dictionary_weight": 0.0},
}


def rounds_sweep(
    run: EvalRun,
    sides: Mapping[str, tuple[str | None, bool]] = QUESTION_SIDES,
    fusions: Mapping[str, dict[str, Any]] = ROUND_FUSIONS,
) -> list[EvalRow]:
    """Hybrid mode with each way of giving chunks a question side (:mod:`..search.question_side`)
    and each change of the fusion (the openings' vote, BM25's, section lifting:
    :mod:`..search.sections`); the candidates are collected once per way. All questions, per
    strategy: how the defaults were chosen."""
    kept = (run.retriever.question_sides, run.retriever.per_kind)
    rows: list[EvalRow] = []
    try:
        for side_name, (side, per_kind) in sides.items():
            run.retriever.question_sides, run.retriever.per_kind = side, per_kind
            run.retriever.forget_scopes()  # the question vectors differ: load the scopes again
            rankings = collect_rankings(run.retriever, run.questions, run.papers, run.strategies)
            for fusion_name, changes in fusions.items():
                fusion = replace(run.retriever.fusion, **changes)
                results = score_all(
                    run.retriever, run.questions, run.papers, rankings, run.strategies, [Mode.hybrid], fusion
                )
                for row in summarise(results):
                    row.mode = side_name + (f", {fusion_name}" if fusion_name else "")
                    rows.append(row)
    finally:
        run.retriever.question_sides, run.retriever.per_kind = kept
        run.retriever.forget_scopes()
    return rows
