"""Excerpts of papers that are not PDFs: the paper's text (as the pipeline read it,
``page_text``) once in an HTML page, each chunk's characters marked, and one chunk's page
cut from it: the same text with only that chunk marked, scrolled to it. There are no pages
to cut, and a passage torn from its paper would lose where it is."""

from __future__ import annotations

import html
import re

from ..chunking import WITHHELD

# a Latin word's characters: a mark ends inside a word only where the chunk itself does
_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u024f]")


def merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans of ``text`` with the gaps that hold only whitespace closed."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and (start <= out[-1][1] or not text[out[-1][1] : start].strip()):
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def _in_word(text: str, at: int) -> bool:
    """Whether offset ``at`` falls between two characters of one Latin word."""
    return 0 < at < len(text) and bool(_WORD.match(text[at - 1])) and bool(_WORD.match(text[at]))


def _word(text: str, at: int) -> tuple[int, int]:
    """[start, end) of the Latin word around offset ``at`` (inside it)."""
    start, end = at, at
    while start > 0 and _WORD.match(text[start - 1]):
        start -= 1
    while end < len(text) and _WORD.match(text[end]):
        end += 1
    return start, end


def on_words(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A chunk's marked spans of ``text`` moved to Latin word boundaries. The characters
    are found in order with whitespace gone (:mod:`align`), so a match may run on into the
    next word: a page title ``Frequently Asked Questions`` above a heading ``Frequently
    Asked Questions For Employers`` matched ``…QuestionsF`` + ``orEmployers``, a mark
    ending in ``F`` and one starting at ``or``. Inside the chunk, a part of a
    word that is less than half of it is dropped and more is widened to the whole word; the
    chunk's own first and last words (a token chunk may start mid-word) are widened."""
    spans = merged(text, spans)
    out: list[tuple[int, int]] = []
    for n, (start, end) in enumerate(spans):
        if _in_word(text, start):
            lo, hi = _word(text, start)
            start = lo if n == 0 or 2 * (min(end, hi) - start) >= hi - lo else min(end, hi)
        if start < end and _in_word(text, end):
            lo, hi = _word(text, end)
            end = hi if n == len(spans) - 1 or 2 * (end - max(start, lo)) >= hi - lo else max(start, lo)
        if start < end:
            out.append((start, end))
    return merged(text, out)


_CHUNK_MARK = re.compile(r'<mark data-c="([0-9 ]+)">(.*?)</mark>', re.DOTALL)
# a chunk's link is ``#chunk-<index>``: its marks lit, the page scrolled to its first one
_SCRIPT = (
    "<script>function lit(){var n=(location.hash.match(/^#chunk-(\\d+)$/)||[])[1];"
    "document.querySelectorAll('mark').forEach(function(m){m.className="
    "n&&(' '+m.dataset.c+' ').indexOf(' '+n+' ')>=0?'on':''})}"
    "addEventListener('hashchange',lit);addEventListener('DOMContentLoaded',lit)</script>"
)


def html_page(text: str, chunks: list[tuple[int, list[tuple[int, int]]]], title: str) -> str:
    """A strategy's excerpts of a paper that is not a PDF, in one page: ``text`` once, each
    chunk's spans in ``<mark data-c="<indexes>">`` (chunks overlap: a stretch names every
    chunk it belongs to) and an ``id="chunk-<index>"`` where each chunk starts. A link
    ``#chunk-<index>`` scrolls there and lights that chunk's marks only."""
    cover: dict[int, set[int]] = {}  # boundary -> chunks starting (+) or ending (-) there
    starts: dict[int, list[int]] = {}
    for index, spans in chunks:
        spans = merged(text, spans)
        if spans:
            starts.setdefault(spans[0][0], []).append(index)
        for start, end in spans:
            cover.setdefault(start, set()).add(index + 1)
            cover.setdefault(end, set()).add(-(index + 1))
    bounds = sorted(set(cover) | set(starts) | {0, len(text)})
    open_now: set[int] = set()
    out = []
    for here, nxt in zip(bounds, bounds[1:] + [len(text)]):
        for signed in cover.get(here, ()):
            (open_now.add if signed > 0 else open_now.discard)(abs(signed) - 1)
        out.extend(f'<a id="chunk-{index}"></a>' for index in starts.get(here, []))
        piece = html.escape(text[here:nxt])
        if piece and open_now:
            piece = f'<mark data-c="{" ".join(map(str, sorted(open_now)))}">{piece}</mark>'
        out.append(piece)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;max-width:48em;margin:2em auto}"
        "pre{white-space:pre-wrap}mark{background:none}mark.on{background:#ffe200}</style>"
        f"{_SCRIPT}</head>\n<body><h1>{html.escape(title)}</h1>\n<pre>{''.join(out)}</pre></body></html>\n"
    )


