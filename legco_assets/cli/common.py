"""What every ``legco-assets`` command shares: the Chroma collection, the one-line error,
warning and failed-check messages, and the strategy and search-mode arguments. The settings
are read once, by the program's entry (:mod:`.main`), and passed to each command.

Commands import this module and nothing above it. Of the core it imports only the two
closed sets its options list, the strategies and the search modes (:mod:`..core.modes`,
which imports nothing), and the rest inside its functions, so building the parser imports
nothing heavy, not even the settings' pydantic (``chunk`` starts reading a long PDF before
they load). An
option's value reaches its command as the set's member (:class:`AsStrategy`, :class:`AsMode`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any

from legco_assets.core.modes import DEFAULT_STRATEGY, Mode, Strategy

if TYPE_CHECKING:  # annotations only
    from legco_assets.core.settings import Settings

# what the options accept and their help lists, as typed
STRATEGY_CHOICES = tuple(s.value for s in Strategy)
# the setting that a command without --strategy follows, and its value when unset
STRATEGY_DEFAULT = f"default: DEFAULT_CHUNKING_STRATEGY, {DEFAULT_STRATEGY.value} when unset"
MODES = tuple(m.value for m in Mode)


class _Member(argparse.Action):
    """Stores an option's value as the member of :attr:`enum` it names. argparse has checked
    the text against ``choices`` first, so the help and the error list the values as typed."""

    enum: type[Enum]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, self.enum(values))


class AsStrategy(_Member):
    """``--strategy {token,question}``: the command gets a :class:`Strategy` (None when unset)."""

    enum = Strategy


class AsMode(_Member):
    """``--mode {hybrid,vector,bm25}``: the command gets a :class:`Mode` (None when unset)."""

    enum = Mode


def collection(settings: Settings) -> Any:
    from legco_assets.core.search import open_collection

    return open_collection(settings)


def strategy(value: str) -> Strategy:
    """``--strategy`` typed any case (``chunk``), or the one-line error listing the valid ones."""
    try:
        return Strategy.parse(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fail(message: str) -> int:
    print(f"legco-assets: error: {message}", file=sys.stderr)
    return 1


def warn(message: str) -> None:
    print(f"legco-assets: warning: {message}", file=sys.stderr)


def report_check(path: Any, blocking: bool, line: str) -> None:
    """A failed check of a paper (the line ``Check.line()`` gives): ``check failed`` for a
    blocking one (Dagster keeps such chunks out of Chroma), a warning for the others."""
    if blocking:
        print(f"legco-assets: check failed: {path}: {line}", file=sys.stderr)
    else:
        warn(f"{path}: {line}")


def empty_scope_message(retriever: Any, strategy: Strategy, all_versions: bool) -> str | None:
    """A one-line hint when nothing is stored for the strategy, else None."""
    if retriever.scope(strategy, all_versions).records:
        return None
    from legco_assets.core.search import stored_versions

    stored = sorted({r["strategy"] for r in stored_versions(retriever.collection)})
    have = ", ".join(stored) if stored else "nothing"
    return (
        f"no stored chunks for strategy {strategy.value} (stored: {have}); "
        f"ingest with --strategy {strategy.value} or pick another"
    )


def excerpt_link(metadata: dict[str, Any], settings: Settings) -> str | None:
    """Where a chunk's own excerpt opens (only its pages, only its highlight), over HTTP:
    ``EXCERPTS_BASE_URL`` + ``excerpt/<chunk id>`` (``legco-assets serve`` answers it;
    ``legco-assets excerpt ID`` writes the same bytes). ``query``, ``answer`` and
    ``browse`` print it. A chunk stored before links opened a chunk's own excerpt holds a
    file path: its link is made from its id; an archived version's chunk has none (its
    excerpts are the latest's)."""
    from legco_assets.core.excerpts import EXCERPT_PREFIX, chunk_link, excerpt_url

    link = metadata.get("chunk_file_path")
    if not link:
        return None
    if not str(link).startswith(EXCERPT_PREFIX):
        parts = [metadata.get(key) for key in ("document_id", "strategy_type", "chunk_index")]
        if any(part is None for part in parts):
            return None
        link = chunk_link(":".join(map(str, parts)))
    return excerpt_url(settings.excerpts_base_url, str(link))
