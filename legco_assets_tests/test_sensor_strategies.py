"""A paper dropped in the inbox (or fetched by the feed) gets token and question chunks: the
sensor's run chunks with the first strategy of ``LEGCO_SENSOR_STRATEGIES`` and, once it
succeeds, ``strategy_chain_sensor`` runs ``chunks`` + ``vector_index`` with the next one."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.pipeline import Artifacts
from legco_assets.core.settings import Settings, Strategy
from legco_assets.defs.jobs import JOBS
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource
from legco_assets.defs.sensors import inbox_sensor, next_strategy, strategy_chain_sensor

from .test_token_chunking import _english_paper


def _execute(instance: dg.DagsterInstance, request: dg.RunRequest, data: Path) -> dg.ExecuteInProcessResult:
    """The run the daemon would launch for ``request`` (its job, partition, assets, tags),
    in process, with the project's definitions bound to a temporary data dir."""
    from legco_assets.defs.assets import ALL_ASSETS
    from legco_assets.defs.jobs import strategy_run_config

    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")), "llm": LLMResource(), "chroma": ChromaResource()}
    job = dg.Definitions(assets=ALL_ASSETS, jobs=list(JOBS.values()), resources=resources).resolve_job_def(request.job_name)
    return job.execute_in_process(
        run_config=strategy_run_config(Strategy.parse(request.tags["legco/strategy"])),
        instance=instance,
        partition_key=request.partition_key,
        asset_selection=request.asset_selection,
        tags=request.tags,
    )


def _chain(instance: dg.DagsterInstance, result: dg.ExecuteInProcessResult) -> dg.RunRequest | dg.SkipReason:
    run = instance.get_run_by_id(result.run_id)
    event = next(e for e in result.all_events if e.event_type == dg.DagsterEventType.RUN_SUCCESS)
    context = dg.build_run_status_sensor_context(
        sensor_name=strategy_chain_sensor.name, dagster_event=event, dagster_instance=instance, dagster_run=run
    )
    return strategy_chain_sensor(context)


def test_an_inbox_paper_gets_token_and_question_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEGCO_SENSOR_STRATEGIES", raising=False)
    data = tmp_path / "data"
    _english_paper(data / "inbox" / "paper.pdf", pages=2)
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    with dg.instance_for_test() as instance:
        tick = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        (first,) = tick.run_requests
        assert first.job_name == JOBS[Strategy.token].name and first.tags["legco/strategies"] == "token,question"
        instance.add_dynamic_partitions("documents", [first.partition_key])
        done = _execute(instance, first, data)
        assert done.success

        second = _chain(instance, done)
        assert isinstance(second, dg.RunRequest)
        assert second.job_name == JOBS[Strategy.question].name and second.partition_key == first.partition_key
        assert second.asset_selection == [dg.AssetKey("chunks"), dg.AssetKey("vector_index"), dg.AssetKey("chunk_excerpts")]
        assert second.run_key == f"{first.run_key}:question" and second.tags["legco/file"] == "paper.pdf"
        again = _execute(instance, second, data)
        assert again.success
        made = [e.asset_key.to_user_string() for e in again.get_asset_materialization_events()]
        assert sorted(made) == ["chunk_excerpts", "chunks", "vector_index"]

        art = Artifacts(Settings(data_dir=data), first.partition_key)
        assert art.read_chunks(Strategy.token) and art.read_chunks(Strategy.question)
        for strategy in Strategy:  # each strategy's chunks have their source excerpts
            assert (art.root / "excerpts" / f"{strategy.value}.pdf.update").stat().st_size > 0
        assert isinstance(_chain(instance, again), dg.SkipReason)  # question was the last


def test_the_setting_narrows_the_strategies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEGCO_SENSOR_STRATEGIES", "question")
    data = tmp_path / "data"
    _english_paper(data / "inbox" / "paper.pdf", pages=2)
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    with dg.instance_for_test() as instance:
        (only,) = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources)).run_requests
    assert only.job_name == JOBS[Strategy.question].name and only.tags["legco/strategies"] == "question"
    assert next_strategy(dict(only.tags)) is None
    assert Settings.from_env({"LEGCO_SENSOR_STRATEGIES": "question, token"}).sensor_strategies == (Strategy.question, Strategy.token)


def test_a_run_without_a_chain_requests_nothing() -> None:
    """Runs started by hand or by ``legco-assets ingest`` carry no chain: nothing follows."""
    assert next_strategy({"legco/strategy": "token"}) is None
    assert next_strategy({}) is None
    assert next_strategy({"legco/strategy": "token", "legco/strategies": "token,question"}) is Strategy.question
