"""What is indexed for a paper, per strategy: the table the ``chunks`` materialisation shows.

Why: ``chunks``, ``vector_index`` and ``chunk_excerpts`` are materialised once per strategy
for the same partition, and the partition page shows only the latest materialisation. So
each ``chunks`` materialisation carries both strategies' current state for the paper, read
from the paper's artifact folder (chunk count, the chunk file's hash, the ids stored in
Chroma) and from the instance (the run that last chunked the paper with that strategy):
whichever strategy ran last, the page answers "what is indexed for this paper".

Why "being indexed by this run": ``chunks`` is written before ``vector_index`` stores its
chunks, so for the strategy the run is chunking the store holds the previous chunks (or none)
when the table is written. A count read then would be false a minute later, so that row says
the run is indexing it, and ``vector_index``'s materialisation carries the same table written
after the store (counts that are true). A strategy whose ids were stored for another chunk
file than the one on disk says so instead of giving the old count.
"""

from __future__ import annotations

import dagster as dg

from legco_assets.core.artifacts import Artifacts, chunks_file
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.settings import Settings, Strategy

from .lineage import digest
from .names import STRATEGY

VECTOR_INDEX = dg.AssetKey("vector_index")


def strategies_table(
    context: dg.AssetExecutionContext, settings: Settings, document_id: str, current: Strategy
) -> dg.MetadataValue:
    """One row per strategy: chunks on disk, their data version (12 hex digits of the chunk
    file's hash), ids in Chroma, and the run that chunked them (this run for ``current``)."""
    indexing = context.asset_key != VECTOR_INDEX and _run_indexes(context)
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
        version = digest([art.path(name)]).value
        run = runs.get(strategy.value)
        rows.append(
            [
                strategy.value + (" (this run)" if strategy is current else ""),
                str(count),
                version[:12],
                "being indexed by this run"
                if strategy is current and indexing
                else _in_chroma(art, strategy, version),
                f"[{run[:8]}](/runs/{run})" if run else "",
            ]
        )
    return dg.MetadataValue.md(to_markdown(["strategy", "chunks", "data version", "in Chroma", "run"], rows))


def _run_indexes(context: dg.AssetExecutionContext) -> bool:
    """Whether this run materialises ``vector_index`` after this step: in the job's selection
    and among the steps it executes (a re-execution may run a subset)."""
    steps = context.run.step_keys_to_execute
    return VECTOR_INDEX in context.job_def.asset_layer.selected_asset_keys and (
        steps is None or VECTOR_INDEX.to_user_string() in steps
    )


def _in_chroma(art: Artifacts, strategy: Strategy, version: str) -> str:
    """What ``indexed-<strategy>.json`` (written by ``vector_index`` after the store) says
    of the chunk file on disk now: its ids' count, or why there is none."""
    name = f"indexed-{strategy.value}.json"
    if not art.has(name):
        return "not indexed"
    indexed = art.read_json(name)
    if indexed.get("chunks") != version:
        return f"not indexed: Chroma holds {len(indexed['ids'])} of an earlier chunk file"
    return str(len(indexed["ids"]))


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
