"""Tables as data: one typed table per printed table, its cells read as numbers, money,
percentages, years and dates, the printed text kept beside every value.

Why here, apart from the Markdown: a chunk holds a table as text for retrieval; a person or
an assistant asking "how much in 2024-25?" wants the numbers, typed, with their unit. The
functions are pure (no files): :func:`typed_tables` makes the tables of a paper from what
``page_tables`` found, joining the parts of a table printed over a page break by the rule
the chunks use (:func:`.weave.table_chains`, :func:`.weave.stitch`), so each table the
chunks hold is one typed table with the same rows.

A column's type is the one kind its cells share (missing cells aside): ``integer``,
``decimal``, ``currency``, ``percent``, ``year``, ``financial_year``, ``date``, else
``text``. A column whose cells are mostly one numeric kind but not all is typed by the
majority, the others left without a value (their printed text stays), and the table says
so in ``problems`` (the ``page_tables`` check warns, never fails the paper).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from ..artifacts import TABLE_INDEX, Artifacts
from ..markers import MONTHS
from ..records import Page, Table
from ..storage import write_whole
from .weave import TextIndex, locate_table, stitch, table_chains, text_index

# -- one cell ------------------------------------------------------------------------------------
MISSING = {"", "-", "–", "—", "－", "―", "‐", "−", "n.a.", "n/a", "na", "n.a", "不適用", "不適用。", "*", "/"}
_SPACES = re.compile(r"[\s\u00a0\u2009\u202f\u2007\u3000]+")
_MINUS = "-−–－"
_NUMBER = re.compile(
    r"^(?P<sign>[+\-−–－])?(?P<open>\()?\s*(?P<cur>(?:HK|US|RMB)?\$)?\s*"
    r"(?P<num>\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\.?\s*"
    r"(?P<scale>million|billion|thousand|bn|m|百萬|億|萬|千)?\s*(?P<pct>%)?\s*(?P<close>\))?$",
    re.IGNORECASE,
)
_SCALES = {
    "thousand": 1e3,
    "千": 1e3,
    "萬": 1e4,
    "million": 1e6,
    "m": 1e6,
    "百萬": 1e6,
    "億": 1e8,
    "billion": 1e9,
    "bn": 1e9,
}
_YEAR = re.compile(r"^(?P<y>(?:19|20)\d{2})\s*年?(?:度)?$")
_FINANCIAL_YEAR = re.compile(r"^(?P<y>(?:19|20)\d{2})\s*[/\-–]\s*(?P<z>\d{2}|(?:19|20)\d{2})\s*(?:年度)?$")
_DATE_ZH = re.compile(r"^(?P<y>(?:19|20)\d{2})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*日)?$")
_DATE_DMY = re.compile(r"^(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]+)\.?,?\s+(?P<y>(?:19|20)\d{2})$")
_DATE_MY = re.compile(r"^(?P<mon>[A-Za-z]+)\.?\s+(?P<y>(?:19|20)\d{2})$")
_DATE_MDY = re.compile(r"^(?P<mon>[A-Za-z]+)\.?\s+(?P<d>\d{1,2}),?\s+(?P<y>(?:19|20)\d{2})$")
_DAY_ZH = re.compile(r"^(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*日$")
_DAY_EN = re.compile(r"^(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]+)\.?$")
_DATE_NUMERIC = re.compile(r"^(?P<d>\d{1,2})[/.](?P<m>\d{1,2})[/.](?P<y>(?:19|20)\d{2})$")
_DATE_ISO = re.compile(r"^(?P<y>(?:19|20)\d{2})-(?P<m>\d{1,2})-(?P<d>\d{1,2})$")
# a footnote's mark printed after a figure ("(22,313)#", "1,240 *", "85.5^"): the figure is the value
_FOOTNOTE_MARK = re.compile(r"\s*[#^@*†‡§¶]+$")
# a worked calculation ("$18,000 × 2/3 × 5 years = $60,000"): its value is what it equals
_CALCULATION = re.compile(r"^[^=]*[×x*+\-–−÷/][^=]*=\s*(?P<result>[^=]+)$")

NUMERIC_KINDS = ("integer", "decimal", "currency", "percent")


@dataclass(frozen=True)
class Cell:
    """One cell read: its ``kind`` (``missing``, ``text`` or a column type) and ``value``
    (int, float or an ISO string; None when missing or text). ``unit``: what the cell
    printed beside its number (``$``, ``HK$``, ``%``)."""

    kind: str
    value: Any = None
    unit: str | None = None


def clean(text: str) -> str:
    """One line, single spaces (thin and no-break spaces count as spaces)."""
    return _SPACES.sub(" ", str(text)).strip()


def parse_cell(text: str) -> Cell:
    """What a printed cell holds. ``1 240`` and ``1,240`` are 1240; ``(12.5)`` and
    ``-12.5`` are -12.5; ``$4,390`` is currency 4390 (unit ``$``); ``HK$1.2 billion`` is
    1.2e9; ``60%`` is percent 60 (percentage points, as printed); ``2019/20`` a financial
    year ``2019-20``; ``2024年1月``, ``1 February 2025`` dates (``2024-01``, ``2025-02-01``);
    ``-``, ``—``, ``N.A.``, ``不適用`` missing. A footnote's mark after a figure
    (``(22,313)#``) is not part of it; a worked calculation (``$600 × 3 = $1,800``) is worth
    what it equals."""
    s = clean(text)
    if s.lower() in MISSING:
        return Cell("missing")
    if (bare := _FOOTNOTE_MARK.sub("", s)) != s:
        return parse_cell(bare) if bare else Cell("text")
    if (m := _CALCULATION.match(s)) and (result := parse_cell(m["result"])).kind in NUMERIC_KINDS:
        return result
    if (m := _FINANCIAL_YEAR.match(s)) and _is_next_year(m["y"], m["z"]):
        return Cell("financial_year", f"{m['y']}-{m['z'][-2:]}")
    if m := _YEAR.match(s):
        return Cell("year", int(m["y"]))
    date = _date(s)
    if date is not None:
        return Cell("date", date)
    m = _NUMBER.match(s)
    if m is None or bool(m["open"]) != bool(m["close"]):
        return Cell("text")
    digits = m["num"].replace(",", "").replace(" ", "")
    scale = _SCALES.get((m["scale"] or "").lower(), 1.0)
    if m["scale"] and m["scale"].lower() == "m" and not m["cur"]:
        return Cell("text")  # "5 m" is metres as often as millions
    negative = bool(m["open"]) or (m["sign"] is not None and m["sign"] in _MINUS)
    number: float | int = float(digits) if "." in digits or scale != 1.0 else int(digits)
    number = number * scale if scale != 1.0 else number
    if isinstance(number, float) and number.is_integer() and "." not in digits:
        number = int(number)
    if negative:
        number = -number
    if m["pct"]:
        return Cell("percent", number, "%")
    if m["cur"]:
        return Cell("currency", number, m["cur"].upper())
    return Cell("decimal" if "." in digits else "integer", number)


# a header or caption that says what the bracketed figures of a cell are ("括號內為車齡達到15年或
# 以上的車輛數目", "figures in brackets are the previous year's"): a cell "18 200 (2 900)" is
# then its figure and a second one, not a negative or a comparison to guess at
_BRACKETS_DECLARED = re.compile(
    r"括號內|括弧內|in (?:brackets|parenthes[ie]s)|bracketed figures?", re.IGNORECASE
)
_FIGURE_AND_BRACKETED = re.compile(r"^(?P<figure>[^()（）]*\S)\s*[(（](?P<inner>[^()（）]+)[)）]$")


def brackets_declared(text: str | None) -> bool:
    """Whether a header or caption says what its cells' bracketed figures are."""
    return bool(text and _BRACKETS_DECLARED.search(clean(text)))


def parse_declared_cell(text: str) -> Cell:
    """A cell of a column whose header says what its bracketed figures are: the figure
    before the brackets, when both are figures (``18 200 (2 900)`` is 18200; the printed
    text keeps the bracketed one). A cell that prints only a bracketed figure is text: its
    brackets are the declared second figure, not a negative."""
    s = clean(text)
    if m := _FIGURE_AND_BRACKETED.match(s):
        figure, inner = parse_cell(m["figure"]), parse_cell(m["inner"])
        if figure.kind in NUMERIC_KINDS and inner.kind in NUMERIC_KINDS:
            return figure
    cell = parse_cell(s)
    if cell.kind in NUMERIC_KINDS and s[:1] in "(（":
        return Cell("text")
    return cell


# a row whose label is a unit in brackets ("($ million)" under a row of caseloads) prints its
# figures in brackets as the amounts in that unit, not as negatives
def _inside_brackets(text: str) -> str | None:
    """What a cell prints inside the brackets that are all of it (a footnote's mark aside)."""
    m = _BRACKETED.fullmatch(_FOOTNOTE_MARK.sub("", clean(text)))
    return m[1] if m else None


def bracket_row(label: str) -> bool:
    """Whether a row's label is a unit in brackets, as ``($ million)`` or ``(千元)``."""
    return _inside_brackets(label) is not None and unit_of(label) is not None


def parse_bracket_row_cell(text: str) -> Cell:
    """A cell of a :func:`bracket_row`: a figure in brackets is that figure."""
    inner = _inside_brackets(text)
    cell = parse_cell(inner) if inner is not None else None
    return cell if cell is not None and cell.kind in NUMERIC_KINDS else parse_cell(text)


def _is_next_year(first: str, second: str) -> bool:
    """``2019/20``, ``2019-2020``: the second year is the first plus one."""
    return (int(first) + 1) % (100 if len(second) == 2 else 10_000) == int(second)


def _date(s: str) -> str | None:
    """An ISO date (``YYYY-MM-DD``; ``YYYY-MM`` for a month; ``--MM-DD`` for a day of every
    year, ``1 DEC``, ``2月1日``) for a printed date."""
    day: str | None
    if m := _DATE_ZH.match(s):
        year, month, day = m["y"], int(m["m"]), m["d"]
    elif (m := _DATE_ISO.match(s)) or (m := _DATE_NUMERIC.match(s)):
        year, month, day = m["y"], int(m["m"]), m["d"]
    elif (m := _DATE_DMY.match(s)) or (m := _DATE_MDY.match(s)) or (m := _DATE_MY.match(s)):
        month_number = MONTHS.get(m["mon"].lower())
        if month_number is None:
            return None
        year, month, day = m["y"], month_number, m.groupdict().get("d")
    elif (m := _DAY_ZH.match(s)) or (m := _DAY_EN.match(s)):  # a day of every year: --MM-DD
        month_number = int(m["m"]) if "m" in m.groupdict() else MONTHS.get(m["mon"].lower())
        if month_number is None or not 1 <= month_number <= 12 or not 1 <= int(m["d"]) <= 31:
            return None
        return f"--{month_number:02d}-{int(m['d']):02d}"
    else:
        return None
    if not 1 <= month <= 12 or (day is not None and not 1 <= int(day) <= 31):
        return None
    return f"{year}-{month:02d}" + (f"-{int(day):02d}" if day else "")


_DECORATION = re.compile(
    r"(HK|US|RMB)?\$|%|[()（）+\-−–－,.\s/]|million|billion|thousand|百萬|[億萬千年月日度]|"
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b",
    re.IGNORECASE,
)


def numeric_looking(text: str) -> bool:
    """A cell a reader would take for a number, an amount, a year or a date: digits once
    its currency, percent, sign, brackets, separators, scale words and date words are taken
    away (what the parse rate counts; ``A1`` and ``Q3 report`` are text)."""
    rest = _DECORATION.sub("", _FOOTNOTE_MARK.sub("", clean(text)))
    return bool(rest) and rest.isdigit()


_NUMBER_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def several_numbers(text: str) -> bool:
    """A cell that prints several numbers side by side (``85.5 79.5 72.5``, ``18 200 (18
    200)``): the geometry found no rule between columns, or the cell holds a comparison.
    No one value stands for it; its printed text does."""
    s = clean(text)
    if parse_cell(s).kind not in ("text",):
        return False
    return len(_NUMBER_TOKEN.findall(s)) > 1 and numeric_looking(s)


# -- units ------------------------------------------------------------------------------------------
_BRACKETED = re.compile(r"[（(]([^（()）]{1,24})[）)]")
_UNIT_WORDS = re.compile(
    r"(%|\$|元|million|billion|thousand|'000|千|萬|億|人次|冊|公里|平方米|立方米|公頃|公噸|小時|"
    r"\bkm\b|\bhours?\b|\bdays?\b|\bpersons?\b|\btonnes?\b|\bhectares?\b|^人$|^個$|^宗$|^間$|^名$)",
    re.IGNORECASE,
)
_CAPTION_UNIT = re.compile(r"(?:單位|unit)\s*[:：]\s*([^）)\s，,;；]{1,16})", re.IGNORECASE)


def unit_of(text: str | None) -> str | None:
    """The unit a header or caption prints in brackets: ``核准工程預算（千元）`` -> ``千元``,
    ``Item 2025-26 ($ million)`` -> ``$ million``, ``（%）`` -> ``%``; ``單位：百萬元`` too.
    A bracket that names no unit (``（預算）``, ``(proposed)``) is not one."""
    if not text:
        return None
    s = clean(text)
    if m := _CAPTION_UNIT.search(s):
        return m[1]
    for inner in reversed(_BRACKETED.findall(s)):
        inner = inner.strip()
        if _UNIT_WORDS.search(inner):
            return inner
    return None


# -- one table ------------------------------------------------------------------------------------
@dataclass
class Column:
    """One column: ``name`` (the header levels joined with `` / ``, unique in its table),
    the ``header`` cell of each level, ``type`` (see the module), ``unit`` (from the header,
    else the caption, else what the cells print: ``$``, ``%``), and how many of its cells
    have a value, are missing, or could not be read as its type (``unparsed``)."""

    name: str
    header: list[str]
    type: str
    unit: str | None = None
    values: int = 0
    missing: int = 0
    unparsed: int = 0


@dataclass
class TypedTable:
    """A printed table as data. ``id`` is ``<document_id>:table:<number>``, numbered from 1
    in reading order: the same tables found again get the same ids. ``header_rows``: the
    header as printed (several rows when the geometry found several), ``rows`` the body as
    printed (continuation parts joined), ``values`` the typed value of each cell (None:
    missing or not its column's type). ``parts``: each printed part's page and bounding box
    (PDF points: x0, top, x1, bottom)."""

    id: str
    document_id: str
    number: int
    pages: list[int]
    parts: list[dict[str, Any]]
    caption: str | None
    header_rows: list[list[str]]
    rows: list[list[str]]
    columns: list[Column]
    values: list[list[Any]]
    method: str
    problems: list[str] = field(default_factory=list)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.columns)

    def numeric_cells(self) -> tuple[int, int]:
        """``(numeric-looking cells, of them parsed as a number, amount, year or date)``; a
        cell printing several numbers (:func:`several_numbers`) is not counted: see
        :meth:`several_number_cells`."""
        looking = parsed = 0
        for row in self.rows:
            for text in row:
                if numeric_looking(text) and not several_numbers(text):
                    looking += 1
                    parsed += parse_cell(text).kind not in ("text", "missing")
        return looking, parsed

    def numeric_values(self) -> int:
        """Numeric-looking cells held as values of their typed column (not kept as text in
        a text column, nor set aside in a column of another type): what a reader of the
        frame gets as numbers, years and dates."""
        return sum(
            1
            for row, values in zip(self.rows, self.values, strict=True)
            for column, text, value in zip(self.columns, row, values, strict=False)
            if column.type != "text" and value is not None and numeric_looking(text)
        )

    def several_number_cells(self) -> int:
        """Cells that print several numbers side by side, kept as text."""
        return sum(several_numbers(text) for row in self.rows for text in row)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TypedTable:
        columns = [Column(**c) for c in data.get("columns", [])]
        return cls(**{**data, "columns": columns})

    def summary(self) -> dict[str, Any]:
        """What a listing shows: id, pages, shape, caption, header and column types."""
        return {
            "id": self.id,
            "document_id": self.document_id,
            "pages": self.pages,
            "rows": len(self.rows),
            "columns": len(self.columns),
            "caption": self.caption,
            "header": [c.name for c in self.columns],
            "types": [c.type for c in self.columns],
            "units": [c.unit for c in self.columns],
            "problems": self.problems,
        }

    def records(self) -> list[dict[str, Any]]:
        """One dict per row: each column's typed value under its name, and its printed text
        under ``<name> (printed)``."""
        out = []
        for row, values in zip(self.rows, self.values, strict=True):
            record: dict[str, Any] = {}
            for k, column in enumerate(self.columns):
                record[column.name] = values[k]
                record[f"{column.name} (printed)"] = row[k] if k < len(row) else ""
            out.append(record)
        return out


