"""The paper's outline: its headings with their level and parent, and a section path for
every section (``["Chapter 2 Liability …", "Injury by Accident"]``, outermost first).

Why a module of its own: :mod:`structure` finds Q&A pairs, topics and speaking notes from the
text alone, and from text alone a short numbered paragraph (``10. 在政府推出…``) or a list item
(``(三) 寬減…``) looks like a title. The paper says more than its text:

* the reader's heading hints (:attr:`Page.headings`): lines the typography sets apart
  (:mod:`headings`: PDF font size and weight), DOCX heading styles, Markdown ``#``, HTML
  ``h1``-``h6``; each with a rank (1 = outermost style);
* its own table of contents: the titles it lists are headings wherever the body prints them,
  even in body type.

Where the paper gives headings this way, titles broken over lines are joined, and each
heading is nested under the last heading of an outer rank (a stack, so the paper's order
decides the parent). The contents list is read in :mod:`toc`; the sections are re-cut at
the headings, each with its path, in :mod:`recut`.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import markers
from ..read import normalise_chars, starts_lower
from ..records import DocumentText, Page, Section
from .ordinals import label_value
from .text import display_width, heading_like, join_wrapped
from .toc import TocEntry, toc_entries

MAX_TITLE_LINES = 3  # a title wraps onto at most this many lines
_NOT_KEY = re.compile(r"[\s:：︰.．·…_\-–—,，、()（）]+")


@lru_cache(maxsize=8192)
def key(text: str) -> str:
    """A title as compared: look-alike code points mapped as the cleaner maps them (hints
    are read before cleaning), case, spaces and punctuation that layouts change dropped."""
    return _NOT_KEY.sub("", normalise_chars(text)).casefold()


@dataclass
class Heading:
    """One heading of the outline, where the body prints it."""

    text: str
    rank: float  # style rank (1 = outermost); nesting follows ranks
    page: int
    char_start: int  # span of its line(s) in DocumentText.text
    char_end: int
    source: str  # typography | toc
    level: int = 0  # depth in the outline, filled by :func:`nest`
    path: tuple[str, ...] = ()


# -- locating headings in the body ------------------------------------------------------------
@dataclass
class _Line:
    text: str
    start: int
    end: int
    page: int
    index: int  # position among the document's lines


def _page_lines(doc: DocumentText, number: int) -> list[_Line]:
    """Non-blank lines of one page, with their span in ``doc.text``; ``index`` counts the
    page's lines (titles never wrap across a page)."""
    start = doc.page_starts[number - 1]
    end = doc.page_starts[number] - len(doc.separator) if number < len(doc.page_starts) else len(doc.text)
    out: list[_Line] = []
    pos = start
    for text in doc.text[start:end].split("\n"):
        stripped = text.strip()
        if stripped:
            out.append(_Line(stripped, pos, pos + len(text.rstrip()), number, len(out)))
        pos += len(text) + 1
    return out


