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

Where the paper gives headings this way, they replace the rules' narrative headings: the
narrative between two headings is one section whatever the rules split it into, titles
broken over lines are joined, and each heading is nested under the last heading of an outer
rank (a stack, so the paper's order decides the parent). Q&A pairs keep the rules' topic
heading under the outline's path. Where it gives none (plain text), the rules' level-1
heading and topic make the path.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from .. import markers
from ..records import DocumentText, Page, Section
from .answered import PUT

TOPIC_OPENING = 12  # characters of a rules topic looked for in the text (within its first line)
MAX_TITLE_LINES = 3  # a title wraps onto at most this many lines
TOC_MAX_ENTRY_LINES = 4  # a contents entry wraps onto at most this many lines
_NOT_KEY = re.compile(r"[\s:：︰.．·…_\-–—,，、()（）]+")


@lru_cache(maxsize=8192)
def key(text: str) -> str:
    """A title as compared: look-alike code points mapped as the cleaner maps them (hints
    are read before cleaning), case, spaces and punctuation that layouts change dropped."""
    from ..read import normalise_chars

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


@dataclass(frozen=True)
class TocEntry:
    """One title of the paper's table of contents and the page or paragraph numbers it gives."""

    title: str
    first: int | None
    last: int | None


# -- the table of contents --------------------------------------------------------------------
def toc_entries(sections: list[Section]) -> list[TocEntry]:
    """Titles listed by the paper's table(s) of contents, wrapped titles joined.

    An entry ends at the line that carries its page or paragraph reference; a title line
    without one is joined with the next (a title broken over lines), unless the next one
    opens another chapter or appendix (a chapter listed only for its sub-entries).
    """
    entries: list[TocEntry] = []
    for section in sections:
        if section.type != "toc":
            continue
        pending: list[str] = []
        for line in (ln.strip() for ln in section.text.split("\n")[1:]):
            if not line:
                continue
            if pending and (_opens_entry(line) or len(pending) >= TOC_MAX_ENTRY_LINES):
                entries.append(TocEntry(_join(pending), None, None))
                pending = []
            m = markers.TOC_ENTRY_REF.search(line)
            title = line[: m.start()].strip() if m else line
            if m and (title or pending):
                last = m["last"]
                entries.append(TocEntry(_join(pending + [title]), int(m["first"]), int(last) if last else None))
                pending = []
            elif title:
                pending.append(title)
        if pending:
            entries.append(TocEntry(_join(pending), None, None))
    return [e for e in entries if e.title and not markers.TOC_TITLE.match(e.title)]


def absorb_toc_tail(sections: list[Section]) -> list[Section]:
    """Entries of a contents list that the rules cut off (titles wrapped onto lines without
    leaders): narrative right after a contents list, on its last page, whose lines end with
    page numbers, is more of the list."""
    out: list[Section] = []
    for section in sections:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.type == "toc"
            and section.type in {"narrative", "heading_only", "table"}
            and section.start_page == section.end_page == prev.end_page
            and markers.TOC_ENTRY_REF.search(section.text.rstrip().rsplit("\n", 1)[-1])
        ):
            prev.text = f"{prev.text}\n{section.text}"
            prev.char_end = section.char_end
            continue
        out.append(section)
    return out


def _opens_entry(line: str) -> bool:
    return bool(markers.CHAPTER_HEADING.match(line) or markers.ANNEX_HEADING.match(line))


def _join(lines: list[str]) -> str:
    from .text import join_wrapped

    return join_wrapped(lines)


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


def _hinted(doc: DocumentText, pages: list[Page], skip: list[tuple[int, int]]) -> dict[int, tuple[list[_Line], list[tuple[_Line, int]]]]:
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
        from .text import display_width

        return display_width(prev) >= WRAPPED_WIDTH  # Chinese breaks anywhere: a long line wrapped
    return line[:1].islower()  # an English title carries on in lower case (``… of the`` / ``Ordinance``)


def _bare_label(text: str) -> bool:
    """``Chapter 2``, ``第二章``, ``附錄二`` alone on a line: its title is on the next line."""
    from .text import display_width

    chapter = markers.CHAPTER_HEADING.match(text)
    if chapter:
        return not text[chapter.end() :].strip(" :：︰")
    return bool(markers.ANNEX_HEADING.match(text)) and display_width(text) <= 12 and len(text.split()) <= 2


