"""The search page at ``/``: a plain server-rendered form and its results, no script, font or
stylesheet from anywhere else (inline CSS only), so it works offline and in any browser.

The form narrows by strategy, language, kind, date and speaker (as the API does). Each result
shows the paper's title, its section path, its pages, who speaks in it, the passage with the
query's words marked (:mod:`.marking`) and a link to the chunk's own excerpt, relative to
this server (``/excerpt/<id>``), so it opens wherever the page was opened from."""

from __future__ import annotations

import html
from dataclasses import dataclass

from legco_assets.core.excerpts import chunk_link
from legco_assets.core.settings import Strategy
from legco_assets.core.structure import KINDS

from .passage import passage_html
from .schema import NO_CLOSE_MATCH, SearchHit, SearchResponse

PASSAGE_CHARS = 900  # a passage longer than this is shown up to here, with an ellipsis
STRATEGY_LABELS = {Strategy.token: "token windows", Strategy.question: "questions"}  # the form's choices

STYLE = """
body{font-family:system-ui,"Noto Sans CJK TC","Microsoft JhengHei",sans-serif;max-width:60rem;
margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.5}
h1{font-size:1.4rem}form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
input[type=search]{flex:1 1 24rem;font-size:1.1rem;padding:.4rem}
select,button{font-size:1rem;padding:.35rem}.hit{border-top:1px solid #ddd;padding:.8rem 0}
.title{font-weight:600}.path{color:#555;font-size:.9rem}.pages,.speakers{color:#555;font-size:.9rem}
.text{white-space:pre-wrap;margin:.4rem 0}mark{background:#ffe066}
.note{color:#555}.error{color:#a00}
.text table{border-collapse:collapse;white-space:normal;margin:.3rem 0;font-size:.9rem}
.text th,.text td{border:1px solid #ccc;padding:.1rem .4rem;text-align:left;vertical-align:top}
"""


def _options(name: str, label: str, choices: list[tuple[str, str]], chosen: str) -> str:
    items = "".join(
        f'<option value="{html.escape(v)}"{" selected" if v == chosen else ""}>{html.escape(t)}</option>'
        for v, t in choices
    )
    return f'<label>{label} <select name="{name}" id="{name}">{items}</select></label>'


@dataclass(frozen=True)
class PageFilters:
    """The form's filters as sent (shown back in the form)."""

    date_from: str = ""
    date_to: str = ""
    kind: str = ""
    speaker: str = ""


def _date_input(name: str, label: str, value: str) -> str:
    return (
        f'<label>{label} <input type="text" name="{name}" id="{name}" value="{html.escape(value)}" '
        'placeholder="YYYY[-MM[-DD]]" size="10" pattern="\\d{4}(-\\d{2}(-\\d{2})?)?"></label>'
    )


def _hit(number: int, hit: SearchHit, query: str) -> str:
    text = hit.text if len(hit.text) <= PASSAGE_CHARS else hit.text[:PASSAGE_CHARS] + " …"
    pages = f"p. {hit.page_start}" + (f"–{hit.page_end}" if hit.page_end != hit.page_start else "")
    path = " › ".join(hit.section_path)
    question = f" · question {html.escape(hit.question_id)}" if hit.question_id else ""
    paper = " · ".join(html.escape(x) for x in (hit.date, hit.kind) if x)
    question += f" · {paper}" if paper else ""
    names = " · ".join(html.escape(name) for name in hit.speakers or [])
    speakers = f'<div class="speakers">speaking: {names}</div>' if names else ""
    return (
        f'<div class="hit" id="hit-{number}">'
        f'<div class="title">{number}. {html.escape(hit.title)}</div>'
        f'<div class="path">{html.escape(path) or "(before the first heading)"}</div>'
        f'<div class="pages">{pages}{question} · {html.escape(hit.document_id)}</div>{speakers}'
        f'<div class="text">{passage_html(text, query)}</div>'
        f'<a class="excerpt" href="/{chunk_link(hit.id)}" target="_blank" rel="noopener">'
        f"open the excerpt ({pages})</a></div>"
    )


def render(
    query: str = "",
    strategy: Strategy = Strategy.token,
    language: str = "",
    results: SearchResponse | None = None,
    error: str | None = None,
    documents: int = 0,
    narrowed: PageFilters = PageFilters(),
) -> str:
    """The whole page: the form, then the results (or why there are none)."""
    form = (
        '<form method="get" action="/" role="search">'
        f'<input type="search" name="q" id="q" value="{html.escape(query)}" '
        'placeholder="Ask about the LegCo papers… 例如：最低工資" autofocus maxlength="500">'
        + _options("strategy", "chunks", [(s.value, STRATEGY_LABELS[s]) for s in Strategy], strategy.value)
        + _options("language", "language", [("", "any"), ("zh", "中文"), ("en", "English")], language)
        + _options("kind", "kind", [("", "any"), *((k, k.replace("_", " ")) for k in KINDS)], narrowed.kind)
        + _date_input("date_from", "from", narrowed.date_from)
        + _date_input("date_to", "to", narrowed.date_to)
        + '<label>speaker <input type="text" name="speaker" id="speaker" size="12" maxlength="100" '
        f'value="{html.escape(narrowed.speaker)}" placeholder="e.g. 林健鋒"></label>'
        + '<button type="submit" id="go">Search</button></form>'
    )
    if error:
        body = f'<p class="error">{html.escape(error)}</p>'
    elif results is None:
        body = f'<p class="note">{documents} papers stored. Type a question in Chinese or English.</p>'
    elif not results.hits:
        body = '<p class="note">No passage matches. Try other words, the other strategy, or any language.</p>'
    else:
        body = "".join(_hit(i, h, query) for i, h in enumerate(results.hits, start=1))
        if results.no_close_match:
            body = f'<p class="note" id="no-close-match">{html.escape(NO_CLOSE_MATCH)}.</p>' + body
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{html.escape(query + ' – ' if query else '')}LegCo papers search</title>"
        f"<style>{STYLE}</style></head><body><h1>LegCo papers search</h1>{form}"
        f'<div id="results">{body}</div>'
        '<p class="note">API: <a href="/docs">/docs</a> · MCP: /mcp</p></body></html>'
    )
