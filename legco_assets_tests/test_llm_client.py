"""The one LLM client: cache by content, budgets that hold under concurrency, no key leaks."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from legco_assets.core.llm import LLMBudgetExceeded, LLMError

from .llm_server import FakeLLMServer, Fault


def _ask(client, n: int) -> str:
    return client.complete("test", "v1", [{"role": "user", "content": f"question {n}"}], cache_payload=n)


def test_call_budget_is_never_overshot_by_concurrent_callers(llm_server: FakeLLMServer) -> None:
    llm_server.latency = 0.3
    client = llm_server.client(max_calls=3, max_concurrency=8)
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda n: _try(client, n), range(10)))
    assert outcomes.count("ok") == 3 and outcomes.count("budget") == 7
    assert llm_server.calls["chat"] == 3 and client.stats.calls == 3


def _try(client, n: int) -> str:
    try:
        _ask(client, n)
        return "ok"
    except LLMBudgetExceeded:
        return "budget"


def test_token_budget_stops_further_calls(llm_server: FakeLLMServer) -> None:
    client = llm_server.client(max_tokens_budget=1)
    _ask(client, 1)
    with pytest.raises(LLMBudgetExceeded, match="token budget"):
        _ask(client, 2)
    assert llm_server.calls["chat"] == 1


def test_cached_reply_makes_no_call(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    llm_server.enqueue("first reply")
    client = llm_server.client(cache_dir=tmp_path / "cache")
    assert _ask(client, 1) == "first reply"
    assert _ask(client, 1) == "first reply"
    assert llm_server.calls["chat"] == 1 and client.stats.cached == 1


def test_failure_message_never_carries_the_key(llm_server: FakeLLMServer) -> None:
    llm_server.enqueue(Fault.status(500))
    client = llm_server.client(api_key="sk-very-secret-marker")
    with pytest.raises(LLMError) as err:
        _ask(client, 1)
    assert "sk-very-secret-marker" not in str(err.value) and err.value.__cause__ is None
    assert "sk-very-secret-marker" not in repr(client)
