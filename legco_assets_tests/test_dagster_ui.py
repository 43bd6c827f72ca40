"""What a person meets in the UI: launchpad config, metadata types, blocking checks."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS, chunks

from .pdf_factory import make_pdf
from .test_dagster_assets import _resources


def _run(tmp_path: Path, paper: Path, run_config: dict, selection=None) -> dg.ExecuteInProcessResult:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(paper)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("documents", [key])
        return dg.materialize(
            ALL_ASSETS, selection=selection, partition_key=key, instance=instance,
            resources=_resources(data), run_config=run_config, raise_on_error=False,
        )


def test_unknown_strategy_is_refused_by_config_validation(tmp_path: Path) -> None:
    paper = make_pdf(tmp_path / "p.pdf", [["Some text on the page"]])
    with pytest.raises(dg.DagsterInvalidConfigError, match="paragraph"):
        _run(tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "paragraph"}}}}, selection=[chunks])


@pytest.mark.parametrize(
    ("config", "message"),
    [({"chunk_size": -5}, "greater than 0"), ({"chunk_size": 100, "chunk_overlap": 100}, "must be smaller than chunk_size")],
)
def test_invalid_limits_fail_before_any_work_with_a_clear_message(tmp_path: Path, config: dict, message: str) -> None:
    paper = make_pdf(tmp_path / "p.pdf", [["Some text on the page"]])
    result = _run(tmp_path, paper, {"ops": {"chunks": {"config": config}}}, selection=[chunks])
    assert not result.success
    failure = next(e for e in result.all_events if e.is_step_failure)
    error = failure.event_specific_data.error
    messages = []
    while error is not None:
        messages.append(error.message)
        error = error.cause
    assert any(message in m for m in messages)


def test_failing_blocking_check_keeps_chunks_out_of_chroma(tmp_path: Path) -> None:
    # "E-3" in the middle of a page is not page furniture to the cleaner, so it reaches a
    # chunk, the no_footer_leaked check fails, and vector_index must not run
    page = ["Opening paragraph of the paper, with enough words to be real text.", "E-3", "2025-05-15", "Closing paragraph."]
    paper = make_pdf(tmp_path / "leaky.pdf", [page, page], footer=None)
    result = _run(tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "token"}}}})
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert checks["no_footer_leaked"].passed is False
    assert checks["no_empty_chunk"].passed is True
    assert result.asset_materializations_for_node("chunks")
    assert not result.asset_materializations_for_node("vector_index")


def test_metadata_uses_dagster_types(tmp_path: Path) -> None:
    paper = make_pdf(
        tmp_path / "p.pdf",
        [["Q1 What is the monthly rate of the allowance?", "It is paid monthly at the rate set by the scheme."],
         ["Second page text here, long enough to count as a text layer of a real page."]],
    )
    result = _run(tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "token"}}}})
    assert result.success
    source = result.asset_materializations_for_node("source_document")[0].metadata
    assert isinstance(source["path"], dg.PathMetadataValue) and source["pages"].value == 2
    images = result.asset_materializations_for_node("page_images")[0].metadata
    assert images["dpi"].value == 150 and Path(images["first_page_image"].value).exists()
    text = result.asset_materializations_for_node("page_text")[0].metadata
    assert isinstance(text["characters_per_page"], dg.JsonMetadataValue) and text["extractor"].value == "pypdfium2"
    chunk_meta = result.asset_materializations_for_node("chunks")[0].metadata
    assert isinstance(chunk_meta["preview"], dg.MarkdownMetadataValue) and "| question |" in chunk_meta["preview"].value


def test_contents_page_does_not_fail_page_coverage_for_the_question_strategy(tmp_path: Path) -> None:
    from .conftest import fixture_pdf

    result = _run(tmp_path, fixture_pdf("paper_l_faq.pdf"), {"ops": {"chunks": {"config": {"strategy": "question"}}, "vector_index": {"config": {"strategy": "question"}}}})
    checks = {c.check_name: c for c in result.get_asset_check_evaluations()}
    assert all(c.passed for c in checks.values()), {k: c.description for k, c in checks.items() if not c.passed}
    assert result.asset_materializations_for_node("vector_index")
    structure = result.asset_materializations_for_node("document_structure")[0].metadata
    assert structure["qa_pairs"].value == 24 and structure["found_by"].value == "rules"
