"""A passage as the search page shows it: its text escaped with the query's words marked, and
each Markdown table in it (the pipeline writes a paper's tables into the chunk's text as
Markdown) as an HTML table, so a reader sees rows and columns rather than pipes.

Why built here and not by a Markdown library: a chunk's text is a paper's, never trusted
HTML. Only the table's structure becomes tags; every cell is escaped (:func:`.marking.marked_html`),
so nothing a paper holds reaches the page as markup."""

from __future__ import annotations

import re

from .marking import marked_html

_CELL_BREAK = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_BREAK.split(inner)]


def _table(lines: list[str], query: str) -> str:
    head, body = lines[0], [line for line in lines[2:] if line.strip()]
    width = len(_cells(head))

    def row(line: str, tag: str) -> str:
        cells = (_cells(line) + [""] * width)[: max(width, len(_cells(line)))]
        return "<tr>" + "".join(f"<{tag}>{marked_html(c, query)}</{tag}>" for c in cells) + "</tr>"

    return f"<table>{row(head, 'th')}{''.join(row(line, 'td') for line in body)}</table>"


def passage_html(text: str, query: str) -> str:
    """``text`` as HTML: Markdown tables (a row of cells, then a ``---`` separator row) as
    ``<table>``, everything else as :func:`.marking.marked_html` gives it."""
    lines = text.split("\n")
    out: list[str] = []
    plain: list[str] = []
    i = 0
    while i < len(lines):
        if _is_row(lines[i]) and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip()):
            end = i + 2
            while end < len(lines) and _is_row(lines[end]):
                end += 1
            if plain:
                out.append(marked_html("\n".join(plain), query))
                plain = []
            out.append(_table(lines[i:end], query))
            i = end
            continue
        plain.append(lines[i])
        i += 1
    if plain:
        out.append(marked_html("\n".join(plain), query))
    return "".join(out)
