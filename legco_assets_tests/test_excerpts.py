"""Per-chunk source excerpts (issue 30): the chunk's pages cut from the PDF with its own
characters highlighted (read back from the written file), an HTML page with <mark> for a web
page, a text excerpt otherwise; re-made only for chunks that changed; the path in Chroma."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core import pipeline
from legco_assets.core.excerpts import CONTEXT_CHARS, held_ratio, shown_text, write_excerpts
from legco_assets.core.read import pdf_page_count, read_source
from legco_assets.core.search import open_collection, stored_chunks
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

from .conftest import CORPUS, SAMPLES, TESTS, fixture_pdf

HTML = TESTS / "fixtures" / "html"


def _excerpts(path: Path, strategy: Strategy, settings: Settings, folder: Path) -> tuple[list[dict], object]:
    """Chunk ``path`` and write its excerpts into ``folder``, as the asset does."""
    source = read_source(path)
    extracted, pages = pipeline.text_pages(source)
    records = pipeline.chunk_file(path, strategy, settings, use_llm=False)
    return records, write_excerpts(folder, extracted.kind, source.data, pages, records, source.sha256, path.name)


def _pdf_pages(path: Path) -> int:
    return pdf_page_count(path.read_bytes())


@pytest.mark.parametrize("paper", [fixture_pdf("paper_a_tables.pdf"), fixture_pdf("paper_b_speaking_notes.pdf"), SAMPLES / "sample_zh_qa.pdf"])
@pytest.mark.parametrize("strategy", list(Strategy))
def test_every_chunk_gets_its_pages_with_its_own_text_highlighted(paper: Path, strategy: Strategy, settings: Settings, tmp_path: Path) -> None:
    records, report = _excerpts(paper, strategy, settings, tmp_path / "ex")
    assert report.kind == "pdf" and len(report.excerpts) == len(records) and report.written == len(records)
    for record, excerpt in zip(records, report.excerpts):
        path = tmp_path / "ex" / excerpt.file
        meta = record["metadata"]
        assert path.name == f"{meta['chunk_index']}.pdf"
        assert set(range(meta["page_start"], meta["page_end"] + 1)) <= set(excerpt.pages)
        assert _pdf_pages(path) == len(excerpt.pages)
        assert held_ratio(record, path) >= 0.99, (record["id"], shown_text(path)[:200])


def test_the_highlight_is_the_chunks_text_not_the_whole_page(settings: Settings, tmp_path: Path) -> None:
    """Token windows of one page each hold their own text: the highlight of one chunk does
    not hold the next one's (their text differs beyond the overlap)."""
    records, report = _excerpts(SAMPLES / "sample_zh_qa.pdf", Strategy.question, settings, tmp_path / "ex")
    first, second = (tmp_path / "ex" / e.file for e in report.excerpts[:2])
    assert held_ratio(records[0], first) >= 0.99
    assert held_ratio(records[1], first) < 0.5


def test_excerpts_are_remade_only_for_chunks_that_changed(settings: Settings, tmp_path: Path) -> None:
    paper = fixture_pdf("paper_e_qa.pdf")
    source = read_source(paper)
    extracted, pages = pipeline.text_pages(source)
    records = pipeline.chunk_file(paper, Strategy.question, settings, use_llm=False)
    folder = tmp_path / "ex"
    first = write_excerpts(folder, "pdf", source.data, pages, records, source.sha256)
    assert first.written == len(records) >= 3
    again = write_excerpts(folder, "pdf", source.data, pages, records, source.sha256)
    assert (again.written, again.reused) == (0, len(records))
    changed = [dict(r) for r in records[:-1]]
    changed[1] = {**changed[1], "text": changed[1]["text"] + "\nextra"}
    third = write_excerpts(folder, "pdf", source.data, pages, changed, source.sha256)
    assert (third.written, third.reused, third.deleted) == (1, len(records) - 2, 1)
    assert not (folder / f"{len(records) - 1}.pdf").exists()


def test_html_paper_gets_a_page_with_the_passage_marked(settings: Settings, tmp_path: Path) -> None:
    records, report = _excerpts(HTML / "ld_faq_annual_leave_tc.html", Strategy.question, settings, tmp_path / "ex")
    assert report.kind == "html" and records
    for record, excerpt in zip(records, report.excerpts):
        page = (tmp_path / "ex" / excerpt.file).read_text(encoding="utf-8")
        assert excerpt.file.endswith(".html") and "<mark>" in page
        # the passage and some context, not the page (its answer is not marked in the list
        # of questions at the top)
        assert len(page) < 2 * len(record["text"]) + 5 * CONTEXT_CHARS + 1000
        assert held_ratio(record, tmp_path / "ex" / excerpt.file) >= 0.99


def test_text_paper_gets_a_text_excerpt(settings: Settings, tmp_path: Path) -> None:
    paper = tmp_path / "notes.txt"
    paper.write_text("問1：什麼是連續性合約？\n答1：僱員連續受僱於同一僱主四星期或以上。\n\n問2：如何計算工時？\n答2：按每星期工作時數計算。\n", encoding="utf-8")
    records, report = _excerpts(paper, Strategy.question, settings, tmp_path / "ex")
    assert report.kind == "text" and len(records) == 2
    second = tmp_path / "ex" / report.excerpts[1].file
    assert second.name == "1.txt" and "問2" in shown_text(second) and "問1" not in shown_text(second)
    assert all(held_ratio(r, tmp_path / "ex" / e.file) >= 0.99 for r, e in zip(records, report.excerpts))


