"""The eval's papers: each read and cleaned as the pipeline reads it, with the answer ends
(:mod:`.hit_rule`) its questions are judged by.

Why: the eval ingests the papers itself (no Dagster), so it reads them here; the asset check
(:mod:`.stored_check`) builds the same :class:`Paper` from the pipeline's stored pages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..read import read_source, text_pages
from ..records import DocumentText
from ..search import script_of
from ..sources import slug
from .hit_rule import LooseEnd, answer_anchor, loose
from .questions import GoldQuestion
from .sets import REAL_CORPUS, REAL_PAPERS


@dataclass
class Paper:
    """One fixture paper as ingested for the eval."""

    path: Path
    document_id: str
    sha256: str
    text: str  # cleaned pages joined, as every strategy sees it
    anchors: dict[str, str]  # qa_id -> normalised answer end
    pages: list[Any] = field(default_factory=list, repr=False)
    question_anchors: dict[str, str] = field(default_factory=dict)  # gold question id -> its own answer end

    def anchor(self, question: GoldQuestion) -> str:
        """What the hit rule looks for when ``question`` is asked."""
        return self.question_anchors.get(question.id) or self.anchors[str(question.qa_id)]


def load_paper(path: Path, answer_ends: dict[str, str] | None = None) -> Paper:
    """Extract and clean ``path``; its answer ends come from ``answer_ends`` (qa_id -> the
    answer's closing words, for papers we did not write) or else from its ``.gold.json``."""
    source = read_source(path)
    _, pages = text_pages(source)
    return paper_from_pages(Path(path), slug(path), source.sha256, pages, answer_ends)


def paper_from_pages(
    path: Path, document_id: str, sha256: str, pages: list[Any], answer_ends: dict[str, str] | None = None
) -> Paper:
    """A :class:`Paper` from cleaned pages (the eval's or the pipeline's stored ones)."""
    text = DocumentText.from_pages(pages).text
    if answer_ends is not None:
        anchors = {qa_id: answer_anchor(end, end, text) for qa_id, end in answer_ends.items()}
    else:
        gold = json.loads(gold_pairs_path(path).read_text(encoding="utf-8"))
        anchors = {
            p["qa_id"]: answer_anchor(p["answer_text"], p["answer_last_line"], text) for p in gold["pairs"]
        }
    return Paper(path, document_id, sha256, text, anchors, pages)


def add_question_anchors(papers: dict[str, Paper], questions: Sequence[GoldQuestion]) -> None:
    """Each question that names its own answer end gets its anchor in its paper
    (``papers``: by the name the gold file gives them)."""
    for q in questions:
        if q.answer_end:
            paper = papers[q.document]
            if q.qa_id is None:  # a blind narrative or cross-language question (:class:`LooseEnd`)
                paper.question_anchors[q.id] = LooseEnd(loose(q.answer_end))
            else:
                paper.question_anchors[q.id] = answer_anchor(q.answer_end, q.answer_end, paper.text)


def gold_pairs_path(paper: Path) -> Path:
    """Where a paper's gold Q&A pairs live: ``X.gold.json`` beside ``X.pdf``."""
    return Path(paper).with_suffix(".gold.json")


def load_papers(gold_path: Path, papers_dir: Path, questions: Sequence[GoldQuestion]) -> dict[str, Paper]:
    """The eval's papers by their name in the gold file (see :func:`prepare_eval`); HTML
    papers are read as the pipeline reads them (:mod:`..read.html_reader`)."""
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    gold = gold if isinstance(gold, dict) else {"questions": gold}
    default = list(REAL_PAPERS) if Path(papers_dir).resolve() == REAL_CORPUS.resolve() else []
    names = gold.get("papers") or list(dict.fromkeys([q.document for q in questions] + default))
    ends = gold.get("answer_ends")
    if ends is None and all(q.qa_id is None for q in questions):
        ends = {}  # judged by the questions' own ends only: no paper needs a .gold.json
    papers = {
        name: load_paper(papers_dir / name, ends.get(name, {}) if ends is not None else None)
        for name in names
    }
    add_question_anchors(papers, questions)
    return papers


def paper_language(paper: Paper) -> str:
    return script_of(paper.text)
