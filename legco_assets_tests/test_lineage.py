"""Lineage per document: every materialisation names the upstream materialisations
of its own paper, ``legco-assets lineage`` prints the chain, and stale is per paper."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.definitions.data_version import StaleStatus
from dagster._utils.test.data_versions import (
    get_stale_status_resolver,  # Dagster's own test helper (stale status is not public API)
)

from legco_assets import cli
from legco_assets.cli.lineage import LEGEND
from legco_assets.core.settings import Strategy
from legco_assets.defs.assets import ALL_ASSETS, page_text
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.lineage import STAGES, document_chain, latest
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import LegcoSettings
from legco_assets.defs.sensors import inbox_sensor

from .factories import fixed_english_paper
from .runs import dagster_resources

FRESH, STALE = StaleStatus.FRESH, StaleStatus.STALE


def _stage(
    instance: dg.DagsterInstance,
    data: Path,
    asset: str,
    key: str,
    assets: list = ALL_ASSETS,
    strategy: Strategy = Strategy.token,
) -> None:
    result = dg.materialize(
        assets,
        selection=[asset],
        partition_key=key,
        instance=instance,
        resources=dagster_resources(data),
        run_config=strategy_run_config(strategy, [asset]),
    )
    assert result.success, (asset, key)


def _inbox_papers(instance: dg.DagsterInstance, data: Path) -> list[str]:
    """Two papers dropped in the inbox: the sensor adds their partitions and asks for runs."""
    inbox = data / "inbox"
    fixed_english_paper(inbox / "Paper A (E).pdf", pages=2)
    fixed_english_paper(inbox / "Paper B (E).pdf", pages=3)
    tick = inbox_sensor(
        dg.build_sensor_context(
            instance=instance, resources={"legco": LegcoSettings(data_dir=str(data), inbox=str(inbox))}
        )
    )
    keys = sorted(r.partition_key for r in tick.run_requests)
    instance.add_dynamic_partitions(documents_partitions.name, keys)
    return keys


def _interleaved(instance: dg.DagsterInstance, data: Path, keys: list[str]) -> None:
    """Both papers' runs stage by stage, each stage of one paper right after the other's:
    what two runs at the same time leave in the event log (every stage of a paper starts
    when the other paper's same stage is the asset's latest materialisation)."""
    for stage in STAGES:
        for key in keys:
            _stage(instance, data, stage, key)


def test_a_paper_ingested_with_others_names_only_its_own_upstream(
    env_data_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    data = env_data_dir
    instance = dg.DagsterInstance.get()  # the instance the CLI opens (DAGSTER_HOME)
    first, second = _inbox_papers(instance, data)
    _interleaved(instance, data, [second, first])  # the second paper's stages finish first
    for stage in STAGES[1:]:
        mine = latest(instance, stage, first, Strategy.token)
        assert mine is not None and mine.partition == first
        upstream = mine.metadata["upstream_materializations"]
        assert upstream, stage
        for pointer in upstream:
            assert pointer["partition"] == first, (stage, pointer)
            own = latest(instance, pointer["asset"], first, Strategy.token)
            assert (pointer["run_id"], pointer["data_version"]) == (own.run_id, own.data_version)
            assert pointer["url"].endswith(f"partition={first}")
        assert "(this paper)" in mine.metadata["upstream"]

    assert cli.main(["lineage", first, "--json"]) == 0
    chain = json.loads(capsys.readouterr().out)
    assert [s["asset"] for s in chain["stages"]] == STAGES
    assert {s["partition"] for s in chain["stages"]} == {first}
    assert {
        p["partition"] for s in chain["stages"] for p in s["metadata"].get("upstream_materializations") or []
    } == {first}
    assert chain["chunk_ids"]["token"] and all(
        i.startswith(f"{first}:token:") for i in chain["chunk_ids"]["token"]
    )
    assert chain["chunk_ids"]["question"] == []
    source = chain["stages"][0]["metadata"]
    assert source["path"].endswith("Paper A (E).pdf") and len(source["sha256"]) == 64

    assert chain["legend"] == LEGEND

    chunk_id = chain["chunk_ids"]["token"][0]
    assert cli.main(["lineage", chunk_id]) == 0
    text = capsys.readouterr().out
    assert f"paper {first}" in text and "OTHER PAPER" not in text and second not in text
    assert "extractor=pypdfium2" in text and "config=" in text and f"chunk {chunk_id}: pages 1" in text
    assert f"excerpt http://127.0.0.1:8000/excerpt/{chunk_id}\n" in text  # what its link opens
    assert (
        LEGEND in text.splitlines() and "code 3  data " in text
    )  # the legend explains the columns it precedes
    assert "section path: " in text and "chunks in Chroma" not in text, (
        "the chunk's ancestry, not the paper's chunk list"
    )

    # the chunk's ancestry as JSON, without the paper's other chunk ids or previews
    assert cli.main(["lineage", chunk_id, "--json"]) == 0
    raw = capsys.readouterr().out
    one = json.loads(raw)
    assert "chunk_ids" not in one and "preview" not in raw and second not in raw
    assert (
        one["chunk"]["id"] == chunk_id and one["chunk"]["page_start"] == 1 and "section_path" in one["chunk"]
    )
    assert one["chunk"]["chunk_file_path"] == f"excerpt/{chunk_id}"
    assert one["chunk"]["excerpt_url"] == f"http://127.0.0.1:8000/excerpt/{chunk_id}"
    assert [s["asset"] for s in one["stages"]] == STAGES and {
        s["metadata"].get("strategy", "token") for s in one["stages"]
    } == {"token"}
    assert (
        one["stages"][1]["metadata"]["extractor"] == "pypdfium2"
        and one["stages"][1]["metadata"]["upstream_materializations"]
    )


def test_lineage_of_an_unknown_paper_is_a_one_line_error(
    env_data_dir: Path, capsys: pytest.CaptureFixture
) -> None:
    assert cli.main(["lineage", "no-such-paper"]) == 1
    assert "no materialisation of this paper" in capsys.readouterr().err


def test_stale_is_per_paper(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with dg.instance_for_test() as instance:
        a, b = _inbox_papers(instance, data)
        _interleaved(instance, data, [a, b])

        def status(assets, asset, key):
            return get_stale_status_resolver(instance, assets).get_status(dg.AssetKey(asset), key)

        assert {status(ALL_ASSETS, s, k) for s in STAGES for k in (a, b)} == {FRESH}

        # a new version of paper A's file: re-run stage by stage, each of A's next stages is
        # stale (its input's data version changed) while B's stay fresh
        fixed_english_paper(data / "inbox" / "Paper A (E).pdf", pages=4)
        _stage(instance, data, "source_document", a)
        for stage in STAGES[1:]:
            assert status(ALL_ASSETS, stage, a) == STALE, stage
            assert status(ALL_ASSETS, stage, b) == FRESH, stage
            _stage(instance, data, stage, a)
        assert {status(ALL_ASSETS, s, k) for s in STAGES for k in (a, b)} == {FRESH}

        # page_text's code changes: every paper's page_text is stale until re-run; re-running
        # paper A's leaves B's stale, and A's downstream fresh as its output did not change
        bumped = [
            asset.map_asset_specs(lambda spec: spec.replace_attributes(code_version="bumped"))
            if asset is page_text
            else asset
            for asset in ALL_ASSETS
        ]
        assert status(bumped, "page_text", a) == status(bumped, "page_text", b) == STALE
        _stage(instance, data, "page_text", a, bumped)
        assert status(bumped, "page_text", a) == FRESH and status(bumped, "page_text", b) == STALE
        assert status(bumped, "document_structure", a) == FRESH


def test_every_stage_records_a_data_version_of_what_it_wrote(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with dg.instance_for_test() as instance:
        a, _ = _inbox_papers(instance, data)
        for stage in STAGES:
            _stage(instance, data, stage, a)
        before = {s: latest(instance, s, a, Strategy.token).data_version for s in STAGES}
        assert all(v and len(v) == 64 for v in before.values())
        assert (
            before["source_document"]
            == json.loads((data / "documents" / a / "source.json").read_text())["sha256"]
        )
        _stage(instance, data, "chunks", a)  # the same output again: the same data version
        assert latest(instance, "chunks", a, Strategy.token).data_version == before["chunks"]
        _stage(instance, data, "chunks", a, strategy=Strategy.question)  # another strategy's file: a new one
        assert latest(instance, "chunks", a, Strategy.question).data_version != before["chunks"]
        chain = document_chain(instance, a)
        assert [(s.asset, s.strategy) for s in chain.stages if s.asset == "chunks"] == [
            ("chunks", "token"),
            ("chunks", "question"),
        ]
