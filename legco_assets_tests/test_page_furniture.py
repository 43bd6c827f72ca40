"""Page furniture learned from the paper: a running header that follows the section and a
bare page number, told apart from content by their place and their repetition from page to
page, never by their words.

The fixture (``fixtures/furniture/``, made by ``generate_furniture_fixtures.py``) is laid out
like a Chinese budget speech: the chapter's title and the page number at the top of every
page, no footer. Its gold file lists what each page prints there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_paper, paper_facts
from legco_assets.core.quality import PaperFacts, paper_checks
from legco_assets.core.read import clean_pages, page_furniture, read_source, text_pages
from legco_assets.core.records import Page
from legco_assets.core.settings import Settings, Strategy

FURNITURE = Path(__file__).resolve().parent / "fixtures" / "furniture"
SPEECH = FURNITURE / "budget_speech_running_header_zh.pdf"
GOLD = json.loads((FURNITURE / "budget_speech_running_header_zh.json").read_text(encoding="utf-8"))


def _squash(text: str) -> str:
    return "".join(text.split())


def test_the_speech_s_running_headers_and_page_numbers_are_learned() -> None:
    _, pages = text_pages(read_source(SPEECH))
    furniture = page_furniture(pages)
    assert furniture.top is not None and furniture.top.offset == 0 and furniture.top.header_side == 1
    assert furniture.section_headers == {_squash(p["header"]) for p in GOLD["furniture"]}


def test_no_header_or_page_number_at_the_top_of_a_cleaned_page() -> None:
    _, pages = text_pages(read_source(SPEECH))
    for printed in GOLD["furniture"]:
        page = pages[printed["page"] - 1]
        first_lines = [_squash(ln) for ln in page.cleaned.split("\n")[:3]]
        assert printed["number"] not in first_lines, f"page {printed['page']} keeps its number"
        assert page.raw.lstrip().startswith(printed["header"][:2])  # it was there before cleaning
    # the chapter title stays where it is the heading (first line of the chapter's page)
    chapter_pages = [p for p in GOLD["furniture"] if p["header"] not in ("目錄",)]
    assert any(pages[p["page"] - 1].cleaned.startswith(p["header"][:2]) for p in chapter_pages)


@pytest.mark.parametrize("strategy", list(Strategy))
def test_no_header_or_page_number_reaches_a_chunk(strategy: Strategy) -> None:
    paper = chunk_paper(SPEECH, strategy, Settings(), use_llm=False)
    headers = {_squash(p["header"]) for p in GOLD["furniture"]}
    for record in paper.records:
        lines = [_squash(ln) for ln in record.text.split("\n")]
        for k, line in enumerate(lines):
            # a header is content only as the heading: never beside a bare number
            beside = lines[k - 1 : k] + lines[k + 1 : k + 2]
            assert not (line in headers and any(re.fullmatch(r"\d{1,3}", b) for b in beside)), record.id
            assert not re.fullmatch(r"\d{1,3}", line), f"bare page number {line} in {record.id}"
            assert not any(line == f"{h}{n}" or line == f"{n}{h}" for h in headers for n in range(1, 40)), (
                record.id
            )
    assert all(c.passed for c in paper.checks if c.blocking), [c.line() for c in paper.checks if not c.passed]
    if strategy is Strategy.question:  # paragraph 1 sits under its chapter: the heading is content
        first = next(r for r in paper.records if re.search(r"(?m)^1\. ", r.text))
        assert first.metadata.section_path[:1] == ["引言"]


def test_the_footer_check_learns_the_paper_s_furniture() -> None:
    """Chunks made from the raw pages (furniture left in) fail ``no_footer_leaked``: the
    check knows this paper's headers from its own pages, not from a list of words."""
    _, pages = text_pages(read_source(SPEECH))
    leaky = [Page(number=p.number, raw=p.raw, cleaned=p.raw) for p in pages]
    records = [
        {
            "id": f"speech:token:{p.number}",
            "text": p.raw,
            "metadata": {"page_start": p.number, "page_end": p.number, "token_count": 10},
        }
        for p in leaky
    ]
    facts = paper_facts(pages, [], Strategy.token, Settings())
    check = next(c for c in paper_checks(records, facts) if c.name == "no_footer_leaked")
    assert not check.passed and not check.blocking, "a heuristic's check warns, never blocks"
    assert {e["line"] for e in check.details["examples"]} <= {p["header"] for p in GOLD["furniture"]}
    clean = [{**r, "text": p.cleaned} for r, p in zip(records, pages)]
    assert next(c for c in paper_checks(clean, facts) if c.name == "no_footer_leaked").passed


