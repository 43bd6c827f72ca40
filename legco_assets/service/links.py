"""Where the server serves a chunk's own excerpt: ``EXCERPTS_BASE_URL`` + ``excerpt/`` + the
chunk id, percent-quoted (ids hold ``:``, and a document id may hold anything a file name
does). The API's hits, the page's links and the MCP tools' results all use this one form."""

from __future__ import annotations

from urllib.parse import quote

EXCERPT_ROUTE = "excerpt"


def excerpt_path(chunk_id: str) -> str:
    """The URL path, relative to the base, of a chunk's excerpt."""
    return f"{EXCERPT_ROUTE}/{quote(chunk_id, safe='')}"


def excerpt_url(base_url: str, chunk_id: str) -> str:
    """The absolute URL of a chunk's excerpt under ``base_url`` (``EXCERPTS_BASE_URL``)."""
    return base_url.rstrip("/") + "/" + excerpt_path(chunk_id)
