"""The search page's marks (service/marking.py): what the query shares with a passage, and
no more: a number is marked whole, not inside a longer one."""

from __future__ import annotations

from legco_assets.service.marking import marked_html, query_terms, spans


def test_a_number_is_marked_whole_not_inside_a_longer_number() -> None:
    text = "CSSA in 2019-20 rose; 2020-21 has 1 200 places and 20 more."
    marked = marked_html(text, "CSSA caseload 2019-20")
    assert "<mark>2019</mark>-<mark>20</mark>" in marked
    assert "2020-21" in marked and "1 200" in marked and "<mark>20</mark> more" in marked
    assert "<mark>CSSA</mark>" in marked


def test_words_keep_their_endings_and_chinese_is_marked_by_shared_pairs() -> None:
    assert spans("Allowances paid", query_terms("allowance")) == [(0, 10)]
    marked = marked_html("政府會為最低工資作檢討", "最低工資點樣計")
    assert "<mark>最低工資</mark>" in marked
