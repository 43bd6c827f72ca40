"""A read-only HTTP server of the excerpts and nothing else of the data folder.

The Dagster UI will not follow a ``file://`` link (it renders it as ``javascript:void(0)``),
so excerpts are linked over HTTP (``EXCERPTS_BASE_URL``); ``make ui`` runs this server on
127.0.0.1 so the default link opens. It answers ``GET``/``HEAD`` of exactly
``/<document id>/excerpts/<strategy>.pdf`` or ``.html`` under the documents folder: any other
path (``..``, encoded or not, the Dagster instance, Chroma, a paper's other artifacts, the
stored update section itself) is a 404, and a path that resolves outside the folder (a
symlink) too. A PDF is the stored paper and the strategy's update joined (:mod:`links`);
an HTML page goes out as it is stored, gzipped, with ``Content-Encoding: gzip`` (browsers
undo it; the URL stays ``….html``), or decompressed to a client that does not accept gzip.
Python's ``http.server``: nothing to install, and the handler is the whole surface.
"""

from __future__ import annotations

import gzip
import re
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .links import link_bytes, stored_file

CONTENT_TYPES = {".pdf": "application/pdf", ".html": "text/html; charset=utf-8"}
_NAME = re.compile(r"[A-Za-z0-9_-]+\.(pdf|html)")


def excerpt_path(root: Path, request_path: str) -> Path | None:
    """The excerpt file a request path names under ``root`` (the documents folder), or None
    when it names anything else."""
    path = unquote(urlsplit(request_path).path, errors="strict")
    parts = path.split("/")
    if len(parts) != 4 or parts[0] != "" or parts[2] != "excerpts" or not _NAME.fullmatch(parts[3]):
        return None
    document = parts[1]
    if document in ("", ".", "..") or any(ch in document for ch in "\\\x00") or document.startswith("."):
        return None
    candidate = (root / document / "excerpts" / parts[3]).resolve()
    return candidate if candidate.is_relative_to(root.resolve()) else None


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip`` or ``*``, not at ``q=0``)."""
    for item in (accept_encoding or "").split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() in ("gzip", "x-gzip", "*"):
            q = params.strip().lower().removeprefix("q=")
            try:
                return not params.strip() or float(q) > 0
            except ValueError:
                return False
    return False


def excerpt_body(path: Path, gzip_ok: bool) -> tuple[bytes, str | None]:
    """What to send for the excerpt file ``path`` and its ``Content-Encoding``: an HTML
    page's stored gzip bytes when the client takes gzip."""
    if path.suffix == ".html":
        stored = stored_file(path).read_bytes()
        return (stored, "gzip") if gzip_ok else (gzip.decompress(stored), None)
    return link_bytes(path), None


class ExcerptHandler(BaseHTTPRequestHandler):
    """``GET``/``HEAD`` of an excerpt file; 404 for anything else, 405 for other methods."""

    server_version = "legco-excerpts"
    root: Path = Path(".")

    def __init__(self, *args, root: Path, **kwargs):  # type: ignore[no-untyped-def]
        self.root = root
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._answer(body=True)

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        path, data, encoding = None, None, None
        try:
            path = excerpt_path(self.root, self.path)
            if path is not None:
                data, encoding = excerpt_body(path, accepts_gzip(self.headers.get("Accept-Encoding")))
        except (OSError, UnicodeDecodeError, ValueError, EOFError, gzip.BadGzipFile):
            pass
        if path is None or data is None:
            self.send_error(404, "no such excerpt")
            return
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPES[path.suffix])
        if encoding:
            self.send_header("Content-Encoding", encoding)
        if path.suffix == ".html":
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _refuse(self) -> None:
        self.send_error(405, "read-only")

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815


def excerpt_server(root: Path, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server of the excerpts under ``root`` (not started: ``serve_forever``)."""
    return ThreadingHTTPServer((host, port), partial(ExcerptHandler, root=root))