def _labelled(text: str) -> bool:
    """A line that opens a title of its own (``(I) …``, ``Chapter 3 …``, ``一、…``)."""
    return bool(markers.TOPIC_HEADING.match(text) or markers.CHAPTER_HEADING.match(text) or markers.ANNEX_HEADING.match(text))


def _titles(hinted: dict[int, tuple[list[_Line], list[tuple[_Line, int]]]], toc_keys: list[str]) -> list[Heading]:
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
    from ..read import starts_lower
    from .text import join_wrapped

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
        runs_on = nxt is not None and nxt.index not in named and starts_lower(nxt.text) and not asks
        if starts_lower(first.text) or runs_on:
            continue
        text = join_wrapped([line.text for line, _ in group])
        headings.append(Heading(text, min(r for _, r in group), first.page, first.start, last.end, "typography"))
    return headings


def _from_toc(doc: DocumentText, entries: list[TocEntry], known: list[Heading], skip: list[tuple[int, int]]) -> list[Heading]:
    """Body lines (one, or a title wrapped onto up to three) that print a contents entry,
    in a paper whose typography does not already mark the listed titles (where it does, a
    listed title found in body type is a table cell or a cross-reference, not a heading).
    They are one level: the outermost."""
    from .text import heading_like

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
                out.append(Heading(_join([g.text for g in group]), 1, line.page, line.start, group[-1].end, "toc"))
                k += width - 1
                break
            if joined not in prefixes:
                break
        k += 1
    return out


def nest(headings: list[Heading]) -> list[Heading]:
    """Level and path of each heading: under the last heading of an outer rank before it."""
    stack: list[Heading] = []
    for heading in headings:
        while stack and stack[-1].rank >= heading.rank:
            stack.pop()
        stack.append(heading)
        heading.level = len(stack)
        heading.path = tuple(h.text for h in stack)
    return headings


def find_headings(doc: DocumentText, pages: list[Page], sections: list[Section]) -> list[Heading]:
    """The outline's headings in document order, nested (empty when the paper gives none)."""
    skip = _excluded(doc, sections)
    entries = toc_entries(sections)
    typographic = _listed_outermost(_titles(_hinted(doc, pages, skip), [key(e.title) for e in entries]), entries)
    listed = _from_toc(doc, entries, typographic, skip)
    found = typographic + listed
    if found:
        found += _part_markers(doc, sections, found)
        found += _numbered_parts(doc, sections, found)
    return nest(sorted(found, key=lambda h: h.char_start))


