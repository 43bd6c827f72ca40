"""Source excerpts: every chunk's characters highlighted on the source
(read back from the written file, by the chunk the highlight names), a strategy's excerpts of a
paper in one file that costs less than the paper (a PDF's highlighted copy stored as an update
of the stored paper; an HTML page with the chunks marked for a web page or text paper), kept
when no chunk changed; what a chunk's link (``excerpt/<id>``) opens, cut on demand and cached:
only its pages and only its highlight, or the page with only its marks."""

from __future__ import annotations

import html
import io
import json
import random
import re
import shutil
from dataclasses import replace
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core import pipeline
from legco_assets.core.artifacts import Artifacts
from legco_assets.core.excerpts import (
    chunk_link,
    cut_chunk_excerpt,
    cut_excerpt,
    held_ratio,
    held_share,
    highlight_pages,
    highlighted_texts,
    link_bytes,
    marked_chunks,
    on_words,
    shown_in,
    shown_of,
    shown_texts,
    with_excerpt_paths,
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
        folder, strategy, extracted.kind, source.data, pages, records, source.sha256, path.name
    )
    return with_excerpt_paths(records), report


def _shares(records: list[ChunkRecord], file: Path) -> list[float]:
    """Each chunk's held share in its strategy's excerpt ``file``, read once."""
    texts = shown_texts(file)
    return [held_share(r, shown_of(r, texts)) for r in records]


def _annotations(data: bytes) -> list[list[str]]:
    """Per page of a PDF, the chunk id each of our highlight annotations names."""
    from pypdf import PdfReader

    from legco_assets.core.excerpts.increment import AUTHOR

    out = []
    for page in PdfReader(io.BytesIO(data)).pages:
        annots = [a.get_object() for a in page.get("/Annots") or []]
        out.append([str(a["/Contents"]) for a in annots if a.get("/T") == AUTHOR])
    return out


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
    )  # the bound (less than the paper): fonts and images are not stored again
    copy = link_bytes(folder / f"{strategy.value}.pdf")
    assert pdf_page_count(copy) == pdf_page_count(paper.read_bytes())
    assert set(highlighted_texts(copy)) == {r.id for r in records}  # each highlight names its chunk
    on = highlight_pages(copy)
    for record, excerpt, share in zip(records, report.excerpts, _shares(records, folder / report.file)):
        assert record.metadata.chunk_file_path == excerpt.link == f"excerpt/{record.id}"
        assert excerpt.pages == sorted(on[record.id])  # the pages its link's cut holds
        assert share >= 0.99, record.id


def test_the_highlight_is_the_chunks_text_not_the_whole_page(settings: Settings, tmp_path: Path) -> None:
    """Chunks on one page each have their own highlight: one chunk's does not hold the
    next one's text (their text differs beyond the overlap)."""
    records, _ = _excerpts(SAMPLES / "sample_zh_qa.pdf", Strategy.question, settings, tmp_path / "paper")
    texts = shown_texts(tmp_path / "paper" / "excerpts" / "question.pdf")
    assert held_share(records[0], shown_of(records[0], texts)) >= 0.99
    assert held_share(records[1], shown_of(records[0], texts)) < 0.5


@pytest.mark.parametrize("strategy", list(Strategy))
def test_a_chunks_pdf_has_only_its_pages_and_its_one_highlight_where_chunks_share_a_page(
    strategy: Strategy, settings: Settings, tmp_path: Path
) -> None:
    """What a chunk's link opens: cut from the strategy's copy, the pages its
    characters are on and one highlight annotation per page, naming it, though the copy
    highlights several chunks on those pages."""
    records, report = _excerpts(SAMPLES / "sample_zh_qa.pdf", strategy, settings, tmp_path / "paper")
    folder = tmp_path / "paper" / "excerpts"
    copy = _annotations(link_bytes(folder / report.file))
    shared = [r for r in records if any(r.id in ids and len(set(ids)) > 1 for ids in copy)]
    assert len(shared) >= 2, "the paper must put several chunks on one page"
    for record in shared:
        pages = report.excerpts[record.metadata.chunk_index].pages
        data, extension = cut_excerpt(folder, strategy, "pdf", record)
        assert extension == "pdf" and pdf_page_count(data) == len(pages)
        assert _annotations(data) == [[record.id]] * len(pages), record.id
        assert pages == [p for p in range(1, len(copy) + 1) if record.id in copy[p - 1]]
        assert held_share(record, shown_in(data, extension)) >= 0.99, record.id


