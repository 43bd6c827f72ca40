"""The chunking strategies and the search modes are each one enum (``core.settings.Strategy``,
``core.modes.Mode``), and every face takes exactly its values, as typed: the CLI's options
(what they accept, what their help and their error list), the API (its OpenAPI document and
its one-line 422), the MCP search tool's one-line refusal, and Dagster's run config (what
the launchpad accepts). A value added to an enum reaches them all; none keeps a list of its own."""

from __future__ import annotations

import types
from typing import Any

import anyio
import dagster as dg
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from legco_assets.cli.main import build_parser
from legco_assets.core.modes import Mode
from legco_assets.core.settings import Settings, Strategy
from legco_assets.defs.jobs import JOBS
from legco_assets.defs.location import build_definitions
from legco_assets.service.app import create_app
from legco_assets.service.mcp_tools import build_mcp

STRATEGIES = [s.value for s in Strategy]
MODES = [m.value for m in Mode]


def _listed(values: list[str]) -> str:
    """``'a', 'b'``: how argparse lists the choices in its error."""
    return ", ".join(repr(v) for v in values)


@pytest.mark.parametrize("command", [["query", "x"], ["answer", "x"], ["chunks", "doc"], ["lineage", "doc"]])
def test_the_cli_takes_each_strategy_as_its_member(command: list[str]) -> None:
    parser = build_parser()
    for strategy in Strategy:
        assert parser.parse_args([*command, "--strategy", strategy.value]).strategy is strategy
    assert parser.parse_args(command).strategy is None  # unset: the command takes the settings'


@pytest.mark.parametrize("command", [["query", "x"], ["answer", "x"]])
def test_the_cli_takes_each_mode_as_its_member(command: list[str]) -> None:
    parser = build_parser()
    for mode in Mode:
        assert parser.parse_args([*command, "--mode", mode.value]).mode is mode


def test_the_cli_lists_the_values_in_its_help_and_its_error(capsys: pytest.CaptureFixture) -> None:
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["query", "--help"])
    help_text = capsys.readouterr().out
    assert f"--strategy {{{','.join(STRATEGIES)}}}" in help_text
    assert f"--mode {{{','.join(MODES)}}}" in help_text
    for option, values in (("--strategy", STRATEGIES), ("--mode", MODES)):
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args(["query", "x", option, "sideways"])
        assert exit_.value.code == 2
        error = capsys.readouterr().err.strip()
        assert error.endswith(f"(choose from {_listed(values)})") and "\n" not in error


@pytest.fixture(scope="module")
def api() -> TestClient:
    """The app over a context that no search reaches (the requests here are all refused)."""
    settings = Settings()
    context = types.SimpleNamespace(
        settings=settings, default_strategy=settings.default_strategy, index=None, excerpts=None, llm=None
    )
    app = create_app(context)  # type: ignore[arg-type]
    return TestClient(app.app)  # the FastAPI app inside the request guard


def test_the_openapi_document_lists_the_enums(api: TestClient) -> None:
    schemas = api.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["Strategy"]["enum"] == STRATEGIES
    assert schemas["Mode"]["enum"] == MODES
    for model in ("SearchResponse", "AnswerRequest", "DocumentRow"):
        assert "Strategy" in str(schemas[model]["properties"]["strategy"]), model


@pytest.mark.parametrize("param", ["strategy", "mode"])
def test_the_api_refuses_another_value_with_one_line(api: TestClient, param: str) -> None:
    got = api.get("/api/search", params={"q": "wage", param: "sideways"})
    values = STRATEGIES if param == "strategy" else MODES
    assert got.status_code == 422
    detail = got.json()["detail"]
    assert detail.startswith(f"query.{param}: ") and "\n" not in detail
    assert all(repr(v) in detail for v in values)


def test_the_mcp_tool_refuses_another_strategy_with_one_line() -> None:
    settings = Settings()
    context = types.SimpleNamespace(
        settings=settings, default_strategy=settings.default_strategy, index=None, excerpts=None, llm=None
    )

    async def call() -> Any:
        async with Client(build_mcp(context)) as client:  # type: ignore[arg-type]
            return await client.call_tool("search", {"query": "wage", "strategy": "sideways"})

    result = anyio.run(call)
    assert result.is_error
    text = result.content[0].text  # the SDK names the tool first
    assert text.endswith(f": strategy must be {' or '.join(STRATEGIES)}") and "\n" not in text


def test_the_run_config_takes_exactly_the_strategies() -> None:
    """What the launchpad accepts as ``strategy:`` (``chunks``' run config)."""
    job = build_definitions(Settings()).resolve_job_def(JOBS[Strategy.token].name)
    for strategy in Strategy:
        config = {"ops": {"chunks": {"config": {"strategy": strategy.value}}}}
        assert dg.validate_run_config(job, config)["ops"]["chunks"]["config"]["strategy"] == strategy.value
    with pytest.raises(dg.DagsterInvalidConfigError, match="not in enum type Strategy"):
        dg.validate_run_config(job, {"ops": {"chunks": {"config": {"strategy": "sideways"}}}})
