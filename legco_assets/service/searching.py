"""One search, as every face of the server asks it: the API, the page and the MCP tools call
:func:`search` and get the same hits. It runs the retriever ``legco-assets query`` runs
(:class:`legco_assets.core.search.Retriever`), on the live snapshot (:mod:`.index`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from legco_assets.core.chunking import withheld_record
from legco_assets.core.excerpts import chunk_link, excerpt_url
from legco_assets.core.modes import DEFAULT_MODE, Mode
from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import (
    CLOSENESS,
    JUDGED,
    STRONG,
    BadFilter,
    Hit,
    SearchFilters,
    judge,
    newest_first,
    script_of,
)
from legco_assets.core.settings import Settings, Strategy

from .index import LiveIndex, Snapshot
from .limits import MAX_K, MAX_QUERY_CHARS
from .schema import NO_CLOSE_MATCH, ChunkResponse, DocumentRow, DocumentsResponse, SearchHit, SearchResponse
from .tables import PaperTables

LANGUAGES = {"zh": "zh-Hant", "zh-hant": "zh-Hant", "en": "en"}
LANGUAGE_OVERFETCH = 4  # a language filter searches this many times k, then keeps that language's


# the MCP tool's one line for a strategy that is none (the API's 422 lists the values itself)
NO_SUCH_STRATEGY = f"strategy must be {' or '.join(s.value for s in Strategy)}"


class BadRequest(ValueError):
    """A request the server will not run (a 400 or 422 with this one line)."""


class NoSuchDocument(LookupError):
    """A ``document`` filter that names no stored paper: a 404 with one line, not an empty
    list of hits that looks like "nothing matched"."""

    def __init__(self, document: str):
        super().__init__(f"no such document: {document} (/api/documents lists them)")


def known_document(snapshot: Snapshot, document: str | None) -> None:
    """:class:`NoSuchDocument` unless ``document`` (when given) is stored in ``snapshot``."""
    if document and document not in snapshot.titles:
        raise NoSuchDocument(document)


def strategy_named(name: str) -> Strategy | None:
    """The strategy whose value is ``name`` exactly (as the form, a tool call or a chunk id
    writes it), else None."""
    return next((s for s in Strategy if s.value == name), None)


@dataclass(frozen=True)
class SearchRequest:
    """One search as every face asks it. The strategy and the mode are the enums' members:
    each face turns the text it was sent into them at its edge (the API refuses any other
    value with its one-line 422, the MCP tool with :data:`NO_SUCH_STRATEGY`, the page falls
    back to the default), so neither is checked here."""

    query: str
    k: int = 5
    strategy: Strategy = Strategy.token
    mode: Mode = DEFAULT_MODE
    document: str | None = None
    language: str | None = None  # zh | en: only hits from papers in that language
    # the papers' date range (YYYY, YYYY-MM or YYYY-MM-DD), kinds and a speaker
    # (core/search/filters.py); ``sort``: relevance, or date (newest paper first)
    date_from: str | None = None
    date_to: str | None = None
    kinds: tuple[str, ...] = ()
    speaker: str | None = None
    sort: str = "relevance"

    def filters(self) -> SearchFilters:
        """The request's filters, or :class:`BadRequest` naming the bad one."""
        try:
            return SearchFilters.of(self.document, self.date_from, self.date_to, self.kinds, self.speaker)
        except BadFilter as exc:
            raise BadRequest(str(exc)) from None

    def checked(self) -> SearchRequest:
        """The request, or :class:`BadRequest` naming the first limit it breaks."""
        if not self.query.strip():
            raise BadRequest("the query is empty")
        if len(self.query) > MAX_QUERY_CHARS:
            raise BadRequest(f"the query is over {MAX_QUERY_CHARS} characters")
        if not 1 <= self.k <= MAX_K:
            raise BadRequest(f"k must be between 1 and {MAX_K}")
        if self.language and self.language.lower() not in LANGUAGES:
            raise BadRequest("language must be zh or en")
        if self.sort not in ("relevance", "date"):
            raise BadRequest("sort must be relevance or date")
        self.filters()
        return self


def hit_language(snapshot: Snapshot, record: ChunkRecord) -> str:
    """The paper's language, else the chunk's script."""
    language = snapshot.titles.get(record.document_id, ("", ""))[1]
    return language or ("zh-Hant" if script_of(record.text) == "zh" else "en")


def title_of(snapshot: Snapshot, document_id: str) -> str:
    return snapshot.titles.get(document_id, (document_id, ""))[0] or document_id


def shown(record: ChunkRecord, settings: Settings) -> ChunkRecord:
    """The record as this server gives it out: its internal notes withheld (replaced by a
    marker) unless ``SERVE_INTERNAL_REFS`` is on."""
    return record if settings.serve_internal_refs else withheld_record(record)


