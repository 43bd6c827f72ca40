"""What the rules found, in numbers, and where they may be wrong (numbering gaps, duplicate
ids, questions without answers), and which pages no chunk is expected to cover.

Why a module of its own: these read a finished list of sections (the rules', the LLM's, the
outline's), for the LLM fallback and the asset checks; they find nothing in the text.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..records import Section


def unchunked_pages(sections: list[Section]) -> list[int]:
    """Pages that hold only a table of contents or bare headings, which the question strategy
    never chunks; a page-coverage check should not expect a chunk there."""
    skipped: set[int] = set()
    chunked: set[int] = set()
    for section in sections:
        pages = range(section.start_page, section.end_page + 1)
        (skipped if section.type in {"toc", "heading_only"} else chunked).update(pages)
    return sorted(skipped - chunked)


def _id_parts(qa_id: str) -> tuple[str, int] | None:
    m = re.fullmatch(r"([A-Za-z]*)(\d+)", qa_id)
    return (m[1].upper(), int(m[2])) if m else None


def structure_summary(sections: list[Section]) -> dict[str, Any]:
    """What the rules found, and where they may be wrong.

    ``numbering_gaps`` lists ids missing inside each prefix's run (A1, A3 -> A2) and the
    questions whose supplementaries were found without them (``4-S1`` but no ``4``);
    ``duplicate_ids`` ids seen twice; ``questions_without_answers`` pairs whose answer is
    empty. ``unsure`` is true when any of these is non-empty, so a caller (the LLM stage, an
    asset check) knows when to look again.
    """
    pairs = [s for s in sections if s.type == "qa"]
    ids = [s.qa_id or "" for s in pairs]
    counts = Counter(s.type for s in sections)
    by_prefix: dict[str, list[int]] = {}
    for qa_id in ids:
        parts = _id_parts(qa_id)
        if parts:
            by_prefix.setdefault(parts[0], []).append(parts[1])
    gaps = [
        f"{prefix}{n}"
        for prefix, numbers in by_prefix.items()
        for n in range(min(1, min(numbers)), max(numbers) + 1)
        if n not in numbers and n > 0
    ]
    # a question whose supplementaries have exchanges but which has none of its own (its
    # main question ran into the exchange before): missing, wherever its number falls
    gaps += [
        p
        for p in dict.fromkeys(s.parent_question_id for s in pairs if s.parent_question_id)
        if p not in ids and p not in gaps
    ]
    duplicates = sorted(qa_id for qa_id, n in Counter(ids).items() if n > 1)
    unanswered = [s.qa_id for s in pairs if not (s.answer or "").strip()]
    return {
        "sections": len(sections),
        "counts": dict(counts),
        "pairs": len(pairs),
        "qa_ids": ids,
        "numbering_gaps": gaps,
        "duplicate_ids": duplicates,
        "questions_without_answers": unanswered,
        "pages_with_pairs": sorted({s.start_page for s in pairs}),
        "has_toc": counts.get("toc", 0) > 0,
        "unsure": bool(gaps or duplicates or unanswered),
    }
