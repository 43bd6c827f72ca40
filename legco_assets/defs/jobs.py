"""A job per strategy: the whole graph for one document, chunked and indexed that way."""

from __future__ import annotations

import dagster as dg

from legco_assets.core.settings import Strategy

from .assets import ALL_ASSETS


def strategy_run_config(strategy: Strategy) -> dict:
    op = {"config": {"strategy": strategy.value}}
    return {"ops": {"chunks": op, "vector_index": op}}


# A run's steps in the run worker's own process, one after another, unless the run config
# asks for ``multiprocess`` (docs/scaling.md). Why: Dagster's default starts a Python per
# step, and every step of this graph is short next to what such a process loads first:
# Dagster and this package (~1.5 s on 2 cores), and for ``vector_index`` chromadb and the
# embedding model (~1.5 s more). In one process the model is loaded once per run
# (``UseMultilingualEmbedding._encoder`` keeps it), as in ``legco-assets ingest``
# (``execute_in_process``); the table geometry has worker processes of its own anyway.
IN_PROCESS = {"execution": {"config": {"in_process": {}}}}


def ingest_job(strategy: Strategy) -> dg.UnresolvedAssetJobDefinition:
    return dg.define_asset_job(
        name=f"ingest_{strategy.value}_job",
        selection=dg.AssetSelection.assets(*ALL_ASSETS),
        config={**strategy_run_config(strategy), **IN_PROCESS},
        description=f"Ingest documents end to end with the {strategy.value} strategy.",
    )


JOBS = {strategy: ingest_job(strategy) for strategy in Strategy}
