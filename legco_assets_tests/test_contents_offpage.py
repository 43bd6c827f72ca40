"""What a reader does not read is not content. Text printed off the page or drawn
invisibly is dropped at reading and counted (``off_page_chars``); a contents list is known by
the headings it lists, whatever its numbers look like, and neither strategy chunks it.

The Policy Address fixture (``generate_fixtures.build_policy_address``) lists its chapters
with paragraph ranges and no leaders (``(一) 前言 1–9``) under ``目錄 段落``, and carries a
template's placeholders at x = 706 pt on a 595 pt page and one line in render mode 3."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from legco_assets.core.errors import DocumentError
from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.read import extract_document, read_source, text_pages
from legco_assets.core.read.extract import _pypdf_texts
from legco_assets.core.records import DocumentText
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure import detect_structure, toc_entries

from .conftest import CORPUS
from .pdf_factory import make_pdf
from .runs import materialize_paper

PDFS = Path(__file__).resolve().parent / "fixtures" / "pdfs"
ADDRESS = PDFS / "policy_address_2019_zh.pdf"
GOLD = json.loads((PDFS / "policy_address_2019_zh.json").read_text(encoding="utf-8"))
ECO_GUIDE = CORPUS / "hkgov" / "ld_ECO_guide_with_FAQ_en.pdf"
SCANNED = CORPUS / "legco" / "cb3-641-2026-02_scanned-c.pdf"


def _squash(text: str) -> str:
    return "".join(text.split())


def test_off_page_and_invisible_text_is_left_out_and_counted() -> None:
    extracted = extract_document(read_source(ADDRESS))
    text = _squash("".join(p.raw for p in extracted.pages))
    for line in [*GOLD["off_page_lines"], GOLD["invisible_line"]]:
        assert _squash(line) not in text, line
    assert sum(p.off_page_chars for p in extracted.pages) == GOLD["hidden_chars"]
    assert {p.number for p in extracted.pages if p.off_page_chars} == {GOLD["contents_page"]}
    assert all(_squash(c["heading"]) in text for c in GOLD["chapters"]), "the visible text stays"


def test_the_pypdf_fallback_leaves_the_same_text_out() -> None:
    """The reader for files PDFium refuses drops the same placeholders by the pieces' place
    and the ``Tr`` operator, and counts them alike."""
    texts, off_page = _pypdf_texts(read_source(ADDRESS))
    joined = _squash("".join(texts))
    for line in [*GOLD["off_page_lines"], GOLD["invisible_line"]]:
        assert _squash(line) not in joined, line
    assert sum(off_page) == GOLD["hidden_chars"]
    assert all(_squash(ln) in joined for ln in GOLD["contents_lines"]), "the visible text stays"


@pytest.mark.parametrize("strategy", list(Strategy))
def test_policy_address_chunks_no_contents_line_and_no_placeholder(strategy: Strategy) -> None:
    paper = chunk_paper(ADDRESS, strategy, Settings(), use_llm=False)
    lines = {_squash(ln) for r in paper.records for ln in r.text.split("\n")}
    listed = {_squash(ln) for ln in GOLD["contents_lines"]}
    if strategy is Strategy.question:  # token windows read a contents list (their skip is off)
        assert not lines & listed, "a contents line was chunked"
    joined = _squash("".join(r.text for r in paper.records))
    for hidden in [*GOLD["off_page_lines"], GOLD["invisible_line"]]:
        assert _squash(hidden) not in joined, hidden
    assert all(_squash(c["heading"]) in joined for c in GOLD["chapters"])
    assert not [c for c in paper.checks if c.blocking and not c.passed], (
        "a contents-only page is expected uncovered"
    )


def test_policy_address_first_token_window_starts_with_title_and_address() -> None:
    """The placeholder printed beyond the page no longer leads the first window: the title and
    the speaker do. (The contents list follows them: token windows' contents skip is off.)"""
    paper = chunk_paper(ADDRESS, Strategy.token, Settings(), use_llm=False)
    first = [ln.strip() for ln in paper.records[0].text.split("\n") if ln.strip()]
    assert _squash(first[0]) == _squash(GOLD["title"])
    assert _squash(first[1]) == _squash(GOLD["speaker"])


def test_token_windows_with_the_contents_skip_read_around_the_contents() -> None:
    """``TokenChunkingStrategy(skip_contents=True)``: the first window runs from the title and
    the speaker across the contents list to the address."""
    from legco_assets.core.chunking import TokenChunkingStrategy
    from legco_assets.core.read import read_source, text_pages
    from legco_assets.core.structure import paper_structure

    _, pages = text_pages(read_source(ADDRESS))
    sections = paper_structure(pages, Settings()).sections  # no LLM: none given
    records = TokenChunkingStrategy(skip_contents=True).chunk("address", pages, sections)
    first = [ln.strip() for ln in records[0].text.split("\n") if ln.strip()]
    assert [_squash(ln) for ln in first[:3]] == [
        _squash(GOLD["title"]),
        _squash(GOLD["speaker"]),
        _squash(GOLD["chapters"][0]["heading"]),
    ], "the address follows, not its contents"


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")
def test_eco_guide_loses_only_the_page_numbers_printed_beyond_its_pages() -> None:
    """A 2-up spread's other page number (``1``, ``3``, … ``47``) at x ≈ 628 pt of a 420 pt
    page: those 43 characters go, and nothing else."""
    extracted = extract_document(read_source(ECO_GUIDE))
    assert sum(p.off_page_chars for p in extracted.pages) == 43
    pdf = pdfium.PdfDocument(str(ECO_GUIDE))
    try:
        for page in extracted.pages:
            textpage = pdf[page.number - 1].get_textpage()
            full = _squash(textpage.get_text_range().replace("\x02", "").replace("\ufffe", ""))
            textpage.close()
            gone = Counter(full) - Counter(_squash(page.raw))
            assert gone.total() == page.off_page_chars, page.number
            assert set(gone) <= set("0123456789"), gone
    finally:
        pdf.close()


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")
def test_scanned_submission_still_fails_with_its_vision_reason() -> None:
    with pytest.raises(DocumentError, match="configure a vision LLM"):
        chunk_paper(SCANNED, Strategy.question, Settings(), use_llm=False)


def test_page_text_materialisation_shows_what_was_left_out(tmp_path: Path) -> None:
    """The ``page_text`` asset's metadata says how many characters were left out, and on
    which pages, so a reader of the UI can see that the text layer held more than the page."""
    paper = tmp_path / "inbox" / ADDRESS.name
    paper.parent.mkdir(parents=True)
    paper.write_bytes(ADDRESS.read_bytes())
    result = materialize_paper(tmp_path, paper, {}, selection=["source_document", "page_text"])
    assert result.success
    [event] = [e for e in result.get_asset_materialization_events() if e.asset_key.path == ["page_text"]]
    metadata = event.materialization.metadata
    assert metadata["off_page_chars"].value == GOLD["hidden_chars"]
    assert metadata["off_page_chars_per_page"].value == {str(GOLD["contents_page"]): GOLD["hidden_chars"]}


UNTITLED_HEADINGS = ["Opening remarks", "Housing supply", "Land for the future", "Caring for families"]
UNTITLED_ENTRIES = [
    "Opening remarks 1-4",
    "Housing supply 5-9",
    "Land for the future 10 - 17",
    "Caring for families 18",
]


def _untitled_contents_paper(path: Path) -> Path:
    """A cover, a contents page with no title and no leaders (each heading with the range of
    paragraphs it holds, as a range with or without spaces or a bare number), then the body."""
    body: list[list[str]] = [[], []]
    for k, heading in enumerate(UNTITLED_HEADINGS):
        body[k // 2] += [
            heading,
            f"{k + 1}. The Government will work on {heading.lower()} with the community this year.",
            "It will consult the public on the details of the measures before they take effect.",
        ]
    return make_pdf(path, [["Policy Address 2030", "The Chief Executive"], UNTITLED_ENTRIES, *body])


@pytest.mark.parametrize("strategy", [Strategy.question])  # token windows read it (skip off)
def test_an_untitled_contents_list_is_known_by_the_headings_it_lists(
    tmp_path: Path, strategy: Strategy
) -> None:
    paper = chunk_paper(
        _untitled_contents_paper(tmp_path / "address.pdf"), strategy, Settings(), use_llm=False
    )
    lines = {ln.strip() for r in paper.records for ln in r.text.split("\n")}
    assert not lines & set(UNTITLED_ENTRIES), "a contents line was chunked"
    assert set(UNTITLED_HEADINGS) <= lines, "the body's headings stay"
    assert not [c for c in paper.checks if c.blocking and not c.passed]


def test_an_untitled_contents_list_still_gives_the_outline(tmp_path: Path) -> None:
    """The list is a ``toc`` section: the titles it lists, with their ranges, are read from it."""
    _, pages = text_pages(read_source(_untitled_contents_paper(tmp_path / "address.pdf")))
    entries = toc_entries(detect_structure(DocumentText.from_pages(pages)))
    assert [(e.title, e.first, e.last) for e in entries] == [
        ("Opening remarks", 1, 4),
        ("Housing supply", 5, 9),
        ("Land for the future", 10, 17),
        ("Caring for families", 18, None),
    ]


def test_lines_that_merely_repeat_are_no_contents_list(tmp_path: Path) -> None:
    """A table's header row printed again on a later page repeats its lines but lists no
    heading with a reference: it stays text."""
    header = ["Actual", "($ billion)", "Estimate"]
    pages = [
        ["Budget sheets", *header, "Revenue 324.5"],
        ["Notes on the figures"],
        [*header, "Spending 486.6"],
    ]
    _, read = text_pages(read_source(make_pdf(tmp_path / "sheets.pdf", pages)))
    sections = detect_structure(DocumentText.from_pages(read))
    assert not [s for s in sections if s.type == "toc"]