def test_the_asset_writes_excerpts_and_chroma_stores_their_paths(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(fixture_pdf("paper_a_tables.pdf"))
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")), "llm": LLMResource(), "chroma": ChromaResource()}
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        for strategy in Strategy:
            result = dg.materialize(ALL_ASSETS, partition_key=key, instance=instance, resources=resources, run_config=strategy_run_config(strategy))
            assert result.success
            meta = result.asset_materializations_for_node("chunk_excerpts")[0].metadata
            assert meta["strategy"].value == strategy.value and meta["excerpt_kind"].value == "pdf"
            assert meta["excerpts"].value == meta["written"].value + meta["reused_unchanged"].value > 0
            preview = result.asset_materializations_for_node("chunks")[0].metadata["preview"].value
            assert "| excerpt |" in preview and ".pdf](file://" in preview
        rerun = dg.materialize(
            ALL_ASSETS, selection=["chunk_excerpts"], partition_key=key, instance=instance, resources=resources,
            run_config=strategy_run_config(Strategy.token, ["chunk_excerpts"]),
        )
        meta = rerun.asset_materializations_for_node("chunk_excerpts")[0].metadata
        assert meta["written"].value == 0 and meta["reused_unchanged"].value == meta["excerpts"].value
    stored = stored_chunks(open_collection(Settings(data_dir=data)))
    assert {c["metadata"]["strategy_type"] for c in stored} == {"token", "question"}
    for chunk in stored:
        path = Path(chunk["metadata"]["chunk_file_path"])
        assert path.exists() and path.parent.name == chunk["metadata"]["strategy_type"]
        assert held_ratio(chunk, path) >= 0.99


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="the real corpus is not checked out beside the repo")
@pytest.mark.parametrize(
    "paper",
    [
        "hkgov/ld_ECO_guide_with_FAQ_en.pdf", "hkgov/ld_continuous_contract_FAQ_tc.pdf", "hkgov/fdh_faq_en.html",
        "legco/agenda_20140430-c.html", "legco/hansard_20150429-e.html",
    ],
)
def test_real_papers_excerpts_hold_99_percent_of_chunks(paper: str, settings: Settings, tmp_path: Path) -> None:
    """The done-when on real papers of every kind that run fast (scripts/check_excerpts.py
    measures the whole corpus, the 250-page Hansard included)."""
    for strategy in Strategy:
        records, report = _excerpts(CORPUS / paper, strategy, settings, tmp_path / strategy.value)
        held = sum(held_ratio(r, tmp_path / strategy.value / e.file) >= 0.99 for r, e in zip(records, report.excerpts))
        assert held >= 0.99 * len(records), (strategy, held, len(records))
        if report.kind == "html":  # the passage with some context, never most of a long page
            for record, excerpt in zip(records, report.excerpts):
                page = (tmp_path / strategy.value / excerpt.file).read_text(encoding="utf-8")
                passages = page.count("[…]") + 1  # a later part of a reply also shows the question's lead
                assert len(page) < 2 * len(record["text"]) + passages * 5 * CONTEXT_CHARS + 1000, record["id"]


def test_query_and_answer_print_each_hits_excerpt(env_data_dir: Path, capsys: pytest.CaptureFixture) -> None:
    from legco_assets import cli

    key = DocumentIndex(env_data_dir / "documents").register(fixture_pdf("paper_e_qa.pdf"))
    resources = {"legco": LegcoSettings(data_dir=str(env_data_dir), inbox=str(env_data_dir / "inbox")), "llm": LLMResource(), "chroma": ChromaResource()}
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        run_config = strategy_run_config(Strategy.question)
        assert dg.materialize(ALL_ASSETS, partition_key=key, instance=instance, resources=resources, run_config=run_config).success
    stored = pipeline.Artifacts(Settings(data_dir=env_data_dir), key).read_chunks(Strategy.question)
    pair = next(r for r in stored if r["metadata"].get("question_text"))
    question = pair["metadata"]["question_text"]
    assert cli.main(["query", question, "--strategy", "question", "-k", "2", "--no-translate", "--no-rerank"]) == 0
    shown = [line.split("excerpt: ", 1)[1] for line in capsys.readouterr().out.splitlines() if "excerpt: " in line]
    assert len(shown) == 2 and shown[0].endswith(f"{key}/excerpts/question/{pair['metadata']['chunk_index']}.pdf")
    assert all(Path(p).exists() for p in shown)
    assert cli.main(["answer", question, "--strategy", "question", "--no-translate", "--no-rerank"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[1] excerpt: ")]
    assert len(lines) == 1 and Path(lines[0].split(": ", 1)[1]).exists()


def test_pages_turned_for_display_get_their_chunks_highlighted(settings: Settings, tmp_path: Path) -> None:
    """The excerpts read a turned page's characters upright too, as the chunks were read."""
    from .conftest import rotated_copy

    turned = rotated_copy(SAMPLES / "sample_zh_qa.pdf", tmp_path / "turned.pdf")
    records, report = _excerpts(turned, Strategy.question, settings, tmp_path / "ex")
    assert len(report.excerpts) == len(records) >= 9
    for record, excerpt in zip(records, report.excerpts):
        assert held_ratio(record, tmp_path / "ex" / excerpt.file) >= 0.99, record["id"]
