"""A Hansard's appendices, each a section of its own and linked to the exchange it answers.

How LegCo prints them: when an official promises figures during the meeting, the reply
says so in brackets (``主席，我可以提供該等數字。(附錄I)``, ``(Appendix I)``, ``(附件)``,
``(Annex)``), and the figures are printed after the adjournment as an appendix: a label line
(``附錄I`` / ``Appendix I``), usually ``書面答覆`` / ``WRITTEN ANSWER``, then a title naming
who answers whose question (``勞工及福利局局長就林健鋒議員對第一項質詢的補充質詢所作書面答覆``,
``Written answer by the Secretary for … to Mr …'s supplementary question to Question 1``).

So an appendix opens at a label line followed within a few lines by such a title (a
contents page or a reply's inline ``附件`` has no such title), and runs to the next one or to
the end of the paper. It is found in the text, whatever section the rules or the outline put
it in (``下次會議 > 附錄I`` before), and replaces those sections: its path is
``[附錄I, title]``. It is linked to an exchange by the reference label first (``(附錄I)`` in
the reply ↔ ``附錄I``), checked against the title's question number and member; without a
label (``(附件)``), by the title alone. A reference whose appendix the paper does not print
stays unresolved and is reported (``structure.json``'s ``annexes``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .. import markers
from ..records import DocumentText, Section
from .council import turn_at
from .ordinals import cn_value, roman_value
from .tabular import looks_tabular
from .text import join_pages

TITLE_LOOKAHEAD = 6  # non-blank lines after the label where the title must start
TITLE_MAX_LINES = 3  # a title wraps onto at most this many lines
_ANSWER_LINE = re.compile(r"^(?:書面答覆|WRITTEN\s+ANSWERS?)$", re.IGNORECASE)
_NAME_NOISE = re.compile(
    r"\b(?:the\s+)?hon(?:ourable)?\b|\b(?:mr|ms|mrs|miss|dr|prof|ir)\b\.?|議員|[(（]\s*in\s+\w+\s*[)）]|[(（]\s*譯\s*文\s*[)）]",
    re.IGNORECASE,
)


@dataclass
class Appendix:
    """One printed appendix: where it is, its label and what its title says it answers."""

    label: str  # as the paper names it, spaces removed: ``附錄I``, ``Appendix I``
    key: str  # the label's number as compared (``1`` for I, 一 and 1); "" when unnumbered
    start: int
    title_end: int
    end: int
    title: str
    number: str | None = None  # the question's number, as digits
    member: str | None = None
    answerer: str | None = None
    supplementary: bool = False


@dataclass
class AnnexReport:
    """What was found, for ``structure.json`` and the asset's metadata."""

    linked: list[dict[str, Any]] = field(default_factory=list)
    unlinked_appendices: list[str] = field(default_factory=list)
    unresolved_references: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "linked": self.linked,
            "unlinked_appendices": self.unlinked_appendices,
            "unresolved_references": self.unresolved_references,
        }


def label_key(label: str | None) -> str:
    """``I``, ``一`` and ``1`` are one appendix number; "" for an unnumbered one."""
    if not label:
        return ""
    label = label.strip()
    if label.isdigit():
        return str(int(label))
    if set(label) <= set("IVXL"):
        return str(roman_value(label))
    if all(ch in "一二三四五六七八九十" for ch in label):
        return str(cn_value(label))
    return label.upper()


def _label_text(kind: str, label: str | None) -> str:
    kind = "".join(kind.split())
    kind = kind[0].upper() + kind[1:].lower() if kind.isascii() else kind
    return f"{kind} {label}" if kind.isascii() and label else f"{kind}{label or ''}"


