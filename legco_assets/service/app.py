"""The server's one ASGI app: the search page, the JSON API, the excerpts and the MCP
endpoint, behind the request guard (:mod:`.limits`), every error one line.

Why one app: one process loads the embedder, BM25 and the store once and answers every
face from them (``legco-assets serve``). FastAPI writes the API's OpenAPI document (shown at
``/docs`` without a CDN, :mod:`.reference`); the MCP
SDK's streamable-HTTP route is added to the same router, its session manager run by the
app's lifespan."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from legco_assets.core.modes import Mode

from .api import router
from .auth import TokenGate
from .context import Context, ServiceContext
from .limits import MAX_BODY_BYTES, Guard
from .mcp_tools import build_mcp
from .page import PageFilters, render
from .reference import reference_page, with_server_defaults
from .searching import BadRequest, SearchRequest, search, strategy_named


def _one_line(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"detail": message.splitlines()[0] if message else "error"},
        status,
        headers={"X-Content-Type-Options": "nosniff", **(headers or {})},
    )


def _validation_line(exc: RequestValidationError) -> str:
    """The first validation error as ``where: what`` (``query.k: Input should be …``)."""
    errors = exc.errors()
    if not errors:
        return "bad request"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where}: {first.get('msg', 'invalid')}"


def install_error_handlers(app: FastAPI) -> None:
    """Every error as ``{"detail": one line}``, never a traceback."""

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _one_line(exc.status_code, str(exc.detail), dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _one_line(422, _validation_line(exc))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        return _one_line(500, f"internal error ({type(exc).__name__}); the server's log has the details")


def create_app(service: ServiceContext, host: str = "127.0.0.1") -> Any:
    """The app over an opened :class:`.context.ServiceContext`, guarded (:class:`.limits.Guard`)
    and, with ``SERVE_TOKEN`` set, behind the token (:class:`.auth.TokenGate`: outermost, so
    a request without it costs no slot)."""
    mcp = build_mcp(service)
    mcp_http = mcp.streamable_http_app(
        streamable_http_path="/mcp", host=host, max_request_body_size=MAX_BODY_BYTES
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            yield

    app = FastAPI(
        title="legco-assets search",
        description="Search the stored LegCo papers' chunks (the chunk record is the schema); "
        "the search page is /, the MCP endpoint /mcp.",
        lifespan=lifespan,
        docs_url=None,  # Swagger UI loads from a CDN: /docs is rendered here (:mod:`.reference`)
        redoc_url=None,
    )
    app.state.service = service
    install_error_handlers(app)
    app.include_router(router)
    app.router.routes.extend(mcp_http.routes)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:  # built once, with this server's default strategy
            app.openapi_schema = with_server_defaults(FastAPI.openapi(app), service.default_strategy.value)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.get("/health", tags=["health"])
    def health() -> dict[str, str]:
        """Whether the server answers: the one route open without the token (``SERVE_TOKEN``)."""
        return {"status": "ok"}

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(reference_page(app.openapi()))

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(
        service: Context,
        q: str = "",
        strategy: str = "",
        language: str = "",
        date_from: str = "",
        date_to: str = "",
        kind: str = "",
        speaker: str = "",
    ) -> HTMLResponse:
        # the form's own values; any other (a hand-made URL) searches with the default
        chosen = strategy_named(strategy) or service.default_strategy
        narrowed = PageFilters(date_from, date_to, kind, speaker)
        if not q.strip():
            documents = len({row["document_id"] for row in service.index.documents()})
            shown = render(strategy=chosen, language=language, documents=documents, narrowed=narrowed)
            return HTMLResponse(shown)
        request = SearchRequest(
            q,
            10,
            chosen,
            Mode.hybrid,
            None,
            language or None,
            date_from,
            date_to,
            (kind,) if kind else (),
            speaker.strip() or None,
        )
        try:
            results = search(service.index, request)
        except BadRequest as exc:
            return HTMLResponse(render(q, chosen, language, error=str(exc), narrowed=narrowed), 400)
        return HTMLResponse(render(q, chosen, language, results, narrowed=narrowed))

    return TokenGate(Guard(app), service.settings.serve_token)


WORKER_HOST = "LEGCO_SERVE_WORKER_HOST"  # the host a worker process's app is for (set by ``serve``)


def worker_app() -> Any:
    """The app of one of ``serve --workers N``'s processes (uvicorn's factory): the settings
    from the environment, as the parent process had them, each worker with its own view of
    the same on-disk index (:mod:`.index`)."""
    import os

    from legco_assets.core.settings import Settings

    return create_app(ServiceContext.open(Settings.from_env()), os.environ.get(WORKER_HOST, "127.0.0.1"))
