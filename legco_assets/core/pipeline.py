"""The per-document stages as plain functions, shared by the Dagster assets and the CLI.

Each ``stage_*`` reads its inputs from the document's artifact folder and writes its output
there (``data/documents/<document_id>/``), so any stage can be re-run alone from stored
upstream results, exactly as Dagster materialises a subset. ``chunk_file`` runs the same
steps in memory for ``legco-assets chunk``.
"""

from __future__ import annotations

import json
import shutil
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, ContextManager

from . import markers
from .errors import DocumentError
from .llm import LLMClient
from .chunking import QuestionChunkingStrategy, TokenChunkingStrategy
from .excerpts import chunk_link, write_excerpts
from .quality import PaperFacts, paper_checks
from .read import (
    SourceBytes,
    clean_pages,
    document_kind,
    extract_document,
    page_furniture,
    read_source,
    render_page_png,
    transcribe_scanned,
)
from .records import Chunk, DocumentText, ExtractedDocument, Page, PageTables, Section, Table
from .settings import Settings, Strategy
from .sources import (
    NO_COUNTERPART,
    DocumentIndex,
    atomic_write_text,
    by_hand,
    confirm,
    origin_of,
    profile_of,
    proposed_partner,
    read_sidecar,
    slug,
)
from .structure import (
    LabelCoverage,
    OfficialMatch,
    StructureResult,
    apply_outline,
    asked_headings,
    break_starts,
    link_annexes,
    match_official_questions,
    outline_of,
    path_at,
    path_starts,
    resolve_structure,
    structure_summary,
    unchunked_pages,
)
from .structure import label_coverage as text_label_coverage
from .tables import GeometricTables, find_tables, iter_page_tables, weave_pages
from .tokens import encoding

MIN_TEXT_CHARS_PER_PAGE = 50  # fewer non-blank characters: a stamp or page number, not text


@dataclass
class SourceInfo:
    """What ``source_document`` records about one version of one file."""

    document_id: str
    path: str
    filename: str
    sha256: str
    kind: str
    extractor: str
    pages: int
    language: str
    title: str
    size_bytes: int
    version: int
    previous_sha256: str | None = None
    origin: dict[str, Any] | None = None  # where the feed got it: source_url, meeting_date, hansard_type, hansard_id (+ questions)


@dataclass
class StageResult:
    """What a stage did, for metadata and progress lines."""

    summary: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


# -- artifacts --------------------------------------------------------------------------------
class Artifacts:
    """The files of one document under the data dir."""

    def __init__(self, settings: Settings, document_id: str):
        self.settings = settings
        self.document_id = document_id
        self.root = settings.documents_dir / document_id

    def path(self, name: str) -> Path:
        return self.root / name

    def write_json(self, name: str, data: Any) -> Path:
        path = self.path(name)
        atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1))
        return path

    def read_json(self, name: str) -> Any:
        path = self.path(name)
        if not path.exists():
            raise FileNotFoundError(f"{self.document_id}: {name} is missing; materialise the upstream asset first")
        return json.loads(path.read_text(encoding="utf-8"))

    def source(self) -> SourceInfo:
        return SourceInfo(**self.read_json("source.json"))

    def source_bytes(self) -> bytes:
        return self.path("source" + Path(self.source().filename).suffix.lower()).read_bytes()

    def pages(self) -> list[Page]:
        return ExtractedDocument.from_dict(self.read_json("page_text.json")).pages

    def sections(self) -> list[Section]:
        return [Section.from_dict(s) for s in self.read_json("structure.json")["sections"]]

    def tables(self) -> list[Table]:
        if not self.path("tables.json").exists():
            return []
        return [Table.from_dict(t) for t in self.read_json("tables.json")["tables"]]

    def chunks_name(self, strategy: Strategy) -> str:
        return f"chunks-{strategy.value}.jsonl"

    def write_chunks(self, strategy: Strategy, records: list[dict[str, Any]]) -> Path:
        path = self.path(self.chunks_name(strategy))
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
        return path

    def read_chunks(self, strategy: Strategy) -> list[dict[str, Any]]:
        path = self.path(self.chunks_name(strategy))
        if not path.exists():
            raise FileNotFoundError(f"{self.document_id}: no {strategy.value} chunks; materialise chunks first")
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# -- shared steps -----------------------------------------------------------------------------
def detect_language(text: str) -> str:
    letters = sum(ch.isalpha() for ch in text[:20000]) or 1
    cjk = len(markers.CJK_CHAR.findall(text[:20000]))
    return "zh-Hant" if cjk / letters > 0.2 else "en"


