"""LLM_API_KEY never leaves the process that uses it.

Why: the Dagster instance (event log, run config, job snapshots, compute logs), the data dir
(artifacts, caches, Chroma) and the CLI's output are all things people copy, share and
attach to bug reports. The key goes to the LLM endpoint in the Authorization header and
nowhere else: a unique marker is set as the key, the pipeline runs through Dagster and the
CLI — with LLM calls that succeed and calls that fail, and a document that fails — and
every place is searched for the marker.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
from dagster._serdes import serialize_value

from legco_assets.core.llm import LLMClient
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import resources_for

from .conftest import fixture_pdf
from .factories import english_paper
from .llm_server import FakeLLMServer, Fault

MARKER = f"sk-legco-marker-{uuid.uuid4().hex}"


def files_containing(root: Path, secret: str) -> list[str]:
    """Every file under ``root`` whose bytes contain the secret (UTF-8 or UTF-16)."""
    needles = [secret.encode("utf-8"), secret.encode("utf-16-le")]
    found = []
    for path in root.rglob("*"):
        if path.is_file() and any(n in path.read_bytes() for n in needles):
            found.append(str(path.relative_to(root)))
    return found


def instance_leaks(instance: dg.DagsterInstance, secret: str) -> list[str]:
    """Where the instance holds the secret: run config, tags, job and execution-plan
    snapshots (stored compressed, so a byte search of the database would miss them), every
    event of every run (logs, metadata, errors) and the captured compute logs."""
    leaks = []
    runs = instance.get_runs()
    assert runs, "the pipeline ran"
    for run in runs:
        if secret in serialize_value(run):
            leaks.append(f"run {run.run_id}: config/tags")
        if run.job_snapshot_id and secret in serialize_value(instance.get_job_snapshot(run.job_snapshot_id)):
            leaks.append(f"run {run.run_id}: job snapshot")
        if run.execution_plan_snapshot_id and secret in serialize_value(
            instance.get_execution_plan_snapshot(run.execution_plan_snapshot_id)
        ):
            leaks.append(f"run {run.run_id}: execution plan snapshot")
        for entry in instance.all_logs(run.run_id):
            if secret in serialize_value(entry):
                leaks.append(
                    f"run {run.run_id}: event {entry.dagster_event_type or 'log'}: {entry.message[:80]}"
                )
    return leaks


def _llm_env(monkeypatch: pytest.MonkeyPatch, server_url: str, data: Path) -> None:
    values = {
        "LLM_BASE_URL": server_url,
        "LLM_MODEL_NAME": "fake-vision-model",
        "LLM_API_KEY": MARKER,
        "QA_VISION_ENABLED": "true",
        "QA_STRUCTURE_MODE": "llm",
        "LLM_TIMEOUT_S": "2",
        "LEGCO_DATA_DIR": str(data),
        "LEGCO_INBOX": str(data / "inbox"),
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)


def test_dagster_runs_never_store_the_key(
    llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, home = tmp_path / "data", tmp_path / "dagster_home"
    _llm_env(monkeypatch, llm_server.base_url, data)
    assert LLMClient.from_settings(Settings.from_env()).api_key == MARKER, (
        "the marker really is the key in use"
    )
    llm_server.enqueue(
        Fault.status(401), Fault.status(500), Fault.bad_json()
    )  # failing calls first, then NO_TABLES
    index = DocumentIndex(data / "documents")
    good = index.register(fixture_pdf("paper_a_tables.pdf"))
    bad_file = tmp_path / "inbox" / "broken.pdf"
    bad_file.parent.mkdir(parents=True)
    bad_file.write_bytes(b"%PDF-1.7\nbroken")
    bad = index.register(bad_file)
    home.mkdir()
    with dg.instance_for_test(temp_dir=str(home)) as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [good, bad])
        resources = resources_for(Settings.from_env())  # the production wiring: LLM_API_KEY as an EnvVar
        for key, strategy in ((good, Strategy.question), (bad, Strategy.token)):
            result = dg.materialize(
                ALL_ASSETS,
                partition_key=key,
                instance=instance,
                resources=resources,
                run_config=strategy_run_config(strategy),
                raise_on_error=False,
            )
            assert result.success == (key == good)
        assert llm_server.calls["chat"] >= 4, "LLM calls were made, some failing"
        assert instance_leaks(instance, MARKER) == []
    assert files_containing(home, MARKER) == []
    assert files_containing(data, MARKER) == []


def test_cli_never_prints_or_stores_the_key(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    data, home = tmp_path / "data", tmp_path / "dagster_home"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_", "QA_"))
    }
    env.update(
        LLM_BASE_URL=llm_server.base_url,
        LLM_MODEL_NAME="fake-vision-model",
        LLM_API_KEY=MARKER,
        QA_VISION_ENABLED="true",
        QA_STRUCTURE_MODE="llm",
        LLM_TIMEOUT_S="2",
        LEGCO_DATA_DIR=str(data),
        DAGSTER_HOME=str(home),
    )
    llm_server.enqueue(Fault.status(401), Fault.status(500))
    good = english_paper(tmp_path / "inbox" / "secret test.pdf", "secret")
    bad = tmp_path / "inbox" / "broken.pdf"
    bad.write_bytes(b"%PDF-1.7\nbroken")
    outputs: list[Any] = []
    for args in (
        ["ingest", str(tmp_path / "inbox"), "--strategy", "question"],
        ["chunk", str(fixture_pdf("paper_a_tables.pdf")), "--strategy", "question"],
        ["chunk", str(bad)],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "legco_assets.cli", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        outputs.append(done)
        assert MARKER not in done.stdout and MARKER not in done.stderr, args
    assert [o.returncode for o in outputs] == [1, 0, 1], [o.stderr[-2000:] for o in outputs]
    assert llm_server.calls["chat"] >= 2
    assert good.exists()
    assert files_containing(home, MARKER) == []
    assert files_containing(data, MARKER) == []
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert instance_leaks(instance, MARKER) == []


def test_the_search_finds_a_key_that_is_stored(tmp_path: Path) -> None:
    """The searches above can fail: a key given to the resource as a plain string (not an
    ``EnvVar``) lands in the job snapshot, compressed, where only the API search sees it."""
    from legco_assets.defs.assets import source_document
    from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

    data, home = tmp_path / "data", tmp_path / "dagster_home"
    home.mkdir()
    key = DocumentIndex(data / "documents").register(english_paper(tmp_path / "plain.pdf", "plain"))
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(base_url="http://127.0.0.1:9/v1", model="m", api_key=MARKER),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test(temp_dir=str(home)) as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        assert dg.materialize(
            ALL_ASSETS, selection=[source_document], partition_key=key, instance=instance, resources=resources
        ).success
        assert any("job snapshot" in leak for leak in instance_leaks(instance, MARKER))
    assert files_containing(home, MARKER) == [], "compressed: a byte search alone would have missed it"
