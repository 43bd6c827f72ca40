"""Faults of the services around the pipeline: the LLM endpoint and Chroma.

Why: an LLM is an optional helper, so when it times out, throttles (429), breaks (500) or
answers garbage, every stage falls back to its rules/geometry, records the failure in its
metadata and produces exactly the chunks it produces without an LLM. Chroma is the one
service a run cannot do without: a short outage is bridged by ``with_retries`` (exponential
backoff); a long one fails ``vector_index`` only (upstream results stay), and a re-run once
Chroma is back completes with exactly the chunk file's ids. (A process killed in the middle
of ``vector_index`` is in test_chroma_server.py, on both backends.)
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import dagster as dg
import pytest

from legco_assets.core import search
from legco_assets.core.pipeline import chunk_file
from legco_assets.core.search import (
    open_collection,
    replace_document,
    stored_chunks,
    vector_store,
    with_retries,
)
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS, vector_index
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource, resources_for

from .factories import doc_records, english_paper
from .llm_server import FakeLLMServer, Fault
from .runs import chunk_file_ids, step_failure_messages
from .servers import free_port, start_chroma_server


# -- the LLM ------------------------------------------------------------------------------------
def qa_paper_with_table(path: Path) -> Path:
    """Two pages, Q1 and Q2, a ruled table in Q1's answer: geometry finds the table, so the
    vision stage is asked for page 1, and the structure stage is asked once. Small on
    purpose: a timing-out call costs the openai client's 3 retries with backoff (~5 s)."""
    from datetime import datetime

    from fpdf import FPDF

    pdf = FPDF(format="A4", unit="pt")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    rng = random.Random("faults")
    words = (
        "drainage capacity resettlement compensation licence vehicle allowance elderly safety budget".split()
    )

    def filler() -> str:
        return " ".join(rng.choice(words) for _ in range(11)) + "."

    pdf.add_page()
    y = 60.0
    pdf.text(60, y, "Q1 How many applications for the allowance were approved in each year?")
    for _ in range(6):
        y += 14
        pdf.text(60, y, filler())
    y += 20
    rows = [
        ["Year", "Applications", "Approved"],
        ["2022", "11 991", "1 109"],
        ["2023", "12 005", "987"],
        ["2024", "12 310", "1 002"],
    ]
    xs = [60, 160, 280, 400]
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            pdf.text(xs[c] + 3, y + r * 18 + 12, text)
    for r in range(len(rows) + 1):
        pdf.line(xs[0], y + r * 18, xs[-1], y + r * 18)
    for xv in xs:
        pdf.line(xv, y, xv, y + len(rows) * 18)
    y += len(rows) * 18 + 20
    for _ in range(10):
        y += 14
        pdf.text(60, y, filler())
    pdf.add_page()
    y = 60.0
    pdf.text(60, y, "Q2 When will the drainage works at the site be completed?")
    for _ in range(25):
        y += 14
        pdf.text(60, y, filler())
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qa_paper_with_table(tmp_path_factory.mktemp("faults") / "qa with table.pdf")