def test_excerpts_are_kept_until_a_chunk_changes(settings: Settings, tmp_path: Path) -> None:
    paper = fixture_pdf("paper_e_qa.pdf")
    source = read_source(paper)
    extracted, pages = text_pages(source)
    records = _chunks(paper, Strategy.question, settings)
    folder = tmp_path / "excerpts"
    first = write_excerpts(folder, Strategy.question, "pdf", source.data, pages, records, source.sha256)
    assert first.written == len(records) >= 3
    again = write_excerpts(folder, Strategy.question, "pdf", source.data, pages, records, source.sha256)
    assert (again.written, again.reused) == (0, len(records))
    changed = records[:-1]
    changed[1] = replace(changed[1], text=changed[1].text + "\nextra")
    third = write_excerpts(folder, Strategy.question, "pdf", source.data, pages, changed, source.sha256)
    assert (third.written, third.reused) == (len(changed), 0)
    manifest = json.loads((folder / "question.json").read_text(encoding="utf-8"))
    assert str(len(records) - 1) not in manifest and len(manifest) == len(changed)


def test_the_per_chunk_excerpt_layout_is_removed(settings: Settings, tmp_path: Path) -> None:
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
    for record, share in zip(records, _shares(records, folder / report.file)):
        index = record.metadata.chunk_index
        assert record.metadata.chunk_file_path == f"excerpt/{record.id}"
        assert f'id="chunk-{index}"' in page and share >= 0.99, record.id
    _assert_marks_only_its_chunk(folder, strategy, "html", records, page)


def test_text_paper_gets_one_page_and_each_chunk_its_own_page_on_demand(
    settings: Settings, tmp_path: Path
) -> None:
    paper = tmp_path / "notes.txt"
    paper.write_text(
        "問1：什麼是連續性合約？\n答1：僱員連續受僱於同一僱主四星期或以上。\n\n問2：如何計算工時？\n答2：按每星期工作時數計算。\n",
        encoding="utf-8",
    )
    records, report = _excerpts(paper, Strategy.question, settings, tmp_path / "paper")
    folder = tmp_path / "paper" / "excerpts"
    assert report.kind == "text" and len(records) == 2 and report.file == "question.html"
    texts = shown_texts(folder / "question.html")
    assert "問2" in texts["chunk-1"] and "問1" not in texts["chunk-1"]
    assert all(share >= 0.99 for share in _shares(records, folder / report.file))
    page = link_bytes(folder / "question.html").decode("utf-8")
    _assert_marks_only_its_chunk(folder, Strategy.question, "text", records, page)
    data, _ = cut_excerpt(folder, Strategy.question, "text", records[1])
    assert "問2" in shown_in(data, "html") and "問1" not in shown_in(data, "html")


