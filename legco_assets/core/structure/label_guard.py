"""A guard against silent misses: question labels the paper shows against pairs made.

Why: a paper whose questions the rules cannot read (labels in an unexpected form, a page
laid out in table cells) used to give narrative chunks and no word about it. The labels a
reader sees (``問1.``, ``問 A1：``, ``Q1 …``, a Council question ``1. MR X: …``, a bare
``3 …？`` in a paper without other labels, and a question put with ``Public officer to
reply:`` under it) are counted here on the text, independently of the structure pass, and
compared with the pairs it made. A paper that shows labels but pairs few of them, or titles
itself ``Frequently Asked Questions`` / ``常見問題`` and pairs none, gets a
warning (the ``document_structure`` asset check, a line from ``legco-assets chunk``);
answers are never invented to make the numbers meet.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import markers
from ..records import Section
from .numbering import paragraph_numbers
from .ordinals import label_id

PAIRED_SHARE = 0.8  # fewer of the labels paired than this: the paper is probably misread
MIN_LABELS = 2
SHOWN = 20  # unpaired labels listed in the metadata
PENDING = "a question put without a reply"
_NOT_WORD = re.compile(r"[\W_]+")


@dataclass
class LabelCoverage:
    """Labels seen (distinct), pairs made (with an answer), and which labels have none."""

    labels_seen: int
    pairs_made: int
    labels_paired: int
    unpaired_labels: list[str] = field(default_factory=list)
    faq_title: str | None = None  # the paper calls itself an FAQ, yet no pair was made

    @property
    def ok(self) -> bool:
        paired = self.labels_seen < MIN_LABELS or self.labels_paired >= PAIRED_SHARE * self.labels_seen
        return paired and not self.faq_title

    @property
    def message(self) -> str:
        """One line a person reads: what was seen, what was made."""
        counts = Counter(self.unpaired_labels)
        named = [label if n == 1 else f"{label} ×{n}" for label, n in counts.items()]
        shown = ", ".join(named[:5]) + (" …" if len(named) > 5 else "")
        text = f"{self.labels_seen} question labels seen, {self.pairs_made} pairs made"
        if self.unpaired_labels:
            text += f"; without a pair: {shown}"
        if self.faq_title:
            text += f"; titled as questions and answers ({self.faq_title[:60]})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "unpaired_labels": self.unpaired_labels[:SHOWN],
            "ok": self.ok,
            "message": self.message,
        }


def _text_key(text: str) -> str:
    return _NOT_WORD.sub("", text.casefold())[:40]


def question_labels(text: str) -> dict[str, str]:
    """Distinct question labels of ``text``: key (as pairs' ``qa_id`` reads, or the
    question's text when unnumbered) -> the label as printed. A list of the questions at
    the top repeats labels; each counts once."""
    lines = [ln.strip() for ln in text.split("\n")]
    paragraphs = paragraph_numbers(lines)  # a speech's or a guide's numbers that ask are no labels
    explicit: dict[str, str] = {}
    numbered: dict[str, str] = {}
    pending = 0
    for k, line in enumerate(lines):
        if not line:
            continue
        m = markers.ZH_QUESTION.match(line)
        if m:
            qa_id = label_id(m["id"])
            explicit.setdefault(qa_id or _text_key(m["text"]), line[:24])
            continue
        m = markers.EN_QUESTION.match(line)
        if m and m["letter"] in ("Q", "Question") and m["text"]:
            explicit.setdefault(f"Q{int(m['num'])}" if m["num"] else _text_key(m["text"]), line[:24])
            continue
        m = markers.HANSARD_QUESTION.match(line)
        if m:
            explicit.setdefault(m["num"], line[:24])
            continue
        m = markers.NUMBERED_QUESTION.match(line)
        if m and m["text"] and markers.QUESTION_END.search(m["text"]) and k not in paragraphs:
            numbered.setdefault(m["num"], line[:24])
        if markers.REPLY_PENDING.match(line):
            pending += 1
            explicit[f"reply-pending-{pending}"] = PENDING
    return explicit if len(explicit) >= MIN_LABELS or not numbered else {**explicit, **numbered}


def label_coverage(text: str, sections: list[Section]) -> LabelCoverage:
    """How many of the labels in ``text`` became pairs among ``sections``."""
    labels = question_labels(text)
    pairs = [s for s in sections if s.type == "qa" and (s.answer or "").strip()]
    made = {s.qa_id for s in pairs if s.qa_id} | {_text_key(s.question or "") for s in pairs}
    unpaired = [printed for key, printed in labels.items() if key not in made]
    titled = None if pairs else _faq_title(text)
    return LabelCoverage(len(labels), len(pairs), len(labels) - len(unpaired), unpaired, titled)


def _faq_title(text: str) -> str | None:
    """A line that titles the paper (or a part of it) as questions and answers
    (``Frequently Asked Questions on …``, ``常見問題``): such a paper should make pairs."""
    return next((line.strip() for line in text.split("\n") if markers.FAQ_TITLE.match(line.strip())), None)
