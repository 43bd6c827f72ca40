"""The names that ``defs/`` writes and ``cli/`` (or a sensor) reads back: run tags, check
metadata keys, and the facts of each stage that ``legco-assets ingest`` prints. One
spelling each; this module imports nothing, so the CLI may read it without Dagster."""

from __future__ import annotations

# run tags
STRATEGY_TAG = "legco/strategy"  # the chunking strategy of a run, for the Runs list and the strategy chain
STRATEGIES_TAG = "legco/strategies"  # what a sensor's paper is chunked with, in order
SOURCE_TAG = "legco/source"  # who launched the run ("cli"; a sensor's runs carry the sensor's own tag)
FILE_TAG = "legco/file"  # the file a sensor's run ingests
CONTENT_TAG = "legco/content"  # the inbox sensor's content hash of that file
HANSARD_ID_TAG = "legco/hansard_id"  # the feed record a feed run ingests
MEETING_DATE_TAG = "legco/meeting_date"
FAILURE_TAG = (
    "legco/failure"  # the one-line reason a run failed on an expected problem (the Runs list shows it)
)
RUN_TAG_PREFIX = "legco/"  # the chained run of the next strategy carries every tag of ours but FAILURE_TAG
PARTITION_TAG = "dagster/partition"  # Dagster's own

# the metadata of a check result (defs/results.py writes and reads them)
EVALUATED = "evaluated"  # False: the check could not run for this paper (not a pass, no finding)
REASON = "reason"  # why it could not run
DETAILS = "details"  # the core check's details (quality.Check.details)
BLOCKING = "blocking"  # a failure keeps the chunks out of Chroma
STRATEGY = (
    "strategy"  # the chunking strategy a result (or a materialisation) belongs to, first in its metadata
)
CHECKS_NOT_RUN = "checks_not_run"  # on a materialisation: the checks that got no result, and why

# per asset, the metadata keys of its materialisation that ``legco-assets ingest`` prints, in order
STAGE_SUMMARY = {
    "source_document": ("pages",),
    "page_text": ("pages", "characters"),
    "page_images": ("images",),
    "page_tables": ("tables",),
    "document_structure": ("sections", "qa_pairs"),
    "chunks": ("chunks",),
    "vector_index": ("ids_written",),
    "chunk_excerpts": ("excerpts", "written"),
}
