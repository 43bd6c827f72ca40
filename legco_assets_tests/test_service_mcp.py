"""The MCP tools through the official SDK's own client: over streamable HTTP at
``/mcp`` of the running server, and over stdio (``legco-assets mcp`` as a subprocess, as a
desktop assistant starts it). A malformed call gets a JSON-RPC error."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from .conftest import REPO, store_settings
from .servers import SearchService, search_service

TOOLS = {"search", "get_chunk", "list_documents"}


@pytest.fixture(scope="module")
def service(served_store: Path) -> Iterator[SearchService]:
    with search_service(store_settings(served_store)) as running:
        yield running


def structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def exercise(target: Any) -> dict[str, Any]:
    """List the tools and call each, as an assistant would; what came back."""
    async with Client(target) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        found = structured(
            await client.call_tool("search", {"query": "水浸黑點", "k": 2, "strategy": "question"})
        )
        english = structured(await client.call_tool("search", {"query": "Guangdong Scheme", "k": 1}))
        chunk = structured(await client.call_tool("get_chunk", {"id": found["hits"][0]["id"]}))
        documents = structured(await client.call_tool("list_documents", {}))
        missing = await client.call_tool("get_chunk", {"id": "nope:token:0"})
        bad_k = await client.call_tool("search", {"query": "x", "k": 999})
        # the filters, as an assistant narrows a search: by the first hit's kind, and by a
        # date range no stored paper falls in
        same_kind = structured(
            await client.call_tool(
                "search",
                {"query": "水浸黑點", "k": 3, "strategy": "question", "kind": [found["hits"][0]["kind"]]},
            )
        )
        no_date = structured(
            await client.call_tool("search", {"query": "水浸黑點", "k": 3, "date_from": "2999-01-01"})
        )
        return {
            "same_kind": same_kind,
            "no_date": no_date,
            "tools": tools,
            "found": found,
            "english": english,
            "chunk": chunk,
            "documents": documents,
            "missing": missing,
            "bad_k": bad_k,
        }


def check(seen: dict[str, Any], excerpt_base: str) -> None:
    tools = seen["tools"]
    assert TOOLS <= set(tools)
    assert "LegCo" in tools["search"].description and "excerpt_url" in tools["search"].description
    assert set(tools["search"].input_schema["properties"]) == {
        "query",
        "k",
        "strategy",
        "document",
        "date_from",
        "date_to",
        "kind",
        "speaker",
        "sort",
    }
    hits = seen["found"]["hits"]
    assert len(hits) == 2 and hits[0]["document_id"] == "sample-zh-qa" and hits[0]["question_id"] == "A1"
    assert all(h["excerpt_url"].startswith(excerpt_base + "excerpt/") for h in hits)
    assert seen["english"]["hits"][0]["document_id"] == "sample-en-qa"
    assert seen["chunk"]["id"] == hits[0]["id"] and seen["chunk"]["metadata"]["strategy_type"] == "question"
    assert {d["document_id"] for d in seen["documents"]["documents"]} == {"sample-zh-qa", "sample-en-qa"}
    assert seen["missing"].is_error and "no such chunk" in seen["missing"].content[0].text
    assert seen["bad_k"].is_error
    kind = hits[0]["kind"]
    assert len(seen["same_kind"]["hits"]) == 3 and {h["kind"] for h in seen["same_kind"]["hits"]} == {kind}
    assert seen["no_date"]["hits"] == []


def test_the_tools_over_streamable_http(service: SearchService) -> None:
    seen = anyio.run(exercise, service.base + "/mcp")
    check(seen, service.base + "/")


def test_the_tools_over_stdio(served_store: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_", "EXCERPTS_"))
    }
    env.update(
        LEGCO_DATA_DIR=str(served_store / "data"),
        DAGSTER_HOME=str(served_store / "dagster_home"),
        EXCERPTS_BASE_URL="http://127.0.0.1:8000/",
    )
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "legco_assets.cli", "mcp"], env=env, cwd=str(REPO)
    )
    seen = anyio.run(exercise, params)
    check(seen, "http://127.0.0.1:8000/")


def test_a_malformed_call_gets_a_json_rpc_error(service: SearchService) -> None:
    """Bad JSON, and a request for a method that does not exist, each a JSON-RPC error object."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    for body, code in ((b"{not json", -32700), (json.dumps({"jsonrpc": "2.0", "id": 1}).encode(), None)):
        request = urllib.request.Request(service.base + "/mcp", data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                payload = reply.read()
        except urllib.error.HTTPError as exc:
            assert 400 <= exc.code < 500
            payload = exc.read()
        error = _json_rpc(payload)["error"]
        assert isinstance(error["code"], int) and error["message"]
        if code is not None:
            assert error["code"] == code


def _json_rpc(payload: bytes) -> dict[str, Any]:
    """The JSON-RPC message of a reply, plain JSON or the data line of an SSE event."""
    text = payload.decode()
    if text.lstrip().startswith("{"):
        return json.loads(text)
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[0])


def test_a_search_of_an_unknown_document_is_a_tool_error(service: SearchService) -> None:
    async def call() -> Any:
        async with Client(service.base + "/mcp") as client:
            return await client.call_tool("search", {"query": "allowance", "document": "no-such-paper"})

    result = anyio.run(call)
    assert result.is_error and "no such document: no-such-paper" in result.content[0].text
