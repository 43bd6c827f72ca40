"""What the excerpts cost in an ingest: ingest the papers with both strategies
through the CLI's path (``ingest_files``: the Dagster jobs, a fresh temp data dir and
instance), then read each step's time from the runs' event logs and print, per asset, the
seconds spent, and chunk_excerpts' share: its seconds against the rest of the ingest
(the slow-down it adds), and excerpts per second.

    .venv/bin/python scripts/bench_excerpts.py [FILE ...]   # default: three real papers
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "real"
DEFAULT = [
    CORPUS / "legco/hansard_20121121_translate-c.pdf",
    CORPUS / "hkgov/ld_ECO_guide_with_FAQ_en.pdf",
    CORPUS / "legco/hansard_20150429-c.html",
]


def step_seconds(instance) -> dict[str, float]:
    """Seconds per step key (asset) over every run: STEP_START to STEP_SUCCESS/FAILURE."""
    from dagster import DagsterEventType

    kinds = {DagsterEventType.STEP_START, DagsterEventType.STEP_SUCCESS, DagsterEventType.STEP_FAILURE}
    totals: dict[str, float] = defaultdict(float)
    for run in instance.get_runs():
        started: dict[str, float] = {}
        for entry in instance.all_logs(run.run_id, of_type=kinds):
            step = entry.step_key or ""
            if entry.dagster_event.event_type == DagsterEventType.STEP_START:
                started[step] = entry.timestamp
            elif step in started:
                totals[step] += entry.timestamp - started.pop(step)
    return dict(totals)


def main(args: list[str]) -> int:
    files = [Path(a).resolve() for a in args] or DEFAULT
    with tempfile.TemporaryDirectory(prefix="legco-bench-excerpts-") as tmp:
        os.environ["LEGCO_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["DAGSTER_HOME"] = str(Path(tmp) / "dagster_home")
        sys.path.insert(0, str(ROOT))
        from legco_assets.cli.ingest import ingest_files
        from legco_assets.core.settings import Settings, Strategy
        from legco_assets.defs.instance import dagster_instance

        settings = Settings.from_env()
        started = time.perf_counter()
        summary = ingest_files(files, list(Strategy), settings, out=io.StringIO())
        wall = time.perf_counter() - started
        steps = step_seconds(dagster_instance(settings))
        excerpts = sum(
            len(list((settings.documents_dir / d / "excerpts" / s.value).glob("[0-9]*.*")))
            for d in os.listdir(settings.documents_dir)
            if (settings.documents_dir / d).is_dir()
            for s in Strategy
        )
        size = sum(f.stat().st_size for f in settings.documents_dir.rglob("excerpts/*/*") if f.is_file())
    mine = steps.get("chunk_excerpts", 0.0)
    rest = sum(steps.values()) - mine
    for step, seconds in sorted(steps.items(), key=lambda kv: -kv[1]):
        print(f"{step:<20} {seconds:8.1f}s")
    print(
        f"\n{len(files)} papers, {summary['documents']} ingested ({len(summary['failed'])} failed), "
        f"both strategies, {wall:.0f}s wall"
    )
    print(
        f"chunk_excerpts: {mine:.1f}s for {excerpts} excerpts "
        f"({excerpts / mine if mine else 0:.1f}/s, {size / 1e6:.0f} MB); "
        f"the other steps {rest:.1f}s; ingest slower by {mine / rest if rest else 0:.1%} "
        f"({mine / (mine + rest) if rest else 0:.1%} of it)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
