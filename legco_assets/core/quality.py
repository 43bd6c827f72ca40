"""Quality gates over chunks and structure, as pure functions.

:func:`paper_checks` decides every check of one paper; the Dagster assets turn each
:class:`Check` into an ``AssetCheckResult`` and ``legco-assets chunk`` prints the failed ones
on stderr, so a paper that ``chunk`` reports clean never fails a blocking check in Dagster.
A failing blocking check keeps bad chunks out of Chroma, so only the integrity checks block
(:data:`BLOCKING`: text lost, a chunk the embedder would truncate, an empty chunk); a check
that judges by a heuristic (furniture, labels, numbering) may be wrong on the next paper and
only warns, naming what it saw: a heuristic may never cost a paper. What the checks need to know about
the paper besides its chunks (:class:`PaperFacts`) is gathered by ``pipeline.paper_facts``,
also shared by both; everything here stays cheap (the CLI's hot path runs it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import markers
from .records import ChunkRecord, join_path


@dataclass
class Check:
    name: str
    passed: bool
    description: str
    details: dict[str, Any] = field(default_factory=dict)
    blocking: bool = False  # a failure keeps the chunks out of Chroma (chunk checks)

    def line(self) -> str:
        """The failure as one line: the check, what failed, and the pages or ids."""
        shown = {k: v for k, v in self.details.items() if k in _LOCATORS and v not in ([], {}, None, "")}
        facts = "; ".join(f"{k} {_short(v)}" for k, v in shown.items())
        return f"{self.name}: {self.description}" + (f" ({facts})" if facts else "")


_LOCATORS = ("missing_pages", "chunks", "examples", "gaps", "duplicates", "questions")  # the pages or ids


def _short(value: Any) -> str:
    if isinstance(value, list):
        items = [_short(v) for v in value[:10]]
        return ", ".join(items) + (", …" if len(value) > 10 else "")
    if isinstance(value, dict):
        return " ".join(
            f"{k}={str(v)[:60]!r}" if isinstance(v, str) else f"{k}={v}" for k, v in value.items()
        )
    return str(value)


@dataclass(frozen=True)
class PaperFacts:
    """What the checks know of the paper besides its chunks: the pages a chunk must cover,
    the token limit of the strategy, the paper's own furniture (header lines it prints at a
    page edge: ``running_headers`` on most pages, ``section_headers`` beside the page number,
    following the section), and, for the structure checks, ``structure.structure_summary``
    and the label coverage (``label_guard``) as dicts."""

    pages_with_text: list[int]
    token_limit: int
    running_headers: frozenset[str] = frozenset()
    section_headers: frozenset[str] = frozenset()
    structure: dict[str, Any] | None = None
    labels: dict[str, Any] | None = None
    official: Check | None = None  # questions_match_open_data, for a paper with LegCo's records
    unreadable_pages: list[int] = field(default_factory=list)  # text layers that map to no characters
    # per page number, the lines its edges print that are furniture there (``read.Furniture.page_lines``);
    # None: not known, and every line of a chunk is judged
    edge_furniture: dict[int, frozenset[str]] | None = None
    vision_configured: bool = (
        False  # a vision LLM transcribes unreadable and scanned pages (LLM_*, QA_VISION_ENABLED)
    )
    dated: Check | None = None  # paper_date_found, where the structure step read the paper's facts

    def furniture_at(self, first: int, last: int) -> frozenset[str] | None:
        """The furniture lines printed at the edges of pages ``first``..``last`` and the pages
        either side (a page's header may join the chunk that ends the page before)."""
        if self.edge_furniture is None:
            return None
        return frozenset().union(
            *(self.edge_furniture.get(n, frozenset()) for n in range(first - 1, last + 2))
        )


def _pages_covered(records: list[ChunkRecord], pages_with_text: list[int]) -> Check:
    covered: set[int] = set()
    for r in records:
        covered.update(range(r.metadata.page_start, r.metadata.page_end + 1))
    missing = sorted(set(pages_with_text) - covered)
    return Check(
        "every_page_covered",
        not missing,
        f"{len(missing)} page(s) with text not in any chunk",
        {"missing_pages": missing[:50]},
    )


def _within_limit(records: list[ChunkRecord], limit: int) -> Check:
    over = [r.id for r in records if r.metadata.token_count > limit]
    return Check(
        "no_chunk_over_token_limit",
        not over,
        f"{len(over)} chunk(s) over {limit} tokens",
        {"chunks": over[:20]},
    )


def leaked_footer(line: str) -> bool:
    """A page label (``E-3``), a footer date line (``2025-05-15``) or a ``- 2 -`` mark alone
    on a line. Narrower than the cleaner's furniture test on purpose: inside a chunk a bare
    year pair (``2022 2023``) or a letter's date is content."""
    s = line.strip()
    return bool(markers.PAGE_LABEL.match(s) or _FOOTER_DATE.fullmatch(s) or _DASH_PAGE.fullmatch(s))


_FOOTER_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DASH_PAGE = re.compile(r"-\s*\d{1,4}\s*-")


def leaked_furniture(
    lines: list[str], facts: PaperFacts, at_edges: frozenset[str] | None = None
) -> str | None:
    """The first line of a chunk that is page furniture: a footer line (:func:`leaked_footer`),
    a line the paper repeats at a page edge on most pages, or a running header that follows
    the section printed beside a bare page number (alone, the same words are the section's
    heading, which is content). Only a line that the chunk's pages print where furniture
    stands (``at_edges``, when known) is judged: a contents entry ``支援市民和企業 72`` in the
    body of a page looks like a header and its page number, but no page prints it at an edge."""
    if at_edges is not None and not at_edges:
        return None  # the chunk's pages print no furniture at their edges: no line is judged
    # furniture lines are short: a long line is content, and is not even squashed
    squashed = ["".join(ln.split()) if len(ln) <= MAX_FURNITURE_CHARS else "" for ln in lines]
    for k, (line, s) in enumerate(zip(lines, squashed)):
        if not s or (at_edges is not None and s not in at_edges):
            continue
        if leaked_footer(line) or s in facts.running_headers:
            return line.strip()
        head = _BARE_NUMBER_END.sub("", s)
        if head != s and head in facts.section_headers:  # "二零二三年經濟回顧 4" on one line
            return line.strip()
        if s in facts.section_headers and any(
            0 <= j < len(lines) and _BARE_NUMBER.fullmatch(squashed[j]) for j in (k - 1, k + 1)
        ):
            return line.strip()
    return None


MAX_FURNITURE_CHARS = 100
_BARE_NUMBER = re.compile(r"\d{1,4}")
_BARE_NUMBER_END = re.compile(r"\d{1,4}$")


def _no_footer(records: list[ChunkRecord], facts: PaperFacts) -> Check:
    leaked = []
    for r in records:
        lines = r.text.split("\n")
        path = join_path(r.metadata.section_path)
        if path and lines[0].strip() == path:  # the chunk's own heading path, written by the chunker
            lines = lines[1:]
        bad = leaked_furniture(lines, facts, facts.furniture_at(r.metadata.page_start, r.metadata.page_end))
        if bad is not None:
            leaked.append({"id": r.id, "line": bad})
    return Check(
        "no_footer_leaked",
        not leaked,
        f"{len(leaked)} chunk(s) contain a footer/header line",
        {"examples": leaked[:10]},
    )


def _no_empty(records: list[ChunkRecord]) -> Check:
    empty = [r.id for r in records if not r.text.strip()]
    return Check("no_empty_chunk", not empty, f"{len(empty)} empty chunk(s)", {"chunks": empty[:20]})


def paper_checks(records: Sequence[ChunkRecord | Mapping[str, Any]] | None, facts: PaperFacts) -> list[Check]:
    """Every check of one paper, the one place that decides them: the chunk checks
    (docs/design.md#checks; the integrity ones blocking) when ``records`` are given, then the structure
    checks (warnings) when ``facts`` carry the structure. The ``chunks`` asset reports the
    chunk checks, ``document_structure`` the others, ``legco-assets chunk`` all of them."""
    checks = chunk_checks(records, facts) if records is not None else []
    if facts.structure is not None:
        checks += structure_checks(facts.structure)
        checks.append(readable_check(facts.unreadable_pages, facts.vision_configured))
    if facts.labels is not None:
        checks.append(labels_check(facts.labels))
    if facts.official is not None:
        checks.append(facts.official)
    if facts.dated is not None:
        checks.append(facts.dated)
    return checks


def blocking_failures(checks: list[Check]) -> list[Check]:
    return [c for c in checks if c.blocking and not c.passed]


def chunk_checks(records: Sequence[ChunkRecord | Mapping[str, Any]], facts: PaperFacts) -> list[Check]:
    """The chunk checks (docs/design.md#checks); the integrity ones (:data:`BLOCKING`) are gates.
    ``records`` typed or in their JSON form (a ``chunks-*.jsonl`` line)."""
    records = [ChunkRecord.of(r) for r in records]
    checks = [
        _pages_covered(records, facts.pages_with_text),
        _within_limit(records, facts.token_limit),
        _no_footer(records, facts),
        _no_empty(records),
    ]
    for check in checks:
        check.blocking = check.name in BLOCKING
    return checks


def labels_check(labels: dict[str, Any]) -> Check:
    """The silent-miss guard (``structure.label_guard``): labels the paper shows, most of them paired."""
    return Check(
        "question_labels_paired",
        labels["ok"],
        labels["message"],
        {k: labels[k] for k in ("labels_seen", "pairs_made", "unpaired_labels")},
    )


# what becomes of an unreadable page: said as the configuration has it, so the message never
# promises a transcription that no model will make
_TRANSCRIBED = "a vision LLM transcribes them"
_NOT_TRANSCRIBED = (
    "set LLM_BASE_URL, LLM_MODEL_NAME and QA_VISION_ENABLED=true to have a vision LLM transcribe them"
)


def readable_check(unreadable: list[int], vision_configured: bool = False) -> Check:
    """Pages whose text layer maps to no characters (``read.unreadable_text``) are left out
    of the chunks like scanned ones; a warning, not a gate: the paper's other pages are right,
    and a vision model transcribes those pages once configured (the description says whether
    one is, and what to set when not)."""
    return Check(
        "text_layer_readable",
        not unreadable,
        f"{len(unreadable)} page(s) whose text layer maps to no characters (fonts without a Unicode map): "
        f"left out of the chunks; {_TRANSCRIBED if vision_configured else _NOT_TRANSCRIBED}",
        {"missing_pages": unreadable[:50]},
    )


def structure_checks(summary: dict[str, Any]) -> list[Check]:
    """Q&A numbering and completeness, from :func:`structure.structure_summary`."""
    gaps, dupes = summary.get("numbering_gaps", []), summary.get("duplicate_ids", [])
    unanswered = summary.get("questions_without_answers", [])
    return [
        Check(
            "qa_numbering_complete",
            not gaps and not dupes,
            f"{len(gaps)} numbered question(s) without a pair of their own"
            + (f" ({', '.join(map(str, gaps[:10]))}{', …' if len(gaps) > 10 else ''})" if gaps else "")
            + f", {len(dupes)} duplicate id(s) in Q&A numbering",
            {"gaps": gaps[:50], "duplicates": dupes[:50]},
        ),
        Check(
            "every_question_answered",
            not unanswered,
            f"{len(unanswered)} question(s) without an answer",
            {"questions": unanswered[:50]},
        ),
    ]


# Integrity, judged on the chunks alone: a failure means the chunks are broken, so it keeps
# them out of Chroma. Every other check is a heuristic's and warns.
BLOCKING = frozenset({"every_page_covered", "no_chunk_over_token_limit", "no_empty_chunk"})

# What each check looks at and whether it blocks: the description the Dagster UI shows
# beside the check (``defs/assets/common.check_specs``) and docs/design.md#checks.
ABOUT = {
    "every_page_covered": (
        "Blocks: every page with text lies in some chunk (a page in none lost its text; the question "
        "strategy need not cover a contents page)."
    ),
    "no_chunk_over_token_limit": (
        "Blocks: no chunk has more tokens than its strategy's limit (the embedder would truncate it and "
        "its tail could never be found)."
    ),
    "no_empty_chunk": "Blocks: no chunk is empty or whitespace only.",
    "no_footer_leaked": (
        "Warns: no chunk holds a line the paper prints as page furniture (a page label or footer date, a "
        "running header learned from its pages); names the chunk and line. A heuristic, so the chunks are "
        "indexed."
    ),
    "qa_numbering_complete": (
        "Warns: question numbers run without gaps or duplicates (a gap is often the paper's own)."
    ),
    "every_question_answered": "Warns: every question section has an answer.",
    "text_layer_readable": (
        "Warns: no page's text layer is control codes (fonts without a Unicode map); such pages are left "
        "out of the chunks like scanned ones."
    ),
    "question_labels_paired": (
        "Warns: at least 80% of the question labels the paper shows became question-answer pairs "
        "(labels_seen / pairs_made)."
    ),
    "paper_date_found": (
        "Warns: the paper prints a date of its own on its first pages (a Hansard's sitting date, a "
        "letter's or an edition's; LegCo's open data for a feed paper); without one its chunks carry no "
        "date and a date filter leaves them out."
    ),
    "questions_match_open_data": (
        "Warns: the Hansard's questions match LegCo's official question records of the meeting. Not "
        "executed (no result: neither a pass nor a failure) for a paper without such records; its "
        "document_structure materialisation says why under checks_not_run."
    ),
}
