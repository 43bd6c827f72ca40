"""The asset graph: full materialisation, stage re-runs from stored results, the sensor."""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.read import extract
from legco_assets.core.search import open_collection, stored_chunks
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.definitions import defs
from legco_assets.defs.assets import ALL_ASSETS, chunks, vector_index
from legco_assets.defs.instance import LOCATION_MODULE, LOCATION_NAME
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import LegcoSettings
from legco_assets.defs.sensors import inbox_sensor

from .conftest import REPO
from .factories import fixed_english_paper
from .runs import cli, dagster_resources, materialize_partition, ran


def _materialize(
    instance: dg.DagsterInstance, data: Path, key: str, strategy: Strategy, selection=None
) -> dg.ExecuteInProcessResult:
    return dg.materialize(
        ALL_ASSETS,
        selection=selection,
        partition_key=key,
        instance=instance,
        resources=dagster_resources(data),
        run_config=strategy_run_config(
            strategy, None if selection is None else [a.key.to_user_string() for a in selection]
        ),
    )


@pytest.fixture
def registered(tmp_path: Path) -> tuple[Path, str]:
    data = tmp_path / "data"
    paper = fixed_english_paper(tmp_path / "inbox" / "Paper One (E).pdf", pages=6)
    key = DocumentIndex(data / "documents").register(paper)
    return data, key


def test_definitions_load() -> None:
    dg.Definitions.validate_loadable(defs)
    assert {a.key.to_user_string() for a in ALL_ASSETS} == {
        "source_document",
        "page_text",
        "page_images",
        "page_tables",
        "document_structure",
        "chunks",
        "vector_index",
        "chunk_excerpts",
    }


def test_graph_materialises_and_a_stage_reruns_without_reparsing(registered, monkeypatch) -> None:
    data, key = registered
    assert key == "paper-one-e"
    parses = {"n": 0}

    class Counting(extract._PdfiumTexts):
        def __init__(self, source) -> None:
            parses["n"] += 1
            super().__init__(source)

    monkeypatch.setattr(extract, "_PdfiumTexts", Counting)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = _materialize(instance, data, key, Strategy.token)
        assert result.success and parses["n"] == 1
        meta = result.asset_materializations_for_node("chunks")[0].metadata
        assert meta["strategy"].value == "token" and meta["chunks"].value >= 2
        assert "| question | section path | pages |" in meta["preview"].value  # each chunk's section path
        structure = result.asset_materializations_for_node("document_structure")[0].metadata
        assert isinstance(structure["outline"], dg.MarkdownMetadataValue) and structure["headings"].value >= 0
        stored = json.loads((data / "documents" / key / "structure.json").read_text())
        assert all("path" in s and "level" in s for s in stored["sections"]) and "outline" in stored
        checks = [  # no gold questions, no LegCo records: not run; an undated paper's WARN: test_paper_facts
            c for c in result.get_asset_check_evaluations() if ran(c) and c.check_name != "paper_date_found"
        ]
        assert checks and all(c.passed for c in checks)
        for check in result.get_asset_check_evaluations():  # each chunk check names its strategy
            if check.asset_key == chunks.key:
                assert (
                    next(iter(check.metadata)) == "strategy" and check.metadata["strategy"].value == "token"
                )
                assert check.description.startswith("token: ")

        rerun = _materialize(instance, data, key, Strategy.question, selection=[chunks, vector_index])
        assert rerun.success and parses["n"] == 1, "chunks/vector_index re-used stored upstream results"
        # the latest chunks materialisation (question) shows the token strategy's state too
        for node in ("chunks", "vector_index"):
            assert next(iter(rerun.asset_materializations_for_node(node)[0].metadata)) == "strategy"
        table = rerun.asset_materializations_for_node("chunks")[0].metadata["strategies"].value
        token_count = sum(1 for _ in (data / "documents" / key / "chunks-token.jsonl").open())
        token_row = next(line for line in table.splitlines() if line.startswith("| token |"))
        assert f"| {token_count} |" in token_row and result.run_id[:8] in token_row
        assert any(line.startswith("| question (this run) |") for line in table.splitlines())

        # both strategies coexist in Chroma, ids are deterministic and re-runs never duplicate
        _materialize(instance, data, key, Strategy.token, selection=[chunks, vector_index])
        settings = Settings(data_dir=data)
        stored = stored_chunks(open_collection(settings))
        ids = [c.id for c in stored]
        assert len(ids) == len(set(ids))
        assert {c.metadata.strategy_type for c in stored} == {"token", "question"}
        token_ids = sorted(i for i in ids if ":token:" in i)
        expected = [
            json.loads(line)["id"]
            for line in (data / "documents" / key / "chunks-token.jsonl").read_text().splitlines()
        ]
        assert token_ids == sorted(expected)


def test_unregistered_partition_is_refused(tmp_path: Path) -> None:
    with dg.instance_for_test() as instance:
        with pytest.raises(dg.DagsterUnknownPartitionError):
            _materialize(instance, tmp_path / "data", "never-added", Strategy.token)


