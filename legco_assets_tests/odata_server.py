"""A small LegCo-Hansard-shaped OData v3 server for tests, on 127.0.0.1 in a thread.

It answers ``GET /OpenData/HansardDB/Hansard?$format=json&$filter=…`` like the real
"Database on Official Record of Proceedings": it applies the ``MeetingDate ge/le`` and
``HansardType eq`` terms of ``$filter``, orders by meeting date, and pages ``page_size``
records at a time with an absolute ``odata.nextLink`` (``$skip``). Records alternate the two
OData v3 JSON date forms (``/Date(ms)/`` and ISO). Files are served under ``/files/NAME``.

Faults are scripted per path, consumed in order (``fault(path, *faults)``; the feed's path
is ``FEED_PATH``): ``Fault.status(500)``, ``Fault.slow(seconds)`` (answers after that long),
``Fault.html()`` (a 200 HTML page, as a portal's error page), ``Fault.redirect(url)`` (a 302
to ``url``). ``hits`` counts requests per path, faults included; ``feed_queries`` (and
``questions_queries``) keep each feed request's query parameters. A file added with ``stream=True`` is sent in 64 KiB blocks
without a ``Content-Length`` until done or the client hangs up (``bytes_sent`` counts them).

The ``Questions`` entity (``QUESTIONS_PATH``) is served like LegCo's: records with
``MeetingDate``, ``QuestionType`` (``Oral``/``Written``), ``Subject``, ``Speaker``,
``SpeakerID``, ``RundownID``, ``HansardID``, ``HansardType``, ``HansardFileURL``, filtered by
the ``MeetingDate eq`` / ``ge`` / ``le`` and ``HansardType eq`` terms and paged the same way
(``add_question``).

    # conftest.py registers this module as a plugin: the fixture is there by name
    def test_x(odata_server):
        odata_server.add_record("1001", "2024-01-10", "Chinese", b"%PDF-1.7 …")
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

FEED_PATH = "/OpenData/HansardDB/Hansard"
QUESTIONS_PATH = "/OpenData/HansardDB/Questions"
_EQ = re.compile(r"MeetingDate eq datetime'(\d{4}-\d{2}-\d{2})")
_GE = re.compile(r"MeetingDate ge datetime'(\d{4}-\d{2}-\d{2})")
_LE = re.compile(r"MeetingDate le datetime'(\d{4}-\d{2}-\d{2})")
_TYPE = re.compile(r"HansardType eq '(\w+)'")


@dataclass(frozen=True)
class Fault:
    kind: str  # status | slow | html | redirect
    status_code: int = 500
    seconds: float = 0.0
    location: str = ""

    @classmethod
    def redirect(cls, location: str) -> Fault:
        return cls("redirect", status_code=302, location=location)

    @classmethod
    def status(cls, code: int) -> Fault:
        return cls("status", status_code=code)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls("slow", seconds=seconds)

    @classmethod
    def html(cls) -> Fault:
        return cls("html")


class FakeHansardServer:
    def __init__(self, page_size: int = 2) -> None:
        self.page_size = page_size
        self.records: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        self.streamed: set[str] = set()
        self.bytes_sent: Counter[str] = Counter()
        self.questions: list[dict[str, Any]] = []
        self.hits: Counter[str] = Counter()
        self.feed_queries: list[dict[str, str]] = []
        self.questions_queries: list[dict[str, str]] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._faults: dict[str, deque[Fault]] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- scripting ------------------------------------------------------------------------
    @property
    def root(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/OpenData/HansardDB"

    def add_question(
        self,
        hansard_id: str,
        meeting_date: str,
        hansard_type: str,
        question_type: str,
        subject: str,
        speaker: str,
        speaker_id: int,
        rundown_id: int,
        file_url: str = "",
    ) -> dict[str, Any]:
        """One ``Questions`` record of a meeting, in the published shape (``/Date(ms)/`` dates)."""
        day = date.fromisoformat(meeting_date)
        ms = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)
        record = {
            "MeetingDate": f"/Date({ms})/",
            "QuestionType": question_type,
            "Subject": subject,
            "Speaker": speaker,
            "SpeakerID": speaker_id,
            "RundownID": rundown_id,
            "HansardID": int(hansard_id) if hansard_id.isdigit() else hansard_id,
            "HansardType": hansard_type,
            "HansardFileURL": file_url,
            "_day": meeting_date,
        }
        with self._lock:
            self.questions.append(record)
        return record

    def add_file(self, name: str, content: bytes, stream: bool = False) -> str:
        """A file served at ``/files/NAME`` (``stream``: without a length, block by block)."""
        with self._lock:
            self.files[f"/files/{name}"] = content
            if stream:
                self.streamed.add(f"/files/{name}")
        return f"{self.root}/files/{name}"

    def add_record(
        self,
        hansard_id: str,
        meeting_date: str,
        hansard_type: str,
        content: bytes | None,
        name: str | None = None,
    ) -> str:
        """A record whose file is served with ``content`` (None: the file is missing, 404)."""
        name = name or f"{hansard_id}.pdf"
        day = date.fromisoformat(meeting_date)
        if len(self.records) % 2 == 0:
            ms = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)
            when = f"/Date({ms})/"
        else:
            when = f"{meeting_date}T00:00:00"
        with self._lock:
            self.records.append(
                {
                    "HansardID": int(hansard_id) if hansard_id.isdigit() else hansard_id,
                    "MeetingDate": when,
                    "HansardType": hansard_type,
                    "HansardFileURL": f"{self.root}/files/{name}",
                    "_day": meeting_date,
                }
            )
            if content is not None:
                self.files[f"/files/{name}"] = content
        return f"{self.root}/files/{name}"

    def fault(self, path: str, *faults: Fault) -> None:
        with self._lock:
            self._faults.setdefault(path, deque()).extend(faults)

    # -- serving --------------------------------------------------------------------------
    def _next_fault(self, path: str) -> Fault | None:
        with self._lock:
            queue = self._faults.get(path)
            return queue.popleft() if queue else None

    def _feed_page(self, query: dict[str, str]) -> dict[str, Any]:
        return self._entity_page(query, "Hansard")

    def _questions_page(self, query: dict[str, str]) -> dict[str, Any]:
        return self._entity_page(query, "Questions")

    def _entity_page(self, query: dict[str, str], entity: str) -> dict[str, Any]:
        where = query.get("$filter", "")
        ge, le, eq, types = _GE.search(where), _LE.search(where), _EQ.search(where), set(_TYPE.findall(where))
        with self._lock:
            rows = [
                r
                for r in (self.records if entity == "Hansard" else self.questions)
                if (not ge or r["_day"] >= ge.group(1))
                and (not le or r["_day"] <= le.group(1))
                and (not eq or r["_day"] == eq.group(1))
                and (not types or r["HansardType"] in types)
            ]
        rows.sort(key=lambda r: r["_day"])
        skip = int(query.get("$skip", 0))
        page = [
            {k: v for k, v in r.items() if not k.startswith("_")} for r in rows[skip : skip + self.page_size]
        ]
        reply: dict[str, Any] = {"odata.metadata": f"{self.base_url}/$metadata#{entity}", "value": page}
        if skip + self.page_size < len(rows):
            reply["odata.nextLink"] = f"{self.base_url}/{entity}?" + urlencode(
                {**query, "$skip": str(skip + self.page_size)}
            )
        return reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _stream(self, path: str, body: bytes) -> None:
                """HTTP/1.0 style: no length, the body ends when the connection closes."""
                self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.end_headers()
                try:
                    for at in range(0, len(body), 1 << 16):
                        self.wfile.write(body[at : at + (1 << 16)])
                        self.wfile.flush()
                        with server._lock:
                            server.bytes_sent[path] += len(body[at : at + (1 << 16)])
                        time.sleep(0.002)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

            def do_GET(self) -> None:  # noqa: N802
                parts = urlsplit(self.path)
                with server._lock:
                    server.hits[parts.path] += 1
                    server._in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server._in_flight)
                self._unanswered = True
                try:
                    self._serve(parts)
                finally:
                    self._answered()

            def end_headers(self) -> None:
                # A request stops counting as in flight once its answer starts: the client
                # may start its next request as soon as this one's body arrives, before this
                # thread gets the CPU back (a loaded machine saw 3 "in flight" of 2)
                self._answered()
                super().end_headers()

            def _answered(self) -> None:
                if getattr(self, "_unanswered", False):
                    self._unanswered = False
                    with server._lock:
                        server._in_flight -= 1

            def _serve(self, parts: Any) -> None:
                fault = server._next_fault(parts.path)
                if fault and fault.kind == "slow":
                    time.sleep(fault.seconds)
                elif fault and fault.kind == "status":
                    self._send(fault.status_code, b"<html><body>Server Error</body></html>", "text/html")
                    return
                elif fault and fault.kind == "html":
                    self._send(
                        200,
                        b"<!DOCTYPE html><html><body>Sorry, the page is under maintenance.</body></html>",
                        "text/html",
                    )
                    return
                elif fault and fault.kind == "redirect":
                    self.send_response(fault.status_code)
                    self.send_header("Location", fault.location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if parts.path in (FEED_PATH, QUESTIONS_PATH):
                    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                    with server._lock:
                        (server.feed_queries if parts.path == FEED_PATH else server.questions_queries).append(
                            query
                        )
                    page = (
                        server._feed_page(query) if parts.path == FEED_PATH else server._questions_page(query)
                    )
                    self._send(200, json.dumps(page).encode(), "application/json;odata=minimalmetadata")
                elif parts.path in server.streamed:
                    self._stream(parts.path, server.files[parts.path])
                elif parts.path in server.files:
                    time.sleep(0.05)  # long enough for two downloads to overlap
                    self._send(200, server.files[parts.path], "application/pdf")
                else:
                    self._send(404, b"<html><body>Not Found</body></html>", "text/html")

        return Handler

    def start(self) -> FakeHansardServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()


@pytest.fixture
def odata_server() -> Iterator[FakeHansardServer]:
    server = FakeHansardServer().start()
    try:
        yield server
    finally:
        server.stop()
