"""embed_tables / embed_tables_in_pages / split_markdown_table on hand-made texts."""

from __future__ import annotations

from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.records import Page, Table
from legco_assets.core.tables import (
    embed_tables,
    embed_tables_in_pages,
    locate_table,
    split_markdown_table,
    stitch,
    table_chains,
)
from legco_assets.core.tokens import count_tokens


def make_table(
    page: int, header: list[str], rows: list[list[str]], cont: bool = False, top: float = 100.0
) -> Table:
    return Table(
        page=page,
        header=header,
        rows=rows,
        markdown=to_markdown(header, rows),
        method="geometric",
        bbox=[50.0, top, 500.0, top + 100.0],
        continues_from_previous=cont,
    )


HEADER = ["年份", "申請數目", "獲批數目"]
ROWS = [["2022", "11 991", "1 109"], ["2023", "12 005", "1 600"]]


def test_embeds_cell_per_line_text_in_place() -> None:
    text = "答 A1：有關數字如下：\n年份\n申請數目\n獲批數目\n2022\n11 991\n1 109\n2023\n12 005\n1 600\n以上數字為臨時數字。"
    table = make_table(3, HEADER, ROWS)
    new, n = embed_tables(text, [table])
    assert n == 1
    assert new == (
        "答 A1：有關數字如下：\n\n"
        "| 年份 | 申請數目 | 獲批數目 |\n|---|---|---|\n| 2022 | 11 991 | 1 109 |\n| 2023 | 12 005 | 1 600 |"
        "\n\n以上數字為臨時數字。"
    )


def test_thin_spaces_letter_spacing_and_split_cells_still_match() -> None:
    # thin space inside numbers, a cell broken over two lines, several cells on one line
    text = "前言\n年 份   申請\n數目  獲批數目\n2022 11\u2009991 1\u2009109\n2023\n12 005\n1 600\n完"
    new, n = embed_tables(text, [make_table(1, HEADER, ROWS)])
    assert n == 1
    assert new.startswith("前言\n\n| 年份 | 申請數目 | 獲批數目 |")
    assert new.endswith("| 2023 | 12 005 | 1 600 |\n\n完")


def test_cells_in_another_order_match_as_whole_lines() -> None:
    # column-major text order (some PDFs emit columns one after another)
    text = "before\n年份\n2022\n2023\n申請數目\n11 991\n12 005\n獲批數目\n1 109\n1 600\nafter"
    new, n = embed_tables(text, [make_table(1, HEADER, ROWS)])
    assert n == 1
    assert new == "before\n\n" + to_markdown(HEADER, ROWS) + "\n\nafter"


def test_table_not_in_text_is_left_alone() -> None:
    text = "nothing tabular here\n2022"
    assert embed_tables(text, [make_table(1, HEADER, ROWS)]) == (text, 0)
    assert locate_table(text, make_table(1, HEADER, ROWS)) is None


def test_continued_table_is_stitched_with_header_once() -> None:
    first = make_table(3, HEADER, ROWS)
    # the continuation page repeats the header
    second = make_table(4, HEADER, [["2024", "13 100", "2 000"]], cont=True, top=60)
    page3 = "答：\n年份\n申請數目\n獲批數目\n2022\n11 991\n1 109\n2023\n12 005\n1 600"
    page4 = "年份\n申請數目\n獲批數目\n2024\n13 100\n2 000\n問 A2：下一題"
    new, n = embed_tables(page3 + "\n\n" + page4, [first, second])
    assert n == 1
    stitched = to_markdown(HEADER, ROWS + [["2024", "13 100", "2 000"]])
    assert new == "答：\n\n" + stitched + "\n\n問 A2：下一題"
    assert new.count("年份") == 1