def _assert_marks_only_its_chunk(
    folder: Path, strategy: Strategy, kind: str, records: list[ChunkRecord], page: str
) -> None:
    """Each chunk's own page (what its link opens) is the paper's whole text with only that
    chunk's marks, lit, the first ``id="chunk"``, scrolled to by a line of inline script
    (nothing fetched), and nothing of the other chunks' marks."""
    text_of_page = re.sub(r"<[^>]+>", "", page.split("<pre>", 1)[1].split("</pre>", 1)[0])
    for record in records:
        data, extension = cut_excerpt(folder, strategy, kind, record)
        cut = data.decode("utf-8")
        assert (
            extension == "html"
            and re.sub(r"<[^>]+>", "", cut.split("<pre>", 1)[1].split("</pre>", 1)[0]) == text_of_page
        )
        assert cut.count('<mark id="chunk">') == 1 and "data-c=" not in cut and 'id="chunk-' not in cut
        assert "scrollIntoView" in cut and "<script src" not in cut and "http" not in cut.split("<pre>", 1)[0]
        assert held_share(record, shown_in(data, "html")) >= 0.99, record.id
        assert shown_in(data, "html") == marked_chunks(page).get(record.metadata.chunk_index, "")


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
    """The bound for text papers (less than the paper): the page holds the text once plus every chunk's
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
    assert all(share >= 0.99 for share in _shares(records, stored.with_suffix("")))


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
            own = f"[open](http://127.0.0.1:8000/excerpt/{key}:{strategy.value}:0)"  # chunk 0's own excerpt
            preview = result.asset_materializations_for_node("chunks")[0].metadata["preview"].value
            assert "| excerpt |" in preview and own in preview and "file://" not in preview
            assert own in meta["preview"].value
        settings = Settings(data_dir=data)
        first = cut_chunk_excerpt(settings, f"{key}:token:1")
        assert cut_chunk_excerpt(settings, f"{key}:token:1") is first  # cached while unchanged
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
        assert f"[open](http://127.0.0.1:8000/excerpt/{key}:token:0)" in meta["preview"].value
    again = cut_chunk_excerpt(settings, f"{key}:token:1")  # its excerpts were written again: cut again
    assert again is not first and again == first
    stored = stored_chunks(open_collection(settings))
    assert {c.metadata.strategy_type for c in stored} == {"token", "question"}
    for chunk in stored:  # the link names what opens: this chunk's own excerpt, cut by its id
        assert chunk.metadata.chunk_file_path == chunk_link(chunk.id) == f"excerpt/{chunk.id}"
        data, extension = cut_chunk_excerpt(settings, chunk.id)
        assert extension == "pdf" and _annotations(data) == [[chunk.id]] * len(_annotations(data))
        assert held_share(chunk, shown_in(data, extension)) >= 0.99, chunk.id
    for missing in (f"{key}:token:999", f"{key}:nope:1", "../documents:token:1", key):
        with pytest.raises(KeyError):
            cut_chunk_excerpt(settings, missing)


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
        held = sum(
            share >= 0.99 for share in _shares(records, tmp_path / strategy.value / "excerpts" / report.file)
        )
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
    lines = capsys.readouterr().out.splitlines()
    hits = [line.rsplit(" ", 1)[1] for line in lines if line.startswith("#")]
    shown = [line.split("excerpt: ", 1)[1] for line in lines if "excerpt: " in line]
    # each hit's own excerpt over HTTP (the stored file alone is the paper's update section)
    assert len(shown) == 2 and shown == [f"http://127.0.0.1:8000/excerpt/{hit}" for hit in hits]
    assert cli.main(["answer", question, "--strategy", "question", "--no-translate", "--no-rerank"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[1] excerpt: ")]
    assert len(lines) == 1 and lines[0].split(": ", 1)[1].startswith(
        f"http://127.0.0.1:8000/excerpt/{key}:question:"
    )
    out = env_data_dir / "cut.pdf"  # the command writes what the link opens
    assert cli.main(["excerpt", pair.id, "-o", str(out)]) == 0
    assert out.read_bytes() == cut_chunk_excerpt(Settings(data_dir=env_data_dir), pair.id)[0]
    assert held_ratio(pair, out) >= 0.99 and list(highlighted_texts(out.read_bytes())) == [pair.id]
    assert cli.main(["excerpt", f"{key}:question:999"]) == 1


def test_pages_turned_for_display_get_their_chunks_highlighted(settings: Settings, tmp_path: Path) -> None:
    """The excerpts read a turned page's characters upright too, as the chunks were read."""
    from .conftest import rotated_copy

    turned = rotated_copy(SAMPLES / "sample_zh_qa.pdf", tmp_path / "turned.pdf")
    records, report = _excerpts(turned, Strategy.question, settings, tmp_path / "paper")
    assert len(report.excerpts) == len(records) >= 9
    assert all(share >= 0.99 for share in _shares(records, tmp_path / "paper" / "excerpts" / report.file))


def _cut_points_inside_words(page: str) -> list[str]:
    """Where a ``<mark>`` of a strategy's HTML page opens or closes between two letters of
    one Latin word, as ``before|after`` snippets of the page's text."""
    body = re.sub(r'<a id="chunk-[0-9]+"></a>', "", page.split("<pre>", 1)[1].split("</pre>", 1)[0])
    plain, points = "", []
    for part in re.split(r'(<mark data-c="[0-9 ]+">|</mark>)', body):
        if part.startswith(("<mark", "</mark")):
            points.append(len(plain))
        else:
            plain += html.unescape(part)
    word = re.compile(r"[0-9A-Za-z]")
    return [
        f"{plain[max(0, p - 12) : p]}|{plain[p : p + 12]}"
        for p in points
        if 0 < p < len(plain) and word.match(plain[p - 1]) and word.match(plain[p])
    ]


@pytest.mark.parametrize("strategy", list(Strategy))
def test_an_html_papers_marks_start_and_end_on_word_boundaries(
    strategy: Strategy, settings: Settings, tmp_path: Path
) -> None:
    """A page's heading printed twice (``Frequently Asked Questions``, the title
    and the heading) made chunk 0's characters, found in order without whitespace, run on
    from ``…Questions`` into the ``F`` of the second ``Frequently``, and its next mark
    start at ``or Employers``."""
    paper = tmp_path / "faq.html"
    answers = " ".join(["The Standard Employment Contract is the only official contract for helpers."] * 3)
    qa = "".join(
        f"<p><b>Q{n}. Can an employer sign another contract with the helper in case {n}?</b></p><p>{answers}</p>"
        for n in range(1, 9)
    )
    paper.write_text(
        "<html><head><title>Helpers - Frequently Asked Questions</title></head><body>"
        "<h2>Frequently Asked Questions</h2><h2>Frequently Asked Questions</h2>"
        f"<p>For Employers and Foreign Domestic Helpers (FDHs)</p>{qa}</body></html>",
        encoding="utf-8",
    )
    records, report = _excerpts(paper, strategy, settings, tmp_path / "paper")
    page = link_bytes(tmp_path / "paper" / "excerpts" / report.file).decode("utf-8")
    assert report.kind == "html" and "For Employers" in marked_chunks(page)[0]
    assert _cut_points_inside_words(page) == []
    assert all(share >= 0.99 for share in _shares(records, tmp_path / "paper" / "excerpts" / report.file))