def to_hit(
    snapshot: Snapshot, hit: Hit, base_url: str, settings: Settings, tables: PaperTables | None = None
) -> SearchHit:
    """A ranked chunk as this server gives it out; ``tables``: the papers' tables, for the ids
    of those the chunk holds."""
    m = hit.metadata
    return SearchHit(
        id=hit.id,
        document_id=hit.record.document_id,
        title=title_of(snapshot, hit.record.document_id),
        text=shown(hit.record, settings).text,
        score=round(hit.score, 6),
        page_start=m.page_start,
        page_end=m.page_end,
        section_path=list(m.section_path),
        question_id=m.question_id,
        language=hit_language(snapshot, hit.record),
        date=m.date,
        date_precision=m.date_precision,
        kind=m.kind,
        paper_number=m.paper_number,
        asker=m.asker,
        answerer=m.answerer,
        speakers=m.speakers,
        excerpt_url=excerpt_url(base_url, chunk_link(hit.id)),
        table_ids=hit_tables(hit, tables),
    )


def hit_tables(hit: Hit, tables: PaperTables | None) -> list[str]:
    """The tables a hit's chunk holds: those its chunk names (a token window records the
    tables it overlaps, one that starts in a table's rows too) and those its text prints."""
    named = list(hit.metadata.table_ids or [])
    printed = tables.ids_in(hit.record.document_id, hit.text) if tables is not None else []
    return list(dict.fromkeys(named + printed))


def search(index: LiveIndex, request: SearchRequest) -> SearchResponse:
    """The request's hits, best first, from the current snapshot."""
    request = request.checked()
    snapshot = index.current()
    known_document(snapshot, request.document)
    language = LANGUAGES.get((request.language or "").lower())
    depth = min(request.k * LANGUAGE_OVERFETCH, MAX_K * LANGUAGE_OVERFETCH) if language else request.k
    retriever = snapshot.retriever
    filters = request.filters()
    found, rankings = retriever.search_ranked(
        request.query, depth, request.strategy, request.mode, None, filters=filters
    )
    if language:
        found = [h for h in found if hit_language(snapshot, h.record) == language]
    found = found[: request.k]
    # judged after ranking, from the rankers' own scores among the same passages
    # (core/search/closeness.py): a hybrid search's own, another mode's ranked for it
    if rankings is None:
        where = filters if filters.active else None
        rankings = retriever.rankings(request.query, request.strategy, JUDGED, where)
    match_of = dict(zip((h.id for h in found), judge(rankings, found, CLOSENESS[request.strategy.value])))
    if request.sort == "date":
        found = newest_first(found)
    base = index.settings.excerpts_base_url
    hits = [
        to_hit(snapshot, h, base, index.settings, index.tables).model_copy(update={"match": match_of[h.id]})
        for h in found
    ]
    no_close_match = STRONG not in match_of.values()
    return SearchResponse(
        query=request.query,
        strategy=request.strategy,
        mode=request.mode,
        hits=hits,
        no_close_match=no_close_match,
        note=NO_CLOSE_MATCH if no_close_match else None,
    )


def documents_listed(
    index: LiveIndex,
    date_from: str | None = None,
    date_to: str | None = None,
    kinds: list[str] | tuple[str, ...] | str | None = None,
) -> DocumentsResponse:
    """The stored papers (``/api/documents``, ``list_documents``), only those dated in the
    range and of the kinds when asked; :class:`BadRequest` for a bad filter."""
    try:
        filters = SearchFilters.of(None, date_from, date_to, kinds)
    except BadFilter as exc:
        raise BadRequest(str(exc)) from None
    rows = [r for r in index.documents() if filters.admits_paper(r.get("date"), r.get("kind"))]
    return DocumentsResponse(documents=[DocumentRow(**row) for row in rows])


def get_chunk(index: LiveIndex, chunk_id: str) -> ChunkResponse:
    """A stored chunk's record by id; KeyError when no latest chunk has it."""
    snapshot = index.current()
    record = shown(find_record(snapshot, chunk_id), index.settings)
    return ChunkResponse(
        id=record.id,
        document_id=record.document_id,
        text=record.text,
        page_number=record.page_number,
        metadata=record.metadata,
        title=title_of(snapshot, record.document_id),
        excerpt_url=excerpt_url(index.settings.excerpts_base_url, chunk_link(record.id)),
    )


def find_record(snapshot: Snapshot, chunk_id: str) -> ChunkRecord:
    """The loaded scope's record of ``chunk_id`` (its strategy is the id's middle part)."""
    parts = chunk_id.rsplit(":", 2)
    strategy = strategy_named(parts[1]) if len(parts) == 3 else None
    if strategy is None:  # no scope is loaded for a name that is no strategy
        raise KeyError(chunk_id)
    scope = snapshot.retriever.scope(strategy)
    row = scope.position.get(chunk_id)
    if row is None:
        raise KeyError(chunk_id)
    return scope.records[row]


def as_json(response: Any) -> dict[str, Any]:
    return response.model_dump(mode="json")