def test_continuation_without_repeated_header() -> None:
    first = make_table(3, HEADER, ROWS)
    second = make_table(4, HEADER, [["2024", "13 100", "2 000"]], cont=True, top=60)
    text = (
        "答：\n年份\n申請數目\n獲批數目\n2022\n11 991\n1 109\n2023\n12 005\n1 600\n\n2024\n13 100\n2 000\n完"
    )
    new, n = embed_tables(text, [first, second])
    assert n == 1
    assert new == "答：\n\n" + to_markdown(HEADER, ROWS + [["2024", "13 100", "2 000"]]) + "\n\n完"


def test_only_one_part_in_text_gets_its_own_markdown() -> None:
    first = make_table(3, HEADER, ROWS)
    second = make_table(4, HEADER, [["2024", "13 100", "2 000"]], cont=True, top=60)
    only_second = "2024\n13 100\n2 000\n問 A2"
    new, n = embed_tables(only_second, [first, second])
    assert n == 1
    assert new == to_markdown(HEADER, [["2024", "13 100", "2 000"]]) + "\n\n問 A2"
    only_first = "答：\n年份\n申請數目\n獲批數目\n2022\n11 991\n1 109\n2023\n12 005\n1 600"
    new, n = embed_tables(only_first, [first, second])
    assert (new, n) == ("答：\n\n" + to_markdown(HEADER, ROWS), 1)


def test_chains_need_next_page_and_same_width() -> None:
    a = make_table(1, ["a", "b"], [["1", "2"]])
    b = make_table(2, ["a", "b"], [["3", "4"]], cont=True)
    c = make_table(4, ["a", "b"], [["5", "6"]], cont=True)  # page gap: not a continuation
    d = make_table(5, ["a", "b", "c"], [["7", "8", "9"]], cont=True)  # other width
    chains = table_chains([d, c, b, a])
    assert [[t.page for t in chain] for chain in chains] == [[1, 2], [4], [5]]
    assert stitch([a, b]).rows == [["1", "2"], ["3", "4"]]


def test_embed_tables_in_pages_moves_continuation_to_first_page() -> None:
    first = make_table(1, HEADER, ROWS)
    second = make_table(2, HEADER, [["2024", "13 100", "2 000"]], cont=True, top=60)
    pages = [
        Page(1, "raw1", "答：\n年份\n申請數目\n獲批數目\n2022\n11 991\n1 109\n2023\n12 005\n1 600"),
        Page(2, "raw2", "2024\n13 100\n2 000\n問 A2：下一題"),
        Page(3, "raw3", "no tables"),
    ]
    out = embed_tables_in_pages(pages, [first, second])
    assert out[0].cleaned == "答：\n\n" + to_markdown(HEADER, ROWS + [["2024", "13 100", "2 000"]])
    assert out[1].cleaned == "問 A2：下一題"
    assert out[2] == pages[2]
    assert [p.raw for p in out] == ["raw1", "raw2", "raw3"]


def test_two_identical_tables_each_replaced_once() -> None:
    t1 = make_table(1, ["x", "y"], [["10", "20"]], top=100)
    t2 = make_table(1, ["x", "y"], [["10", "20"]], top=400)
    text = "A\nx\ny\n10\n20\nB\nx\ny\n10\n20\nC"
    new, n = embed_tables(text, [t1, t2])
    assert n == 2
    assert new == "A\n\n| x | y |\n|---|---|\n| 10 | 20 |\n\nB\n\n| x | y |\n|---|---|\n| 10 | 20 |\n\nC"


def test_split_markdown_table_keeps_small_tables_whole() -> None:
    md = to_markdown(HEADER, ROWS)
    assert split_markdown_table(md, 1000) == [md]


def test_split_markdown_table_repeats_header() -> None:
    rows = [[str(i), f"項目 {i} 的說明文字", f"{i * 1000:,}"] for i in range(200)]
    md = to_markdown(["編號", "說明", "金額"], rows)
    pieces = split_markdown_table(md, 300)
    assert len(pieces) > 1
    head = md.split("\n")[:2]
    body: list[str] = []
    for piece in pieces:
        lines = piece.split("\n")
        assert lines[:2] == head
        assert count_tokens(piece) <= 300
        body.extend(lines[2:])
    assert body == md.split("\n")[2:]
