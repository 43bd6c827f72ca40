"""Council proceedings (Hansards): speaker turns, question exchanges, reply parts.

A Council meeting's Official Record prints every speech as a turn that opens a line with the
speaker's label: a member (``林健鋒議員：`` / ``MR JEFFREY LAM (in Chinese):``), an official
(``勞工及福利局局長：`` / ``SECRETARY FOR SECURITY:``) or the President (``主席：`` /
``PRESIDENT:``). An oral question is the numbered member's turn and the official's main
reply; after it, members ask supplementary questions, each answered by the official. The
Rules of Procedure shape the rest, and the rules here follow them:

* a member asks one supplementary at a time; a member who wants another one queues again,
  so the same member speaking again right after the reply to their own supplementary is a
  follow-up of it (as is any member turn after the President asks whether the
  supplementary "是否未獲答覆" / "has not been answered");
* the asker of the main question may ask the first supplementary, so a member's turn after
  the main reply always opens a supplementary;
* the President's lines between exchanges ("第二項質詢。", "本會就這項質詢已用了…") belong
  to no exchange; the President's prompts inside one ("局長，你有否補充？") stay in it.

Written replies have no supplementaries; a long one is cut at the reply's own parts
(``(一)``, ``(1)``, ``(a)``), each repeating the part of the question it answers
(:func:`reply_parts`). Nothing here knows about sections or chunks: :mod:`structure` turns
the exchanges into ``qa`` sections, :mod:`question_chunking` the parts into chunks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import markers
from .ordinals import CN_DIGITS, cn_value, roman_value

MAIN, SUPPLEMENTARY, WRITTEN = "main", "supplementary", "written"

_ROMAN_DIGITS = "ivx"  # a reply's parts are numbered (i), (ii) … in lower case
_LIST_END = re.compile(r"[;；,，]\s*(?:及|和|或|and|or)\s*$")


@dataclass(frozen=True)
class Turn:
    """One speech: who (``role``: member | official | president; ``speaker`` as printed,
    without ``(in Chinese)`` / ``(譯文)``) and where it starts in the text."""

    role: str
    speaker: str
    start: int
    text_start: int  # after the speaker's label
    end: int = -1  # set by :func:`speaker_turns`: where the next turn (or the span) starts


@dataclass
class Exchange:
    """A question with its reply: ``[start, end)`` of the text, the reply from
    ``answer_start`` (None: never answered)."""

    kind: str  # main | supplementary | written
    asker: str | None
    start: int
    end: int
    answerer: str | None = None
    answer_start: int | None = None
    question_text_start: int | None = None  # after the asker's label


def turn_at(line: str) -> re.Match[str] | None:
    """The speaker label opening ``line``, if any."""
    return markers.SPEAKER_TURN.match(line)


def _role(m: re.Match[str]) -> tuple[str, str]:
    for role in ("member", "official", "president"):
        if m[role]:
            return role, " ".join(m[role].split())
    return "official", m[0]


def speaker_turns(text: str, start: int, end: int) -> list[Turn]:
    """The turns that open a line inside ``text[start:end]``, each ending where the next
    starts (the last one at ``end``). Only the lines with a colon are tried: every label
    ends with one (``markers.SPEAKER_TURN``), and most lines of a paper hold none."""
    turns: list[Turn] = []
    tried = -1  # the start of the last line tried
    for colon in markers.LABEL_COLON.finditer(text, start, end):
        pos = text.rfind("\n", start, colon.start()) + 1 or start
        if pos == tried:
            continue
        tried = pos
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        stripped = text[pos:line_end].lstrip()
        m = turn_at(stripped)
        if m:
            lead = line_end - pos - len(stripped)
            role, speaker = _role(m)
            turns.append(Turn(role, speaker, pos + lead, pos + lead + m.end()))
    bounded = []
    for n, turn in enumerate(turns):
        stop = turns[n + 1].start if n + 1 < len(turns) else end
        bounded.append(
            Turn(turn.role, turn.speaker, turn.start, turn.text_start, _trimmed_end(text, turn.start, stop))
        )
    return bounded


def printed_questions(text: str) -> list[int]:
    """The numbers of the questions a Council record prints, each once, in order: the
    numbered member's turns (``7. 姚思榮議員：…``, ``11. 葉劉淑儀議員 (譯文 )：…``,
    ``1. MR JEFFREY LAM (in Chinese): …``) under the oral or written questions' heading. The
    paper's own count, to hold the exchanges found against."""
    numbers: list[int] = []
    under = False
    for line in text.split("\n"):
        stripped = line.strip()
        if markers.QUESTIONS_HEADING.match(stripped):
            under = True
            continue
        m = markers.HANSARD_QUESTION.match(stripped) if under else None
        if m and int(m["num"]) not in numbers:
            numbers.append(int(m["num"]))
    return numbers


