"""Stage ``structure`` (core/structure): ``document_structure``, the paper's sections and
outline, with the paper's checks as warnings."""

from collections import Counter
from typing import Any

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.artifacts import Artifacts
from legco_assets.core.records import join_path
from legco_assets.core.structure import AnnexReport, outline_markdown

from ..lineage import upstream_metadata
from ..resources import LegcoSettings, LLMResource
from .common import (
    COUNCIL_COLUMNS,
    check_results,
    md_table,
    not_run,
    not_run_metadata,
    paper_asset,
    paper_check_specs,
    short_path,
    shown_of,
    written_version,
)
from .read import page_text

STRUCTURE_CHECKS = [
    "qa_numbering_complete",
    "every_question_answered",
    "text_layer_readable",
    "question_labels_paired",
    "questions_match_open_data",
    "paper_date_found",
]


@paper_asset(
    "structure",
    {"python"},
    "3",
    checks_may_not_run=True,  # questions_match_open_data: only a paper from the feed has LegCo's records
    deps=[page_text],
    # warnings, not gates: a gap in a paper's numbering is often the paper's own (a pair
    # withdrawn in drafting), and the chunks stay right; the chunk checks are the gates
    check_specs=paper_check_specs("document_structure", STRUCTURE_CHECKS),
    description="Sections (qa, narrative, speaking_notes, table, toc) with question ids, spans, pages and "
    "heading paths; rules first, LLM when unsure; the outline from typography and the contents list.",
)
def document_structure(
    context: dg.AssetExecutionContext, legco: LegcoSettings, llm: LLMResource
) -> dg.MaterializeResult:
    settings = legco.settings()
    outcome = pipeline.stage_structure(settings, context.partition_key, llm.client(settings))
    sections, how, labels = outcome.sections, outcome.found, outcome.labels
    skipped = not_run(outcome.checks)
    for name, reason in skipped.items():
        context.log.info(f"check {name} not run: {reason}")
    rows = [
        [
            s.type,
            s.qa_id or "",
            short_path(join_path(s.path)),
            f"{s.start_page}–{s.end_page}",
            "✓" if s.has_table else "",
        ]
        for s in sections
    ]
    header = ["type", "id", "section path", "pages", "table"]
    if any(s.question_kind for s in sections):  # Council proceedings: who asked, which question it follows
        header += COUNCIL_COLUMNS
        rows = [
            row + [s.question_kind or "", s.asker or "", s.parent_question_id or ""]
            for row, s in zip(rows, sections)
        ]
    return dg.MaterializeResult(
        metadata={
            "sections": len(sections),
            "qa_pairs": sum(s.type == "qa" for s in sections),
            "labels_seen": labels.labels_seen,
            "pairs_made": labels.pairs_made,
            "by_type": dg.MetadataValue.json(dict(Counter(s.type for s in sections))),
            "found_by": how.source,
            "llm_reason": how.reason or "not asked",
            "llm_dropped": dg.MetadataValue.json(how.dropped),
            **{k: v for k, v in how.stats.items() if isinstance(v, (int, float))},
            "structure": dg.MetadataValue.md(
                shown_of(
                    min(len(rows), 200),
                    len(rows),
                    "sections",
                    f"all in {Artifacts(settings, context.partition_key).path('structure.json')}",
                )
                + md_table(header, rows[:200])
            ),
            **_paper_metadata(outcome.paper.to_dict()),
            "headings": len(outcome.outline),
            "outline": dg.MetadataValue.md(outline_markdown(outcome.outline)),
            **_annex_metadata(outcome.annexes),
            "llm_model": settings.llm_model_name or "none (rules only)",
            "prompt_version": how.prompt_version,
            **upstream_metadata(context),
            **not_run_metadata(skipped),
        },
        data_version=written_version(settings, context.partition_key, "structure.json"),
        # the same decision as `legco-assets chunk` (core/quality.paper_checks): here its warnings,
        # without those that could not run (no result: skipped for this partition)
        check_results=check_results(outcome.checks),
    )


def _paper_metadata(paper: dict[str, Any]) -> dict[str, Any]:
    """When, what and for whom the paper is, as its own markers say (the keys every chunk
    of it carries): absent entries are facts the paper does not print."""
    names = {"kind": "paper_kind", "date": "paper_date", "date_precision": "date_precision"}
    names |= {"date_source": "date_source", "paper_number": "paper_number", "committee": "committee"}
    return {"paper_date": "none printed", **{names[k]: v for k, v in paper.items() if k in names}}


def _annex_metadata(annexes: AnnexReport | None) -> dict[str, Any]:
    """A Hansard's appendices and the exchanges they answer (core/structure/annexes.py)."""
    if annexes is None:
        return {}
    return {"annexes": dg.MetadataValue.json(annexes.to_dict())}
