"""``inbox_sensor``: a partition and one run per new or changed inbox file.

The run key is ``<document_id>@<sha256>``, so the same content is never ingested twice into
a partition; a changed file (new sha256) is a new version of the same partition. A new file
whose bytes a partition already holds is that paper under another name
(``DocumentIndex.claim``): no partition and no run, a line in the tick's log (the skip reason
when nothing else ran) and an observation of that partition's ``source_document`` naming it.
A file left out (unsupported type, ``LEGCO_INBOX_INCLUDE``/``EXCLUDE``,
``LEGCO_MAX_PAGES``/``MAX_FILE_MB``) is named with its reason in the tick's log once, when it
appears or its reason changes, and gets no partition.
Runs carry ``legco/content = <run key>``; content that already has a run (the feed sensor
requested it when it downloaded the file) gets no second one.
"""

import json

import dagster as dg

from legco_assets.core.sources import DocumentIndex, scan_inbox

from ..jobs import JOBS, first_run
from ..names import CONTENT_TAG, FILE_TAG
from ..partitions import another_name, documents_partitions, same_bytes_line
from ..resources import LegcoSettings


def _with_runs(instance: dg.DagsterInstance, contents: list[str]) -> set[str]:
    """Which of these contents already have a run (one query for the whole tick)."""
    records = instance.get_run_records(filters=dg.RunsFilter(tags={CONTENT_TAG: contents}))
    return {r.dagster_run.tags.get(CONTENT_TAG, "") for r in records}


@dg.sensor(
    jobs=list(JOBS.values()),
    minimum_interval_seconds=10,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches LEGCO_INBOX; adds a partition per new/changed file and runs it with each strategy "
    "of LEGCO_SENSOR_STRATEGIES (default token,question: the first here, the others by "
    "strategy_chain_sensor).",
)
def inbox_sensor(context: dg.SensorEvaluationContext, legco: LegcoSettings) -> dg.SensorResult:
    settings = legco.settings()
    state = json.loads(context.cursor) if context.cursor else {}
    scan = scan_inbox(settings.inbox, state, settings)
    changed, state = scan.changed, scan.state
    for skipped in scan.skipped:
        context.log.warning(f"skipped {skipped.path}: {skipped.reason}")
    if not changed:
        note = f"; skipped {len(scan.skipped)} file(s), see the log" if scan.skipped else ""
        return dg.SensorResult(
            skip_reason=f"no new or changed files in {settings.inbox}{note}", cursor=json.dumps(state)
        )
    index = DocumentIndex(settings.documents_dir)
    claims = [(f, index.claim(f.path, f.sha256)) for f in changed]
    aliases = [(f, c.document_id) for f, c in claims if c.same_bytes]
    for f, key in aliases:
        context.log.info(same_bytes_line(f.path, key))
    changed = [f for f, c in claims if not c.same_bytes]
    keys = [c.document_id for _, c in claims if not c.same_bytes]
    named = [
        another_name(f.path, c.document_id, index.get(c.document_id).also_named)
        for f, c in claims
        if c.new_name
    ]
    if not changed:
        lines = "; ".join(same_bytes_line(f.path, key) for f, key in aliases)
        return dg.SensorResult(skip_reason=lines, cursor=json.dumps(state), asset_events=named)
    job, chain = first_run(settings.sensor_strategies)  # strategy_chain_sensor runs the others after it
    contents = [f"{key}@{f.sha256}" for key, f in zip(keys, changed)]
    ran = _with_runs(context.instance, contents)
    requests = [
        dg.RunRequest(
            run_key=content,
            partition_key=key,
            job_name=job.name,
            tags={FILE_TAG: f.path.name, CONTENT_TAG: content, **chain},
        )
        for key, f, content in zip(keys, changed, contents)
        if content not in ran
    ]
    return dg.SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[documents_partitions.build_add_request(sorted(set(keys)))],
        cursor=json.dumps(state),
        asset_events=named,
    )