def guess_title(pages: list[Page]) -> str:
    for page in pages[:2]:
        for line in page.cleaned.split("\n"):
            if len(line.strip()) >= 4:
                return line.strip()[:120]
    return ""


def require_text(path: str | Path, pages: list[Page]) -> None:
    """Fail a PDF whose text layer is (nearly) empty: a scan needs OCR/vision.

    A page counts as text when it has at least ``MIN_TEXT_CHARS_PER_PAGE`` non-blank
    characters beyond a stamp; a scanned paper has at most a paper-number stamp."""
    counts = [len("".join(p.cleaned.split())) for p in pages]
    if sum(c >= MIN_TEXT_CHARS_PER_PAGE for c in counts) * 2 < len(counts) or sum(counts) < MIN_TEXT_CHARS_PER_PAGE:
        unreadable = sum(p.unreadable for p in pages)
        if unreadable:
            raise DocumentError(
                path,
                f"unreadable text layer ({unreadable} of {len(pages)} pages: fonts without a Unicode map give "
                "control codes, not characters; configure a vision LLM to transcribe it)",
            )
        raise DocumentError(
            path,
            f"no extractable text ({sum(counts)} characters in {len(pages)} pages; scanned? "
            "configure a vision LLM to transcribe it)",
        )


def text_pages(source: SourceBytes) -> tuple[ExtractedDocument, list[Page]]:
    extracted = extract_document(source)
    pages = clean_pages(extracted.pages)
    return extracted, pages


def find_structure(pages: list[Page], settings: Settings, llm: LLMClient | None = None) -> StructureResult:
    """Rules first; the LLM (when configured) where the rules are unsure or with
    ``QA_STRUCTURE_MODE=llm``. ``.sections`` are the sections, the rest is how they were found
    (path, LLM calls/cached/tokens/seconds, dropped items, notes) for ``structure.json``.
    Every section then gets its heading path from the paper's outline (:mod:`outline`), and
    in a paper without labels, headings that ask become pairs (:mod:`asked_headings`)."""

    doc = DocumentText.from_pages(pages)
    result = resolve_structure(doc, llm, settings.structure_mode, settings.qa_include_internal_refs)
    result.sections, _ = apply_outline(doc, result.sections, pages, settings.qa_include_internal_refs)
    result.sections = asked_headings(doc, result.sections, break_starts(doc, pages), settings.qa_include_internal_refs)
    result.sections, result.annexes = link_annexes(doc, result.sections)
    return result


def find_page_tables(source: SourceBytes, pages: list[Page], settings: Settings, llm: LLMClient | None = None, geometry: Any = None) -> Any:
    """Tables per page (geometric, or vision when configured); None for non-PDF inputs.
    ``geometry``: what :func:`start_page_tables` started for this source, if anything."""
    if document_kind(source) != "pdf":
        return None

    return find_tables(source.data, pages, settings, llm, geometry)


def page_tables_as_read(source: SourceBytes, pages: list[Page], settings: Settings, llm: LLMClient | None = None, geometry: Any = None) -> PageTables | None:
    """:func:`find_page_tables`'s tables, handed over page by page as they are read
    (:class:`PageTables`): the question chunker chunks the first sections of a long PDF while
    the workers of :func:`start_page_tables` read its last pages. None for non-PDF inputs."""
    if document_kind(source) != "pdf":
        return None

    return PageTables(iter_page_tables(source.data, pages, settings, llm, geometry))


def start_page_tables(source: SourceBytes) -> ContextManager[Any]:
    """Start finding a PDF's geometric tables in worker processes, to be collected by
    :func:`find_page_tables` (a context manager: leaving it stops the workers). Geometry
    needs only the bytes, so it runs while this process reads and structures the text.
    Nothing for other kinds of document."""
    if document_kind(source) != "pdf":
        return nullcontext(None)

    return GeometricTables(source.data)


