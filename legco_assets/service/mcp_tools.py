"""The MCP server (the official ``mcp`` SDK, v2's ``MCPServer``): the API's search, one chunk
and the list of papers as tools for an AI assistant, over streamable HTTP at ``/mcp`` (the
same app) and over stdio (``legco-assets mcp``).

The descriptions tell the assistant what is here (Hong Kong Legislative Council papers:
Hansards, written and oral questions with the Government's replies, FAQs, guides, in
Traditional Chinese and English) and how to cite (title, pages, excerpt_url), since the
assistant sees nothing else of this project."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from legco_assets.core.modes import Mode
from legco_assets.core.search import strategy_for
from legco_assets.core.structure import DATE_PATTERN, KINDS, PaperKind

from .context import ServiceContext
from .limits import MAX_K
from .schema import ChunkResponse, DocumentsResponse, SearchResponse
from .searching import (
    NO_SUCH_STRATEGY,
    BadRequest,
    NoSuchDocument,
    SearchRequest,
    documents_listed,
    get_chunk,
    search,
    strategy_named,
)
from .tables import NoSuchTable, get_table, table_json

INSTRUCTIONS = (
    "Searches the text of Hong Kong Legislative Council (LegCo) papers stored here: Council "
    "proceedings (Hansards), questions by Members with the Government's replies, FAQs and "
    "guides, in Traditional Chinese and English, cut into passages (chunks). Ask in either "
    "language; a Chinese question finds English papers too. Quote a passage with its paper's "
    "title, its pages (page_start-page_end) and its excerpt_url, which opens the passage "
    "highlighted in the original paper. Say so when no passage answers the question."
)
SEARCH = (
    "Find the passages of the stored LegCo papers that best answer `query` (Chinese or "
    f"English), best first: at most `k` (1-{MAX_K}). `strategy`: 'question' gives one passage "
    "per question and reply of a paper, 'token' windows of about 1000 tokens (default: the "
    "server's). Narrow it when the question does: `date_from`/`date_to` when it names a time "
    "(YYYY, YYYY-MM or YYYY-MM-DD; a paper without a date is then left out), `kind` when it names "
    f"a sort of paper ({', '.join(KINDS)}; 'hansard' for what was said in the Council), "
    "`speaker` for what one Member or official said: the exchanges they asked or answered and "
    "their debate speeches (any printed form of the name; the 'question' strategy unless one is "
    "named), "
    "`document` for one paper (see list_documents). The filters pick among all passages, so `k` "
    "come back when that many pass. `sort`='date' lists the hits newest paper first (for 'the "
    "latest', 'how it changed'). Each hit has the paper's title, date, kind, page_start/page_end, "
    "section_path, question_id, asker/answerer and excerpt_url: cite them. Each hit's `match` is "
    "strong (it answers the query closely) or weak (only the nearest there is); `no_close_match` "
    "true and `note` say that nothing stored answers the query closely: say so rather than answer "
    "from a weak hit."
)
GET_CHUNK = (
    "The whole stored record of one passage by its id (as search returns it): its text, "
    "metadata (pages, section path, question, asker and answerer for Council questions) and excerpt_url."
)
LIST_DOCUMENTS = (
    "The LegCo papers stored here: document id, title, language, date, kind, paper number, "
    "chunking strategy, and how many passages each has; `date_from`/`date_to` (YYYY, YYYY-MM or "
    "YYYY-MM-DD) and `kind` list only those papers. Use it to see what is stored for a period "
    "or a sort of paper, and a document id to narrow search to one paper."
)
# every tool only reads the store: the same call gives the same answer until a paper is added
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, idempotentHint=True, destructiveHint=False, openWorldHint=False
)
DateText = Annotated[
    str | None,
    Field(description="YYYY, YYYY-MM or YYYY-MM-DD; a partial date is its whole span", pattern=DATE_PATTERN),
]
Kinds = Annotated[list[PaperKind] | None, Field(description="only papers of these kinds")]

GET_TABLE = (
    "One table of a paper as data, by its id (<document_id>:table:<n>, as a search hit's "
    "table_ids lists them): its caption, pages, columns with their type (integer, decimal, "
    "currency, percent, year, financial_year, date, text) and unit, and one record per row "
    "with each value typed beside the text as printed. Quote the printed text."
)


def build_mcp(service: ServiceContext) -> MCPServer:
    """An MCP server whose tools answer from ``service``'s live index."""
    server = MCPServer(name="legco-assets", instructions=INSTRUCTIONS)

    @server.tool(name="search", description=SEARCH, annotations=READ_ONLY)
    async def search_papers(
        query: str,
        k: int = 5,
        strategy: str | None = None,
        document: str | None = None,
        date_from: DateText = None,
        date_to: DateText = None,
        kind: Kinds = None,
        speaker: Annotated[
            str | None, Field(description="a Member or official, any printed form: Jeffrey Lam, 林健鋒議員")
        ] = None,
        sort: Annotated[
            Literal["relevance", "date"], Field(description="date: newest paper first")
        ] = "relevance",
    ) -> SearchResponse:
        named = strategy_named(strategy) if strategy else None
        if strategy and named is None:  # the tool's schema keeps a plain string: the error stays one line
            raise ToolError(NO_SUCH_STRATEGY)
        kinds = tuple(PaperKind(k).value for k in kind or [])
        try:
            chosen = strategy_for(named, service.default_strategy, speaker)
            request = SearchRequest(
                query, k, chosen, Mode.hybrid, document, None, date_from, date_to, kinds, speaker, sort
            )
            return await anyio.to_thread.run_sync(search, service.index, request)
        except (BadRequest, NoSuchDocument) as exc:
            raise ToolError(str(exc)) from None

    @server.tool(name="get_chunk", description=GET_CHUNK, annotations=READ_ONLY)
    async def chunk(id: str) -> ChunkResponse:  # noqa: A002 (the tool's argument name)
        try:
            return await anyio.to_thread.run_sync(get_chunk, service.index, id)
        except KeyError:
            raise ToolError(f"no such chunk: {id}") from None

    @server.tool(name="list_documents", description=LIST_DOCUMENTS, annotations=READ_ONLY)
    async def documents(
        date_from: DateText = None, date_to: DateText = None, kind: Kinds = None
    ) -> DocumentsResponse:
        kinds = [PaperKind(k).value for k in kind or []]
        try:
            return await anyio.to_thread.run_sync(documents_listed, service.index, date_from, date_to, kinds)
        except BadRequest as exc:
            raise ToolError(str(exc)) from None

    @server.tool(name="get_table", description=GET_TABLE, annotations=READ_ONLY)
    async def table(id: str) -> dict[str, Any]:  # noqa: A002 (the tool's argument name)
        try:
            found = await anyio.to_thread.run_sync(get_table, service.settings, id)
        except NoSuchTable:
            raise ToolError(f"no such table: {id}") from None
        return table_json(found)

    return server