CONTENTS_SPEECH = FURNITURE / "budget_speech_contents_numbers_zh.pdf"
CONTENTS_GOLD = json.loads((FURNITURE / "budget_speech_contents_numbers_zh.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("strategy", list(Strategy))
def test_a_contents_entry_with_its_paragraph_number_is_never_furniture(strategy: Strategy) -> None:
    """The contents page lists each heading with its first paragraph's number (``引言 1``,
    ``第三章公共財政 106``): the same words as the running header, a number beside them, yet
    in the body of one page (or at its foot, out of step with the page). The running headers
    are still learned and stripped; the contents entries stay, and the furniture check, which
    judges only lines printed where furniture stands, finds nothing."""
    _, pages = text_pages(read_source(CONTENTS_SPEECH))
    furniture = page_furniture(pages)
    headers = {_squash(p["header"]) for p in CONTENTS_GOLD["furniture"]}
    entries = {_squash(e) for e in CONTENTS_GOLD["contents"]}
    assert furniture.section_headers == headers
    assert not entries & set().union(*furniture.page_lines), "a contents entry taken for furniture"
    contents_page = pages[CONTENTS_GOLD["furniture"][0]["page"] - 1]
    assert [_squash(ln) for ln in contents_page.cleaned.split("\n")[1:]] == [
        _squash(e) for e in CONTENTS_GOLD["contents"]
    ]
    paper = chunk_paper(CONTENTS_SPEECH, strategy, Settings(), use_llm=False)
    check = next(c for c in paper.checks if c.name == "no_footer_leaked")
    assert check.passed, check.line()
    # the question strategy never chunks the contents page; token windows read it
    # as text (their contents skip is off: it cost held-out questions, see token_chunking.py)
    chunked = {_squash(ln) for r in paper.records for ln in r.text.split("\n")}
    assert not entries & chunked if strategy is Strategy.question else entries <= chunked
    # chunks of the raw pages still fail the check, on the running headers and numbers only
    records = [
        {
            "id": f"speech:token:{p.number}",
            "text": p.raw,
            "metadata": {"page_start": p.number, "page_end": p.number, "token_count": 10},
        }
        for p in pages
    ]
    leaky = next(
        c
        for c in paper_checks(records, paper_facts(pages, [], strategy, Settings()))
        if c.name == "no_footer_leaked"
    )
    assert not leaky.passed and {_squash(e["line"]) for e in leaky.details["examples"]} <= headers | {
        str(n) for n in range(1, 40)
    }


def _pages(texts: list[str]) -> list[Page]:
    return clean_pages([Page(number=n, raw=t) for n, t in enumerate(texts, start=1)])


def test_a_first_line_that_changes_with_every_page_is_content() -> None:
    """A page number in sequence at the top, then the page's own first sentence: the number
    goes, the sentence (never repeated on other pages) stays."""
    topics = [
        "排水系統",
        "安置補償",
        "網約車規管",
        "長者津貼",
        "工地安全",
        "公共交通",
        "房屋供應",
        "醫療服務",
    ]
    bodies = [f"{topic}方面，政府會繼續推行各項措施。\n{topic}的詳情如下。" for topic in topics]
    pages = _pages([f"{n}\n{body}" for n, body in enumerate(bodies, start=1)])
    assert [p.cleaned for p in pages] == bodies


def test_numbers_out_of_step_with_the_pages_make_no_layout() -> None:
    """Counts or table cells at the top of pages are not in step with the page numbers: no
    page-number layout is learned, and no line beside them becomes a section header."""
    topics = ["排水系統", "安置補償", "網約車規管", "長者津貼", "工地安全", "公共交通"]
    texts = [f"經濟回顧\n{v}\n{topic}的正文內容。" for v, topic in zip([120, 7, 45, 3000, 18, 2], topics)]
    furniture = page_furniture([Page(number=n, raw=t) for n, t in enumerate(texts, start=1)])
    assert furniture.top is None and not furniture.section_headers


def test_a_header_under_the_number_at_the_bottom_edge_is_learned_too() -> None:
    """The same layout at the bottom edge (number, then the chapter title below it)."""
    chapters = ["經濟回顧"] * 3 + ["公共財政"] * 3
    topics = ["排水系統", "安置補償", "網約車規管", "長者津貼", "工地安全", "公共交通"]
    texts = [
        f"{topic}的正文內容，說明措施的詳情。\n{n + 10}\n{title}"
        for n, (topic, title) in enumerate(zip(topics, chapters), start=1)
    ]
    pages = _pages(texts)
    assert [p.cleaned for p in pages] == [f"{topic}的正文內容，說明措施的詳情。" for topic in topics]


def test_a_chunk_s_own_heading_path_is_never_furniture() -> None:
    """A narrative chunk starts with its section path; a chapter title that is also the
    running header is the chunk's heading there, not a leaked header."""
    facts = PaperFacts([1], 100, running_headers=frozenset({"引言"}), section_headers=frozenset({"引言"}))
    record = {
        "id": "s:question:0",
        "text": "引言\n1. 政府會繼續推行各項措施。",
        "metadata": {"page_start": 1, "page_end": 1, "token_count": 9, "section_path": ["引言"]},
    }
    assert next(c for c in paper_checks([record], facts) if c.name == "no_footer_leaked").passed
    leaked = {**record, "text": record["text"] + "\n引言\n2\n2. 其後的段落。"}
    assert not next(c for c in paper_checks([leaked], facts) if c.name == "no_footer_leaked").passed


def test_a_header_and_its_page_number_on_one_line_are_learned() -> None:
    """Some PDFs give the running title and the page number as one line (``經濟回顧 12``):
    the number in step with the pages and the title repeating make it furniture, either way
    round; a page's own first line that starts with a number never repeats, so it stays."""
    chapters = ["經濟回顧"] * 4 + ["公共財政"] * 4
    topics = [
        "排水系統",
        "安置補償",
        "網約車規管",
        "長者津貼",
        "工地安全",
        "公共交通",
        "房屋供應",
        "醫療服務",
    ]
    texts = [
        (f"{title} {n + 2}" if n % 2 else f"{n + 2} {title}")
        + f"\n{topic}方面，政府會繼續推行各項措施。\n詳情見附件。"
        for n, (title, topic) in enumerate(zip(chapters, topics), start=1)
    ]
    pages = _pages(texts)
    assert [p.cleaned.split("\n")[0] for p in pages] == [f"{t}方面，政府會繼續推行各項措施。" for t in topics]
    assert page_furniture([Page(number=n, raw=t) for n, t in enumerate(texts, start=1)]).section_headers == {
        "經濟回顧",
        "公共財政",
    }
    questions = [
        f"{n} {topic}的申請資格為何？\n{topic}的申請人須為香港居民。"
        for n, topic in enumerate(topics, start=1)
    ]
    assert [p.cleaned for p in _pages(questions)] == questions  # numbered questions, one per page


def test_a_two_page_papers_footer_with_its_page_number_is_learned() -> None:
    """Two pages are too few to learn a layout from repetition, but a footer that prints each
    page's own number in step, alone or after the same text (``… Page 1 of 2``,
    ``RVD/PUB/R12 (Rev. 01/2025) 2``), is furniture; a number out of step is not."""
    for footer in ("Last updated: 15 January 2025 Page {n} of 2", "RVD/PUB/R12 (Rev. 01/2025) {n}", "{n}"):
        texts = [
            f"Answer text of page {n}, which runs to the end of the page.\n{footer.format(n=n)}"
            for n in (1, 2)
        ]
        assert [p.cleaned for p in _pages(texts)] == [
            f"Answer text of page {n}, which runs to the end of the page." for n in (1, 2)
        ], footer
    out_of_step = [f"Answer text of page {n}.\nRoom {room}" for n, room in ((1, 7), (2, 3))]
    assert [p.cleaned for p in _pages(out_of_step)] == out_of_step
