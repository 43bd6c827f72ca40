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
  question asked and answered twice keeps both pairs, except the last question of such a
  list, whose "answer" is the introduction before the first real answer: it is narrative.
  The same label with another text is left alone (a paper numbering two questions alike:
  the numbering check reports it);
* a question whose "answer" starts with ``Public officer to reply:`` /
  ``負責答覆的政府官員：`` was put, not answered: its section is narrative, one per question
  (a Council agenda's ``3. Hon James TIEN to ask:`` headed by that label).
"""

from __future__ import annotations

import re
from dataclasses import replace

from .. import markers
from ..records import Section

_NOT_WORD = re.compile(r"[\W_]+")
PUT = "put"  # Section.extra key of a question put without a reply: its span is the paper's, not a guess
LIST_TAIL_CHARS = 40  # a listed question's "answer" may be the heading that follows the list


def _key(text: str | None) -> str:
    """A question's text for comparison: letters and digits only, case folded."""
    return _NOT_WORD.sub("", (text or "").casefold())


def _answer_length(section: Section) -> int:
    return len((section.answer or "").strip())


def answered_pairs(sections: list[Section]) -> list[Section]:
    """The sections with list copies of questions and unanswered requests re-typed."""
    pairs = [s for s in sections if s.type == "qa"]
    listed, tail = _listed_copies(pairs)
    out = []
    for section in sections:
        if section.type != "qa":
            out.append(section)
        elif id(section) in listed:
            out.append(_as(section, "toc"))
        elif id(section) in tail:
            out.append(_as(section, "narrative"))
        elif _reply_pending(section):
            out.append(_put(section))
        else:
            out.append(section)
    return out


def _listed_copies(pairs: list[Section]) -> tuple[set[int], set[int]]:
    """ids of the pairs that repeat a question answered elsewhere, and of the last item of
    such a list when text follows it (an introduction before the first answer: that item's
    "answer"), which stays as narrative so the text is kept."""
    by_text: dict[str, list[Section]] = {}
    for s in pairs:
        if len(_key(s.question)) >= 2:
            by_text.setdefault(_key(s.question), []).append(s)
    listed: set[int] = set()
    repeated_later: set[int] = set()
    for group in by_text.values():
        if len(group) > 1:
            # a list comes before the answers: the last copy is the question, unless it
            # has no answer and an earlier one has
            keep = group[-1] if _answer_length(group[-1]) else max(group, key=_answer_length)
            others = [s for s in group if s is not keep]
            listed.update(id(s) for s in others if _no_real_answer(s, _answer_length(keep)))
            repeated_later.update(id(s) for s in others)
    tail = {
        id(s)
        for before, s in zip(pairs, pairs[1:])
        if id(before) in listed and id(s) in repeated_later and id(s) not in listed
    }
    return listed, tail


def _no_real_answer(section: Section, kept: int) -> bool:
    """Empty, or one short line (the heading between the list and the answers) where the
    copy kept has an answer; a question asked and answered twice keeps both pairs."""
    answer = (section.answer or "").strip()
    return not answer or ("\n" not in answer and len(answer) <= LIST_TAIL_CHARS and kept > 0)


def _reply_pending(section: Section) -> bool:
    first = next((ln.strip() for ln in (section.answer or "").split("\n") if ln.strip()), "")
    return bool(markers.REPLY_PENDING.match(first))


def _put(section: Section) -> Section:
    """A question put, not answered, is narrative of its own; an agenda's numbered question
    is headed by its label (``3. Hon James TIEN to ask: (Translation)``) under the heading
    above it, so its chunk says whose question it is and the path where it sits."""
    narrative = _as(section, "narrative")
    first = next((ln.strip() for ln in section.text.split("\n") if ln.strip()), "")
    m = markers.AGENDA_QUESTION.match(first)
    if not m:
        return narrative
    label = first[: m.start("text")].strip()
    path = [h for h in (section.parent_topic, section.heading) if h]
    return replace(
        narrative,
        heading=label,
        parent_topic=section.heading or section.parent_topic,
        path=[*dict.fromkeys(path), label],
        extra={**section.extra, PUT: True},
    )


def _as(section: Section, kind: str) -> Section:
    heading = section.heading if kind == "narrative" else "List of questions"
    return replace(
        section, type=kind, heading=heading, qa_id=None, question=None, answer=None, answer_start=None
    )
