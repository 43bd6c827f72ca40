"""One eval run: the papers ingested, every question ranked, then scored in every mode (the
report) or under each share of language centering and set of fusion weights (a sweep).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..search import (
    DEFAULT_FUSION,
    LANGUAGE_CENTERING,
    QUESTION_CENTERING,
    Fusion,
    Mode,
    Rankings,
    Reranker,
    Retriever,
)
from ..settings import Settings
from .baseline import BASELINE
from .ingest import ingest_papers
from .metrics import EvalRow, QuestionResult, summarise
from .papers import Paper, load_papers
from .questions import GoldQuestion, load_gold_questions
from .recorded import recorded_reranker
from .report import EvalReport, breakdown
from .scoring import Translated, collect_rankings, collect_translated, score_all


@dataclass
class EvalRun:
    """Papers ingested and every ranker's candidates collected: scoring a mode or a set
    of fusion weights is then cheap, so a weight sweep compares like with like."""

    retriever: Retriever
    questions: list[GoldQuestion]
    papers: dict[str, Paper]
    strategies: list[str]
    rankings: dict[tuple[str, str], Rankings]
    translated: Translated = field(default_factory=dict)
    reranker: Reranker | None = None

    def score(self, modes: Sequence[Mode], fusion: Fusion) -> list[QuestionResult]:
        return score_all(
            self.retriever,
            self.questions,
            self.papers,
            self.rankings,
            self.strategies,
            modes,
            fusion,
            self.translated,
            self.reranker,
        )

    def report(self, modes: Sequence[Mode] = tuple(Mode), fusion: Fusion = DEFAULT_FUSION) -> EvalReport:
        results = self.score(modes, fusion)
        papers = {name: p.document_id for name, p in self.papers.items()}
        return EvalReport(breakdown(results), results, list(self.strategies), fusion, papers)

    def sweep(self, variants: dict[str, Fusion]) -> list[EvalRow]:
        """The hybrid mode under each named set of weights, per strategy."""
        rows = []
        for name, fusion in variants.items():
            for row in summarise(self.score([Mode.hybrid], fusion)):
                row.mode = name
                rows.append(row)
        return rows

    def centering_sweep(self, shares: Sequence[float], ranker: str = "vector") -> list[EvalRow]:
        """The hybrid mode with each share of language centering of the ``vector`` (chunk)
        or ``question`` ranker's query (the candidates are collected again for each), all
        questions and cross-language ones, per strategy."""
        attribute = "centering" if ranker == "vector" else "question_centering"
        kept = getattr(self.retriever, attribute)
        rows = []
        try:
            for share in shares:
                setattr(self.retriever, attribute, share)
                rankings = collect_rankings(self.retriever, self.questions, self.papers, self.strategies)
                results = score_all(
                    self.retriever,
                    self.questions,
                    self.papers,
                    rankings,
                    self.strategies,
                    [Mode.hybrid],
                    self.retriever.fusion,
                )
                for row in summarise(results) + summarise(
                    [r for r in results if r.cross_language], "cross-language"
                ):
                    default = (
                        LANGUAGE_CENTERING.get(row.strategy, 0.0)
                        if ranker == "vector"
                        else QUESTION_CENTERING
                    )
                    row.mode = f"centering {share:g}" + (" (default)" if share == default else "")
                    rows.append(row)
        finally:
            setattr(self.retriever, attribute, kept)
        return rows


def prepare_eval(
    work_dir: Path,
    gold_path: Path,
    papers_dir: Path,
    strategies: Sequence[str] = ("question", "token", BASELINE),
    settings: Settings | None = None,
    pair_ends: bool = False,
    translations: Mapping[str, str] | None = None,
    rerankings: Mapping[str, Sequence[str]] | None = None,
) -> EvalRun:
    """Ingest the papers into ``work_dir`` and rank every question. The papers are the gold
    file's ``papers`` (questions' papers and distractors) or else those its questions name;
    answer ends are the questions' own, then the file's ``answer_ends`` or else each paper's
    ``.gold.json`` (only these with ``pair_ends``). With ``translations`` (question text ->
    the question in the other language, as an LLM gave it), hybrid search fuses both; with
    ``rerankings`` (question text -> the chunk ids an LLM named, best first), the fused top
    chunks are re-ordered as it did (:func:`recorded_reranker`)."""
    questions = load_gold_questions(gold_path, pair_ends)
    papers = load_papers(Path(gold_path), Path(papers_dir), questions)
    missing = [
        q.id
        for q in questions
        if q.id not in papers[q.document].question_anchors and q.qa_id not in papers[q.document].anchors
    ]
    if missing:
        raise ValueError(
            f"gold questions name question ids absent from the papers' gold files: {', '.join(missing)}"
        )
    settings = settings or Settings(data_dir=Path(work_dir), inbox=Path(work_dir) / "inbox")
    collection = ingest_papers(list(papers.values()), strategies, settings)
    # LLM replies (translations, rerankings) come recorded, if at all
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    rankings = collect_rankings(retriever, questions, papers, strategies)
    translated = collect_translated(retriever, questions, strategies, translations) if translations else {}
    reranker = recorded_reranker(rerankings) if rerankings else None
    return EvalRun(retriever, questions, papers, list(strategies), rankings, translated, reranker)


def run_eval(
    work_dir: Path,
    gold_path: Path,
    papers_dir: Path,
    strategies: Sequence[str] = ("question", "token", BASELINE),
    modes: Sequence[Mode] = tuple(Mode),
    fusion: Fusion = DEFAULT_FUSION,
) -> EvalReport:
    """The eval table for the gold questions (see the package docstring)."""
    return prepare_eval(work_dir, gold_path, papers_dir, strategies).report(modes, fusion)
