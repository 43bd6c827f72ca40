"""``legco-assets tables DOC [TABLE] [--csv]``: a stored paper's tables as data, as
``page_tables`` wrote them (``legco-assets serve`` answers the same at ``/api/tables``).

Without TABLE, one line per table: id, pages, rows × columns, caption, and each column's
type (and unit). With TABLE (its number or id), the table typed, or with ``--csv`` its
printed cells as CSV. ``--csv`` without TABLE prints every table as CSV, each after a
``# <id>`` line. It does not import Dagster.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def cmd_tables(args: argparse.Namespace, settings: Settings) -> int:
    from legco_assets.core.tables import to_csv
    from legco_assets.service.tables import NoSuchTable, get_table, list_tables

    rows = list_tables(settings, args.document)
    if not rows:
        return common.fail(
            f"no tables stored for {args.document!r}: a PDF's tables are written by page_tables "
            "(legco-assets ingest); see `legco-assets browse` for document ids"
        )
    ids = [row["id"] for row in rows]
    if args.table is not None:
        wanted = args.table if ":table:" in args.table else f"{args.document}:table:{args.table}"
        if wanted not in ids:
            return common.fail(f"no table {wanted!r}: {args.document} has tables 1-{len(ids)}")
        ids = [wanted]
    for table_id in ids:
        try:
            table = get_table(settings, table_id)
        except NoSuchTable:
            return common.fail(f"table {table_id} is listed but its file is missing: re-run page_tables")
        if args.csv:
            if args.table is None:
                print(f"# {table.id}")
            print(to_csv(table), end="")
        elif args.table is None:
            print(_line(table))
        else:
            _show(table)
    return 0


def _line(table: Any) -> str:
    rows, columns = table.shape
    pages = (
        "-".join(str(p) for p in (table.pages[0], table.pages[-1]))
        if len(table.pages) > 1
        else table.pages[0]
    )
    types = ", ".join(f"{c.type}" + (f" ({c.unit})" if c.unit else "") for c in table.columns)
    caption = f"  {table.caption}" if table.caption else ""
    flag = "  [not typed consistently]" if table.problems else ""
    return f"{table.id}  p.{pages}  {rows}×{columns}{caption}\n    {types}{flag}"


def _show(table: Any) -> None:
    """The table typed: a header of column names with type and unit, then each row's
    values (missing: empty; a cell not of its column's type: its printed text in brackets)."""
    from legco_assets.core.markdown_tables import to_markdown

    header = [f"{c.name} [{c.type}{', ' + c.unit if c.unit else ''}]" for c in table.columns]
    body = [
        [
            "" if v is None and not printed else (f"[{printed}]" if v is None else str(v))
            for v, printed in zip(values, row, strict=True)
        ]
        for values, row in zip(table.values, table.rows, strict=True)
    ]
    print(_line(table))
    print(to_markdown(header, body))
    for problem in table.problems:
        print(f"warning: {problem}")


def add_command(sub: Any) -> None:
    tables = sub.add_parser("tables", help="a stored paper's tables as data: list, one typed, or as CSV")
    tables.add_argument("document", metavar="DOC", help="a document id (see `legco-assets browse`)")
    tables.add_argument("table", metavar="TABLE", nargs="?", help="a table's number or id: show it typed")
    tables.add_argument("--csv", action="store_true", help="the printed cells as CSV")
    tables.set_defaults(func=cmd_tables)
