"""LLM reranking: with an LLM configured, hybrid search has the model re-order the fused top
chunks, through the real ``openai`` client against the local test server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from legco_assets.core.search import (
    DEPTH,
    PASSAGE_CHARS,
    RERANKED,
    Retriever,
    open_collection,
    parse_ranking,
    reorder,
    replace_document,
    rerank_messages,
)
from legco_assets.core.settings import Settings

from .factories import EN_PAIRS, ZH_PAIRS, chunk_record, question_records
from .llm_server import FakeLLMServer, Fault, short_limit_for
from .runs import cli_in_process

ASKED = "What is the fine for running a care home without a licence?"


def test_the_reply_is_read_strictly_and_the_named_passages_go_first() -> None:
    assert parse_ranking('{"ranking": [3, 1]}', 5) == [2, 0]
    assert parse_ranking('```json\n{"ranking": ["2"]}\n```', 5) == [1], "fenced, numbers as strings"
    assert parse_ranking("[4, 4, 9, 0, 2]", 5) == [3, 1], (
        "a bare list; repeats and numbers outside 1..5 dropped"
    )
    assert parse_ranking('{"ranking": []}', 5) is None, "naming none leaves the fused order"
    assert parse_ranking('{"order": [1]}', 5) is None and parse_ranking("Passage 2 is best.", 5) is None
    assert reorder(["a", "b", "c", "d"], [2, 0]) == ["c", "a", "b", "d"]
    assert reorder(["a", "b"], []) == ["a", "b"]


def test_the_model_reads_the_query_and_the_start_of_each_passage() -> None:
    records = [
        chunk_record("x:question:0", "Q1 long\n" + "字" * 3000, document_id="x", page_number=3),
        chunk_record("y:question:0", "Q2 short", document_id="y"),
    ]
    system, user = rerank_messages(ASKED, records)
    assert "JSON" in system["content"] and user["content"].startswith(f"Query: {ASKED}")
    assert "[1] x, page 3\nQ1 long" in user["content"] and "[2] y, page 1\nQ2 short" in user["content"]
    assert user["content"].count("字") == PASSAGE_CHARS - len("Q1 long\n") and "字 …" in user["content"]


def test_hybrid_search_puts_the_chunk_the_model_names_first(llm_store, llm_server: FakeLLMServer) -> None:
    settings, collection = llm_store
    fused = Retriever.open(settings, collection=collection, translate=False, rerank=False).search(
        ASKED, k=5, strategy="question"
    )
    last = len(fused)
    llm_server.enqueue(json.dumps({"ranking": [last, 1]}))
    retriever = Retriever.open(settings, collection=collection, translate=False)
    hits = retriever.search(ASKED, k=5, strategy="question")
    assert [h.id for h in hits] == [fused[-1].id, fused[0].id] + [h.id for h in fused[1:-1]]
    assert (
        [h.rank for h in hits] == list(range(1, last + 1))
        and hits[0].ranks[RERANKED] == 1
        and hits[1].ranks[RERANKED] == 2
    )
    assert all(RERANKED not in h.ranks for h in hits[2:]), (
        "chunks it did not name keep the fused order, unmarked"
    )
    sent = llm_server.requests[-1][1]["messages"][-1]["content"]
    assert sent.startswith(f"Query: {ASKED}") and sent.count("\n[") == min(last, DEPTH) == 5
    retriever.search(ASKED, k=5, strategy="question")
    Retriever.open(settings, collection=collection, translate=False).search(ASKED, k=5, strategy="question")
    assert llm_server.calls["chat"] == 1, "one call, then the LLM cache"


def test_search_calls_are_not_held_to_the_per_document_budget(llm_store, llm_server: FakeLLMServer) -> None:
    settings, collection = llm_store
    retriever = Retriever.open(settings.with_(llm_max_calls_per_document=1), collection=collection)
    for query in (ASKED, "Who inspects care homes?"):
        llm_server.enqueue(json.dumps({"translation": "安老院"}), json.dumps({"ranking": [2]}))
        hits = retriever.search(query, k=5, strategy="question")
        assert hits[0].ranks[RERANKED] == 1, "translated and reranked, budget or not"
    assert llm_server.calls["chat"] == 4


@pytest.mark.parametrize(
    "fault",
    [
        Fault.status(500),
        Fault.status(429),
        Fault.timeout(2.0),
        Fault.bad_json(),
        '{"ranking": [42]}',
        "The second passage.",
    ],
)
def test_a_failed_reranking_keeps_the_fused_order(llm_store, llm_server: FakeLLMServer, fault: Any) -> None:
    settings, collection = llm_store
    settings = short_limit_for(settings, fault)
    llm_server.enqueue(fault, fault)  # the first try and the reranker's one retry
    hits = Retriever.open(settings, collection=collection, translate=False).search(
        ASKED, k=5, strategy="question"
    )
    fused = Retriever.open(settings, collection=collection, translate=False, rerank=False).search(
        ASKED, k=5, strategy="question"
    )
    assert [(h.id, h.score, h.rank) for h in hits] == [(h.id, h.score, h.rank) for h in fused]
    assert not any(RERANKED in h.ranks for h in hits)


def test_query_command_says_the_llm_reordered_the_chunks(
    llm_server: FakeLLMServer, env_data_dir: Path, monkeypatch
) -> None:
    monkeypatch.setenv("LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("LLM_MODEL_NAME", llm_server.model)
    collection = open_collection(Settings.from_env())
    replace_document(collection, question_records("drain", ZH_PAIRS, "a" * 64), "drain", "question", "a" * 64)
    replace_document(
        collection, question_records("elderly", EN_PAIRS, "b" * 64), "elderly", "question", "b" * 64
    )
    llm_server.enqueue('{"ranking": [2]}')
    code, out, err = cli_in_process("query", ASKED, "--strategy", "question", "-k", "2", "--no-translate")
    assert (
        code == 0
        and "re-ordered by the LLM" in err
        and out.startswith("#1")
        and "reranked 1" in out.splitlines()[0]
    )
    code, out, err = cli_in_process(
        "query", ASKED, "--strategy", "question", "-k", "2", "--no-translate", "--no-rerank"
    )
    assert code == 0 and "reranked" not in out + err and llm_server.calls["chat"] == 1
