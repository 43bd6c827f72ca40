"""``legco_feed_sensor``: stopped by default; a tick downloads, adds partitions and requests
runs whose keys never repeat a paper; ``source_document`` shows where a paper came from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.definitions import defs
from legco_assets.defs.assets import ALL_ASSETS, source_document
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource
from legco_assets.defs.sensors import CONTENT_TAG, inbox_sensor, legco_feed_sensor

from .factories import fixed_english_paper
from .odata_server import FakeHansardServer


@pytest.fixture
def feed_env(odata_server: FakeHansardServer, monkeypatch: pytest.MonkeyPatch) -> FakeHansardServer:
    monkeypatch.setenv("LEGCO_FEED_URL", odata_server.base_url)
    monkeypatch.setenv("LEGCO_FEED_SINCE", "2024-01-01")
    monkeypatch.setenv("LEGCO_FEED_TIMEOUT_S", "1")
    monkeypatch.setenv("LEGCO_FEED_BACKOFF_S", "0.01")
    return odata_server


def _paper(tmp_path: Path, name: str, pages: int) -> bytes:
    return fixed_english_paper(tmp_path / "papers" / name, pages=pages).read_bytes()


def test_the_feed_sensor_is_listed_and_stopped_by_default() -> None:
    sensor = next(s for s in defs.sensors if s.name == "legco_feed_sensor")
    assert sensor.default_status == dg.DefaultSensorStatus.STOPPED
    assert sensor.minimum_interval_seconds == 60 * 60
    inbox = next(s for s in defs.sensors if s.name == "inbox_sensor")
    assert inbox.default_status == dg.DefaultSensorStatus.RUNNING


def test_a_tick_adds_partitions_and_requests_one_run_per_new_paper(
    feed_env: FakeHansardServer, tmp_path: Path, capfd: pytest.CaptureFixture
) -> None:
    s = feed_env
    zh_url = s.add_record("1001", "2024-01-10", "Chinese", _paper(tmp_path, "zh.pdf", 2))
    s.add_record("1002", "2024-01-10", "English", _paper(tmp_path, "en.pdf", 3))
    s.add_record("1003", "2024-01-10", "Floor", _paper(tmp_path, "floor.pdf", 1))
    missing = s.add_record("1004", "2024-01-11", "English", None)
    data = tmp_path / "data"
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    with dg.instance_for_test() as instance:
        tick = legco_feed_sensor.evaluate_tick(
            dg.build_sensor_context(
                instance=instance, instance_ref=instance.get_ref(), definitions=defs, resources=resources
            )
        )
        tick_log = capfd.readouterr().err
        keys = ["hansard-2024-01-10-en", "hansard-2024-01-10-zh"]
        assert sorted(r.partition_key for r in tick.run_requests) == keys
        assert sorted(tick.dynamic_partitions_requests[0].partition_keys) == keys
        assert {r.run_key.split("@")[0] for r in tick.run_requests} == {"hansard:1001", "hansard:1002"}
        assert all(r.job_name == "ingest_token_job" for r in tick.run_requests)
        # then strategy_chain_sensor runs the question strategy (LEGCO_SENSOR_STRATEGIES)
        assert all(r.tags["legco/strategies"] == "token,question" for r in tick.run_requests)
        zh = next(r for r in tick.run_requests if r.partition_key.endswith("-zh"))
        assert zh.tags["legco/meeting_date"] == "2024-01-10" and zh.tags[CONTENT_TAG] == zh.run_key.replace(
            "hansard:1001", "hansard-2024-01-10-zh"
        )
        cursor = json.loads(tick.cursor)
        assert cursor == {"last_meeting_date": "2024-01-10", "seen": ["1001", "1002"]}
        assert f"legco-assets: error: {missing}: HTTP 404 Not Found" in tick_log, (
            "the failure is named in the tick's log"
        )

        again = legco_feed_sensor.evaluate_tick(
            dg.build_sensor_context(
                instance=instance,
                instance_ref=instance.get_ref(),
                definitions=defs,
                resources=resources,
                cursor=tick.cursor,
            )
        )
        assert (
            not again.run_requests
            and "no new Hansards" in again.skip_message
            and "1 failed" in again.skip_message
        )

        s.add_record("1011", "2024-01-17", "Chinese", _paper(tmp_path, "zh2.pdf", 4))
        later = legco_feed_sensor.evaluate_tick(
            dg.build_sensor_context(
                instance=instance,
                instance_ref=instance.get_ref(),
                definitions=defs,
                resources=resources,
                cursor=again.cursor,
            )
        )
        assert [r.partition_key for r in later.run_requests] == ["hansard-2024-01-17-zh"], later.skip_message
        run_keys = [r.run_key for r in [*tick.run_requests, *later.run_requests]]
        assert len(set(run_keys)) == len(run_keys) == 3

        # the paper's lineage: source_document shows where it came from
        instance.add_dynamic_partitions("documents", keys)
        done = dg.materialize(
            ALL_ASSETS,
            selection=[source_document],
            partition_key=zh.partition_key,
            instance=instance,
            resources={**resources, "llm": LLMResource(), "chroma": ChromaResource()},
            tags=zh.tags,
        )
        meta = done.asset_materializations_for_node("source_document")[0].metadata
        assert meta["source_url"].value == zh_url and meta["meeting_date"].value == "2024-01-10"
        assert meta["hansard_type"].value == "Chinese" and meta["hansard_id"].value == "1001"

        # the inbox sensor sees the downloaded files too, but asks no second run for the one
        # that already has a run (the other two have none here: evaluate_tick launches nothing)
        inbox = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        assert sorted(r.partition_key for r in inbox.run_requests) == [
            "hansard-2024-01-10-en",
            "hansard-2024-01-17-zh",
        ]


def test_the_feed_sensor_is_listed_stopped_and_can_be_started(tmp_path: Path) -> None:
    """What the UI's Automation page shows, through Dagster's own CLI on a fresh instance."""
    root = Path(__file__).resolve().parents[1]
    env = {
        **os.environ,
        "DAGSTER_HOME": str(tmp_path),
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }

    def dagster(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "dagster", "sensor", *args, "-w", str(root / "workspace.yaml")],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    assert "Sensor: legco_feed_sensor [STOPPED]" in dagster("list")
    assert "Started sensor legco_feed_sensor" in dagster("start", "legco_feed_sensor")
    listed = dagster("list")
    assert "Sensor: legco_feed_sensor [RUNNING]" in listed and "Sensor: inbox_sensor [RUNNING]" in listed