def build_chunks(
    document_id: str,
    strategy: Strategy,
    pages: list[Page],
    settings: Settings,
    sections: list[Section] | None = None,
    tables: list[Table] | PageTables | None = None,
) -> list[Chunk]:
    """Chunks of one document for one strategy; tables go in as Markdown in both. The
    question strategy reads ``PageTables`` only as far as the section it is chunking."""

    if strategy is Strategy.token:
        every_table = PageTables.of(tables).all()
        elsewhere: dict[int, list[tuple[int, int, int]]] = {}
        if every_table:
            pages, elsewhere = weave_pages(pages, every_table)
        doc = DocumentText.from_pages(pages, elsewhere)
        chunks = TokenChunkingStrategy(settings.chunk_size, settings.chunk_overlap).chunk(document_id, doc)
        if sections is None:
            sections = find_structure(pages, settings).sections
        return with_paths(chunks, doc, sections)
    doc = DocumentText.from_pages(pages)
    strategy_impl = QuestionChunkingStrategy(
        max_tokens=settings.qa_max_chunk_tokens,
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        include_internal_refs=settings.qa_include_internal_refs,
        join_tokens=settings.section_join_tokens,
    )
    return strategy_impl.chunk(document_id, doc, sections if sections is not None else find_structure(pages, settings).sections, tables)


def label_coverage(pages: list[Page], sections: list[Section]) -> LabelCoverage:
    """The question labels the pages show against the pairs made (:mod:`label_guard`)."""

    return text_label_coverage(DocumentText.from_pages(pages).text, sections)


def with_paths(chunks: list[Chunk], doc: DocumentText, sections: list[Section]) -> list[Chunk]:
    """Token windows carry the path of the section where they start."""

    starts = path_starts(doc, sections)
    for chunk in chunks:
        chunk.section_path = path_at(starts, chunk.char_start or 0)
        chunk.section_heading = chunk.section_path[-1] if chunk.section_path else None
    return chunks


@dataclass
class ChunkedPaper:
    """What ``legco-assets chunk`` gets for one file: the chunk records and every check of
    the paper (:func:`check_paper`, the same the assets run)."""

    records: list[dict[str, Any]]
    checks: list[Any]  # quality.Check


def chunk_file(
    path: str | Path, strategy: Strategy, settings: Settings, use_llm: bool = True, warn: Callable[[str], None] | None = None
) -> list[dict[str, Any]]:
    """The chunk records of one file (:func:`chunk_paper`); ``warn`` hears each failed check
    as one line (``FILE: check: what failed (pages or ids)``). Without ``warn`` the checks are
    not run (an eval or a benchmark wants the chunks only)."""
    paper = chunk_paper(path, strategy, settings, use_llm=use_llm, check=warn is not None)
    if warn is not None:
        for check in paper.checks:
            if not check.passed:
                warn(f"{path}: {check.line()}")
    return paper.records


def chunk_paper(path: str | Path, strategy: Strategy, settings: Settings, use_llm: bool = True, check: bool = True) -> ChunkedPaper:
    """The whole pipeline in memory for one file: chunk records and (``check``) the paper's
    checks, nothing written. A long PDF's table geometry runs in worker processes meanwhile
    (:func:`start_page_tables`)."""
    source = read_source(path)
    with start_page_tables(source) as geometry:
        extracted, pages = text_pages(source)
        llm = LLMClient.from_settings(settings) if use_llm else None
        if extracted.kind == "pdf":

            pages = transcribe_scanned(source.data, pages, settings, llm, MIN_TEXT_CHARS_PER_PAGE).pages
            require_text(path, pages)
        sections = find_structure(pages, settings, llm if strategy is Strategy.question else None).sections
        labels = label_coverage(pages, sections).to_dict() if check else None
        # chunking needs the tokenizer and the tables; loading it first leaves the
        # workers more of the tables
        encoding(settings.cache_dir)

        chunks = build_chunks(slug(path), strategy, pages, settings, sections, page_tables_as_read(source, pages, settings, llm, geometry))
    records = [c.to_record(Path(path).name, source.sha256) for c in chunks]
    return ChunkedPaper(records, check_paper(records, pages, sections, strategy, settings, labels) if check else [])


def paper_facts(
    pages: list[Page],
    sections: list[Section],
    strategy: Strategy,
    settings: Settings,
    labels: dict[str, Any] | None = None,
    official: dict[str, Any] | None = None,
) -> PaperFacts:
    """What the checks need besides the chunks, gathered the same way for the assets and the
    CLI: the pages a chunk must cover (pages with text; for the question strategy not a
    contents page, which is never chunked by design), the strategy's token limit, the
    paper's own furniture learned from its raw pages, and the structure's summary."""

    expected = {p.number for p in pages if p.cleaned.strip()}
    if strategy is Strategy.question:
        expected -= set(unchunked_pages(sections))
    limit = settings.chunk_size if strategy is Strategy.token else settings.qa_max_chunk_tokens
    furniture = page_furniture(pages)
    return PaperFacts(
        sorted(expected),
        limit,
        furniture.running_headers,
        furniture.section_headers,
        structure_summary(sections),
        labels,
        OfficialMatch.from_dict(official).check() if official else None,
        [p.number for p in pages if p.unreadable],
        {p.number: lines for p, lines in zip(pages, furniture.page_lines)},
    )


