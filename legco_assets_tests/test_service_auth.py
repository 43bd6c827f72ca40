"""``SERVE_TOKEN``: ``serve`` bound to an address others reach refuses to start without it;
with it, every route but ``/health`` answers 401 and one line unless the request carries it
(the API and MCP as ``Authorization: Bearer``, the page as the cookie one visit with
``?token=`` sets). A real server on 127.0.0.1 over the shared store, with the token set."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from .conftest import store_settings
from .runs import cli, error_lines
from .servers import SearchService, search_service

TOKEN = "a-long-enough-test-token-0123456789"


@pytest.fixture(scope="module")
def service(served_store: Path) -> Iterator[SearchService]:
    with search_service(store_settings(served_store).with_(serve_token=TOKEN)) as running:
        yield running


def get(service: SearchService, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    host, port = service.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        connection.request("GET", path, headers=headers)
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


def one_line_401(status: int, body: bytes) -> str:
    assert status == 401
    detail = json.loads(body)["detail"]
    assert "\n" not in detail and detail
    return detail


def test_serve_on_a_reachable_host_without_a_token_refuses_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "dagster_home").mkdir()
    done = cli("serve", "--host", "0.0.0.0", "--port", "1", home=tmp_path, env={"SERVE_TOKEN": ""})
    assert done.returncode != 0
    lines = error_lines(done.stderr)
    assert len(lines) == 1 and "SERVE_TOKEN" in lines[0], done.stderr
    assert "loading" not in done.stderr  # refused before loading anything


def test_a_short_token_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "dagster_home").mkdir()
    done = cli("serve", "--host", "0.0.0.0", home=tmp_path, env={"SERVE_TOKEN": "short"})
    assert done.returncode != 0
    lines = error_lines(done.stderr)
    assert len(lines) == 1 and "SERVE_TOKEN" in lines[0] and "short" not in lines[0], done.stderr


def test_health_is_open(service: SearchService) -> None:
    status, _, body = get(service, "/health")
    assert status == 200 and json.loads(body) == {"status": "ok"}


@pytest.mark.parametrize(
    "path",
    [
        "/api/search?q=" + urllib.parse.quote("最低工資"),
        "/api/documents",
        "/api/chunks/sample-zh-qa:question:0",
        "/excerpt/sample-zh-qa:question:0",
        "/docs",
        "/openapi.json",
        "/",
    ],
)
def test_every_other_route_asks_for_the_token(service: SearchService, path: str) -> None:
    status, headers, body = get(service, path)
    assert "token" in one_line_401(status, body).lower()
    assert headers["www-authenticate"] == "Bearer"
    status, _, body = get(service, path, Authorization="Bearer not-the-token")
    one_line_401(status, body)
    status, _, _ = get(service, path, Authorization=f"Bearer {TOKEN}")
    assert status == 200


def test_the_api_answers_with_the_bearer_token(service: SearchService) -> None:
    path = "/api/search?strategy=question&q=" + urllib.parse.quote("水浸黑點")
    status, _, body = get(service, path, Authorization=f"Bearer {TOKEN}")
    assert status == 200 and json.loads(body)["hits"][0]["document_id"] == "sample-zh-qa"


def test_the_page_sets_its_cookie_after_one_visit_with_the_token(service: SearchService) -> None:
    status, headers, _ = get(service, f"/?token={urllib.parse.quote(TOKEN)}&strategy=question")
    assert status == 303 and headers["location"] == "/?strategy=question"  # the token leaves the URL
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and TOKEN not in cookie
    session = cookie.split(";")[0]
    status, _, body = get(service, "/?q=" + urllib.parse.quote("水浸黑點"), Cookie=session)
    assert status == 200 and "sample-zh-qa" in body.decode()
    status, _, _ = get(service, "/excerpt/sample-zh-qa:question:0", Cookie=session)
    assert status == 200  # the page's excerpt links open with the same cookie
    status, _, body = get(service, "/", Cookie=session[:-1] + "0")  # a forged cookie
    one_line_401(status, body)
    status, _, body = get(service, "/?token=wrong")
    assert one_line_401(status, body) == "wrong token"


async def _mcp_search(url: str, headers: dict[str, str]) -> dict:
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            result = await client.call_tool("search", {"query": "水浸黑點", "k": 1, "strategy": "question"})
            assert not result.is_error, result.content
            return result.structured_content or json.loads(result.content[0].text)


def test_mcp_over_http_takes_the_header(service: SearchService) -> None:
    found = anyio.run(_mcp_search, service.base + "/mcp", {"Authorization": f"Bearer {TOKEN}"})
    assert found["hits"][0]["document_id"] == "sample-zh-qa"
    with pytest.raises(Exception, match="error"):  # the SDK's client: "Server returned an error response"
        anyio.run(_mcp_search, service.base + "/mcp", {})
    host, port = service.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=60)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    connection.request("POST", "/mcp", json.dumps(initialize), {"Content-Type": "application/json"})
    reply = connection.getresponse()
    one_line_401(reply.status, reply.read())  # what that error response was
    connection.close()
