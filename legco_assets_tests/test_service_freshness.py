"""The server's index stays fresh without a restart and is never half of a paper:
a paper ingested by another process (the CLI in a subprocess) is found by the next search;
a paper half written to Chroma, or a segment half made, is not served; and a bounded load test, 8 clients x 50 searches while an ingest runs,
ends with every answer well-formed. One real server on a copy of the shared store."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from legco_assets.service import index as live_index

from .conftest import FIXTURES, SAMPLES, store_settings
from .runs import cli
from .servers import SEARCH_HIT_KEYS, SearchService, free_port, search_service, stop_group


@pytest.fixture(scope="module")
def home(served_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("fresh") / "home"
    shutil.copytree(served_store, copy)
    return copy


@pytest.fixture(scope="module")
def service(home: Path) -> Iterator[SearchService]:
    with search_service(store_settings(home)) as running:
        yield running


def search(service: SearchService, **params: Any) -> dict[str, Any]:
    url = f"{service.base}/api/search?{urllib.parse.urlencode(params)}"
    with urllib.request.urlopen(url, timeout=120) as reply:
        assert reply.status == 200
        return json.loads(reply.read())


def documents(service: SearchService) -> set[str]:
    with urllib.request.urlopen(f"{service.base}/api/documents", timeout=60) as reply:
        return {row["document_id"] for row in json.loads(reply.read())["documents"]}


def test_a_paper_ingested_by_another_process_is_found_without_a_restart(
    service: SearchService, home: Path
) -> None:
    query = {"q": "網約車規管框架", "k": 3, "strategy": "token", "mode": "hybrid"}
    assert all(h["document_id"] != "sample-zh-speaking-notes" for h in search(service, **query)["hits"])
    done = cli("ingest", str(SAMPLES / "sample_zh_speaking_notes.pdf"), "--strategy", "both", home=home)
    assert done.returncode == 0, done.stderr[-2000:]
    time.sleep(live_index.CHECK_EVERY_S)
    hits = search(service, **query)["hits"]
    assert hits[0]["document_id"] == "sample-zh-speaking-notes" and "網約車" in hits[0]["text"]
    vector = search(service, q="網約車", k=1, mode="vector", document="sample-zh-speaking-notes")
    assert vector["hits"], "the vectors of the new paper are searched too, on a fresh client"
    assert "sample-zh-speaking-notes" in documents(service)


HALF_WRITE = """
import json, sys
from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import open_collection
from legco_assets.core.settings import Settings
data, doc, part = sys.argv[1], sys.argv[2], sys.argv[3]
settings = Settings(data_dir=__import__("pathlib").Path(data))
collection = open_collection(settings)
lines = open(f"{data}/documents/{doc}/chunks-question.jsonl", encoding="utf-8").read().splitlines()
records = [ChunkRecord.from_json(json.loads(line)) for line in lines]
half = len(records) // 2
if part == "first":  # what an ingest leaves between two batches: the paper's chunks gone, half back
    collection.delete(ids=[r.id for r in records])
    batch = records[:half]
else:
    batch = records[half:]
collection.upsert(ids=[r.id for r in batch], documents=[r.text for r in batch],
                  metadatas=[r.to_chroma() for r in batch])
"""


def _write(home: Path, part: str) -> None:
    subprocess.run(
        [sys.executable, "-c", HALF_WRITE, str(home / "data"), "sample-en-qa", part], check=True, timeout=300
    )


def _question_chunks(service: SearchService, document: str) -> int:
    snapshot = service.context.index.current()  # type: ignore[attr-defined]
    records = snapshot.retriever.scope("question").records
    return sum(r.document_id == document for r in records)


def test_a_paper_is_served_whole_or_not_at_all(service: SearchService, home: Path) -> None:
    """The server reads the papers' index segments, never Chroma's rows: an ingest that has
    written half a paper's chunks to Chroma changes nothing it serves, and a segment folder a
    writer left half made (a staging folder) is not read."""
    whole = _question_chunks(service, "sample-en-qa")
    assert whole >= 4
    _write(home, "first")  # Chroma holds half of the paper's chunks now
    (home / "data" / "index" / "GENERATION").write_text("a change", encoding="utf-8")
    time.sleep(live_index.CHECK_EVERY_S * 2)
    assert _question_chunks(service, "sample-en-qa") == whole, "half a paper was served"
    assert (
        search(service, q="Guangdong", k=1, strategy="question")["hits"][0]["document_id"] == "sample-en-qa"
    )
    paper = next((home / "data" / "index" / "question").glob("sample-en-qa"))
    staging = paper / ".tmp-died"
    staging.mkdir()
    (staging / "meta.json").write_text("{", encoding="utf-8")  # a write that died half way
    reloads = service.context.index.reloads  # type: ignore[attr-defined]
    (home / "data" / "index" / "GENERATION").write_text("another change", encoding="utf-8")
    time.sleep(live_index.CHECK_EVERY_S * 2)
    assert _question_chunks(service, "sample-en-qa") == whole
    assert service.context.index.reloads > reloads  # type: ignore[attr-defined]
    shutil.rmtree(staging)
    _write(home, "rest")


def test_8_clients_x_50_searches_while_an_ingest_runs(service: SearchService, home: Path) -> None:
    """Bounded load: every answer a 200 with well-formed hits, while a paper is written."""
    ingest = subprocess.Popen(
        [sys.executable, "-m", "legco_assets.cli", "ingest", str(FIXTURES / "paper_e_qa.pdf")],
        env={**_cli_env(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    queries = ["水浸黑點", "Old Age Allowance", "渠務署 智能感應器", "licence application", "河道 生態"]
    problems: list[str] = []
    answered = [0] * 8

    def client(number: int) -> None:
        for i in range(50):
            query = queries[(number + i) % len(queries)]
            try:
                data = search(service, q=query, k=5, strategy=("token", "question")[i % 2])
                assert data["query"] == query and 1 <= len(data["hits"]) <= 5
                assert all(set(h) == SEARCH_HIT_KEYS and h["text"] and h["excerpt_url"] for h in data["hits"])
                answered[number] += 1
            except Exception as exc:  # noqa: BLE001 (every failure is collected and reported)
                problems.append(f"client {number} search {i}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    running_at_end = ingest.poll() is None
    _, err = ingest.communicate(timeout=600)
    assert ingest.returncode == 0, err[-2000:]
    assert problems == [] and answered == [50] * 8
    assert running_at_end or "paper-e-qa" in documents(service)


def _cli_env(home: Path) -> dict[str, str]:
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_"))
    }
    return {**env, "LEGCO_DATA_DIR": str(home / "data"), "DAGSTER_HOME": str(home / "dagster_home")}


def test_serve_with_two_workers_answers_from_two_processes(home: Path) -> None:
    """``serve --workers 2``: two processes over the same on-disk index, each answering."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "legco_assets.cli", "serve", "--port", str(port), "--workers", "2"],
        env=_cli_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=10) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.5)
        answers = []
        url = f"{base}/api/search?{urllib.parse.urlencode({'q': '水浸黑點', 'k': 3, 'strategy': 'question'})}"
        for _ in range(12):
            with urllib.request.urlopen(url, timeout=120) as reply:
                answers.append(json.loads(reply.read())["hits"][0]["document_id"])
        assert set(answers) == {"sample-zh-qa"}
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        spawned = [c for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
        assert len(spawned) == 2, children  # uvicorn's two workers, started by multiprocessing
    finally:
        stop_group(server)  # type: ignore[arg-type]