# -- finding the appendices ---------------------------------------------------------------------
def _lines(text: str) -> list[tuple[int, str, int]]:
    """(offset, stripped line, offset of the line's end) of every line."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line.strip(), pos + len(line)))
        pos += len(line) + 1
    return out


def _title_at(lines: list[tuple[int, str, int]], first: int) -> tuple[re.Match[str], int, str] | None:
    """The appendix title starting at line ``first`` (joined over up to three lines), with
    the index of the line after it."""
    joined = ""
    for n in range(first, min(first + TITLE_MAX_LINES, len(lines))):
        line = lines[n][1]
        if not line:
            break
        chinese = bool(markers.CJK_CHAR.search(line))
        joined = joined + ("".join(line.split()) if chinese else (" " if joined else "") + line)
        m = markers.APPENDIX_TITLE_ZH.match(joined) or markers.APPENDIX_TITLE_EN.match(joined)
        if m:
            return m, n + 1, joined
    return None


def _number(value: str) -> str:
    return value if value.isdigit() else str(cn_value(value))


def find_appendices(doc: DocumentText) -> list[Appendix]:
    """Every appendix the paper prints, in order (see the module docstring)."""
    lines = _lines(doc.text)
    found: list[Appendix] = []
    for n, (offset, line, _) in enumerate(lines):
        m = markers.APPENDIX_LABEL.match(line)
        if not m:
            continue
        ahead = [k for k in range(n + 1, len(lines)) if lines[k][1]][:TITLE_LOOKAHEAD]
        for k in ahead:
            if _ANSWER_LINE.match(lines[k][1]):
                continue
            title = _title_at(lines, k)
            if title:
                t, after, text = title
                end_of_title = lines[after - 1][2]
                found.append(
                    Appendix(
                        label=_label_text(m["kind"], m["label"]),
                        key=label_key(m["label"]),
                        start=offset,
                        title_end=end_of_title,
                        end=len(doc.text),
                        title=text,
                        number=_number(t["number"]),
                        member=t["member"].strip(),
                        answerer=t["answerer"].strip(),
                        supplementary=bool(t["supplementary"]),
                    )
                )
            break
    for before, after in zip(found, found[1:]):
        before.end = after.start
    for appendix in found:
        while appendix.end > appendix.start and doc.text[appendix.end - 1].isspace():
            appendix.end -= 1
    return found


# -- references in the replies ------------------------------------------------------------------
def references(section: Section) -> list[str]:
    """The appendix keys a Council exchange's reply points to (``(附錄I)`` → ``1``)."""
    reply = section.answer if section.answer else section.text
    return list(
        dict.fromkeys(label_key(m["label"]) for m in markers.APPENDIX_REFERENCE.finditer(reply or ""))
    )


def same_member(a: str | None, b: str | None) -> bool:
    """``林健鋒議員`` and ``林健鋒議員``, ``MR JEFFREY LAM`` and ``Mr Jeffrey LAM``: the
    names without titles, compared by their words (Chinese: by characters)."""
    if not a or not b:
        return False
    x, y = (_NAME_NOISE.sub(" ", v).casefold() for v in (a, b))
    if markers.CJK_CHAR.search(x + y):
        x, y = "".join(x.split()), "".join(y.split())
        return bool(x and y and (x in y or y in x))
    wx, wy = set(re.findall(r"[a-z'-]+", x)), set(re.findall(r"[a-z'-]+", y))
    return bool(wx and wy and (wx <= wy or wy <= wx))


def _question_number(section: Section) -> str | None:
    return section.parent_question_id or section.qa_id


def _fits_title(section: Section, appendix: Appendix) -> bool:
    if appendix.number and _question_number(section) != appendix.number:
        return False
    if appendix.supplementary != (section.parent_question_id is not None):
        return False
    return not appendix.member or same_member(section.asker, appendix.member)


def _answers(appendix: Appendix, exchanges: list[Section], refs: dict[int, list[str]]) -> Section | None:
    """The exchange an appendix answers: the one whose reply names its label (the one the
    title also fits, when several do), else the one its title names."""
    by_label = [s for s in exchanges if appendix.key in refs[id(s)]]
    fitting = [s for s in by_label if _fits_title(s, appendix)]
    if by_label:
        return (fitting or by_label)[0]
    titled = [s for s in exchanges if _fits_title(s, appendix)]
    pointing = [s for s in titled if refs[id(s)]]
    return (pointing or titled or [None])[0]


# -- sections -----------------------------------------------------------------------------------
def _respan(doc: DocumentText, section: Section, start: int, end: int) -> None:
    section.char_start, section.char_end = start, end
    section.text = join_pages(doc, start, end)
    section.start_page, section.end_page = doc.span_pages(start, end)
    section.has_table = looks_tabular(section.text)


