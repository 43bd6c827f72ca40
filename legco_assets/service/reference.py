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


def with_server_defaults(openapi: dict[str, Any], strategy: str) -> dict[str, Any]:
    """``openapi`` with the server's default strategy as the ``default`` of every ``strategy``
    parameter and field (FastAPI only knows ``None``: the value comes from the settings the
    server started with), so ``/docs`` shows the value a request without it gets."""
    for methods in openapi.get("paths", {}).values():
        for operation in methods.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("name") == "strategy":
                    parameter.setdefault("schema", {})["default"] = strategy
    for model in openapi.get("components", {}).get("schemas", {}).values():
        field = model.get("properties", {}).get("strategy")
        if field is not None and "anyOf" in field:  # a request's optional strategy, not a reply's
            field["default"] = strategy
    return openapi


def _allowed(schema: dict[str, Any], components: dict[str, Any]) -> str:
    """What a parameter may be: its enum's values, its range, its length limit."""
    for option in schema.get("anyOf", [schema]):
        ref = option.get("$ref", "")
        if ref:
            schema = {**components.get(ref.rsplit("/", 1)[-1], {}), **schema}
    parts = []
    if "enum" in schema:
        parts.append(" | ".join(str(v) for v in schema["enum"]))
    if "minimum" in schema or "maximum" in schema:
        parts.append(f"{schema.get('minimum', '…')}-{schema.get('maximum', '…')}")
    if "maxLength" in schema:
        parts.append(f"at most {schema['maxLength']} characters")
    return "; ".join(parts)


def _parameters(operation: dict[str, Any], components: dict[str, Any]) -> str:
    rows = []
    for p in operation.get("parameters", []):
        schema = p.get("schema", {})
        default = "" if "default" not in schema else f"<code>{escape(str(schema['default']))}</code>"
        rows.append(
            f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(schema.get('title', ''))}</td>"
            f"<td>{'yes' if p.get('required') else 'no'}</td><td>{default}</td>"
            f"<td>{escape(_allowed(schema, components))}</td>"
            f"<td>{escape(p.get('description') or schema.get('description', ''))}</td></tr>"
        )
    if not rows:
        return ""
    columns = ("parameter", "title", "required", "default", "allowed", "what")
    head = "<tr>" + "".join(f"<th>{c}</th>" for c in columns) + "</tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _operation(path: str, method: str, operation: dict[str, Any], components: dict[str, Any]) -> str:
    summary = escape(operation.get("summary", ""))
    description = escape(operation.get("description", "")).replace("\n\n", "</p><p>")
    body = " (JSON body)" if "requestBody" in operation else ""
    return (
        f"<h2><code>{method.upper()} {escape(path)}</code>{body}</h2><p><b>{summary}</b></p>"
        f"<p>{description}</p>{_parameters(operation, components)}"
    )


def reference_page(openapi: dict[str, Any]) -> str:
    """The reference of every route in ``openapi`` (FastAPI's ``app.openapi()``)."""
    info = openapi.get("info", {})
    components = openapi.get("components", {}).get("schemas", {})
    sections = [
        _operation(path, method, operation, components)
        for path, methods in openapi.get("paths", {}).items()
        for method, operation in methods.items()
    ]
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(info.get('title', 'API'))}"
        f"</title><style>{STYLE}</style></head><body><h1>{escape(info.get('title', 'API'))}</h1>"
        f"<p>{escape(info.get('description', ''))} The OpenAPI document: "
        f"<a href='/openapi.json'>/openapi.json</a>.</p>{''.join(sections)}</body></html>"
    )