def check_paper(
    records: list[dict[str, Any]] | None,
    pages: list[Page],
    sections: list[Section],
    strategy: Strategy,
    settings: Settings,
    labels: dict[str, Any] | None = None,
    official: dict[str, Any] | None = None,
) -> list[Any]:
    """Every check of one paper (``quality.paper_checks``): the chunk gates when
    ``records`` are given, the structure checks always (with LegCo's question records
    when ``structure.json`` holds them)."""

    return paper_checks(records, paper_facts(pages, sections, strategy, settings, labels, official))


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
    art.root.mkdir(parents=True, exist_ok=True)
    snapshot = art.path("source" + source.path.suffix.lower())
    snapshot.write_bytes(source.data)
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
    art.write_json("source.json", asdict(info))
    return info


def stage_page_text(settings: Settings, document_id: str, llm: LLMClient | None = None) -> ExtractedDocument:
    """Clean the stored text layer (footers/headers out, raw kept); with a vision LLM,
    scanned pages are transcribed first (``transcription.json`` records what that did)."""
    art = Artifacts(settings, document_id)
    extracted = ExtractedDocument.from_dict(art.read_json("raw_text.json"))
    extracted.pages = clean_pages(extracted.pages)
    if extracted.kind == "pdf":

        llm = llm or (LLMClient.from_settings(settings) if settings.qa_vision_enabled else None)
        transcription = transcribe_scanned(art.source_bytes(), extracted.pages, settings, llm, MIN_TEXT_CHARS_PER_PAGE)
        extracted.pages = transcription.pages
        if transcription.transcribed:
            extracted.extractor += "+vision"
        art.write_json("transcription.json", transcription.metadata())
        require_text(art.source().path, extracted.pages)
    art.write_json("page_text.json", extracted.to_dict())
    return extracted


def stage_page_images(settings: Settings, document_id: str, dpi: int, all_pages: bool) -> list[Path]:
    """PNG per page; without the vision stage only page 1 (a preview) is rendered."""
    art = Artifacts(settings, document_id)
    info = art.source()
    folder = art.path("images")
    shutil.rmtree(folder, ignore_errors=True)
    if info.kind != "pdf":
        return []
    folder.mkdir(parents=True, exist_ok=True)
    data = art.source_bytes()
    numbers = range(1, info.pages + 1) if all_pages else range(1, 2)
    paths = []
    for n in numbers:
        path = folder / f"page-{n:04d}.png"
        path.write_bytes(render_page_png(data, n, dpi))
        paths.append(path)
    return paths


def stage_structure(settings: Settings, document_id: str, llm: LLMClient | None = None) -> list[Section]:
    """Sections to ``structure.json``; its ``"llm"`` entry says how they were found and what
    the LLM cost (calls, cached, tokens, seconds), its ``"labels"`` entry the question labels
    seen against the pairs made (:mod:`label_guard`), for the asset's metadata and check."""
    art = Artifacts(settings, document_id)

    pages = art.pages()
    result = find_structure(pages, settings, llm)
    labels = label_coverage(pages, result.sections).to_dict()
    # the origin only feeds the official-records check; a structure run from page text alone has none
    origin = art.source().origin if art.path("source.json").exists() else None
    records, why_none = official_records(origin)
    official = match_official_questions(result.sections, records, why_none)  # marks the matched sections
    stored = {"sections": [s.to_dict() for s in result.sections], "outline": outline_of(result.sections), "llm": result.metadata(), "labels": labels,
              "official_questions": official.to_dict()}
    if result.annexes is not None and (result.annexes.linked or result.annexes.unresolved_references or result.annexes.unlinked_appendices):
        stored["annexes"] = result.annexes.to_dict()  # a Hansard's appendices and the exchanges they answer
    art.write_json("structure.json", stored)
    return result.sections


