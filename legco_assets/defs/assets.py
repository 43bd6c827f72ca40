"""The asset graph, one dynamic partition per document.

Each asset calls one ``stage_*`` function of the core, which reads its inputs from the
document's artifact folder and writes its output there; dependencies are declared with
``deps`` so materialising a subset re-uses stored upstream results (DESIGN.md). Metadata is
what a person reads in the UI.
"""


import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dagster as dg
from pydantic import Field, model_validator

from legco_assets.core import pipeline
from legco_assets.core.quality import Check
from legco_assets.core.settings import Settings, Strategy

from .failures import reasons_as_failures
from .lineage import digest, upstream_metadata
from .partitions import documents_partitions
from .resources import ChromaResource, LegcoSettings, LLMResource

_DEFAULTS = Settings.from_env()
CHUNK_CHECKS = ["every_page_covered", "no_chunk_over_token_limit", "no_footer_leaked", "no_empty_chunk"]
STRUCTURE_CHECKS = ["qa_numbering_complete", "every_question_answered", "text_layer_readable", "question_labels_paired", "questions_match_open_data"]


def _check_results(checks: list[Check], severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR) -> list[dg.AssetCheckResult]:
    return [
        dg.AssetCheckResult(
            check_name=c.name, passed=c.passed, severity=severity, description=c.description,
            metadata={"details": dg.MetadataValue.json(c.details)},
        )
        for c in checks
    ]


class ChunkingConfig(dg.Config):
    """Run config of ``chunks`` and ``vector_index``: which strategy and its limits."""

    strategy: Strategy = Field(
        default=_DEFAULTS.default_strategy,
        description="token: sliding tiktoken windows; question: one chunk per Q&A pair, "
        "narrative by heading, speaking notes per bullet. Both coexist in Chroma.",
    )
    chunk_size: int = Field(default=_DEFAULTS.chunk_size, gt=0, description="Token window size (token strategy, narrative).")
    chunk_overlap: int = Field(default=_DEFAULTS.chunk_overlap, ge=0, description="Tokens shared by consecutive windows.")
    qa_max_chunk_tokens: int = Field(
        default=_DEFAULTS.qa_max_chunk_tokens, gt=0, description="A Q&A pair above this is split; each part repeats the question."
    )
    qa_include_internal_refs: bool = Field(
        default=_DEFAULTS.qa_include_internal_refs, description="Keep [內部參考…]/[Internal reference…] notes in answers."
    )
    section_join_tokens: int = Field(
        default=_DEFAULTS.section_join_tokens,
        ge=0,
        description="Question strategy: short narrative sections under one heading are joined up to this many tokens (0: one chunk per heading).",
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> "ChunkingConfig":
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})")
        return self

    def apply(self, settings: Settings) -> Settings:
        return settings.with_(
            chunk_size=self.chunk_size,
            chunk_overlap=self.chunk_overlap,
            qa_max_chunk_tokens=self.qa_max_chunk_tokens,
            qa_include_internal_refs=self.qa_include_internal_refs,
            section_join_tokens=self.section_join_tokens,
        )


class PageImagesConfig(dg.Config):
    dpi: int = Field(default=_DEFAULTS.image_dpi, ge=36, le=600, description="Render resolution of page PNGs.")
    all_pages: bool = Field(
        default=False, description="Render every page; by default only what the vision stage needs (page 1 otherwise)."
    )


COUNCIL_COLUMNS = ["kind", "asker", "parent"]  # a Hansard's questions: main | supplementary | written


def _md_table(header: list[str], rows: list[list[Any]]) -> str:
    from legco_assets.core.markdown_tables import to_markdown

    return to_markdown(header, [[str(c) for c in row] for row in rows])


def _first_line(text: str, limit: int = 80) -> str:
    line = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")
    return line[:limit] + ("…" if len(line) > limit else "")


def _origin_metadata(origin: dict[str, str] | None) -> dict[str, Any]:
    """Where the LegCo feed got the paper, so lineage shows it (absent for inbox drops)."""
    if not origin:
        return {}
    return {
        "source_url": dg.MetadataValue.url(origin["source_url"]),
        "meeting_date": origin["meeting_date"],
        "hansard_type": origin["hansard_type"],
        "hansard_id": origin["hansard_id"],
    }


