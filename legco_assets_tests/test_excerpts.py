"""Source excerpts (issues 30 and 42): every chunk's characters highlighted on the source (read
back from the written file, by the chunk the highlight names), a strategy's excerpts of a paper
in one file that costs less than the paper (a PDF's highlighted copy stored as an update of the
stored paper; an HTML page with the chunks marked for a web page or text paper), one chunk's
PDF cut on demand, kept when no chunk changed; the link in Chroma (the server is tested in test_service_*.py)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core import pipeline
from legco_assets.core.artifacts import Artifacts
from legco_assets.core.excerpts import (
    CONTEXT_CHARS,
    cut_excerpt,
    held_ratio,
    held_share,
    highlighted_texts,
    link_bytes,
    shown_of,
    shown_text,
    shown_texts,
    split_link,
    write_excerpts,
)
from legco_assets.core.read import pdf_page_count, read_source, text_pages
from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import open_collection, stored_chunks
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

from .conftest import CORPUS, SAMPLES, TESTS, fixture_pdf

HTML = TESTS / "fixtures" / "html"


def _chunks(path: Path, strategy: Strategy, settings: Settings) -> list[ChunkRecord]:
    return pipeline.chunk_paper(path, strategy, settings, use_llm=False, check=False).records


def _excerpts(
    path: Path, strategy: Strategy, settings: Settings, paper_dir: Path
) -> tuple[list[ChunkRecord], object]:
    """Chunk ``path`` and write its excerpts into ``paper_dir/excerpts`` beside the paper
    stored as ``source.pdf``, as the asset does; the records carry their ``chunk_file_path``."""
    source = read_source(path)
    extracted, pages = text_pages(source)
    records = _chunks(path, strategy, settings)
    paper_dir.mkdir(parents=True, exist_ok=True)
    (paper_dir / "source.pdf").write_bytes(source.data)
    folder = paper_dir / "excerpts"
    report = write_excerpts(
        folder, strategy.value, extracted.kind, source.data, pages, records, source.sha256, path.name
    )
    linked = [
        replace(r, metadata=replace(r.metadata, chunk_file_path=str(folder / e.link)))
        for r, e in zip(records, report.excerpts)
    ]
    return linked, report


def _shares(records: list[ChunkRecord]) -> list[float]:
    """Each chunk's held share, its file read once."""
    texts = shown_texts(split_link(str(records[0].metadata.chunk_file_path))[0])
    return [held_share(r, shown_of(r, texts)) for r in records]


@pytest.mark.parametrize(
    "paper",
    [
        fixture_pdf("paper_a_tables.pdf"),
        fixture_pdf("paper_b_speaking_notes.pdf"),
        SAMPLES / "sample_zh_qa.pdf",
    ],
)
@pytest.mark.parametrize("strategy", list(Strategy))
def test_every_chunk_is_highlighted_on_its_pages_in_one_copy_smaller_than_the_paper(
    paper: Path, strategy: Strategy, settings: Settings, tmp_path: Path
) -> None:
    records, report = _excerpts(paper, strategy, settings, tmp_path / "paper")
    assert report.kind == "pdf" and len(report.excerpts) == len(records) and report.written == len(records)
    folder = tmp_path / "paper" / "excerpts"
    assert sorted(p.name for p in folder.iterdir()) == [
        f"{strategy.value}.json",
        f"{strategy.value}.pdf.update",
    ]
    assert (
        0 < report.bytes <= paper.stat().st_size
    )  # the bound of issue 42: fonts and images are not stored again
    copy = link_bytes(folder / f"{strategy.value}.pdf")
    assert pdf_page_count(copy) == pdf_page_count(paper.read_bytes())
    assert set(highlighted_texts(copy)) == {r.id for r in records}  # each highlight names its chunk
    for record, excerpt, share in zip(records, report.excerpts, _shares(records)):
        meta = record.metadata
        assert str(meta.chunk_file_path).endswith(f"{strategy.value}.pdf#page={meta.page_start}")
        assert set(range(meta.page_start, meta.page_end + 1)) <= set(excerpt.pages)
        assert share >= 0.99, record.id