def official_records(origin: dict[str, Any] | None) -> tuple[list[dict[str, Any]] | None, str]:
    """LegCo's question records kept with a paper the feed brought (None, and why, when there are none)."""
    if not origin:
        return None, "no official question records: the paper did not come from LegCo's feed"
    if "questions" not in origin:
        return None, "no official question records yet: the feed could not fetch them (it asks again next poll)"
    return list(origin["questions"]), ""


def stage_tables(settings: Settings, document_id: str, llm: LLMClient | None = None) -> Any:
    art = Artifacts(settings, document_id)
    info = art.source()
    source = SourceBytes(Path(info.path), art.source_bytes())
    result = find_page_tables(source, art.pages(), settings, llm)
    tables = result.tables if result else []
    art.write_json("tables.json", {"tables": [t.to_dict() for t in tables]})
    return result


def stage_chunks(settings: Settings, document_id: str, strategy: Strategy) -> list[dict[str, Any]]:
    art = Artifacts(settings, document_id)
    info = art.source()
    sections = art.sections() if strategy is Strategy.question or art.path("structure.json").exists() else None
    encoding(settings.cache_dir)  # loaded with the settings' cache of its ranks
    chunks = build_chunks(document_id, strategy, art.pages(), settings, sections, art.tables())
    records = [c.to_record(info.filename, info.sha256) for c in chunks]
    art.write_chunks(strategy, records)
    return records


def stage_vector_index(settings: Settings, document_id: str, strategy: Strategy, collection: Any) -> Any:
    """Write the chunks to Chroma, then link them with the other language's version when both
    are stored (:func:`stage_counterpart`). The link is made here, not in ``chunks``: it needs
    both papers, and the one ingested first is linked when the second arrives by updating its
    stored chunks' metadata in place, with no re-parse and no re-embedding."""
    from .search import link_counterparts, replace_document  # Chroma and the embedder load in ~1 s: not for `chunk`

    art = Artifacts(settings, document_id)
    info = art.source()
    records = with_excerpt_paths(settings, document_id, strategy, art.read_chunks(strategy))
    result = replace_document(collection, records, document_id, strategy.value, info.sha256)
    with DocumentIndex(settings.documents_dir).pairing():
        counterpart = stage_counterpart(settings, document_id)
        if counterpart.decided:
            counterpart.chunks_updated = link_counterparts(collection, document_id, counterpart.paired_with)
    result.counterpart = counterpart
    return result


# -- excerpts (core/excerpts/) -------------------------------------------------------------------
def excerpt_source_kind(info: SourceInfo) -> str:
    """The kind of excerpt a paper gets: a PDF that only pypdf could open is excerpted
    from its text, as PDFium (which cuts and highlights pages) could not read it."""
    return "text" if info.kind == "pdf" and info.extractor == "pypdf" else info.kind


def excerpt_folder(settings: Settings, document_id: str) -> Path:
    """A paper's ``excerpts`` folder: one file (and manifest) per strategy."""
    return Artifacts(settings, document_id).path("excerpts")


