"""What a person meets in the UI: launchpad config, metadata types, checks per paper (blocking only for integrity)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from dagster._core.event_api import PartitionKeyFilter  # 1.13's filter of check executions by partition

from legco_assets.core import pipeline
from legco_assets.core.search import open_collection, stored_chunks
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS, CHUNK_CHECKS, STRUCTURE_CHECKS, chunks
from legco_assets.defs.assets.common import short_path
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions

from .factories import fixed_english_paper
from .pdf_factory import make_pdf
from .runs import check_statuses, chunk_file_ids, dagster_resources, materialize_paper, ran


def test_unknown_strategy_is_refused_by_config_validation(tmp_path: Path) -> None:
    paper = make_pdf(tmp_path / "p.pdf", [["Some text on the page"]])
    with pytest.raises(dg.DagsterInvalidConfigError, match="paragraph"):
        materialize_paper(
            tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "paragraph"}}}}, selection=[chunks]
        )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"chunk_size": -5}, "greater than 0"),
        ({"chunk_size": 100, "chunk_overlap": 100}, "must be smaller than chunk_size"),
    ],
)
def test_invalid_limits_fail_before_any_work_with_a_clear_message(
    tmp_path: Path, config: dict, message: str
) -> None:
    paper = make_pdf(tmp_path / "p.pdf", [["Some text on the page"]])
    result = materialize_paper(tmp_path, paper, {"ops": {"chunks": {"config": config}}}, selection=[chunks])
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    error = failure.event_specific_data.error
    messages = []
    while error is not None:
        messages.append(error.message)
        error = error.cause
    assert any(message in m for m in messages)


def test_a_leaked_footer_warns_and_the_chunks_are_indexed(tmp_path: Path) -> None:
    """A label "E-3" in the middle of a page is not page furniture to the cleaner, so it
    reaches a chunk and no_footer_leaked fails; a heuristic's check warns (it names the
    chunk and the line), and the chunks reach Chroma."""
    page = [
        "Opening paragraph of the paper, with enough words to be real text.",
        "E-3",
        "2025-05-15",
        "Closing paragraph.",
    ]
    paper = make_pdf(tmp_path / "leaky.pdf", [page, page], footer=None)
    result = materialize_paper(tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "token"}}}})
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    footer = checks["no_footer_leaked"]
    assert footer.passed is False and footer.severity == dg.AssetCheckSeverity.WARN
    assert {"id": "leaky:token:0", "line": "E-3"} in footer.metadata["details"].value["examples"]
    assert checks["no_empty_chunk"].passed is True
    assert result.success and result.asset_materializations_for_node("vector_index")
    stored = stored_chunks(open_collection(Settings(data_dir=tmp_path / "data")))
    assert sorted(c.id for c in stored) == sorted(chunk_file_ids(tmp_path / "data", "leaky", "token"))


def test_a_failing_integrity_check_keeps_chunks_out_of_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunker that loses a page's text (here: its last chunk dropped) fails
    every_page_covered, a blocking check with ERROR severity: vector_index does not run."""
    real = pipeline.build_chunks
    monkeypatch.setattr(pipeline, "build_chunks", lambda *args, **kwargs: real(*args, **kwargs)[:-1])
    paper = fixed_english_paper(tmp_path / "lossy.pdf", pages=4)
    result = materialize_paper(tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "token"}}}})
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    covered = checks["every_page_covered"]
    assert covered.passed is False and covered.severity == dg.AssetCheckSeverity.ERROR
    assert covered.metadata["details"].value["missing_pages"], "the pages of the dropped chunk"
    assert result.asset_materializations_for_node("chunks") and not result.asset_materializations_for_node(
        "vector_index"
    )


