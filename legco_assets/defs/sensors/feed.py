"""``legco_feed_sensor``: LegCo's Hansard open data on a schedule.

Each tick is one ``core.sources.poll``: new records' PDFs are downloaded into the inbox,
and for each a partition is added and a run requested directly, with the run key
``hansard:<HansardID>@<sha256>``, so a paper is never requested twice. Runs carry the tag
``legco/content = <document_id>@<sha256>``, the inbox sensor's run key, and the inbox sensor
requests no second run for content that already has one. A download whose bytes a partition
already holds (the same paper dropped into the inbox by hand) is that paper under another
name: no partition, no run, a line in the tick's log and an observation on its partition.

STOPPED by default: it reaches the internet, so a person starts it (UI: Automation →
``legco_feed_sensor`` → Start). Its cursor is the last meeting date and the HansardIDs seen
(the state itself is ``feed/state.json`` under the data dir, shared with ``legco-assets feed``).
A record that fails is named in the tick's log and tried again on the next tick.
"""

import json

import dagster as dg

from legco_assets.core.settings import Settings
from legco_assets.core.sources import DocumentIndex, FeedBusy, FeedState, poll

from ..jobs import JOBS, first_run
from ..names import CONTENT_TAG, FILE_TAG, HANSARD_ID_TAG, MEETING_DATE_TAG
from ..partitions import another_name, documents_partitions, same_bytes_line
from ..resources import LegcoSettings


def _poll_feed(context: dg.SensorEvaluationContext, legco: LegcoSettings) -> dg.SensorResult:
    settings = legco.settings()
    try:
        result = poll(settings)  # FeedError (unreachable, malformed) fails the tick with its line
    except FeedBusy as exc:
        return dg.SensorResult(skip_reason=str(exc))
    for failed in result.failed:
        context.log.error(failed.line())
    cursor = json.dumps(FeedState(settings).summary())
    if not result.fetched:
        reason = f"no new Hansards in {settings.feed_url} since {result.since}"
        return dg.SensorResult(
            skip_reason=reason + (f"; {len(result.failed)} failed, see the log" if result.failed else ""),
            cursor=cursor,
        )
    index = DocumentIndex(settings.documents_dir)
    job, chain = first_run(settings.sensor_strategies)  # strategy_chain_sensor runs the others after it
    requests, keys, named, lines = [], [], [], []
    for fetched in result.fetched:
        record = fetched.record
        context.log.info(
            f"fetched {fetched.path.name} ({record.meeting_date} {record.hansard_type}) from {record.url}"
        )
        claim = index.claim(fetched.path, fetched.sha256)
        key = claim.document_id
        if claim.same_bytes:  # a paper already a partition (dropped into the inbox before)
            lines.append(same_bytes_line(fetched.path, key))
            context.log.info(lines[-1])
            if claim.new_name:
                named.append(another_name(fetched.path, key, index.get(key).also_named))
            continue
        keys.append(key)
        requests.append(
            dg.RunRequest(
                run_key=f"hansard:{record.hansard_id}@{fetched.sha256}",
                partition_key=key,
                job_name=job.name,
                tags={
                    CONTENT_TAG: f"{key}@{fetched.sha256}",
                    **chain,
                    FILE_TAG: fetched.path.name,
                    HANSARD_ID_TAG: record.hansard_id,
                    MEETING_DATE_TAG: record.meeting_date.isoformat(),
                },
            )
        )
    if not requests:
        return dg.SensorResult(
            skip_reason="; ".join(lines),
            cursor=cursor,
            asset_events=named,
        )
    return dg.SensorResult(
        run_requests=requests,
        dynamic_partitions_requests=[documents_partitions.build_add_request(sorted(set(keys)))],
        cursor=cursor,
        asset_events=named,
    )


def feed_sensor(interval_minutes: int) -> dg.SensorDefinition:
    """The sensor, ticking every ``interval_minutes`` (``LEGCO_FEED_INTERVAL_MINUTES``): the
    interval is part of the sensor's definition, so the code location builds it from its
    settings (``defs/location.py``) rather than reading the environment at import."""
    return dg.sensor(
        name="legco_feed_sensor",
        jobs=list(JOBS.values()),
        minimum_interval_seconds=interval_minutes * 60,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="Polls LegCo's Hansard open data (LEGCO_FEED_URL) every LEGCO_FEED_INTERVAL_MINUTES; "
        "downloads new Chinese/English Hansards into the inbox and runs each with the strategies of "
        "LEGCO_SENSOR_STRATEGIES.",
    )(_poll_feed)


# at the built-in interval, for a tick run directly
legco_feed_sensor = feed_sensor(Settings().feed_interval_minutes)