def _label(text: str) -> tuple[str, int] | None:
    """Style and value of a heading's ``X.`` label (``III. Bills`` -> roman 3, ``B. Scope`` ->
    letter 2), as the rules read topic labels."""
    from .ordinals import label_value

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
    if len({_roman(h.text) for h in numbered}) < 2 or any((_label(h.text) or ("",))[0] == "letter" for h in known):
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
        value = _roman(first_line) if (section.heading or "").startswith(first_line) else None  # the rules' own topic line
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
    under the listed title before it."""
    listed = {key(e.title) for e in entries}
    ranks = [h.rank for h in headings if key(h.text) in listed]
    if len(ranks) < 3:
        return headings
    top = min(ranks)
    first = min(h.char_start for h in headings if key(h.text) in listed)
    for heading in headings:
        if heading.rank <= top and heading.char_start > first and key(heading.text) not in listed:
            heading.rank = top + 0.5
    return headings


# -- sections with paths ----------------------------------------------------------------------
def rule_path(section: Section) -> list[str]:
    """The path the rules alone give: level-1 heading, then topic (sections written before
    paths existed, and papers without heading hints or contents)."""
    if section.path:
        return list(section.path)
    return list(dict.fromkeys(h for h in (section.parent_topic, section.heading) if h))


def apply_outline(
    doc: DocumentText, sections: list[Section], pages: list[Page], include_internal_refs: bool = True
) -> tuple[list[Section], list[Heading]]:
    """Sections re-cut at the outline's headings, each with its ``path`` and ``level``.

    Narrative is cut at every heading and the rules' narrative cuts between two headings
    are undone (their headings were guesses); Q&A pairs, speaking notes and tables keep
    their spans. Without an outline, every section gets :func:`rule_path`.
    """
    sections = _end_answers(doc, absorb_toc_tail(sections), [], break_starts(doc, pages), include_internal_refs)
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
            path = [p for p in _path_at(headings, starts, section.char_start) if not markers.QUESTION_END.search(p)]
            if section.heading and not _named_by(section.heading, path) and _below(doc, section, starts):
                path = path + [section.heading]
            out.append(_with_path(section, path))
        else:
            out.extend(_cut(doc, section, headings, starts, include_internal_refs))
    return _merge(doc, out, include_internal_refs), headings


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


def _end_answers(doc: DocumentText, sections: list[Section], headings: list[int], breaks: list[int], refs: bool) -> list[Section]:
    """Answers end at a break inside them (the list, box or table that held the questions
    closed, a category row of an FAQ table), and the last pair's answer also at a heading:
    after the last answer a heading starts what follows the Q&A (``Related links``,
    ``Enquiries``, a colophon), which the rules, reading lines, run into the answer. What
    follows the end is narrative."""
    last = next((n for n in range(len(sections) - 1, -1, -1) if sections[n].type == "qa"), None)
    out: list[Section] = []
    for n, section in enumerate(sections):
        cuts = sorted(breaks + headings + closing_lines(doc, section)) if n == last else breaks
        out.extend(_ended(doc, section, cuts, refs) if section.type == "qa" and section.answer_start is not None else [section])
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
    from .text import drop_internal_refs

    answer = doc.text[pair.answer_start : answered.char_end].strip()
    answered.answer = answer if refs else drop_internal_refs(answer)
    after = cut_section(doc, replace(pair, type="narrative", qa_id=None, question=None, answer=None, answer_start=None), cut, pair.char_end, "narrative", refs)
    return [answered, after]


def _below(doc: DocumentText, section: Section, starts: list[int]) -> bool:
    """The rules' topic of a pair is printed after the outline's last heading above the pair
    (a topic line under that heading), not before it (a topic an outline heading has since
    replaced: an FAQ table's next category row)."""
    k = bisect.bisect_right(starts, section.char_start) - 1
    if k < 0 or not section.heading:
        return True
    opening = section.heading[:TOPIC_OPENING]  # a wrapped topic is joined with a space where the text breaks the line
    return doc.text.rfind(opening, 0, section.char_start + len(opening)) >= starts[k]  # a put question opens with it


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


def _cut(doc: DocumentText, section: Section, headings: list[Heading], starts: list[int], refs: bool) -> list[Section]:
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
    from .tabular import looks_tabular
    from .text import drop_internal_refs, join_pages

    if (start, end) == (section.char_start, section.char_end) and kind == section.type:
        return section
    lead = len(doc.text[start:end]) - len(doc.text[start:end].lstrip())
    trail = len(doc.text[start:end]) - len(doc.text[start:end].rstrip())
    start, end = start + lead, end - trail
    text = join_pages(doc, start, end)
    text = text if refs else drop_internal_refs(text)
    first, last = doc.span_pages(start, end)
    return replace(section, type=kind, start_page=first, end_page=last, char_start=start, char_end=end, text=text, has_table=looks_tabular(text))


def _merge(doc: DocumentText, sections: list[Section], refs: bool) -> list[Section]:
    """Neighbouring narrative pieces under the same path become one section (the rules cut
    them at what they took for headings)."""
    out: list[Section] = []
    for section in sections:
        prev = out[-1] if out else None
        mergeable = {"narrative", "heading_only"}
        guesses = prev and not prev.extra.get(PUT) and not section.extra.get(PUT)
        if guesses and prev.type in mergeable and section.type in mergeable and prev.path == section.path and prev.path:
            kind = "narrative" if "narrative" in {prev.type, section.type} else "heading_only"
            merged = cut_section(doc, prev, prev.char_start, section.char_end, kind, refs)
            out[-1] = _with_path(merged, prev.path)
        else:
            out.append(section)
    for section in out:
        section.heading = section.path[-1] if section.path else section.heading if section.type == "toc" else None
        section.parent_topic = section.path[-2] if len(section.path) >= 2 else None
    return out


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
                {"heading": path[depth], "level": depth + 1, "parent": path[depth - 1] if depth else None, "page": section.start_page}
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
        page_start = doc.page_starts[min(section.start_page, len(doc.page_starts)) - 1] if doc.page_starts else 0
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
        if found < 0 or found == 0 or text[found - 1] == "\n" or not text[text.rfind("\n", 0, found) + 1 : found].strip():
            return found
        pos = found + 1


def path_at(starts: list[tuple[int, list[str]]], offset: int) -> list[str]:
    k = bisect.bisect_right([s for s, _ in starts], offset) - 1
    return list(starts[k][1]) if k >= 0 else []
