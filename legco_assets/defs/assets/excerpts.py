"""Stage ``excerpts`` (core/excerpts): ``chunk_excerpts``, each chunk's pages cut from the
source with its own text highlighted."""

from urllib.parse import quote

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.settings import Strategy

from ..lineage import upstream_metadata
from ..resources import LegcoSettings
from .chunking import ChunkingConfig, chunks
from .common import md_table, paper_asset, tag_strategy, written_version

EXCERPT_LOCATED = 0.99  # share of a chunk's characters found and highlighted in its excerpt


@paper_asset(
    "retrieval", {"pdf", "html"}, "1", deps=[chunks],
    description="Per chunk of the configured strategy, the pages it spans cut from the source PDF with its own text "
    "highlighted (an HTML page with <mark> for a web page, a text excerpt for DOCX/TXT/Markdown), under "
    "excerpts/<strategy>/<index>.<ext>; re-made only for chunks that changed. The path is chunk_file_path in Chroma.",
)
def chunk_excerpts(context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings) -> dg.MaterializeResult:
    tag_strategy(context, config.strategy.value)
    settings = legco.settings()
    report = pipeline.stage_excerpts(settings, context.partition_key, config.strategy)
    folder = pipeline.excerpt_folder(settings, context.partition_key, config.strategy)
    below = [e for e in report.excerpts if e.ratio < EXCERPT_LOCATED]
    rows = [
        [e.index, ", ".join(map(str, e.pages)), f"{e.ratio:.1%}", f"[{e.file}](file://{quote(str((folder / e.file).resolve()))})"]
        for e in report.excerpts[:60]
    ]
    return dg.MaterializeResult(
        metadata={
            "strategy": config.strategy.value,
            "excerpt_kind": report.kind,
            "excerpts": len(report.excerpts),
            "written": report.written,
            "reused_unchanged": report.reused,
            "deleted": report.deleted,
            "characters_located": round(report.located, 4),
            "chunks_below_99pct_located": len(below),
            "seconds": round(report.seconds, 3),
            "excerpts_per_second": round(report.written / report.seconds, 1) if report.seconds and report.written else 0.0,
            "folder": dg.MetadataValue.path(str(folder.resolve())),
            "preview": dg.MetadataValue.md(md_table(["chunk", "pages", "highlighted", "excerpt"], rows)),
            **upstream_metadata(context, config.strategy.value),
        },
        data_version=written_version(settings, context.partition_key, *(f"excerpts/{s.value}/manifest.json" for s in Strategy)),
    )