@dg.asset(
    partitions_def=documents_partitions,
    group_name="ingest",
    kinds={"pdf", "python"},
    code_version="3",
    description="The registered file: sha256, pages, language, title; its bytes are snapshotted and its text layer read once.",
)
@reasons_as_failures
def source_document(context: dg.AssetExecutionContext, legco: LegcoSettings) -> dg.MaterializeResult:
    info = pipeline.stage_source(legco.settings(), context.partition_key)
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(info.path),
            "filename": info.filename,
            "sha256": info.sha256,
            "pages": info.pages,
            "language": info.language,
            "title": info.title,
            "kind": info.kind,
            "size_bytes": info.size_bytes,
            "version": info.version,
            **_origin_metadata(info.origin),
            **_counterpart_metadata(legco.settings(), context.partition_key),
            **upstream_metadata(context),
        },
        data_version=dg.DataVersion(info.sha256),
    )


def _counterpart_metadata(settings: Settings, document_id: str) -> dict[str, Any]:
    """The other-language version as the UI shows it: its partition key, linked to its page."""
    meta: dict[str, Any] = dict(pipeline.counterpart_metadata(settings, document_id))
    other = meta.get("counterpart_document_id")
    if other:
        from urllib.parse import quote

        meta["counterpart"] = dg.MetadataValue.md(f"[{other}](/assets/source_document?view=partitions&partition={quote(other)})")
    return meta


@dg.asset(
    partitions_def=documents_partitions,
    deps=[source_document],
    group_name="ingest",
    kinds={"python"},
    code_version="3",
    description="Text per page: raw as extracted and cleaned (footers, page numbers, running headers removed).",
)
@reasons_as_failures
def page_text(context: dg.AssetExecutionContext, legco: LegcoSettings, llm: LLMResource) -> dg.MaterializeResult:
    settings = legco.settings()
    extracted = pipeline.stage_page_text(settings, context.partition_key, llm.client(settings))
    chars = [len(p.cleaned) for p in extracted.pages]
    return dg.MaterializeResult(
        metadata={
            "extractor": extracted.extractor,
            "pages": len(extracted.pages),
            "characters": sum(chars),
            "characters_per_page": dg.MetadataValue.json(dict(enumerate(chars, start=1))),
            "page_1_preview": dg.MetadataValue.md("```\n" + extracted.pages[0].cleaned[:600] + "\n```"),
            **upstream_metadata(context),
        },
        data_version=_written(settings, context.partition_key, "page_text.json", "transcription.json"),
    )


@dg.asset(
    partitions_def=documents_partitions,
    deps=[source_document],
    group_name="ingest",
    kinds={"png"},
    code_version="1",
    description="PNG per page (pypdfium2) for the vision stage; page 1 only unless vision or all_pages is on.",
)
@reasons_as_failures
def page_images(context: dg.AssetExecutionContext, config: PageImagesConfig, legco: LegcoSettings) -> dg.MaterializeResult:
    settings = legco.settings()
    all_pages = config.all_pages or (settings.llm_enabled and settings.qa_vision_enabled)
    paths = pipeline.stage_page_images(settings, context.partition_key, config.dpi, all_pages)
    metadata: dict[str, Any] = {"images": len(paths), "dpi": config.dpi, "all_pages": all_pages}
    if paths:
        metadata["first_page_image"] = dg.MetadataValue.path(str(paths[0].resolve()))
    metadata.update(upstream_metadata(context))
    return dg.MaterializeResult(metadata=metadata, data_version=_written(settings, context.partition_key, "images"))


