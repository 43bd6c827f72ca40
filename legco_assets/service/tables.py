"""The papers' tables as data, for the API (``/api/tables``), the MCP tool ``get_table``, the
hits' ``table_ids`` and the CLI's ``tables``: read from what ``page_tables`` wrote
(``tables/index.json``, ``tables/<n>.json``), never recomputed here.

A table id is ``<document_id>:table:<n>``; an id of another shape, of a paper not stored or
of a table it has not, is unknown (:class:`NoSuchTable`)."""

from __future__ import annotations

import re
from typing import Any

from legco_assets.core.artifacts import Artifacts
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.settings import Settings
from legco_assets.core.tables import TypedTable, read_typed_table

_TABLE_ID = re.compile(r"^(?P<document>[^/\\:\s]+):table:(?P<number>[1-9]\d{0,5})$")
_DOCUMENT_ID = re.compile(r"^[^/\\:\s]+$")


class NoSuchTable(KeyError):
    """No stored table has this id."""


def parse_table_id(table_id: str) -> tuple[str, int]:
    """``(document_id, n)`` of a table id; NoSuchTable when it is not one."""
    m = _TABLE_ID.match(table_id)
    if m is None:
        raise NoSuchTable(table_id)
    return m["document"], int(m["number"])


def get_table(settings: Settings, table_id: str) -> TypedTable:
    """One stored table; NoSuchTable when there is none."""
    document_id, number = parse_table_id(table_id)
    try:
        return read_typed_table(Artifacts(settings, document_id), number)
    except FileNotFoundError:
        raise NoSuchTable(table_id) from None


def table_json(table: TypedTable) -> dict[str, Any]:
    """A table as the API returns it: what it is (id, pages, caption, header rows, columns
    with type and unit, problems), then one record per row with each column's typed value
    and its printed text (:meth:`TypedTable.records`), and the rows as printed."""
    return {
        **table.summary(),
        "header_rows": table.header_rows,
        "column_details": [
            {"name": c.name, "type": c.type, "unit": c.unit, "header": c.header} for c in table.columns
        ],
        "parts": table.parts,
        "records": table.records(),
        "printed_rows": table.rows,
    }


def document_ids(settings: Settings) -> list[str]:
    """The papers stored with a table index (``tables/index.json``)."""
    root = settings.documents_dir
    if not root.exists():
        return []
    return sorted(p.parent.parent.name for p in root.glob("*/tables/index.json"))


def list_tables(
    settings: Settings, document: str | None = None, q: str | None = None
) -> list[dict[str, Any]]:
    """The tables of ``document`` (every stored paper when None), or of those the ones whose
    caption or header holds every word of ``q`` (case and spacing ignored; a Chinese word
    is matched as written)."""
    if document is not None and not _DOCUMENT_ID.match(document):
        return []
    documents = [document] if document is not None else document_ids(settings)
    rows = [row for d in documents for row in Artifacts(settings, d).table_summaries()]
    if not q:
        return rows
    words = [w.casefold() for w in q.split() if w]
    return [row for row in rows if all(w in _searchable(row) for w in words)]


def _searchable(row: dict[str, Any]) -> str:
    text = " ".join([row.get("caption") or "", *row.get("header", [])])
    return " ".join(text.split()).casefold() + " " + "".join(text.split()).casefold()


# -- which tables a chunk holds ---------------------------------------------------------------------
def table_lines(table: TypedTable) -> tuple[str, list[str]]:
    """The table's Markdown header line and row lines, as the chunks print them."""
    header = [" ".join(dict.fromkeys(c for c in column.header if c)) for column in table.columns]
    lines = to_markdown(header, table.rows).split("\n")
    return lines[0], lines[2:]


def tables_in_text(tables: list[TypedTable], text: str) -> list[str]:
    """Ids of the tables whose header line and at least one row line are in ``text`` (a
    chunk that holds the table, or a piece of it, as Markdown)."""
    if "\n|---" not in text and not text.startswith("| "):
        return []
    lines = set(text.split("\n"))
    found = []
    for table in tables:
        header, rows = table_lines(table)
        if header in lines and any(row in lines for row in rows):
            found.append(table.id)
    return found


class PaperTables:
    """The typed tables of the papers a server has answered about, read once per version
    of each paper's table index (a re-run of ``page_tables`` is picked up)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[str, tuple[str, list[TypedTable]]] = {}

    def of(self, document_id: str) -> list[TypedTable]:
        art = Artifacts(self.settings, document_id)
        try:
            version = art.path("tables/index.json").read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            return []
        cached = self._cache.get(document_id)
        if cached and cached[0] == version:
            return cached[1]
        tables = []
        for row in art.table_summaries():
            try:
                tables.append(get_table(self.settings, row["id"]))
            except NoSuchTable:
                continue
        self._cache[document_id] = (version, tables)
        return tables

    def ids_in(self, document_id: str, text: str) -> list[str]:
        """The ids of the tables of ``document_id`` a chunk's ``text`` holds."""
        if "\n|---" not in text and not text.startswith("| "):
            return []
        return tables_in_text(self.of(document_id), text)
