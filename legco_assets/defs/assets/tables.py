"""Stage ``tables`` (core/tables): ``page_tables``, the Markdown tables of each page."""

import time
from collections import Counter
from typing import Any

import dagster as dg

from legco_assets.core import pipeline

from ..lineage import upstream_metadata
from ..resources import LegcoSettings, LLMResource
from .common import paper_asset, written_version
from .read import page_images, page_text


@paper_asset(
    "structure",
    {"python"},
    "1",
    deps=[page_images, page_text],
    description="Markdown tables per page: geometric (ruling lines + character boxes) or a vision LLM when "
    "configured, cached by content hash.",
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
    metadata.update(upstream_metadata(context))
    return dg.MaterializeResult(
        metadata=metadata, data_version=written_version(settings, context.partition_key, "tables.json")
    )
