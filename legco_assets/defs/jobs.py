"""A job per strategy: the whole graph for one document, chunked and indexed that way."""

from __future__ import annotations

import dagster as dg

from legco_assets.core.settings import Strategy

from .assets import ALL_ASSETS


def strategy_run_config(strategy: Strategy) -> dict:
    op = {"config": {"strategy": strategy.value}}
    return {"ops": {"chunks": op, "vector_index": op}}


def ingest_job(strategy: Strategy) -> dg.UnresolvedAssetJobDefinition:
    return dg.define_asset_job(
        name=f"ingest_{strategy.value}_job",
        selection=dg.AssetSelection.assets(*ALL_ASSETS),
        config=strategy_run_config(strategy),
        description=f"Ingest documents end to end with the {strategy.value} strategy.",
    )


JOBS = {strategy: ingest_job(strategy) for strategy in Strategy}
