"""A job per strategy: the whole graph for one document, chunked and indexed that way."""

from __future__ import annotations

from collections.abc import Iterable

import dagster as dg

from legco_assets.core.settings import Strategy

from .assets import ALL_ASSETS
from .names import STRATEGIES_TAG, STRATEGY_TAG

STRATEGY_ASSETS = (
    "chunks",
    "vector_index",
    "chunk_excerpts",
)  # the assets that take the strategy as run config


def strategy_run_config(strategy: Strategy, selected: Iterable[str] | None = None) -> dict:
    """The run config of a strategy; ``selected``: only these assets run (Dagster refuses
    config for an op outside the selection)."""
    op = {"config": {"strategy": strategy.value}}
    names = STRATEGY_ASSETS if selected is None else [n for n in STRATEGY_ASSETS if n in set(selected)]
    return {"ops": {name: op for name in names}}


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
        tags={STRATEGY_TAG: strategy.value},  # a run launched from the job's launchpad says its strategy
        description=f"Ingest documents end to end with the {strategy.value} strategy.",
    )


JOBS = {strategy: ingest_job(strategy) for strategy in Strategy}


def first_run(strategies: tuple[Strategy, ...]) -> tuple[dg.UnresolvedAssetJobDefinition, dict[str, str]]:
    """The job of a sensor's first run for a paper (the whole graph, first strategy) and the
    tags that let ``strategy_chain_sensor`` run the other strategies after it succeeds."""
    return JOBS[strategies[0]], {
        STRATEGY_TAG: strategies[0].value,
        STRATEGIES_TAG: ",".join(s.value for s in strategies),
    }
