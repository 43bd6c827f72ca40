"""Stage 3, tables: tables found on the page (geometry of the PDF's drawn lines and text,
or a vision LLM), turned into Markdown and woven into the page text once.

Code outside this package imports only the names below."""

from __future__ import annotations

from .geometry import geometric_tables
from .stage import (
    TablesResult,
    find_page_tables,
    find_tables,
    iter_page_tables,
    page_tables_as_read,
    start_page_tables,
)
from .typed import TypedTable, read_typed_table, table_id, to_csv, typed_tables, write_typed_tables
from .vision import (
    NO_TABLES,
    PROMPT_VERSION,
    page_png,
    parse_markdown_tables,
    validate_reply,
)
from .weave import (
    embed_tables,
    embed_tables_in_pages,
    locate_table,
    split_markdown_table,
    stitch,
    table_chains,
    weave_pages,
    weave_pages_placed,
)
from .workers import GeometricTables

__all__ = [
    "TypedTable",
    "read_typed_table",
    "table_id",
    "to_csv",
    "typed_tables",
    "write_typed_tables",
    "GeometricTables",
    "NO_TABLES",
    "PROMPT_VERSION",
    "TablesResult",
    "embed_tables",
    "embed_tables_in_pages",
    "find_page_tables",
    "find_tables",
    "geometric_tables",
    "iter_page_tables",
    "locate_table",
    "page_png",
    "page_tables_as_read",
    "parse_markdown_tables",
    "split_markdown_table",
    "start_page_tables",
    "stitch",
    "table_chains",
    "validate_reply",
    "weave_pages",
    "weave_pages_placed",
]
