"""The search service: ``legco-assets serve`` (a search page, a JSON API, the chunks' own
excerpts and an MCP endpoint, in one process) and ``legco-assets mcp`` (the MCP tools over
stdio). It sits above the core and beside the CLI; the CLI starts it, nothing below imports it.

Code outside this package imports only the names below."""

from __future__ import annotations

from .app import WORKER_HOST, create_app
from .auth import needs_token
from .context import ServiceContext
from .index import LiveIndex, Snapshot
from .limits import MAX_BODY_BYTES, MAX_CONCURRENT, MAX_K, MAX_QUERY_CHARS
from .mcp_tools import build_mcp

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_CONCURRENT",
    "MAX_K",
    "MAX_QUERY_CHARS",
    "LiveIndex",
    "WORKER_HOST",
    "ServiceContext",
    "Snapshot",
    "build_mcp",
    "create_app",
    "needs_token",
]