def test_the_highlight_is_the_chunks_text_not_the_whole_page(settings: Settings, tmp_path: Path) -> None:
    """Chunks on one page each have their own highlight: one chunk's does not hold the
    next one's text (their text differs beyond the overlap)."""
    records, _ = _excerpts(SAMPLES / "sample_zh_qa.pdf", Strategy.question, settings, tmp_path / "paper")
    texts = shown_texts(split_link(str(records[0].metadata.chunk_file_path))[0])
    assert held_share(records[0], shown_of(records[0], texts)) >= 0.99
    assert held_share(records[1], shown_of(records[0], texts)) < 0.5


def test_one_chunks_pdf_is_cut_on_demand_with_only_its_highlight(settings: Settings, tmp_path: Path) -> None:
    records, report = _excerpts(SAMPLES / "sample_zh_qa.pdf", Strategy.question, settings, tmp_path / "paper")
    record, excerpt = records[1], report.excerpts[1]
    data, extension = cut_excerpt(tmp_path / "paper" / "excerpts", "question", "pdf", record, [])
    assert extension == "pdf" and pdf_page_count(data) == len(excerpt.pages)
    assert list(highlighted_texts(data)) == [record.id]
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data)
    assert held_ratio(record, cut) >= 0.99 and held_ratio(records[0], cut) < 0.5


def test_excerpts_are_kept_until_a_chunk_changes(settings: Settings, tmp_path: Path) -> None:
    paper = fixture_pdf("paper_e_qa.pdf")
    source = read_source(paper)
    extracted, pages = text_pages(source)
    records = _chunks(paper, Strategy.question, settings)
    folder = tmp_path / "excerpts"
    first = write_excerpts(folder, "question", "pdf", source.data, pages, records, source.sha256)
    assert first.written == len(records) >= 3
    again = write_excerpts(folder, "question", "pdf", source.data, pages, records, source.sha256)
    assert (again.written, again.reused) == (0, len(records))
    changed = records[:-1]
    changed[1] = replace(changed[1], text=changed[1].text + "\nextra")
    third = write_excerpts(folder, "question", "pdf", source.data, pages, changed, source.sha256)
    assert (third.written, third.reused) == (len(changed), 0)
    manifest = json.loads((folder / "question.json").read_text(encoding="utf-8"))
    assert str(len(records) - 1) not in manifest and len(manifest) == len(changed)


def test_the_layout_before_issue_42_is_removed(settings: Settings, tmp_path: Path) -> None:
    old = tmp_path / "paper" / "excerpts" / "token"
    old.mkdir(parents=True)
    for name in ("0.pdf", "1.pdf", "manifest.json"):
        (old / name).write_bytes(b"old")
    _, report = _excerpts(fixture_pdf("paper_e_qa.pdf"), Strategy.token, settings, tmp_path / "paper")
    assert report.deleted == 3 and not old.exists()


@pytest.mark.parametrize("strategy", list(Strategy))
def test_html_paper_gets_one_page_with_each_chunk_marked(
    strategy: Strategy, settings: Settings, tmp_path: Path
) -> None:
    paper = HTML / "ld_faq_annual_leave_tc.html"
    records, report = _excerpts(paper, strategy, settings, tmp_path / "paper")
    folder = tmp_path / "paper" / "excerpts"
    assert report.kind == "html" and records and report.file == f"{strategy.value}.html"
    assert sorted(p.name for p in folder.iterdir()) == [f"{strategy.value}.html.gz", f"{strategy.value}.json"]
    assert 0 < report.bytes == (folder / f"{strategy.value}.html.gz").stat().st_size <= paper.stat().st_size
    page = link_bytes(folder / f"{strategy.value}.html").decode("utf-8")
    for record, share in zip(records, _shares(records)):
        index = record.metadata.chunk_index
        assert str(record.metadata.chunk_file_path).endswith(f"{strategy.value}.html#chunk-{index}")
        assert f'id="chunk-{index}"' in page and share >= 0.99, record.id
    if strategy is not Strategy.question:
        return
    # on demand, a chunk's passage with some context, not the page
    data, extension = cut_excerpt(folder, "question", "html", records[1], text_pages(read_source(paper))[1])
    assert extension == "html" and len(data.decode()) < 2 * len(records[1].text) + 5 * CONTEXT_CHARS + 1000
    cut = tmp_path / "cut.html"
    cut.write_bytes(data)
    assert held_ratio(records[1], cut) >= 0.99


