"""``legco-assets chunk`` and the Dagster assets decide the checks with one function
(``core/quality.paper_checks``): a failure ``chunk`` prints is the failure Dagster reports,
with the same weight: a blocking (integrity) check keeps the chunks out of Chroma and makes
``--strict`` exit 1; a heuristic's check warns in both and the paper is indexed.

The paper below prints its footer's date line (``2025-05-15``, at the foot of every page) also
in the middle of its first page, where the cleaner (which reads only the page edges) leaves
it: ``no_footer_leaked`` (which judges only lines the paper prints where furniture stands)
fails in both, as a warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg

from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.search import open_collection, stored_chunks
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

from .pdf_factory import make_pdf
from .runs import cli, ran

BODY = [
    "Drainage Improvement Works in the Northern District",
    "The Drainage Services Department will upgrade the stormwater drains of three villages.",
    "Works began in January and the first phase will finish before the rainy season.",
    "The second phase covers the main channel and the pumping station beside the river.",
    "2025-05-15",
    "The total cost is estimated at $2 billion, spread over five financial years.",
    "Residents will be consulted through the District Council before each phase starts.",
    "Temporary traffic arrangements will be announced two weeks before the works begin.",
    "Enquiries may be made to the Department's hotline during office hours.",
]


def _paper(tmp_path: Path) -> Path:
    return make_pdf(tmp_path / "inbox" / "drainage-e.pdf", [BODY, BODY[:4] + BODY[5:]])


def test_chunk_prints_the_warning_and_strict_still_exits_0(tmp_path: Path) -> None:
    paper = _paper(tmp_path)
    done = cli("chunk", str(paper), "--strategy", "token", "--no-llm", home=tmp_path)
    assert done.returncode == 0 and [json.loads(line) for line in done.stdout.splitlines()]
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"legco-assets: warning: {paper}: no_footer_leaked: 1 chunk(s) contain a footer/header line "
        "(examples id='drainage-e:token:0' line='2025-05-15')",
        f"legco-assets: warning: {paper}: paper_date_found: no date of its own printed on its first pages "
        "(kind: other): its chunks carry none",
    ]
    strict = cli("chunk", str(paper), "--strategy", "token", "--no-llm", "--strict", home=tmp_path)
    assert strict.returncode == 0 and strict.stderr == done.stderr and strict.stdout == done.stdout


def test_dagster_warns_on_the_same_check_and_indexes_the_paper(tmp_path: Path) -> None:
    paper = _paper(tmp_path)
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(paper)
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            ALL_ASSETS,
            partition_key=key,
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.token),
            raise_on_error=False,
        )
    failed = {
        c.check_name: c.severity for c in result.get_asset_check_evaluations() if not c.passed and ran(c)
    }
    assert failed == {
        "no_footer_leaked": dg.AssetCheckSeverity.WARN,
        "paper_date_found": dg.AssetCheckSeverity.WARN,
    }
    assert result.success and result.asset_materializations_for_node("vector_index"), (
        "a warning keeps the paper in Chroma"
    )
    cli_failed = {
        c.name for c in chunk_paper(paper, Strategy.token, Settings(), use_llm=False).checks if not c.passed
    }
    assert cli_failed == set(failed)


def test_a_clean_paper_passes_everywhere(tmp_path: Path) -> None:
    # a clean paper prints its own date, as the papers it stands for do
    paper = make_pdf(
        tmp_path / "clean-e.pdf", [["15 May 2025", *BODY[:4], *BODY[5:]], BODY[:4] + BODY[5:]], footer=None
    )
    done = cli("chunk", str(paper), "--strategy", "question", "--no-llm", "--strict", home=tmp_path)
    assert done.returncode == 0 and done.stderr == ""


def test_ingest_prints_the_checks_chunk_prints(tmp_path: Path) -> None:
    """``ingest`` names each check a paper fails, in the line ``chunk`` prints for it: the
    footer check here (a warning), and the structure's warning of a page titled as questions
    and answers that makes no pair (its entries are topics; none asks); so a folder's
    ingest says which papers need a look."""
    paper = _paper(tmp_path)
    faq = tmp_path / "inbox" / "faq.html"
    faq.write_text(
        "<html><body><h1>Frequently asked questions on the scheme</h1>"
        + "".join(
            f"<p>({n}) Deciding case {n} of the scheme</p><p>Case {n} is decided by the board within a month.</p>"
            for n in range(1, 4)
        )
        + "</body></html>"
    )
    expected = []
    for path in (faq, paper):
        for strategy in ("token", "question"):
            done = cli("chunk", str(path), "--strategy", strategy, "--no-llm", home=tmp_path)
            expected += done.stderr.strip().splitlines()
    assert {line.split(": ")[1] for line in expected} == {"warning"}
    assert {line.split(": ")[3] for line in expected} >= {"no_footer_leaked", "question_labels_paired"}, (
        expected
    )
    ingest = cli("ingest", str(faq), str(paper), "--strategy", "both", home=tmp_path)
    printed = [
        line
        for line in ingest.stderr.splitlines()
        if line.startswith(("legco-assets: warning: ", "legco-assets: check failed: "))
    ]
    assert sorted(set(printed)) == sorted(set(expected)), (printed, expected)
    assert ingest.returncode == 0 and "failed: token 0, question 0;" in ingest.stdout.splitlines()[-1], (
        ingest.stdout + ingest.stderr
    )
    stored = {
        (c.document_id, c.metadata.strategy_type)
        for c in stored_chunks(open_collection(Settings(data_dir=tmp_path / "data")))
    }
    assert stored == {(doc, s) for doc in ("faq", "drainage-e") for s in ("token", "question")}, (
        "a warning costs no paper"
    )
