"""``strategy_chain_sensor``: a paper from the inbox or the feed gets every strategy of
``LEGCO_SENSOR_STRATEGIES`` (default ``token,question``), one run after the other.

Why a chain: ``chunks``, ``vector_index`` and ``chunk_excerpts`` take the strategy as run
config, so one run chunks one way. The sensors request the first strategy's run (the whole
graph); when it succeeds, this sensor requests the next strategy's run of those three assets
only, re-using the stored upstream results (no re-parse, no LLM call). Runs started at the
same time would write the same paper's artifacts at once; one after the other they never
do. Strategies fail alone: when a run fails in its own strategy's steps
(``chunks``, ``vector_index``, ``chunk_excerpts``: a chunker's bug, a blocking check, Chroma
down), ``strategy_chain_after_failure_sensor`` requests the next strategy all the same; only
a failed shared stage (``page_text``, ``document_structure``…) ends the chain, as the next
strategy has nothing to chunk: its tick says which stage and which strategies were not run.
The run key ``<content>:<strategy>`` keeps each strategy to one run per file version.
"""

import dagster as dg

from legco_assets.core.settings import Strategy

from ..jobs import JOBS, STRATEGY_ASSETS
from ..names import CONTENT_TAG, FAILURE_TAG, PARTITION_TAG, RUN_TAG_PREFIX, STRATEGIES_TAG, STRATEGY_TAG

CHAINED_ASSETS = [dg.AssetKey(name) for name in STRATEGY_ASSETS]  # chunks, vector_index, chunk_excerpts
# how often the daemon looks for ended runs: a paper's next strategy starts within seconds of
# its first (Dagster's default, 30 s, left a small paper's second strategy waiting up to half a
# minute after a run of a few seconds); a look is one read of the run events since its cursor
CHAIN_INTERVAL_S = 5


def next_strategy(tags: dict[str, str]) -> Strategy | None:
    """The strategy after the run's own in its chain, or None at the end (or no chain)."""
    chain = [Strategy.parse(s) for s in tags.get(STRATEGIES_TAG, "").split(",") if s]
    current = tags.get(STRATEGY_TAG)
    names = [s.value for s in chain]
    if current not in names or names.index(current) + 1 >= len(chain):
        return None
    return chain[names.index(current) + 1]


def _next_run(context: dg.RunStatusSensorContext) -> dg.RunRequest | dg.SkipReason:
    """The next strategy's run for the paper of the run that just ended, or why none."""
    run = context.dagster_run
    tags = dict(run.tags)
    strategy = next_strategy(tags)
    if strategy is None:
        return dg.SkipReason(f"run {run.run_id} ends its chain of strategies")
    content = tags.get(CONTENT_TAG, run.run_id)
    # the run's own failure reason (defs/failures.py) is not the next run's
    carried = {k: v for k, v in tags.items() if k.startswith(RUN_TAG_PREFIX) and k != FAILURE_TAG}
    return dg.RunRequest(
        run_key=f"{content}:{strategy.value}",
        partition_key=tags[PARTITION_TAG],
        job_name=JOBS[strategy].name,
        asset_selection=CHAINED_ASSETS,
        tags={**carried, STRATEGY_TAG: strategy.value},
    )


def failed_shared_stages(instance: dg.DagsterInstance, run_id: str) -> list[str]:
    """The stages every strategy reads (not a strategy's own) that failed in the run."""
    failures = instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_FAILURE)
    return [e.step_key for e in failures if e.step_key and e.step_key not in STRATEGY_ASSETS]


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    minimum_interval_seconds=CHAIN_INTERVAL_S,
    monitored_jobs=list(JOBS.values()),
    request_jobs=list(JOBS.values()),
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a sensor-requested ingest run succeeds, runs chunks, vector_index and chunk_excerpts "
    "with the next strategy of LEGCO_SENSOR_STRATEGIES for the same paper.",
)
def strategy_chain_sensor(context: dg.RunStatusSensorContext) -> dg.RunRequest | dg.SkipReason:
    return _next_run(context)


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.FAILURE,
    minimum_interval_seconds=CHAIN_INTERVAL_S,
    monitored_jobs=list(JOBS.values()),
    request_jobs=list(JOBS.values()),
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a sensor-requested ingest run fails in its own strategy's steps, runs the next "
    "strategy of LEGCO_SENSOR_STRATEGIES for the same paper all the same (strategies fail alone); a failed "
    "shared stage ends the chain.",
)
def strategy_chain_after_failure_sensor(context: dg.RunStatusSensorContext) -> dg.RunRequest | dg.SkipReason:
    run = context.dagster_run
    shared = failed_shared_stages(context.instance, run.run_id)
    if shared and next_strategy(dict(run.tags)) is not None:
        left = _strategies_after(dict(run.tags))
        return dg.SkipReason(
            f"run {run.run_id} failed in the shared stage {shared[0]} of {run.tags.get(PARTITION_TAG)}: "
            f"strategies {', '.join(left)} not run (nothing to chunk); each fails with it"
        )
    return _next_run(context)


def _strategies_after(tags: dict[str, str]) -> list[str]:
    chain = [s for s in tags.get(STRATEGIES_TAG, "").split(",") if s]
    current = tags.get(STRATEGY_TAG)
    return chain[chain.index(current) + 1 :] if current in chain else []
