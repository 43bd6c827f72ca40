"""The per-document stages, shared by the Dagster assets and the CLI: the pipeline as a
list of steps, each step a function of its stage's package; only the storage differs.

Each ``stage_*`` reads its inputs from the document's artifact folder (:mod:`.artifacts`) and
writes its output there, so any stage can be re-run alone from stored upstream results,
exactly as Dagster materialises a subset; it returns what its asset shows and the next
stage needs. :func:`chunk_paper` runs the same steps in memory for ``legco-assets chunk``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import chunking
from .artifacts import Artifacts, SourceInfo
from .excerpts import ExcerptsOutcome, excerpt_folder, excerpt_source_kind, with_excerpt_paths, write_excerpts
from .llm import LLMClient
from .quality import Check, PaperFacts, paper_checks
from .read import (
    PendingDocument,
    SourceBytes,
    detect_language,
    guess_title,
    page_furniture,
    read_source,
    readable_pages,
    render_page_png,
    require_text,
    start_extract,
    text_pages,
)
from .records import Chunk, ChunkRecord, ExtractedDocument, Page, PageTables, Section, Table
from .settings import Settings, Strategy
from .sources import CounterpartOutcome, DocumentIndex, origin_of, pair_counterpart, slug
from .storage import StorePath, location, remove_tree, write_whole
from .structure import (
    LabelCoverage,
    OfficialMatch,
    PaperProfile,
    StructureOutcome,
    contents_only_pages,
    date_check,
    find_structure,
    paper_structure,
    read_paper_profile,
    stamp,
    structure_summary,
    unchunked_pages,
)
from .tables import (
    TablesResult,
    TypedTable,
    find_page_tables,
    page_tables_as_read,
    start_page_tables,
    typed_tables,
    write_typed_tables,
)
from .tokens import encoding

if TYPE_CHECKING:
    from chromadb import Collection

    from .search import WriteResult


# -- shared steps -----------------------------------------------------------------------------
def build_chunks(
    document_id: str,
    strategy: Strategy,
    pages: list[Page],
    settings: Settings,
    sections: list[Section] | None = None,
    tables: list[Table] | PageTables | None = None,
) -> list[Chunk]:
    """:func:`.chunking.build_chunks`, finding the sections (:func:`find_structure`, no LLM)
    when none are given."""
    return chunking.build_chunks(
        document_id,
        strategy,
        pages,
        settings,
        sections,
        tables,
        lambda p: find_structure(p, settings).sections,
    )


@dataclass
class ChunkedPaper:
    """What ``legco-assets chunk`` gets for one file: the chunk records and every check of
    the paper (:func:`check_paper`, the same the assets run)."""

    records: list[ChunkRecord]
    checks: list[Check]


def chunk_file(
    path: str | Path,
    strategy: Strategy,
    settings: Settings,
    use_llm: bool = True,
    warn: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """The chunk records of one file (:func:`chunk_paper`) in their JSON form, as ``legco-assets
    chunk`` prints them; ``warn`` hears each failed check
    as one line (``FILE: check: what failed (pages or ids)``). Without ``warn`` the checks are
    not run (an eval or a benchmark wants the chunks only)."""
    paper = chunk_paper(path, strategy, settings, use_llm=use_llm, check=warn is not None)
    if warn is not None:
        for check in paper.checks:
            if not check.passed:
                warn(f"{path}: {check.line()}")
    return [r.to_json() for r in paper.records]


def chunk_paper(
    path: str | Path,
    strategy: Strategy,
    settings: Settings,
    use_llm: bool = True,
    check: bool = True,
    reading: PendingDocument | None = None,
) -> ChunkedPaper:
    """The whole pipeline in memory for one file: chunk records and (``check``) the paper's
    checks, nothing written (:func:`chunk_paper_with`, one strategy)."""
    return chunk_paper_with(path, [strategy], settings, use_llm, check, reading)[strategy]


def chunk_paper_with(
    path: str | Path,
    strategies: Sequence[Strategy],
    settings: Settings,
    use_llm: bool = True,
    check: bool = True,
    reading: PendingDocument | None = None,
) -> dict[Strategy, ChunkedPaper]:
    """The whole pipeline in memory for one file, read once and chunked with each strategy:
    chunk records and (``check``) the paper's checks, nothing written. The steps are the
    stages' (a paper read here has no official question records: their match says it did not
    run). A long PDF's table geometry runs in worker processes meanwhile
    (:func:`.tables.start_page_tables`). ``reading``: the file's reading as the caller began
    it (:func:`.read.start_extract`: ``legco-assets chunk`` begins it before it imports this
    module)."""
    if reading is None:
        # a long PDF's pages are shared with a forked reader before the table workers start
        reading = start_extract(read_source(path))
    source = reading.source
    with reading, start_page_tables(source) as geometry:
        # chunking needs the tokenizer: loaded while the reader's child reads the last pages
        # (the two share the pages as they go, so this costs the reading nothing)
        encoding(settings.cache_dir)
        extracted = reading.result()
        llm = LLMClient.from_settings(settings) if use_llm else None
        if readable_pages(extracted, source.data, settings, llm) is not None:
            require_text(path, extracted.pages)
        pages = extracted.pages
        # the token strategy takes only the sections' paths from the structure: the rules' do
        structures: dict[bool, StructureOutcome] = {}  # by whether the LLM is asked
        for strategy in strategies:
            asks = llm is not None and strategy is Strategy.question
            if asks not in structures:
                structures[asks] = paper_structure(pages, settings, llm if asks else None)
        tables = page_tables_as_read(source, pages, settings, llm, geometry)
        structure_of = {s: structures[llm is not None and s is Strategy.question] for s in strategies}
        chunks = {
            s: build_chunks(slug(path), s, pages, settings, structure_of[s].sections, tables)
            for s in strategies
        }
    out: dict[Strategy, ChunkedPaper] = {}
    for strategy in strategies:
        structure = structure_of[strategy]
        records = stamp(
            [c.to_record(Path(path).name, source.sha256) for c in chunks[strategy]], structure.paper
        )
        chunking.summarise(records, llm if settings.chunk_summaries else None)
        checks = (
            check_paper(records, pages, structure.sections, strategy, settings, structure) if check else []
        )
        out[strategy] = ChunkedPaper(records, checks)
    return out


def paper_facts(
    pages: list[Page],
    sections: list[Section],
    strategy: Strategy,
    settings: Settings,
    labels: LabelCoverage | None = None,
    official: OfficialMatch | None = None,
    profile: PaperProfile | None = None,
) -> PaperFacts:
    """What the checks need besides the chunks, gathered the same way for the assets and the
    CLI: the pages a chunk must cover (pages with text; for the question strategy not a
    contents page, which is never chunked by design), the strategy's token limit, the
    paper's own furniture learned from its raw pages, and the structure's summary."""

    expected = {p.number for p in pages if p.cleaned.strip()}
    if strategy is Strategy.question:
        expected -= set(unchunked_pages(sections))
    else:  # token windows leave contents lists out: a list of headings answers nothing
        expected -= set(contents_only_pages(sections))
    limit = settings.chunk_size if strategy is Strategy.token else settings.qa_max_chunk_tokens
    furniture = page_furniture(pages)
    return PaperFacts(
        sorted(expected),
        limit,
        furniture.running_headers,
        furniture.section_headers,
        structure_summary(sections),
        labels.to_dict() if labels else None,
        official.check() if official else None,
        [p.number for p in pages if p.unreadable],
        {p.number: lines for p, lines in zip(pages, furniture.page_lines)},
        vision_configured=settings.llm_enabled and settings.qa_vision_enabled,
        dated=date_check(profile) if profile else None,
    )


def check_paper(
    records: list[ChunkRecord] | None,
    pages: list[Page],
    sections: list[Section],
    strategy: Strategy,
    settings: Settings,
    structure: StructureOutcome | None = None,
) -> list[Check]:
    """Every check of one paper (``quality.paper_checks``): the chunk gates when
    ``records`` are given, the structure checks always (with the label coverage and LegCo's
    question records matched when the ``structure`` step's outcome is at hand)."""

    labels, official = (structure.labels, structure.official) if structure else (None, None)
    profile = structure.paper if structure else None
    return paper_checks(records, paper_facts(pages, sections, strategy, settings, labels, official, profile))


# -- stages (each reads/writes the artifact folder) -------------------------------------------
def stage_source(settings: Settings, document_id: str) -> SourceInfo:
    """Snapshot the file's bytes, extract its text layer once, record what it is (and,
    for a paper the LegCo feed brought, where it came from)."""

    index = DocumentIndex(settings.documents_dir)
    entry = index.get(document_id)
    if entry is None:
        raise KeyError(f"unknown document id {document_id!r}: register it first (legco-assets ingest)")
    source = read_source(entry.path)
    extracted, pages = text_pages(source)  # cleaned pages only for the language and title
    version, previous = index.record_version(document_id, source.sha256)
    art = Artifacts(settings, document_id)
    write_whole(art.source_file(source.path.name), source.data)
    art.write_json("raw_text.json", extracted.to_dict())
    info = SourceInfo(
        document_id=document_id,
        path=entry.path,
        filename=source.path.name,
        sha256=source.sha256,
        kind=extracted.kind,
        extractor=extracted.extractor,
        pages=len(extracted.pages),
        language=detect_language("\n".join(p.cleaned for p in pages)),
        title=guess_title(pages),
        size_bytes=len(source.data),
        version=version,
        previous_sha256=previous if previous != source.sha256 else None,
        origin=origin_of(settings, source.sha256),
    )
    art.write_source(info)
    return info


def stage_page_text(settings: Settings, document_id: str, llm: LLMClient | None = None) -> ExtractedDocument:
    """Clean the stored text layer (footers/headers out, raw kept); with a vision LLM,
    scanned pages are transcribed first (``transcription.json`` records what that did)."""
    art = Artifacts(settings, document_id)
    extracted = ExtractedDocument.from_dict(art.read_json("raw_text.json"))
    if extracted.kind == "pdf":
        llm = llm or (LLMClient.from_settings(settings) if settings.qa_vision_enabled else None)
    transcription = readable_pages(extracted, art.source_bytes(), settings, llm)
    if transcription is not None:
        art.write_json("transcription.json", transcription.metadata())
        require_text(art.source().path, extracted.pages)
    art.write_json("page_text.json", extracted.to_dict())
    return extracted


def stage_page_images(settings: Settings, document_id: str, dpi: int, all_pages: bool) -> list[StorePath]:
    """PNG per page; without the vision stage only page 1 (a preview) is rendered."""
    art = Artifacts(settings, document_id)
    info = art.source()
    folder = art.path("images")
    remove_tree(folder)
    if info.kind != "pdf":
        return []
    data = art.source_bytes()
    numbers = range(1, info.pages + 1) if all_pages else range(1, 2)
    paths = []
    for n in numbers:
        path = folder / f"page-{n:04d}.png"
        write_whole(path, render_page_png(data, n, dpi))
        paths.append(path)
    return paths


def stage_structure(settings: Settings, document_id: str, llm: LLMClient | None = None) -> StructureOutcome:
    """The structure step (:func:`.structure.paper_structure`) to ``structure.json``, with
    the paper's structure checks (the same decision as ``legco-assets chunk``'s)."""
    art = Artifacts(settings, document_id)
    pages = art.pages()
    # the origin only feeds the official-records check; a structure run from page text alone has none
    origin = art.source().origin if art.has("source.json") else None
    outcome = paper_structure(pages, settings, llm, origin)  # marks the sections LegCo's records matched
    art.write_json("structure.json", outcome.to_dict())
    outcome.checks = check_paper(None, pages, outcome.sections, settings.default_strategy, settings, outcome)
    return outcome


def stored_profile(art: Artifacts, pages: list[Page]) -> PaperProfile:
    """The paper's facts as the structure step read them (``structure.json``'s ``paper``); read
    from its pages and origin when that step has not stored them (an older ``structure.json``)."""
    if art.has("structure.json"):
        stored = art.read_json("structure.json").get("paper")
        if stored:
            return PaperProfile.from_dict(stored)
    return read_paper_profile(pages, art.source().origin if art.has("source.json") else None)


@dataclass
class TablesOutcome:
    """What ``page_tables`` found: the tables and what finding them took (None: not a PDF,
    no table looked for)."""

    found: TablesResult | None
    typed: list[TypedTable] = field(default_factory=list)  # the same tables as data

    @property
    def tables(self) -> list[Table]:
        return self.found.tables if self.found else []


def stage_tables(settings: Settings, document_id: str, llm: LLMClient | None = None) -> TablesOutcome:
    art = Artifacts(settings, document_id)
    info = art.source()
    source = SourceBytes(location(info.path), art.source_bytes())
    pages = art.pages()
    outcome = TablesOutcome(find_page_tables(source, pages, settings, llm))
    art.write_json("tables.json", {"tables": [t.to_dict() for t in outcome.tables]})
    outcome.typed = typed_tables(document_id, outcome.tables, pages)
    write_typed_tables(art, outcome.typed)
    return outcome


@dataclass
class ChunksOutcome:
    """What ``chunks`` wrote, and the paper's checks of it (the chunk gates among them)."""

    records: list[ChunkRecord]
    checks: list[Check]


def stage_chunks(settings: Settings, document_id: str, strategy: Strategy) -> ChunksOutcome:
    art = Artifacts(settings, document_id)
    info = art.source()
    pages = art.pages()
    sections = art.sections() if strategy is Strategy.question or art.has("structure.json") else None
    encoding(settings.cache_dir)  # loaded with the settings' cache of its ranks
    chunks = build_chunks(document_id, strategy, pages, settings, sections, art.tables())
    records = stamp([c.to_record(info.filename, info.sha256) for c in chunks], stored_profile(art, pages))
    chunking.summarise(records, LLMClient.from_settings(settings) if settings.chunk_summaries else None)
    art.write_chunks(strategy, records)
    return ChunksOutcome(records, check_paper(records, pages, sections or [], strategy, settings))


@dataclass
class VectorIndexOutcome:
    """What ``vector_index`` did: the chunks written to Chroma, and the paper's pairing with
    its other-language version."""

    stored: WriteResult
    counterpart: CounterpartOutcome


def stage_vector_index(
    settings: Settings, document_id: str, strategy: Strategy, collection: Collection
) -> VectorIndexOutcome:
    """Write the chunks to Chroma, then link them with the other language's version when both
    are stored (:func:`.sources.pair_counterpart`). The link is made here, not in ``chunks``:
    it needs both papers, and the one ingested first is linked when the second arrives by
    updating its stored chunks' metadata in place, with no re-parse and no re-embedding."""
    # Chroma loads in ~1 s: not for `chunk`
    from .search import SegmentStore, embedding_function, index_paper, link_counterparts, replace_document

    art = Artifacts(settings, document_id)
    records = with_excerpt_paths(art.read_chunks(strategy))
    stored = replace_document(collection, records, document_id, strategy, art.source().sha256)
    segments = SegmentStore.of(settings)  # the search index's entries of the paper, for a server
    index_paper(segments, collection, embedding_function(settings), document_id, strategy.value)
    with DocumentIndex(settings.documents_dir).pairing():
        counterpart = pair_counterpart(settings, document_id)
        if counterpart.decided:
            counterpart.chunks_updated = link_counterparts(
                collection, document_id, counterpart.paired_with, segments.update
            )
    return VectorIndexOutcome(stored, counterpart)


def stage_excerpts(settings: Settings, document_id: str, strategy: Strategy) -> ExcerptsOutcome:
    """A strategy's excerpts of a paper (:func:`.excerpts.write_excerpts`); kept when no
    chunk changed. A PDF's are highlights on the paper as stored here (``source.pdf``)."""

    art = Artifacts(settings, document_id)
    info = art.source()
    kind = excerpt_source_kind(info)
    data = art.source_bytes() if kind == "pdf" else b""
    folder, records, pages = excerpt_folder(settings, document_id), art.read_chunks(strategy), art.pages()
    report = write_excerpts(folder, strategy, kind, data, pages, records, info.sha256, info.filename)
    return ExcerptsOutcome(report, folder, info.size_bytes)
