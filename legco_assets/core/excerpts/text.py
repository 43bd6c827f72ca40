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


def _region(text: str, spans: list[tuple[int, int]]) -> tuple[int, int]:
    """The marked spans with ``CONTEXT_CHARS`` either side, widened to whole lines."""
    first, last = spans[0][0], spans[-1][1]
    start = text.rfind("\n", 0, max(0, first - CONTEXT_CHARS)) + 1
    end = text.find("\n", min(len(text), last + CONTEXT_CHARS))
    return start, len(text) if end < 0 else end


def merged(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans of ``text`` with the gaps that hold only whitespace closed."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and (start <= out[-1][1] or not text[out[-1][1] : start].strip()):
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def html_excerpt(text: str, spans: list[tuple[int, int]], title: str) -> str:
    """A small HTML page: the region of ``text`` with ``spans`` inside ``<mark>``."""
    spans = merged(text, spans)
    body = html.escape(text) if not spans else ""
    if spans:
        start, end = _region(text, spans)
        parts, pos = [], start
        for s, e in spans:
            parts.append(html.escape(text[pos:s]))
            parts.append(f"<mark>{html.escape(text[s:e])}</mark>")
            pos = e
        parts.append(html.escape(text[pos:end]))
        body = "".join(parts)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;max-width:48em;margin:2em auto}"
        "pre{white-space:pre-wrap}mark{background:#ffe200}</style></head>\n"
        f"<body><h1>{html.escape(title)}</h1>\n<pre>{body}</pre></body></html>\n"
    )


def text_excerpt(text: str, spans: list[tuple[int, int]], title: str) -> str:
    """Plain text: the region of ``text``, the chunk's part between marker lines."""
    if not spans:
        return f"{title}\n\n{text}\n"
    spans = merged(text, spans)
    start, end = _region(text, spans)
    first, last = spans[0][0], spans[-1][1]
    return f"{title}\n\n{text[start:first]}\n{BEGIN}\n{text[first:last]}\n{END}\n{text[last:end]}\n"


def marked_html(page: str) -> str:
    """The text inside an excerpt page's ``<mark>`` elements (to check it)."""
    return "".join(html.unescape(m) for m in _MARK.findall(page))


def marked_text(page: str) -> str:
    """The text between a text excerpt's marker lines (to check it)."""
    if BEGIN not in page:
        return ""
    return page.split(BEGIN, 1)[1].split(END, 1)[0]
