"""Headings that ask: an FAQ without labels is still one pair per question.

Why: many government FAQ pages print no ``Q1`` / ``問1.`` at all. Each question is a heading
(``<h3>``, a bold line, a ``<dt>`` of a definition list, an accordion's ``<summary>``) and its
answer the text under it; the rules see no label, and the outline makes each question a
narrative section of its own, headed by the question. Read as a reader reads it, such a
section is an exchange: the heading asks, the text under it answers. So, after the outline:

* in a paper with no labelled pair, a narrative section whose own heading (the last of its
  path) ends with a question mark and which has text under it becomes a ``qa`` pair: the
  heading is the question, the text the answer, and its path is the headings above;
* only where most of the headings under the same parent ask: there the others are entries
  of the same FAQ set as titles (``Eligibility for the allowance``), while a guide's
  ``Who is a part-time worker?`` among headings that state stays narrative;
* and only when the paper has at least :data:`MIN_ASKED` such questions (an FAQ asks
  several; a narrative paper's single rhetorical heading stays narrative);
* pairs are numbered ``1``, ``2``… in order, as the rules number unlabelled questions.

A paper with labelled pairs keeps its sections as they are: its labels say what a question is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .. import markers
from ..records import DocumentText, Section
from .recut import closing_lines, cut_section, first_cut
from .tabular import looks_tabular

MIN_ASKED = 2  # headings that ask, at least, before they are read as an FAQ's questions


def asked_headings(
    doc: DocumentText, sections: list[Section], breaks: Sequence[int] = (), refs: bool = True
) -> list[Section]:
    """``sections`` with each question heading and the text under it as a pair, when the
    paper has no labelled pair and at least :data:`MIN_ASKED` such headings; where most of
    the headings under one parent ask, the others there are the FAQ's entries too
    (``Eligibility for the allowance`` among ``How do I apply?`` and its like). An answer
    ends at a break (:func:`outline.break_starts`: the list or box of the questions closed);
    what follows it is narrative under the same headings. ``refs``: keep ``[內部參考…]`` notes
    in the text, as the outline did."""
    if any(s.type == "qa" for s in sections):
        return sections
    answer_starts = {id(s): _answer_start(doc, s) for s in sections}
    entries = _entries(sections, answer_starts)
    if sum(1 for s in sections if id(s) in entries and _asks(s)) < MIN_ASKED:
        return sections
    out, number = [], 0
    last = max(n for n, s in enumerate(sections) if id(s) in entries)
    for n, section in enumerate(sections):
        if id(section) not in entries:
            out.append(section)
            continue
        number += 1
        start = answer_starts[id(section)]
        assert start is not None  # entries have text under their heading
        cuts = (
            sorted([*breaks, *closing_lines(doc, replace(section, answer_start=start))])
            if n == last
            else breaks
        )
        end = first_cut(doc, start, section.char_end, cuts)
        out.append(_pair(doc, section, start, str(number), end, refs))
        if end is not None and doc.text[end : section.char_end].strip():
            out.append(_after(doc, section, end, refs))
    return out


def _asks(section: Section) -> bool:
    return bool(markers.QUESTION_END.search(section.path[-1]))


def _entries(sections: list[Section], answer_starts: dict[int, int | None]) -> set[int]:
    """ids of the sections read as pairs: the headings (with text under them) of each parent
    whose headings mostly ask, all of them; under a parent where most do not (a guide's
    ``1. Who is a part-time worker?`` among ``3. Entitlements at a glance`` and its like),
    none."""
    siblings: dict[tuple[str, ...], list[Section]] = {}
    for section in sections:
        if answer_starts[id(section)] is not None:
            siblings.setdefault(tuple(section.path[:-1]), []).append(section)
    entries: set[int] = set()
    for group in siblings.values():
        if 2 * sum(1 for s in group if _asks(s)) > len(group):
            entries.update(id(s) for s in group)
    return entries


def _answer_start(doc: DocumentText, section: Section) -> int | None:
    """Where the text under a narrative section's own heading starts (None: no heading, or
    nothing under it)."""
    if section.type != "narrative" or not section.path:
        return None
    question = section.path[-1]
    span = doc.text[section.char_start : section.char_end]
    end = _heading_end(span, question)
    if end is None or not span[end:].strip():
        return None
    return section.char_start + end + (len(span[end:]) - len(span[end:].lstrip()))


def _heading_end(span: str, heading: str) -> int | None:
    """Offset in ``span`` just after ``heading`` (which may wrap over lines), if it opens it."""
    target = "".join(heading.split())
    seen = 0
    for n, ch in enumerate(span):
        if ch.isspace():
            continue
        if seen >= len(target) or ch != target[seen]:
            return None
        seen += 1
        if seen == len(target):
            return n + 1
    return None


def _pair(
    doc: DocumentText, section: Section, answer_start: int, qa_id: str, end: int | None, refs: bool
) -> Section:
    answer = doc.text[answer_start : end or section.char_end].strip()
    path = list(section.path[:-1])
    if end is not None:
        section = cut_section(doc, section, section.char_start, end, section.type, refs)
    return replace(
        section,
        type="qa",
        heading=path[-1] if path else None,
        parent_topic=path[-2] if len(path) > 1 else None,
        qa_id=qa_id,
        question=section.path[-1],
        answer=answer,
        answer_start=answer_start,
        has_table=looks_tabular(answer),
        path=path,
        level=len(path) or None,
    )


def _after(doc: DocumentText, section: Section, start: int, refs: bool) -> Section:
    """What follows a break inside a section headed by a question: narrative under the
    headings above the question."""
    path = list(section.path[:-1])
    rest = cut_section(doc, section, start, section.char_end, "narrative", refs)
    return replace(
        rest,
        heading=path[-1] if path else None,
        parent_topic=path[-2] if len(path) > 1 else None,
        path=path,
        level=len(path) or None,
    )
