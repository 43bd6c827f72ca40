"""What a paper says about itself: when (its date, at the precision it prints it), what (its
kind, its LC Paper number, its committee) and, on its Council exchanges, who (a member's name
in one form across papers).

Read once per paper from its first pages and its own printed markers, the way LegCo and the
Government make their papers: a Hansard opens with ``OFFICIAL RECORD OF PROCEEDINGS`` /
``會議過程正式紀錄`` and its sitting date on a line of its own (its running header repeats
it: ``立法會 ─ 2012年11月21日``); an agenda prints ``Agenda`` / ``議程`` under the Council's
name and the meeting's date and hour; a committee paper carries its paper number stamp
(``LC Paper No. CB(2)1234/2025(03)``, ``立法會CB(3)641/2026(02)號文件``); a guide prints
its edition (``April 2026 Edition``, ``本版定稿於 2025 年 12 月``). A date the paper merely
mentions inside a sentence (``本會在2025年5月21日星期三上午11時正續會``) is never its date:
only a date line, a running header or an edition marker is. LegCo's open data, when the feed
brought the paper, wins over all of this (its meeting date is the record's).

Every rule here is a heuristic: it may leave a fact out (and the ``paper_date_found`` check
warns when the date is missing), never fail a paper."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import date
from enum import Enum
from typing import Any

from ..markers import MONTHS
from ..quality import Check
from ..records import ChunkRecord, Page
from .speakers import name_speakers


class PaperKind(str, Enum):
    """What a paper is, decided by its own markers (docs/design.md#chunk-record)."""

    hansard = "hansard"  # the Official Record of Proceedings of a Council meeting
    council_question = "council_question"  # one Member's question and the Government's reply (LCQ)
    committee_paper = "committee_paper"  # a paper numbered for a committee (LC Paper No. CB(n)…)
    agenda = "agenda"  # a Council meeting's agenda
    speech = "speech"  # a speech (the Budget speech, an official's speech)
    guide = "guide"  # a department's guide to an ordinance
    faq = "faq"  # frequently asked questions
    submission = "submission"  # a deputation's or the public's submission to a committee
    other = "other"


KINDS = tuple(k.value for k in PaperKind)
DATE_PATTERN = r"^\d{4}(-\d{2}(-\d{2})?)?$"  # a date as a filter takes it: YYYY, YYYY-MM, YYYY-MM-DD
PRECISIONS = ("day", "month", "year")

# -- dates --------------------------------------------------------------------------------------
_CN_DIGITS = {"〇": 0, "零": 0, "○": 0, "Ｏ": 0, "一": 1, "二": 2, "三": 3, "四": 4}
_CN_DIGITS |= {"五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN = "〇零○Ｏ一二三四五六七八九十"
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_WEEKDAY_EN = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_NUM = rf"(?:\d{{1,4}}|[{_CN}]{{1,4}})"
# 2012年11月21日 / 2013年 2月 21日 / 二零二四年二月二十八日 / 2026 年 4 月; a weekday may follow
ZH_DATE = re.compile(
    rf"(?P<y>\d{{4}}|[{_CN}]{{4}})\s*年\s*(?P<m>{_NUM})\s*月(?:\s*(?P<d>{_NUM})\s*日)?"
    r"(?:\s*[（(]?\s*星期[一二三四五六日天]\s*[)）]?)?"
)
# Wednesday, 21 November 2012 / 21 November 2012 / November 21, 2012 / April 2026
EN_DATE = re.compile(
    rf"(?:{_WEEKDAY_EN},?\s+)?(?:(?P<d>\d{{1,2}})\s+(?P<m>{_MONTH})|(?P<m2>{_MONTH})(?:\s+(?P<d2>\d{{1,2}}),)?)"
    r"\s+(?P<y>\d{4})",
    re.IGNORECASE,
)
# what may follow a meeting's date on its line: the hour (上午11時正 / at 11:00 am) and what begins then
_HOUR_AFTER = re.compile(
    r"^\s*(?:(?:上午|下午|晚上|中午)\s*\S*時\S*.*|at\s+\S+\s*(?:am|pm|a\.m\.|p\.m\.|noon)?.*)?$",
    re.IGNORECASE,
)
# a running header before the date: 立法會 ─ 2012年11月21日 / LEGISLATIVE COUNCIL ─ 21 November 2012
_HEADER_BEFORE = re.compile(r"^\s*(?:立法會|LEGISLATIVE COUNCIL)\s*[─—–-]+\s*$", re.IGNORECASE)
# an edition or version line: April 2026 Edition / 2026年4月版 / finalised in December 2025 /
# 本版定稿於 2025 年 12 月
_EDITION = re.compile(r"(?:edition|版|finali[sz]ed\s+in|revised\s+in|定稿於|修訂於|印製)", re.IGNORECASE)
_YEAR_EDITION = re.compile(r"(?<!\d)(\d{4})\s*(?:年\s*)?(?:edition|版)", re.IGNORECASE)
FIRST_PAGES = 3  # the pages a paper prints its own date on (a cover, a contents page, a foreword)


def _cn_number(text: str) -> int | None:
    """``二十八`` -> 28, ``二零二四`` -> 2024, ``11`` -> 11; None when it is no number."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, units = text.partition("十")
        t = _CN_DIGITS.get(tens, 0) if tens else 1
        u = _CN_DIGITS.get(units, 0) if units else 0
        if (tens and tens not in _CN_DIGITS) or (units and units not in _CN_DIGITS):
            return None
        return t * 10 + u
    digits = [_CN_DIGITS.get(c) for c in text]
    if any(d is None for d in digits):
        return None
    return int("".join(str(d) for d in digits))


@dataclass(frozen=True)
class PaperDate:
    """A date at the precision printed: ``value`` is ``2013-01-09``, ``2026-04`` or ``2019``."""

    value: str
    precision: str  # day | month | year

    def span(self) -> tuple[date, date]:
        """The first and last day it covers (a month its days, a year its months)."""
        return date_span(self.value)


def _valid(y: int | None, m: int | None, d: int | None) -> PaperDate | None:
    if y is None or not 1900 <= y <= 2200:
        return None
    if m is None:
        return PaperDate(f"{y:04d}", "year")
    if not 1 <= m <= 12:
        return None
    if d is None:
        return PaperDate(f"{y:04d}-{m:02d}", "month")
    try:
        date(y, m, d)
    except ValueError:
        return None
    return PaperDate(f"{y:04d}-{m:02d}-{d:02d}", "day")


def _from_match(match: re.Match[str]) -> PaperDate | None:
    g = match.groupdict()
    if "m2" in g:  # English
        month = MONTHS[(g["m"] or g["m2"]).lower()]
        day = g["d"] or g["d2"]
        return _valid(int(g["y"]), month, int(day) if day else None)
    day = _cn_number(g["d"]) if g["d"] else None
    if g["d"] and day is None:
        return None
    return _valid(_cn_number(g["y"]), _cn_number(g["m"]), day)


def parse_date(text: str) -> PaperDate | None:
    """The first date written in ``text`` (English or Chinese, Arabic or Chinese numerals,
    with a weekday or not), at the precision written; None when there is none."""
    found = [m for m in (ZH_DATE.search(text), EN_DATE.search(text)) if m]
    for match in sorted(found, key=lambda m: m.start()):
        parsed = _from_match(match)
        if parsed:
            return parsed
    return None


def date_line(line: str) -> PaperDate | None:
    """The date when ``line`` is a date and nothing else: a sitting's or a letter's date line,
    optionally after a Hansard's running header (``立法會 ─``) and before the hour the meeting
    began (``上午11時正``, ``at 11:00 am``). A date inside a sentence is not one."""
    text = line.strip()  # a date that ends a sentence (``…續會。``) is the sentence's, not a date line
    for pattern in (ZH_DATE, EN_DATE):
        for match in pattern.finditer(text):
            before, after = text[: match.start()], text[match.end() :]
            if before.strip() and not _HEADER_BEFORE.match(before):
                continue
            if after.strip() and not _HOUR_AFTER.match(after):
                continue
            parsed = _from_match(match)
            if parsed:
                return parsed
    return None


def edition_date(line: str) -> PaperDate | None:
    """The date of an edition or version line (``April 2026 Edition``, ``本版定稿於 2025 年
    12 月``, ``This version is finalised in December 2025``)."""
    if not _EDITION.search(line) or len(line.strip()) > 120:
        return None
    found = parse_date(line)
    if found is None:  # an edition of a year: 2019 Edition / 2019年版
        year = _YEAR_EDITION.search(line)
        found = _valid(int(year.group(1)), None, None) if year else None
    return found


def date_span(value: str) -> tuple[date, date]:
    """The days a date at any precision covers: ``2026-04`` is 1 to 30 April 2026.
    ValueError for a value that is not ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``."""
    parts = value.strip().split("-")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts) or len(parts[0]) != 4:
        raise ValueError(f"not a date: {value!r} (YYYY, YYYY-MM or YYYY-MM-DD)")
    if any(len(p) != 2 for p in parts[1:]):
        raise ValueError(f"not a date: {value!r} (YYYY, YYYY-MM or YYYY-MM-DD)")
    y = int(parts[0])
    if len(parts) == 1:
        return date(y, 1, 1), date(y, 12, 31)
    m = int(parts[1])
    if len(parts) == 2:
        if not 1 <= m <= 12:
            raise ValueError(f"not a date: {value!r} (no month {m})")
        last = (date(y + (m == 12), m % 12 + 1, 1) - date(y, m, 1)).days
        return date(y, m, 1), date(y, m, last)
    try:
        day = date(y, m, int(parts[2]))
    except ValueError:
        raise ValueError(f"not a date: {value!r} (no such day)") from None
    return day, day


# -- kind, paper number, committee ---------------------------------------------------------------
# the paper number stamp: LC Paper No. CB(2)1234/2025(03) / 立法會CB(3)641/2026(02)號文件 / CB(2)456/12-13(01)
PAPER_NUMBER = re.compile(
    r"(?:LC\s*Paper\s*No\.?\s*:?\s*|立法會\s*)"
    r"(?P<series>[A-Z]{1,5})\s*(?:\(\s*(?P<office>\d)\s*\))?\s*(?P<number>\d{1,5})\s*/\s*"
    r"(?P<year>\d{4}|\d{2}-\d{2})\s*(?:\(\s*(?P<part>\d{1,3})\s*\))?",
    re.IGNORECASE,
)
# what may stand around the stamp on its line: parentheses, ``號文件``
_STAMP_LINE = re.compile(r"\s*[(（]?\s*#\s*(?:號文件)?\s*[)）]?\s*")
_HANSARD = re.compile(
    r"^(?:立法會)?會議過程正式紀錄$|^OFFICIAL RECORD OF PROCEEDINGS$|^立法會\s*[─—–-]+\s*\S", re.I
)
_AGENDA = re.compile(r"^(?:議程|Agenda)$", re.IGNORECASE)
_COUNCIL_QUESTION = re.compile(
    r"^(?:LCQ\s*\d+\s*:|立法會[一二三四五六七八九十]+題\s*[:：])|Following is a question by"
    r"|以下是今日.*立法會.*(?:提問|質詢)",
    re.IGNORECASE,
)
_SPEECH = re.compile(
    r"Budget Speech|^Speech by|Following is the speech|預算案演辭|演辭|致辭全文|^.*演講辭$", re.IGNORECASE
)
_BUDGET = re.compile(r"財政預算案|\bBudget\b", re.IGNORECASE)
_BUDGET_SPEAKER = re.compile(r"財政司司長|Financial Secretary|演辭|\bSpeech\b", re.IGNORECASE)
_FAQ = re.compile(r"^(?:Frequently Asked Questions|常見問題(?:解答)?)\b", re.IGNORECASE)
_GUIDE = re.compile(r"\bGuide\b|指南|指引$", re.IGNORECASE)
# a letter to a committee's members, or a paper that calls itself a submission
_SUBMISSION = re.compile(r"各位委員|Dear (?:Chairman|Members|Sir)|意見書|\bsubmission\b", re.IGNORECASE)
_COMMITTEE_EN = re.compile(
    r"((?:Panel|Subcommittee|Bills Committee|Select Committee|Joint Subcommittee) on [^\n]{3,120}?"
    r"|Finance Committee|Public Works Subcommittee|Establishment Subcommittee|House Committee)"
    r"\s*$"
)
_COMMITTEE_ZH = re.compile(
    r"^(?:香港特別行政區)?(?:立法會)?(\S{0,60}?(?:事務委員會|小組委員會|法案委員會|財務委員會|內務委員會|專責委員會))$"
)
_OPENING_LINES = 12  # a paper's title block: where its kind is printed


def paper_number(text: str) -> str | None:
    """The paper's number stamp in one normal form, ``CB(2)1234/2025(03)``: a line that is the
    stamp and nothing else (a paper cites others' numbers inside its sentences)."""
    match = None
    for line in text.split("\n"):
        found = PAPER_NUMBER.search(line)
        if found and _STAMP_LINE.fullmatch(line[: found.start()] + "#" + line[found.end() :]):
            match = found
            break
    if not match:
        return None
    g = match.groupdict()
    office = f"({g['office']})" if g["office"] else ""
    part = f"({int(g['part']):02d})" if g["part"] else ""
    return f"{g['series'].upper()}{office}{g['number']}/{g['year']}{part}"


def committee_of(lines: Iterable[str]) -> str | None:
    """The committee a paper is for, where it prints its name on a line of its own
    (``Panel on Manpower``, ``財務委員會``)."""
    for line in lines:
        text = line.strip()
        if len(text) > 140:
            continue
        found = _COMMITTEE_ZH.match(text) or _COMMITTEE_EN.search(text)
        if found and (found.re is _COMMITTEE_ZH or found.start() == _legislative_prefix(text)):
            return found.group(1).strip()
    return None


def _legislative_prefix(text: str) -> int:
    """Where a committee's name may start on an English line: at its start, or after
    ``Legislative Council``."""
    prefix = re.match(r"(?:Legislative Council\s+)?", text, re.IGNORECASE)
    return prefix.end() if prefix else 0


MAX_LINES = 200  # a paper read as one page (HTML, text) has its opening in its first lines


def _lines(pages: list[Page], first: int = FIRST_PAGES) -> list[str]:
    found = [ln.strip() for p in pages[:first] for ln in (p.cleaned or p.raw).split("\n") if ln.strip()]
    return found[:MAX_LINES]


def _openings(pages: list[Page], first: int = FIRST_PAGES) -> list[str]:
    """The first lines of each of the first pages: a title block, a running header."""
    return [
        ln.strip()
        for p in pages[:first]
        for ln in [x for x in (p.cleaned or p.raw).split("\n") if x.strip()][:_OPENING_LINES]
    ]


def paper_kind(pages: list[Page], number: str | None) -> PaperKind:
    """The kind the paper's own markers say: a Hansard's title or running header, an agenda's
    title, an LCQ's lead, a paper number stamp (a letter to the members or a paper called a
    submission is a submission), a speech's, FAQ's or guide's title."""
    opening = [ln for p in pages[:1] for ln in (p.cleaned or p.raw).split("\n") if ln.strip()][
        :_OPENING_LINES
    ]
    opening = [ln.strip() for ln in opening]
    if any(_HANSARD.search(ln) for ln in opening):
        return PaperKind.hansard
    if any(_AGENDA.match(ln) for ln in opening):
        return PaperKind.agenda
    if any(_COUNCIL_QUESTION.search(ln) for ln in opening):
        return PaperKind.council_question
    if any(_BUDGET.search(ln) for ln in opening) and any(_BUDGET_SPEAKER.search(ln) for ln in opening):
        return PaperKind.speech  # the Budget as the Financial Secretary delivers it
    if number is not None:
        first_page = pages[0].cleaned if pages else ""
        return PaperKind.submission if _SUBMISSION.search(first_page) else PaperKind.committee_paper
    if committee_of(opening):  # a paper headed with the committee it is for
        return PaperKind.committee_paper
    for line in opening:
        if _SPEECH.search(line):
            return PaperKind.speech
        if _FAQ.match(line):
            return PaperKind.faq
        if _GUIDE.search(line):
            return PaperKind.guide
    return PaperKind.other


# -- the paper ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PaperProfile:
    """When, what and for whom a paper is: ``structure.json``'s ``paper``, and the paper keys
    of each of its chunks (:func:`stamp`). ``date_source``: where the date was read (``open
    data``, ``date line``, ``edition``) or None when the paper prints none."""

    kind: str = PaperKind.other.value
    date: str | None = None
    date_precision: str | None = None
    date_source: str | None = None
    paper_number: str | None = None
    committee: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> PaperProfile:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in (data or {}).items() if k in names})


def paper_date(pages: list[Page], kind: PaperKind) -> tuple[PaperDate | None, str | None]:
    """The paper's own date and where it was read: the first date line of its first pages
    (a Hansard's sitting date, an agenda's meeting, a letter's date), else an edition line. A
    Hansard's date is its title block's or its running header's: a date line further down is
    the next meeting's or a quoted letter's."""
    lines = _openings(pages) if kind is PaperKind.hansard else _lines(pages)
    for line in lines:
        found = date_line(line)
        if found:
            return found, "date line"
    for line in lines:
        found = edition_date(line)
        if found:
            return found, "edition"
    return None, None


def read_paper_profile(pages: list[Page], origin: Mapping[str, Any] | None = None) -> PaperProfile:
    """The paper's facts from its first pages; LegCo's open data (``origin``, as ``source.json``
    keeps a feed paper's record) wins where it says: its meeting date is the sitting's, and a
    paper it lists as a Hansard is one."""
    number = paper_number("\n".join(_lines(pages)))
    kind = paper_kind(pages, number)
    if origin and origin.get("hansard_type"):
        kind = PaperKind.hansard
    found, source = paper_date(pages, kind)
    meeting = (origin or {}).get("meeting_date")
    if meeting:
        try:
            date_span(str(meeting)[:10])
            found, source = PaperDate(str(meeting)[:10], "day"), "open data"
        except ValueError:
            pass
    committee = None if kind is PaperKind.hansard else committee_of(_lines(pages, 1))
    return PaperProfile(
        kind=kind.value,
        date=found.value if found else None,
        date_precision=found.precision if found else None,
        date_source=source,
        paper_number=number,
        committee=committee,
    )


# -- speakers -----------------------------------------------------------------------------------
# honours after a name (", G.B.S., J.P.", ", 大紫荊勳賢", ", Ph.D., R.N.", ", S.C.")
_HONOURS = re.compile(
    r"\s*[,，]\s*(?:[A-Z][A-Za-z]{0,3}\.(?:\s?[A-Z][A-Za-z]{0,3}\.)*|[^\s,，]{2,6}勳賢|SC|JP)\s*$"
)
_LEADING_TITLES = re.compile(
    r"^(?:(?:the\s+)?(?:honourable|hon\.?)|mr\.?|mrs\.?|ms\.?|miss|dr\.?|prof\.?|professor|ir\.?|"
    r"sir|dame|president|主席)\s+",
    re.IGNORECASE,
)
_LANGUAGE_NOTE = re.compile(r"\s*[（(]\s*in\s+\w+\s*[)）]\s*", re.IGNORECASE)
_ZH_TITLES = re.compile(r"(?:議員|先生|女士|博士|教授|主席)$")


def speaker_key(name: str | None) -> str | None:
    """A speaker's name in the form matched across papers: titles (``MR``, ``DR``, ``the
    Honourable``, ``Hon``), honours (``G.B.S., J.P.``), the language note (``(in Cantonese)``)
    and a Chinese title (``議員``) taken off, case folded, spaces made one. The printed form
    stays on the chunk for display."""
    if not name:
        return None
    text = _LANGUAGE_NOTE.sub(" ", name).strip().strip(":：").strip()
    while True:
        trimmed = _HONOURS.sub("", text).strip()
        if trimmed == text:
            break
        text = trimmed
    while True:
        trimmed = _LEADING_TITLES.sub("", text).strip()
        if trimmed == text:
            break
        text = trimmed
    text = _ZH_TITLES.sub("", text).strip()
    key = " ".join(text.casefold().split())
    return key or None


def speaker_matches(query: str, *names: str | None) -> bool:
    """Whether the speaker asked for (any printed form) is one of ``names`` (normal forms):
    the same name, or for a Latin name every word of the query among the name's words
    (``Jeffrey Lam`` finds ``jeffrey lam kin-fung``)."""
    wanted = speaker_key(query)
    if not wanted:
        return False
    words = wanted.split()
    for name in names:
        if not name:
            continue
        if name == wanted:
            return True
        if wanted.isascii() and set(words) <= set(name.split()):
            return True
    return False


def date_check(profile: PaperProfile) -> Check:
    """``paper_date_found``: a warning, never a gate, when the paper prints no date of its own
    (an FAQ page often prints none): its chunks then carry no date, and a date filter leaves
    them out."""
    found = profile.date is not None
    return Check(
        "paper_date_found",
        found,
        f"dated {profile.date} ({profile.date_precision}, from its {profile.date_source})"
        if found
        else f"no date of its own printed on its first pages (kind: {profile.kind}): its chunks carry none",
        {"date": profile.date, "kind": profile.kind},
    )


def stamp(records: list[ChunkRecord], facts: PaperProfile) -> list[ChunkRecord]:
    """The records with their paper's keys (date, precision, kind, paper number), on a
    Council exchange the speakers' normal forms, and on every chunk who speaks in it
    (:func:`.speakers.name_speakers`); a key the paper lacks stays absent."""
    name_speakers(records)
    for record in records:
        meta = record.metadata
        meta.date = facts.date
        meta.date_precision = facts.date_precision
        meta.kind = facts.kind
        meta.paper_number = facts.paper_number
        meta.asker_name = speaker_key(meta.asker)
        meta.answerer_name = speaker_key(meta.answerer)
    return records
