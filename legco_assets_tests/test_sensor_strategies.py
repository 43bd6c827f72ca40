"""A paper dropped in the inbox (or fetched by the feed) gets token and question chunks: the
sensor's run chunks with the first strategy of ``LEGCO_SENSOR_STRATEGIES`` and, once it
succeeds, ``strategy_chain_sensor`` runs ``chunks`` + ``vector_index`` with the next one."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.artifacts import Artifacts
from legco_assets.core.settings import Settings, Strategy
from legco_assets.defs.jobs import JOBS
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource
from legco_assets.defs.sensors import (
    inbox_sensor,
    next_strategy,
    strategy_chain_after_failure_sensor,
    strategy_chain_sensor,
)

from .factories import fixed_english_paper


def _execute(
    instance: dg.DagsterInstance, request: dg.RunRequest, data: Path, raise_on_error: bool = True
) -> dg.ExecuteInProcessResult:
    """The run the daemon would launch for ``request`` (its job, partition, assets, tags),
    in process, with the project's definitions bound to a temporary data dir."""
    from legco_assets.defs.assets import ALL_ASSETS
    from legco_assets.defs.jobs import strategy_run_config

    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    job = dg.Definitions(assets=ALL_ASSETS, jobs=list(JOBS.values()), resources=resources).resolve_job_def(
        request.job_name
    )
    return job.execute_in_process(
        run_config=strategy_run_config(Strategy.parse(request.tags["legco/strategy"])),
        instance=instance,
        partition_key=request.partition_key,
        asset_selection=request.asset_selection,
        tags=request.tags,
        raise_on_error=raise_on_error,
    )


def _chain(instance: dg.DagsterInstance, result: dg.ExecuteInProcessResult) -> dg.RunRequest | dg.SkipReason:
    """What the chain's sensor for the run's outcome (success or failure) asks for next."""
    run = instance.get_run_by_id(result.run_id)
    sensor = strategy_chain_sensor if result.success else strategy_chain_after_failure_sensor
    ended = dg.DagsterEventType.RUN_SUCCESS if result.success else dg.DagsterEventType.RUN_FAILURE
    event = next(e for e in result.all_events if e.event_type == ended)
    context = dg.build_run_status_sensor_context(
        sensor_name=sensor.name, dagster_event=event, dagster_instance=instance, dagster_run=run
    )
    return sensor(context)


def test_an_inbox_paper_gets_token_and_question_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LEGCO_SENSOR_STRATEGIES", raising=False)
    data = tmp_path / "data"
    fixed_english_paper(data / "inbox" / "paper.pdf", pages=2)
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    with dg.instance_for_test() as instance:
        tick = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        (first,) = tick.run_requests
        assert (
            first.job_name == JOBS[Strategy.token].name and first.tags["legco/strategies"] == "token,question"
        )
        instance.add_dynamic_partitions("documents", [first.partition_key])
        done = _execute(instance, first, data)
        assert done.success

        second = _chain(instance, done)
        assert isinstance(second, dg.RunRequest)
        assert second.job_name == JOBS[Strategy.question].name and second.partition_key == first.partition_key
        assert second.asset_selection == [
            dg.AssetKey("chunks"),
            dg.AssetKey("vector_index"),
            dg.AssetKey("chunk_excerpts"),
        ]
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
    fixed_english_paper(data / "inbox" / "paper.pdf", pages=2)
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    with dg.instance_for_test() as instance:
        (only,) = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources)).run_requests
    assert only.job_name == JOBS[Strategy.question].name and only.tags["legco/strategies"] == "question"
    assert next_strategy(dict(only.tags)) is None
    assert Settings.from_env({"LEGCO_SENSOR_STRATEGIES": "question, token"}).sensor_strategies == (
        Strategy.question,
        Strategy.token,
    )


def test_a_run_without_a_chain_requests_nothing() -> None:
    """Runs started by hand or by ``legco-assets ingest`` carry no chain: nothing follows."""
    assert next_strategy({"legco/strategy": "token"}) is None
    assert next_strategy({}) is None
    assert (
        next_strategy({"legco/strategy": "token", "legco/strategies": "token,question"}) is Strategy.question
    )


def _first_run(instance: dg.DagsterInstance, data: Path) -> dg.RunRequest:
    fixed_english_paper(data / "inbox" / "paper.pdf", pages=2)
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    (first,) = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources)).run_requests
    instance.add_dynamic_partitions("documents", [first.partition_key])
    return first


