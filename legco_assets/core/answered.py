"""Only answered questions are pairs: the page's own list of questions and questions put
without a reply are not.

Why: an FAQ page often lists its questions at the top (as links to the answers below), and
a Council agenda prints each question with the official who *will* reply. Read line by
line, both look like questions; chunked as pairs they would be empty answers, or an answer
made of the next questions. The rules find every labelled question; this pass, run on
their sections, judges them as a reader does:

* the same question text twice: a copy without an answer (nothing, or only the short
  heading line that follows the list) where another copy has one is the page's list of
  questions, kept as a ``toc`` section (never chunked, like a table of contents). A
  question asked and answered twice keeps both pairs; the same label with another text is
  left alone (a paper numbering two questions alike: the numbering check reports it);
* a question whose "answer" starts with ``Public officer to reply:`` /
  ``負責答覆的政府官員：`` was put, not answered: its section is narrative.
"""

from __future__ import annotations

import re
from dataclasses import replace

from . import markers
from .records import Section

_NOT_WORD = re.compile(r"[\W_]+")
LIST_TAIL_CHARS = 40  # a listed question's "answer" may be the heading that follows the list


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
    for s in pairs:
        if len(_key(s.question)) >= 2:
            by_text.setdefault(_key(s.question), []).append(s)
    for group in by_text.values():
        if len(group) > 1:
            longest = max(_answer_length(s) for s in group)
            listed.update(id(s) for s in group if _no_real_answer(s, longest))
    return listed


def _no_real_answer(section: Section, longest: int) -> bool:
    """Empty, or one short line (the heading between the list and the answers) where another
    copy has a real answer; a question asked and answered twice keeps both pairs."""
    answer = (section.answer or "").strip()
    return not answer or ("\n" not in answer and len(answer) <= LIST_TAIL_CHARS < longest)


def _reply_pending(section: Section) -> bool:
    first = next((ln.strip() for ln in (section.answer or "").split("\n") if ln.strip()), "")
    return bool(markers.REPLY_PENDING.match(first))


def _as(section: Section, kind: str) -> Section:
    heading = section.heading if kind == "narrative" else "List of questions"
    return replace(section, type=kind, heading=heading, qa_id=None, question=None, answer=None, answer_start=None)
