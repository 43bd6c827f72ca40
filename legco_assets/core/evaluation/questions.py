"""A gold question and how a set's file is read: the question, its paper, its answer's place.

Why: every set (gold, held-out, development) is one JSON file of these questions; the hit rule
(:mod:`.hit_rule`), the papers (:mod:`.papers`) and the scoring read them the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .sets import GOLD_QUESTIONS


@dataclass(frozen=True)
class GoldQuestion:
    """A paraphrased question and where its answer is: document file, question id, page."""

    id: str
    question: str
    document: str  # file name of the paper, e.g. paper_e_qa.pdf
    qa_id: str | None  # None: a question about narrative, judged by its own answer end only
    page: int
    lang: str  # language of the question (zh | en | yue: Cantonese, written in Chinese script)
    answer_end: str | None = None  # closing words of the passage that answers it (see :mod:`.hit_rule`)


def load_gold_questions(path: Path = GOLD_QUESTIONS, pair_ends: bool = False) -> list[GoldQuestion]:
    """The gold questions; with ``pair_ends``, without their own answer ends (every hit is
    then judged by the end of the whole pair's answer)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    items = data["questions"] if isinstance(data, dict) else data
    questions = [_gold_question({"qa_id": None, **q}) for q in items]
    # a blind question without a pair (qa_id None) keeps its own end: it has no other
    return [replace(q, answer_end=None) if q.qa_id else q for q in questions] if pair_ends else questions


def _gold_question(fields: dict[str, Any]) -> GoldQuestion:
    """One question from its JSON object (keys that are no field, such as notes, ignored)."""
    return GoldQuestion(**{k: fields[k] for k in GoldQuestion.__dataclass_fields__ if k in fields})


def script_language(lang: str) -> str:
    """A question's language as the script it is written in (``zh`` | ``en``): Cantonese
    (``yue``) is written in Chinese characters, so it is a same-language question about a
    Chinese paper."""
    return "zh" if lang in ("zh", "yue") else lang