def test_a_mark_is_moved_to_the_words_it_cuts() -> None:
    """:func:`on_words`: a run into the next word's first letter is dropped, a mark that
    starts inside a word it mostly holds takes the whole word, and the chunk's own first
    and last words (a token chunk cut mid-word) are taken whole."""
    text = "Frequently Asked Questions\nFrequently Asked Questions\nFor Employers and Helpers"
    second = text.index("For")
    assert on_words(text, [(0, 28), (second + 1, len(text))]) == [(0, 27), (second, len(text))]
    assert on_words(text, [(3, 10), (second + 5, len(text) - 2)]) == [(0, 10), (second + 4, len(text))]
    assert on_words("上午十時正開會", [(1, 3)]) == [(1, 3)]  # no words to keep whole in Chinese


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="the real corpus is not checked out beside the repo")
@pytest.mark.parametrize("strategy", list(Strategy))
def test_real_web_pages_marks_start_and_end_on_word_boundaries(
    strategy: Strategy, settings: Settings, tmp_path: Path
) -> None:
    """The page that showed it: the Labour Department's FAQ for helpers, chunk 0 first."""
    records, report = _excerpts(CORPUS / "hkgov" / "fdh_faq_en.html", strategy, settings, tmp_path / "paper")
    page = link_bytes(tmp_path / "paper" / "excerpts" / report.file).decode("utf-8")
    assert records and _cut_points_inside_words(page) == []


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="the real corpus is not checked out beside the repo")
def test_real_hansards_written_question_8_parts_open_at_their_own_highlights(
    settings: Settings, tmp_path: Path
) -> None:
    """In the strategy's copy of the 2012 Hansard, page 59 carries the highlights of
    all five parts of written question 8 alike. Each part's link opens its own cut: its
    pages, one highlight per page naming it, and a highlight no other part has."""
    paper = CORPUS / "legco" / "hansard_20121121_translate-c.pdf"
    records, report = _excerpts(paper, Strategy.question, settings, tmp_path / "paper")
    folder = tmp_path / "paper" / "excerpts"
    parts = [r for r in records if r.metadata.question_id == "8"]
    assert len(parts) == 5 and all(59 in report.excerpts[r.metadata.chunk_index].pages for r in parts)
    assert len(set(_annotations(link_bytes(folder / report.file))[58])) >= 5  # page 59 of the copy
    shown = []
    for record in parts:
        data, extension = cut_excerpt(folder, Strategy.question, "pdf", record, paper.name)
        pages = report.excerpts[record.metadata.chunk_index].pages
        assert pdf_page_count(data) == len(pages) and _annotations(data) == [[record.id]] * len(pages)
        assert held_share(record, shown_in(data, extension)) >= 0.99, record.id
        shown.append(shown_in(data, extension))
    assert len(set(shown)) == 5


@pytest.mark.browser
def test_a_chunks_page_opens_scrolled_to_its_marks_in_a_browser(settings: Settings, tmp_path: Path) -> None:
    """A text paper's chunk far down its page: headless Chromium, with every request but the
    file itself refused, opens the chunk's page scrolled so that its first mark is in view."""
    from playwright.sync_api import sync_playwright

    paper = _text_hansard(tmp_path / "council.txt")
    records, _ = _excerpts(paper, Strategy.question, settings, tmp_path / "paper")
    record = records[-2]
    data, extension = cut_excerpt(tmp_path / "paper" / "excerpts", Strategy.question, "text", record)
    page_file = tmp_path / f"chunk.{extension}"
    page_file.write_bytes(data)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            fetched: list[str] = []
            page.route("**/*", lambda route: fetched.append(route.request.url) or route.continue_())
            page.goto(page_file.as_uri())
            page.wait_for_function("window.scrollY > 0")
            top, bottom = page.evaluate(
                "(() => { const r = document.getElementById('chunk').getBoundingClientRect();"
                " return [r.top, r.bottom]; })()"
            )
            height = page.evaluate("document.documentElement.scrollHeight")
        finally:
            browser.close()
    assert fetched == [page_file.as_uri()]
    assert height > 10 * 800 and 0 <= top < bottom <= 800
