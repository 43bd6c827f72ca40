"""``legco-assets feed``: poll LegCo's Hansard open data and download new papers into the
inbox (the inbox sensor or ``ingest`` takes them from there).

Exit status: 0 every new record fetched (or none new), 1 some failed (one line each on
stderr, the good files are in the inbox), 2 bad arguments or a feed that cannot be used.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date {value!r} (use YYYY-MM-DD)") from None


def _types(value: str) -> tuple[str, ...]:
    from legco_assets.core.sources import parse_types

    try:
        return parse_types(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _limit(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--limit must be a positive number, not {value!r}")
    return int(value)


def _report(item: Any, index: Any) -> None:
    """One line per paper; a download whose bytes a partition already holds names that
    partition (the same bytes are one paper)."""
    from legco_assets.core.sources import Failed

    if isinstance(item, Failed):
        print(item.line(), file=sys.stderr, flush=True)
        return
    r = item.record
    note = "" if item.written else " (already in the inbox)"
    held = index.holding(item.sha256)
    if held:  # the inbox sensor or ``ingest`` records it as another name of that paper
        note += f" (the same bytes as partition {held})"
    print(
        f"{item.path.name}  {r.meeting_date} {r.hansard_type} HansardID {r.hansard_id}  "
        f"{item.size / 1024:.0f} KB  ← {r.url}{note}",
        flush=True,
    )


def poll_once(args: argparse.Namespace, settings: Settings) -> int:
    from legco_assets.core.sources import DocumentIndex, FeedError, poll

    started = time.perf_counter()
    index = DocumentIndex(settings.documents_dir)
    try:
        result = poll(
            settings,
            since=args.since,
            until=args.until,
            types=args.types,
            limit=args.limit,
            report=lambda item: _report(item, index),
        )
    except FeedError as exc:
        common.fail(f"feed {exc}")
        return 2
    span = f"{result.since}…{result.until or ''}"
    print(
        f"feed {settings.feed_url}: {result.records} record(s) from {span}, {result.already} fetched before; "
        f"fetched {len(result.fetched)}, failed {len(result.failed)}"
        + (f", same bytes as another record {result.duplicates}" if result.duplicates else "")
        + f"; {time.perf_counter() - started:.1f}s",
        flush=True,
    )
    return 1 if result.failed else 0


def cmd_feed(args: argparse.Namespace, settings: Settings) -> int:
    from legco_assets.core.sources import parse_types

    if args.until and args.since and args.until < args.since:
        common.fail("--until is before --since")
        return 2
    try:
        args.types = args.types or parse_types(settings.feed_types)
    except ValueError as exc:
        common.fail(f"LEGCO_FEED_TYPES: {exc}")
        return 2
    if args.once:
        return poll_once(args, settings)
    try:
        while True:  # the same poll every LEGCO_FEED_INTERVAL_MINUTES, until interrupted
            poll_once(args, settings)
            args.since = None  # later polls start from what was fetched
            time.sleep(settings.feed_interval_minutes * 60)
    except KeyboardInterrupt:
        return 0


def add_command(sub: Any) -> None:
    feed = sub.add_parser("feed", help="download new Hansards from LegCo's open data into the inbox")
    feed.add_argument(
        "--once", action="store_true", help="poll once and exit (default: every LEGCO_FEED_INTERVAL_MINUTES)"
    )
    feed.add_argument(
        "--since", type=_date, help="meeting date YYYY-MM-DD to start from (default: after what was fetched)"
    )
    feed.add_argument("--until", type=_date, help="last meeting date YYYY-MM-DD")
    feed.add_argument(
        "--types", type=_types, help="Chinese,English,Floor (default: LEGCO_FEED_TYPES, Chinese,English)"
    )
    feed.add_argument("--limit", type=_limit, help="download at most N papers this poll (oldest first)")
    feed.set_defaults(func=cmd_feed)
