"""Turn raw page text into cleaned page text.

What is removed never carries meaning for retrieval and would otherwise leak into chunks:
page labels (``E-3``) and date lines under them, page numbers (``- 2 -``, two-up ``46 47``),
the ``(E)`` corner header of page 1, and running headers that repeat at the top or bottom of
most pages. Only the first and last few lines of a page are candidates, so a number or date
in the body is never touched. Also repaired: letter-spaced Chinese (``新 規 定``), the CJK
stroke ``㇐`` that some PDFs emit for ``一``, and Kangxi radicals that stand for ideographs.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .. import markers
from ..records import Page

EDGE_LINES = 3  # how many lines at each end of a page may be furniture
_CHAR_FIXES = str.maketrans({"\u31d0": "一", "\u31d1": "丨", "\u00ad": ""})
_COMPAT_RANGES = "\u2e80-\u2fdf\uf900-\ufaff"  # radicals, compatibility ideographs
_COMPAT_IDEOGRAPHS = re.compile(f"[{_COMPAT_RANGES}]")
# any code point normalise_chars changes: texts without one are left alone
_NEEDS_FIX = re.compile("[" + "".join(chr(k) for k in _CHAR_FIXES) + _COMPAT_RANGES + "]")
_CJK_PAREN_SPACE = re.compile(r"\(\s*([一二三四五六七八九十百]+)\s*\)")


def normalise_chars(text: str) -> str:
    """Map look-alike code points to the ideographs readers and tokenisers expect."""
    if not _NEEDS_FIX.search(text):
        return text  # most texts hold none: one scan, far cheaper than translating every char
    text = text.translate(_CHAR_FIXES)
    if _COMPAT_IDEOGRAPHS.search(text):
        text = _COMPAT_IDEOGRAPHS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return text


def normalise_chars_aligned(text: str) -> str:
    """:func:`normalise_chars` keeping one output char per input char, so offsets into the
    result are offsets into ``text`` (a char that would vanish becomes a space). Most texts
    have nothing to fix and come back as they are, without a per-char pass."""
    if not _NEEDS_FIX.search(text):
        return text
    out = []
    for ch in text:
        fixed = normalise_chars(ch)
        out.append(fixed[:1] if fixed else " ")
    return "".join(out)


def is_letter_spaced(text: str) -> bool:
    """True when most CJK characters on the page are followed by a single space."""
    if not markers.CJK_SPACED.search(text):
        return False  # none is: one scan instead of counting every CJK character
    cjk = markers.cjk_count(text)
    return cjk >= 10 and len(markers.CJK_SPACED.findall(text)) >= 0.3 * cjk


def join_letter_spacing(text: str) -> str:
    return markers.CJK_GAP.sub("", text)


# compiled once: the cleaning asks these of every line of every page
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")


def _squash(line: str) -> str:
    return _SPACES.sub("", line)


def is_furniture(line: str, page_number: int) -> bool:
    """A footer, header or page-number line, judged on the line alone."""
    s = line.strip()
    if not s:
        return False
    squashed = _squash(s)
    if markers.PAGE_LABEL.match(s) or markers.PAGE_DATE.match(s) or markers.PAGE_NUMBER.match(s):
        return True
    # footers printed letter-spaced, e.g. "2 0 9 / 2 0 2 5"
    if " " in s and (markers.PAGE_DATE.match(squashed) or re.fullmatch(r"\d{1,3}\d{1,2}/\d{4}", squashed)):
        return True
    return page_number == 1 and bool(markers.FIRST_PAGE_HEADER.match(s))


_KEY_EDGES = re.compile(r"^(?:[A-Z]?#)+|(?:[A-Z]?#)+$")  # page numbers and annex labels (A2) at either end


def _running_key(line: str) -> str:
    """Digits (page numbers, dates) are wildcards; page numbers and annex page labels may sit
    at either end (odd/even pages, ``… A1`` on annex pages)."""
    return _KEY_EDGES.sub("", _DIGITS.sub("#", _squash(line)))


def running_headers(pages: list[list[str]]) -> set[str]:
    """Lines (digits ignored) that sit at a page edge on at least half the pages (min 3)."""
    counts: Counter[str] = Counter()
    for lines in pages:
        body = [ln for ln in lines if ln.strip()]
        edge = body[:EDGE_LINES] + body[-EDGE_LINES:]
        counts.update({_running_key(ln) for ln in edge})
    threshold = max(3, (len(pages) + 1) // 2)
    return {key for key, n in counts.items() if n >= threshold and len(key) >= 2}


def _prints_page_number(line: str) -> bool:
    """A furniture line that shows the page number (``E-3``, ``- 2 -``, ``2 09/2025``)."""
    s = line.strip()
    squashed = _squash(s)
    if markers.PAGE_LABEL.match(s) or markers.PAGE_NUMBER.match(s):
        return True
    return bool(re.match(r"\d{1,4}\s+\S", s) and markers.PAGE_DATE.match(s)) or bool(
        re.fullmatch(r"\d{1,3}\d{1,2}/\d{4}", squashed)
    )


def _edge_length(lines: list[str], page_number: int, running: set[str]) -> int:
    """How many leading ``lines`` are furniture.

    A page prints its number once per edge, so once a line carrying the number has gone a
    later bare number (``3`` above a question, a table cell ``12``) is content, not a footer.
    """
    count = removed = 0
    number_seen = False
    for line in lines:
        if removed >= EDGE_LINES * 2:
            break
        if line.strip():
            bare_number = bool(markers.PAGE_NUMBER.match(line.strip()))
            if bare_number and number_seen:
                break
            if not (is_furniture(line, page_number) or _running_key(line) in running):
                break
            number_seen = number_seen or _prints_page_number(line)
            removed += 1
        count += 1
    return count


def _strip_edges(lines: list[str], page_number: int, running: set[str]) -> list[str]:
    """Drop furniture from both ends, stopping at the first line of real content."""
    start = _edge_length(lines, page_number, running)
    end = len(lines) - _edge_length(lines[start:][::-1], page_number, running)
    return lines[start:end]


# -- furniture learned from the paper: page numbers in sequence and the line beside them ---------
MIN_LEARNED_PAGES = 3  # a layout seen on fewer pages is not a layout
MAX_HEADER_CHARS = 40  # a running header is a title, never a paragraph
_BARE_NUMBER = re.compile(r"\d{1,4}")
# a header and the page number printed on one line, either way round ("二零二三年經濟回顧 4")
_NUMBER_FIRST = re.compile(r"(\d{1,4})\s+(\S.*)")
_NUMBER_LAST = re.compile(
    r"(.*?\S)\s+(?:[Pp]age\s+)?(\d{1,4})(?:\s*(?:of|/)\s*\d{1,4})?"
)  # ``… Page 3 of 12``


@dataclass(frozen=True)
class EdgeLayout:
    """What one page edge (top or bottom) prints, learned from the paper: a page number
    running in step with the pages (``offset`` = printed number - page index), alone on its
    line (``bare``) and, when the paper has one, with a running header beside it that follows
    the section (the chapter title at the top of each page): ``header_side`` +1 outside the
    number (above it at the top, below it at the bottom), -1 inside, 0 none; or printed on
    one line with such a header (``joined``)."""

    offset: int
    header_side: int = 0
    bare: bool = True
    joined: bool = False


@dataclass(frozen=True)
class Furniture:
    """A paper's own page furniture: the learned edge layouts and every header line they
    printed (squashed), plus the lines repeated at an edge on most pages. The cleaner strips
    them; the ``no_footer_leaked`` check looks for them in chunks."""

    top: EdgeLayout | None = None
    bottom: EdgeLayout | None = None
    section_headers: frozenset[str] = frozenset()
    running_headers: frozenset[str] = frozenset()
    running_keys: frozenset[str] = frozenset()  # :func:`running_headers`' keys, learned once
    # per page (in order), the lines at its edges that these rules take for furniture there:
    # the only places furniture can be, so a check judges a chunk's line only against them
    page_lines: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True)
class _Hit:
    """A page number at an edge: its position in the edge, its offset from the page index
    and the header printed on its line (empty when the number stands alone)."""

    pos: int
    offset: int
    text: str = ""


def _edge(lines: list[str], top: bool) -> list[tuple[int, str]]:
    """(index, text) of the first (``top``) or last non-blank lines of a page, outermost first."""
    indexed = [(i, ln.strip()) for i, ln in enumerate(lines) if ln.strip()]
    return indexed[:EDGE_LINES] if top else indexed[::-1][:EDGE_LINES]


def _numbered_edge(lines: list[str], page_number: int, top: bool) -> _Hit | None:
    """The first page-number-like line at this edge: a bare number, or a short line that
    starts or ends with one."""
    for pos, (_, text) in enumerate(_edge(lines, top)):
        if _BARE_NUMBER.fullmatch(text):
            return _Hit(pos, int(text) - page_number)
        first, last = _NUMBER_FIRST.fullmatch(text), _NUMBER_LAST.fullmatch(text)
        number, header = (first[1], first[2]) if first else (last[2], last[1]) if last else ("", "")
        if number and len(_squash(header)) <= MAX_HEADER_CHARS:
            return _Hit(pos, int(number) - page_number, _squash(header))
    return None


def _repeats(texts: list[str], enough: int) -> bool:
    """Enough texts, at most one new text per two pages: titles of sections, not a page's
    first sentence."""
    return len(texts) >= max(MIN_LEARNED_PAGES, enough) and len(set(texts)) * 2 <= len(texts)


def _learn_edge(pages: list[list[str]], top: bool) -> EdgeLayout | None:
    """The edge's layout when a page number in step with the pages sits there on many pages
    (a third of them, at least three): alone, with the header beside it when the line on one
    side repeats, or on one line with a header that repeats."""
    found = [_numbered_edge(lines, n, top) for n, lines in enumerate(pages, start=1)]
    offsets = Counter(f.offset for f in found if f)
    if not offsets:
        return None
    offset = offsets.most_common(1)[0][0]
    enough = max(MIN_LEARNED_PAGES, len(pages) // 3)
    bare = [(lines, hit) for lines, hit in zip(pages, found) if hit and hit.offset == offset and not hit.text]
    joined = [hit.text for hit in found if hit and hit.offset == offset and hit.text]
    joined_ok = _repeats(joined, enough)
    if len(bare) < enough and not joined_ok:
        return None
    side_texts: dict[int, list[str]] = {-1: [], 1: []}
    for lines, hit in bare:
        edge = _edge(lines, top)
        for side in (-1, 1):
            k = hit.pos - side  # +1: the line outside the number, -1: the line inside it
            if 0 <= k < len(edge) and len(_squash(edge[k][1])) <= MAX_HEADER_CHARS:
                side_texts[side].append(_squash(edge[k][1]))
    repeated = [
        (len(set(texts)) / len(texts), side)
        for side, texts in side_texts.items()
        if _repeats(texts, len(bare) // 2)
    ]
    side = min(repeated)[1] if repeated and len(bare) >= enough else 0
    return EdgeLayout(offset, side, len(bare) >= enough, joined_ok)


def _learn_pair_edge(pages: list[list[str]], top: bool) -> EdgeLayout | None:
    """A two-page paper's edge: too few pages to learn from repetition, so only the plainest
    layout counts: both pages print their own page number there, in step, alone or on one
    line with the same text (``RVD/PUB/R12 (Rev. 01/2025) 1`` / ``… 2``)."""
    hits = [_numbered_edge(lines, n, top) for n, lines in enumerate(pages, start=1)]
    if not all(hits) or len({(h.offset, h.text, h.pos) for h in hits if h}) != 1:
        return None
    hit = hits[0]
    assert hit is not None
    return EdgeLayout(hit.offset, 0, bare=not hit.text, joined=bool(hit.text))


def _layout_lines(lines: list[str], page_number: int, layout: EdgeLayout | None, top: bool) -> list[int]:
    """Indices of this page's lines that the learned layout says are furniture: the number's
    line first, then the header beside it."""
    if layout is None:
        return []
    hit = _numbered_edge(lines, page_number, top)
    if not hit or hit.offset != layout.offset:
        return []
    edge = _edge(lines, top)
    if hit.text:
        return [edge[hit.pos][0]] if layout.joined else []
    if not layout.bare:
        return []
    out = [edge[hit.pos][0]]
    k = hit.pos - layout.header_side
    if layout.header_side and 0 <= k < len(edge) and len(_squash(edge[k][1])) <= MAX_HEADER_CHARS:
        out.append(edge[k][0])
    return out


def learn_furniture(pages: list[list[str]]) -> Furniture:
    """The paper's furniture from repetition at the same place on many pages, never from
    any paper's words: bare page numbers in step with the pages, the running header beside
    them (following the section), and lines at an edge on most pages."""
    if len(pages) < 2:
        return Furniture(page_lines=_page_lines(pages, None, None, set()))
    if len(pages) < MIN_LEARNED_PAGES:
        top, bottom = _learn_pair_edge(pages, True), _learn_pair_edge(pages, False)
        return Furniture(top, bottom, page_lines=_page_lines(pages, top, bottom, set()))
    top, bottom = _learn_edge(pages, True), _learn_edge(pages, False)
    headers: set[str] = set()
    for n, lines in enumerate(pages, start=1):
        for layout, at_top in ((top, True), (bottom, False)):
            found = _layout_lines(lines, n, layout, at_top)
            if found and layout and layout.joined:
                hit = _numbered_edge(lines, n, at_top)
                headers.update([hit.text] if hit and hit.text else [])
            headers.update(_squash(lines[i]) for i in found[1:])
    running = running_headers(pages)
    seen = {_squash(ln) for lines in pages for _, ln in _edge(lines, True) + _edge(lines, False)}
    return Furniture(
        top,
        bottom,
        frozenset(headers),
        frozenset(s for s in seen if _running_key(s) in running),
        frozenset(running),
        _page_lines(pages, top, bottom, running),
    )


def _page_lines(
    pages: list[list[str]], top: EdgeLayout | None, bottom: EdgeLayout | None, running: set[str]
) -> tuple[frozenset[str], ...]:
    """Each page's furniture where it stands: the lines at its edges that the learned layouts
    take (a page number in step with the page, the header beside it or on its line), that
    repeat at an edge on most pages, or that are furniture alone (a page label). A line that
    only looks like a header and a number (a contents entry ``支援市民和企業 72``) is none."""
    found = []
    for n, lines in enumerate(pages, start=1):
        edge = {i for i, _ in _edge(lines, True) + _edge(lines, False)}
        layout = set(_layout_lines(lines, n, top, True)) | set(_layout_lines(lines, n, bottom, False))
        kept = {
            i for i in edge if i in layout or is_furniture(lines[i], n) or _running_key(lines[i]) in running
        }
        found.append(frozenset(_squash(lines[i]) for i in kept))
    return tuple(found)


def page_furniture(pages: list[Page]) -> Furniture:
    """:func:`learn_furniture` of extracted pages (their raw text). Only the lines at the
    page edges can be furniture, so only they are read. Learned once per paper and process:
    :func:`clean_pages` learns it, and the checks ask again for the same raw pages."""
    return _raw_furniture(tuple(p.raw for p in pages))


@lru_cache(maxsize=4)
def _raw_furniture(raws: tuple[str, ...]) -> Furniture:
    return learn_furniture([[normalise_chars(ln) for ln in _edge_lines(raw.split("\n"))] for raw in raws])


def _edge_lines(lines: list[str]) -> list[str]:
    """The first and last ``EDGE_LINES`` non-blank lines of a page, in order (once each)."""
    body = [ln for ln in lines if ln.strip()]
    if len(body) <= 2 * EDGE_LINES:
        return body
    return body[:EDGE_LINES] + body[-EDGE_LINES:]


def clean_text(text: str) -> str:
    """Character and spacing repairs that apply to any text, paged or not."""
    text = normalise_chars(text)
    if is_letter_spaced(text):
        text = join_letter_spacing(text)
    text = _CJK_PAREN_SPACE.sub(r"(\1)", text)
    lines = [ln.rstrip() for ln in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def clean_pages(pages: list[Page]) -> list[Page]:
    """Fill ``cleaned`` on every page (returns new Page objects; raw text is kept)."""
    split = [normalise_chars(p.raw).split("\n") for p in pages]
    furniture = page_furniture(pages)
    running = set(furniture.running_keys)
    cleaned = []
    for position, (page, lines) in enumerate(zip(pages, split), start=1):
        dropped = set(_layout_lines(lines, position, furniture.top, True))
        dropped |= set(_layout_lines(lines, position, furniture.bottom, False))
        lines = [ln for i, ln in enumerate(lines) if i not in dropped]
        kept = _strip_edges(lines, page.number, running)
        cleaned.append(
            Page(
                number=page.number,
                raw=page.raw,
                cleaned=clean_text("\n".join(kept)),
                headings=page.headings,
                breaks=page.breaks,
                unreadable=page.unreadable,
                off_page_chars=page.off_page_chars,
            )
        )
    return cleaned
