"""The Chinese and English versions of one paper: which documents are counterparts, which chunks.

LegCo and the Government publish most papers twice (``-c``/``-e``, ``_tc``/``_en``); users ask
in either language, and the two versions answer the same question with the same figures. Linking
them lets search bring the other version along and lets ``answer`` cite the version in the
question's language. Three steps, all pure (no Dagster, no Chroma):

1. **Names propose** (:func:`name_tag`, :func:`proposed_partner`): two file stems that differ
   only by a language tag at the end (``-c``/``-e``, ``_tc``/``_en``, ``-zh``/``-en``,
   ``-chi``/``-eng``).
2. **Content confirms** (:func:`confirm`): a file name is a convention, not a guarantee, so a
   proposal stands only when the papers agree the way translations of one paper do: different
   languages, the same question numbers, the same meeting date and paper number where they
   print one, and the figures in the text largely shared (translators keep the numbers; an
   unrelated paper shares only years and small counts). A contradicted proposal is not paired
   and :class:`Decision` says why. A person can overrule both with a sidecar file
   (:func:`read_sidecar`): ``<paper file>.counterpart`` beside the paper holding the other
   version's file name, or ``none`` to keep it unpaired.
3. **Chunks link** (:func:`chunk_links`): a Q&A chunk to the other version's chunk of the same
   question id (the same part when the pair is split; supplementaries ``1-S1`` are ids like
   any other); a narrative chunk to the section whose heading numbering (``(1)``, ``第四章`` /
   ``Chapter 4``, ``(一)`` / ``(a)``) corresponds; token windows never, since a window's edges
   fall at different places in the two languages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import markers
from ..records import ChunkMetadata, ChunkRecord
from ..settings import Strategy
from ..storage import location

# the language a file-name tag stands for
LANGUAGE_TAGS = {
    "c": "zh",
    "tc": "zh",
    "sc": "zh",
    "zh": "zh",
    "chi": "zh",
    "e": "en",
    "en": "en",
    "eng": "en",
}
_TAGGED = re.compile(r"^(?P<base>.+?)[-_.](?P<tag>[a-z]{1,3})$", re.IGNORECASE)
SIDECAR_SUFFIX = ".counterpart"
NO_COUNTERPART = "none"

MIN_QUESTION_AGREEMENT = 0.8  # share of question ids both versions have (of all either has)
MIN_SHARED_NUMBERS = 0.5  # distinct figures both versions print, of all either prints (Jaccard)
MIN_NUMBERS_TO_JUDGE = 5  # fewer distinct figures on either side: the figures say nothing
HEAD_CHARS = 3000  # where a paper prints its meeting date and paper number

_MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        1,
    )
}
_EN_DATE = re.compile(
    r"\b(\d{1,2})\s+("
    + "|".join(_MONTHS)
    + r")\s*,?\s+(\d{4})\b|\b("
    + "|".join(_MONTHS)
    + r")\s+(\d{1,2}),?\s+(\d{4})\b",
    re.IGNORECASE,
)
_ZH_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
# LegCo paper numbers: CB(2)1234/14-15(01), 立法會CB(3)634/2026(01)號文件, FCR(2015-16)12
_PAPER_NUMBER = re.compile(
    r"(?<![A-Za-z])((?:CB|FC|ESC|PWSC|LS|FCR|ECI)\s*\(\s*[\d-]+\s*\)\s*\d+(?:/\d{2,4}(?:-\d{2})?)?(?:\(\d{1,2}\))?)",
    re.IGNORECASE,
)
# a figure: 1,109 / 1 109 (thin space) / 12.5 / 2015; digit groups joined by separators count as one
_NUMBER = re.compile(r"(?<![\d.])(\d{1,3}(?:[,\u2009\u202f ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d])")
_ZH_DIGITS = {
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "〇": 0,
    "零": 0,
}
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}


# -- 1. names ---------------------------------------------------------------------------------
def name_tag(filename: str) -> tuple[str, str] | None:
    """(base, language) when the file's stem ends in a language tag, else None:
    ``hansard_20150429-e.html`` -> ``("hansard_20150429", "en")``."""
    match = _TAGGED.match(Path(filename).stem)
    if not match or match["tag"].lower() not in LANGUAGE_TAGS:
        return None
    return match["base"].lower(), LANGUAGE_TAGS[match["tag"].lower()]


def proposed_partner(filename: str, others: Mapping[str, str]) -> str | None:
    """The key in ``others`` (key -> file name) whose name proposes a pair with ``filename``:
    the same base with the other language's tag. None when there is none, or more than one."""
    mine = name_tag(filename)
    if mine is None:
        return None
    found = [
        key
        for key, name in others.items()
        if (tag := name_tag(name)) and tag[0] == mine[0] and tag[1] != mine[1]
    ]
    return found[0] if len(found) == 1 else None


