"""Tables as data (core/tables/typed.py): cells read as numbers, money, percentages, years
and dates; every fixture table typed with the gold's numbers; the real corpus's tables the
chunks hold, each a typed table with the same rows, and its numeric cells parsed."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from legco_assets.core.chunking import TokenChunkingStrategy
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import Table
from legco_assets.core.settings import Settings
from legco_assets.core.tables import find_tables
from legco_assets.core.tables.typed import (
    column_type,
    from_parquet,
    parse_cell,
    to_csv,
    to_frame,
    to_parquet,
    type_table,
    typed_tables,
    unit_of,
)

FIXTURES = Path(__file__).parent / "fixtures" / "pdfs"
PAPERS = ["paper_a_tables", "paper_b_speaking_notes", "paper_e_qa", "paper_l_faq"]
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
REAL_PDFS = sorted(CORPUS.rglob("*.pdf")) if CORPUS.is_dir() else []


# -- one cell ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("printed", "kind", "value"),
    [
        ("1,240", "integer", 1240),
        ("12 400", "integer", 12400),
        ("12\u2009400", "integer", 12400),
        ("1\u2009265.4", "decimal", 1265.4),
        ("$4,390", "currency", 4390),
        ("HK$1.2 billion", "currency", 1.2e9),
        ("60%", "percent", 60),
        ("(12.5)", "decimal", -12.5),
        ("-53.1", "decimal", -53.1),
        ("+149.0", "decimal", 149.0),
        ("2019/20", "financial_year", "2019-20"),
        ("2019-20", "financial_year", "2019-20"),
        ("2024", "year", 2024),
        ("2025年4月1日", "date", "2025-04-01"),
        ("2024年1月", "date", "2024-01"),
        ("1 February 2025", "date", "2025-02-01"),
        ("-", "missing", None),
        ("—", "missing", None),
        ("N.A.", "missing", None),
        ("不適用", "missing", None),
        ("A1", "text", None),
        ("$100,000 and 2 years", "text", None),
        ("(12.5", "text", None),
        ("1,240#", "integer", 1240),
        ("(23,118) @", "integer", -23118),
        ("85.5^", "decimal", 85.5),
        ("-*", "missing", None),
        ("#", "text", None),
        ("$18,000 × 2/3 × 5 years = $60,000", "currency", 60000),
        ("$50,000 – $0 = $50,000", "currency", 50000),
        ("$90,000 = $54,000 $90,000 - $54,000 = $36,000", "text", None),
    ],
)
def test_a_printed_cell_is_read_as_its_kind(printed: str, kind: str, value: object) -> None:
    cell = parse_cell(printed)
    assert (cell.kind, cell.value) == (kind, value)


def test_units_come_from_brackets_that_name_one() -> None:
    assert unit_of("核准工程預算（千元）") == "千元"
    assert unit_of("2025-26 ($ million)") == "$ million"
    assert unit_of("按年變動（%）") == "%"
    assert unit_of("表1：開支（單位：百萬元）") == "百萬元"
    assert unit_of("2025-26年度（預算）") is None


def test_a_column_is_the_narrowest_type_most_of_its_cells_share() -> None:
    assert column_type(["year", "year", "missing"]) == ("year", 0)
    assert column_type(["integer", "year"]) == ("integer", 0)
    assert column_type(["integer", "decimal"]) == ("decimal", 0)
    assert column_type(["decimal", "decimal"], "%") == ("percent", 0)
    assert column_type(["currency", "currency", "text"]) == ("currency", 1)
    assert column_type(["text", "text", "integer"]) == ("text", 0)


def test_a_ragged_table_and_a_lost_header_are_named_and_still_printed() -> None:
    table = Table(
        page=1, header=["", ""], rows=[["a", "1"], ["b"], ["c", "x"], ["d", "4"]], markdown="", method="t"
    )
    typed = type_table("doc", 1, [table])
    assert typed.rows[1] == ["b", ""]
    assert any("fewer cells" in p for p in typed.problems)
    assert any("no header" in p for p in typed.problems)
    assert any("not integer" in p for p in typed.problems)
    assert typed.values[2][1] is None and typed.rows[2][1] == "x"


def test_a_header_that_says_what_its_brackets_hold_types_the_figure_before_them() -> None:
    """A Council reply's table: "車輛數目(括號內為車齡達到15年或以上的車輛數目)" prints
    ``18 200 (2 900)``, a count and, in brackets, the older vehicles. Declared so, the
    column is integers of the first figure, the printed text keeps both; undeclared, a
    figure beside a bracketed one is no value (it may be a negative, or a comparison)."""
    rows = [
        ["歐盟II期", "12 800 (2 900)", "6 900"],
        ["歐盟III期", "17 100", "(2 400)"],
        ["總數", "69 700 (21 100)", "5 000"],
    ]
    declared = Table(
        page=1,
        header=["車輛類型", "車輛數目(括號內為車齡達到15年或以上的車輛數目)"],
        rows=[row[:2] for row in rows],
        markdown="",
        method="geometric",
    )
    typed = type_table("doc", 1, [declared])
    assert typed.columns[1].type == "integer"
    assert [row[1] for row in typed.values] == [12800, 17100, 69700]
    assert typed.rows[0][1] == "12 800 (2 900)"
    english = Table(
        page=1,
        header=["Stage", "Vehicles", "Others"],
        rows=rows,
        markdown="",
        method="geometric",
    )
    caption = "Number of vehicles (figures in brackets are those aged 15 years or more)"
    typed = type_table("doc", 2, [english], caption=caption)
    assert [row[1] for row in typed.values] == [12800, 17100, 69700]
    assert (
        typed.values[1][2] is None and typed.rows[1][2] == "(2 400)"
    )  # a bracketed figure alone: no negative
    plain = type_table(
        "doc",
        3,
        [Table(page=1, header=["Stage", "Vehicles"], rows=[r[:2] for r in rows], markdown="", method="g")],
    )
    assert plain.columns[1].type == "text"  # two of three cells are no one figure


def test_a_row_labelled_with_a_unit_in_brackets_holds_its_bracketed_figures_in_that_unit() -> None:
    """A budget sheet prints each caseload with its cost below it, in brackets, the row
    labelled ``($ million)``, each figure with a footnote's mark: the brackets are the
    unit's, not a negative, and the column stays integers."""
    rows = [
        ["CSSA", "20,037", "21,164"],
        ["($ million)", "(22,313)#", "(22,308)^"],
        ["SSA", "18,668", "20,508"],
        ["($ million)*", "(21,673)#", "(22,123) @"],
    ]
    table = Table(
        page=1, header=["", "2015-16 (Actual)", "2016-17 (Actual)"], rows=rows, markdown="", method="g"
    )
    typed = type_table("doc", 1, [table])
    assert [c.type for c in typed.columns[1:]] == ["integer", "integer"]
    assert [row[1] for row in typed.values] == [20037, 22313, 18668, 21673]
    assert typed.rows[1][1] == "(22,313)#" and typed.values[1][0] == "($ million)"
    assert not typed.problems