def test_each_check_belongs_to_its_paper_says_what_it_checks_and_a_check_not_run_is_no_pass(
    tmp_path: Path,
) -> None:
    """Every check is partitioned as its asset (a result names its paper, and one
    paper's pass never hides another's failure), has a description that says whether it
    blocks, and a check that could not run (questions_match_open_data without LegCo's
    records, retrieval without gold questions, no counterpart) has no result: Dagster counts
    it skipped for the partition (neither failed nor passed), and the asset's
    materialisation says why."""
    specs = [spec for asset in ALL_ASSETS for spec in asset.check_specs]
    # besides the chunk and structure checks: vector_index's two and page_tables' tables_typed
    assert len(specs) == len(CHUNK_CHECKS) + len(STRUCTURE_CHECKS) + 3
    for spec in specs:
        assert spec.partitions_def is documents_partitions, spec.name
        assert spec.description and spec.description.startswith(("Blocks: ", "Warns: ")), spec.name
        assert spec.blocking == spec.description.startswith("Blocks: "), spec.name
    assert {s.name for s in specs if s.blocking} == {
        "every_page_covered",
        "no_chunk_over_token_limit",
        "no_empty_chunk",
    }

    data = tmp_path / "data"
    index = DocumentIndex(data / "documents")
    leaky_page = [
        "Opening paragraph of the paper, with enough words to be real text.",
        "E-3",
        "Closing paragraph.",
    ]
    leaky = index.register(make_pdf(tmp_path / "leaky.pdf", [leaky_page, leaky_page], footer=None))
    clean = index.register(
        make_pdf(
            tmp_path / "clean.pdf",
            [
                [
                    "Q1 What is the monthly rate of the allowance?",
                    "It is paid monthly at the rate set by the scheme.",
                ]
            ],
        )
    )
    key = dg.AssetCheckKey(dg.AssetKey("chunks"), "no_footer_leaked")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("documents", [leaky, clean])
        for paper in (leaky, clean):  # the clean paper's pass comes later
            result = dg.materialize(
                ALL_ASSETS,
                partition_key=paper,
                instance=instance,
                resources=dagster_resources(data),
                run_config=strategy_run_config(Strategy.token),
            )
            assert result.success
            evaluations = result.get_asset_check_evaluations()
            assert {e.partition for e in evaluations} == {paper}
            assert all(ran(e) for e in evaluations), "a check that could not run has no result"
            not_run = {
                "questions_match_open_data": "document_structure",
                "retrieval_hit_at_5": "vector_index",
                "counterpart_question_counts_agree": "vector_index",
            }
            assert not {e.check_name for e in evaluations} & set(not_run)
            for name, asset in not_run.items():  # skipped on this partition: neither passed nor failed
                assert (
                    check_statuses(instance, dg.AssetCheckKey(dg.AssetKey(asset), name))[paper] == "SKIPPED"
                )
                why = result.asset_materializations_for_node(asset)[0].metadata["checks_not_run"].value
                assert name in why, f"{asset}'s materialisation says why {name} did not run"
            structure = result.asset_materializations_for_node("document_structure")[0].metadata
            assert (
                "did not come from LegCo's feed"
                in structure["checks_not_run"].value["questions_match_open_data"]
            )
            assert check_statuses(instance, key)[paper] == ("FAILED" if paper == leaky else "SUCCEEDED")
        latest = {
            paper: instance.event_log_storage.get_latest_asset_check_execution_by_key(
                [key], partition_filter=PartitionKeyFilter(key=paper)
            )[key]
            for paper in (leaky, clean)
        }
        assert {paper: (record.partition, record.evaluation.passed) for paper, record in latest.items()} == {
            leaky: (leaky, False),
            clean: (clean, True),
        }


def test_metadata_uses_dagster_types(tmp_path: Path) -> None:
    paper = make_pdf(
        tmp_path / "p.pdf",
        [
            [
                "Q1 What is the monthly rate of the allowance?",
                "It is paid monthly at the rate set by the scheme.",
            ],
            ["Second page text here, long enough to count as a text layer of a real page."],
        ],
    )
    result = materialize_paper(tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "token"}}}})
    assert result.success
    source = result.asset_materializations_for_node("source_document")[0].metadata
    assert isinstance(source["path"], dg.PathMetadataValue) and source["pages"].value == 2
    images = result.asset_materializations_for_node("page_images")[0].metadata
    assert images["dpi"].value == 150 and Path(images["first_page_image"].value).exists()
    text = result.asset_materializations_for_node("page_text")[0].metadata
    assert (
        isinstance(text["characters_per_page"], dg.JsonMetadataValue)
        and text["extractor"].value == "pypdfium2"
    )
    chunk_meta = result.asset_materializations_for_node("chunks")[0].metadata
    assert (
        isinstance(chunk_meta["preview"], dg.MarkdownMetadataValue)
        and "| question |" in chunk_meta["preview"].value
    )