@dg.asset(
    partitions_def=documents_partitions,
    deps=[page_images, page_text],
    group_name="structure",
    kinds={"python"},
    code_version="1",
    description="Markdown tables per page: geometric (ruling lines + character boxes) or a vision LLM when configured, cached by content hash.",
)
@reasons_as_failures
def page_tables(context: dg.AssetExecutionContext, legco: LegcoSettings, llm: LLMResource) -> dg.MaterializeResult:
    settings = legco.settings()
    started = time.perf_counter()
    result = pipeline.stage_tables(settings, context.partition_key, llm.client(settings))
    tables = result.tables if result else []
    per_page = Counter(t.page for t in tables)
    methods = Counter(t.method for t in tables)
    metadata: dict[str, Any] = {
        "tables": len(tables),
        "tables_per_page": dg.MetadataValue.json({str(k): v for k, v in sorted(per_page.items())}),
        "methods": dg.MetadataValue.json(dict(methods)),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if result is not None:
        metadata.update({k: v for k, v in result.stats.items() if isinstance(v, (int, float))})
        for warning in result.warnings:
            context.log.warning(warning)
    if tables:
        metadata["first_table"] = dg.MetadataValue.md(f"page {tables[0].page}\n\n" + tables[0].markdown)
    metadata.update(upstream_metadata(context))
    return dg.MaterializeResult(metadata=metadata, data_version=_written(settings, context.partition_key, "tables.json"))


@dg.asset(
    partitions_def=documents_partitions,
    deps=[page_text],
    group_name="structure",
    kinds={"python"},
    code_version="3",
    # warnings, not gates: a gap in a paper's numbering is often the paper's own (a pair
    # withdrawn in drafting), and the chunks stay right; the chunk checks are the gates
    check_specs=[dg.AssetCheckSpec(name, asset="document_structure") for name in STRUCTURE_CHECKS],
    description="Sections (qa, narrative, speaking_notes, table, toc) with question ids, spans, pages and heading paths; rules first, LLM when unsure; the outline from typography and the contents list.",
)
@reasons_as_failures
def document_structure(context: dg.AssetExecutionContext, legco: LegcoSettings, llm: LLMResource) -> dg.MaterializeResult:
    from legco_assets.core.structure import join_path, outline_markdown, outline_of

    settings = legco.settings()
    sections = pipeline.stage_structure(settings, context.partition_key, llm.client(settings))
    stored = pipeline.Artifacts(settings, context.partition_key).read_json("structure.json")
    how, labels = stored["llm"], stored["labels"]
    rows = [[s.type, s.qa_id or "", join_path(s.path)[-60:], f"{s.start_page}–{s.end_page}", "✓" if s.has_table else ""] for s in sections]
    header = ["type", "id", "section path", "pages", "table"]
    if any(s.question_kind for s in sections):  # Council proceedings: who asked, which question it follows
        header += COUNCIL_COLUMNS
        rows = [row + [s.question_kind or "", s.asker or "", s.parent_question_id or ""] for row, s in zip(rows, sections)]
    outline = outline_of(sections)
    # the same decision as `legco-assets chunk` (core/quality.paper_checks): here its warnings
    pages = pipeline.Artifacts(settings, context.partition_key).pages()
    checks = pipeline.check_paper(
        None, pages, sections, settings.default_strategy, settings, labels, official=stored.get("official_questions")
    )
    return dg.MaterializeResult(
        metadata={
            "sections": len(sections),
            "qa_pairs": sum(s.type == "qa" for s in sections),
            "labels_seen": labels["labels_seen"],
            "pairs_made": labels["pairs_made"],
            "by_type": dg.MetadataValue.json(dict(Counter(s.type for s in sections))),
            "found_by": how["source"],
            "llm_reason": how["reason"] or "not asked",
            "llm_dropped": dg.MetadataValue.json(how["dropped"]),
            **{k: v for k, v in how["stats"].items() if isinstance(v, (int, float))},
            "structure": dg.MetadataValue.md(_md_table(header, rows[:200])),
            "headings": len(outline),
            "outline": dg.MetadataValue.md(outline_markdown(outline)),
            **_annex_metadata(stored.get("annexes")),
            "llm_model": settings.llm_model_name or "none (rules only)",
            "prompt_version": how.get("prompt_version", ""),
            **upstream_metadata(context),
        },
        data_version=_written(settings, context.partition_key, "structure.json"),
        check_results=_check_results([c for c in checks if not c.blocking], dg.AssetCheckSeverity.WARN),
    )


def _annex_metadata(annexes: dict[str, Any] | None) -> dict[str, Any]:
    """A Hansard's appendices and the exchanges they answer (core/structure/annexes.py)."""
    if not annexes:
        return {}
    return {"annexes": dg.MetadataValue.json(annexes)}


@dg.asset(
    partitions_def=documents_partitions,
    deps=[document_structure, page_tables, page_text],
    group_name="chunking",
    kinds={"python"},
    code_version="3",
    check_specs=[dg.AssetCheckSpec(name, asset="chunks", blocking=True) for name in CHUNK_CHECKS],
    description="Chunks for the configured strategy (run config), written per strategy so both coexist.",
)
@reasons_as_failures
def chunks(context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings) -> dg.MaterializeResult:
    settings = config.apply(legco.settings())
    records = pipeline.stage_chunks(settings, context.partition_key, config.strategy)
    art = pipeline.Artifacts(settings, context.partition_key)
    # the same decision as `legco-assets chunk` (core/quality.paper_checks): here its gates
    checks = pipeline.check_paper(records, art.pages(), art.sections(), config.strategy, settings)
    return dg.MaterializeResult(
        metadata={
            **_chunk_metadata(records, config.strategy, pipeline.with_excerpt_paths(settings, context.partition_key, config.strategy, records[:60])),
            "config": dg.MetadataValue.json(config.model_dump(mode="json")),
            **upstream_metadata(context),
        },
        check_results=_check_results([c for c in checks if c.blocking]),
        data_version=_written(settings, context.partition_key, *(art.chunks_name(s) for s in Strategy)),
    )


def _written(settings: Settings, document_id: str, *names: str) -> dg.DataVersion:
    """The data version of a stage: a hash of the files it wrote for this paper (lineage.py)."""
    art = pipeline.Artifacts(settings, document_id)
    return digest(art.path(name) for name in names)


def _chunk_metadata(records: list[dict[str, Any]], strategy: Strategy, linked: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Counts and the Markdown preview; ``linked``: the first records with their
    ``chunk_file_path``, for the preview's excerpt column."""
    rows = []
    for r in records[:60]:
        m = r["metadata"]
        pages = f"{m['page_start']}–{m['page_end']}" if m["page_end"] != m["page_start"] else str(m["page_start"])
        body = r["text"]
        path = " > ".join(m.get("section_path") or [])
        if path and body.lstrip().startswith(path):  # the path is the first line of narrative/notes
            body = body.lstrip()[len(path) :]
        rows.append([m.get("question_id", ""), path[-60:], pages, _first_line(body, 60), m["token_count"]])
    header = ["question", "section path", "pages", "first line", "tokens"]
    if linked:  # where chunk_excerpts writes each chunk's excerpt (the link opens from a local UI)
        header.append("excerpt")
        for row, r in zip(rows, linked):
            path = Path(r["metadata"]["chunk_file_path"])
            row.append(f"[{path.name}](file://{quote(str(path.resolve()))})")
    if any("question_kind" in r["metadata"] for r in records[:60]):
        header += COUNCIL_COLUMNS
        for row, r in zip(rows, records):
            row += [r["metadata"].get(key, "") for key in ("question_kind", "asker", "parent_question_id")]
    return {
        "strategy": strategy.value,
        "chunks": len(records),
        "by_section_type": dg.MetadataValue.json(dict(Counter(r["metadata"]["section_type"] for r in records))),
        "max_tokens": max((r["metadata"]["token_count"] for r in records), default=0),
        "with_tables": sum(bool(r["metadata"]["has_table"]) for r in records),
        "preview": dg.MetadataValue.md(_md_table(header, rows)),
    }


RETRIEVAL_CHECK = "retrieval_hit_at_5"
COUNTERPART_CHECK = "counterpart_question_counts_agree"


@dg.asset(
    partitions_def=documents_partitions,
    deps=[chunks],
    group_name="retrieval",
    kinds={"chromadb"},
    code_version="4",
    check_specs=[
        dg.AssetCheckSpec(
            RETRIEVAL_CHECK,
            asset="vector_index",
            blocking=False,
            description="Hybrid search finds the answers to this document's gold questions (Hit@5, searching this "
            "document only) at least as often as recorded; evaluated only for papers with gold files.",
        ),
        dg.AssetCheckSpec(
            COUNTERPART_CHECK,
            asset="vector_index",
            blocking=False,
            description="A paper paired with its other-language version has as many Q&A pairs as that version "
            "(a warning: one side's structure missed or split a question).",
        ),
    ],
    description="Chunks embedded and upserted into Chroma; ids <document_id>:<strategy>:<index>, replace-by-document.",
)
@reasons_as_failures
def vector_index(context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings, chroma: ChromaResource) -> dg.MaterializeResult:
    from legco_assets.core.search import stored_versions, versions_markdown

    settings = legco.settings()
    collection = chroma.collection(settings)
    result = pipeline.stage_vector_index(settings, context.partition_key, config.strategy, collection)
    versions = stored_versions(collection, context.partition_key)
    counterpart = _counterpart_metadata(settings, context.partition_key)
    if result.counterpart.decided and result.counterpart.candidate:  # both sides' source_document show the pairing
        for key in (context.partition_key, result.counterpart.candidate):
            context.log_event(dg.AssetObservation(asset_key=source_document.key, partition=key, metadata=_counterpart_metadata(settings, key)))
    _record_indexed(settings, context.partition_key, config.strategy, result.ids)
    return dg.MaterializeResult(
        data_version=_written(settings, context.partition_key, *(f"indexed-{s.value}.json" for s in Strategy)),
        metadata={
            **counterpart,
            **upstream_metadata(context, config.strategy.value),
            "counterpart_chunks_updated": result.counterpart.chunks_updated,
            "collection": collection.name,
            "strategy": config.strategy.value,
            "ids_written": result.written,
            "stale_ids_deleted": result.deleted,
            "previous_version_chunks_archived": result.archived,
            "first_ids": dg.MetadataValue.json(result.ids[:10]),
            "stored_versions": dg.MetadataValue.md(versions_markdown(versions)),
        },
        check_results=[
            _retrieval_check(settings, collection, context.partition_key, config.strategy),
            _counterpart_check(settings, context.partition_key, counterpart.get("counterpart_document_id")),
        ],
    )


def _record_indexed(settings: Settings, document_id: str, strategy: Strategy, ids: list[str]) -> None:
    """``indexed-<strategy>.json``: the ids stored and the chunk file they came from. Chroma
    is not a file of the paper's, so this is what ``vector_index``'s data version hashes."""
    chunks_version = _written(settings, document_id, f"chunks-{strategy.value}.jsonl").value
    pipeline.Artifacts(settings, document_id).write_json(f"indexed-{strategy.value}.json", {"ids": ids, "chunks": chunks_version})


def _counterpart_check(settings: Settings, document_id: str, partner: str | None) -> dg.AssetCheckResult:
    """WARN when the two language versions of a paper have different numbers of Q&A pairs."""
    if not partner:
        return dg.AssetCheckResult(
            check_name=COUNTERPART_CHECK, passed=True, severity=dg.AssetCheckSeverity.WARN,
            description="not evaluated: no paired counterpart", metadata={"evaluated": False},
        )
    mine, theirs = pipeline.counterpart_question_counts(settings, document_id, partner)
    return dg.AssetCheckResult(
        check_name=COUNTERPART_CHECK, passed=mine == theirs, severity=dg.AssetCheckSeverity.WARN,
        description=f"{mine} Q&A pairs here, {theirs} in {partner}",
        metadata={"evaluated": True, "questions": mine, "counterpart_questions": theirs, "counterpart_document_id": partner},
    )


def _retrieval_check(settings: Settings, collection: Any, document_id: str, strategy: Strategy) -> dg.AssetCheckResult:
    """Hit@5 on the document's gold questions against its recorded baseline (passes, marked
    not evaluated, for a document without gold questions)."""
    from legco_assets.core.evaluation import check_stored_document

    outcome = check_stored_document(settings, collection, document_id, strategy.value)
    if outcome is None:
        return dg.AssetCheckResult(
            check_name=RETRIEVAL_CHECK, passed=True, description="not evaluated: no gold questions for this document", metadata={"evaluated": False}
        )
    baseline = "none recorded" if outcome.baseline is None else f"{outcome.baseline:.3f}"
    return dg.AssetCheckResult(
        check_name=RETRIEVAL_CHECK,
        passed=outcome.passed,
        description=f"{strategy.value}: Hit@5 {outcome.hit5:.3f} on {outcome.questions} gold questions (baseline {baseline})",
        metadata={
            "evaluated": True,
            "hit_at_5": outcome.hit5,
            "baseline": outcome.baseline if outcome.baseline is not None else -1.0,
            "questions": outcome.questions,
            "misses": dg.MetadataValue.json(outcome.misses),
        },
    )


EXCERPT_LOCATED = 0.99  # share of a chunk's characters found and highlighted in its excerpt


@dg.asset(
    partitions_def=documents_partitions,
    deps=[chunks],
    group_name="retrieval",
    kinds={"pdf", "html"},
    code_version="1",
    description="Per chunk of the configured strategy, the pages it spans cut from the source PDF with its own text "
    "highlighted (an HTML page with <mark> for a web page, a text excerpt for DOCX/TXT/Markdown), under "
    "excerpts/<strategy>/<index>.<ext>; re-made only for chunks that changed. The path is chunk_file_path in Chroma.",
)
@reasons_as_failures
def chunk_excerpts(context: dg.AssetExecutionContext, config: ChunkingConfig, legco: LegcoSettings) -> dg.MaterializeResult:
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
            "preview": dg.MetadataValue.md(_md_table(["chunk", "pages", "highlighted", "excerpt"], rows)),
            **upstream_metadata(context, config.strategy.value),
        },
        data_version=_written(settings, context.partition_key, *(f"excerpts/{s.value}/manifest.json" for s in Strategy)),
    )


ALL_ASSETS = [source_document, page_text, page_images, page_tables, document_structure, chunks, vector_index, chunk_excerpts]
