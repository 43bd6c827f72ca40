"""The JSON API under ``/api`` and the excerpt route: search, the stored papers, one chunk,
an answer with citations (with an LLM configured), and one chunk's excerpt. FastAPI
documents each at ``/docs`` from the models of :mod:`.schema`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response

from legco_assets.core.modes import DEFAULT_MODE, Mode
from legco_assets.core.search import CONTEXT_TOKENS, answer_question
from legco_assets.core.settings import Strategy

from .context import Context
from .excerpts import NoExcerptsYet, NoSuchChunk
from .limits import MAX_K, MAX_QUERY_CHARS
from .schema import (
    AnswerRequest,
    AnswerResponse,
    ChunkResponse,
    DocumentRow,
    DocumentsResponse,
    SearchResponse,
)
from .searching import BadRequest, SearchRequest, get_chunk, search, shown, to_hit

router = APIRouter()
NO_LLM = "no LLM configured (set LLM_BASE_URL and LLM_MODEL_NAME): use /api/search for the passages"


@router.get("/api/search", response_model=SearchResponse, tags=["search"])
def api_search(
    service: Context,
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS, description="the question or words to find")],
    k: Annotated[int, Query(ge=1, le=MAX_K)] = 5,
    strategy: Annotated[Strategy | None, Query(description="default: DEFAULT_CHUNKING_STRATEGY")] = None,
    mode: Mode = DEFAULT_MODE,
    document: Annotated[str | None, Query(description="only this document id")] = None,
    language: Annotated[str | None, Query(description="zh or en: only papers in that language")] = None,
) -> SearchResponse:
    """The ``k`` best chunks for ``q``, as ``legco-assets query`` ranks them."""
    try:
        return search(
            service.index,
            SearchRequest(q, k, strategy or service.default_strategy, mode, document, language),
        )
    except BadRequest as exc:
        raise HTTPException(400, str(exc)) from None


@router.get("/api/documents", response_model=DocumentsResponse, tags=["search"])
def api_documents(service: Context) -> DocumentsResponse:
    """Every stored paper's latest version, per strategy, with its title and chunk count."""
    rows = service.index.documents()
    return DocumentsResponse(documents=[DocumentRow(**row) for row in rows])


@router.get(
    "/api/chunks/{chunk_id}", response_model=ChunkResponse, response_model_exclude_none=True, tags=["search"]
)
def api_chunk(service: Context, chunk_id: str) -> ChunkResponse:
    """One stored chunk's record (the pipeline's ``ChunkRecord``), by id."""
    try:
        return get_chunk(service.index, chunk_id)
    except KeyError:
        raise HTTPException(404, "no such chunk") from None


@router.post("/api/answer", response_model=AnswerResponse, tags=["answer"])
def api_answer(service: Context, body: AnswerRequest) -> AnswerResponse:
    """An answer from the stored chunks with citations; 503 without an LLM configured."""
    if service.llm is None:
        raise HTTPException(503, NO_LLM)
    strategy = body.strategy or service.default_strategy
    try:
        SearchRequest(body.question, 1, strategy, body.mode).checked()
    except BadRequest as exc:
        raise HTTPException(400, str(exc)) from None
    snapshot = service.index.current()
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
        context=[to_hit(snapshot, block.hit, base, service.settings) for block in result.blocks],
    )


@router.get("/excerpt/{chunk_id}", tags=["excerpts"], response_class=Response)
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
