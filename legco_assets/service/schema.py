"""The API's and the MCP tools' records, as the OpenAPI page (``/docs``) shows them.

A search hit is the chunk record (:class:`legco_assets.core.records.ChunkRecord`) cut to
what a reader or a RAG application cites, with its score and excerpt URL; ``GET
/api/chunks/{id}`` gives the whole typed record (its ``metadata`` is ``ChunkMetadata``
itself, a dataclass pydantic reads), so the schema is the one the pipeline writes."""

from __future__ import annotations

from pydantic import BaseModel, Field

from legco_assets.core.modes import DEFAULT_MODE, Mode
from legco_assets.core.records import ChunkMetadata
from legco_assets.core.settings import Strategy


class SearchHit(BaseModel):
    """One ranked chunk, with what a citation needs: title, pages, section path, excerpt."""

    id: str = Field(description="chunk id: <document_id>:<strategy>:<index>")
    document_id: str
    title: str = Field(description="the paper's title (its first heading, else its file name)")
    text: str
    score: float
    page_start: int
    page_end: int
    section_path: list[str] = Field(description="the paper's headings above the chunk, outermost first")
    question_id: str | None = Field(description="the paper's own question number, on a Q&A chunk")
    language: str = Field(description="the paper's language: zh-Hant or en")
    date: str | None = Field(None, description="the paper's date as printed: 2012-11-21, 2026-04, 2019")
    date_precision: str | None = Field(None, description="day, month or year")
    kind: str | None = Field(None, description="the paper's kind: hansard, committee_paper, faq, …")
    paper_number: str | None = Field(None, description="its LC Paper number, CB(2)1234/2025(03)")
    asker: str | None = Field(None, description="on a Council exchange, the member who asks, as printed")
    answerer: str | None = Field(None, description="on a Council exchange, the official replying, as printed")
    speakers: list[str] | None = Field(
        None, description="everyone but the chair who speaks in the passage, as printed, in order"
    )
    excerpt_url: str = Field(description="the chunk's own excerpt: its pages with only its highlight")
    table_ids: list[str] = Field(
        default_factory=list, description="the tables the chunk holds, as data at /api/tables/{id}"
    )
    match: str = Field(
        "weak",
        description="strong: the passage answers the query closely; weak: it is only the nearest there is",
    )


NO_CLOSE_MATCH = "nothing in these papers answers this closely"


class SearchResponse(BaseModel):
    query: str
    strategy: Strategy
    mode: Mode
    hits: list[SearchHit]
    no_close_match: bool = Field(False, description="true when no hit is a strong match")
    note: str | None = Field(None, description=f"'{NO_CLOSE_MATCH}' when no hit is a strong match")


class ChunkResponse(BaseModel):
    """The stored chunk record (``ChunkRecord``), with its paper's title and excerpt URL."""

    id: str
    document_id: str
    text: str
    page_number: int
    metadata: ChunkMetadata
    title: str
    excerpt_url: str


class DocumentRow(BaseModel):
    """One stored paper under one strategy (its latest version)."""

    document_id: str
    title: str
    language: str
    strategy: Strategy
    version: str = Field(description="the first 12 hex digits of the paper's sha256")
    filename: str
    chunks: int
    counterpart_document_id: str | None = None
    date: str | None = Field(None, description="the paper's date as printed: 2012-11-21, 2026-04, 2019")
    date_precision: str | None = Field(None, description="day, month or year")
    kind: str | None = Field(None, description="hansard, council_question, committee_paper, agenda, …")
    paper_number: str | None = Field(None, description="its LC Paper number, CB(2)1234/2025(03)")


class DocumentsResponse(BaseModel):
    documents: list[DocumentRow]


class AnswerRequest(BaseModel):
    question: str = Field(min_length=1, title="Question", description="What to answer, Chinese or English.")
    strategy: Strategy | None = Field(
        None, title="Chunking strategy", description="Unset: the server's DEFAULT_CHUNKING_STRATEGY."
    )
    mode: Mode = Field(DEFAULT_MODE, title="Ranking", description="How the context's chunks are found.")
    document: str | None = Field(
        None, title="Document id", description="Only this paper's chunks; an unknown id is a 404."
    )


class AnswerResponse(BaseModel):
    """The model's answer, whether the chunks sufficed, and the chunks it was given."""

    question: str
    answer: str | None
    sufficient: bool
    citations: list[dict[str, object]]
    context: list[SearchHit]
