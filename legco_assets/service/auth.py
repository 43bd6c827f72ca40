"""Who may ask: with ``SERVE_TOKEN`` set, every request but ``/health`` carries the token.

Why a token at all: on 127.0.0.1 only this machine's users reach the server, as before; bound
to an address others reach, the papers (and the LLM behind ``/api/answer``) would be open to
anyone who finds the port, so ``legco-assets serve`` refuses to bind such an address without
a token (:func:`needs_token`).

How it is carried: a program sends ``Authorization: Bearer <token>`` (the API, the MCP
endpoint: the SDK's client passes headers). A browser cannot add a header to a link, so the
page is opened once with ``?token=<token>``: the answer is a redirect to the same URL without
it (so the token stays out of the history and of any Referer) that sets a cookie, HttpOnly
(no script reads it) and SameSite=Strict (no other site's page sends it). The cookie holds a
keyed hash of the token, not the token. Every comparison is in constant time
(:func:`hmac.compare_digest`), so the answer's timing tells nothing of how much matched.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, quote, urlencode

from .limits import App, Receive, Scope, Send, one_line

COOKIE = "legco_session"
OPEN_PATHS = frozenset({"/health"})  # a load balancer's or a supervisor's check: says nothing else
LOOPBACK_NAMES = frozenset({"localhost"})
NO_TOKEN = (
    "a token is required: send Authorization: Bearer <SERVE_TOKEN> (the page: open it once with ?token=…)"
)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` reaches this machine only (127.0.0.0/8, ::1, localhost)."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def needs_token(host: str, token: str | None) -> str | None:
    """Why the server must not start on ``host`` (one line), or None when it may."""
    if token or is_loopback(host):
        return None
    return (
        f"serve --host {host} is reachable from other machines: set SERVE_TOKEN "
        "(16 characters or more) so every request must carry it, or bind 127.0.0.1"
    )


def cookie_value(token: str) -> str:
    """What the page's cookie holds: a keyed hash of the token (the token itself never is)."""
    return hmac.new(token.encode(), b"legco-assets page session", hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


class TokenGate:
    """ASGI middleware: with a token, a request without it (header or cookie) gets 401 and
    one line; ``?token=`` with the right token is answered by a redirect that sets the
    cookie. Without a token every request passes (a loopback server, as before)."""

    def __init__(self, app: App, token: str | None):
        self.app = app
        self.token = token
        self.cookie = cookie_value(token) if token else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.token or scope.get("path", "") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if self._carried(headers):
            await self.app(scope, receive, send)
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        offered = [v for k, v in query if k == "token"]
        if offered and _same(offered[-1], self.token):
            await self._set_cookie(scope, send, [(k, v) for k, v in query if k != "token"])
            return
        await one_line(send, 401, "wrong token" if offered else NO_TOKEN, {b"www-authenticate": b"Bearer"})

    def _carried(self, headers: dict[bytes, bytes]) -> bool:
        """Whether the request carries the token: the bearer header, or the page's cookie."""
        scheme, _, given = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        if scheme.lower() == "bearer" and _same(given.strip(), self.token or ""):
            return True
        jar = SimpleCookie()
        try:
            jar.load(headers.get(b"cookie", b"").decode("latin-1"))
        except Exception:  # noqa: BLE001 - a malformed Cookie header carries no token
            return False
        return COOKIE in jar and _same(jar[COOKIE].value, self.cookie)

    async def _set_cookie(self, scope: Scope, send: Send, rest: list[tuple[str, str]]) -> None:
        """303 to the same path without ``token``, setting the page's cookie."""
        target = quote(scope.get("path", "/")) + (f"?{urlencode(rest)}" if rest else "")
        cookie = f"{COOKIE}={self.cookie}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", target.encode()),
                    (b"set-cookie", cookie.encode()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})
