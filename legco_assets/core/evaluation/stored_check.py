"""One document's own questions (the ``vector_index`` asset check): Hit@5 of the hybrid
search, restricted to the document, against the baseline recorded in the gold file.

Why a module of its own: the asset check needs only this, the questions, the papers and the
hit rule, not the eval's runs, sweeps or reports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import Artifacts
from ..search import Mode, Retriever
from ..settings import Settings
from .hit_rule import holds_answer_end
from .papers import Paper, add_question_anchors, gold_pairs_path, paper_from_pages
from .questions import GoldQuestion, load_gold_questions
from .sets import GOLD_QUESTIONS


@dataclass
class DocumentCheck:
    """Hit@5 of the hybrid search, restricted to one document, on that document's questions."""

    filename: str
    strategy: str
    questions: int
    hit5: float
    baseline: float | None  # recorded in the gold questions file; None: nothing to compare with
    misses: list[str]

    @property
    def passed(self) -> bool:
        return self.baseline is None or self.hit5 >= self.baseline - 1e-9


def recorded_baseline(filename: str, strategy: str, gold_path: Path = GOLD_QUESTIONS) -> float | None:
    """The Hit@5 recorded for (paper, strategy) by ``scripts/eval_retrieval.py --record-baselines``."""
    data = json.loads(Path(gold_path).read_text(encoding="utf-8"))
    value = data.get("baselines", {}).get(filename, {}).get(strategy)
    return float(value) if value is not None else None


def check_document(
    retriever: Retriever,
    paper: Paper,
    questions: Sequence[GoldQuestion],
    strategy: str,
    baseline: float | None,
) -> DocumentCheck:
    """Ask each question with the document filter (so other ingested papers do not matter)."""
    own = [q for q in questions if q.document == paper.path.name]
    misses = []
    for q in own:
        hits = retriever.search(
            q.question, k=5, strategy=strategy, mode=Mode.hybrid, document=paper.document_id
        )
        if not any(holds_answer_end(h.record, paper.document_id, paper.anchor(q)) for h in hits):
            misses.append(q.id)
    hit5 = 1 - len(misses) / len(own) if own else 0.0
    return DocumentCheck(paper.path.name, strategy, len(own), hit5, baseline, misses)


def check_stored_document(
    settings: Settings, collection: Any, document_id: str, strategy: str, gold_path: Path = GOLD_QUESTIONS
) -> DocumentCheck | None:
    """The check for a document ingested by the pipeline, or None when it has no gold:
    no ``X.gold.json`` beside its source file or no question about it in the gold set."""
    art = Artifacts(settings, document_id)
    info = art.source()
    if not gold_pairs_path(Path(info.path)).exists() or not Path(gold_path).exists():
        return None
    questions = [q for q in load_gold_questions(gold_path) if q.document == info.filename]
    if not questions:
        return None
    paper = paper_from_pages(Path(info.path), document_id, info.sha256, art.pages())
    add_question_anchors({info.filename: paper}, questions)
    # as the baselines were recorded: no model calls
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    return check_document(
        retriever, paper, questions, strategy, recorded_baseline(info.filename, strategy, gold_path)
    )
