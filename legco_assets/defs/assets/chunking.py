"""Stage ``chunking`` (core/chunking): ``chunks`` for the strategy of the run config
(:class:`ChunkingConfig`, which ``vector_index`` and ``chunk_excerpts`` take too), with the
paper's checks as gates."""

from collections import Counter
from typing import Any

import dagster as dg
from pydantic import Field, model_validator

from legco_assets.core import pipeline
from legco_assets.core.artifacts import chunks_file
from legco_assets.core.excerpts import excerpt_url, with_excerpt_paths
from legco_assets.core.records import ChunkRecord, join_path
from legco_assets.core.settings import Settings, Strategy

from ..indexed import strategies_table
from ..lineage import upstream_metadata
from ..resources import LegcoSettings
from .common import (
    COUNCIL_COLUMNS,
    check_results,
    md_table,
    paper_asset,
    paper_check_specs,
    short_path,
    shown_of,
    tag_strategy,
    written_version,
)
from .read import page_text
from .structure import document_structure
from .tables import page_tables

CHUNK_CHECKS = ["every_page_covered", "no_chunk_over_token_limit", "no_footer_leaked", "no_empty_chunk"]


class ChunkingConfig(dg.Config):
    """Run config of ``chunks`` and ``vector_index``: which strategy and its limits. A field
    left unset takes the run's settings' value (its environment variable, else the built-in
    default): nothing is read from the environment when the definitions load.
    :meth:`resolved` gives the effective config."""

    strategy: Strategy | None = Field(
        default=None,
        description="token: sliding tiktoken windows; question: one chunk per Q&A pair, "
        "narrative by heading, speaking notes per bullet. Both coexist in Chroma. "
        "Unset: DEFAULT_CHUNKING_STRATEGY (token).",
    )
    chunk_size: int | None = Field(
        default=None,
        gt=0,
        description="Token window size (token strategy, narrative). Unset: CHUNK_SIZE (1000).",
    )
    chunk_overlap: int | None = Field(
        default=None, ge=0, description="Tokens shared by consecutive windows. Unset: CHUNK_OVERLAP (200)."
    )
    qa_max_chunk_tokens: int | None = Field(
        default=None,
        gt=0,
        description="A Q&A pair above this is split; each part repeats the question. "
        "Unset: QA_MAX_CHUNK_TOKENS (3000).",
    )
    qa_include_internal_refs: bool | None = Field(
        default=None,
        description="Keep [內部參考…]/[Internal reference…] notes in answers. "
        "Unset: QA_INCLUDE_INTERNAL_REFS (true).",
    )
    section_join_tokens: int | None = Field(
        default=None,
        ge=0,
        description="Question strategy: short narrative sections under one heading are joined up to this "
        "many tokens (0: one chunk per heading). Unset: SECTION_JOIN_TOKENS (0).",
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "ChunkingConfig":
        """Checked on what is set here; :meth:`resolved` checks the effective pair."""
        if (
            self.chunk_overlap is not None
            and self.chunk_size is not None
            and self.chunk_overlap >= self.chunk_size
        ):
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})"
            )
        return self

    def resolved(self, settings: Settings) -> "ChunkingConfig":
        """Every field set: this config's value, else the settings' (validated again, so an
        overlap from the environment above a size set here is refused as one set here is)."""
        chosen = {name: value for name, value in self.model_dump().items() if value is not None}
        return ChunkingConfig(
            **{
                "strategy": settings.default_strategy,
                **{name: getattr(settings, name) for name in _LIMITS},
                **chosen,
            }
        )

    def apply(self, settings: Settings) -> Settings:
        """The settings with the limits set here."""
        return settings.with_(
            **{name: value for name in _LIMITS if (value := getattr(self, name)) is not None}
        )


# the fields of ChunkingConfig that override the settings of the same name
_LIMITS = (
    "chunk_size",
    "chunk_overlap",
    "qa_max_chunk_tokens",
    "qa_include_internal_refs",
    "section_join_tokens",
)


def _first_line(text: str, limit: int = 80) -> str:
    line = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
    return line[:limit] + ("…" if len(line) > limit else "")


