"""The text of an HTML page, for the eval's HTML papers.

LegCo publishes its Official Records (Hansards) as HTML as well as PDF; the corpus beside
the repository has one English Hansard only as HTML. The pipeline reads PDF, DOCX, TXT and
Markdown, so the eval turns such a page into a TXT file first (:func:`evaluation.load_papers`)
and ingests that: one line per block element, a table row as its cells joined by `` | ``,
scripts and styles dropped. The standard library's parser is enough for that.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = frozenset({"p", "div", "br", "tr", "li", "table", "title", "h1", "h2", "h3", "h4", "h5", "h6"})
_HIDDEN = frozenset({"script", "style"})
_SPACES = re.compile(r"[ \t\u00a0]+")


class _PageText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data.replace("\n", " "))


def html_text(markup: str) -> str:
    """The page's text: non-empty lines, runs of spaces collapsed."""
    parser = _PageText()
    parser.feed(markup)
    parser.close()
    lines = (_SPACES.sub(" ", line).strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"
