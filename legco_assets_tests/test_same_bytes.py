"""The same bytes are one paper: a file whose sha256 a partition already holds
becomes no partition of its own, in the inbox sensor, ``ingest`` and the feed sensor alike;
each says which partition it is and records the other name on that document; a changed file
under a known name is still a new version; and no query returns the same text twice, also
over a data dir made before, where one paper may be stored under two ids."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from legco_assets.core.search import Retriever, open_collection, replace_document
from legco_assets.core.settings import Settings
from legco_assets.core.sources import DocumentIndex, file_sha256
from legco_assets.definitions import defs
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import LegcoSettings
from legco_assets.defs.sensors import inbox_sensor, legco_feed_sensor

from .factories import EN_PAIRS, ZH_PAIRS, feed_settings, fixed_english_paper, question_records
from .odata_server import FakeHansardServer
from .runs import cli


def _observed_names(instance: dg.DagsterInstance, key: str) -> list[list[str]]:
    """The ``also_named`` lists of the observations on ``source_document`` of one partition."""
    records = instance.fetch_observations(dg.AssetKey("source_document"), limit=20).records
    return [
        r.asset_observation.metadata["also_named"].value
        for r in records
        if r.asset_observation.partition == key and "also_named" in r.asset_observation.metadata
    ]


# -- the document index -----------------------------------------------------------------------
def test_a_claim_decides_by_bytes_and_a_known_name_keeps_its_document(tmp_path: Path) -> None:
    index = DocumentIndex(tmp_path / "documents")
    paper = fixed_english_paper(tmp_path / "inbox" / "Paper A.pdf", pages=2)
    copy = tmp_path / "inbox" / "copy.pdf"
    shutil.copy(paper, copy)
    first = index.claim(paper, file_sha256(paper))
    assert first.document_id == "paper-a" and not first.same_bytes

    # before any run has recorded a version, the copy is already known as the same paper
    second = index.claim(copy, file_sha256(copy))
    assert (second.document_id, second.same_bytes, second.new_name) == ("paper-a", True, True)
    assert index.get("paper-a").also_named == [str(copy.resolve())]
    assert index.register(copy) == "paper-a", "the other name is a name of that document"
    again = index.claim(copy, file_sha256(copy))
    assert again.same_bytes and not again.new_name, "named once, not on every look"

    # a changed file under its own name: a new version of the same document, as before
    fixed_english_paper(paper, pages=3)
    changed = index.claim(paper, file_sha256(paper))
    assert changed.document_id == "paper-a" and not changed.same_bytes

    # the copy now holds the old bytes, which no document holds now: a paper of its own
    moved = index.claim(copy, file_sha256(copy))
    assert moved.document_id == "copy" and not moved.same_bytes
    assert index.get("paper-a").also_named == []
    assert set(index.all()) == {"paper-a", "copy"}


def test_a_version_recorded_by_a_run_is_what_a_later_copy_is_matched_with(tmp_path: Path) -> None:
    """An index written before this change has no claimed bytes: the latest version decides."""
    index = DocumentIndex(tmp_path / "documents")
    paper = fixed_english_paper(tmp_path / "old.pdf", pages=2)
    key = index.register(paper)
    sha = file_sha256(paper)
    assert index.holding(sha) is None
    index.record_version(key, sha)
    assert index.holding(sha) == key
    copy = tmp_path / "new name.pdf"
    shutil.copy(paper, copy)
    assert index.claim(copy, sha).document_id == key


# -- the inbox sensor -------------------------------------------------------------------------
def test_the_inbox_sensor_makes_one_partition_of_one_papers_two_names(tmp_path: Path) -> None:
    data = tmp_path / "data"
    inbox = data / "inbox"
    paper = fixed_english_paper(inbox / "paper.pdf", pages=2)
    shutil.copy(paper, inbox / "the same paper.pdf")
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(inbox))}
    with dg.instance_for_test() as instance:
        tick = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        assert [r.partition_key for r in tick.run_requests] == ["paper"]
        assert list(tick.dynamic_partitions_requests[0].partition_keys) == ["paper"]
        index = DocumentIndex(data / "documents")
        assert set(index.all()) == {"paper"}
        assert index.get("paper").also_named == [str((inbox / "the same paper.pdf").resolve())]
        (observation,) = tick.asset_events
        assert observation.partition == "paper" and "the same paper.pdf" in (observation.description or "")

        # a third name on a later tick: no run, and the tick's message names the partition
        shutil.copy(paper, inbox / "paper (1).pdf")
        later = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources=resources, cursor=tick.cursor)
        )
        assert not later.run_requests and not later.dynamic_partitions_requests
        assert later.skip_reason is not None
        assert "paper (1).pdf has the same bytes as partition paper" in (later.skip_reason.skip_message or "")
        assert len(index.get("paper").also_named) == 2


# -- the feed sensor --------------------------------------------------------------------------
def test_the_feed_sensor_names_the_partition_a_download_already_is(
    odata_server: FakeHansardServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEGCO_FEED_URL", odata_server.base_url)
    monkeypatch.setenv("LEGCO_FEED_SINCE", "2024-01-01")
    monkeypatch.setenv("LEGCO_FEED_TIMEOUT_S", "1")
    monkeypatch.setenv("LEGCO_FEED_BACKOFF_S", "0.01")
    data = tmp_path / "data"
    dropped = fixed_english_paper(data / "inbox" / "dropped by hand.pdf", pages=2)
    odata_server.add_record("2001", "2024-01-10", "English", dropped.read_bytes())
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox"))}
    with dg.instance_for_test() as instance:
        inbox = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        assert [r.partition_key for r in inbox.run_requests] == ["dropped-by-hand"]
        tick = legco_feed_sensor.evaluate_tick(
            dg.build_sensor_context(
                instance=instance, instance_ref=instance.get_ref(), definitions=defs, resources=resources
            )
        )
        assert not tick.run_requests and not tick.dynamic_partitions_requests
        assert "has the same bytes as partition dropped-by-hand" in (tick.skip_message or "")
        (downloaded,) = DocumentIndex(data / "documents").get("dropped-by-hand").also_named
        assert Path(downloaded).name == "hansard-2024-01-10-en.pdf"


def test_legco_assets_feed_names_the_partition_a_download_already_is(
    odata_server: FakeHansardServer, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    from legco_assets.cli.feed import poll_once

    settings = feed_settings(odata_server, tmp_path, feed_since="2024-01-01")
    dropped = fixed_english_paper(settings.inbox / "dropped by hand.pdf", pages=2)
    DocumentIndex(settings.documents_dir).claim(dropped, file_sha256(dropped))
    odata_server.add_record("2002", "2024-01-11", "English", dropped.read_bytes())
    args = argparse.Namespace(since=None, until=None, types=("English",), limit=None)
    poll_once(args, settings)
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if "HansardID 2002" in ln]
    assert line.endswith("(the same bytes as partition dropped-by-hand)"), line


# -- search over a data dir made before: one paper under two ids ------------------------------
@pytest.fixture
def twice(settings: Settings) -> tuple[Settings, Any]:
    """The Chinese paper stored under two ids (as two partitions of the same bytes were,
    before), and the English one once."""
    collection = open_collection(settings)
    for key in ("drain", "drain-copy"):
        replace_document(collection, question_records(key, ZH_PAIRS, "a" * 64), key, "question", "a" * 64)
    replace_document(
        collection, question_records("elderly", EN_PAIRS, "b" * 64), "elderly", "question", "b" * 64
    )
    return settings, collection


@pytest.mark.parametrize("mode", ["hybrid", "vector", "bm25"])
def test_a_query_returns_each_chunk_text_once(twice: tuple[Settings, Any], mode: str) -> None:
    settings, collection = twice
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    k = len(ZH_PAIRS) + 1
    hits = retriever.search("全港仍有多少個水浸黑點？", k=k, strategy="question", mode=mode)
    texts = [h.text for h in hits]
    assert len(set(texts)) == len(texts), f"{mode}: a text twice"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert hits[0].metadata.question_id == "A2"
    if mode != "bm25":  # BM25 finds only chunks that share a word; the others rank every chunk
        assert len(hits) == k, f"{mode}: the copies must not leave the list short"
    both = retriever.search("水浸黑點", k=2, strategy="question", mode=mode, document="drain-copy")
    assert both and {h.record.document_id for h in both} == {"drain-copy"}, "a document filter still works"


# -- ingest -------------------------------------------------------------------------------------
def test_ingest_makes_one_partition_of_two_names_and_a_query_finds_each_text_once(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    paper = fixed_english_paper(inbox / "paper.pdf", pages=2)
    shutil.copy(paper, inbox / "second name.pdf")
    done = cli("ingest", str(inbox), "--strategy", "token", home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("→ partition ") == 1 and "→ partition paper\n" in done.stdout
    assert f"{inbox / 'second name.pdf'} has the same bytes as partition paper" in done.stdout
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("ingested 1 document(s)") and "same bytes as a partition 1;" in summary

    # named again later, alone: the line names the partition and nothing is ingested
    shutil.copy(paper, tmp_path / "paper again.pdf")
    later = cli("ingest", str(tmp_path / "paper again.pdf"), "--strategy", "token", home=tmp_path)
    assert later.returncode == 0, later.stdout + later.stderr
    assert "paper again.pdf has the same bytes as partition paper" in later.stdout
    assert "→ partition" not in later.stdout and later.stdout.strip().splitlines()[-1].startswith(
        "ingested 0 document(s)"
    )

    data = tmp_path / "data"
    assert set(DocumentIndex(data / "documents").all()) == {"paper"}
    assert len(DocumentIndex(data / "documents").get("paper").also_named) == 2
    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        assert instance.get_dynamic_partitions(documents_partitions.name) == ["paper"]
        assert sorted(map(len, _observed_names(instance, "paper"))) == [1, 2]
        # the paper's own materialisation says it too, as a line of its metadata
        (latest,) = instance.fetch_materializations(dg.AssetKey("source_document"), limit=1).records
        line = latest.asset_materialization.metadata["same_bytes"].value
        assert line == "the same bytes as this partition's file, no partition of their own: second name.pdf"

    found = cli(
        "query", "drainage capacity inspection", "-k", "20", "--json", "--strategy", "token", home=tmp_path
    )
    assert found.returncode == 0, found.stderr
    hits = [json.loads(line) for line in found.stdout.splitlines()]
    assert hits and len({h["text"] for h in hits}) == len(hits)
    assert {h["document_id"] for h in hits} == {"paper"}