def test_a_strategy_that_fails_does_not_stop_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The token chunker breaks on the paper; the token run fails in ``chunks``
    (its own step), and the chain still runs the question strategy, which reaches Chroma."""
    from legco_assets.core import pipeline
    from legco_assets.core.search import open_collection, stored_chunks

    monkeypatch.delenv("LEGCO_SENSOR_STRATEGIES", raising=False)
    real = pipeline.stage_chunks

    def token_breaks(settings: Settings, document_id: str, strategy: Strategy, *args, **kwargs):
        if strategy is Strategy.token:
            raise RuntimeError("the token chunker broke on this paper")
        return real(settings, document_id, strategy, *args, **kwargs)

    monkeypatch.setattr(pipeline, "stage_chunks", token_breaks)
    data = tmp_path / "data"
    with dg.instance_for_test() as instance:
        first = _first_run(instance, data)
        failed = _execute(instance, first, data, raise_on_error=False)
        assert not failed.success
        assert [e.step_key for e in failed.all_events if e.is_step_failure] == ["chunks"]
        second = _chain(instance, failed)
        assert isinstance(second, dg.RunRequest) and second.tags["legco/strategy"] == "question"
        assert second.run_key == f"{first.run_key}:question"
        assert _execute(instance, second, data).success
    stored = {c.metadata.strategy_type for c in stored_chunks(open_collection(Settings(data_dir=data)))}
    assert stored == {"question"}


def test_a_strategy_failing_with_a_reason_tags_its_run_and_not_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An expected failure tags its run with the reason (``legco/failure``, for the
    Runs list); the chained run of the next strategy carries the chain's tags, not that one."""
    from legco_assets.core import pipeline
    from legco_assets.core.errors import DocumentError

    monkeypatch.delenv("LEGCO_SENSOR_STRATEGIES", raising=False)
    real = pipeline.stage_chunks

    def token_refuses(settings: Settings, document_id: str, strategy: Strategy, *args, **kwargs):
        if strategy is Strategy.token:
            raise DocumentError(document_id, "no token windows for this paper")
        return real(settings, document_id, strategy, *args, **kwargs)

    monkeypatch.setattr(pipeline, "stage_chunks", token_refuses)
    with dg.instance_for_test() as instance:
        failed = _execute(
            instance, _first_run(instance, tmp_path / "data"), tmp_path / "data", raise_on_error=False
        )
        tags = instance.get_run_by_id(failed.run_id).tags
        assert not failed.success and tags["legco/failure"] == "no token windows for this paper"
        second = _chain(instance, failed)
        assert isinstance(second, dg.RunRequest) and second.tags["legco/strategy"] == "question"
        assert (
            "legco/failure" not in second.tags and second.tags["legco/strategies"] == tags["legco/strategies"]
        )


def test_a_failed_shared_stage_ends_the_chain_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from legco_assets.core import pipeline

    monkeypatch.delenv("LEGCO_SENSOR_STRATEGIES", raising=False)

    def structure_breaks(*args, **kwargs):
        raise RuntimeError("the structure rules broke on this paper")

    monkeypatch.setattr(pipeline, "stage_structure", structure_breaks)
    data = tmp_path / "data"
    with dg.instance_for_test() as instance:
        failed = _execute(instance, _first_run(instance, data), data, raise_on_error=False)
        skip = _chain(instance, failed)
    assert isinstance(skip, dg.SkipReason)
    assert (
        "shared stage document_structure" in skip.skip_message
        and "strategies question not run" in skip.skip_message
    )


def test_every_run_says_its_strategy(tmp_path: Path) -> None:
    """The per-strategy jobs carry ``legco/strategy``, and a run launched with only
    run config (the asset page's Materialize: Dagster's implicit asset job, no tags) is
    tagged by the asset that reads the config."""
    from legco_assets.defs.assets import ALL_ASSETS, chunks
    from legco_assets.defs.jobs import strategy_run_config

    for strategy, job in JOBS.items():
        assert job.tags == {"legco/strategy": strategy.value}
    data = tmp_path / "data"
    paper = fixed_english_paper(tmp_path / "paper.pdf", pages=2)
    from legco_assets.core.sources import DocumentIndex

    key = DocumentIndex(data / "documents").register(paper)
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("documents", [key])
        upstream = [
            a
            for a in ALL_ASSETS
            if a.key.to_user_string() not in ("chunks", "vector_index", "chunk_excerpts")
        ]
        assert dg.materialize(
            ALL_ASSETS, selection=upstream, partition_key=key, instance=instance, resources=resources
        ).success
        result = dg.materialize(
            ALL_ASSETS,
            selection=[chunks],
            partition_key=key,
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.question, ["chunks"]),
        )
        assert result.success
        assert instance.get_run_by_id(result.run_id).tags["legco/strategy"] == "question"
