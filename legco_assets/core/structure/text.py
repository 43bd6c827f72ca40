"""Small text helpers the structure stage shares (the rules, the outline, annexes, the LLM
fallback) and chunking uses: a line's width as printed, a wrapped sentence joined, a line
that reads as a title, and a section's text out of the document (page breaks joined,
internal notes dropped).

Why a module of its own: every module that cuts or names sections measures and joins lines
the same way; here they do it one way, below the rules that find sections.
"""

from __future__ import annotations

import bisect

from .. import markers
from ..records import DocumentText

HEADING_MAX_WIDTH = 64  # display width (CJK = 2) of a heading line
QUOTE_MAX_LINES = 200  # a motion or resolution quoted in full runs to a few pages, not a paper


def display_width(text: str) -> int:
    """Width as printed: a CJK character counts twice, so one limit fits both scripts."""
    return len(text) + markers.cjk_count(text)


def wider_than(text: str, limit: int) -> bool:
    """``display_width(text) > limit``, without counting a line whose length alone says so
    (the structure rules ask it of every line of a paper; most are paragraphs, and many of
    the rest are short enough to fit even if every character were CJK)."""
    size = len(text)
    return size > limit or (2 * size > limit and display_width(text) > limit)


def join_wrapped(lines: list[str]) -> str:
    """Join a wrapped sentence: no space between CJK characters, one space otherwise."""
    out = ""
    for line in (ln.strip() for ln in lines):
        if not line:
            continue
        if out and not (markers.CJK_CHAR.match(out[-1]) and markers.CJK_CHAR.match(line[0])):
            out += " "
        out += line
    return out


def heading_like(text: str) -> bool:
    """A line short enough and bare enough (no sentence or clause punctuation) to be a title."""
    s = text.strip()
    if not s or wider_than(s, HEADING_MAX_WIDTH) or markers.CJK_CLAUSE_PUNCT.search(s):
        return False
    return not (markers.SENTENCE_END.search(s) or markers.CLAUSE_END.search(s))


def bare_topic_like(text: str) -> bool:
    """A stand-alone topic line: title-like, starting with a capital or CJK, no list marker."""
    s = text.strip()
    if not heading_like(s) or wider_than(s, 48) or len(s.split()) > 8 or ": " in s:
        return False
    if markers.BULLET.match(s) or markers.NUMBERED_ITEM.match(s) or s[0].isdigit():
        return False
    return s[0].isupper() or bool(markers.CJK_CHAR.match(s[0])) and s[0] not in "（「『【〔"


def join_pages(doc: DocumentText, start: int, end: int) -> str:
    """``doc.text[start:end]`` with page separators reduced to one newline, stripped.

    Cleaned pages are joined with ``"\\n\\n"``; inside a section that blank line is a page
    break, not a paragraph break, so the answer reads on as one text.
    """
    parts: list[str] = []
    pos = start
    k = bisect.bisect_right(doc.page_starts, start)
    while k < len(doc.page_starts) and doc.page_starts[k] <= end:
        separator = doc.page_starts[k] - len(doc.separator)
        if separator > pos:
            parts.append(doc.text[pos:separator])
        pos = max(pos, doc.page_starts[k])
        k += 1
    parts.append(doc.text[pos:end])
    return "\n".join(p.strip("\n") for p in parts if p.strip()).strip()


def internal_note_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each ``[內部參考…]`` / ``[Internal reference…]`` note in ``text``,
    brackets included; ``[如被追問…]`` is none.

    A note runs to its closing bracket, or to the end of its paragraph when the bracket is
    missing. One definition of where a note lies, so that dropping notes (an operator's
    ``QA_INCLUDE_INTERNAL_REFS=0``), recording them on a chunk and withholding them in the
    service all agree."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for match in markers.INTERNAL_REF.finditer(text):
        if match.start() < pos:
            continue
        close = markers.BRACKET_CLOSE.search(text, match.end())
        paragraph_end = text.find("\n\n", match.end())
        paragraph_end = len(text) if paragraph_end < 0 else paragraph_end
        end = close.end() if close and close.start() < paragraph_end else paragraph_end
        spans.append((match.start(), end))
        pos = end
    return spans


def drop_internal_refs(text: str) -> str:
    """Remove ``[內部參考…]`` / ``[Internal reference…]`` notes (:func:`internal_note_spans`);
    ``[如被追問…]`` stays. A note on lines of its own takes its line break with it."""
    out: list[str] = []
    pos = 0
    for start, end in internal_note_spans(text):
        own_line = start == 0 or text[start - 1] == "\n"
        if own_line and text[end : end + 1] == "\n":
            end += 1
        out.append(text[pos:start])
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out).strip()


_BRACKETS = ("《》", "〈〉", "()", "（）", "「」", "『』", "[]")


def leaves_bracket_open(text: str) -> bool:
    """A line that opens a bracket it does not close (``(1) 《2013年證券及期貨…(修訂)規`` with
    ``則》；及`` below): a sentence wrapping on, which a title never does at its end."""
    return any(text.count(pair[0]) > text.count(pair[1]) for pair in _BRACKETS)


def quoted_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines inside a quotation that runs over several lines, the line that
    opens it and the one that closes it included.

    Why: a Hansard quotes the motion it debates in full (``“鑒於…；建議的措施包括：`` …
    ``(五) 為雙職父母提供…`` … ``…空間。”``), and a resolution its schedule (``附表``). Their
    numbered items and titles are the motion's words, not the record's headings; taken as
    headings, every speech after the motion fell under its fifth item. Only the curly quotes
    (“ ”), whose two ends differ, are followed; a quotation not closed within
    :data:`QUOTE_MAX_LINES` lines is taken for a stray mark and ignored."""
    inside: set[int] = set()
    i = 0
    while i < len(lines):
        depth = lines[i].count("“") - lines[i].count("”")
        k = i
        while depth > 0 and k + 1 < len(lines) and k - i < QUOTE_MAX_LINES:
            k += 1
            depth += lines[k].count("“") - lines[k].count("”")
        if depth <= 0 and k > i:
            inside.update(range(i, k + 1))
            i = k + 1
        else:
            i += 1
    return inside
