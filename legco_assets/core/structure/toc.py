"""The paper's own table of contents: the titles it lists (wrapped titles joined) and the
page or paragraph numbers it gives them, and the entries of a contents list that the rules
cut off after it.

Why a module of its own: the titles a paper lists are headings wherever its body prints
them (:mod:`outline`); reading them out of the contents pages is a job of its own, done
once, below the outline that uses them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import markers
from ..records import Section
from .text import join_wrapped

TOC_MAX_ENTRY_LINES = 4  # a contents entry wraps onto at most this many lines


@dataclass(frozen=True)
class TocEntry:
    """One title of the paper's table of contents and the page or paragraph numbers it gives."""

    title: str
    first: int | None
    last: int | None


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
        lines = [ln.strip() for ln in section.text.split("\n")]
        # the first line is the list's title, unless it is an entry already (a list known
        # by its leaders or by the headings it lists has none: :mod:`contents_lines`)
        first = 0 if lines and markers.TOC_ENTRY_REF.search(lines[0]) else 1
        for line in lines[first:]:
            if not line:
                continue
            if pending and (_opens_entry(line) or len(pending) >= TOC_MAX_ENTRY_LINES):
                entries.append(TocEntry(join_wrapped(pending), None, None))
                pending = []
            m = markers.TOC_ENTRY_REF.search(line)
            title = line[: m.start()].strip() if m else line
            if m and (title or pending):
                last = m["last"]
                entries.append(
                    TocEntry(join_wrapped(pending + [title]), int(m["first"]), int(last) if last else None)
                )
                pending = []
            elif title:
                pending.append(title)
        if pending:
            entries.append(TocEntry(join_wrapped(pending), None, None))
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