def read_sidecar(paper: str | Path) -> str | None:
    """What ``<paper>.counterpart`` says: the other version's file name, :data:`NO_COUNTERPART`,
    or None when there is no sidecar (then the names and content decide)."""
    path = location(str(paper) + SIDECAR_SUFFIX)  # beside the paper, locally or in the bucket
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8").strip().splitlines()
    value = text[0].strip() if text else ""
    return NO_COUNTERPART if value.lower() == NO_COUNTERPART or not value else Path(value).name


# -- 2. content ------------------------------------------------------------------------------
@dataclass
class Profile:
    """What a paper says that its translation says too."""

    language: str  # zh | en
    question_ids: list[str] | None  # ids of its Q&A sections, in order (None: structure unknown)
    meeting_date: str | None  # first date of its opening text, ISO
    paper_number: str | None  # first LegCo paper number of its opening text
    numbers: set[str] = field(default_factory=set)  # distinct figures of 2+ digits


def language_of(language: str) -> str:
    """``zh-Hant``/``zh``/``en`` -> ``zh``/``en``."""
    return "zh" if language.lower().startswith("zh") else "en"


def normalise_id(question_id: str) -> str:
    """``Q1`` (English) and ``1`` (Chinese ``問1``) are one question: the letter Q is the
    marker, not part of the number; ``A1`` (topic A) stays."""
    return re.sub(r"^Q(?=\d)", "", re.sub(r"\s+", "", question_id).upper())


def dates_in(text: str) -> list[str]:
    """ISO dates in ``text``, in order (English ``29 April 2015``/``April 29, 2015``,
    Chinese ``2015年4月29日``, ISO)."""
    found: list[tuple[int, str]] = []
    for m in _EN_DATE.finditer(text):
        day, month, year = (m[1], m[2], m[3]) if m[1] else (m[5], m[4], m[6])
        found.append((m.start(), f"{int(year):04d}-{_MONTHS[month.lower()]:02d}-{int(day):02d}"))
    for pattern in (_ZH_DATE, _ISO_DATE):
        found += [
            (m.start(), f"{int(m[1]):04d}-{int(m[2]):02d}-{int(m[3]):02d}") for m in pattern.finditer(text)
        ]
    return [iso for _, iso in sorted(found)]


def numbers_in(text: str) -> set[str]:
    """Distinct figures of two or more digits (separators dropped), the way both versions print them."""
    out = set()
    for m in _NUMBER.finditer(text):
        value = re.sub(r"[,\u2009\u202f ]", "", m[1])
        if len(value.replace(".", "")) >= 2:
            out.add(value)
    return out


def profile_of(text: str, language: str, question_ids: Iterable[str] | None) -> Profile:
    """The :class:`Profile` of a paper from its cleaned text, its language and its Q&A ids."""
    head = text[:HEAD_CHARS]
    dates = dates_in(head)
    paper = _PAPER_NUMBER.search(head)
    return Profile(
        language=language_of(language),
        question_ids=None if question_ids is None else [normalise_id(q) for q in question_ids if q],
        meeting_date=dates[0] if dates else None,
        paper_number=re.sub(r"\s+", "", paper[1]).upper() if paper else None,
        numbers=numbers_in(text),
    )


@dataclass
class Decision:
    """Whether two documents are counterparts, and why (the reason goes into metadata)."""

    paired: bool
    reason: str
    by: str  # names | hand
    evidence: dict[str, Any] = field(default_factory=dict)  # scalars only

    def metadata(self) -> dict[str, Any]:
        return {
            "counterpart_paired": self.paired,
            "counterpart_reason": self.reason,
            "counterpart_by": self.by,
            **self.evidence,
        }


def by_hand(paired: bool, sidecar: str) -> Decision:
    return Decision(paired, f"set by hand ({sidecar})", "hand")


