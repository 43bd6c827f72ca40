"""Sections re-cut after the rules: at the outline's headings, each with its section path
(:func:`apply_outline`), and Q&A answers ended where the paper closes the questions (a break,
a revision date, an enquiry line, a sign-off).

Where the paper gives headings (:mod:`outline`), they replace the rules' narrative
headings: the narrative between two headings is one section whatever the rules split it
into. Q&A pairs keep the rules' topic heading under the outline's path. Where it gives none
(plain text), the rules' level-1 heading and topic make the path.

Why a module of its own: :mod:`outline` finds where the headings are; cutting sections at
them (their text, pages and table flag taken again for the new span, :func:`cut_section`)
is the other half, which :mod:`asked_headings` uses too.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from .. import markers
from ..records import DocumentText, Page, Section
from .answered import PUT
from .outline import Heading, break_starts, find_headings, key, rule_path
from .tabular import looks_tabular
from .text import drop_internal_refs, join_pages
from .toc import absorb_toc_tail

TOPIC_OPENING = 12  # characters of a rules topic looked for in the text (within its first line)


def apply_outline(
    doc: DocumentText, sections: list[Section], pages: list[Page], include_internal_refs: bool = True
) -> tuple[list[Section], list[Heading]]:
    """Sections re-cut at the outline's headings, each with its ``path`` and ``level``.

    Narrative is cut at every heading and the rules' narrative cuts between two headings
    are undone (their headings were guesses); Q&A pairs, speaking notes and tables keep
    their spans. Without an outline, every section gets :func:`rule_path`.
    """
    sections = _end_answers(
        doc, absorb_toc_tail(sections), [], break_starts(doc, pages), include_internal_refs
    )
    headings = find_headings(doc, pages, sections)  # after the breaks: a heading after an answer's end counts
    starts = [h.char_start for h in headings]
    sections = _end_answers(doc, sections, starts, [], include_internal_refs)
    if not headings:
        return [_with_path(s, rule_path(s)) for s in sections], []
    out: list[Section] = []
    for section in sections:
        if section.type == "toc":
            out.append(_with_path(section, []))
        elif section.type == "qa" or section.extra.get(PUT):  # the paper's own spans, under the outline
            path = [
                p
                for p in _path_at(headings, starts, section.char_start)
                if not markers.QUESTION_END.search(p)
            ]
            if section.heading and not _named_by(section.heading, path) and _below(doc, section, starts):
                path = path + [section.heading]
            out.append(_with_path(section, path))
        else:
            out.extend(_cut(doc, section, headings, starts, include_internal_refs))
    return _merge(doc, out, include_internal_refs), headings


def _end_answers(
    doc: DocumentText, sections: list[Section], headings: list[int], breaks: list[int], refs: bool
) -> list[Section]:
    """Answers end at a break inside them (the list, box or table that held the questions
    closed, a category row of an FAQ table), and the last pair's answer also at a heading:
    after the last answer a heading starts what follows the Q&A (``Related links``,
    ``Enquiries``, a colophon), which the rules, reading lines, run into the answer. What
    follows the end is narrative."""
    last = next((n for n in range(len(sections) - 1, -1, -1) if sections[n].type == "qa"), None)
    out: list[Section] = []
    for n, section in enumerate(sections):
        cuts = sorted(breaks + headings + closing_lines(doc, section)) if n == last else breaks
        out.extend(
            _ended(doc, section, cuts, refs)
            if section.type == "qa" and section.answer_start is not None
            else [section]
        )
    return out


def closing_lines(doc: DocumentText, pair: Section) -> list[int]:
    """Where lines that close a paper start in ``pair``'s answer: its revision date (``Last
    updated: May 2025``, ``最後更新日期：…``), its note on where to ask (``Enquiries: 2345
    6789``, ``查詢熱線：…``), or an Administration paper's sign-off at its very end (the
    bureau on a line of its own, then the month: ``Labour and Welfare Bureau`` / ``May
    2025``). How a web page, a leaflet or a paper ends, after its last answer: that answer
    ends before them, and they are text of their own."""
    if pair.answer_start is None:
        return []
    lines = doc.text[pair.answer_start : pair.char_end].split("\n")
    texts = [line.strip() for line in lines]
    sign_off = _sign_off(texts)
    found, offset = [], pair.answer_start
    for n, (line, text) in enumerate(zip(lines, texts)):
        if markers.REVISION_STAMP.match(text) or markers.ENQUIRY_NOTE.match(text) or n == sign_off:
            found.append(offset + len(line) - len(line.lstrip()))
        offset += len(line) + 1
    return found


def _sign_off(texts: list[str]) -> int | None:
    """The line where the paper's sign-off starts: the first line naming the body that
    wrote it in the run of such names and months that ends the text; None without one."""
    start = None
    for n in range(len(texts) - 1, -1, -1):
        text = texts[n]
        if not text or markers.SIGN_OFF_DATE.match(text):
            continue
        if not markers.SIGN_OFF_BODY.match(text):
            break
        start = n
    return start


def first_cut(doc: DocumentText, answer_start: int, end: int, cuts: Sequence[int]) -> int | None:
    """The first of ``cuts`` inside an answer ``[answer_start, end)`` with answer text before it."""
    return next((c for c in cuts if answer_start < c < end and doc.text[answer_start:c].strip()), None)


def _ended(doc: DocumentText, pair: Section, cuts: list[int], refs: bool) -> list[Section]:
    """``pair`` ended at the first cut inside its answer (with answer text before it), and
    what follows as narrative; ``[pair]`` when none is."""
    assert pair.answer_start is not None
    cut = first_cut(doc, pair.answer_start, pair.char_end, cuts)
    if cut is None:
        return [pair]
    answered = cut_section(doc, pair, pair.char_start, cut, "qa", refs)
    answer = doc.text[pair.answer_start : answered.char_end].strip()
    answered.answer = answer if refs else drop_internal_refs(answer)
    after = cut_section(
        doc,
        replace(pair, type="narrative", qa_id=None, question=None, answer=None, answer_start=None),
        cut,
        pair.char_end,
        "narrative",
        refs,
    )
    return [answered, after]


def _below(doc: DocumentText, section: Section, starts: list[int]) -> bool:
    """The rules' topic of a pair is printed after the outline's last heading above the pair
    (a topic line under that heading), not before it (a topic an outline heading has since
    replaced: an FAQ table's next category row)."""
    k = bisect.bisect_right(starts, section.char_start) - 1
    if k < 0 or not section.heading:
        return True
    opening = section.heading[
        :TOPIC_OPENING
    ]  # a wrapped topic is joined with a space where the text breaks the line
    return (
        doc.text.rfind(opening, 0, section.char_start + len(opening)) >= starts[k]
    )  # a put question opens with it


def _named_by(heading: str, path: list[str]) -> bool:
    """The rules' topic ``heading`` is on the path already: one of its headings, or several
    of them in a row that the rules read as one title wrapped over lines (an ``<h1>`` and
    the ``<h2>`` right under it)."""
    target = key(heading)
    keys = [key(p) for p in path]
    return any("".join(keys[i:j]) == target for i in range(len(keys)) for j in range(i + 1, len(keys) + 1))


def _path_at(headings: list[Heading], starts: list[int], offset: int) -> list[str]:
    k = bisect.bisect_right(starts, offset) - 1
    return list(headings[k].path) if k >= 0 else []


def _with_path(section: Section, path: list[str]) -> Section:
    section.path = list(path)
    section.level = len(path) or None
    return section


def _cut(
    doc: DocumentText, section: Section, headings: list[Heading], starts: list[int], refs: bool
) -> list[Section]:
    """A non-Q&A section cut where headings start inside it; each piece named by the outline."""
    lo = bisect.bisect_right(starts, section.char_start)
    hi = bisect.bisect_left(starts, section.char_end)
    bounds = [section.char_start] + [h.char_start for h in headings[lo:hi]] + [section.char_end]
    pieces: list[Section] = []
    for start, end in zip(bounds, bounds[1:]):
        if not doc.text[start:end].strip():
            continue
        k = bisect.bisect_right(starts, start) - 1
        own = headings[k] if k >= 0 and headings[k].char_start >= start else None
        body_start = own.char_end if own else start
        kind = section.type
        if not doc.text[body_start:end].strip():
            kind = "heading_only"
        elif kind == "heading_only":
            kind = "narrative"
        piece = cut_section(doc, section, start, end, kind, refs)
        pieces.append(_with_path(piece, _path_at(headings, starts, start)))
    return pieces


def cut_section(doc: DocumentText, section: Section, start: int, end: int, kind: str, refs: bool) -> Section:
    """``section`` cut to ``[start, end)`` of the text (blank edges trimmed), as ``kind``."""
    if (start, end) == (section.char_start, section.char_end) and kind == section.type:
        return section
    lead = len(doc.text[start:end]) - len(doc.text[start:end].lstrip())
    trail = len(doc.text[start:end]) - len(doc.text[start:end].rstrip())
    start, end = start + lead, end - trail
    text = join_pages(doc, start, end)
    text = text if refs else drop_internal_refs(text)
    first, last = doc.span_pages(start, end)
    return replace(
        section,
        type=kind,
        start_page=first,
        end_page=last,
        char_start=start,
        char_end=end,
        text=text,
        has_table=looks_tabular(text),
    )


def _merge(doc: DocumentText, sections: list[Section], refs: bool) -> list[Section]:
    """Neighbouring narrative pieces under the same path become one section (the rules cut
    them at what they took for headings)."""
    out: list[Section] = []
    for section in sections:
        prev = out[-1] if out else None
        mergeable = {"narrative", "heading_only"}
        guesses = prev and not prev.extra.get(PUT) and not section.extra.get(PUT)
        if (
            guesses
            and prev.type in mergeable
            and section.type in mergeable
            and prev.path == section.path
            and prev.path
        ):
            kind = "narrative" if "narrative" in {prev.type, section.type} else "heading_only"
            merged = cut_section(doc, prev, prev.char_start, section.char_end, kind, refs)
            out[-1] = _with_path(merged, prev.path)
        else:
            out.append(section)
    for section in out:
        section.heading = (
            section.path[-1] if section.path else section.heading if section.type == "toc" else None
        )
        section.parent_topic = section.path[-2] if len(section.path) >= 2 else None
    return out
