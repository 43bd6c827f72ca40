"""A chunk's pages point at its question: ``page_start`` is where the question (or the part
of it that the chunk repeats) is printed, ``page_end`` where the chunk's own text ends; a
later piece whose own reply starts two or more pages after that starts there (the
pages between carry none of its text, and the first piece covers them).

Why it matters: a written Council reply cut at its parts used to start each part's pages
where the reply part is printed, so a question printed alone on a page (the 2012 Hansard's
written question 14 on page 90) was in no chunk's page range and ``every_page_covered``
failed in Dagster although the text was chunked.
"""

from __future__ import annotations

import pytest

from legco_assets.core.chunking import QuestionChunkingStrategy
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import Chunk, DocumentText, Page
from legco_assets.core.settings import Settings
from legco_assets.core.structure import find_structure

from .conftest import CORPUS


def _filler(first: int) -> str:
    """About 400 tokens of reply that never repeats itself (so each line is found once)."""
    return "".join(f"第{n}項措施已於去年推行，涉及{n * 37}宗個案。" for n in range(first, first + 25))


# a written question printed on page 1 (its parts over pages 1 and 2), the reply's parts on
# pages 3 and 4: as the Official Record prints a long written reply
WRITTEN_PAGES = [
    "議員質詢的書面答覆\n殮葬服務\n14. 梁國雄議員：主席，就殮葬服務，政府可否告知本會：\n(一) 輪候預訂火葬時段的情況為何；",
    "(二) 殮葬費津貼的金額為何；及\n(三) 會否增建靈灰龕位？",
    f"食物及衞生局局長：主席，現答覆如下：\n(一) 去年共有2 000宗預訂。{_filler(100)}",
    f"(二) 津貼金額為每宗3,000元。{_filler(200)}\n(三) 當局會增建龕位。{_filler(300)}\n"
    "防止個人資料外泄\n15. 葛珮帆議員：主席，警方會否加強保安？\n保安局局長：主席，會。\n提交文件",
]


def _chunks(pages: list[str], max_tokens: int = 1000) -> list[Chunk]:
    numbered = [Page(number=n, raw=text, cleaned=text) for n, text in enumerate(pages, start=1)]
    sections = find_structure(numbered, Settings()).sections
    doc = DocumentText.from_pages(numbered)
    return QuestionChunkingStrategy(max_tokens=max_tokens).chunk_text("h", doc, sections)


def test_written_reply_parts_start_on_their_question_parts_page() -> None:
    parts = [c for c in _chunks(WRITTEN_PAGES) if c.question_id == "14"]
    assert [c.part for c in parts] == [1, 2, 3]
    first, second, third = parts
    assert first.text.startswith("14. 梁國雄議員：(一) 輪候預訂") and first.page_start == 1
    # parts (二) and (三) of the question are printed on page 2, their replies from page 4 on
    assert second.text.startswith("14. 梁國雄議員：(二) 殮葬費") and second.page_start == 4
    assert third.text.startswith("14. 梁國雄議員：(三) 會否增建") and third.page_start == 4
    # each ends where its reply part ends: (一) on page 3, (二) and (三) on page 4
    assert (first.page_end, second.page_end, third.page_end) == (3, 4, 4)
    covered = {p for c in parts for p in range(c.page_start, c.page_end + 1)}
    assert covered == {1, 2, 3, 4}


def test_reply_that_fits_keeps_the_question_s_first_page() -> None:
    (pair,) = [c for c in _chunks(WRITTEN_PAGES, max_tokens=8000) if c.question_id == "14"]
    assert (pair.page_start, pair.page_end, pair.part) == (1, 4, None)


real = pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")


@real
def test_real_hansard_written_question_14_points_at_page_90() -> None:
    """Question 14 starts on page 90 and is answered from page 91 on: the first part's chunk
    starts on the question's page, so page 90 is covered; a later part starts on the page of
    the question part it repeats, or where its own reply starts when that is 2+ pages on."""
    path = CORPUS / "legco/hansard_20121121_translate-c.pdf"
    pages = clean_pages(extract_document(read_source(path)).pages)
    sections = find_structure(pages, Settings()).sections
    chunks = QuestionChunkingStrategy().chunk_text("h", DocumentText.from_pages(pages), sections)
    q14 = [c for c in chunks if c.question_id == "14"]
    assert len(q14) > 1 and q14[0].page_start == 90
    assert all(c.page_start <= c.page_end and c.page_start >= 90 for c in q14)
    assert max(c.page_end for c in q14) >= 94
    covered = {p for c in q14 for p in range(c.page_start, c.page_end + 1)}
    assert covered == set(range(90, max(covered) + 1))  # no page of the pair left out
    for chunk in q14[1:]:
        if chunk.page_start > 91:  # its own reply is printed there
            lines = [ln.strip()[:20] for ln in chunk.text.split("\n") if len(ln.strip()) >= 8]
            assert any(ln in pages[chunk.page_start - 1].cleaned for ln in lines), chunk.part
    split = [c for c in chunks if c.parts]
    assert all(c.page_start <= c.page_end for c in split)