def _trimmed_end(text: str, start: int, stop: int) -> int:
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    return stop


def exchanges(text: str, start: int, end: int, written: bool) -> list[Exchange]:
    """The exchanges of one numbered question whose text is ``text[start:end]``.

    A written question is one exchange over the whole span. An oral one is the main
    exchange, then one per supplementary; each ends with its last member or official turn,
    so the President's lines after it fall between exchanges.
    """
    turns = speaker_turns(text, start, end)
    # the span opens with the asker's turn, wherever the line's indent puts the label
    opens = bool(turns) and not text[start : turns[0].start].strip()
    asker = turns[0].speaker if opens and turns[0].role == "member" else None
    first = Exchange(WRITTEN if written else MAIN, asker, start, end)
    first.question_text_start = turns[0].text_start if asker else None
    if written or not turns:
        official = next((t for t in turns if t.role == "official"), None)
        first.answerer = official.speaker if official else None
        first.answer_start = official.start if official else None
        return [first]
    first.end = turns[0].end if asker else start
    found = [first]
    current = first
    follow_up = False
    for turn in turns[1:] if asker else turns:
        if turn.role == "president":
            follow_up = follow_up or bool(markers.NOT_ANSWERED.search(text[turn.text_start : turn.end]))
            continue
        if turn.role == "official":
            if current.answer_start is None:
                current.answer_start, current.answerer = turn.start, turn.speaker
            current.end = turn.end
            follow_up = False
            continue
        if _opens_supplementary(current, turn, follow_up):
            current = Exchange(
                SUPPLEMENTARY, turn.speaker, turn.start, turn.end, question_text_start=turn.text_start
            )
            found.append(current)
        else:
            current.end = turn.end
        follow_up = False
    if asker is None and first.answer_start is None and len(found) > 1:
        found.pop(0)  # the span did not open with the asker's turn: nothing to keep before the first one
    return found


def _opens_supplementary(current: Exchange, turn: Turn, follow_up: bool) -> bool:
    """A member's turn opens a new exchange unless it continues the current one: the asker
    still asking (no reply yet), or following up an unanswered part of their supplementary."""
    if turn.speaker != current.asker:
        return True
    if current.answer_start is None:
        return False
    return not (follow_up or current.kind == SUPPLEMENTARY)


def context_line(subject: str | None, parent_id: str | None, sample: str) -> str:
    """The one line a supplementary's chunk starts with: which question and subject it
    follows up, in the paper's language (``sample``: any of its text)."""
    chinese = bool(markers.CJK_CHAR.search(sample[:400]))
    if chinese:
        about = f"「{subject}」" if subject else ""
        return f"第{parent_id}項質詢{about}的補充質詢"
    about = f": {subject}" if subject else ""
    return f"Supplementary question to Question {parent_id}{about}"


def question_lead(head: str) -> str:
    """What a question's head holds up to its asker's label (a context line, ``1. 林健鋒議員：``),
    to lead the pieces that repeat one part of the question only."""
    pos = 0
    for line in head.split("\n"):
        stripped = line.lstrip()
        m = turn_at(stripped)
        if m:
            return head[: pos + len(line) - len(stripped) + m.end()]
        pos += len(line) + 1
    return ""


# -- parts of a reply ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Part:
    """A labelled part (``(一)``, ``(1) and (2)``): its labels' values and its text."""

    values: tuple[int, ...]
    text: str
    style: str  # cn | digit | lower | upper | roman


