"""``legco-assets chunk FILE``: a file's chunks as JSON Lines, from the pure core in memory.

It never imports Dagster (it must start fast): the core is imported inside the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.read import PendingDocument
    from legco_assets.core.settings import Settings


def cmd_chunk(args: argparse.Namespace, settings: Settings) -> int:
    """Chunks on stdout; each failed check of the paper (the checks the assets run) as one
    line on stderr: ``check failed`` for a blocking one (Dagster keeps such chunks out of
    Chroma), ``warning`` for the others. ``--strict``: a failed blocking check exits 1."""
    from legco_assets.core.errors import DocumentError
    from legco_assets.core.read import read_source, start_extract

    strategy = args.strategy or settings.default_strategy
    try:
        with args.begun or start_extract(read_source(args.file)) as reading:
            from legco_assets.core.pipeline import chunk_paper

            paper = chunk_paper(args.file, strategy, settings, use_llm=not args.no_llm, reading=reading)
    except DocumentError as exc:
        common.fail(str(exc))
        return 1
    out = sys.stdout
    for record in paper.records:
        out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
    out.flush()
    failed = [c for c in paper.checks if not c.passed]
    for check in failed:
        common.report_check(args.file, check.blocking, check.line())
    return 1 if args.strict and any(c.blocking for c in failed) else 0


def begin_chunk(args: argparse.Namespace) -> PendingDocument | None:
    """The file's reading begun before the settings and the pipeline load (a long PDF's
    forked reader reads meanwhile); None when the file cannot be read, which
    :func:`cmd_chunk` then reports as it reads it itself."""
    from legco_assets.core.errors import DocumentError
    from legco_assets.core.read import read_source, start_extract

    try:
        return start_extract(read_source(args.file))
    except DocumentError:
        return None


def add_command(sub: Any) -> None:
    chunk = sub.add_parser("chunk", help="print a file's chunks as JSON Lines")
    chunk.add_argument("file")
    chunk.add_argument(
        "--strategy",
        type=common.strategy,
        help=f"{' | '.join(common.STRATEGY_CHOICES)} ({common.STRATEGY_DEFAULT})",
    )
    chunk.add_argument("--no-llm", action="store_true", help="never call an LLM, even if LLM_* is set")
    chunk.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a blocking check fails (as Dagster would keep the chunks out of Chroma)",
    )
    chunk.set_defaults(func=cmd_chunk, begin=begin_chunk, one_shot=True)
