"""Stage ``tables`` (core/tables): ``page_tables``, the Markdown tables of each page."""

import time
from collections import Counter
from typing import Any

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.tables import TypedTable

from ..lineage import upstream_metadata
from ..resources import LegcoSettings, LLMResource
from .common import check_spec, paper_asset, written_version
from .read import page_images, page_text

TYPED_CHECK = "tables_typed"
PREVIEW_ROWS = 5


@paper_asset(
    "structure",
    {"python"},
    "1",
    deps=[page_images, page_text],
    description="Markdown tables per page: geometric (ruling lines + character boxes) or a vision LLM when "
    "configured, cached by content hash; each printed table also as data (tables/<n>.parquet and .json).",
    check_specs=[
        check_spec(
            "page_tables",
            TYPED_CHECK,
            "Warns: every table's columns are typed consistently: no ragged rows, a header, each numeric "
            "column's cells all of its type (the printed text is kept either way).",
        )
    ],
)
def page_tables(
    context: dg.AssetExecutionContext, legco: LegcoSettings, llm: LLMResource
) -> dg.MaterializeResult:
    settings = legco.settings()
    started = time.perf_counter()
    outcome = pipeline.stage_tables(settings, context.partition_key, llm.client(settings))
    tables, found = outcome.tables, outcome.found
    per_page = Counter(t.page for t in tables)
    methods = Counter(t.method for t in tables)
    metadata: dict[str, Any] = {
        "tables": len(tables),
        "tables_per_page": dg.MetadataValue.json({str(k): v for k, v in sorted(per_page.items())}),
        "methods": dg.MetadataValue.json(dict(methods)),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if found is not None:
        metadata.update({k: v for k, v in found.stats.items() if isinstance(v, (int, float))})
        for warning in found.warnings:
            context.log.warning(warning)
    if tables:
        metadata["first_table"] = dg.MetadataValue.md(f"page {tables[0].page}\n\n" + tables[0].markdown)
    metadata.update(typed_metadata(outcome.typed))
    metadata.update(upstream_metadata(context))
    return dg.MaterializeResult(
        metadata=metadata,
        data_version=written_version(settings, context.partition_key, "tables.json"),
        check_results=[typed_check(outcome.typed)],
    )


def typed_metadata(typed: list[TypedTable]) -> dict[str, Any]:
    """The tables as data, for the asset's page: one line each (id, pages, shape, column
    types) and the first rows of the first table, typed."""
    looking = sum(t.numeric_cells()[0] for t in typed)
    parsed = sum(t.numeric_cells()[1] for t in typed)
    rows = [
        [
            t.id,
            ", ".join(map(str, t.pages)),
            f"{t.shape[0]} × {t.shape[1]}",
            ", ".join(c.type for c in t.columns),
        ]
        for t in typed
    ]
    metadata: dict[str, Any] = {
        "typed_tables": len(typed),
        "numeric_cells": looking,
        "numeric_cells_parsed": parsed,
        "typed_table_list": dg.MetadataValue.md(
            to_markdown(["id", "pages", "rows × columns", "types"], rows)
        ),
    }
    if typed:
        first = typed[0]
        head = [f"{c.name} ({c.type}{', ' + c.unit if c.unit else ''})" for c in first.columns]
        body = [[_shown(v) for v in values] for values in first.values[:PREVIEW_ROWS]]
        metadata["typed_preview"] = dg.MetadataValue.md(f"{first.id}\n\n" + to_markdown(head, body))
    return metadata


def _shown(value: Any) -> str:
    return "" if value is None else str(value)


def typed_check(typed: list[TypedTable]) -> dg.AssetCheckResult:
    """WARN (never blocking) naming each table whose columns could not be typed consistently."""
    problems = {t.id: t.problems for t in typed if t.problems}
    lines = [f"{table_id}: {'; '.join(found)}" for table_id, found in problems.items()]
    return dg.AssetCheckResult(
        check_name=TYPED_CHECK,
        passed=not problems,
        severity=dg.AssetCheckSeverity.WARN,
        description=(f"{len(problems)} of {len(typed)} tables not typed consistently" if problems else None),
        metadata={
            "tables": len(typed),
            "problems": dg.MetadataValue.md("\n".join(f"- {line}" for line in lines)),
        },
    )
