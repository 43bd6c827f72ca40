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
    excerpt_url: str = Field(description="the chunk's own excerpt: its pages with only its highlight")
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


class DocumentsResponse(BaseModel):
    documents: list[DocumentRow]


class AnswerRequest(BaseModel):
    question: str = Field(min_length=1)
    strategy: Strategy | None = None
    mode: Mode = DEFAULT_MODE
    document: str | None = None


class AnswerResponse(BaseModel):
    """The model's answer, whether the chunks sufficed, and the chunks it was given."""

    question: str
    answer: str | None
    sufficient: bool
    citations: list[dict[str, object]]
    context: list[SearchHit]
