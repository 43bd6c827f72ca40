"""``legco-assets serve``: the search page, the JSON API, the chunks' excerpts and the MCP
endpoint in one long-lived process; ``legco-assets mcp``: the same MCP tools over stdio, for
a desktop assistant that starts the server itself. Neither imports Dagster."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any

from .common import fail

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Load the index once, then answer on host:port until stopped."""
    import uvicorn

    from legco_assets.core.settings import SERVE_PORT
    from legco_assets.service import WORKER_HOST, ServiceContext, create_app, needs_token

    refused = needs_token(args.host, settings.serve_token)
    if refused:  # before loading anything: a server others reach is never open by mistake
        fail(refused)
        return 2
    port = SERVE_PORT if args.port is None else args.port
    if not os.environ.get("EXCERPTS_BASE_URL"):  # the hits' excerpt links point at this server
        settings = settings.with_(excerpts_base_url=f"http://{args.host}:{port}/")
    if args.workers > 1:  # each worker opens the index itself, this process only watches them
        os.environ.update({WORKER_HOST: args.host, "EXCERPTS_BASE_URL": settings.excerpts_base_url})
        print(f"serving http://{args.host}:{port}/ with {args.workers} worker processes", file=sys.stderr)
        uvicorn.run(
            "legco_assets.service.app:worker_app",
            factory=True,
            workers=args.workers,
            host=args.host,
            port=port,
            log_level="warning",
            access_log=False,
        )
        return 0
    print("loading the embedder and the search index…", file=sys.stderr)
    app = create_app(ServiceContext.open(settings), args.host)
    print(
        f"serving http://{args.host}:{port}/ (page), /api (docs: /docs), /excerpt/<chunk id>, /mcp",
        file=sys.stderr,
    )
    if settings.serve_token:
        print(
            "every request but /health needs SERVE_TOKEN: Authorization: Bearer <token>; "
            "the page: open it once with ?token=<token>",
            file=sys.stderr,
        )
    uvicorn.run(app, host=args.host, port=port, log_level="warning", access_log=False)
    return 0


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """The MCP tools over stdio: stdout carries JSON-RPC only, so loading prints to stderr."""
    from legco_assets.service import ServiceContext, build_mcp

    with contextlib.redirect_stdout(sys.stderr):
        service = ServiceContext.open(settings)
    build_mcp(service).run("stdio")
    return 0


def add_command(sub: Any) -> None:
    serve = sub.add_parser(
        "serve", help="the search page, JSON API, excerpts and MCP endpoint on one port (read-only)"
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="default 127.0.0.1 (this machine only); any other needs SERVE_TOKEN",
    )
    serve.add_argument("--port", type=int, help="default 8000, the port of the default EXCERPTS_BASE_URL")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes answering on the port, each reading the same on-disk index (default 1)",
    )
    serve.set_defaults(func=cmd_serve)
    mcp = sub.add_parser("mcp", help="the MCP tools (search, get_chunk, list_documents) over stdio")
    mcp.set_defaults(func=cmd_mcp)