def marked_chunks(page: str) -> dict[int, str]:
    """The text each chunk's marks hold in a :func:`html_page` (to check it)."""
    found: dict[int, list[str]] = {}
    for indexes, piece in _CHUNK_MARK.findall(page):
        for index in indexes.split():
            found.setdefault(int(index), []).append(html.unescape(piece))
    return {index: "".join(parts) for index, parts in found.items()}


_ANCHOR = re.compile(r'<a id="chunk-[0-9]+"></a>')
_TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)
# a chunk's own page is opened at its first mark without a fragment in its URL
_SCROLL = '<script>var c=document.getElementById("chunk");if(c)c.scrollIntoView({block:"center"})</script>'


def chunk_page(page: str, index: int, title: str) -> str:
    """One chunk's excerpt cut from its strategy's :func:`html_page`: the same text with
    only chunk ``index``'s marks, lit, the first ``id="chunk"``, and a line of inline script
    that scrolls there on opening (no file or site is fetched; ``…#chunk`` works too)."""
    first = True

    def mark(found: re.Match[str]) -> str:
        nonlocal first
        if str(index) not in found.group(1).split():
            return found.group(2)
        opening = '<mark id="chunk">' if first else "<mark>"
        first = False
        return f"{opening}{found.group(2)}</mark>"

    page = _CHUNK_MARK.sub(mark, _ANCHOR.sub("", page.replace(_SCRIPT, "")))
    page = _TITLE.sub(lambda _: f"<title>{html.escape(title)}</title>", page, count=1)
    page = page.replace("mark{background:none}mark.on{background:#ffe200}", "mark{background:#ffe200}")
    return page.replace("</body>", _SCROLL + "</body>", 1)


_MARK = re.compile(r"<mark(?: id=\"chunk\")?>(.*?)</mark>", re.DOTALL)


def marked_html(page: str) -> str:
    """The text inside a chunk's page's ``<mark>`` elements (to check it)."""
    return "".join(html.unescape(m) for m in _MARK.findall(page))


_TAG = re.compile(r"<[^>]*>")


def withheld_html(page: str, marker: str = WITHHELD) -> str:
    """A chunk's page (:func:`chunk_page`) with each internal note of its body's text
    replaced by ``marker``: the note is found in the text as read (tags and escapes aside,
    so a mark running across it does not hide it), and its characters are dropped from
    every piece of text it spans, the marker put where it starts."""
    from ..structure import internal_note_spans

    body = page.find("<body")
    if body < 0:
        return page
    pieces: list[tuple[int, int, str]] = []  # (start, end) in page, its text unescaped
    pos = body
    for tag in _TAG.finditer(page, body):
        if tag.start() > pos:
            pieces.append((pos, tag.start(), html.unescape(page[pos : tag.start()])))
        pos = tag.end()
    if pos < len(page):
        pieces.append((pos, len(page), html.unescape(page[pos:])))
    text = "".join(p[2] for p in pieces)
    spans = internal_note_spans(text)
    if not spans:
        return page
    out: list[str] = []
    last, offset = 0, 0
    for start, end, piece in pieces:
        kept: list[str] = []
        for k, ch in enumerate(piece):
            at = offset + k
            inside = next((s for s, e in spans if s <= at < e), None)
            if inside is None:
                kept.append(html.escape(ch, quote=False))
            elif inside == at:
                kept.append(html.escape(marker, quote=False))
        out.append(page[last:start] + "".join(kept))
        last, offset = end, offset + len(piece)
    out.append(page[last:])
    return "".join(out)