def confirm(a: Profile, b: Profile) -> Decision:
    """Whether the content of ``a`` and ``b`` (proposed by their names) agrees the way two
    language versions of one paper do; the first contradiction found is the reason."""
    evidence: dict[str, Any] = {}
    if a.language == b.language:
        return Decision(False, f"both versions are in the same language ({a.language})", "names")
    ids_a, ids_b = set(a.question_ids or []), set(b.question_ids or [])
    if (ids_a or ids_b) and a.question_ids is not None and b.question_ids is not None:
        agreement = len(ids_a & ids_b) / len(ids_a | ids_b)
        evidence["counterpart_question_ids_agree"] = round(agreement, 3)
        if agreement < MIN_QUESTION_AGREEMENT:
            return Decision(
                False,
                f"question numbers differ ({len(ids_a)} questions vs {len(ids_b)}, "
                f"{agreement:.0%} in common)",
                "names",
                evidence,
            )
    for label, key in (("meeting dates", "meeting_date"), ("paper numbers", "paper_number")):
        mine, theirs = getattr(a, key), getattr(b, key)
        if mine and theirs:
            evidence[f"counterpart_same_{key}"] = mine == theirs
            if mine != theirs:
                return Decision(False, f"{label} differ ({mine} vs {theirs})", "names", evidence)
    if min(len(a.numbers), len(b.numbers)) >= MIN_NUMBERS_TO_JUDGE:
        shared = len(a.numbers & b.numbers) / len(a.numbers | b.numbers)
        evidence["counterpart_numbers_shared"] = round(shared, 3)
        if shared < MIN_SHARED_NUMBERS:
            return Decision(False, f"the figures in the text differ ({shared:.0%} shared)", "names", evidence)
    elif not (ids_a & ids_b) and not any(k.startswith("counterpart_same_") for k in evidence):
        return Decision(False, "too little in the content to confirm the name match", "names", evidence)
    agreed = [
        what
        for what, ok in (
            ("question numbers", bool(ids_a & ids_b)),
            ("meeting date", evidence.get("counterpart_same_meeting_date")),
            ("paper number", evidence.get("counterpart_same_paper_number")),
            ("figures", "counterpart_numbers_shared" in evidence),
        )
        if ok
    ]
    return Decision(True, f"names and content agree ({', '.join(agreed)})", "names", evidence)


# -- 3. chunks -------------------------------------------------------------------------------
def _zh_number(text: str) -> int | None:
    if not text or any(ch not in _ZH_DIGITS for ch in text):
        return None
    if "十" not in text:
        value = 0
        for ch in text:
            value = value * 10 + _ZH_DIGITS[ch]
        return value
    tens, _, ones = text.partition("十")
    return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)