def _annex_section(doc: DocumentText, appendix: Appendix) -> Section:
    text = join_pages(doc, appendix.start, appendix.end)
    first, last = doc.span_pages(appendix.start, appendix.end)
    body_start = min(appendix.title_end + 1, appendix.end)
    section = Section(
        "annex",
        appendix.title,
        appendix.label,
        first,
        last,
        appendix.start,
        appendix.end,
        text,
        question=appendix.title,
        answer=join_pages(doc, body_start, appendix.end),
        answer_start=body_start,
        has_table=looks_tabular(text),
        path=[appendix.label, appendix.title],
        level=2,
    )
    section.extra["annex"] = appendix.label
    return section


def _carve(doc: DocumentText, sections: list[Section], appendices: list[Appendix]) -> list[Section]:
    """``sections`` with the appendices' spans taken out and an annex section for each."""
    if not appendices:
        return sections
    first = appendices[0].start
    kept: list[Section] = []
    for section in sections:
        if section.char_start >= first:
            continue  # wholly inside the appendices
        if section.char_end > first:  # the last section ran on into the appendices
            _respan(doc, section, section.char_start, first)
            if not section.text.strip():
                continue
            if section.answer_start is not None and section.answer:
                reply = join_pages(doc, section.answer_start, first)
                label = turn_at(reply)
                section.answer = reply[label.end() :].strip() if label else reply
        kept.append(section)
    return kept + [_annex_section(doc, a) for a in appendices]


def context_line(appendix: Section, answered: Section) -> str:
    """The line an annex chunk starts with: which question it answers, its subject and its
    asker, in the paper's language (like a supplementary's context line)."""
    qa_id = answered.qa_id or ""
    subject, asker = answered.heading, answered.asker or ""
    number = answered.parent_question_id or qa_id
    if markers.CJK_CHAR.search(appendix.text[:400]):
        about = f"「{subject}」" if subject else ""
        kind = f"{asker}的補充質詢（{qa_id}）" if answered.parent_question_id else f"{asker}的質詢"
        return f"{appendix.extra['annex']}：第{number}項質詢{about}{kind}的書面答覆"
    about = f": {subject}" if subject else ""
    kind = (
        f"{asker}'s supplementary question ({qa_id})"
        if answered.parent_question_id
        else f"{asker}'s question"
    )
    return f"{appendix.extra['annex']}: written answer to {kind} to Question {number}{about}"


def link_annexes(doc: DocumentText, sections: list[Section]) -> tuple[list[Section], AnnexReport]:
    """Council proceedings only (sections with a ``question_kind``): the appendices cut out as
    sections of their own and linked both ways with the exchanges that point to them
    (``extra``: ``annexes`` on the exchange, ``answers_question_id`` and ``context`` on the
    appendix). Other papers come back as they are."""
    report = AnnexReport()
    exchanges = [s for s in sections if s.type == "qa" and s.question_kind]
    if not exchanges:
        return sections, report
    appendices = find_appendices(doc)
    appendices = [a for a in appendices if a.start >= exchanges[-1].char_start]  # printed after the questions
    refs = {id(s): references(s) for s in exchanges}
    sections = _carve(doc, sections, appendices)
    annexes = [s for s in sections if s.type == "annex"]
    for appendix, annex in zip(appendices, annexes):
        answered = _answers(appendix, exchanges, refs)
        if answered is None:
            report.unlinked_appendices.append(appendix.label)
            continue
        annex.extra["answers_question_id"] = answered.qa_id
        annex.extra["context"] = context_line(annex, answered)
        answered.extra.setdefault("annexes", []).append(appendix.label)
        report.linked.append(
            {
                "annex": appendix.label,
                "answers_question_id": answered.qa_id,
                "pages": [annex.start_page, annex.end_page],
                "title": appendix.title,
            }
        )
    printed = {a.key for a in appendices}
    for section in exchanges:
        for key in refs[id(section)]:
            if key not in printed and not (key == "" and appendices):
                report.unresolved_references.append(
                    {"question_id": section.qa_id or "", "appendix": key or "(unnumbered)"}
                )
    return sections, report
