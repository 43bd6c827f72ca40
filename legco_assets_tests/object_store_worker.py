"""One run worker of ``test_object_storage``'s two-worker test, started as its own process
with its own empty local folders (cwd, cache, Dagster home) and nothing shared with the
other worker but the S3 bucket and the Chroma server.

It does what a run launcher's worker does: claims the paper (``LEGCO_INBOX`` in the bucket)
in the index that lives in the bucket, adds the partition to its own instance, and runs
both strategies' jobs on Dagster's multiprocess executor (every step its own process, the
step processes importing this module again to rebuild the job). Prints the document id.
"""

from __future__ import annotations

import sys

import dagster as dg

from legco_assets.core.settings import Settings, Strategy
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import JOBS, strategy_run_config
from legco_assets.defs.resources import resources_for


def _job(strategy: Strategy) -> dg.JobDefinition:
    defs = dg.Definitions(
        assets=ALL_ASSETS, jobs=[JOBS[strategy]], resources=resources_for(Settings.from_env())
    )
    return defs.resolve_job_def(JOBS[strategy].name)


def token_job() -> dg.JobDefinition:
    return _job(Strategy.token)


def question_job() -> dg.JobDefinition:
    return _job(Strategy.question)


def _run_config(strategy: Strategy) -> dict:
    return {
        **strategy_run_config(strategy),
        "execution": {"config": {"multiprocess": {"max_concurrent": 2}}},
    }


def main(paper: str) -> int:
    from legco_assets.core.sources import DocumentIndex
    from legco_assets.core.sources.documents import file_sha256
    from legco_assets.core.storage import location

    settings = Settings.from_env()
    key = DocumentIndex(settings.documents_dir).claim(paper, file_sha256(location(paper))).document_id
    instance = dg.DagsterInstance.get()
    instance.add_dynamic_partitions("documents", [key])
    for strategy, job in ((Strategy.token, token_job), (Strategy.question, question_job)):
        with dg.execute_job(
            dg.reconstructable(job),
            instance=instance,
            run_config=_run_config(strategy),
            tags={"dagster/partition": key},
        ) as result:
            if not result.success:
                print(f"{strategy.value} run failed", file=sys.stderr)
                return 1
            pids = {e.pid for e in result.all_events if e.is_step_start}
            print(f"{strategy.value} steps in {len(pids)} processes", file=sys.stderr)
    print(key)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
