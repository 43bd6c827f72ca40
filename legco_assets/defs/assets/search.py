"""Stage ``search`` (core/search): ``vector_index``, the chunks embedded into Chroma, with its
checks: retrieval against the paper's gold questions, and Q&A counts against its
other-language version."""

from typing import Any

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.artifacts import Artifacts, chunks_file
from legco_assets.core.embedding_ahead import wait_for
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import counterpart_question_counts

from ..indexed import strategies_table
from ..lineage import upstream_metadata
from ..resources import ChromaResource, LegcoSettings
from .chunking import ChunkingConfig, chunks
from .common import check_spec, not_run_metadata, paper_asset, tag_strategy, written_version
from .sources import counterpart_ui_metadata, source_document

RETRIEVAL_CHECK = "retrieval_hit_at_5"
COUNTERPART_CHECK = "counterpart_question_counts_agree"


@paper_asset(
    "retrieval",
    {"chromadb"},
    "4",
    checks_may_not_run=True,  # no gold questions, no counterpart: most papers
    deps=[chunks],
    check_specs=[
        check_spec(
            "vector_index",
            RETRIEVAL_CHECK,
            "Warns: hybrid search finds the answers to this document's gold questions (Hit@5, searching this "
            "document only) at least as often as recorded. Not executed (no result) for a paper without gold "
            "questions; the materialisation says why under checks_not_run.",
        ),
        check_spec(
            "vector_index",
            COUNTERPART_CHECK,
            "Warns: a paper paired with its other-language version has as many Q&A pairs as that version "
            "(one side's structure missed or split a question). Not executed (no result) for a paper without "
            "a counterpart; the materialisation says why under checks_not_run.",
        ),
    ],
    description="Chunks embedded and upserted into Chroma; ids <document_id>:<strategy>:<index>, "
    "replace-by-document.",
)
def vector_index(
    context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings, chroma: ChromaResource
) -> dg.MaterializeResult:
    # Chroma and the embedder: loaded by the run, not by the code location
    from legco_assets.core.search import (
        stored_versions,
        versions_markdown,
    )

    config = config.resolved(legco.settings())  # unset fields: the settings' (strategy too)
    tag_strategy(context, config.strategy)
    settings = legco.settings()
    collection = chroma.collection(settings)
    wait_for(context.partition_key, config.strategy)  # the vectors `ingest` makes ahead, in a process
    outcome = pipeline.stage_vector_index(settings, context.partition_key, config.strategy, collection)
    result, paired = outcome.stored, outcome.counterpart
    versions = stored_versions(collection, context.partition_key)
    counterpart = counterpart_ui_metadata(settings, context.partition_key)
    if paired.decided and paired.candidate:  # both sides' source_document show the pairing
        for key in (context.partition_key, paired.candidate):
            context.log_event(
                dg.AssetObservation(
                    asset_key=source_document.key,
                    partition=key,
                    metadata=counterpart_ui_metadata(settings, key),
                )
            )
    _record_indexed(settings, context.partition_key, config.strategy, result.ids)
    outcomes = {
        RETRIEVAL_CHECK: _retrieval_check(settings, collection, context.partition_key, config.strategy),
        COUNTERPART_CHECK: _counterpart_check(
            settings, context.partition_key, config.strategy, counterpart.get("counterpart_document_id")
        ),
    }
    skipped = {name: why for name, why in outcomes.items() if isinstance(why, str)}
    for name, reason in skipped.items():
        context.log.info(f"check {name} not run: {reason}")
    return dg.MaterializeResult(
        data_version=written_version(
            settings, context.partition_key, *(f"indexed-{s.value}.json" for s in Strategy)
        ),
        metadata={
            "strategy": config.strategy.value,
            **counterpart,
            **upstream_metadata(context, config.strategy),
            "counterpart_chunks_updated": paired.chunks_updated,
            "collection": collection.name,
            "ids_written": result.written,
            "stale_ids_deleted": result.deleted,
            "previous_version_chunks_archived": result.archived,
            "first_ids": dg.MetadataValue.json(result.ids[:10]),
            "stored_versions": dg.MetadataValue.md(versions_markdown(versions)),
            # after the store: every strategy's ids in Chroma as they are now
            "strategies": strategies_table(context, settings, context.partition_key, config.strategy),
            **not_run_metadata(skipped),
        },
        # a check that could not run gets no result (skipped for this partition), not a failure
        check_results=[r for r in outcomes.values() if isinstance(r, dg.AssetCheckResult)],
    )


def _record_indexed(settings: Settings, document_id: str, strategy: Strategy, ids: list[str]) -> None:
    """``indexed-<strategy>.json``: the ids stored and the chunk file they came from. Chroma
    is not a file of the paper's, so this is what ``vector_index``'s data version hashes."""
    chunks_version = written_version(settings, document_id, chunks_file(strategy)).value
    Artifacts(settings, document_id).write_json(
        f"indexed-{strategy.value}.json", {"ids": ids, "chunks": chunks_version}
    )


def _counterpart_check(
    settings: Settings, document_id: str, strategy: Strategy, partner: str | None
) -> dg.AssetCheckResult | str:
    """WARN when the two language versions of a paper have different numbers of Q&A pairs;
    for a paper without a counterpart, why the check could not run (no result)."""
    if not partner:
        return "no paired counterpart"
    mine, theirs = counterpart_question_counts(settings, document_id, partner)
    return dg.AssetCheckResult(
        check_name=COUNTERPART_CHECK,
        passed=mine == theirs,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"{strategy.value}: {mine} Q&A pairs here, {theirs} in {partner}",
        metadata={
            "strategy": strategy.value,
            "evaluated": True,
            "questions": mine,
            "counterpart_questions": theirs,
            "counterpart_document_id": partner,
        },
    )


def _retrieval_check(
    settings: Settings, collection: Any, document_id: str, strategy: Strategy
) -> dg.AssetCheckResult | str:
    """Hit@5 on the document's gold questions against its recorded baseline; for a document
    without gold questions, why the check could not run (no result)."""
    from legco_assets.core.evaluation import check_stored_document  # the eval loads search: at run time only

    outcome = check_stored_document(settings, collection, document_id, strategy.value)
    if outcome is None:
        return "no gold questions for this document"
    baseline = "none recorded" if outcome.baseline is None else f"{outcome.baseline:.3f}"
    return dg.AssetCheckResult(
        check_name=RETRIEVAL_CHECK,
        passed=outcome.passed,
        description=f"{strategy.value}: Hit@5 {outcome.hit5:.3f} on {outcome.questions} gold questions "
        f"(baseline {baseline})",
        metadata={
            "strategy": strategy.value,
            "evaluated": True,
            "hit_at_5": outcome.hit5,
            "baseline": outcome.baseline if outcome.baseline is not None else -1.0,
            "questions": outcome.questions,
            "misses": dg.MetadataValue.json(outcome.misses),
        },
    )
