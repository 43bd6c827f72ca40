"""The JSON API under ``/api`` and the excerpt route: search, the stored papers, one chunk,
an answer with citations (with an LLM configured), and one chunk's excerpt. FastAPI
documents each at ``/docs`` from the models of :mod:`.schema`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Response

from legco_assets.core.modes import DEFAULT_MODE, Mode
from legco_assets.core.search import CONTEXT_TOKENS, answer_question, strategy_for
from legco_assets.core.settings import Strategy
from legco_assets.core.structure import KINDS
from legco_assets.core.tables import to_csv

from .context import Context
from .excerpts import NoExcerptsYet, NoSuchChunk
from .limits import MAX_K, MAX_QUERY_CHARS
from .schema import (
    AnswerRequest,
    AnswerResponse,
    ChunkResponse,
    DocumentsResponse,
    SearchResponse,
)
from .searching import (
    BadRequest,
    NoSuchDocument,
    SearchRequest,
    documents_listed,
    get_chunk,
    known_document,
    search,
    shown,
    to_hit,
)
from .tables import NoSuchTable, get_table, list_tables, table_json

router = APIRouter()
Sort = Literal["relevance", "date"]
DATE_FROM = "only papers dated on or after: YYYY, YYYY-MM or YYYY-MM-DD (a partial date: its whole span)"
DATE_TO = (
    "only papers dated on or before: YYYY, YYYY-MM or YYYY-MM-DD; an undated paper passes no date filter"
)
KIND = f"only papers of these kinds (repeat, or comma-separated): {', '.join(KINDS)}"
SPEAKER = (
    "only passages where this member or official speaks: the exchanges they ask or answer and "
    "the debate speeches they make (any printed form: Hon Jeffrey Lam, 林健鋒議員); the question "
    "strategy is searched when no strategy is named"
)
SORT = "relevance (default), or date: the k best hits, newest paper first"
NO_LLM = "no LLM configured (set LLM_BASE_URL and LLM_MODEL_NAME): use /api/search for the passages"


@router.get("/api/search", response_model=SearchResponse, tags=["search"], summary="Search the chunks")
def api_search(
    service: Context,
    q: Annotated[
        str,
        Query(
            title="Query",
            max_length=MAX_QUERY_CHARS,
            description="The question or words to find, Chinese or English "
            f"(at most {MAX_QUERY_CHARS} characters).",
        ),
    ],
    k: Annotated[
        int,
        Query(
            title="Hits", ge=1, le=MAX_K, description=f"How many chunks to return, best first (1-{MAX_K})."
        ),
    ] = 5,
    strategy: Annotated[
        Strategy | None,
        Query(
            title="Chunking strategy",
            description="token: windows of about 1000 tokens; question: one chunk per question and its "
            "reply. Unset: the server's DEFAULT_CHUNKING_STRATEGY (its value is the default shown).",
        ),
    ] = None,
    mode: Annotated[
        Mode,
        Query(title="Ranking", description="hybrid: words (BM25) and meaning (vectors) fused; bm25; vector."),
    ] = DEFAULT_MODE,
    document: Annotated[
        str | None,
        Query(
            title="Document id",
            description="Only this paper's chunks (an id from /api/documents); an unknown id is a 404.",
        ),
    ] = None,
    language: Annotated[
        str | None,
        Query(title="Language", description="zh or en: only papers in that language."),
    ] = None,
    date_from: Annotated[str | None, Query(description=DATE_FROM)] = None,
    date_to: Annotated[str | None, Query(description=DATE_TO)] = None,
    kind: Annotated[list[str] | None, Query(description=KIND)] = None,
    speaker: Annotated[str | None, Query(description=SPEAKER)] = None,
    sort: Annotated[Sort, Query(description=SORT)] = "relevance",
) -> SearchResponse:
    """The ``k`` best chunks for ``q``, as ``legco-assets query`` ranks them, among those that
    pass the filters (applied inside ranking: ``k`` come back when ``k`` pass)."""
    kinds = tuple(part for value in kind or [] for part in value.split(","))
    try:
        return search(
            service.index,
            SearchRequest(
                q,
                k,
                strategy_for(strategy, service.default_strategy, speaker),
                mode,
                document,
                language,
                date_from,
                date_to,
                kinds,
                speaker,
                sort,
            ),
        )
    except BadRequest as exc:
        raise HTTPException(400, str(exc)) from None
    except NoSuchDocument as exc:
        raise HTTPException(404, str(exc)) from None


@router.get("/api/documents", response_model=DocumentsResponse, tags=["search"], summary="The stored papers")
def api_documents(
    service: Context,
    date_from: Annotated[str | None, Query(description=DATE_FROM)] = None,
    date_to: Annotated[str | None, Query(description=DATE_TO)] = None,
    kind: Annotated[list[str] | None, Query(description=KIND)] = None,
) -> DocumentsResponse:
    """Every stored paper's latest version, per strategy, with its title, date, kind and
    chunk count; only those dated in the range and of the kinds, when asked."""
    try:
        return documents_listed(service.index, date_from, date_to, kind)
    except BadRequest as exc:
        raise HTTPException(400, str(exc)) from None


@router.get(
    "/api/chunks/{chunk_id}",
    response_model=ChunkResponse,
    response_model_exclude_none=True,
    tags=["search"],
    summary="One chunk's record",
)
def api_chunk(service: Context, chunk_id: str) -> ChunkResponse:
    """One stored chunk's record (the pipeline's ``ChunkRecord``), by id."""
    try:
        return get_chunk(service.index, chunk_id)
    except KeyError:
        raise HTTPException(404, "no such chunk") from None


@router.get("/api/tables", tags=["tables"])
def api_tables(
    service: Context,
    document: Annotated[str | None, Query(max_length=200, description="only this document id")] = None,
    q: Annotated[
        str | None, Query(max_length=MAX_QUERY_CHARS, description="words the caption or header holds")
    ] = None,
) -> dict[str, Any]:
    """The stored tables (id, pages, shape, caption, header, column types and units): a
    paper's, or those whose caption or header holds every word of ``q``."""
    return {"tables": list_tables(service.settings, document, q)}