def with_excerpt_paths(settings: Settings, document_id: str, strategy: Strategy, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with ``chunk_file_path``: the strategy's excerpt file that
    ``chunk_excerpts`` writes (or wrote) and the chunk's place in it (``#page=N``). It
    follows from the chunk alone, so ``vector_index`` stores it without waiting for the
    excerpts."""

    kind = excerpt_source_kind(Artifacts(settings, document_id).source())
    folder = excerpt_folder(settings, document_id)
    return [{**r, "metadata": {**r["metadata"], "chunk_file_path": chunk_link(folder, strategy.value, kind, r["metadata"])}} for r in records]


def stage_excerpts(settings: Settings, document_id: str, strategy: Strategy) -> Any:
    """A strategy's excerpts of a paper (:func:`.excerpts.write_excerpts`); kept when no
    chunk changed. A PDF's are highlights on the paper as stored here (``source.pdf``)."""

    art = Artifacts(settings, document_id)
    info = art.source()
    records = art.read_chunks(strategy)
    kind = excerpt_source_kind(info)
    data = art.source_bytes() if kind == "pdf" else b""
    return write_excerpts(excerpt_folder(settings, document_id), strategy.value, kind, data, art.pages(), records, info.sha256, info.filename)


def cut_chunk_excerpt(settings: Settings, chunk_id: str) -> tuple[bytes, str]:
    """One chunk's excerpt on its own (:func:`.excerpts.cut_excerpt`) and its extension;
    ``KeyError`` when no stored chunk has that id."""
    from .excerpts import cut_excerpt

    document_id, strategy_name, _ = chunk_id.rsplit(":", 2)
    strategy = Strategy.parse(strategy_name)
    art = Artifacts(settings, document_id)
    if not art.path("source.json").exists():
        raise KeyError(chunk_id)
    record = next((r for r in art.read_chunks(strategy) if r["id"] == chunk_id), None)
    if record is None:
        raise KeyError(chunk_id)
    info = art.source()
    return cut_excerpt(excerpt_folder(settings, document_id), strategy.value, excerpt_source_kind(info), record, art.pages(), info.filename)


# -- counterparts (the other language's version of a paper, core/sources/counterparts.py) ----------------
@dataclass
class CounterpartResult:
    """What :func:`stage_counterpart` found: the candidate (by name or sidecar), the decision
    (None while the candidate is not ingested yet: it links both when it arrives)."""

    candidate: str | None = None
    decision: Any = None  # counterparts.Decision
    chunks_updated: int = 0

    @property
    def decided(self) -> bool:
        return self.decision is not None or self.candidate is None

    @property
    def paired_with(self) -> str | None:
        return self.candidate if self.decision is not None and self.decision.paired else None


def document_profile(settings: Settings, document_id: str) -> Any:
    """The :class:`.counterparts.Profile` of a document from its stored artifacts, or None
    while its text is not extracted yet."""

    art = Artifacts(settings, document_id)
    if not art.path("source.json").exists() or not art.path("page_text.json").exists():
        return None
    ids = [s.qa_id or "" for s in art.sections() if s.type == "qa"] if art.path("structure.json").exists() else None
    return profile_of(DocumentText.from_pages(art.pages()).text, art.source().language, ids)


def counterpart_candidate(path: str, others: dict[str, str]) -> tuple[str | None, Any]:
    """(the other version's key, a hand decision or None) for the file at ``path`` among
    ``others`` (key -> file path): a sidecar on either side decides, else the file names propose."""

    name = Path(path).name
    said = read_sidecar(path)
    if said == NO_COUNTERPART:
        return None, None
    for key, other in others.items():
        if said == Path(other).name:
            return key, by_hand(True, Path(path).name + ".counterpart")
        theirs = read_sidecar(other)
        if theirs == name:
            return key, by_hand(True, Path(other).name + ".counterpart")
    candidate = proposed_partner(name, {k: Path(v).name for k, v in others.items()})
    if candidate and read_sidecar(others[candidate]) == NO_COUNTERPART:
        return None, None
    return candidate, None


def counterpart_metadata(settings: Settings, document_id: str) -> dict[str, Any]:
    """What the index knows of this document's other-language version, as scalar metadata:
    ``counterpart_document_id`` when paired, else ``counterpart_candidate`` (a name match not
    judged yet, or rejected) with the reason; empty when there is no candidate."""
    entry = DocumentIndex(settings.documents_dir).get(document_id)
    if entry is None or not entry.counterpart:
        return {}
    known = dict(entry.counterpart)
    other = known.pop("document_id")
    key = "counterpart_document_id" if known.get("counterpart_paired") else "counterpart_candidate"
    return {key: other, **known}


def counterpart_question_counts(settings: Settings, document_id: str, partner: str) -> tuple[int, int]:
    """Q&A pairs found in each of two paired versions (their structure artifacts)."""
    counts = []
    for doc in (document_id, partner):
        profile = document_profile(settings, doc)
        counts.append(len(profile.question_ids or []) if profile else 0)
    return counts[0], counts[1]


def stage_counterpart(settings: Settings, document_id: str) -> CounterpartResult:
    """Find this document's other-language version among the registered documents, judge the
    pair by content (or by hand) once both are extracted, and record the decision on both
    index entries."""

    index = DocumentIndex(settings.documents_dir)
    entries = index.all()
    if document_id not in entries:  # chunks written without the index (tests, tools): no file to pair
        return CounterpartResult()
    others = {k: e.path for k, e in entries.items() if k != document_id}
    candidate, decision = counterpart_candidate(entries[document_id].path, others)
    result = CounterpartResult(candidate)
    if candidate is None:
        index.set_counterpart(document_id, None, None)
        return result
    mine, theirs = document_profile(settings, document_id), document_profile(settings, candidate)
    if theirs is None:
        return result
    result.decision = decision or confirm(mine, theirs)
    index.set_counterpart(document_id, candidate, result.decision.metadata())
    return result


def timed(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - started
