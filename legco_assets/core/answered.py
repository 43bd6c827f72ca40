"""Only answered questions are pairs: the page's own list of questions and questions put
without a reply are not.

Why: an FAQ page often lists its questions at the top (as links to the answers below), and
a Council agenda prints each question with the official who *will* reply. Read line by
line, both look like questions; chunked as pairs they would be empty answers, or an answer
made of the next questions. The rules find every labelled question; this pass, run on
their sections, judges them as a reader does:

* the same question twice (same label and text, or same text): the copy followed by the
  longer answer is the question; the others are the page's list of questions, kept as a
  ``toc`` section (never chunked, like a table of contents);
* the same label twice and one copy has no answer: the unanswered copy is the list's;
* a question whose "answer" starts with ``Public officer to reply:`` /
  ``負責答覆的政府官員：`` was put, not answered: its section is narrative.
"""

from __future__ import annotations

import re
from dataclasses import replace

from . import markers
from .records import Section

_NOT_WORD = re.compile(r"[\W_]+")


def _key(text: str | None) -> str:
    """A question's text for comparison: letters and digits only, case folded."""
    return _NOT_WORD.sub("", (text or "").casefold())


def _answer_length(section: Section) -> int:
    return len((section.answer or "").strip())


def answered_pairs(sections: list[Section]) -> list[Section]:
    """The sections with list copies of questions and unanswered requests re-typed."""
    pairs = [s for s in sections if s.type == "qa"]
    listed = _listed_copies(pairs)
    out = []
    for section in sections:
        if section.type != "qa":
            out.append(section)
        elif id(section) in listed:
            out.append(_as(section, "toc"))
        elif _reply_pending(section):
            out.append(_as(section, "narrative"))
        else:
            out.append(section)
    return out


def _listed_copies(pairs: list[Section]) -> set[int]:
    """ids of the pairs that repeat a question answered elsewhere."""
    listed: set[int] = set()
    by_text: dict[str, list[Section]] = {}
    by_label: dict[str, list[Section]] = {}
    for s in pairs:
        if len(_key(s.question)) >= 4:
            by_text.setdefault(_key(s.question), []).append(s)
        if s.qa_id:
            by_label.setdefault(s.qa_id, []).append(s)
    for group in by_text.values():
        if len(group) > 1:
            keep = max(group, key=_answer_length)
            listed.update(id(s) for s in group if s is not keep)
    for group in by_label.values():
        if len(group) > 1 and any(_answer_length(s) for s in group):
            listed.update(id(s) for s in group if not _answer_length(s))
    return listed


def _reply_pending(section: Section) -> bool:
    first = next((ln.strip() for ln in (section.answer or "").split("\n") if ln.strip()), "")
    return bool(markers.REPLY_PENDING.match(first))


def _as(section: Section, kind: str) -> Section:
    heading = section.heading if kind == "narrative" else "List of questions"
    return replace(section, type=kind, heading=heading, qa_id=None, question=None, answer=None, answer_start=None)