@router.get("/api/tables/{table_id}", tags=["tables"], response_model=None)
def api_table(service: Context, table_id: str) -> dict[str, Any] | Response:
    """One table as data: its columns (type, unit) and one record per row with each typed
    value beside its printed text; ``<id>.csv``: the printed cells as CSV."""
    as_csv = table_id.endswith(".csv")
    try:
        table = get_table(service.settings, table_id.removesuffix(".csv") if as_csv else table_id)
    except NoSuchTable:
        raise HTTPException(404, "no such table") from None
    if as_csv:
        return Response(to_csv(table), media_type="text/csv; charset=utf-8")
    return table_json(table)


@router.post(
    "/api/answer", response_model=AnswerResponse, tags=["answer"], summary="An answer with citations"
)
def api_answer(service: Context, body: AnswerRequest) -> AnswerResponse:
    """An answer from the stored chunks with citations; 503 without an LLM configured."""
    snapshot = service.index.current()
    try:  # a request naming no stored paper is wrong with or without an LLM
        known_document(snapshot, body.document)
    except NoSuchDocument as exc:
        raise HTTPException(404, str(exc)) from None
    if service.llm is None:
        raise HTTPException(503, NO_LLM)
    strategy = body.strategy or service.default_strategy
    try:
        SearchRequest(body.question, 1, strategy, body.mode).checked()
    except BadRequest as exc:
        raise HTTPException(400, str(exc)) from None
    try:
        result = answer_question(
            snapshot.retriever,
            body.question,
            service.llm,
            strategy,
            body.mode,
            body.document,
            CONTEXT_TOKENS,
            shown=lambda record: shown(record, service.settings),
        )
    except Exception as exc:  # the model's endpoint failing: its reason, as a 502
        raise HTTPException(502, f"the LLM call failed: {str(exc).splitlines()[0][:200]}") from None
    base = service.settings.excerpts_base_url
    return AnswerResponse(
        question=body.question,
        answer=result.answer if result.sufficient else None,
        sufficient=result.sufficient,
        citations=result.citations,
        context=[
            to_hit(snapshot, block.hit, base, service.settings, service.index.tables)
            for block in result.blocks
        ],
    )


@router.get("/excerpt/{chunk_id}", tags=["excerpts"], response_class=Response, summary="A chunk's excerpt")
def excerpt(service: Context, chunk_id: str) -> Response:
    """The chunk's own excerpt: a PDF of its pages with only its highlight, or for an HTML or
    text paper a page that marks only this chunk."""
    try:
        data, content_type = service.excerpts.get(chunk_id)
    except NoSuchChunk:
        raise HTTPException(404, "no such chunk") from None
    except NoExcerptsYet:
        raise HTTPException(404, "no excerpts yet for this chunk: run chunk_excerpts") from None
    return Response(
        data,
        media_type=content_type,
        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"},
    )