def test_text_paper_gets_one_page_and_a_text_excerpt_on_demand(settings: Settings, tmp_path: Path) -> None:
    paper = tmp_path / "notes.txt"
    paper.write_text(
        "問1：什麼是連續性合約？\n答1：僱員連續受僱於同一僱主四星期或以上。\n\n問2：如何計算工時？\n答2：按每星期工作時數計算。\n",
        encoding="utf-8",
    )
    records, report = _excerpts(paper, Strategy.question, settings, tmp_path / "paper")
    assert report.kind == "text" and len(records) == 2 and report.file == "question.html"
    texts = shown_texts(tmp_path / "paper" / "excerpts" / "question.html")
    assert "問2" in texts["chunk-1"] and "問1" not in texts["chunk-1"]
    assert all(share >= 0.99 for share in _shares(records))
    pages = text_pages(read_source(paper))[1]
    data, extension = cut_excerpt(tmp_path / "paper" / "excerpts", "question", "text", records[1], pages)
    cut = tmp_path / "cut.txt"
    cut.write_bytes(data)
    assert extension == "txt" and "問2" in shown_text(cut) and "問1" not in shown_text(cut)


def _text_hansard(path: Path, questions: int = 40) -> Path:
    """A Council record as plain text, the way the PDFBox text of a Hansard reads: numbered
    questions, each a member's question and an official's reply of a few paragraphs."""
    rng = random.Random(42)
    words = "the Government housing transport drainage public estates elderly allowance budget review licence site".split()
    lines = ["LEGISLATIVE COUNCIL ─ 21 November 2012", "", "WRITTEN ANSWERS TO QUESTIONS", ""]
    for n in range(1, questions + 1):
        lines.append(
            f"{n}. MR MEMBER {n} (in Cantonese): President, will the Government inform this Council of the following:"
        )
        lines.extend(
            f"({part}) " + " ".join(rng.choice(words) for _ in range(rng.randint(15, 30))) + "?"
            for part in "abc"
        )
        lines.append("SECRETARY FOR DEVELOPMENT (in Cantonese): President,")
        for _ in range(rng.randint(2, 4)):
            lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(40, 90))) + ".")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("strategy", list(Strategy))
@pytest.mark.parametrize("paper", ["generated", "html/blind/faq_dl_en.txt"])
def test_text_papers_excerpts_take_no_more_than_the_paper(
    paper: str, strategy: Strategy, settings: Settings, tmp_path: Path
) -> None:
    """Issue 42's bound for text papers: the page holds the text once plus every chunk's
    marks, so it is stored gzipped and takes no more than the paper (it took 1.01-1.10x
    uncompressed); a link still reads it whole."""
    path = _text_hansard(tmp_path / "council.txt") if paper == "generated" else TESTS / "fixtures" / paper
    records, report = _excerpts(path, strategy, settings, tmp_path / "paper")
    stored = tmp_path / "paper" / "excerpts" / f"{strategy.value}.html.gz"
    assert report.kind == "text" and records and report.file == f"{strategy.value}.html"
    assert 0 < report.bytes == stored.stat().st_size <= path.stat().st_size, (
        report.bytes,
        path.stat().st_size,
    )
    assert all(share >= 0.99 for share in _shares(records))