def table_id(document_id: str, number: int) -> str:
    return f"{document_id}:table:{number}"


def header_levels(table: Table) -> list[list[str]]:
    """The header rows as printed: the levels the geometry kept, else the one row."""
    levels = getattr(table, "header_levels", None)
    if levels and all(len(level) == len(table.header) for level in levels):
        return [list(level) for level in levels]
    return [list(table.header)]


def _names(levels: list[list[str]], width: int) -> list[str]:
    """Unique column names: the header levels joined (a level repeated across a span once)."""
    names: list[str] = []
    seen: Counter[str] = Counter()
    for k in range(width):
        parts: list[str] = []
        for level in levels:
            cell = clean(level[k]) if k < len(level) else ""
            if cell and cell not in parts:
                parts.append(cell)
        name = " / ".join(parts) or f"column {k + 1}"
        seen[name] += 1
        names.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return names


_ACCEPTS = {  # the kinds of cell a column of each type takes as its values
    "year": {"year"},
    "financial_year": {"financial_year"},
    "date": {"date"},
    "integer": {"integer", "year"},
    "decimal": {"integer", "decimal", "year"},
    "percent": {"percent", "integer", "decimal"},
    "currency": {"currency", "integer", "decimal"},
}


def column_type(kinds: list[str], header_unit: str | None = None) -> tuple[str, int]:
    """The type of a column whose cells are ``kinds`` (missing ones aside), and how many of
    its cells are not of it: the narrowest type that takes the most cells, when that is more
    than half of them (else ``text``). A unit ``%`` in the header makes a numeric column
    ``percent``; a currency unit (``$``, ``元``) makes it ``currency``."""
    counts = Counter(k for k in kinds if k != "missing")
    total = sum(counts.values())
    best, covered = "text", 0
    for kind, accepts in _ACCEPTS.items():  # narrowest first: a tie keeps the narrower
        taken = sum(counts[k] for k in accepts)
        if taken > covered:
            best, covered = kind, taken
    if covered * 2 <= total:
        return "text", 0
    if best in ("integer", "decimal") and header_unit:
        if "%" in header_unit:
            best = "percent"
        elif re.search(r"\$|元", header_unit):
            best = "currency"
    return best, total - covered


