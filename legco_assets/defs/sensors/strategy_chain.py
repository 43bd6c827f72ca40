"""``strategy_chain_sensor``: a paper from the inbox or the feed gets every strategy of
``LEGCO_SENSOR_STRATEGIES`` (default ``token,question``), one run after the other.

Why a chain: ``chunks``, ``vector_index`` and ``chunk_excerpts`` take the strategy as run
config, so one run chunks one way. The sensors request the first strategy's run (the whole
graph); when it succeeds, this sensor requests the next strategy's run of those three assets
only, re-using the stored upstream results (no re-parse, no LLM call). Runs started at the
same time would write the same paper's artifacts at once; one after the other they never
do. A failed run ends its chain (its reason is on the run; the next strategy would fail the
same upstream). The run key ``<content>:<strategy>`` keeps each strategy to one run per
file version.
"""

import dagster as dg

from legco_assets.core.settings import Strategy

from ..jobs import JOBS, STRATEGIES_TAG, STRATEGY_ASSETS, STRATEGY_TAG
from .inbox import CONTENT_TAG

PARTITION_TAG = "dagster/partition"
CHAINED_ASSETS = [dg.AssetKey(name) for name in STRATEGY_ASSETS]  # chunks, vector_index, chunk_excerpts


def next_strategy(tags: dict[str, str]) -> Strategy | None:
    """The strategy after the run's own in its chain, or None at the end (or no chain)."""
    chain = [Strategy.parse(s) for s in tags.get(STRATEGIES_TAG, "").split(",") if s]
    current = tags.get(STRATEGY_TAG)
    names = [s.value for s in chain]
    if current not in names or names.index(current) + 1 >= len(chain):
        return None
    return chain[names.index(current) + 1]


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    monitored_jobs=list(JOBS.values()),
    request_jobs=list(JOBS.values()),
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a sensor-requested ingest run succeeds, runs chunks, vector_index and chunk_excerpts with the next "
    "strategy of LEGCO_SENSOR_STRATEGIES for the same paper.",
)
def strategy_chain_sensor(context: dg.RunStatusSensorContext) -> dg.RunRequest | dg.SkipReason:
    run = context.dagster_run
    tags = dict(run.tags)
    strategy = next_strategy(tags)
    if strategy is None:
        return dg.SkipReason(f"run {run.run_id} ends its chain of strategies")
    content = tags.get(CONTENT_TAG, run.run_id)
    carried = {k: v for k, v in tags.items() if k.startswith("legco/")}
    return dg.RunRequest(
        run_key=f"{content}:{strategy.value}",
        partition_key=tags[PARTITION_TAG],
        job_name=JOBS[strategy].name,
        asset_selection=CHAINED_ASSETS,
        tags={**carried, STRATEGY_TAG: strategy.value},
    )
