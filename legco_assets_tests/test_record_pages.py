"""A Council record saved as plain text keeps its page tops inline (running header, page
number); read, it is its printed pages, and the cleaner drops the furniture."""

from __future__ import annotations

from pathlib import Path

from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.read.record_pages import printed_pages
from legco_assets.core.records import DocumentText
from legco_assets.core.structure import detect_structure

HEADER = "立法會  ─  2013年 6月 5日  "


def record(first_page: int = 9301) -> str:
    """A record's text the way the Official Record's .txt prints it: each page opens with the
    running header, a blank line and the page number; a reply falls right after a page top."""
    body = [
        "議員質詢的口頭答覆\n\n主席：第一項質詢。\n\n青少年沉迷於暴力電子遊戲的問題\n\n"
        "1. 廖長江議員：據報，近期發生數宗倫常兇殺案。政府可否告知本會：\n(一) 有否進行專題研究；及\n"
        "(二) 會否加強輔導？",
        "勞工及福利局局長：主席，青少年上網及電子遊戲成癮的問題涉及不同政策局的\n範疇。我的答覆如下：\n"
        "(一) 政府沒有進行專題研究。\n(二) 教育局會繼續為學校提供支援。",
        "主席：第二項質詢。\n\n單車政策\n\n2. 胡志偉議員：主席，政府會否推廣單車？",
        "運輸及房屋局局長：主席，政府會在新市鎮推廣單車，並增設泊位。",
    ]
    return "".join(f"{HEADER}\n \n{first_page + n} \n{text}\n \n" for n, text in enumerate(body))


def test_a_text_record_is_read_as_its_printed_pages(tmp_path: Path) -> None:
    path = tmp_path / "12-13-cm0605-translate-c.txt"
    path.write_text(record(), encoding="utf-8")
    pages = clean_pages(extract_document(read_source(path)).pages)
    assert len(pages) == 4
    assert all(not p.cleaned.startswith("立法會") and "9302" not in p.cleaned for p in pages)
    assert pages[1].cleaned.startswith("勞工及福利局局長：主席，青少年上網")
    doc = DocumentText.from_pages(pages)
    first, second = [s for s in detect_structure(doc) if s.type == "qa" and s.question_kind == "main"]
    assert first.question.endswith("(二) 會否加強輔導？") and first.answer.startswith("主席，青少年上網")
    assert (first.start_page, first.end_page) == (1, 2) and second.start_page == 3
    assert "立法會" not in first.text + second.text


def test_repeated_lines_beside_numbers_out_of_step_are_not_page_tops() -> None:
    """A table's repeated label above its figures is not a page top: the figures do not rise
    page by page, so the text stays one page."""
    rows = "\n".join(f"總數\n{n}\n說明文字第{k}段。" for k, n in enumerate([42, 7, 1200, 3, 99]))
    assert printed_pages(rows) is None
    assert printed_pages(record().replace(HEADER, "", 1)) is not None  # a top lost: still pages
    assert printed_pages("一行文字\n" * 10) is None


def test_an_appendix_numbers_its_pages_by_itself() -> None:
    """After the record's last page the appendix counts A1, A2…: still page tops."""
    text = (
        record(9553) + f"{HEADER}\n \nA1 \n附錄 I\n\n書面答覆\n \n{HEADER}\n \nA2 \n教育局局長的書面答覆。\n"
    )
    pages = printed_pages(text)
    assert pages is not None and len(pages) == 6 and pages[4].split("\n")[2].strip() == "A1"
