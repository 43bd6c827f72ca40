"""Quality gates over chunks and structure, as pure functions.

The Dagster assets turn each :class:`Check` into an ``AssetCheckResult``; the CLI and tests
call them directly. A failing blocking check keeps bad chunks out of Chroma.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import markers


@dataclass
class Check:
    name: str
    passed: bool
    description: str
    details: dict[str, Any] = field(default_factory=dict)


def _pages_covered(records: list[dict[str, Any]], pages_with_text: list[int]) -> Check:
    covered: set[int] = set()
    for r in records:
        m = r["metadata"]
        covered.update(range(m["page_start"], m["page_end"] + 1))
    missing = sorted(set(pages_with_text) - covered)
    return Check("every_page_covered", not missing, f"{len(missing)} page(s) with text not in any chunk", {"missing_pages": missing[:50]})


def _within_limit(records: list[dict[str, Any]], limit: int) -> Check:
    over = [r["id"] for r in records if r["metadata"]["token_count"] > limit]
    return Check("no_chunk_over_token_limit", not over, f"{len(over)} chunk(s) over {limit} tokens", {"chunks": over[:20]})


def leaked_footer(line: str) -> bool:
    """A page label (``E-3``), a footer date line (``2025-05-15``) or a ``- 2 -`` mark alone
    on a line. Narrower than the cleaner's furniture test on purpose: inside a chunk a bare
    year pair (``2022 2023``) or a letter's date is content."""
    s = line.strip()
    return bool(markers.PAGE_LABEL.match(s) or _FOOTER_DATE.fullmatch(s) or _DASH_PAGE.fullmatch(s))


_FOOTER_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DASH_PAGE = re.compile(r"-\s*\d{1,4}\s*-")


def _no_footer(records: list[dict[str, Any]]) -> Check:
    leaked = []
    for r in records:
        bad = [ln for ln in r["text"].split("\n") if leaked_footer(ln)]
        if bad:
            leaked.append({"id": r["id"], "line": bad[0]})
    return Check("no_footer_leaked", not leaked, f"{len(leaked)} chunk(s) contain a footer/header line", {"examples": leaked[:10]})


def _no_empty(records: list[dict[str, Any]]) -> Check:
    empty = [r["id"] for r in records if not r["text"].strip()]
    return Check("no_empty_chunk", not empty, f"{len(empty)} empty chunk(s)", {"chunks": empty[:20]})


def chunk_checks(records: list[dict[str, Any]], pages_with_text: list[int], token_limit: int) -> list[Check]:
    """The chunk quality gates of DESIGN.md."""
    return [
        _pages_covered(records, pages_with_text),
        _within_limit(records, token_limit),
        _no_footer(records),
        _no_empty(records),
    ]


def structure_checks(summary: dict[str, Any]) -> list[Check]:
    """Q&A numbering and completeness, from :func:`structure.structure_summary`."""
    gaps, dupes = summary.get("numbering_gaps", []), summary.get("duplicate_ids", [])
    unanswered = summary.get("questions_without_answers", [])
    return [
        Check(
            "qa_numbering_complete",
            not gaps and not dupes,
            f"{len(gaps)} gap(s), {len(dupes)} duplicate id(s) in Q&A numbering",
            {"gaps": gaps[:50], "duplicates": dupes[:50]},
        ),
        Check("every_question_answered", not unanswered, f"{len(unanswered)} question(s) without an answer", {"questions": unanswered[:50]}),
    ]
