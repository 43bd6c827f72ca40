"""What one eval run measured, as rows and as the Markdown table: all questions, then
same-language and cross-language ones; several runs pooled into one report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..search import Fusion
from .metrics import EvalRow, QuestionResult, summarise


def format_table(rows: Sequence[EvalRow]) -> str:
    """The eval table as Markdown (readable in a terminal and in Dagster metadata)."""
    lines = [
        "| strategy | mode | subset | n | Hit@1 | Hit@5 | MRR | nDCG@5 | chars to answer |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.strategy} | {r.mode} | {r.subset} | {r.questions} | "
            f"{r.hit1:.3f} | {r.hit5:.3f} | {r.mrr:.3f} | "
            f"{r.ndcg5:.3f} | {r.context_chars:,.0f} |"
        )
    return "\n".join(lines)


@dataclass
class EvalReport:
    """Everything one eval run measured."""

    rows: list[EvalRow]
    results: list[QuestionResult]
    strategies: list[str]
    fusion: Fusion
    papers: dict[str, str]  # file name -> document id

    def table(self) -> str:
        return format_table(self.rows)

    def row(self, strategy: str, mode: str, subset: str = "all") -> EvalRow:
        return next(r for r in self.rows if (r.strategy, r.mode, r.subset) == (strategy, mode, subset))

    def to_json(self) -> dict[str, Any]:
        return {"rows": [asdict(r) for r in self.rows], "fusion": asdict(self.fusion), "papers": self.papers}


def breakdown(results: Sequence[QuestionResult]) -> list[EvalRow]:
    """All questions, then same-language and cross-language questions separately."""
    rows = summarise(results)
    rows += summarise([r for r in results if not r.cross_language], "same-language")
    rows += summarise([r for r in results if r.cross_language], "cross-language")
    return rows


def pooled(reports: Sequence[EvalReport]) -> EvalReport:
    """One report over the questions of several eval runs (each weighs by its questions)."""
    results = [r for report in reports for r in report.results]
    papers = {name: doc for report in reports for name, doc in report.papers.items()}
    return EvalReport(breakdown(results), results, list(reports[0].strategies), reports[0].fusion, papers)
