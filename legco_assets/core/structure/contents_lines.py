"""A contents list known by what it is, whatever its numbers look like: consecutive lines near
the start of a paper that repeat the paper's own headings, each followed by a page number, a
range of paragraphs (``(一) 前言 1–9``), leaders or nothing.

Why: a contents list was known by its title (``目錄``/``Contents``) or its leader dots. A
Policy Address lists its chapters with the paragraphs they hold and no leaders, under a title
line that also carries the column's name (``目錄 段落``), so neither rule saw it, and each
listed heading became a one-line chunk competing with the real section in search. What every
contents list shares is that its titles come back as the body's headings, each a line of its
own further on; a run of such lines is the list, the form of the numbers after them aside.
"""

from __future__ import annotations

from .. import markers
from ..records import DocumentText, Section

CONTENTS_MIN_LINES = 3  # fewer listed headings in a row are not a list (a title page, a cross-reference)
CONTENTS_MAX_TITLE = 60  # characters: a listed heading is a title, never a paragraph


def _key(line: str) -> str:
    return "".join(line.split())


def listed_title(line: str) -> str:
    """The title a contents line lists: the line without its page or paragraph reference."""
    m = markers.TOC_ENTRY_REF.search(line)
    return line[: m.start()].strip() if m else line.strip()


class ContentsLines:
    """Where each line of a paper last occurs as a whole line (whitespace aside), so a run of
    lines can be asked whether each comes back further on."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._titles: dict[int, str] = {}  # line -> its listed title, read once
        self.last: dict[str, int] = {}
        for k, line in enumerate(lines):
            if line and len(line) <= CONTENTS_MAX_TITLE:
                self.last[_key(line)] = k

    def _title(self, k: int) -> str:
        if k not in self._titles:
            self._titles[k] = listed_title(self.lines[k])
        return self._titles[k]

    def _repeated_after(self, k: int, after: int) -> bool:
        title = self._title(k)
        return bool(title) and len(title) <= CONTENTS_MAX_TITLE and self.last.get(_key(title), -1) > after

    def end(self, i: int, limit: int) -> int:
        """End (exclusive) of a contents list starting at line ``i``, or 0: at least
        ``CONTENTS_MIN_LINES`` non-blank lines in a row (blank lines between them allowed) whose
        titles each come back as a line of their own after the whole run, at least half of
        them with a reference after the title (a page, a paragraph range: the form of the
        numbers aside). Lines that merely repeat (a table's header row, a running header in a
        text file) give no reference. ``limit``: lines past it are not read."""
        run: list[int] = []
        k = i
        while k < min(limit, len(self.lines)):
            if self.lines[k]:
                if not self._repeated_after(k, k):
                    break
                run.append(k)
            k += 1
        while len(run) >= CONTENTS_MIN_LINES and not all(self._repeated_after(j, run[-1]) for j in run):
            run.pop()  # a title that comes back only inside the run is not listed
        if len(run) < CONTENTS_MIN_LINES:
            return 0
        referenced = sum(1 for j in run if self._title(j) != self.lines[j].strip())  # a reference cut off
        return run[-1] + 1 if referenced * 2 >= len(run) else 0


def contents_only_pages(sections: list[Section]) -> list[int]:
    """Pages that hold a contents list and nothing else that is chunked: no strategy's chunk
    is expected there (the token strategy leaves contents lists out too)."""
    listed: set[int] = set()
    other: set[int] = set()
    for section in sections:
        pages = range(section.start_page, section.end_page + 1)
        (listed if section.type == "toc" else other).update(pages)
    return sorted(listed - other)


def contents_spans(doc: DocumentText, sections: list[Section]) -> list[tuple[int, int]]:
    """Spans of ``doc.text`` that print a contents list's lines (each line with its line
    break; neighbours separated by blank lines only are one span), for the token strategy,
    which windows the text rather than sections: a contents line in a window competes in
    search with the section it lists. Lines are looked for only on the pages their list
    spans, so the rest of such a page (a cover's title above the list) stays; the text is
    not changed, so chunks' ``char_start``/``char_end`` still index the paper's whole text."""
    lines_by_page: dict[int, set[str]] = {}
    for section in sections:
        if section.type != "toc":
            continue
        lines = {ln.strip() for ln in section.text.split("\n") if ln.strip()}
        for number in range(section.start_page, section.end_page + 1):
            lines_by_page.setdefault(number, set()).update(lines)
    spans: list[tuple[int, int]] = []
    starts = doc.page_starts
    for number in sorted(n for n in lines_by_page if 1 <= n <= len(starts)):
        pos = starts[number - 1]
        end = starts[number] if number < len(starts) else len(doc.text)
        for line in doc.text[pos:end].split("\n"):
            if line.strip() and line.strip() in lines_by_page[number]:
                spans.append((pos, min(pos + len(line) + 1, len(doc.text))))
            pos += len(line) + 1
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and not doc.text[merged[-1][1] : start].strip():
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged
