"""What a perfect reranker would leave to read: characters to the answer with the best order
of the fused candidates, and the floor of the whole store.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..search import fuse
from .hit_rule import holds_answer_end
from .metrics import DEPTH
from .report import EvalReport
from .run import EvalRun

BOUND_DEPTHS = (10, 20, 30)


@dataclass
class ReadingBound:
    """Characters to the answer per question, for one strategy, with the best order a reranker
    could give: ``at_depth[d]`` reads only the shortest chunk holding the answer end when one is
    in the fused top ``d`` (else the top ``DEPTH``, as a miss); ``floor`` is the shortest such
    chunk in the whole store. Why: the characters bar compares two strategies' retrieval *and*
    chunk sizes; these say how much is the sizes alone."""

    strategy: str
    floor: list[int] = field(default_factory=list)
    at_depth: dict[int, list[int]] = field(default_factory=dict)


def reading_bounds(run: EvalRun, depths: Sequence[int] = BOUND_DEPTHS) -> dict[str, ReadingBound]:
    """A :class:`ReadingBound` per strategy of ``run`` (hybrid, with its translations, if any)."""
    bounds = {}
    for strategy in run.strategies:
        scope = run.retriever.scope(strategy)
        bound = ReadingBound(strategy, at_depth={d: [] for d in depths})
        for q in run.questions:
            paper, key = run.papers[q.document], (q.id, strategy)
            anchor = paper.anchor(q)
            fused = fuse(q.question, run.rankings[key], run.retriever.fusion, scope, run.translated.get(key))
            missed = sum(len(h.text) for h in fused[:DEPTH])
            lengths = [
                len(h.text) if holds_answer_end(h.record, paper.document_id, anchor) else None for h in fused
            ]
            for d in depths:
                bound.at_depth[d].append(min((n for n in lengths[:d] if n is not None), default=missed))
            holding = (len(r.text) for r in scope.records if holds_answer_end(r, paper.document_id, anchor))
            bound.floor.append(min(holding, default=missed))
        bounds[strategy] = bound
    return bounds


def pooled_bounds(per_set: Sequence[dict[str, ReadingBound]]) -> dict[str, ReadingBound]:
    """Several sets' bounds as one (their questions together)."""
    pooled_: dict[str, ReadingBound] = {}
    for bounds in per_set:
        for strategy, b in bounds.items():
            into = pooled_.setdefault(strategy, ReadingBound(strategy, at_depth={d: [] for d in b.at_depth}))
            into.floor += b.floor
            for d, values in b.at_depth.items():
                into.at_depth[d] += values
    return pooled_


def format_bounds(bounds: Mapping[str, ReadingBound], actual: EvalReport | None = None) -> str:
    """Mean characters to the answer per strategy: as measured (hybrid), with a perfect
    reranker over the fused top 10/20/30, and the floor; then question / token."""
    depths = sorted(next(iter(bounds.values())).at_depth) if bounds else []
    head = "| strategy | measured | " + " | ".join(f"perfect top {d}" for d in depths) + " | floor |"
    rows = [head, "|---|" + "---:|" * (len(depths) + 2)]
    means: dict[str, list[float | None]] = {}
    for strategy, b in bounds.items():
        measured = actual.row(strategy, "hybrid").context_chars if actual else None
        means[strategy] = (
            [measured] + [statistics.fmean(b.at_depth[d]) for d in depths] + [statistics.fmean(b.floor)]
        )
    for strategy, values in means.items():
        rows.append(f"| {strategy} | " + " | ".join("–" if v is None else f"{v:,.0f}" for v in values) + " |")
    if {"question", "token"} <= set(means):
        ratio = [q / t if q is not None and t else None for q, t in zip(means["question"], means["token"])]
        rows.append(
            "| question / token | " + " | ".join("–" if v is None else f"{v:.2f}" for v in ratio) + " |"
        )
    return "\n".join(rows)