def _excluded(doc: DocumentText, sections: list[Section]) -> list[tuple[int, int]]:
    """Spans where a heading is not looked for: the pages of a contents list and Q&A pairs
    (a pair's question is often bold; its topic heading comes from the rules), but for the
    last pair's answer after its first line, where a heading ends the Q&A
    (:func:`_end_answers`)."""
    spans = []
    qa = [s for s in sections if s.type == "qa"]
    for s in sections:
        if s.type == "toc":
            end = doc.page_starts[s.end_page] if s.end_page < len(doc.page_starts) else len(doc.text)
            spans.append((doc.page_starts[s.start_page - 1], end))
        elif s.type == "qa" and s is qa[-1] and s.answer_start is not None:
            first_line = doc.text.find("\n", s.answer_start, s.char_end)
            spans.append((s.char_start, s.char_end if first_line < 0 else first_line))
        elif s.type == "qa":
            spans.append((s.char_start, s.char_end))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    k = bisect.bisect_right(spans, (offset, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= offset < spans[k][1]


def _hinted(
    doc: DocumentText, pages: list[Page], skip: list[tuple[int, int]]
) -> dict[int, tuple[list[_Line], list[tuple[_Line, int]]]]:
    """Per page with hints: its lines, and the lines a reader's heading hint names with the
    hint's rank, in order."""
    by_page: dict[int, tuple[list[_Line], list[tuple[_Line, int]]]] = {}
    for page in pages:
        if not page.headings or page.number > len(doc.page_starts):
            continue
        candidates = _page_lines(doc, page.number)
        keys = [key(line.text) for line in candidates]
        found: list[tuple[_Line, int]] = []
        by_page[page.number] = (candidates, found)
        cursor = 0
        for hint in page.headings:
            text, rank = str(hint[0]), int(hint[1])
            if markers.CONTINUED.search(text):
                continue  # ``Appendix 1 (Cont’d)`` atop a page: the section above goes on
            target = key(text)
            for k in range(cursor, len(candidates)):
                if target and keys[k] == target:
                    if not _inside(skip, candidates[k].start):
                        found.append((candidates[k], rank))
                    cursor = k + 1
                    break
    return by_page


WRAPPED_WIDTH = 40  # display width of a title line long enough to have wrapped


def _wraps(prev: str, line: str, toc_keys: list[str]) -> bool:
    """Whether ``line`` carries on the title ``prev`` (both set the same way): the contents
    list joins them, or ``prev`` breaks mid-phrase (a connecting word, a long Chinese line,
    an English line the next one carries on in lower case), in the same case."""
    joined = key(prev) + key(line)
    if any(k.startswith(joined) for k in toc_keys):
        return True
    if prev.isupper() != line.isupper():
        return False
    if markers.TITLE_BREAK.search(prev):
        return True
    if markers.CJK_CHAR.match(prev[-1:]) and markers.CJK_CHAR.match(line[:1]):
        return display_width(prev) >= WRAPPED_WIDTH  # Chinese breaks anywhere: a long line wrapped
    return line[:1].islower()  # an English title carries on in lower case (``… of the`` / ``Ordinance``)


def _bare_label(text: str) -> bool:
    """``Chapter 2``, ``第二章``, ``附錄二`` alone on a line: its title is on the next line."""
    chapter = markers.CHAPTER_HEADING.match(text)
    if chapter:
        return not text[chapter.end() :].strip(" :：︰")
    return bool(markers.ANNEX_HEADING.match(text)) and display_width(text) <= 12 and len(text.split()) <= 2


def _labelled(text: str) -> bool:
    """A line that opens a title of its own (``(I) …``, ``Chapter 3 …``, ``一、…``)."""
    return bool(
        markers.TOPIC_HEADING.match(text)
        or markers.CHAPTER_HEADING.match(text)
        or markers.ANNEX_HEADING.match(text)
    )


def _titles(
    hinted: dict[int, tuple[list[_Line], list[tuple[_Line, int]]]], toc_keys: list[str]
) -> list[Heading]:
    """Hinted lines joined into titles, page by page (a title never wraps across a page)."""
    headings: list[Heading] = []
    for number in sorted(hinted):
        lines, found = hinted[number]
        headings.extend(_page_titles(lines, found, toc_keys))
    return headings


def _page_titles(lines: list[_Line], found: list[tuple[_Line, int]], toc_keys: list[str]) -> list[Heading]:
    """One page's titles: a title wraps onto the next line set the same way (:func:`_wraps`),
    or follows a bare label (``Chapter 2`` / ``Liability for …``).

    Not titles: a group that starts mid-sentence, or that runs on into a body line starting
    mid-sentence (a bold list item or numbered paragraph whose prose goes on)."""
    named = {line.index for line, _ in found}
    headings: list[Heading] = []
    groups: list[list[tuple[_Line, int]]] = []
    for line, rank in found:
        group = groups[-1] if groups else None
        if group:
            prev, prev_rank = group[-1]
            wraps = line.index == prev.index + 1 and len(group) < MAX_TITLE_LINES
            label = len(group) == 1 and _bare_label(prev.text) and not _labelled(line.text)
            text = join_wrapped([g.text for g, _ in group])
            if wraps and (label or rank == prev_rank and _wraps(text, line.text, toc_keys)):
                group.append((line, rank))
                continue
        groups.append([(line, rank)])
    for group in groups:
        first, last = group[0][0], group[-1][0]
        nxt = lines[last.index + 1] if last.index + 1 < len(lines) else None
        asks = bool(markers.QUESTION_END.search(last.text))  # a question is whole: its answer starts anew
        runs_on = (
            nxt is not None
            and nxt.index not in named
            and starts_lower(nxt.text)
            and not asks
            and not markers.UNIT_NOTE.match(nxt.text)  # a table's title over its ``($ billion)`` line
        )
        if starts_lower(first.text) or runs_on:
            continue
        text = join_wrapped([line.text for line, _ in group])
        headings.append(
            Heading(text, min(r for _, r in group), first.page, first.start, last.end, "typography")
        )
    return headings


def _from_toc(
    doc: DocumentText, entries: list[TocEntry], known: list[Heading], skip: list[tuple[int, int]]
) -> list[Heading]:
    """Body lines (one, or a title wrapped onto up to three) that print a contents entry,
    in a paper whose typography does not already mark the listed titles (where it does, a
    listed title found in body type is a table cell or a cross-reference, not a heading).
    They are one level: the outermost."""
    wanted = {key(e.title) for e in entries if len(key(e.title)) >= 2}
    if not wanted or any(key(h.text) in wanted for h in known):
        return []
    prefixes = {w[:n] for w in wanted for n in range(1, len(w) + 1)}
    lines = [line for number in range(1, len(doc.page_starts) + 1) for line in _page_lines(doc, number)]
    keys = [key(line.text) for line in lines]
    out: list[Heading] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if _inside(skip, line.start) or not heading_like(line.text):
            k += 1
            continue
        joined = ""
        for width in range(1, MAX_TITLE_LINES + 1):
            if k + width > len(lines) or lines[k + width - 1].page != line.page:
                break
            joined += keys[k + width - 1]
            if joined in wanted:
                group = lines[k : k + width]
                out.append(
                    Heading(
                        join_wrapped([g.text for g in group]), 1, line.page, line.start, group[-1].end, "toc"
                    )
                )
                k += width - 1
                break
            if joined not in prefixes:
                break
        k += 1
    return out


def nest(headings: list[Heading]) -> list[Heading]:
    """Level and path of each heading: under the last heading of an outer rank before it.

    A note's heading (``IMPORTANT NOTE``, ``Note:``: :data:`markers.NOTE_HEADING`) heads no
    one: a note is an aside, boxed or set apart, and the heading after it goes on the
    section the note interrupted, though a guide may print the note's title in a larger type
    than its subsections (``IMPORTANT NOTE`` took ``Medical Expenses`` and the rest of the
    chapter as its children)."""
    stack: list[Heading] = []
    for heading in headings:
        while stack and (stack[-1].rank >= heading.rank or markers.NOTE_HEADING.match(stack[-1].text)):
            stack.pop()
        stack.append(heading)
        heading.level = len(stack)
        heading.path = tuple(h.text for h in stack)
    return headings


def find_headings(doc: DocumentText, pages: list[Page], sections: list[Section]) -> list[Heading]:
    """The outline's headings in document order, nested (empty when the paper gives none)."""
    skip = _excluded(doc, sections)
    entries = toc_entries(sections)
    typographic = _listed_outermost(
        _titles(_hinted(doc, pages, skip), [key(e.title) for e in entries]), entries
    )
    listed = _from_toc(doc, entries, typographic, skip)
    found = typographic + listed
    if found:
        found += _part_markers(doc, sections, found)
        found += _numbered_parts(doc, sections, found)
    return nest(sorted(found, key=lambda h: h.char_start))


def _label(text: str) -> tuple[str, int] | None:
    """Style and value of a heading's ``X.`` label (``III. Bills`` -> roman 3, ``B. Scope`` ->
    letter 2), as the rules read topic labels."""
    m = markers.TOPIC_HEADING.match(text)
    return label_value(m["letter"]) if m and m["letter"] else None


def _roman(text: str) -> int | None:
    label = _label(text)
    return label[1] if label and label[0] == "roman" else None


def _numbered_parts(doc: DocumentText, sections: list[Section], known: list[Heading]) -> list[Heading]:
    """A paper's parts numbered ``I.``, ``II.``, ``III.``… (a Council agenda's items): when the
    typography sets at least two of them like the headings under them, the numbered ones go
    above those headings, and a part the typography missed (``II. Questions`` at a page's
    foot) but the rules read, in the run of numbers, is added beside them."""
    numbered = [h for h in known if _roman(h.text)]
    if len({_roman(h.text) for h in numbered}) < 2 or any(
        (_label(h.text) or ("",))[0] == "letter" for h in known
    ):
        return []  # ``I.`` and ``V.`` among ``A.``, ``B.``… are letters
    rank = min(h.rank for h in numbered)
    for heading in numbered:
        heading.rank = rank - 0.5
    values = {_roman(h.text) for h in numbered}
    taken = {h.char_start for h in known}
    low, high = min(values), max(values) + 1  # the part after the last one seen too
    out: list[Heading] = []
    for section in sections:
        first_line = section.text.split("\n", 1)[0].strip()
        value = (
            _roman(first_line) if (section.heading or "").startswith(first_line) else None
        )  # the rules' own topic line
        if value and low <= value <= high and value not in values and section.char_start not in taken:
            end = section.char_start + len(doc.text[section.char_start :].split("\n", 1)[0])
            out.append(Heading(first_line, rank - 0.5, section.start_page, section.char_start, end, "marker"))
            values.add(value)
    return out


_PART_MARKERS = (markers.SPEAKING_NOTES, markers.STANDBY_QA, markers.FAQ_TITLE, markers.HANSARD_BUSINESS)


def _part_markers(doc: DocumentText, sections: list[Section], known: list[Heading]) -> list[Heading]:
    """The parts of a LegCo paper the rules find by their fixed titles (``發言要點``,
    ``備用問答``, ``Frequently Asked Questions``, a hansard's ``MOTIONS``), however they are set:
    outermost, above the typography's headings (a standby Q&A's topics sit under it)."""
    top = min(h.rank for h in known)
    for heading in known:  # the typography found the part's title too: it is still a part
        if any(p.match(heading.text) for p in _PART_MARKERS):
            heading.rank = top - 0.5
    taken = {h.char_start for h in known}
    out: list[Heading] = []
    for section in sections:
        title = section.heading or ""
        if section.type in {"qa", "toc"} or not title or section.char_start in taken:
            continue
        first_line = section.text.split("\n", 1)[0].strip()
        if first_line == title and any(p.match(title) for p in _PART_MARKERS):
            end = section.char_start + len(doc.text[section.char_start :].split("\n", 1)[0])
            out.append(Heading(title, top - 0.5, section.start_page, section.char_start, end, "marker"))
    return out


def _listed_outermost(headings: list[Heading], entries: list[TocEntry]) -> list[Heading]:
    """The contents list decides the top of the outline: a heading set like the listed
    titles (or larger) but not listed itself (``Examples`` set as a chapter title) goes
    under the listed title before it. A part's bare label that opens a listed line (``Part
    I`` of the entry ``Part I Chapter 1 Application of the Ordinance``) is listed: the
    contents print the part and its first chapter on one line."""
    listed = {key(e.title) for e in entries}
    ranks = [h.rank for h in headings if key(h.text) in listed]
    if len(ranks) < 3:
        return headings
    top = min(ranks)
    first = min(h.char_start for h in headings if key(h.text) in listed)
    for heading in headings:
        if heading.rank <= top and heading.char_start > first and not _listed(heading.text, listed):
            heading.rank = top + 0.5
    return headings


def _listed(text: str, listed: set[str]) -> bool:
    """The contents list this heading: as an entry, or as the bare label opening one."""
    found = key(text)
    return found in listed or (_bare_label(text) and any(entry.startswith(found) for entry in listed))


# -- sections with paths ----------------------------------------------------------------------
def rule_path(section: Section) -> list[str]:
    """The path the rules alone give: level-1 heading, then topic (sections written before
    paths existed, and papers without heading hints or contents)."""
    if section.path:
        return list(section.path)
    return list(dict.fromkeys(h for h in (section.parent_topic, section.heading) if h))


def break_starts(doc: DocumentText, pages: list[Page]) -> list[int]:
    """Where each page's breaks (:attr:`Page.breaks`: the first line after a block of
    questions and answers) start in ``doc.text``, in order."""
    found: list[int] = []
    for page in pages:
        if not page.breaks or page.number > len(doc.page_starts):
            continue
        lines = _page_lines(doc, page.number)
        keys = [key(line.text) for line in lines]
        cursor = 0
        for text in page.breaks:
            target = key(str(text))
            k = next((k for k in range(cursor, len(lines)) if target and keys[k] == target), None)
            if k is not None:
                found.append(lines[k].start)
                cursor = k + 1
    return found


# -- the outline as a reader sees it ----------------------------------------------------------
def outline_of(sections: list[Section]) -> list[dict[str, Any]]:
    """Each heading once, in order, with its level, parent and first page (from the
    sections' paths), for ``structure.json`` and the Dagster UI."""
    chain: list[str] = []
    entries: list[dict[str, Any]] = []
    for section in sections:
        path = section.path
        if not path:
            continue
        same = 0
        while same < min(len(chain), len(path)) and chain[same] == path[same]:
            same += 1
        for depth in range(same, len(path)):
            entries.append(
                {
                    "heading": path[depth],
                    "level": depth + 1,
                    "parent": path[depth - 1] if depth else None,
                    "page": section.start_page,
                }
            )
        chain = list(path)
    return entries


def outline_markdown(entries: list[dict[str, Any]], limit: int = 300) -> str:
    """Indented headings with their pages, as Markdown."""
    if not entries:
        return "_no headings found_"
    lines = [f"{'  ' * (e['level'] - 1)}- {e['heading']} (p. {e['page']})" for e in entries[:limit]]
    if len(entries) > limit:
        lines.append(f"- … {len(entries) - limit} more")
    return "\n".join(lines)


# -- paths for chunks cut without sections (token windows) -------------------------------------
def path_starts(doc: DocumentText, sections: list[Section]) -> list[tuple[int, list[str]]]:
    """Where each section's path starts in ``doc`` (which may be another rendering of the
    same pages, e.g. with tables as Markdown): its first line, searched from its page on."""
    out: list[tuple[int, list[str]]] = []
    cursor = 0
    for section in sections:
        path = rule_path(section) if section.type != "toc" else []
        first_line = next((ln.strip() for ln in section.text.split("\n") if ln.strip()), "")[:80]
        page_start = (
            doc.page_starts[min(section.start_page, len(doc.page_starts)) - 1] if doc.page_starts else 0
        )
        origin = max(cursor, page_start)
        found = _line_at(doc.text, first_line, origin) if first_line else -1
        offset = found if found >= 0 else origin
        if out and out[-1][1] == path:
            cursor = offset
            continue
        out.append((offset, path))
        cursor = offset
    return out


def _line_at(text: str, line: str, origin: int) -> int:
    """Offset of the next line from ``origin`` that starts with ``line`` (a heading's words
    also occur inside sentences; only a line that starts with them is where it is printed)."""
    pos = origin
    while True:
        found = text.find(line, pos)
        if (
            found < 0
            or found == 0
            or text[found - 1] == "\n"
            or not text[text.rfind("\n", 0, found) + 1 : found].strip()
        ):
            return found
        pos = found + 1


def path_at(starts: list[tuple[int, list[str]]], offset: int) -> list[str]:
    k = bisect.bisect_right([s for s, _ in starts], offset) - 1
    return list(starts[k][1]) if k >= 0 else []