def test_contents_page_does_not_fail_page_coverage_for_the_question_strategy(tmp_path: Path) -> None:
    from .conftest import fixture_pdf

    result = materialize_paper(
        tmp_path,
        fixture_pdf("paper_l_faq.pdf"),
        {
            "ops": {
                "chunks": {"config": {"strategy": "question"}},
                "vector_index": {"config": {"strategy": "question"}},
            }
        },
    )
    checks = {  # an undated paper's WARN is test_paper_facts', a table's typing test_tables_served's
        c.check_name: c
        for c in result.get_asset_check_evaluations()
        if ran(c) and c.check_name not in ("paper_date_found", "tables_typed")
    }
    assert all(c.passed for c in checks.values()), {
        k: c.description for k, c in checks.items() if not c.passed
    }
    assert result.asset_materializations_for_node("vector_index")
    structure = result.asset_materializations_for_node("document_structure")[0].metadata
    assert structure["qa_pairs"].value == 24 and structure["found_by"].value == "rules"


def test_previews_say_what_they_cut(tmp_path: Path) -> None:
    """A preview that lists a subset says so and where the rest is; a long
    section path is elided in the middle, keeping its outermost and innermost headings (the
    outermost cut after a word when it must be), never cut inside a word."""
    assert short_path("A > B") == "A > B"
    # an innermost heading that fits the column, but not with " > " before it (the EO guide's)
    near = "Chapter 3 > " + "x" * 58
    assert short_path(near) == "…" + "x" * 58 and len(short_path(near)) <= 60
    long = "Chapter Two Supporting Enterprises and Jobs > Small Enterprises > Financing Guarantee Scheme"
    assert short_path(long) == "Chapter Two Supporting … > … > Financing Guarantee Scheme"
    assert len(short_path(long, 40)) <= 40 and short_path(long, 40) == "… > Financing Guarantee Scheme"
    eo = "Chapter 1: Application of the Employment Ordinance > Continuous Contract of Employment"
    assert short_path(eo) == "Chapter 1: Application … > Continuous Contract of Employment"
    deep = "Part A > Chapter 2 > Section 4 > Wages > Payment of Wages"
    assert short_path(deep, 45) == "Part A > … > Wages > Payment of Wages"
    cjk = "第二章支援企業　保住就業 > 中小企業 > 融資保證計劃"
    assert short_path(cjk, 26) == "第二章支援企業　保住就業 > … > 融資保證計劃"
    assert short_path(cjk, 20) == "… > 中小企業 > 融資保證計劃", (
        "too little of the outermost left: the innermost alone"
    )
    one = "Annex " + " ".join(f"word{n}" for n in range(20))
    cut = short_path(one)
    assert cut.startswith("…word") and len(cut) <= 60 and one.endswith(cut[1:])

    paper = fixed_english_paper(tmp_path / "long.pdf", pages=6)
    result = materialize_paper(
        tmp_path,
        paper,
        {"ops": {"chunks": {"config": {"strategy": "token", "chunk_size": 60, "chunk_overlap": 10}}}},
        selection=None,
    )
    meta = result.asset_materializations_for_node("chunks")[0].metadata
    total = meta["chunks"].value
    assert total > 60
    preview = meta["preview"].value
    assert preview.startswith(
        f"first 60 of {total} chunks (legco-assets chunks long --strategy token for all)\n\n| question |"
    )
    assert preview.count("\n| ") == 60 + 1  # the header's separator row and 60 chunks
