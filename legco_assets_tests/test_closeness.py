"""A miss says so: each hit's ``match`` (strong / weak) and the response's ``no_close_match``,
over HTTP, on the search page and through the MCP tool, on a real server over the sample
papers; and the judgement leaves the ranking as it was."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import Candidate, Hit
from legco_assets.core.search.closeness import STRONG, WEAK, Closeness, judge

from .conftest import store_settings
from .servers import SearchService, search_service

# the English sample's own question, as printed, and a question no LegCo paper here touches
ASKED = "Can recipients who reside in Guangdong or Fujian continue to receive the allowances?"
NOWHERE = "What temperature should I bake a chocolate sponge cake at, and for how long?"
NOTE = "nothing in these papers answers this closely"


@pytest.fixture(scope="module")
def service(served_store: Path) -> Iterator[SearchService]:
    with search_service(store_settings(served_store)) as running:
        yield running


def search(service: SearchService, **params: Any) -> dict[str, Any]:
    url = service.base + "/api/search?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=60) as reply:
        return json.loads(reply.read())


def _record(chunk_id: str) -> ChunkRecord:
    return ChunkRecord.from_json({"id": chunk_id, "document_id": "d", "text": chunk_id, "page_number": 1})


def test_a_hit_is_strong_when_any_rankers_own_score_reaches_its_threshold() -> None:
    a, b, c = _record("d:token:0"), _record("d:token:1"), _record("d:token:2")
    rankings = {
        "vector": [Candidate(a, 0.61), Candidate(b, 0.20)],
        "question": [Candidate(b, 0.30)],
        "bm25": [Candidate(c, 7.0, coverage=0.9), Candidate(b, 3.0, coverage=0.2)],
    }
    hits = [Hit(r, n, 1.0 / n) for n, r in enumerate((a, b, c), start=1)]
    closeness = Closeness(vector=0.5, question=0.5, coverage=0.8)
    assert judge(rankings, hits, closeness) == [STRONG, WEAK, STRONG]
    assert judge(rankings, hits, Closeness(vector=0.7, question=0.25, coverage=0.95)) == [WEAK, STRONG, WEAK]


@pytest.mark.parametrize("strategy", ["question", "token"])
def test_a_question_the_papers_answer_gets_a_strong_hit(service: SearchService, strategy: str) -> None:
    data = search(service, q=ASKED, k=5, strategy=strategy)
    assert data["hits"][0]["match"] == "strong" and data["no_close_match"] is False and data["note"] is None
    assert "Guangdong" in data["hits"][0]["text"]


@pytest.mark.parametrize("strategy", ["question", "token"])
def test_a_question_nothing_answers_says_so(service: SearchService, strategy: str) -> None:
    data = search(service, q=NOWHERE, k=5, strategy=strategy)
    assert data["hits"] and all(h["match"] == "weak" for h in data["hits"])
    assert data["no_close_match"] is True and data["note"] == NOTE
    url = service.base + "/?" + urllib.parse.urlencode({"q": NOWHERE, "strategy": strategy})
    page = urllib.request.urlopen(url, timeout=60).read().decode()
    results = page[page.index('<div id="results">') :]
    assert results.index(NOTE) < results.index('class="hit"')
    answered = (
        urllib.request.urlopen(
            service.base + "/?" + urllib.parse.urlencode({"q": ASKED, "strategy": strategy}), timeout=60
        )
        .read()
        .decode()
    )
    assert NOTE not in answered


def test_the_judgement_leaves_the_ranking_as_it_was(service: SearchService) -> None:
    """The hits are the ones the retriever ranks, in its order (``legco-assets query``)."""
    retriever = service.context.index.current().retriever  # type: ignore[attr-defined]
    for query in (ASKED, NOWHERE):
        ranked = [h.id for h in retriever.search(query, 5, "token")]
        assert [h["id"] for h in search(service, q=query, k=5, strategy="token")["hits"]] == ranked


async def _tool(base: str, query: str) -> dict[str, Any]:
    async with Client(base + "/mcp") as client:
        result = await client.call_tool("search", {"query": query, "k": 3})
        assert not result.is_error
        return result.structured_content or json.loads(result.content[0].text)


def test_the_mcp_tool_says_so_too(service: SearchService) -> None:
    missed = anyio.run(_tool, service.base, NOWHERE)
    assert missed["no_close_match"] is True and missed["note"] == NOTE
    assert {h["match"] for h in missed["hits"]} == {"weak"}
    found = anyio.run(_tool, service.base, ASKED)
    assert found["no_close_match"] is False and found["hits"][0]["match"] == "strong"