def test_the_asset_writes_excerpts_and_chroma_stores_their_links(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(fixture_pdf("paper_a_tables.pdf"))
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        for strategy in Strategy:
            result = dg.materialize(
                ALL_ASSETS,
                partition_key=key,
                instance=instance,
                resources=resources,
                run_config=strategy_run_config(strategy),
            )
            assert result.success
            meta = result.asset_materializations_for_node("chunk_excerpts")[0].metadata
            assert meta["strategy"].value == strategy.value and meta["excerpt_kind"].value == "pdf"
            assert meta["excerpts"].value == meta["written"].value + meta["reused_unchanged"].value > 0
            assert 0 < meta["share_of_paper"].value <= 1
            preview = result.asset_materializations_for_node("chunks")[0].metadata["preview"].value
            assert (
                "| excerpt |" in preview
                and f"{strategy.value}.pdf#page=1](http://127.0.0.1:8000/{key}/excerpts/{strategy.value}.pdf#page=1)"
                in preview
            )
            assert "file://" not in preview
        rerun = dg.materialize(
            ALL_ASSETS,
            selection=["chunk_excerpts"],
            partition_key=key,
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.token, ["chunk_excerpts"]),
        )
        meta = rerun.asset_materializations_for_node("chunk_excerpts")[0].metadata
        assert meta["written"].value == 0 and meta["reused_unchanged"].value == meta["excerpts"].value
        assert "](http://127.0.0.1:8000/" in meta["preview"].value
    stored = stored_chunks(open_collection(Settings(data_dir=data)))
    assert {c.metadata.strategy_type for c in stored} == {"token", "question"}
    for chunk in stored:
        path, fragment = split_link(str(chunk.metadata.chunk_file_path))
        assert (
            path.name == f"{chunk.metadata.strategy_type}.pdf"
            and fragment == f"page={chunk.metadata.page_start}"
        )
        assert held_ratio(chunk) >= 0.99


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="the real corpus is not checked out beside the repo")
@pytest.mark.parametrize(
    "paper",
    [
        "hkgov/ld_ECO_guide_with_FAQ_en.pdf",
        "hkgov/ld_continuous_contract_FAQ_tc.pdf",
        "hkgov/fdh_faq_en.html",
        "legco/agenda_20140430-c.html",
        "legco/hansard_20150429-e.html",
    ],
)
def test_real_papers_excerpts_hold_99_percent_of_chunks_within_the_papers_size(
    paper: str, settings: Settings, tmp_path: Path
) -> None:
    """The done-when on real papers of every kind that run fast (scripts/check_excerpts.py
    measures the whole corpus, the 250-page Hansard included)."""
    for strategy in Strategy:
        records, report = _excerpts(CORPUS / paper, strategy, settings, tmp_path / strategy.value)
        held = sum(share >= 0.99 for share in _shares(records))
        assert held >= 0.99 * len(records), (strategy, held, len(records))
        assert report.bytes <= (CORPUS / paper).stat().st_size, (strategy, report.bytes)


def test_query_and_answer_print_each_hits_excerpt(env_data_dir: Path, capsys: pytest.CaptureFixture) -> None:
    from legco_assets import cli

    key = DocumentIndex(env_data_dir / "documents").register(fixture_pdf("paper_e_qa.pdf"))
    resources = {
        "legco": LegcoSettings(data_dir=str(env_data_dir), inbox=str(env_data_dir / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        run_config = strategy_run_config(Strategy.question)
        assert dg.materialize(
            ALL_ASSETS, partition_key=key, instance=instance, resources=resources, run_config=run_config
        ).success
    stored = Artifacts(Settings(data_dir=env_data_dir), key).read_chunks(Strategy.question)
    pair = next(r for r in stored if r.metadata.question_text)
    question = str(pair.metadata.question_text)
    assert (
        cli.main(["query", question, "--strategy", "question", "-k", "2", "--no-translate", "--no-rerank"])
        == 0
    )
    shown = [
        line.split("excerpt: ", 1)[1] for line in capsys.readouterr().out.splitlines() if "excerpt: " in line
    ]
    # an HTTP link a reader opens (the stored file alone is the paper's update section)
    assert (
        len(shown) == 2
        and shown[0] == f"http://127.0.0.1:8000/{key}/excerpts/question.pdf#page={pair.metadata.page_start}"
    )
    assert all(p.startswith(f"http://127.0.0.1:8000/{key}/excerpts/question.pdf#page=") for p in shown)
    assert (env_data_dir / "documents" / key / "excerpts" / "question.pdf.update").exists()
    assert cli.main(["answer", question, "--strategy", "question", "--no-translate", "--no-rerank"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[1] excerpt: ")]
    assert len(lines) == 1 and lines[0].split(": ", 1)[1].startswith(
        f"http://127.0.0.1:8000/{key}/excerpts/question.pdf#page="
    )
    out = env_data_dir / "cut.pdf"
    assert cli.main(["excerpt", pair.id, "-o", str(out)]) == 0
    assert held_ratio(pair, out) >= 0.99 and list(highlighted_texts(out.read_bytes())) == [pair.id]
    assert cli.main(["excerpt", f"{key}:question:999"]) == 1


def test_pages_turned_for_display_get_their_chunks_highlighted(settings: Settings, tmp_path: Path) -> None:
    """The excerpts read a turned page's characters upright too, as the chunks were read."""
    from .conftest import rotated_copy

    turned = rotated_copy(SAMPLES / "sample_zh_qa.pdf", tmp_path / "turned.pdf")
    records, report = _excerpts(turned, Strategy.question, settings, tmp_path / "paper")
    assert len(report.excerpts) == len(records) >= 9
    assert all(share >= 0.99 for share in _shares(records))