def type_table(
    document_id: str,
    number: int,
    parts: list[Table],
    caption: str | None = None,
) -> TypedTable:
    """One typed table from the parts of a printed table (one part, or a chain joined by
    :func:`.weave.stitch`)."""
    whole = stitch(parts) if len(parts) > 1 else parts[0]
    levels = header_levels(parts[0])
    width = whole.width
    rows = [[clean(c) for c in r] + [""] * (width - len(r)) for r in whole.rows]
    levels = [[clean(c) for c in level] + [""] * (width - len(level)) for level in levels]
    names = _names(levels, width)
    caption_unit = unit_of(caption)
    columns: list[Column] = []
    problems: list[str] = []
    declared = [
        brackets_declared(" ".join(level[k] for level in levels) + " " + (caption or ""))
        for k in range(width)
    ]
    cells = [_parse_row(row, declared) for row in rows]
    values: list[list[Any]] = [[None] * width for _ in rows]
    ragged = sum(1 for r in whole.rows if len(r) != width)
    if ragged:
        problems.append(f"{ragged} of {len(rows)} rows have fewer cells than the header")
    if not any(clean(c) for c in whole.header):
        problems.append("no header: the columns have no names")
    for k in range(width):
        column_cells = [row[k] for row in cells]
        header_unit = unit_of(" ".join(level[k] for level in levels))
        kind, _ = column_type([c.kind for c in column_cells], header_unit)
        printed_unit = Counter(c.unit for c in column_cells if c.unit).most_common(1)
        unit = header_unit or (caption_unit if kind in NUMERIC_KINDS else None)
        unit = unit or (printed_unit[0][0] if printed_unit else None)
        column = Column(name=names[k], header=[level[k] for level in levels], type=kind, unit=unit)
        accepts = _ACCEPTS.get(kind)
        if kind == "integer" and _days_of_month(column_cells):
            column_cells = [_day_number(c) for c in column_cells]
        for r, cell in enumerate(column_cells):
            if cell.kind == "missing":
                column.missing += 1
            elif accepts is None:
                values[r][k] = rows[r][k]
                column.values += 1
            elif cell.kind in accepts:
                value = cell.value
                values[r][k] = float(value) if kind in ("decimal",) or isinstance(value, float) else value
                column.values += 1
            else:
                column.unparsed += 1
        if accepts is not None and column.unparsed:
            problems.append(
                f"column {names[k]!r}: {column.unparsed} of {len(rows) - column.missing} cells are not {kind}"
            )
        columns.append(column)
    _settle_numbers(columns, values)
    return TypedTable(
        id=table_id(document_id, number),
        document_id=document_id,
        number=number,
        pages=sorted({p.page for p in parts}),
        parts=[{"page": p.page, "bbox": p.bbox} for p in parts],
        caption=caption,
        header_rows=levels,
        rows=rows,
        columns=columns,
        values=values,
        method=parts[0].method,
        problems=problems,
    )


