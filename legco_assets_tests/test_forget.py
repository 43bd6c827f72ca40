"""Forgetting a paper: ``legco-assets forget`` and the ``forget_document`` job remove its
partition, its chunks in Chroma (so the keyword index), its artifacts and excerpts, its BM25
cache and its document-index entry, each said in a line; a running search server stops
returning it within seconds. On copies of the shared store (both samples, both strategies)."""

from __future__ import annotations

import json
import shutil
import time
import urllib.parse
import urllib.request
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.search import Target, UnknownDocument, forget, open_collection, replace_document
from legco_assets.core.settings import Settings
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.forget import forget_document_job

from .conftest import store_settings
from .factories import EN_PAIRS, question_records
from .runs import cli, dagster_resources, error_lines
from .servers import search_service

GONE, KEPT = "sample-en-qa", "sample-zh-qa"


def copy_of(served_store: Path, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(served_store, home)
    return home


def instance_of(home: Path) -> dg.DagsterInstance:
    return dg.DagsterInstance.from_config(str(home / "dagster_home"))


def stored_ids(settings: Settings, document_id: str) -> list[str]:
    return open_collection(settings).get(where={"document_id": document_id}, include=[])["ids"]


def hits(base: str, query: str, mode: str = "hybrid") -> list[str]:
    url = f"{base}/api/search?k=50&mode={mode}&strategy=token&q={urllib.parse.quote(query)}"
    with urllib.request.urlopen(url, timeout=60) as reply:
        return [h["document_id"] for h in json.loads(reply.read())["hits"]]


def bm25_cached_ids(settings: Settings) -> set[str]:
    folder = settings.cache_dir / "bm25"
    rows = [json.loads(p.read_text(encoding="utf-8"))["ids"] for p in folder.glob("*/rows.json")]
    return {i for ids in rows for i in ids}


def assert_gone(home: Path, document_id: str) -> None:
    settings = store_settings(home)
    with instance_of(home) as instance:
        assert document_id not in instance.get_dynamic_partitions("documents")
    assert stored_ids(settings, document_id) == []
    assert not (settings.documents_dir / document_id).exists()
    assert DocumentIndex(settings.documents_dir).get(document_id) is None
    assert not any(i.startswith(document_id) for i in bm25_cached_ids(settings))


def test_forget_from_the_command_line_and_a_running_server_drops_it(
    served_store: Path, tmp_path: Path
) -> None:
    home = copy_of(served_store, tmp_path)
    settings = store_settings(home)
    assert stored_ids(settings, GONE) and (settings.documents_dir / GONE / "excerpts").exists()
    with search_service(settings) as server:
        assert GONE in hits(server.base, "Guangdong Scheme", "bm25")
        done = cli("forget", GONE, home=home)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        for item in ("Chroma:", "artifacts:", "excerpts:", "document index:", "partition:"):
            assert any(line.startswith(f"{GONE}: {item}") for line in lines), done.stdout
        assert_gone(home, GONE)
        deadline = time.monotonic() + 15
        while GONE in hits(server.base, "Guangdong Scheme", "bm25") and time.monotonic() < deadline:
            time.sleep(0.3)
        assert GONE not in hits(server.base, "Guangdong Scheme", "bm25")  # the keyword index
        assert GONE not in hits(server.base, "Guangdong Scheme")
        assert KEPT in hits(server.base, "水浸黑點")  # the other paper is untouched
        status = urllib.request.urlopen(f"{server.base}/api/documents", timeout=60)
        assert {d["document_id"] for d in json.loads(status.read())["documents"]} == {KEPT}
    assert stored_ids(settings, KEPT) and (settings.documents_dir / KEPT).exists()


def test_an_unknown_document_stops_it_before_anything_is_removed(served_store: Path, tmp_path: Path) -> None:
    home = copy_of(served_store, tmp_path)
    done = cli("forget", KEPT, "no-such-paper", home=home)
    assert done.returncode != 0
    assert error_lines(done.stderr) == ["legco-assets: error: no-such-paper: no such document "
                                        "(legco-assets documents lists them)"]  # fmt: skip
    assert stored_ids(store_settings(home), KEPT)  # named first, still there


def test_a_broken_files_partition_with_no_artifacts(served_store: Path, tmp_path: Path) -> None:
    home = copy_of(served_store, tmp_path)
    broken = tmp_path / "broken.pdf"
    broken.write_text("not a pdf at all", encoding="utf-8")
    assert cli("ingest", str(broken), home=home).returncode != 0
    with instance_of(home) as instance:
        assert "broken" in instance.get_dynamic_partitions("documents")
    done = cli("forget", "broken", home=home)
    assert done.returncode == 0, done.stderr
    assert "broken: partition: broken removed from documents" in done.stdout.splitlines()
    assert_gone(home, "broken")


def test_the_forget_document_job_records_each_removal(served_store: Path, tmp_path: Path) -> None:
    home = copy_of(served_store, tmp_path)
    with instance_of(home) as instance:
        result = forget_document_job.execute_in_process(
            run_config={"ops": {"forget_documents": {"config": {"document_ids": [KEPT]}}}},
            instance=instance,
            resources=dagster_resources(home / "data"),
        )
        assert result.success
        logged = [record.user_message for record in instance.all_logs(result.run_id)]
        assert any(m.startswith(f"{KEPT}: Chroma:") for m in logged)
        assert any(m.startswith(f"{KEPT}: partition:") for m in logged)
        observed = instance.fetch_observations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("source_document"), asset_partitions=[KEPT]), limit=5
        ).records
        removed = observed[0].asset_observation.metadata["removed"].value
        assert any(line.startswith(f"{KEPT}: artifacts:") for line in removed)
        unknown = forget_document_job.execute_in_process(
            run_config={"ops": {"forget_documents": {"config": {"document_ids": ["no-such-paper"]}}}},
            instance=instance,
            resources=dagster_resources(home / "data"),
            raise_on_error=False,
        )
        assert not unknown.success
        failure = next(e for e in unknown.all_events if e.is_step_failure).event_specific_data
        assert failure.user_failure_data.description == (
            "no-such-paper: no such document (legco-assets documents lists them)"
        )
        empty = forget_document_job.execute_in_process(
            run_config={"ops": {"forget_documents": {"config": {"document_ids": []}}}},
            instance=instance,
            resources=dagster_resources(home / "data"),
            raise_on_error=False,
        )
        failure = next(e for e in empty.all_events if e.is_step_failure).event_specific_data
        assert failure.user_failure_data.description == (
            "no document ids: set ops.forget_documents.config.document_ids"
        )
    assert_gone(home, KEPT)


def test_one_past_version(settings: Settings) -> None:
    """``DOC@<sha prefix>``: that version's archived chunks and its place in the versions go;
    the current version stays, and naming it is refused."""
    old, new = "a" * 64, "b" * 64
    index = DocumentIndex(settings.documents_dir)
    key = index.register(Path("elderly.pdf"))
    collection = open_collection(settings)
    for sha in (old, new):
        index.record_version(key, sha)
        replace_document(collection, question_records(key, EN_PAIRS, sha), key, "question", sha)
    archived = collection.get(where={"content_sha256": old}, include=[])["ids"]
    assert archived and all("@aaaaaaaa:" in i for i in archived)
    with pytest.raises(UnknownDocument, match="the current version"):
        forget(settings, collection, Target.parse(f"{key}@{new[:8]}"))
    done = forget(settings, collection, Target.parse(f"{key}@{old[:10]}"))
    assert any("Chroma:" in line for line in done.lines) and any(
        "version aaaaaaaaaaaa" in line for line in done.lines
    )
    assert collection.get(where={"content_sha256": old}, include=[])["ids"] == []
    assert len(collection.get(where={"content_sha256": new}, include=[])["ids"]) == len(EN_PAIRS)
    assert index.get(key).versions == [new]
