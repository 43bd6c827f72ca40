"""Dagster's local storage as this project sets it up: the same files Dagster's own storage
reads, a run's events in its database as each is written (the UI's live view watches the
file), and a home's ``dagster.yaml`` naming it."""

from __future__ import annotations

import logging
import shutil
import threading
import time
import uuid
from pathlib import Path

import dagster as dg
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log.sqlite.sqlite_event_log import SqliteEventLogStorage

from legco_assets.core.settings import Settings
from legco_assets.defs.instance import DAGSTER_YAML, WRITTEN_BEFORE, dagster_instance
from legco_assets.defs.storage import RUN_ENGINES, LocalInstance, ReusingSqliteEventLogStorage


def _line(run_id: str, text: str) -> EventLogEntry:
    return EventLogEntry(
        error_info=None,
        level=logging.INFO,
        user_message=text,
        run_id=run_id,
        timestamp=time.time(),
        step_key=None,
        job_name="a_job",
        dagster_event=None,
    )


def _messages(storage: SqliteEventLogStorage, run_id: str) -> list[str]:
    return [record.event_log_entry.user_message for record in storage.get_records_for_run(run_id).records]


def test_a_new_home_names_this_storage_and_an_earlier_default_is_brought_up_to_it(tmp_path: Path) -> None:
    own = tmp_path / "own"
    own.mkdir()
    (own / "dagster.yaml").write_text("telemetry:\n  enabled: false\nretention: {}\n", encoding="utf-8")
    for home, before in (
        (tmp_path / "new", None),
        (tmp_path / "earlier", WRITTEN_BEFORE[0]),
        (own, None),
    ):
        if before is not None:
            home.mkdir()
            (home / "dagster.yaml").write_text(before, encoding="utf-8")
        instance = dagster_instance(Settings(data_dir=tmp_path / "data", dagster_home=home))
        try:
            kept = home == own
            assert isinstance(instance, LocalInstance) != kept, home
            assert isinstance(instance.event_log_storage, ReusingSqliteEventLogStorage) != kept, home
            written = (home / "dagster.yaml").read_text(encoding="utf-8")
            assert (written == DAGSTER_YAML) != kept, written
        finally:
            instance.dispose()


def test_each_event_is_in_the_run_database_a_watcher_reads_as_it_is_written(tmp_path: Path) -> None:
    """The UI follows a running run through a file watcher on the run's database; the events
    this storage writes reach a watcher in another storage object (as in the webserver's
    process) one by one, while the writer is still open."""
    writer = ReusingSqliteEventLogStorage(str(tmp_path))
    reader = SqliteEventLogStorage(str(tmp_path))
    run_id = str(uuid.uuid4())
    writer.store_event(_line(run_id, "first"))
    seen: list[str] = []
    arrived = threading.Event()

    def follow(entry: EventLogEntry, cursor: str) -> None:
        seen.append(entry.user_message)
        arrived.set()

    reader.watch(run_id, None, follow)
    try:
        for text in ("second", "third"):
            arrived.clear()
            writer.store_event(_line(run_id, text))
            assert arrived.wait(10), (text, seen)
        assert seen[-1] == "third"
        assert not Path(reader.path_for_shard(run_id) + "-wal").exists()
    finally:
        reader.end_watch(run_id, follow)
        reader.dispose()
        writer.dispose()


def test_runs_past_the_kept_engines_and_a_wipe_lose_nothing(tmp_path: Path) -> None:
    storage = ReusingSqliteEventLogStorage(str(tmp_path))
    runs = [str(uuid.uuid4()) for _ in range(RUN_ENGINES + 3)]
    for round_ in range(2):
        for run_id in runs:
            storage.store_event(_line(run_id, f"{run_id} {round_}"))
    stock = SqliteEventLogStorage(str(tmp_path))
    for run_id in runs:
        assert _messages(stock, run_id) == [f"{run_id} 0", f"{run_id} 1"]
        assert _messages(storage, run_id) == _messages(stock, run_id)
    storage.wipe()
    assert _messages(storage, runs[0]) == []
    storage.store_event(_line(runs[0], "after the wipe"))
    assert _messages(stock, runs[0]) == ["after the wipe"]
    storage.dispose()


def test_an_ingests_home_reads_the_same_with_dagsters_own_storage(served_store: Path, tmp_path: Path) -> None:
    """The files are Dagster's: a home written through this storage, opened with Dagster's
    default storage (a ``dagster.yaml`` without the instance class), has the same runs, the
    same events in each, and the same materialisations."""
    copy = tmp_path / "dagster_home"
    shutil.copytree(served_store / "dagster_home", copy)
    assert (copy / "dagster.yaml").read_text(encoding="utf-8") == DAGSTER_YAML
    (copy / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")

    def state(instance: dg.DagsterInstance) -> tuple[list[tuple[str, str, int]], int]:
        runs = sorted(
            (run.job_name, run.status.value, len(instance.all_logs(run.run_id)))
            for run in instance.get_runs()
        )
        materialised = instance.fetch_materializations(dg.AssetKey("vector_index"), limit=1000).records
        return runs, len(materialised)

    with dg.DagsterInstance.from_config(str(served_store / "dagster_home")) as ours:
        assert isinstance(ours, LocalInstance)
        expected = state(ours)
    with dg.DagsterInstance.from_config(str(copy)) as stock:
        assert type(stock) is dg.DagsterInstance
        assert state(stock) == expected
    runs, materialised = expected
    assert len(runs) == 4 and {status for _, status, _ in runs} == {"SUCCESS"}, runs
    assert all(events > 20 for _, _, events in runs), runs
    assert materialised == 4