def _roman(text: str) -> int | None:
    if not text or any(ch not in _ROMAN for ch in text.upper()):
        return None
    values = [_ROMAN[ch] for ch in text.upper()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _ordinal(label: str) -> int | None:
    """``3``, ``三``, ``III``, ``c``/``C`` -> 3: the two versions number one list in their own
    style (``(一)`` in Chinese where English has ``(a)`` or ``(i)``)."""
    label = label.strip()
    if label.isdigit():
        return int(label)
    for parse in (_zh_number, _roman):
        value = parse(label)
        if value is not None:
            return value
    if len(label) == 1 and label.isalpha() and label.isascii():
        return ord(label.upper()) - ord("A") + 1
    return None


def heading_number(heading: str) -> tuple[str, int] | None:
    """(kind, ordinal) of a heading's own numbering (the regexes of :mod:`.markers`), or None
    for a heading without one."""
    heading = heading.strip()
    chapter = markers.CHAPTER_HEADING.match(heading)
    if chapter:
        label = re.sub(
            r"^(?:第|Chapter|Part)\s*|\s*(?:部分|[章部篇節])$",
            "",
            chapter.group(0).strip(),
            flags=re.IGNORECASE,
        )
        value = _ordinal(label)
        return ("chapter", value) if value is not None else None
    topic = markers.TOPIC_HEADING.match(heading)
    if topic:
        value = _ordinal(topic["label"] or topic["cn"] or topic["letter"] or "")
        return ("topic", value) if value is not None else None
    numbered = markers.NUMBERED_HEADING.match(heading)
    if numbered:
        return ("numbered", int(numbered["num"]))
    return None


def _path_of(meta: ChunkMetadata) -> list[str]:
    if meta.section_path:
        return list(meta.section_path)
    return [meta.section_heading] if meta.section_heading else []


def _qa_keys(records: Sequence[ChunkRecord]) -> dict[str, tuple[tuple[str, int], int | None, int | None]]:
    """chunk id -> ((question id, its n-th pair with that id), part, parts) for Q&A chunks."""
    out = {}
    seen: dict[str, int] = {}
    for record in records:
        meta = record.metadata
        if meta.section_type != "qa" or not meta.question_id:
            continue
        qid = normalise_id(meta.question_id)
        if meta.part in (None, 1):
            seen[qid] = seen.get(qid, 0) + 1
        out[record.id] = ((qid, max(seen.get(qid, 1), 1)), meta.part, meta.parts)
    return out


def _qa_links(ours: Sequence[ChunkRecord], theirs: Sequence[ChunkRecord]) -> dict[str, str]:
    mine, other = _qa_keys(ours), _qa_keys(theirs)
    by_pair: dict[tuple[str, int], dict[int | None, str]] = {}
    for chunk_id, (pair, part, _) in other.items():
        by_pair.setdefault(pair, {})[part] = chunk_id
    links = {}
    for chunk_id, (pair, part, _) in mine.items():
        parts = by_pair.get(pair)
        if not parts:
            continue
        if part in parts:
            links[chunk_id] = parts[part]
        elif part is None:  # ours whole, theirs split: their first part holds the question
            links[chunk_id] = parts[min(p for p in parts if p is not None)]
        elif None in parts:  # ours split, theirs whole
            links[chunk_id] = parts[None]
        else:  # both split, theirs into fewer parts
            links[chunk_id] = parts[max(p for p in parts if p is not None)]
    return links


def _sections(records: Sequence[ChunkRecord]) -> dict[tuple[Any, int], list[str]]:
    """Numbered sections of the non-Q&A chunks: (numbering of the heading path, n-th such
    section) -> its chunk ids in order. Consecutive chunks under one heading path are one section."""
    out: dict[tuple[Any, int], list[str]] = {}
    seen: dict[Any, int] = {}
    previous = None
    for record in records:
        meta = record.metadata
        if meta.section_type == "qa":
            previous = None
            continue
        path = _path_of(meta)
        numbering = tuple(n for n in (heading_number(h) for h in path) if n)
        if not path or not heading_number(path[-1]):  # its own heading must be numbered
            previous = None
            continue
        if tuple(path) != previous:
            seen[numbering] = seen.get(numbering, 0) + 1
            previous = tuple(path)
        out.setdefault((numbering, seen[numbering]), []).append(record.id)
    return out


def _section_links(ours: Sequence[ChunkRecord], theirs: Sequence[ChunkRecord]) -> dict[str, str]:
    other = _sections(theirs)
    links = {}
    for key, ids in _sections(ours).items():
        targets = other.get(key)
        if targets:
            for n, chunk_id in enumerate(ids):
                links[chunk_id] = targets[min(n, len(targets) - 1)]
    return links


def _ordered(records: Iterable[ChunkRecord]) -> list[ChunkRecord]:
    return sorted(records, key=lambda r: r.metadata.chunk_index)


def chunk_links(ours: Iterable[ChunkRecord], theirs: Iterable[ChunkRecord]) -> dict[str, str]:
    """Our chunk id -> the other version's chunk id, for chunk records (docs/design.md#chunk-record) of
    one strategy: Q&A chunks by question id and part, narrative chunks by heading numbering;
    token windows get none."""
    ours, theirs = _ordered(ours), _ordered(theirs)
    if not ours or ours[0].metadata.strategy_type == Strategy.token.value:
        return {}
    return {**_section_links(ours, theirs), **_qa_links(ours, theirs)}


COUNTERPART_KEYS = ("counterpart_document_id", "counterpart_id")


def linked_metadata(
    meta: Mapping[str, Any], partner: str | None, counterpart_id: str | None
) -> dict[str, Any]:
    """``meta`` with the counterpart keys set, or absent (never empty) where there is none."""
    out = {k: v for k, v in meta.items() if k not in COUNTERPART_KEYS}
    if partner:
        out["counterpart_document_id"] = partner
        if counterpart_id:
            out["counterpart_id"] = counterpart_id
    return out


def question_counts(records: Iterable[ChunkRecord]) -> int:
    """Distinct Q&A pairs among chunk records (split parts count once)."""
    return len({pair for pair, _, _ in _qa_keys(_ordered(records)).values()})


def counterpart_changes(
    stored: Sequence[ChunkRecord], document_id: str, partner: str | None
) -> dict[str, dict[str, Any]]:
    """The counterpart-key updates (chunk id -> {key: value, or None to remove it}) that make
    stored latest chunks agree with one pairing decision: ``document_id`` and ``partner``
    linked both ways in every strategy, or (``partner`` None) ``document_id`` and whoever
    pointed at it unlinked. ``stored``: their chunks as ``stored_chunks`` gives them."""
    groups: dict[tuple[str, str], list[ChunkRecord]] = {}
    for chunk in stored:
        groups.setdefault((chunk.document_id, chunk.metadata.strategy_type), []).append(chunk)
    desired: dict[str, tuple[str | None, str | None]] = {}
    present = {doc for doc, _ in groups}
    for (doc, strategy), chunks in groups.items():
        other = partner if doc == document_id else document_id if doc == partner else None
        other = other if other in present else None  # keys only where the other version is stored
        links = chunk_links(chunks, groups.get((str(other), strategy), [])) if other else {}
        for chunk in chunks:
            desired[chunk.id] = (other, links.get(chunk.id) if other else None)
    changes = {}
    for chunk in stored:
        other, counterpart_id = desired[chunk.id]
        want = {"counterpart_document_id": other, "counterpart_id": counterpart_id}
        update = {k: v for k, v in want.items() if getattr(chunk.metadata, k) != v}
        if update:
            changes[chunk.id] = update
    return changes