def _days_of_month(cells: list[Cell]) -> bool:
    """A calendar's column: its integers are all days of a month, and a cell where a new
    month begins prints the day with the month (``1 DEC``, ``2月1日``)."""
    days = [c.value for c in cells if c.kind == "integer"]
    new_months = [c for c in cells if c.kind == "date" and str(c.value).startswith("--")]
    return bool(days and new_months) and all(1 <= d <= 31 for d in days)


def _day_number(cell: Cell) -> Cell:
    """A calendar cell's day of the month (``--12-01`` is 1); other cells as they are."""
    if cell.kind == "date" and str(cell.value).startswith("--"):
        return Cell("integer", int(str(cell.value)[-2:]))
    return cell


def _parse_row(row: list[str], declared: list[bool]) -> list[Cell]:
    """A row's cells read: its label may say what its bracketed figures are
    (:func:`bracket_row`), else a column's header may (:func:`brackets_declared`)."""
    if row and bracket_row(row[0]):
        return [parse_cell(row[0])] + [parse_bracket_row_cell(c) for c in row[1:]]
    return [parse_declared_cell(c) if declared[k] else parse_cell(c) for k, c in enumerate(row)]


def _settle_numbers(columns: list[Column], values: list[list[Any]]) -> None:
    """A numeric column is all ints or all floats (one Parquet type): floats when any value
    is, or when the column is ``decimal``."""
    for k, column in enumerate(columns):
        if column.type not in NUMERIC_KINDS and column.type != "year":
            continue
        column_values = [row[k] for row in values if row[k] is not None]
        if column.type == "decimal" or any(isinstance(v, float) for v in column_values):
            for row in values:
                if row[k] is not None:
                    row[k] = float(row[k])


