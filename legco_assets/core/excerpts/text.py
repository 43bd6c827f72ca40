"""Excerpts of papers that are not PDFs: an HTML paper's passage marked with ``<mark>`` in a
small HTML page, a DOCX/TXT/Markdown paper's as plain text between two marker lines. Both
are cut from the text the pipeline read (``page_text``), with some context either side, as
there are no pages to cut."""

from __future__ import annotations

import html
import re

CONTEXT_CHARS = 400
BEGIN = "▶▶▶ chunk starts ▶▶▶"
END = "◀◀◀ chunk ends ◀◀◀"
_MARK = re.compile(r"<mark>(.*?)</mark>", re.DOTALL)


def merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans of ``text`` with the gaps that hold only whitespace closed."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and (start <= out[-1][1] or not text[out[-1][1] : start].strip()):
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def passages(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """The marked spans grouped into passages, each ``(start, end, spans)`` with some
    context either side (:func:`_context`). Spans further apart
    than twice the context are separate passages (a later part of a long reply that repeats
    the question's first line: the question, then the part, not everything between)."""
    groups: list[list[tuple[int, int]]] = []
    for span in merged(text, spans):
        if groups and span[0] - groups[-1][-1][1] <= 2 * CONTEXT_CHARS:
            groups[-1].append(span)
        else:
            groups.append([span])
    out = []
    for group in groups:
        out.append((*_context(text, group[0][0], group[-1][1]), group))
    return out


GAP = "\n[…]\n"


def _context(text: str, first: int, last: int) -> tuple[int, int]:
    """``CONTEXT_CHARS`` either side of ``text[first:last]``, widened to a line break when
    one is near (at most as far again: a web page's paragraph is one long line)."""
    lo, hi = max(0, first - CONTEXT_CHARS), min(len(text), last + CONTEXT_CHARS)
    before = text.rfind("\n", max(0, lo - CONTEXT_CHARS), lo)
    after = text.find("\n", hi, hi + CONTEXT_CHARS)
    return (before + 1 if before >= 0 else lo), (after if after >= 0 else hi)


def html_excerpt(text: str, spans: list[tuple[int, int]], title: str) -> str:
    """A small HTML page: the passages of ``text`` around ``spans``, these in ``<mark>``."""
    if not spans:
        body = html.escape(text)
    else:
        parts = []
        for start, end, group in passages(text, spans):
            pos, out = start, []
            for s, e in group:
                out.append(html.escape(text[pos:s]))
                out.append(f"<mark>{html.escape(text[s:e])}</mark>")
                pos = e
            out.append(html.escape(text[pos:end]))
            parts.append("".join(out))
        body = html.escape(GAP).join(parts)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;max-width:48em;margin:2em auto}"
        "pre{white-space:pre-wrap}mark{background:#ffe200}</style></head>\n"
        f"<body><h1>{html.escape(title)}</h1>\n<pre>{body}</pre></body></html>\n"
    )


def text_excerpt(text: str, spans: list[tuple[int, int]], title: str) -> str:
    """Plain text: the passages of ``text``, the chunk's part of each between marker lines."""
    if not spans:
        return f"{title}\n\n{text}\n"
    parts = []
    for start, end, group in passages(text, spans):
        first, last = group[0][0], group[-1][1]
        parts.append(f"{text[start:first]}\n{BEGIN}\n{text[first:last]}\n{END}\n{text[last:end]}")
    return f"{title}\n\n" + GAP.join(parts) + "\n"


def marked_html(page: str) -> str:
    """The text inside an excerpt page's ``<mark>`` elements (to check it)."""
    return "".join(html.unescape(m) for m in _MARK.findall(page))


def marked_text(page: str) -> str:
    """The text between a text excerpt's marker lines (to check it)."""
    return "".join(part.split(END, 1)[0] for part in page.split(BEGIN)[1:])


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
