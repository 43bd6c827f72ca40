"""``legco-assets``: chunk, ingest, query and inspect LegCo papers.

The program's parser and dispatch. Each command module adds its own sub-command
(``add_command``) and imports only :mod:`.common`; the heavy libraries (Dagster, the core, Chroma)
are imported inside the commands when they run, so building the parser imports nothing heavy.
The dispatch reads the settings from the environment, once, and passes them to the command.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack

from . import ask, browse, chunk, common, evaluate, excerpt, feed, forget, ingest, lineage, serve, tables

# in the order ``legco-assets --help`` lists them
COMMANDS = (chunk, ingest, forget, browse, ask, serve, excerpt, tables, evaluate, feed, lineage)


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``legco-assets: error: …``) and exit 2. Options are taken
    only as spelled: argparse would otherwise read a prefix as the one option it starts, so
    ``query --k 5`` ran as ``--kind 5`` and answered with an unknown kind."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> None:  # type: ignore[override]
        common.fail(message)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="legco-assets", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command in this process (the tests call it; the console script is :func:`run`)."""
    return _dispatch(build_parser().parse_args(argv))


def _dispatch(args: argparse.Namespace) -> int:
    """The command with the settings. A command may begin its work before they load
    (``args.begin``, kept as ``args.begun`` and closed after the command): ``chunk`` forks
    a long PDF's reader while pydantic loads, on a core that would wait otherwise."""
    try:
        with ExitStack() as stack:
            begin = getattr(args, "begin", None)
            args.begun = begin(args) if begin else None
            if args.begun is not None:
                stack.enter_context(args.begun)
            return _run(args)
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's code for it, not a traceback
        common.fail("interrupted")
        return 130


def _run(args: argparse.Namespace) -> int:
    from legco_assets.core.errors import ConfigError
    from legco_assets.core.settings import Settings

    try:
        return int(args.func(args, Settings.from_env()) or 0)
    except ConfigError as exc:  # a bad environment variable: its one line, not a traceback
        common.fail(str(exc))
        return 2


def run() -> None:
    """The ``legco-assets`` program. A one-shot command (``chunk``: it holds no files,
    connections or threads once it has printed) runs with the cyclic garbage collector
    rarely woken and leaves without tearing the interpreter down: collections over a long
    paper's objects and freeing them, with the tokenizer's 100k ranks, one by one cost
    0.03-0.06 s of a command that must start and end fast (docs/benchmarks.md).
    Every other command exits the ordinary way."""
    args = build_parser().parse_args()
    if not getattr(args, "one_shot", False):
        sys.exit(_dispatch(args))
    gc.set_threshold(100_000, 50, 100)
    try:
        code = _dispatch(args)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (``| head``): it has what it wanted, no traceback
        code = 1
    os._exit(code)
