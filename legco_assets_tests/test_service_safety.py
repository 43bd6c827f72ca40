"""``legco-assets serve`` is safe by default: read-only, only the excerpts and the
API served (traversal, encoded or not, the Dagster instance, Chroma's files and a paper's
other artifacts are 404s), limits on the query, ``k``, the body and the requests in flight
answered with a 4xx and one line, never a 500 or a traceback; an HTML paper's chunk
excerpt is its page. One real server on 127.0.0.1 over a copy of the shared store with an
HTML paper added."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from legco_assets.service import MAX_BODY_BYTES, MAX_CONCURRENT, MAX_QUERY_CHARS

from .conftest import TESTS, store_settings
from .runs import cli
from .servers import SearchService, search_service

HTML_PAPER = TESTS / "fixtures" / "html" / "ld_faq_annual_leave_tc.html"


@pytest.fixture(scope="module")
def home(served_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("safety") / "home"
    shutil.copytree(served_store, copy)
    done = cli("ingest", str(HTML_PAPER), "--strategy", "question", home=copy)
    assert done.returncode == 0, done.stderr[-2000:]
    (copy / "data" / "dagster_home").mkdir(exist_ok=True)
    (copy / "data" / "dagster_home" / "dagster.yaml").write_text("secret: 1", encoding="utf-8")
    return copy


@pytest.fixture(scope="module")
def service(home: Path) -> Iterator[SearchService]:
    with search_service(store_settings(home)) as running:
        yield running


def raw(service: SearchService, method: str, path: str, body: bytes | None = None, **headers: str):
    """One request as sent (no client-side normalising of ``..``): status, headers, body."""
    host, port = service.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name.replace("_", "-"), value)
        if body is not None and "Content_Length" not in headers:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


def one_line(body: bytes) -> str:
    """A refusal's reason: JSON ``{"detail": one line}``, no traceback."""
    detail = json.loads(body)["detail"]
    assert isinstance(detail, str) and "\n" not in detail and "Traceback" not in detail, detail
    return detail


def document_of_html(home: Path) -> str:
    return next(p.name for p in (home / "data" / "documents").iterdir() if p.name.startswith("ld-faq"))


REFUSED = [
    "/../dagster_home/dagster.yaml",
    "/%2e%2e/dagster_home/dagster.yaml",
    "/..%2fdagster_home%2fdagster.yaml",
    "/sample-zh-qa/excerpts/..%2f..%2f..%2fdagster_home%2fdagster.yaml",
    "/sample-zh-qa/excerpts/%2e%2e/page_text.json",
    "/sample-zh-qa/excerpts/%2e%2e%2f%2e%2e%2fchroma%2fchroma.sqlite3",
    "/sample-zh-qa/page_text.json",
    "/sample-zh-qa/source.pdf",
    "/sample-zh-qa/chunks-question.jsonl",
    "/sample-zh-qa/excerpts/question.pdf.update",
    "/sample-zh-qa/excerpts/question.json",
    "/sample-zh-qa/excerpts/question.pdf",  # a strategy's whole copy: the cuts' source, no URL
    "/..%2fdagster_home/excerpts/question.pdf",
    "/%2e%2e/excerpts/question.pdf",
    "/dagster_home/dagster.yaml",
    "/chroma/chroma.sqlite3",
    "/data/chroma/chroma.sqlite3",
    "/excerpt/..%2F..%2Fdagster_home%2Fdagster.yaml",
    "/excerpt/%2e%2e%3Atoken%3A0",
    "/excerpt/..%3Atoken%3A0",
    "/excerpt/sample-zh-qa%3Atoken%3A999",
    "/excerpt/",
    "/api/chunks/..%2F..%2Fdagster_home",
]


@pytest.mark.parametrize("path", REFUSED)
def test_only_the_excerpts_and_the_api_are_served(service: SearchService, path: str) -> None:
    status, _, body = raw(service, "GET", path)
    assert status == 404, (path, body[:200])
    assert b"secret" not in body and b"SQLite" not in body
    one_line(body)