@pytest.fixture(scope="module")
def without_llm(paper: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The question chunks with no LLM at all: what every fallback must give."""
    records = chunk_file(
        paper, Strategy.question, Settings(data_dir=tmp_path_factory.mktemp("no-llm") / "data"), use_llm=False
    )
    assert [r["metadata"].get("question_id") for r in records] == ["Q1", "Q2"] and records[0]["metadata"][
        "has_table"
    ]
    return records


FAULTS: dict[str, Callable[[FakeLLMServer], None]] = {
    "timeout": lambda server: setattr(server, "default_reply", Fault.timeout(3.0)),
    "429": lambda server: setattr(server, "default_reply", Fault.status(429)),
    "500": lambda server: setattr(server, "default_reply", Fault.status(500)),
    "not_json": lambda server: setattr(server, "default_reply", Fault.bad_json()),
    "garbage_text": lambda server: setattr(
        server, "default_reply", "I am sorry, as a language model I cannot see tables {"
    ),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_llm_fault_falls_back_to_the_no_llm_chunks(
    fault: str, llm_server: FakeLLMServer, tmp_path: Path, paper: Path, without_llm: list[dict[str, Any]]
) -> None:
    """Through ``chunk_file`` with LLM_* at the fake server: vision tables and LLM structure
    (mode llm, so it is always asked) both fail, and the chunks are the no-LLM chunks."""
    FAULTS[fault](llm_server)
    settings = llm_server.settings(tmp_path / "data", structure_mode="llm", llm_timeout_s=0.5)
    records = chunk_file(paper, Strategy.question, settings)
    assert records == without_llm
    requests = [body for endpoint, body in llm_server.requests if endpoint == "chat"]
    asked_for_tables = [b for b in requests if any(isinstance(m.get("content"), list) for m in b["messages"])]
    assert asked_for_tables and len(asked_for_tables) < len(requests), "both vision and structure were asked"
    if fault in ("timeout", "429", "500"):
        assert llm_server.calls["chat"] == 2 * 4, "two calls, each retried 3 times by the openai client"


def test_llm_unreachable_falls_back(tmp_path: Path, paper: Path, without_llm: list[dict[str, Any]]) -> None:
    """Nothing listens at LLM_BASE_URL (the endpoint is down): same chunks, no exception."""
    settings = Settings(
        data_dir=tmp_path / "data",
        llm_base_url=f"http://127.0.0.1:{free_port()}/v1",
        llm_model_name="absent-model",
        qa_vision_enabled=True,
        structure_mode="llm",
        llm_timeout_s=0.5,
    )
    assert chunk_file(paper, Strategy.question, settings) == without_llm


def test_llm_failures_are_recorded_and_never_cached(
    llm_server: FakeLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    paper: Path,
    without_llm: list[dict[str, Any]],
) -> None:
    """In a Dagster run the failures show in the metadata a person reads; a failure is not
    cached, so the next run (the endpoint back) asks again."""
    data = tmp_path / "data"
    for name, value in {
        "LLM_BASE_URL": llm_server.base_url,
        "LLM_MODEL_NAME": llm_server.model,
        "LLM_API_KEY": "test-key",
        "QA_VISION_ENABLED": "true",
        "QA_STRUCTURE_MODE": "llm",
        "LLM_TIMEOUT_S": "0.5",
        "LEGCO_DATA_DIR": str(data),
        "LEGCO_INBOX": str(data / "inbox"),
    }.items():
        monkeypatch.setenv(name, value)
    # what `dagster dev` and the CLI wire from this environment
    resources = resources_for(Settings.from_env())
    llm_server.default_reply = Fault.status(500)
    key = DocumentIndex(data / "documents").register(paper)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            ALL_ASSETS,
            partition_key=key,
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.question),
            raise_on_error=False,
        )
        assert result.success, step_failure_messages(result)
        tables_meta = result.asset_materializations_for_node("page_tables")[0].metadata
        structure_meta = result.asset_materializations_for_node("document_structure")[0].metadata
        assert tables_meta["llm_failures"].value >= 1 and tables_meta["llm_calls"].value >= 1
        assert structure_meta["llm_failures"].value >= 1 and structure_meta["found_by"].value == "rules"
        assert tables_meta["tables"].value >= 1, "the geometric tables stand in for the failed vision reads"
        assert [r["text"] for r in without_llm] == [r["text"] for r in _chunk_file(data, key)]

        calls_before = llm_server.calls["chat"]
        llm_server.default_reply = "NO_TABLES"  # back, but with nothing useful to say
        again = dg.materialize(
            ALL_ASSETS,
            partition_key=key,
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.question),
        )
        assert again.success and llm_server.calls["chat"] > calls_before, "failed calls were not cached"


def _chunk_file(data: Path, key: str) -> list[dict[str, Any]]:
    import json

    path = data / "documents" / key / "chunks-question.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- Chroma: retries with backoff ------------------------------------------------------------------
class FlakyCollection:
    """A Chroma collection whose first ``failures`` calls raise ConnectionError, as a client
    does while its server restarts; every call is counted."""

    def __init__(self, collection: Any, failures: int):
        self._collection = collection
        self.failures = failures
        self.calls = 0
        self.name = collection.name

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.failures > 0:
            self.failures -= 1
            raise ConnectionError("[Errno 111] Connection refused (chroma restarting)")
        return getattr(self._collection, method)(*args, **kwargs)

    def get(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("get", *args, **kwargs)

    def upsert(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("upsert", *args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> Any:
        return self._call("delete", *args, **kwargs)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The backoff delays ``with_retries`` asked for (not slept, so the test stays fast)."""
    delays: list[float] = []
    monkeypatch.setattr(vector_store, "time", SimpleNamespace(sleep=delays.append))
    return delays


def test_short_outage_is_bridged_with_exponential_backoff(settings: Settings, sleeps: list[float]) -> None:
    flaky = FlakyCollection(open_collection(settings), failures=3)
    records = doc_records(["排水系統的容量", "補償政策"], "s1")
    result = replace_document(flaky, records, "doc", "question", "s1")
    assert result.written == 2 and sleeps == [0.5, 1.0, 2.0]
    assert sorted(c.id for c in stored_chunks(open_collection(settings))) == [
        "doc:question:0",
        "doc:question:1",
    ]


def test_long_outage_raises_after_the_last_attempt_and_other_errors_at_once(sleeps: list[float]) -> None:
    attempts = {"n": 0}

    def down() -> None:
        attempts["n"] += 1
        raise ConnectionError("Could not connect to a Chroma server. Are you sure it is running?")

    with pytest.raises(ConnectionError):
        with_retries(down)
    assert attempts["n"] == 5 and sleeps == [0.5, 1.0, 2.0, 4.0]

    def invalid() -> None:
        attempts["n"] += 1
        raise ValueError("Expected metadata value to be a str, int, float or bool, got list")

    attempts["n"] = 0
    with pytest.raises(ValueError):
        with_retries(invalid)
    assert attempts["n"] == 1, "a bad request is not retried"


@pytest.fixture
def flaky_chroma(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """``ChromaResource`` hands out FlakyCollections; set ``state["failures"]`` per run."""
    real_open = vector_store.open_collection
    state: dict[str, Any] = {"failures": 0, "collections": [], "real_open": real_open}

    def open_flaky(settings: Settings, client: Any = None) -> FlakyCollection:
        collection = FlakyCollection(real_open(settings, client), state["failures"])
        state["collections"].append(collection)
        return collection

    monkeypatch.setattr(search, "open_collection", open_flaky)  # the name ChromaResource imports
    yield state


def test_chroma_down_fails_vector_index_only_and_a_rerun_completes(
    tmp_path: Path, sleeps: list[float], flaky_chroma: dict[str, Any]
) -> None:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(
        english_paper(tmp_path / "outage.pdf", "outage", pages=4)
    )
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        flaky_chroma["failures"] = 1000  # down for longer than the retries last
        failed = dg.materialize(
            ALL_ASSETS, partition_key=key, instance=instance, resources=resources, raise_on_error=False
        )
        assert not failed.success
        failures = step_failure_messages(failed)
        assert list(failures) == ["vector_index"] and "Connection refused" in failures["vector_index"]
        assert sleeps == [0.5, 1.0, 2.0, 4.0], "retried with backoff before giving up"
        status = instance.get_status_by_partition(dg.AssetKey("vector_index"), [key], documents_partitions)
        assert status == {key: dg.AssetPartitionStatus.FAILED}
        assert instance.get_status_by_partition(dg.AssetKey("chunks"), [key], documents_partitions) == {
            key: dg.AssetPartitionStatus.MATERIALIZED
        }

        flaky_chroma["failures"] = 2  # back after a blip
        rerun = dg.materialize(
            ALL_ASSETS, selection=[vector_index], partition_key=key, instance=instance, resources=resources
        )
        assert rerun.success
        assert instance.get_status_by_partition(dg.AssetKey("vector_index"), [key], documents_partitions) == {
            key: dg.AssetPartitionStatus.MATERIALIZED
        }
    stored = stored_chunks(flaky_chroma["real_open"](Settings(data_dir=data)))
    assert sorted(c.id for c in stored) == sorted(chunk_file_ids(data, key))
    assert len({c.id for c in stored}) == len(stored)


def test_chroma_server_started_late_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real Chroma server that comes up while ``vector_index`` is already retrying."""
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(english_paper(tmp_path / "late.pdf", "late", pages=2))
    port = free_port()
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(host="127.0.0.1", port=port),
    }
    real_sleep = time.sleep
    delays: list[float] = []

    def recording_sleep(seconds: float) -> None:
        delays.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(vector_store, "time", SimpleNamespace(sleep=recording_sleep))
    servers: list[Any] = []
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        upstream = dg.materialize(
            ALL_ASSETS,
            selection=[a for a in ALL_ASSETS if a is not vector_index],
            partition_key=key,
            instance=instance,
            resources=resources,
        )
        assert upstream.success
        starter = threading.Timer(
            0.8, lambda: servers.append(start_chroma_server(tmp_path / "late-chroma" / "db", port))
        )
        starter.start()
        try:
            result = dg.materialize(
                ALL_ASSETS,
                selection=[vector_index],
                partition_key=key,
                instance=instance,
                resources=resources,
                raise_on_error=False,
            )
            starter.join()
            assert result.success, step_failure_messages(result)
            stored = stored_chunks(open_collection(servers[0].settings(data)))
            assert sorted(c.id for c in stored) == sorted(chunk_file_ids(data, key))
        finally:
            starter.cancel()
            for server in servers:
                server.stop()
    assert delays and delays[:2] == [0.5, 1.0], "it waited for the server with backoff"


# -- one strategy of one paper breaks: the rest is indexed ------------------------------------
def test_a_strategy_that_breaks_on_one_paper_costs_only_that_strategy_of_that_paper(
    env_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ingest --strategy both`` of two papers where the token chunker raises for one of
    them: that paper's question chunks and both strategies of the other paper reach Chroma,
    and the summary counts the failure under its strategy."""
    import io

    from legco_assets.cli.ingest import failed_line, ingest_files
    from legco_assets.core import pipeline

    real = pipeline.stage_chunks

    def token_breaks_on_one_paper(
        settings: Settings, document_id: str, strategy: Strategy, *args: Any, **kwargs: Any
    ) -> Any:
        if document_id == "broken" and strategy is Strategy.token:
            raise RuntimeError("the token chunker broke on this paper")
        return real(settings, document_id, strategy, *args, **kwargs)

    monkeypatch.setattr(pipeline, "stage_chunks", token_breaks_on_one_paper)
    papers = [
        english_paper(tmp_path / "broken.pdf", "broken", pages=2),
        english_paper(tmp_path / "sound.pdf", "sound", pages=2),
    ]
    settings = Settings.from_env()
    summary = ingest_files(papers, list(Strategy), settings, out=io.StringIO())

    assert (
        summary["failed_by_strategy"] == {"token": 1, "question": 0}
        and failed_line(summary) == "failed: token 1, question 0"
    )
    [failure] = summary["failed"]
    assert (failure["file"], failure["strategy"]) == (
        str(papers[0]),
        "token",
    ) and "token chunker broke" in failure["error"]
    assert summary["documents"] == 2
    stored = {(c.document_id, c.metadata.strategy_type) for c in stored_chunks(open_collection(settings))}
    assert stored == {("broken", "question"), ("sound", "token"), ("sound", "question")}
    assert sorted(
        c.id for c in stored_chunks(open_collection(settings)) if c.id.startswith("broken:")
    ) == sorted(chunk_file_ids(env_data_dir, "broken", "question"))


def test_a_shared_stage_that_fails_fails_each_strategy_of_that_paper_only(
    env_data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a stage both strategies read fails (here ``document_structure``), the paper's
    second strategy is not run on stale or missing results: each strategy is counted as
    failed, with the shared stage named; the other paper is indexed whole."""
    import io

    from legco_assets.cli.ingest import ingest_files
    from legco_assets.core import pipeline

    real = pipeline.stage_structure

    def structure_breaks_on_one_paper(settings: Settings, document_id: str, *args: Any, **kwargs: Any) -> Any:
        if document_id == "broken":
            raise RuntimeError("the structure rules broke on this paper")
        return real(settings, document_id, *args, **kwargs)

    monkeypatch.setattr(pipeline, "stage_structure", structure_breaks_on_one_paper)
    papers = [
        english_paper(tmp_path / "broken.pdf", "broken", pages=2),
        english_paper(tmp_path / "sound.pdf", "sound", pages=2),
    ]
    settings = Settings.from_env()
    summary = ingest_files(papers, list(Strategy), settings, out=io.StringIO())
    assert summary["failed_by_strategy"] == {"token": 1, "question": 1} and summary["documents"] == 1
    assert [f["strategy"] for f in summary["failed"]] == ["token", "question"]
    assert summary["failed"][1]["error"].startswith("not run: the shared stage document_structure failed: ")
    stored = {(c.document_id, c.metadata.strategy_type) for c in stored_chunks(open_collection(settings))}
    assert stored == {("sound", "token"), ("sound", "question")}
