"""Find the structure of a paper: Q&A pairs, topic headings, speaking notes, narrative, TOC.

One pass over the lines of :class:`DocumentText` with compiled regexes from :mod:`markers`
finds *events* (a question, a heading, a section marker, a table of contents); each event
opens a section that runs to the next event. Look-ahead is bounded (a question's own lines,
a few lines after a heading), so detection is linear in the length of the text.

Why the rules look the way they do (what real LegCo and government papers print):

* answer markers (``答 A1：``, ``A1 …``) count only right after their question, so appendix
  rows and page labels that read ``A1`` never become pairs;
* bare numbered questions (``1 新規定如何操作？``) count only in documents without explicit
  markers, only in sequence, and only when the text ends with a question mark within a few
  lines, so numbered lists and chapter lists stay narrative;
* inside an answer a topic heading ends the answer only when a question follows it (or it is
  the next letter / roman numeral of the topics seen so far), so ``(1)`` list items stay put;
* a short line without punctuation right before a question, after a finished sentence, is a
  topic line (``Licensing``, ``業務經營者``, ``Others``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .. import markers
from ..records import DocumentText, Section
from . import council
from .answered import answered_pairs
from .contents_lines import ContentsLines
from .numbering import paragraph_numbers
from .ordinals import label_id, label_value
from .releases import released_questions
from .rosters import in_name_list
from .tabular import looks_tabular, mostly_cells, table_row_figures
from .text import (
    HEADING_MAX_WIDTH,
    bare_topic_like,
    display_width,
    drop_internal_refs,
    heading_like,
    join_pages,
    join_wrapped,
    leaves_bracket_open,
    quoted_lines,
)

ANSWER_SEARCH_LINES = 40  # how far an explicit answer marker may sit below its question
EN_ANSWER_SEARCH_LINES = 8
QUESTION_WRAP_LINES = 5  # an implicit-answer question must end (``?``) within this many lines
AGENDA_QUESTION_LINES = 80  # an agenda question runs to its ``Public Officer to reply`` line
HEADING_LOOKAHEAD = 3  # a topic heading inside an answer needs a question this close below
LEVEL1 = {"level1", "speaking", "standby"}


def _title_line(text: str) -> bool:
    """A hansard question title: short, no sentence punctuation (``、`` and figures allowed)."""
    s = text.strip()
    if not 0 < display_width(s) <= 2 * HEADING_MAX_WIDTH or markers.SENTENCE_END.search(s):
        return False
    return not markers.CJK_CLAUSE_PUNCT.search(s.replace("、", ""))


# -- detection --------------------------------------------------------------------------------
@dataclass
class _Question:
    qa_id: str
    line: int
    q_end: int  # first line after the question's own lines
    answer_line: int | None  # the explicit answer marker's line; None: the answer follows q_end
    first_text: str  # question text on the marker line
    answer_text: str = ""  # answer text on the answer marker line


@dataclass
class _Event:
    kind: str  # question | topic | level1 | speaking | standby | toc
    line: int
    context: str  # narrative | speaking | qa: where the event was found
    head_end: int  # first line after the event's own lines (toc: after the region)
    question: _Question | None = None


@dataclass
class _Detector:
    doc: DocumentText
    include_internal_refs: bool = True
    lines: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    events: list[_Event] = field(default_factory=list)
    context: str = "narrative"
    numbered_mode: bool = False
    hansard_mode: bool = False
    last_number: int | None = None  # last numbered (implicit) question accepted
    pair_count: int = 0
    section_number: int | None = None  # last numbered narrative heading accepted
    last_question_line: int = 0
    raw_lengths: list[int] = field(default_factory=list)
    topic_labels: dict[str, int] = field(default_factory=dict)  # style -> last ordinal
    paragraphs: set[int] = field(default_factory=set)  # numbered lines that ask but number paragraphs
    contents: ContentsLines | None = None  # built on the first untitled line that could open a list
    quoted: set[int] = field(default_factory=set)  # lines of a quotation over several lines

    def __post_init__(self) -> None:
        raw = self.doc.text.split("\n")
        pos = 0
        for line in raw:
            self.offsets.append(pos)
            self.raw_lengths.append(len(line.rstrip()))
            pos += len(line) + 1
        self.lines = [ln.strip() for ln in raw]
        self.quoted = quoted_lines(self.lines)
        explicit = sum(1 for s in self.lines if _explicit_marker(s))
        hansard = sum(1 for s in self.lines if markers.HANSARD_QUESTION.match(s))
        self.hansard_mode = hansard >= 2 and explicit < 2
        self.numbered_mode = explicit < 2 and not self.hansard_mode
        self.paragraphs = paragraph_numbers(self.lines) if self.numbered_mode else set()
        self.last_question_line = max(
            (
                k
                for k, s in enumerate(self.lines)
                if _question_like(s, self.numbered_mode) and k not in self.paragraphs
            ),
            default=len(self.lines),
        )

    # navigation
    def _next_nonblank(self, i: int, limit: int) -> list[int]:
        """Indexes of up to ``limit`` non-blank lines after line ``i``."""
        found: list[int] = []
        k = i + 1
        while k < len(self.lines) and len(found) < limit:
            if self.lines[k]:
                found.append(k)
            k += 1
        return found

    def _prev_nonblank(self, i: int) -> int | None:
        k = i - 1
        while k >= 0 and not self.lines[k]:
            k -= 1
        return k if k >= 0 else None

    def _starts_block(self, i: int) -> bool:
        """Line ``i`` opens a block: first of a page/paragraph, after a sentence or a heading."""
        if i == 0 or not self.lines[i - 1]:
            return True
        if self.events and self.events[-1].head_end == i:
            return True
        return bool(markers.SENTENCE_END.search(self.lines[i - 1]))

    # the pass
    def run(self) -> list[_Event]:
        i = 0
        while i < len(self.lines):
            i = self._step(i) if self.lines[i] else i + 1
        return self.events

    def _step(self, i: int) -> int:
        s = self.lines[i]
        toc_end = self._toc_end(i)
        if toc_end:
            self.events.append(_Event("toc", i, self.context, toc_end))
            return toc_end
        for kind, pattern, context in (
            ("speaking", markers.SPEAKING_NOTES, "speaking"),
            ("standby", markers.STANDBY_QA, "qa"),
            ("standby", markers.FAQ_TITLE, "qa"),
        ):
            if pattern.match(s) and heading_like(s):
                self.context = context
                self.events.append(_Event(kind, i, context, i + 1))
                return i + 1
        question = self._question_at(i)
        if question:
            return self._add_question(question)
        return self._heading_at(i)

    # table of contents
    def _toc_end(self, i: int) -> int:
        """End of a table of contents starting at line ``i`` (0 when none starts here): a
        titled list, leader lines before the body, or (:mod:`contents_lines`) a run of lines
        before the body that list the paper's own headings, whatever follows them."""
        titled = bool(markers.TOC_TITLE.match(self.lines[i]))
        if not titled and not self._front_matter(i):  # the cheap test first: most lines are the body's
            return 0
        if not titled and not markers.TOC_LEADER.search(self.lines[i]):
            return self._listed_end(i)
        end = i + 1
        while True:
            ahead = self._next_nonblank(end - 1, 3)
            if not ahead or not any(self._toc_entry(k, titled) for k in ahead):
                return end
            first_entry = next(k for k in ahead if self._toc_entry(k, titled))
            end = first_entry + 1

    def _listed_end(self, i: int) -> int:
        if self.contents is None:
            self.contents = ContentsLines(self.lines)
        return self.contents.end(i, len(self.lines))

    def _front_matter(self, i: int) -> bool:
        """Leader lines make a contents list only before the body (appendix tables use them too)."""
        pages = len(self.doc.page_starts)
        return not self.pair_count and self.doc.page_at(self.offsets[i]) <= max(3, pages // 10)

    def _toc_entry(self, k: int, titled: bool) -> bool:
        s = self.lines[k]
        return bool(markers.TOC_LEADER.search(s) or titled and markers.TOC_PAGE_REF.search(s))

    # questions
    def _question_at(self, i: int) -> _Question | None:
        s = self.lines[i]
        m = markers.AGENDA_QUESTION.match(s)
        if m:  # put, with the official who will reply below it (:mod:`answered` keeps it unpaired)
            return self._explicit_question(i, m["num"], m["text"], _reply_named, limit=AGENDA_QUESTION_LINES)
        m = markers.ZH_QUESTION.match(s)
        if m:
            return self._explicit_question(i, label_id(m["id"]), m["text"], _zh_answer)
        m = _en_q(s)
        if m and (m["letter"] in ("Q", "Question") or self.pair_count):
            question = self._en_question(i, m)
            if question:
                return question
        if self.hansard_mode:
            m = markers.HANSARD_QUESTION.match(s)
            if m:
                return self._explicit_question(i, m["num"], m["text"], _hansard_reply, limit=400)
        if self.numbered_mode:
            return self._numbered_question(i)
        return None

    def _explicit_question(
        self, i: int, qa_id: str, text: str, answer_of: Any, limit: int = ANSWER_SEARCH_LINES
    ) -> _Question:
        """A question whose answer has its own marker; the question runs up to that marker."""
        for k in self._next_nonblank(i, limit):
            answer = answer_of(self.lines[k])
            if answer is not None:
                return _Question(qa_id or str(self.pair_count + 1), i, k, k, text, answer)
            if self._question_start(k) or self._section_marker(k):
                break
        end = self._question_end(i, text, require_mark=False) or i + 1
        return _Question(qa_id or str(self.pair_count + 1), i, end, None, text)

    def _en_question(self, i: int, m: re.Match[str]) -> _Question | None:
        """``Q7 …``: answered by ``A7 …`` (or an unnumbered ``A:`` / ``Ans.`` / ``Reply:``) right
        below, else by the text after the question.

        A bare ``Q1`` line (a quarter in a table, or a label above its question) counts only
        with an ``A1`` below it or a question mark within a few lines."""
        letter = "Q" if m["letter"] == "Question" else m["letter"]
        qa_id = f"{letter}{int(m['num']) if m['num'] else self.pair_count + 1}"
        ended = bool(markers.QUESTION_END.search(m["text"]))
        # a bare ``Question:`` heads a question of several parts, each perhaps ending ``?``,
        # and its ``Reply:`` / ``Answer:`` may sit many lines below (a Council question's release)
        worded = _worded(m)
        for k in self._next_nonblank(i, ANSWER_SEARCH_LINES if worded else EN_ANSWER_SEARCH_LINES):
            a = markers.EN_ANSWER.match(self.lines[k])
            if a and (
                a["num"] and m["num"] and int(a["num"]) == int(m["num"]) or not a["num"]
            ):  # ``Q5 …`` / ``A: …`` too
                return _Question(qa_id, i, k, k, m["text"], a["text"])
            if ended and not worded or self._question_start(k) or self._section_marker(k):
                break
        if m["letter"] == "Question" and not self.pair_count:
            return (
                None  # a first ``Question:`` / ``Question 1:`` is a label only with its answer's label below
            )
            ended = bool(markers.QUESTION_END.search(self.lines[k]))
        end = self._question_end(i, m["text"], require_mark=not m["text"])
        return _Question(qa_id, i, end, None, m["text"]) if end else None

    def _numbered_question(self, i: int) -> _Question | None:
        m = markers.NUMBERED_QUESTION.match(self.lines[i])
        if not m or i in self.paragraphs:
            return None
        number = int(m["num"])
        expected = self.last_number is None or self.last_number < number <= self.last_number + 2
        if not expected or (self.last_number is None and number > 20):
            return None
        end = self._question_end(i, m["text"], require_mark=True)
        if end is None:
            return None
        self.last_number = number
        return _Question(str(number), i, end, None, m["text"])

    def _question_end(self, i: int, first_text: str, require_mark: bool) -> int | None:
        """First line after a question that ends with ``?`` within a few lines.

        Without a question mark the question is its first line (or, with ``require_mark``,
        there is no question: a numbered list item or a chapter title).
        """
        if markers.QUESTION_END.search(first_text):
            return i + 1
        if first_text and markers.SENTENCE_END.search(first_text):
            return None if require_mark else i + 1
        ahead = self._next_nonblank(i, QUESTION_WRAP_LINES)
        for k in ahead:
            s = self.lines[k]
            if self._question_start(k) or self._section_marker(k) or markers.BULLET.match(s):
                break
            if markers.QUESTION_END.search(s):
                return k + 1
            if markers.SENTENCE_END.search(s):
                break
        if require_mark:
            return None
        return i + 1 if first_text or not ahead else ahead[0] + 1

    def _question_start(self, k: int) -> bool:
        """Cheap test (no look-ahead) for a line that opens a question."""
        s = self.lines[k]
        if markers.ZH_QUESTION.match(s) or _en_q(s) or markers.AGENDA_QUESTION.match(s):
            return True
        if self.hansard_mode and markers.HANSARD_QUESTION.match(s):
            return True
        if self.numbered_mode and self.last_number is not None:
            m = markers.NUMBERED_QUESTION.match(s)
            return (
                bool(m)
                and k not in self.paragraphs
                and self.last_number < int(m["num"]) <= self.last_number + 2
            )
        return False

    def _section_marker(self, k: int) -> bool:
        s = self.lines[k]
        return bool(markers.SPEAKING_NOTES.match(s) or markers.STANDBY_QA.match(s))

    def _add_question(self, q: _Question) -> int:
        self._bare_topic_before(q.line, relaxed=self.hansard_mode)
        self.context = "qa"
        self.pair_count += 1
        self.events.append(_Event("question", q.line, "qa", q.q_end, q))
        return (q.answer_line + 1) if q.answer_line is not None else q.q_end

    def _bare_topic_before(self, i: int, relaxed: bool = False) -> None:
        """Mark a topic line (``Licensing``, ``Others``) sitting right above question ``i``:
        after a finished sentence, or right under a section marker such as ``備用問答``
        (``relaxed``: anywhere; a hansard titles every question)."""
        j = self._prev_nonblank(i)
        if j is None or not (bare_topic_like(self.lines[j]) or relaxed and _title_line(self.lines[j])):
            return
        last = self.events[-1] if self.events else None
        if last and j < last.head_end:
            return  # the question's own lines, or a heading's
        if last and last.kind == "topic" and last.head_end == j:
            return  # a heading wrapped onto a second line
        if last and last.question and j <= self._answer_first_line(last.question):
            return  # the previous answer's only line
        top = self._wrapped_title_top(i, j, last) if relaxed else j
        before = self._prev_nonblank(top)
        after_marker = bool(
            last and last.kind in LEVEL1 | {"toc"} and (before is None or before < last.head_end)
        )
        if relaxed or after_marker or before is None or markers.SENTENCE_END.search(self.lines[before]):
            self.events.append(_Event("topic", top, self.context, j + 1))

    def _wrapped_title_top(self, question: int, j: int, last: _Event | None) -> int:
        """The first line of a hansard question's title whose last line is ``j``: a long title
        wraps, so the lines right above ``j`` (no blank between, at most two) belong to it when
        each is title-like, no table row, at least as wide as the line below it, and full: as
        wide as the question's first line, less a tenth for a title set in its own measure.
        Never above the previous event's own lines or the previous answer's first line."""
        floor = last.head_end if last else 0
        if last and last.question:
            floor = max(floor, self._answer_first_line(last.question) + 1)
        full = 0.9 * display_width(self.lines[question].strip())
        top = j
        for _ in range(2):
            k = top - 1
            s = self.lines[k].strip() if k >= floor else ""
            if not (s and _title_line(s) and not table_row_figures(s)):
                break
            if display_width(s) < max(full, display_width(self.lines[top].strip())):
                break
            top = k
        return top

    def _answer_first_line(self, q: _Question) -> int:
        if q.answer_line is not None:
            return q.answer_line
        ahead = self._next_nonblank(q.q_end - 1, 1)
        return ahead[0] if ahead else q.q_end

    # headings
    def _heading_at(self, i: int) -> int:
        s = self.lines[i]
        if i in self.quoted:
            return i + 1  # a quoted motion's items and titles are its words, not headings
        if markers.CONTINUED.search(s):
            return i + 1  # ``Appendix 1 (cont.)`` carries on the section above
        if self._trailing_matter(i):
            self.context = "narrative"
            self.events.append(_Event("level1", i, self.context, i + 1))
            return i + 1
        m = markers.TOPIC_HEADING.match(s)
        if (
            m
            and heading_like(m["text"])
            and not (self.hansard_mode and leaves_bracket_open(m["text"]))  # a speech's list item
            and self._topic_ok(i, m["label"] or m["cn"] or m["letter"])
        ):
            self.events.append(_Event("topic", i, self.context, i + 1))
            return i + 1
        if self.hansard_mode and markers.HANSARD_BUSINESS.match(s):
            self.context = "narrative"
            self.events.append(_Event("level1", i, self.context, i + 1))
            return i + 1
        if markers.LCQ_TITLE.match(s):
            self.context = "narrative"
            self.events.append(_Event("level1", i, self.context, i + 1))
            return i + 1
        level1 = markers.CHAPTER_HEADING.match(s) or self._annex_heading(s)
        if (
            level1
            and heading_like(_after_label(s, level1.end()))
            and (_bare_label(s, level1.end()) or self._starts_block(i))
        ):
            self.context = "narrative"
            self.events.append(_Event("level1", i, self.context, i + 1))
            return i + 1
        if self.context == "narrative" and (self._numbered_heading(i) or self._narrative_heading(i)):
            self.events.append(_Event("topic", i, self.context, i + 1))
        return i + 1

    def _numbered_heading(self, i: int) -> bool:
        """``1. Background``: a short numbered title after a finished sentence, numbered in
        sequence (a list's items follow a colon or each other, so they never qualify)."""
        s = self.lines[i]
        m = markers.NUMBERED_HEADING.match(s)
        if not m or not heading_like(s) or display_width(s) > 56 or not self._starts_block(i):
            return False
        number = int(m["num"])
        if self.section_number is not None and number != self.section_number + 1:
            return False
        self.section_number = number
        return True

    def _annex_heading(self, s: str) -> re.Match[str] | None:
        """An annex heading; in a hansard an annex inside a reply belongs to that reply."""
        if self.hansard_mode and self.context == "qa":
            return None
        return markers.ANNEX_HEADING.match(s)

    def _trailing_matter(self, i: int) -> bool:
        """After the last question, a title at the top of a page or under a rule line (after a
        finished answer) starts what follows the Q&A (a forms list, contacts), not more of the
        last answer."""
        if self.context != "qa" or i <= self.last_question_line:
            return False
        ruled = i > 0 and bool(markers.RULE_LINE.match(self.lines[self._prev_nonblank(i) or 0]))
        if self.lines[i - 1] and not ruled:
            return False
        before = self._prev_nonblank(i)
        if ruled and before is not None:
            before = self._prev_nonblank(before)
        return (
            bare_topic_like(self.lines[i])
            and before is not None
            and bool(markers.SENTENCE_END.search(self.lines[before]))
        )

    def _topic_ok(self, i: int, label: str) -> bool:
        """Outside answers any ``(A) 標題`` is a heading; inside one it must lead to a question
        or continue the lettered / roman topics already seen."""
        value = label_value(label)
        accepted = self.context != "qa" or self._question_below(i)
        if not accepted and value and value[0] in {"letter", "roman"}:
            accepted = self.topic_labels.get(value[0]) == value[1] - 1
        if accepted and value:
            self.topic_labels[value[0]] = value[1]
        return accepted

    def _question_below(self, i: int) -> bool:
        """A question follows heading ``i``, with at most its wrapped title lines between
        (another labelled item or a sentence in between means ``i`` was a list item)."""
        for k in self._next_nonblank(i, HEADING_LOOKAHEAD):
            if self._question_start(k):
                return True
            s = self.lines[k]
            if markers.TOPIC_HEADING.match(s) or markers.BULLET.match(s) or not heading_like(s):
                return False
        return False

    def _narrative_heading(self, i: int) -> bool:
        """A bare title line in running text: after a finished sentence or at a page top, and
        followed by a longer line (a table's short cells never qualify)."""
        s = self.lines[i]
        if not bare_topic_like(s) or not self._starts_block(i) or in_name_list(self.lines, i):
            return False  # a name in an attendance list looks like a title but is a list item
        if markers.DRAFTING_INSTRUCTION.match(s):
            return False  # a bill amendment's ``廢除`` / ``Repeal`` line
        ahead = self._next_nonblank(i, 1)
        if not ahead:
            return False
        nxt = self.lines[ahead[0]]
        return display_width(nxt) >= max(24, 1.5 * display_width(s)) and not heading_like(nxt)


def _after_label(s: str, label_end: int) -> str:
    """A chapter title after its label and an optional colon (``第四章：休息日``)."""
    rest = s[label_end:].lstrip()
    return rest[1:].strip() if rest[:1] in {":", "：", "︰"} else rest or s


def _bare_label(s: str, label_end: int) -> bool:
    """``Chapter 1`` alone, or ``第二部分：設施容量``: a label no sentence starts with."""
    rest = s[label_end:].lstrip()
    return not rest or rest[:1] in {":", "：", "︰"}


def _en_q(s: str) -> re.Match[str] | None:
    """``Q1 …`` / ``O2 …`` with text after it (``Q3 2024`` is a quarter, not a question), or
    the word ``Question:`` alone."""
    m = markers.EN_QUESTION.match(s)
    return m if m and (m["text"] or s.rstrip()[-1:].isdigit() or _worded(m)) else None


def _explicit_marker(s: str) -> bool:
    """``問 A1：…`` or ``Q1 …`` with its text: the document labels its questions."""
    m = _en_q(s)
    return bool(markers.ZH_QUESTION.match(s) or m and m["text"] or markers.AGENDA_QUESTION.match(s))


def _question_like(s: str, numbered: bool) -> bool:
    """Any line that may open a question, for the document-wide pre-scan."""
    if (
        markers.ZH_QUESTION.match(s)
        or _en_q(s)
        or markers.HANSARD_QUESTION.match(s)
        or markers.AGENDA_QUESTION.match(s)
    ):
        return True
    return numbered and bool(markers.NUMBERED_QUESTION.match(s))


def _worded(m: re.Match[str]) -> bool:
    """The bare word ``Question:`` alone on its line (no number, no text)."""
    return m["letter"] == "Question" and not m["num"] and not m["text"]


def _zh_answer(s: str) -> str | None:
    m = markers.ZH_ANSWER.match(s)
    return m["text"] if m else None


def _reply_named(s: str) -> str | None:
    """The agenda's ``Public Officer to reply : …`` line, whole: it ends the question, and
    :mod:`answered` reads it as a question put, not answered."""
    return s if markers.REPLY_PENDING.match(s) else None


def _hansard_reply(s: str) -> str | None:
    m = markers.HANSARD_REPLY.match(s)
    return s[m.end() :] if m else None


# -- sections ---------------------------------------------------------------------------------
@dataclass
class _Builder:
    """Turns events into sections, tracking the topic and the level-1 heading above."""

    det: _Detector
    level1: str | None = None
    topic: str | None = None
    sections: list[Section] = field(default_factory=list)

    @property
    def doc(self) -> DocumentText:
        return self.det.doc

    def build(self, events: list[_Event]) -> list[Section]:
        first = events[0].line if events else len(self.det.lines)
        self._narrative(0, first, None, None, "narrative")
        for n, event in enumerate(events):
            end = events[n + 1].line if n + 1 < len(events) else len(self.det.lines)
            self._event(event, end)
        return self.sections

    def _span(self, first: int, end: int) -> tuple[int, int] | None:
        """Char span of lines ``[first, end)`` without surrounding blank lines."""
        lines, offsets = self.det.lines, self.det.offsets
        while first < end and not lines[first]:
            first += 1
        while end > first and (not lines[end - 1] or markers.RULE_LINE.match(lines[end - 1])):
            end -= 1  # a rule line closing a section belongs to none
        if first >= end:
            return None
        return offsets[first], offsets[end - 1] + self.det.raw_lengths[end - 1]

    def _text(self, start: int, end: int) -> str:
        text = join_pages(self.doc, start, end)
        return text if self.det.include_internal_refs else drop_internal_refs(text)

    def _event(self, event: _Event, end: int) -> None:
        if event.kind == "toc":
            title = self.det.lines[event.line]
            heading = title if markers.TOC_TITLE.match(title) else "Table of Contents"
            self._add("toc", event.line, event.head_end, heading, self.level1)
            self._narrative(event.head_end, end, self.topic or self.level1, None, event.context)
        elif event.kind == "question" and event.question:
            self._question(event.question, end)
        else:
            self._heading(event, end)

    def _heading(self, event: _Event, end: int) -> None:
        head_end = self._heading_lines(event.line, end)
        heading = join_wrapped(self.det.lines[event.line : head_end])
        if event.kind in LEVEL1:
            self.level1, self.topic, parent = heading, None, None
        else:
            self.topic, parent = heading, self.level1
        kind = "speaking_notes" if event.context == "speaking" else "narrative"
        if self._span(head_end, end) is None:
            kind = "heading_only"
        self._add(kind, event.line, end, heading, parent)

    def _heading_lines(self, line: int, end: int) -> int:
        """A heading may wrap onto up to two more title-like lines when nothing else follows
        before the next event (``(VII) Procedures for … / of Permanent Loss …``)."""
        lines = self.det.lines
        rest = [k for k in range(line + 1, end) if lines[k]]
        if (
            end < len(lines)
            and 0 < len(rest) <= 2
            and all(heading_like(lines[k]) and not table_row_figures(lines[k]) for k in rest)
        ):
            return end
        return line + 1

    def _narrative(self, first: int, end: int, heading: str | None, parent: str | None, context: str) -> None:
        kind = "speaking_notes" if context == "speaking" else "narrative"
        self._add(kind, first, end, heading, parent)

    def _add(
        self, kind: str, first: int, end: int, heading: str | None, parent: str | None
    ) -> Section | None:
        span = self._span(first, end)
        if span is None:
            return None
        start, stop = span
        text = self._text(start, stop)
        if kind == "narrative" and mostly_cells(text):
            kind = "table"
        first_page, last_page = self.doc.span_pages(start, stop)
        section = Section(
            kind, heading, parent, first_page, last_page, start, stop, text, has_table=looks_tabular(text)
        )
        self.sections.append(section)
        return section

    def _question(self, q: _Question, end: int) -> None:
        heading = self.topic or self.level1
        parent = self.level1 if self.topic else None
        section = self._add("qa", q.line, end, heading, parent)
        if section is None:
            return
        supplementaries = self._council_exchanges(section, q.qa_id) if self.det.hansard_mode else []
        self._pair(section, q, end)
        self.sections.extend(supplementaries)

    def _council_exchanges(self, section: Section, qa_id: str) -> list[Section]:
        """A Council question cut into its exchanges (:mod:`council`): ``section`` shrinks to
        the main question and reply (or stays the written one); each supplementary becomes a
        ``qa`` section of its own, ``1-S1``, ``1-S2``…"""
        written = bool(self.level1 and markers.WRITTEN_REPLIES.search(self.level1))
        found = council.exchanges(self.doc.text, section.char_start, section.char_end, written)
        main = found[0]
        section.question_kind, section.asker, section.answerer = main.kind, main.asker, main.answerer
        if main.end < section.char_end:
            self._respan(section, section.char_start, main.end)
        return [self._supplementary(section, qa_id, n, ex) for n, ex in enumerate(found[1:], start=1)]

    def _respan(self, section: Section, start: int, stop: int) -> None:
        section.char_start, section.char_end = start, stop
        section.text = self._text(start, stop)
        section.start_page, section.end_page = self.doc.span_pages(start, stop)
        section.has_table = looks_tabular(section.text)

    def _supplementary(self, main: Section, qa_id: str, n: int, ex: council.Exchange) -> Section:
        section = Section("qa", main.heading, main.parent_topic, 0, 0, ex.start, ex.end, "")
        self._respan(section, ex.start, ex.end)
        section.qa_id, section.question_kind, section.parent_question_id = f"{qa_id}-S{n}", ex.kind, qa_id
        section.asker, section.answerer, section.answer_start = ex.asker, ex.answerer, ex.answer_start
        asked_from = ex.question_text_start if ex.question_text_start is not None else ex.start
        section.question = self._text(
            asked_from, ex.answer_start if ex.answer_start is not None else ex.end
        ).strip()
        if ex.answer_start is None:
            section.answer = ""
            return section
        reply = self._text(ex.answer_start, ex.end)
        label = council.turn_at(reply)
        section.answer = reply[label.end() :].strip() if label else reply
        section.has_table = looks_tabular(section.answer)
        return section

    def _pair(self, section: Section, q: _Question, end: int) -> None:
        """The question and answer of a pair section (the answer up to the section's end)."""
        lines = self.det.lines
        question = join_wrapped([q.first_text] + lines[q.line + 1 : q.q_end])
        answer_first = q.answer_line if q.answer_line is not None else q.q_end
        answer_span = self._span(answer_first, end) if answer_first < end else None
        section.qa_id, section.question = q.qa_id, question
        if answer_span is None or answer_span[0] >= section.char_end:
            section.answer, section.answer_start = "", None
            return
        section.answer_start = answer_span[0]
        answer = self._text(answer_span[0], section.char_end)
        if q.answer_line is not None:
            answer = _strip_answer_marker(answer, lines[q.answer_line], q.answer_text)
        section.answer = answer
        section.has_table = looks_tabular(answer)


def _strip_answer_marker(answer: str, marker_line: str, marker_text: str) -> str:
    """The answer without its ``答 A1：`` / ``A1`` label."""
    prefix = marker_line[: len(marker_line) - len(marker_text)] if marker_text else marker_line
    answer = answer.lstrip()
    return answer[len(prefix) :].strip() if answer.startswith(prefix) else answer


# -- public API -------------------------------------------------------------------------------
def detect_structure(doc: DocumentText, include_internal_refs: bool = True) -> list[Section]:
    """Ordered sections of ``doc`` (rules only: ``source="rules"``).

    With ``include_internal_refs=False`` the ``[內部參考…]`` / ``[Internal reference…]`` notes
    are dropped from section text and answers; ``[如被追問…]`` follow-ups always stay.
    Only answered questions stay pairs (:mod:`answered`: a page's list of its questions and
    questions put without a reply are not); a Council question released by the Government
    gets its asker, answerer and kind from the release's first line (:mod:`releases`).
    """
    detector = _Detector(doc, include_internal_refs)
    return released_questions(answered_pairs(_Builder(detector).build(detector.run())))