def test_a_calendar_column_reads_the_day_where_a_new_month_begins() -> None:
    """A calendar's cell where the month turns prints the month beside the day (``1 DEC``,
    ``2月1日``): in a column of days of the month it is that day, its text kept."""
    rows = [["28", "29"], ["1 DEC", "2月1日"], ["8", "9"]]
    table = Table(page=1, header=["SUN", "MON"], rows=rows, markdown="", method="g")
    typed = type_table("doc", 1, [table])
    assert [row for row in typed.values] == [[28, 29], [1, 1], [8, 9]]
    assert typed.rows[1] == ["1 DEC", "2月1日"]
    cases = [["a", "40"], ["b", "1 DEC"], ["c", "35"]]
    counts = Table(page=1, header=["Item", "Cases"], rows=cases, markdown="", method="g")
    assert type_table("doc", 2, [counts]).values[1][1] is None  # 40 and 35 are no days of a month


# -- the fixtures: every gold table, every number --------------------------------------------------
_PLAIN_NUMBER = re.compile(r"^[+\-]?\$?[\d,\u2009 ]+(\.\d+)?%?$")


def gold_number(text: str) -> float | None:
    """The gold cell's number, read here without the code under test."""
    if not _PLAIN_NUMBER.match(text) or not re.search(r"\d", text):
        return None
    return float(re.sub(r"[^\d.\-]", "", text))


def gold_tables(gold: dict) -> dict[str, dict]:
    """Gold tables by id, the parts of a continued table joined."""
    joined: dict[str, dict] = {}
    for part in gold["tables"]:
        table = joined.setdefault(part["table_id"], {"header": part["header"], "rows": [], "pages": []})
        table["rows"] += part["rows"]
        table["pages"].append(part["page"])
    return joined


@pytest.fixture(scope="module")
def fixture_tables() -> dict[str, tuple[list, dict]]:
    out = {}
    for name in PAPERS:
        source = read_source(FIXTURES / f"{name}.pdf")
        pages = clean_pages(extract_document(source).pages)
        found = find_tables(source.data, pages, Settings())
        gold = json.loads((FIXTURES / f"{name}.gold.json").read_text(encoding="utf-8"))
        out[name] = (typed_tables(name, found.tables, pages), gold)
    return out