def test_inbox_sensor_adds_partitions_and_never_ingests_twice(tmp_path: Path) -> None:
    data = tmp_path / "data"
    inbox = data / "inbox"
    first = fixed_english_paper(inbox / "第一號文件 draft.pdf", pages=2)
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(inbox))}
    with dg.instance_for_test() as instance:
        ctx = dg.build_sensor_context(instance=instance, resources=resources)
        result = inbox_sensor(ctx)
        keys = sorted(r.partition_key for r in result.run_requests)
        assert keys == ["第一號文件-draft"]
        sha = extract.read_source(first).sha256
        assert sorted(r.run_key for r in result.run_requests) == [f"{k}@{sha}" for k in keys]
        assert sorted(result.dynamic_partitions_requests[0].partition_keys) == keys

        shutil.copy(first, inbox / "copy.pdf")  # the same bytes under another name: the same paper
        again = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources=resources, cursor=result.cursor)
        )
        assert not again.run_requests and again.skip_reason

        fixed_english_paper(first, pages=3)  # changed content: a new version
        changed = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources=resources, cursor=again.cursor)
        )
        assert [r.partition_key for r in changed.run_requests] == ["第一號文件-draft"]
        assert changed.run_requests[0].run_key != result.run_requests[0].run_key


def test_a_bad_file_fails_its_materialisation_with_the_reason_and_no_retry(tmp_path: Path) -> None:
    """An expected failure (here an HTML error page) is ``dg.Failure``: the run page shows
    the one-line reason, the file is in its metadata, and nothing is retried."""
    data = tmp_path / "data"
    page = tmp_path / "inbox" / "missing.html"
    page.parent.mkdir(parents=True)
    page.write_text(
        "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>",
        encoding="utf-8",
    )
    key = DocumentIndex(data / "documents").register(page)
    with dg.instance_for_test() as instance:
        result = materialize_partition(instance, data, key)
        assert not result.success
        failures = [e.event_specific_data for e in result.all_events if e.is_step_failure]
        assert [e.step_key for e in result.all_events if e.is_step_failure] == ["source_document"]
        failure = failures[0].user_failure_data
        assert failure.description == "an error page, not a paper (404 Not Found)"
        assert failure.metadata["file"].value == str(page)
        assert failures[0].error.cls_name == "Failure" and failures[0].error.cause is None
        assert not [e for e in result.all_events if e.event_type_value == "STEP_UP_FOR_RETRY"]
        status = instance.get_status_by_partition(dg.AssetKey("source_document"), [key], documents_partitions)
        assert status == {key: dg.AssetPartitionStatus.FAILED}


def test_a_broken_file_puts_its_reason_on_the_partition(tmp_path: Path) -> None:
    """The one-line reason a paper failed at ``source_document`` is on the asset's
    partition (an observation with the reason as its description and ``failure`` metadata,
    read through the instance as the partition page reads its events), and the step's
    failure leads with it (a ``Failure`` whose description is the reason, no cause)."""
    data = tmp_path / "data"
    broken = tmp_path / "inbox" / "broken.pdf"
    broken.parent.mkdir(parents=True)
    broken.write_bytes(b"this was never a PDF\n" * 20)
    key = DocumentIndex(data / "documents").register(broken)
    reason = "not a PDF (the file does not start with %PDF)"
    with dg.instance_for_test() as instance:
        result = materialize_partition(instance, data, key, strategy_run_config(Strategy.token))
        assert not result.success
        failure = next(e for e in result.all_events if e.is_step_failure).event_specific_data
        assert failure.user_failure_data.description == reason and failure.error.cause is None
        assert failure.error.message.splitlines()[0].endswith(f"Failure: {reason}")
        logged = [e.user_message for e in instance.all_logs(result.run_id) if e.level == logging.ERROR]
        assert reason in logged, "the run log has the reason as a line of its own, before the failure"
        assert instance.get_run_by_id(result.run_id).tags["legco/failure"] == reason
        observed = instance.fetch_observations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("source_document"), asset_partitions=[key]), limit=5
        ).records
        assert [r.asset_observation.description for r in observed] == [f"failed: {reason}"]
        meta = observed[0].asset_observation.metadata
        assert meta["failure"].value == reason and meta["run"].value == result.run_id
        assert meta["file"].value == str(broken)


def test_a_bad_setting_fails_with_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(fixed_english_paper(tmp_path / "paper.pdf", pages=1))
    monkeypatch.setenv("CHUNK_SIZE", "a thousand")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            ALL_ASSETS,
            selection=["source_document"],
            partition_key=key,
            instance=instance,
            resources=dagster_resources(data),
            raise_on_error=False,
        )
        failure = next(
            e for e in result.all_events if e.is_step_failure
        ).event_specific_data.user_failure_data
        assert (
            failure.description
            == "invalid setting: CHUNK_SIZE='a thousand' (allowed: a whole number, at least 1)"
        )


