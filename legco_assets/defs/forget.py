"""The ``forget_document`` job: a paper (or one past version of it) removed from everything
the pipeline keeps, launched from the UI's launchpad with the document ids as config.

Why a job and not a button on the partition: Dagster has no per-partition action, and a job
run leaves the record people look for: a run log line per removed item, and an observation
on the paper's ``source_document`` partition listing them (kept in the event log after the
partition itself is gone). What is removed, and how, is :func:`legco_assets.core.search.forget`;
the partition is this job's to remove (``legco-assets forget`` removes it the same way,
:func:`forget_all`)."""

from collections.abc import Callable
from typing import Any

import dagster as dg
from pydantic import Field

from legco_assets.core.settings import Settings

from .failures import failure
from .partitions import documents_partitions
from .resources import ChromaResource, LegcoSettings


class ForgetConfig(dg.Config):
    document_ids: list[str] = Field(
        description="The papers to forget, as their partition keys (sample-en-qa); DOC@<8+ hex digits of a "
        "sha256> forgets that past version only (its archived chunks).",
    )


def forget_all(
    settings: Settings,
    collection: Any,
    instance: dg.DagsterInstance,
    texts: list[str],
    say: Callable[[str], None],
) -> list[Any]:
    """Check every target first (an unknown one stops it all, before anything is removed),
    then forget each: its stored pieces (:func:`legco_assets.core.search.forget`) and its
    dynamic partition; ``say`` gets one line per item removed. Returns the
    :class:`~legco_assets.core.search.Forgotten` of each target."""
    from legco_assets.core.search import check_targets, forget

    partitions = set(instance.get_dynamic_partitions(documents_partitions.name))
    done = []
    for target in check_targets(settings, collection, texts, partitions):
        forgotten = forget(settings, collection, target)
        if not target.version and target.document_id in partitions:
            instance.delete_dynamic_partition(documents_partitions.name, target.document_id)
            forgotten.said(f"partition: {target.document_id} removed from {documents_partitions.name}")
        if not forgotten.lines:
            forgotten.said("nothing was stored")
        for line in forgotten.lines:
            say(line)
        done.append(forgotten)
    return done


@dg.op(
    description="Remove papers: their partition, artifacts and excerpts, chunks in Chroma (and so the "
    "keyword index), BM25 cache and document-index entry. One log line per item removed.",
)
def forget_documents(
    context: dg.OpExecutionContext, config: ForgetConfig, legco: LegcoSettings, chroma: ChromaResource
) -> None:
    from legco_assets.core.search import UnknownDocument

    if not config.document_ids:  # the launchpad's scaffold is an empty list
        raise failure("no document ids: set ops.forget_documents.config.document_ids")
    settings = legco.settings()
    try:
        done = forget_all(
            settings, chroma.collection(settings), context.instance, config.document_ids, context.log.info
        )
    except UnknownDocument as exc:
        raise failure(str(exc)) from None
    for forgotten in done:
        context.log_event(
            dg.AssetObservation(
                asset_key="source_document",
                partition=forgotten.target.document_id,
                description=f"forgotten by run {context.run_id[:8]}: {len(forgotten.lines)} item(s) removed",
                metadata={"removed": dg.MetadataValue.json(forgotten.lines), "target": str(forgotten.target)},
            )
        )


@dg.job(
    name="forget_document",
    description="Forget papers: config ops.forget_documents.config.document_ids = [ids]; removes each "
    "one's partition, artifacts, excerpts, Chroma chunks, BM25 cache and index entry.",
    executor_def=dg.in_process_executor,  # one short step: no process of its own
)
def forget_document_job() -> None:
    forget_documents()
