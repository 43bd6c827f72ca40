"""``legco-assets excerpt CHUNK_ID [-o FILE]``: one chunk's excerpt on its own (``legco-assets
serve`` answers the same excerpt over HTTP at ``/excerpt/<chunk id>``).

A strategy's excerpts of a paper are one stored file (the highlighted copy); a chunk's own
excerpt, only its pages and only its highlight (or its page with only its marks), is cut
from it when asked: the bytes its link opens.
It does not import Dagster.
"""

from __future__ import annotations

import argparse
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