def test_html_page_through_the_graph_with_the_label_guard(tmp_path: Path) -> None:
    """An HTML FAQ is one page of kind html with one chunk per question; a Council agenda
    (questions put, not answered) makes no pair, and document_structure's WARN check says so."""
    fixtures = Path(__file__).resolve().parent / "fixtures" / "html"
    data = tmp_path / "data"
    index = DocumentIndex(data / "documents")
    faq = index.register(fixtures / "ld_faq_annual_leave_tc.html")
    agenda = index.register(fixtures / "council_agenda_questions_en.html")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [faq, agenda])
        result = _materialize(instance, data, faq, Strategy.question)
        source = result.asset_materializations_for_node("source_document")[0].metadata
        assert (source["kind"].value, source["pages"].value) == ("html", 1)
        structure = result.asset_materializations_for_node("document_structure")[0].metadata
        assert (structure["labels_seen"].value, structure["pairs_made"].value) == (5, 5)
        checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
        assert checks["question_labels_paired"].passed
        records = [
            json.loads(line)
            for line in (data / "documents" / faq / "chunks-question.jsonl")
            .read_text(encoding="utf-8")
            .splitlines()
        ]
        assert [
            r["metadata"].get("question_id") for r in records if r["metadata"]["section_type"] == "qa"
        ] == ["1", "2", "3", "4", "5"]

        result = _materialize(instance, data, agenda, Strategy.question)
        structure = result.asset_materializations_for_node("document_structure")[0].metadata
        assert (
            structure["labels_seen"].value,
            structure["pairs_made"].value,
            structure["qa_pairs"].value,
        ) == (3, 0, 0)
        check = next(
            c for c in result.get_asset_check_evaluations() if c.check_name == "question_labels_paired"
        )
        assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
        assert (
            check.description
            == "3 question labels seen, 0 pairs made; without a pair: a question put without a reply ×3"
        )


def test_cli_runs_belong_to_the_code_location_so_the_timeline_shows_them(tmp_path: Path) -> None:
    """The Overview timeline places a run by its code location origin (GraphQL
    ``Run.repositoryOrigin``); ``ingest``'s runs carry the origin of the location workspace.yaml
    loads, with their job's name, as the runs the UI launches do."""
    workspace = (REPO / "workspace.yaml").read_text(encoding="utf-8")  # one python_module location
    assert re.findall(r"(module_name|location_name): (\S+)", workspace) == [
        ("module_name", LOCATION_MODULE),
        ("location_name", LOCATION_NAME),
    ]
    paper = fixed_english_paper(tmp_path / "papers" / "timeline.pdf", pages=1)
    done = cli("ingest", str(paper), "--strategy", "both", home=tmp_path)
    assert done.returncode == 0, done.stderr
    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        runs = instance.get_runs()
        assert sorted(r.job_name for r in runs) == ["ingest_question_job", "ingest_token_job"]
        for run in runs:
            origin = run.remote_job_origin
            assert origin is not None and origin.job_name == run.job_name
            assert origin.repository_origin.code_location_origin.location_name == LOCATION_NAME
            assert origin.repository_origin.repository_name == "__repository__"


def _table_rows(table: str) -> dict[str, list[str]]:
    """A strategies table's rows by strategy (`` (this run)`` dropped): its cells."""
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0].split(" ")[0] in {s.value for s in Strategy}:
            rows[cells[0].split(" ")[0]] = cells
    return rows


def test_the_strategies_tables_tell_the_truth_after_an_ingest(served_store: Path) -> None:
    """``chunks`` is written before ``vector_index`` stores its chunks: no ``chunks``
    materialisation of the ingest says "not indexed" for a strategy whose chunks are stored
    (the strategy the run indexes says so); ``vector_index``'s table, written after the
    store, has each strategy's count as Chroma holds it."""
    settings = Settings(data_dir=served_store / "data")
    stored = stored_chunks(open_collection(settings), {"is_latest_version": True})
    with dg.DagsterInstance.from_config(str(served_store / "dagster_home")) as instance:
        for key in instance.get_dynamic_partitions(documents_partitions.name):
            in_chroma = {
                s.value: sum(
                    1 for c in stored if c.document_id == key and c.metadata.strategy_type == s.value
                )
                for s in Strategy
            }
            assert all(in_chroma.values()), key
            for node, latest in ((chunks, 10), (vector_index, 1)):
                records = instance.fetch_materializations(
                    dg.AssetRecordsFilter(asset_key=node.key, asset_partitions=[key]), limit=latest
                ).records
                assert records, (key, node.key)
                for record in records:
                    table = record.asset_materialization.metadata["strategies"].value
                    assert "not indexed" not in table, (key, node.key, table)
                    strategy = record.asset_materialization.metadata["strategy"].value
                    if node is chunks:
                        assert _table_rows(table)[strategy][3] == "being indexed by this run", table
            rows = _table_rows(table)  # vector_index's latest: after both strategies were stored
            assert {s: int(rows[s][3]) for s in rows} == in_chroma, table
