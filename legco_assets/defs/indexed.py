"""What is indexed for a paper, per strategy: the table the ``chunks`` materialisation shows.

Why: ``chunks``, ``vector_index`` and ``chunk_excerpts`` are materialised once per strategy
for the same partition, and the partition page shows only the latest materialisation. So
each ``chunks`` materialisation carries both strategies' current state for the paper, read
from the paper's artifact folder (chunk count, the chunk file's hash, the ids stored in
Chroma) and from the instance (the run that last chunked the paper with that strategy):
whichever strategy ran last, the page answers "what is indexed for this paper".
"""

from __future__ import annotations

import dagster as dg

from legco_assets.core.artifacts import Artifacts, chunks_file
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.settings import Settings, Strategy

from .lineage import digest
from .names import STRATEGY


def strategies_table(
    context: dg.AssetExecutionContext, settings: Settings, document_id: str, current: Strategy
) -> dg.MetadataValue:
    """One row per strategy: chunks on disk, their data version (12 hex digits of the chunk
    file's hash), ids in Chroma, and the run that chunked them (this run for ``current``)."""
    runs = _latest_runs(context, document_id)
    runs[current.value] = context.run_id
    art = Artifacts(settings, document_id)
    rows = []
    for strategy in Strategy:
        name = chunks_file(strategy)
        if not art.has(name):
            rows.append([strategy.value, "not chunked", "", "", ""])
            continue
        count = sum(1 for line in art.path(name).read_text(encoding="utf-8").splitlines() if line.strip())
        indexed = (
            art.read_json(f"indexed-{strategy.value}.json")
            if art.has(f"indexed-{strategy.value}.json")
            else None
        )
        run = runs.get(strategy.value)
        rows.append(
            [
                strategy.value + (" (this run)" if strategy is current else ""),
                str(count),
                digest([art.path(name)]).value[:12],
                str(len(indexed["ids"])) if indexed else "not indexed",
                f"[{run[:8]}](/runs/{run})" if run else "",
            ]
        )
    return dg.MetadataValue.md(to_markdown(["strategy", "chunks", "data version", "in Chroma", "run"], rows))


def _latest_runs(context: dg.AssetExecutionContext, document_id: str) -> dict[str, str]:
    """Strategy → the run of the paper's latest ``chunks`` materialisation with it."""
    records = context.instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=context.asset_key, asset_partitions=[document_id]), limit=50
    ).records
    runs: dict[str, str] = {}
    for record in records:  # newest first
        materialization = record.asset_materialization
        meta = materialization.metadata if materialization else {}
        if STRATEGY in meta:
            runs.setdefault(str(meta[STRATEGY].value), record.run_id)
    return runs
