"""The MCP server (the official ``mcp`` SDK, v2's ``MCPServer``): the API's search, one chunk
and the list of papers as tools for an AI assistant, over streamable HTTP at ``/mcp`` (the
same app) and over stdio (``legco-assets mcp``).

The descriptions tell the assistant what is here (Hong Kong Legislative Council papers:
Hansards, written and oral questions with the Government's replies, FAQs, guides, in
Traditional Chinese and English) and how to cite (title, pages, excerpt_url), since the
assistant sees nothing else of this project."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from legco_assets.core.modes import Mode

from .context import ServiceContext
from .limits import MAX_K
from .schema import ChunkResponse, DocumentRow, DocumentsResponse, SearchResponse
from .searching import NO_SUCH_STRATEGY, BadRequest, SearchRequest, get_chunk, search, strategy_named

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
    "server's). `document`: only that document id (see list_documents). Each hit has the "
    "paper's title, page_start/page_end, section_path, question_id and excerpt_url: cite them. "
    "Each hit's `match` is strong (it answers the query closely) or weak (only the nearest there "
    "is); `no_close_match` true and `note` say that nothing stored answers the query closely: "
    "say so rather than answer from a weak hit."
)
GET_CHUNK = (
    "The whole stored record of one passage by its id (as search returns it): its text, "
    "metadata (pages, section path, question, asker and answerer for Council questions) and excerpt_url."
)
LIST_DOCUMENTS = (
    "The LegCo papers stored here: document id, title, language, chunking strategy, and "
    "how many passages each has. Use a document id to narrow search to one paper."
)


def build_mcp(service: ServiceContext) -> MCPServer:
    """An MCP server whose tools answer from ``service``'s live index."""
    server = MCPServer(name="legco-assets", instructions=INSTRUCTIONS)

    @server.tool(name="search", description=SEARCH)
    async def search_papers(
        query: str, k: int = 5, strategy: str | None = None, document: str | None = None
    ) -> SearchResponse:
        chosen = strategy_named(strategy) if strategy else service.default_strategy
        if chosen is None:  # the tool's schema keeps a plain string: the error stays one line
            raise ToolError(NO_SUCH_STRATEGY)
        request = SearchRequest(query, k, chosen, Mode.hybrid, document)
        try:
            return await anyio.to_thread.run_sync(search, service.index, request)
        except BadRequest as exc:
            raise ToolError(str(exc)) from None

    @server.tool(name="get_chunk", description=GET_CHUNK)
    async def chunk(id: str) -> ChunkResponse:  # noqa: A002 (the tool's argument name)
        try:
            return await anyio.to_thread.run_sync(get_chunk, service.index, id)
        except KeyError:
            raise ToolError(f"no such chunk: {id}") from None

    @server.tool(name="list_documents", description=LIST_DOCUMENTS)
    async def documents() -> DocumentsResponse:
        rows = await anyio.to_thread.run_sync(service.index.documents)
        return DocumentsResponse(documents=[DocumentRow(**row) for row in rows])

    return server