def _label_readings(label: str) -> list[tuple[str, int]]:
    """(style, value) readings of one label; ``i`` reads as a letter and a roman numeral."""
    label = label.strip()
    readings: list[tuple[str, int]] = []
    if label.isdigit():
        return [("digit", int(label))]
    if all(ch in CN_DIGITS + "十" for ch in label):
        return [("cn", cn_value(label))]
    if set(label) <= set(_ROMAN_DIGITS):
        readings.append(("roman", roman_value(label)))
    if len(label) == 1 and label.isalpha():
        style = "lower" if label.islower() else "upper"
        readings.append((style, ord(label.lower()) - ord("a") + 1))
    return readings


def labelled_parts(text: str, style: str | None = None) -> tuple[str, list[Part]]:
    """``text`` cut at its top-level parts: (what comes before the first, the parts).

    A part opens a line with a label that continues the run of labels of one style,
    starting at 1 (``(一)``, ``(二)``…; ``(1) and (2)`` counts as both), after a finished
    sentence, a colon or a blank line. Labels of another style (a sub-list ``(a)`` inside
    ``(1)``) and figures inside sentences stay in their part. With ``style`` only labels of
    that style count (a reply's parts follow its question's).
    """
    lines = text.split("\n")
    cuts: list[tuple[int, tuple[int, ...]]] = []
    wanted, style = style, None
    expected = 1
    previous = ""
    for n, line in enumerate(lines):
        stripped = line.strip()
        m = markers.REPLY_PART.match(stripped) if stripped else None
        if m and _opens_part(previous):
            values = _run_values(m["labels"], style, expected, wanted)
            if values:
                style = values[0]
                cuts.append((n, values[1]))
                expected = max(values[1]) + 1
        if stripped:
            previous = stripped
    if not cuts:
        return text, []
    preamble = "\n".join(lines[: cuts[0][0]]).strip()
    parts = []
    for k, (line_no, values) in enumerate(cuts):
        stop = cuts[k + 1][0] if k + 1 < len(cuts) else len(lines)
        parts.append(Part(values, "\n".join(lines[line_no:stop]).strip(), style or ""))
    return preamble, parts


def _opens_part(previous: str) -> bool:
    """A part opens after a blank, a finished sentence, a colon, or a bare label line."""
    if not previous or markers.SENTENCE_END.search(previous) or markers.CLAUSE_END.search(previous):
        return True
    if _LIST_END.search(previous):
        return True
    bare = markers.REPLY_PART.match(previous)
    return bool(bare and not bare["text"])


def _run_values(
    labels: str, style: str | None, expected: int, wanted: str | None
) -> tuple[str, tuple[int, ...]] | None:
    """The style and values of a run of labels when it is the next part, else None."""
    found = markers.PART_LABEL.findall(labels)
    for reading_style, value in _label_readings(found[0]):
        if wanted and reading_style != wanted:
            continue
        if (style is None and value == 1) or (reading_style == style and value == expected):
            values = [value]
            for label in found[1:]:
                same = [v for s, v in _label_readings(label) if s == reading_style]
                if not same:
                    break
                values.append(same[0])
            if len(found) == 2 and len(values) == 2 and re.search(r"至|to", labels):
                values = list(range(values[0], values[1] + 1))  # ``(一)至(三)``: the range
            return reading_style, tuple(values)
    return None


def reply_parts(question: str, answer: str) -> list[tuple[str | None, str]]:
    """The reply cut at its own parts, each with the question's part(s) it answers.

    Returns (question parts, or None when the question has no such labelled part, reply
    part) per reply part; the reply's opening (before its first part) goes with the first
    part. Empty when the reply has fewer than two parts.
    """
    _, asked = labelled_parts(question)
    opening, parts = labelled_parts(answer, asked[0].style if asked else None)
    if len(parts) < 2:
        return []
    by_value = {v: p.text for p in asked for v in p.values}
    out: list[tuple[str | None, str]] = []
    for n, part in enumerate(parts):
        texts = list(dict.fromkeys(by_value[v] for v in part.values if v in by_value))
        body = f"{opening}\n{part.text}" if n == 0 and opening else part.text
        out.append(("\n".join(texts) if texts else None, body))
    return out