# -- a paper's tables -------------------------------------------------------------------------------
_CAPTION_START = re.compile(
    r"^(表|附表|圖表|Table|TABLE|Annex\s+table)\s*[\dA-Z一二三四五六七八九十]", re.IGNORECASE
)
_MAX_CAPTION = 120


def caption_of(table: Table, page: Page | None, index: TextIndex | None = None) -> str | None:
    """The line printed just above the table when it reads as its caption or heading: it
    starts ``表…``/``Table …``, or it is short and is no sentence (ends without ``。``/``.``).
    ``index``: the page text's, when several tables of the page are looked for."""
    if page is None:
        return None
    text = page.cleaned if page.cleaned.strip() else page.raw
    if not text:
        return None
    index = index if index is not None and index.text == text else text_index(text)
    span = locate_table(index, table)
    if span is None:
        return None
    before = [line.strip() for line in text[: span[0]].splitlines() if line.strip()]
    if not before:
        return None
    line = clean(before[-1])
    if _CAPTION_START.match(line):
        return line[:_MAX_CAPTION]
    if len(line) <= 60 and not line.endswith(("。", ".", "：", ":", "；", ";", "，", ",")):
        return line
    return None


def typed_tables(document_id: str, tables: list[Table], pages: list[Page] | None = None) -> list[TypedTable]:
    """The paper's tables as data, one per printed table (the parts of a table printed over
    a page break joined as the chunks join them), numbered in reading order."""
    page_of = {p.number: p for p in pages or []}
    indexes: dict[int, TextIndex] = {}
    out = []
    for number, chain in enumerate(table_chains(tables), start=1):
        page = page_of.get(chain[0].page)
        if page is not None and page.number not in indexes:
            indexes[page.number] = text_index(page.cleaned if page.cleaned.strip() else page.raw)
        caption = caption_of(chain[0], page, indexes.get(chain[0].page))
        out.append(type_table(document_id, number, chain, caption))
    return out