def _squash(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("name", PAPERS)
def test_every_fixture_table_is_typed_with_the_gold_numbers(fixture_tables, name: str) -> None:
    typed, gold = fixture_tables[name]
    expected = gold_tables(gold)
    assert len(typed) == len(expected)
    by_header = {}
    for table in typed:
        key = (tuple(_squash(c) for c in table.header_rows[0]), _squash(table.rows[0][0] + table.rows[0][-1]))
        by_header[key] = table
    numbers = 0
    for table_id, want in expected.items():
        key = (tuple(_squash(c) for c in want["header"]), _squash(want["rows"][0][0] + want["rows"][0][-1]))
        table = by_header[key]
        assert table.pages == sorted(set(want["pages"])), table_id
        assert [[_squash(c) for c in r] for r in table.rows] == [
            [_squash(c) for c in r] for r in want["rows"]
        ]
        for r, row in enumerate(want["rows"]):
            for k, printed in enumerate(row):
                number = gold_number(printed)
                if number is not None:
                    assert table.values[r][k] == pytest.approx(number), (table_id, printed)
                    numbers += 1
                if month := re.fullmatch(r"(\d{4})年(\d{1,2})月", printed):
                    assert table.values[r][k] == f"{month[1]}-{int(month[2]):02d}", (table_id, printed)
                    numbers += 1
                assert table.rows[r][k].replace(" ", "") == printed.replace("\u2009", "").replace(" ", "")
    assert numbers > 0
    assert len({t.id for t in typed}) == len(typed)


def test_a_unit_printed_in_the_header_is_on_its_column(fixture_tables) -> None:
    typed, _ = fixture_tables["paper_a_tables"]
    first = typed[0]
    assert first.id == "paper_a_tables:table:1"
    assert first.caption.startswith("表1")
    assert [(c.type, c.unit) for c in first.columns[3:]] == [("currency", "千元")] * 2
    assert first.pages == [1, 2] and [p["page"] for p in first.parts] == [1, 2]
    assert all(p["bbox"] for p in first.parts)


def test_the_same_tables_typed_again_get_the_same_ids_and_values(fixture_tables) -> None:
    typed, _ = fixture_tables["paper_l_faq"]
    source = read_source(FIXTURES / "paper_l_faq.pdf")
    pages = clean_pages(extract_document(source).pages)
    again = typed_tables("paper_l_faq", find_tables(source.data, pages, Settings()).tables, pages)
    assert [t.to_dict() for t in again] == [t.to_dict() for t in typed]


def test_parquet_pandas_and_csv_hold_the_typed_values_and_the_printed_text(fixture_tables) -> None:
    typed, _ = fixture_tables["paper_l_faq"]
    rates = next(t for t in typed if t.columns[1].name == "Monthly rate ($)")
    frame = from_parquet(to_parquet(rates))
    assert list(frame["Monthly rate ($)"])[:2] == [1675, 4390]
    assert list(frame["Monthly rate ($) (printed)"])[:2] == ["$1,675", "$4,390"]
    assert list(frame["Effective date"])[0] == "2025-02-01"
    assert str(to_frame(rates)["Monthly rate ($)"].dtype) == "Int64"
    assert str(frame["Monthly rate ($)"].dtype) == "Int64"  # pandas reads back its own types
    schema = pq.read_schema(io.BytesIO(to_parquet(rates)))
    assert schema.field("Monthly rate ($)").metadata[b"type"] == b"currency"
    assert schema.metadata[b"id"] == rates.id.encode()
    assert to_csv(rates).splitlines()[1] == "Old Age Allowance," + '"$1,675"' + ",1 February 2025"


# -- the real corpus: the chunks' tables are the typed tables -----------------------------------
def _table_lines(text: str) -> set[str]:
    lines = text.split("\n")
    return {line for line in lines[1:-1] if line.startswith("| ") and line.endswith(" |")}


@pytest.mark.parametrize("path", REAL_PDFS, ids=[p.name for p in REAL_PDFS])
def test_every_table_the_chunks_hold_is_a_typed_table_with_the_same_rows(path: Path) -> None:
    source = read_source(path)
    pages = clean_pages(extract_document(source).pages)
    tables = find_tables(source.data, pages, Settings()).tables
    typed = typed_tables(path.stem, tables, pages)
    chunks = TokenChunkingStrategy().chunk(path.stem, pages, None, tables)
    held = set().union(*(_table_lines(c.text) for c in chunks)) if chunks else set()
    typed_lines: set[str] = set()
    rows = 0
    for table in typed:
        header = [" ".join(dict.fromkeys(c for c in column.header if c)) for column in table.columns]
        markdown = to_markdown(header, table.rows)
        typed_lines |= set(markdown.split("\n"))
        rows += len(table.rows)
    lost = {line for line in held - typed_lines if not line.startswith("|---")}
    assert not lost, f"{path.name}: chunk table lines in no typed table: {sorted(lost)[:3]}"
    looking = sum(t.numeric_cells()[0] for t in typed)
    parsed = sum(t.numeric_cells()[1] for t in typed)
    several = sum(t.several_number_cells() for t in typed)
    held = sum(t.numeric_values() for t in typed)
    print(
        f"{path.name}: {len(typed)} tables, {rows} rows, {parsed}/{looking} numeric cells parsed, "
        f"{held}/{looking + several} held as values in their typed columns"
    )
    assert parsed >= 0.95 * looking
    assert held >= 0.95 * (looking + several)  # a cell printing several numbers counts as lost
