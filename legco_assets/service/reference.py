"""``/docs``: the API's reference, rendered on the server from its OpenAPI document.

Why not FastAPI's Swagger UI: it loads its script and styles from a CDN, and nothing this
server sends may load anything from elsewhere (an offline machine, a locked-down network).
The machine-readable document stays at ``/openapi.json``."""

from __future__ import annotations

from html import escape
from typing import Any

STYLE = (
    "body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}"
    "code{background:#f3f3f3;padding:0 .2em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}"
)


def _parameters(operation: dict[str, Any]) -> str:
    rows = [
        f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p.get('in', ''))}</td>"
        f"<td>{'yes' if p.get('required') else 'no'}</td>"
        f"<td>{escape(p.get('description') or p.get('schema', {}).get('description', ''))}</td></tr>"
        for p in operation.get("parameters", [])
    ]
    if not rows:
        return ""
    head = "<tr><th>parameter</th><th>in</th><th>required</th><th>what</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _operation(path: str, method: str, operation: dict[str, Any]) -> str:
    summary = escape(operation.get("summary", ""))
    description = escape(operation.get("description", "")).replace("\n\n", "</p><p>")
    body = " (JSON body)" if "requestBody" in operation else ""
    return (
        f"<h2><code>{method.upper()} {escape(path)}</code>{body}</h2><p><b>{summary}</b></p>"
        f"<p>{description}</p>{_parameters(operation)}"
    )


def reference_page(openapi: dict[str, Any]) -> str:
    """The reference of every route in ``openapi`` (FastAPI's ``app.openapi()``)."""
    info = openapi.get("info", {})
    sections = [
        _operation(path, method, operation)
        for path, methods in openapi.get("paths", {}).items()
        for method, operation in methods.items()
    ]
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(info.get('title', 'API'))}"
        f"</title><style>{STYLE}</style></head><body><h1>{escape(info.get('title', 'API'))}</h1>"
        f"<p>{escape(info.get('description', ''))} The OpenAPI document: "
        f"<a href='/openapi.json'>/openapi.json</a>.</p>{''.join(sections)}</body></html>"
    )