@paper_asset(
    "chunking",
    {"python"},
    "3",
    deps=[document_structure, page_tables, page_text],
    # only the integrity checks block (core/quality.BLOCKING); no_footer_leaked warns
    check_specs=paper_check_specs("chunks", CHUNK_CHECKS),
    description="Chunks for the configured strategy (run config), written per strategy so both coexist.",
)
def chunks(
    context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings
) -> dg.MaterializeResult:
    config = config.resolved(legco.settings())
    tag_strategy(context, config.strategy)
    settings = config.apply(legco.settings())
    outcome = pipeline.stage_chunks(settings, context.partition_key, config.strategy)
    records = outcome.records
    rows = [r.to_json() for r in records]  # the records as chunks-<strategy>.jsonl holds them
    return dg.MaterializeResult(
        metadata={
            **_chunk_metadata(
                rows,
                config.strategy,
                _excerpt_links(settings, records[:60]),
                context.partition_key,
            ),
            # both strategies' state for the paper, whichever ran last (defs/indexed.py)
            "strategies": strategies_table(context, settings, context.partition_key, config.strategy),
            "config": dg.MetadataValue.json(config.model_dump(mode="json")),
            **upstream_metadata(context),
        },
        # the same decision as `legco-assets chunk` (core/quality.paper_checks): here its chunk checks,
        # each naming the strategy it judged
        check_results=check_results(
            [c for c in outcome.checks if c.name in CHUNK_CHECKS], strategy=config.strategy
        ),
        data_version=written_version(settings, context.partition_key, *(chunks_file(s) for s in Strategy)),
    )


def _excerpt_links(settings: Settings, records: list[ChunkRecord]) -> list[tuple[str, str]]:
    """(label, URL) of each record's own excerpt (``…/excerpt/<chunk id>``: only its pages,
    only its highlight), as ``query`` and the API link it."""
    return [
        ("open", excerpt_url(settings.excerpts_base_url, str(r.metadata.chunk_file_path)))
        for r in with_excerpt_paths(records)
    ]


def _chunk_metadata(
    records: list[dict[str, Any]],
    strategy: Strategy,
    linked: list[tuple[str, str]] | None = None,
    document_id: str = "",
) -> dict[str, Any]:
    """Counts and the Markdown preview (the first 60 chunks, and a line saying so when there
    are more); ``linked``: the first records' excerpt (label, URL), for the preview's excerpt
    column."""
    rows = []
    for r in records[:60]:
        m = r["metadata"]
        pages = (
            f"{m['page_start']}–{m['page_end']}" if m["page_end"] != m["page_start"] else str(m["page_start"])
        )
        body = r["text"]
        path = join_path(m.get("section_path") or [])
        if path and body.lstrip().startswith(path):  # the path is the first line of narrative/notes
            body = body.lstrip()[len(path) :]
        rows.append(
            [m.get("question_id", ""), short_path(path), pages, _first_line(body, 60), m["token_count"]]
        )
    header = ["question", "section path", "pages", "first line", "tokens"]
    if linked:  # each chunk's own excerpt, over HTTP (EXCERPTS_BASE_URL; legco-assets serve)
        header.append("excerpt")
        for row, (name, url) in zip(rows, linked):
            row.append(f"[{name}]({url})")
    if any("date" in r["metadata"] for r in records[:60]):  # the paper's date, as each chunk carries it
        header.append("date")
        for row, r in zip(rows, records):
            row.append(r["metadata"].get("date", ""))
    if any("question_kind" in r["metadata"] for r in records[:60]):
        header += COUNCIL_COLUMNS
        for row, r in zip(rows, records):
            row += [r["metadata"].get(key, "") for key in ("question_kind", "asker", "parent_question_id")]
    return {
        "strategy": strategy.value,
        "chunks": len(records),
        "by_section_type": dg.MetadataValue.json(
            dict(Counter(r["metadata"]["section_type"] for r in records))
        ),
        "max_tokens": max((r["metadata"]["token_count"] for r in records), default=0),
        # the paper's date and kind, as each chunk carries them (none printed: absent)
        **{
            f"paper_{key}": records[0]["metadata"][key]
            for key in ("date", "kind")
            if records and records[0]["metadata"].get(key)
        },
        "with_tables": sum(bool(r["metadata"]["has_table"]) for r in records),
        "preview": dg.MetadataValue.md(
            shown_of(
                len(rows),
                len(records),
                "chunks",
                f"legco-assets chunks {document_id} --strategy {strategy.value} for all",
            )
            + md_table(header, rows)
        ),
    }
