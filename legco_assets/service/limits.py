"""What one request may ask of the server, and the guard that holds every request to it.

Why at the door: a public search box gets anything. A query of megabytes, ``k=10**6`` or a
flood of requests must cost a one-line 4xx, not the machine; writes are refused outright
(the server is read-only but for asking an answer and the MCP endpoint's JSON-RPC)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

MAX_QUERY_CHARS = 500  # a question, not a paper
MAX_K = 50  # hits one search returns
MAX_BODY_BYTES = 64 * 1024  # a POST /api/answer or one MCP message
MAX_CONCURRENT = 32  # requests in flight at once; the next gets 429
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WRITE_PATHS = frozenset({"/api/answer", "/mcp"})  # the only paths that take a POST (MCP: also DELETE)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


async def one_line(send: Send, status: int, message: str, headers: dict[bytes, bytes] | None = None) -> None:
    """A JSON ``{"detail": message}`` answer: the one line every refusal is."""
    body = json.dumps({"detail": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"x-content-type-options", b"nosniff"),
                *(headers or {}).items(),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def refusal(scope: Scope) -> tuple[int, str] | None:
    """Why a request is refused before it is read (status, one line), or None."""
    method, path = scope.get("method", "GET"), scope.get("path", "")
    if method not in READ_METHODS and path.rstrip("/") not in WRITE_PATHS:
        return 405, f"{method} is not allowed: this server is read-only"
    headers = dict(scope.get("headers") or [])
    length = headers.get(b"content-length")
    if length is not None:
        try:
            if int(length) > MAX_BODY_BYTES:
                return 413, f"request body over {MAX_BODY_BYTES} bytes"
        except ValueError:
            return 400, "bad Content-Length"
    return None


class Guard:
    """ASGI middleware: read-only methods, a cap on the body (declared or streamed) and on the
    requests in flight; a refused request gets its status and one line."""

    def __init__(self, app: App, max_concurrent: int = MAX_CONCURRENT):
        self.app = app
        self.slots = asyncio.Semaphore(max_concurrent)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = refusal(scope)
        if refused is not None:
            await one_line(send, *refused)
            return
        if self.slots.locked():
            await one_line(send, 429, "too many requests at once: try again shortly")
            return
        async with self.slots:
            await self._bounded(scope, receive, send)

    async def _bounded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app, answering 413 itself the moment a streamed body passes the cap (the
        app then reads a disconnect, and whatever it still sends is dropped)."""
        seen = 0
        started = refused = False

        async def counted_receive() -> MutableMapping[str, Any]:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY_BYTES and not started:
                refused = True
                await one_line(send, 413, f"request body over {MAX_BODY_BYTES} bytes")
                return {"type": "http.disconnect"}
            return message

        async def tracked_send(message: MutableMapping[str, Any]) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted_receive, tracked_send)
