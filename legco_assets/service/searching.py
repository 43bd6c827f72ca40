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
from legco_assets.core.search import Hit, script_of
from legco_assets.core.search.closeness import CLOSENESS, JUDGED, STRONG, judge
from legco_assets.core.settings import Settings, Strategy

from .index import LiveIndex, Snapshot
from .limits import MAX_K, MAX_QUERY_CHARS
from .schema import NO_CLOSE_MATCH, ChunkResponse, SearchHit, SearchResponse

LANGUAGES = {"zh": "zh-Hant", "zh-hant": "zh-Hant", "en": "en"}
LANGUAGE_OVERFETCH = 4  # a language filter searches this many times k, then keeps that language's


# the MCP tool's one line for a strategy that is none (the API's 422 lists the values itself)
NO_SUCH_STRATEGY = f"strategy must be {' or '.join(s.value for s in Strategy)}"


class BadRequest(ValueError):
    """A request the server will not run (a 400 or 422 with this one line)."""


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


def to_hit(snapshot: Snapshot, hit: Hit, base_url: str, settings: Settings) -> SearchHit:
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
        excerpt_url=excerpt_url(base_url, chunk_link(hit.id)),
    )


def search(index: LiveIndex, request: SearchRequest) -> SearchResponse:
    """The request's hits, best first, from the current snapshot."""
    request = request.checked()
    snapshot = index.current()
    language = LANGUAGES.get((request.language or "").lower())
    depth = min(request.k * LANGUAGE_OVERFETCH, MAX_K * LANGUAGE_OVERFETCH) if language else request.k
    with index.search_lock:
        retriever = snapshot.retriever
        found = retriever.search(
            request.query, depth, request.strategy, request.mode, request.document or None
        )
        if language:
            found = [h for h in found if hit_language(snapshot, h.record) == language]
        found = found[: request.k]
        # judged after ranking, from the rankers' own scores (core/search/closeness.py)
        rankings = retriever.rankings(request.query, request.strategy, JUDGED, request.document or None)
        matches = judge(rankings, found, CLOSENESS[request.strategy.value])
    base = index.settings.excerpts_base_url
    hits = [
        to_hit(snapshot, h, base, index.settings).model_copy(update={"match": m})
        for h, m in zip(found, matches)
    ]
    no_close_match = STRONG not in matches
    return SearchResponse(
        query=request.query,
        strategy=request.strategy,
        mode=request.mode,
        hits=hits,
        no_close_match=no_close_match,
        note=NO_CLOSE_MATCH if no_close_match else None,
    )


def get_chunk(index: LiveIndex, chunk_id: str) -> ChunkResponse:
    """A stored chunk's record by id; KeyError when no latest chunk has it."""
    snapshot = index.current()
    with index.search_lock:
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