# -- as pandas, Parquet and CSV -------------------------------------------------------------------


def to_frame(table: TypedTable, printed: bool = False) -> Any:
    """A pandas DataFrame of the typed values, one column per table column (nullable
    ``Int64``/``Float64`` for numbers, ``string`` otherwise); the printed text, types and
    units in ``frame.attrs``. ``printed``: each column followed by ``<name> (printed)``,
    its text as printed (the form stored as Parquet)."""
    import pandas as pd

    data = {}
    for k, column in enumerate(table.columns):
        values = [row[k] for row in table.values]
        if column.type in NUMERIC_KINDS or column.type == "year":
            dtype = "Float64" if any(isinstance(v, float) for v in values) else "Int64"
        else:
            dtype = "string"
        data[column.name] = pd.array(values, dtype=dtype)
        if printed:
            data[f"{column.name} (printed)"] = pd.array([row[k] for row in table.rows], dtype="string")
    frame = pd.DataFrame(data)
    frame.attrs = {
        "id": table.id,
        "caption": table.caption,
        "types": {c.name: c.type for c in table.columns},
        "units": {c.name: c.unit for c in table.columns},
        "printed": table.rows,
    }
    return frame


def to_parquet(table: TypedTable) -> bytes:
    """The table as one Parquet file's bytes (written whole by the caller), from its
    DataFrame (:func:`to_frame` with the printed columns), so ``pandas.read_parquet`` gives
    back the same nullable types: each typed column's type, unit and header in its field's
    metadata, the table's id, caption and pages in the schema's."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = to_frame(table, printed=True)
    frame.attrs = {}  # pandas would store them as JSON of its own; the schema says them below
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    fields = []
    columns = {c.name: c for c in table.columns}
    for stored in arrow.schema:
        if (column := columns.get(stored.name)) is not None:
            header = json.dumps(column.header, ensure_ascii=False)
            stored = stored.with_metadata({"type": column.type, "unit": column.unit or "", "header": header})
        else:
            stored = stored.with_metadata({"printed": "true"})
        fields.append(stored)
    meta = {**(arrow.schema.metadata or {}), b"id": table.id, b"caption": table.caption or ""}
    meta[b"pages"] = json.dumps(table.pages)
    arrow = arrow.cast(pa.schema(fields, metadata=meta))
    sink = pa.BufferOutputStream()
    pq.write_table(arrow, sink)
    return sink.getvalue().to_pybytes()


def from_parquet(data: bytes) -> Any:
    """A DataFrame read back from :func:`to_parquet`'s bytes (typed and printed columns)."""
    import io

    import pandas as pd

    return pd.read_parquet(io.BytesIO(data))


def to_csv(table: TypedTable) -> str:
    """The table as CSV: the printed text of each cell under its column's name, so nothing
    is lost to typing (the typed values are the JSON's and the Parquet's)."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([c.name for c in table.columns])
    writer.writerows(table.rows)
    return out.getvalue()


def write_typed_tables(art: Artifacts, tables: list[TypedTable]) -> None:
    """The paper's tables as data (docs/design.md#formats-on-disk): per table
    ``tables/<n>.parquet`` (typed values beside the printed text) and ``tables/<n>.json``
    (the printed form and the same values), then ``tables/index.json`` listing them, each
    written whole. The index is written last: a reader that finds a table in it finds
    its files. Files of tables a re-run no longer finds are left, unlisted."""
    for table in tables:
        write_whole(art.path(f"tables/{table.number}.parquet"), to_parquet(table))
        art.write_json(f"tables/{table.number}.json", table.to_dict())
    art.write_json(TABLE_INDEX, {"tables": [t.summary() for t in tables]})


def read_typed_table(art: Artifacts, number: int) -> TypedTable:
    """One table as data (``tables/<n>.json``); FileNotFoundError when there is none."""
    return TypedTable.from_dict(art.read_json(f"tables/{number}.json"))
