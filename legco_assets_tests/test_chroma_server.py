"""The vector store against a real Chroma server as well as the embedded client.

Why: past one machine, workers write to one Chroma *server*; the behaviours the pipeline
relies on (replace-by-document, versions kept, deterministic ids, a killed write finished by
the next run) must hold there exactly as they do embedded. The server is the ``chroma``
executable of the installed chromadb package on 127.0.0.1, started once per session.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from legco_assets.core.artifacts import Artifacts, SourceInfo
from legco_assets.core.chunking import TokenChunkingStrategy
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import ChunkRecord, DocumentText
from legco_assets.core.search import COLLECTION, open_client, open_collection, replace_document, stored_chunks
from legco_assets.core.settings import Settings, Strategy

from .factories import doc_records, fixed_english_paper
from .servers import ChromaServer, start_chroma_server
from .vector_store_behaviours import BEHAVIOURS


# -- the server -------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One real Chroma server for the session; its process group is stopped at the end."""
    server = start_chroma_server(tmp_path_factory.mktemp("chroma-server") / "db")
    try:
        yield server.wait_ready()
    finally:
        server.stop()


def _empty_server_collection(settings: Settings) -> None:
    """Server state outlives a test: start each test from an empty collection."""
    client = open_client(settings)
    if COLLECTION in {getattr(c, "name", c) for c in client.list_collections()}:
        client.delete_collection(COLLECTION)


@pytest.fixture(params=["embedded", "server"])
def store_settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    """Settings for the embedded client or for the session's Chroma server."""
    data = tmp_path / "data"
    if request.param == "embedded":
        return Settings(data_dir=data, inbox=data / "inbox")
    server: ChromaServer = request.getfixturevalue("chroma_server")
    settings = server.settings(data)
    _empty_server_collection(settings)
    return settings


# -- the vector-store behaviours on both backends ---------------------------------------------
def test_behaviours_were_found() -> None:
    assert len(BEHAVIOURS) >= 4, [b.__name__ for b in BEHAVIOURS]


@pytest.mark.parametrize("behaviour", BEHAVIOURS, ids=[b.__name__ for b in BEHAVIOURS])
def test_vector_store_behaviour(store_settings: Settings, behaviour: Callable[[Settings], None]) -> None:
    behaviour(store_settings)


def test_server_collection_is_shared_between_clients(chroma_server: ChromaServer, tmp_path: Path) -> None:
    """Two workers with their own data dirs (so their own vector caches) see one store."""
    first = chroma_server.settings(tmp_path / "worker-1")
    second = chroma_server.settings(tmp_path / "worker-2")
    _empty_server_collection(first)
    replace_document(
        open_collection(first), doc_records(["排水系統", "補償政策"], "s1"), "doc", "question", "s1"
    )
    replace_document(
        open_collection(second), doc_records(["排水系統", "補償政策"], "s1"), "doc", "question", "s1"
    )
    stored = stored_chunks(open_collection(first))
    assert sorted(c.id for c in stored) == ["doc:question:0", "doc:question:1"]
    hits = open_collection(second).query(query_texts=["補償"], n_results=1)
    assert hits["ids"][0] == ["doc:question:1"]


# -- killed in the middle of vector_index ------------------------------------------------------
# ``vector_index`` for one document in a fresh process, as a Dagster run does; with "slow",
# tiny batches and a slow embedding model so that a kill lands in the middle of the write.
VECTOR_INDEX_PROCESS = r"""
import sys, time
from legco_assets.core.search import embeddings, vector_store
from legco_assets.core import pipeline
from legco_assets.core.settings import Settings, Strategy

if sys.argv[3] == "slow":
    vector_store.BATCH = 4
    original_call = embeddings._CachedEmbedding.__call__

    def slow_call(self, input):
        time.sleep(0.15)
        return original_call(self, input)

    embeddings._CachedEmbedding.__call__ = slow_call
settings = Settings.from_env()
collection = vector_store.open_collection(settings)
original_upsert = collection.upsert

def reporting_upsert(**kwargs):
    original_upsert(**kwargs)
    print("upserted", len(kwargs["ids"]), flush=True)

collection.upsert = reporting_upsert
print("start", flush=True)
result = pipeline.stage_vector_index(settings, sys.argv[1], Strategy(sys.argv[2]), collection)
print("finished", result.stored.written, flush=True)
"""


