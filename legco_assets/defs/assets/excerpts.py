"""Stage ``excerpts`` (core/excerpts): ``chunk_excerpts``, every chunk's text highlighted on
the source, a strategy's excerpts of a paper in one file, linked over HTTP."""

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.excerpts import chunk_link, excerpt_url
from legco_assets.core.settings import Strategy
from legco_assets.core.storage import shown

from ..lineage import upstream_metadata
from ..resources import LegcoSettings
from .chunking import ChunkingConfig, chunks
from .common import md_table, paper_asset, shown_of, tag_strategy, written_version

EXCERPT_LOCATED = 0.99  # share of a chunk's characters found and highlighted in its excerpt


@paper_asset(
    "retrieval",
    {"pdf", "html"},
    "2",
    deps=[chunks],
    description="Every chunk of the configured strategy highlighted on the source, in one file per strategy "
    "that costs less than the paper: excerpts/<strategy>.pdf (the paper with an annotation per chunk, stored "
    "as an update of the stored paper) or excerpts/<strategy>.html for a web page or text paper. "
    "A chunk's link (chunk_file_path in Chroma: excerpt/<chunk id> below EXCERPTS_BASE_URL, which "
    "`legco-assets serve` answers) opens its own excerpt, cut on demand from that file: only its pages "
    "and only its highlight (a web or text paper: the page with only its marks, scrolled to them); "
    "`legco-assets excerpt CHUNK_ID` writes the same. Re-made only when a chunk changed.",
)
def chunk_excerpts(
    context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings
) -> dg.MaterializeResult:
    config = config.resolved(legco.settings())  # unset fields: the settings' (strategy too)
    tag_strategy(context, config.strategy)
    settings = legco.settings()
    outcome = pipeline.stage_excerpts(settings, context.partition_key, config.strategy)
    report, folder, paper_bytes = outcome.report, outcome.folder, outcome.paper_bytes
    below = [e for e in report.excerpts if e.ratio < EXCERPT_LOCATED]
    key, strategy = context.partition_key, config.strategy.value  # a chunk's id: key:strategy:index
    rows = [
        [
            e.index,
            ", ".join(map(str, e.pages)),
            f"{e.ratio:.1%}",
            f"[open]({excerpt_url(settings.excerpts_base_url, chunk_link(f'{key}:{strategy}:{e.index}'))})",
        ]
        for e in report.excerpts[:60]
    ]
    return dg.MaterializeResult(
        metadata={
            "strategy": config.strategy.value,
            "excerpt_kind": report.kind,
            "excerpts": len(report.excerpts),
            "file": report.file,
            "stored_bytes": report.bytes,
            "share_of_paper": round(report.bytes / paper_bytes, 4) if paper_bytes else 0.0,
            "written": report.written,
            "reused_unchanged": report.reused,
            "deleted": report.deleted,
            "characters_located": round(report.located, 4),
            "chunks_below_99pct_located": len(below),
            "seconds": round(report.seconds, 3),
            "excerpts_per_second": round(report.written / report.seconds, 1)
            if report.seconds and report.written
            else 0.0,
            "folder": dg.MetadataValue.path(shown(folder)),
            "preview": dg.MetadataValue.md(
                shown_of(
                    len(rows),
                    len(report.excerpts),
                    "excerpts",
                    f"legco-assets chunks {context.partition_key} --strategy {config.strategy.value} for all",
                )
                + md_table(["chunk", "pages", "highlighted", "excerpt"], rows)
            ),
            **upstream_metadata(context, config.strategy),
        },
        data_version=written_version(
            settings, context.partition_key, *(f"excerpts/{s.value}.json" for s in Strategy)
        ),
    )