def test_an_html_papers_chunk_excerpt_is_an_html_page(service: SearchService, home: Path) -> None:
    key = document_of_html(home)
    status, headers, body = raw(service, "GET", f"/excerpt/{urllib.parse.quote(key)}%3Aquestion%3A1")
    assert status == 200 and headers["content-type"].startswith(("text/html", "text/plain"))
    assert headers["x-content-type-options"] == "nosniff" and body


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["/api/search", "/api/documents", "/", "/excerpt/sample-zh-qa%3Atoken%3A0"])
def test_writes_are_refused(service: SearchService, method: str, path: str) -> None:
    status, _, body = raw(service, method, path, b"{}", Content_Type="application/json")
    assert status == 405 and "read-only" in one_line(body)


@pytest.mark.parametrize(
    "query, status",
    [
        ({"q": "x" * (MAX_QUERY_CHARS + 1)}, 422),
        ({"q": "   "}, 400),
        ({"q": "wage", "k": "0"}, 422),
        ({"q": "wage", "k": "51"}, 422),
        ({"q": "wage", "k": "many"}, 422),
        ({"q": "wage", "strategy": "sideways"}, 422),
        ({"q": "wage", "mode": "psychic"}, 422),
        ({"q": "wage", "language": "fr"}, 400),
        ({}, 422),
    ],
)
def test_bad_searches_get_a_4xx_with_one_line(service: SearchService, query: dict, status: int) -> None:
    got, _, body = raw(service, "GET", "/api/search?" + urllib.parse.urlencode(query))
    assert got == status, body
    one_line(body)


def test_the_page_refuses_a_long_query_with_a_400_page(service: SearchService) -> None:
    status, headers, body = raw(service, "GET", "/?" + urllib.parse.urlencode({"q": "字" * 600}))
    assert status == 400 and headers["content-type"].startswith("text/html")
    assert f"over {MAX_QUERY_CHARS} characters".encode() in body


def test_a_body_over_the_limit_is_refused_declared_or_streamed(service: SearchService) -> None:
    big = json.dumps({"question": "x" * (MAX_BODY_BYTES + 10)}).encode()
    status, _, body = raw(service, "POST", "/api/answer", big, Content_Type="application/json")
    assert status == 413 and str(MAX_BODY_BYTES) in one_line(body)
    host, port = service.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:  # chunked: no length up front
        sock.sendall(
            b"POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        part = b"x" * 16384
        for _ in range(MAX_BODY_BYTES // len(part) + 2):
            sock.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
        sock.sendall(b"0\r\n\r\n")
        reply = sock.recv(65536).decode(errors="replace")
    assert reply.startswith("HTTP/1.1 413"), reply[:200]


def test_bad_json_and_a_bad_answer_request_are_4xx(service: SearchService) -> None:
    status, _, body = raw(service, "POST", "/api/answer", b"{not json", Content_Type="application/json")
    assert status == 422
    one_line(body)
    status, _, body = raw(
        service, "POST", "/api/answer", b'{"question": ""}', Content_Type="application/json"
    )
    assert status == 422
    one_line(body)


def test_requests_past_the_concurrency_limit_get_a_429(service: SearchService) -> None:
    """Hold MAX_CONCURRENT requests open (each a POST whose body never ends), then one more."""
    host, port = service.base.removeprefix("http://").split(":")
    held = []
    try:
        for _ in range(MAX_CONCURRENT):
            sock = socket.create_connection((host, int(port)), timeout=30)
            sock.sendall(
                b"POST /api/answer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{"
            )
            held.append(sock)
        status, _, body = _eventually_refused(service)
        assert status == 429 and "too many requests" in one_line(body)
    finally:
        for sock in held:
            sock.close()
    assert raw(service, "GET", "/api/documents")[0] == 200  # the slots come back


def _eventually_refused(service: SearchService, tries: int = 50):
    """The first refused request: the held ones take their slots as the server reads them."""
    import time

    for _ in range(tries):
        got = raw(service, "GET", "/api/documents")
        if got[0] != 200:
            return got
        time.sleep(0.1)
    return got


def test_the_mcp_endpoint_checks_the_host_it_is_asked_by(service: SearchService) -> None:
    """A page on another site cannot reach the local MCP endpoint (DNS rebinding)."""
    status, _, _ = raw(
        service,
        "POST",
        "/mcp",
        b"{}",
        Content_Type="application/json",
        Accept="application/json, text/event-stream",
        Host="evil.example:80",
    )
    assert status in (400, 403, 421)
