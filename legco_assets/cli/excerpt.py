"""``legco-assets excerpt CHUNK_ID [-o FILE]``: one chunk's excerpt on its own, and
``legco-assets serve-excerpts``: the excerpts over HTTP, read-only, for the UI's links.

A strategy's excerpts of a paper are one file (the highlighted copy, ``#page=N`` per chunk);
the per-chunk PDF, with only that chunk's pages and highlight, is cut from it when asked.
Neither command imports Dagster.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def cmd_excerpt(args: argparse.Namespace, settings: Settings) -> int:
    """Write what the chunk's link opens: a PDF of its pages with only its highlight, or the
    paper's page with only its marks (HTML)."""
    from legco_assets.core.excerpts import cut_chunk_excerpt

    try:
        data, extension = cut_chunk_excerpt(settings, args.chunk_id)
    except (KeyError, ValueError):
        return common.fail(
            f"no stored chunk {args.chunk_id!r} "
            "(ids look like DOCUMENT:STRATEGY:INDEX; see `legco-assets chunks`)"
        )
    except FileNotFoundError:
        return common.fail(
            f"chunk {args.chunk_id} has no excerpts yet: run its chunk_excerpts (legco-assets ingest)"
        )
    out = Path(args.output or args.chunk_id.replace(":", "_").replace("/", "_") + f".{extension}")
    out.write_bytes(data)
    print(out)
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the excerpts of the data folder, and nothing else of it, read-only."""
    from legco_assets.core.excerpts import excerpt_server
    from legco_assets.core.settings import EXCERPTS_PORT

    root = settings.documents_dir
    server = excerpt_server(root, args.host, EXCERPTS_PORT if args.port is None else args.port)
    print(
        f"serving the excerpts under {root} on http://{args.host}:{server.server_address[1]}/ (read-only)",
        file=sys.stderr,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def add_command(sub: Any) -> None:
    excerpt = sub.add_parser(
        "excerpt",
        help="write what a chunk's link opens: its pages with its highlight (PDF) or its marked page",
    )
    excerpt.add_argument("chunk_id", metavar="CHUNK_ID")
    excerpt.add_argument(
        "-o", "--output", metavar="FILE", help="default: CHUNK_ID (':' as '_') .pdf/.html here"
    )
    excerpt.set_defaults(func=cmd_excerpt)
    serve = sub.add_parser(
        "serve-excerpts", help="serve the excerpts (only them) read-only over HTTP, for the UI's links"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, help="default 3001, the port of the default EXCERPTS_BASE_URL")
    serve.set_defaults(func=cmd_serve)
