"""Cleaning: page furniture out of the cleaned text (kept in raw), real-world repairs."""

from __future__ import annotations

from legco_assets.core.read import clean_pages, clean_text
from legco_assets.core.records import Page


def _pages(*texts: str) -> list[Page]:
    return clean_pages([Page(number=i + 1, raw=t) for i, t in enumerate(texts)])


def test_footer_label_and_date_removed_but_kept_in_raw() -> None:
    pages = _pages(
        "(E)\n問 A1：排水系統的容量？\n答 A1：容量足夠。\nE-1\n2025-05-15", "答案續。\nE-2\n2025-05-15"
    )
    assert pages[0].cleaned == "問 A1：排水系統的容量？\n答 A1：容量足夠。"
    assert pages[1].cleaned == "答案續。"
    assert "E-1" in pages[0].raw and "2025-05-15" in pages[0].raw


def test_corner_header_only_stripped_on_page_one() -> None:
    pages = _pages("(E)\n標題", "(E)\n內容")
    assert pages[0].cleaned == "標題"
    assert pages[1].cleaned == "(E)\n內容"


def test_footer_that_lands_at_top_of_next_page_and_spaced_digits() -> None:
    pages = _pages("1 How to apply?\nAnswer text.", "2 0 9 / 2 0 2 5\n3 Another question?\nMore.")
    assert pages[1].cleaned == "3 Another question?\nMore."


def test_two_up_page_numbers_and_dash_marks() -> None:
    pages = _pages("46 47\nChapter text here.", "- 2 -\nMore text.", "4747\nLast text.")
    assert [p.cleaned for p in pages] == ["Chapter text here.", "More text.", "Last text."]


def test_running_header_repeated_on_most_pages_is_removed() -> None:
    bodies = [
        "排水系統的正文內容。",
        "安置補償的正文內容。",
        "網約車規管正文內容。",
        "長者津貼的正文內容。",
        "工地安全的正文內容。",
        "公共交通正文內容。",
    ]
    texts = [
        f"立法會 ─ 2012年11月21日 {1495 + i}\n{body}"
        if i % 2
        else f"{1495 + i} 立法會 ─ 2012年11月21日\n{body}"
        for i, body in enumerate(bodies)
    ]
    pages = _pages(*texts)
    assert all("立法會" not in p.cleaned for p in pages)
    assert all("正文內容" in p.cleaned for p in pages)


def test_numbers_in_the_body_are_not_furniture() -> None:
    pages = _pages("第一段。\n2024\n第二段。\nE-1", "正文\n15\n結尾\nE-2")
    assert "2024" in pages[0].cleaned and "15" in pages[1].cleaned


def test_letter_spaced_chinese_is_joined_and_stroke_one_fixed() -> None:
    text = "1 新 規 定 如 何 操 作 ？\n根 據 《 僱 傭 條 例 》， 僱 員 連 續 受 僱 於 同 ㇐ 僱 主"
    assert clean_text(text) == "1 新規定如何操作？\n根據《僱傭條例》，僱員連續受僱於同一僱主"


def test_normal_chinese_with_spaces_between_cells_is_left_alone() -> None:
    text = "本段是正常的中文段落，沒有字距問題，只有 一 處空格。" * 3
    assert clean_text(text) == text


def test_annex_pages_running_header_with_page_label_is_removed() -> None:
    bodies = ["排水系統的正文內容。", "安置補償的正文內容。", "網約車規管正文內容。", "長者津貼的正文內容。"]
    texts = [f"立法會 ─ 2012年11月21日 {1495 + i}\n{b}" for i, b in enumerate(bodies)]
    texts += [
        "立法會 ─ 2012年11月21日 A1\n附錄I\n書面答覆的內容。",
        "A2 立法會 ─ 2012年11月21日\n附錄的第二頁內容。",
    ]
    pages = _pages(*texts)
    assert all("立法會 ─" not in p.cleaned for p in pages)
    assert pages[4].cleaned.startswith("附錄I")