def _write_document(
    settings: Settings, paper: Path, document_id: str, sha256: str, chunk_size: int
) -> list[ChunkRecord]:
    """Real token chunks of ``paper`` as the chunks asset writes them, plus its source.json."""
    pages = clean_pages(extract_document(read_source(paper)).pages)
    chunks = TokenChunkingStrategy(chunk_size, chunk_size // 8).chunk_text(
        document_id, DocumentText.from_pages(pages)
    )
    records = [c.to_record(paper.name, sha256) for c in chunks]
    art = Artifacts(settings, document_id)
    info = SourceInfo(
        document_id, str(paper), paper.name, sha256, "pdf", "pypdfium2", len(pages), "en", "", 0, 1
    )
    art.write_json("source.json", asdict(info))
    art.write_chunks(Strategy.token, records)
    return records


def _env_for(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHROMA_", "LLM_", "EMBEDDING_"))}
    env["LEGCO_DATA_DIR"] = str(settings.data_dir)
    if settings.chroma_host:
        env.update(CHROMA_HOST=settings.chroma_host, CHROMA_PORT=str(settings.chroma_port))
    return env


def test_killed_vector_index_is_finished_exactly_by_the_rerun(
    store_settings: Settings, tmp_path: Path
) -> None:
    """SIGKILL a process half-way through writing a new version; the re-run leaves exactly
    the chunk file's ids as latest, the previous version archived once, nothing twice."""
    settings = store_settings
    doc = "killed-paper"
    old = _write_document(settings, fixed_english_paper(tmp_path / "old.pdf", pages=2), doc, "a" * 64, 120)
    collection = open_collection(settings)
    replace_document(collection, old, doc, "token", "a" * 64)

    new = _write_document(settings, fixed_english_paper(tmp_path / "new.pdf", pages=6), doc, "b" * 64, 60)
    assert len(new) >= 40, "enough batches of 4 to kill the writer in the middle"
    writer = subprocess.Popen(
        [sys.executable, "-c", VECTOR_INDEX_PROCESS, doc, "token", "slow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env_for(settings),
    )
    try:
        upserts = 0
        assert writer.stdout is not None
        for line in writer.stdout:
            if line.startswith("upserted"):
                upserts += 1
                if upserts == 3:
                    time.sleep(0.05)  # inside the next batch's (slow) embedding
                    os.kill(writer.pid, signal.SIGKILL)
                    break
        writer.wait(timeout=60)
    finally:
        if writer.poll() is None:
            writer.kill()
    assert writer.returncode == -signal.SIGKILL, writer.stderr.read() if writer.stderr else ""

    collection = open_collection(settings)
    latest_new = stored_chunks(collection, {"content_sha256": "b" * 64})
    assert 0 < len(latest_new) < len(new), "the kill landed in the middle of the write"

    # The re-run is a new process, like every Dagster run. (An embedded client that stays
    # open while another process writes cannot read the new vectors: chromadb keeps its
    # index in memory. One writer process at a time embedded; a server otherwise.)
    rerun = subprocess.run(
        [sys.executable, "-c", VECTOR_INDEX_PROCESS, doc, "token", "fast"],
        capture_output=True,
        text=True,
        env=_env_for(settings),
        timeout=300,
    )
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert rerun.stdout.split()[-2:] == ["finished", str(len(new))]

    stored = stored_chunks(open_collection(settings))
    ids = [c.id for c in stored]
    assert len(ids) == len(set(ids)), "no duplicates"
    chunk_file = [
        json.loads(line)
        for line in Artifacts(settings, doc)
        .path("chunks-token.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    latest = sorted((c for c in stored if c.metadata.is_latest_version), key=lambda c: c.metadata.chunk_index)
    assert [c.id for c in latest] == [r["id"] for r in chunk_file], (
        "exactly the chunk file's ids, none missing"
    )
    assert [c.text for c in latest] == [r["text"] for r in chunk_file]
    assert all(c.metadata.content_sha256 == "b" * 64 for c in latest)
    archived = sorted(c.id for c in stored if not c.metadata.is_latest_version)
    assert archived == sorted(f"{doc}@aaaaaaaa:token:{i}" for i in range(len(old))), (
        "previous version kept once"
    )
    assert len(stored) == len(new) + len(old)
