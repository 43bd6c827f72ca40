"""Ingest every real paper of the shared corpus through Dagster with both strategies, as
``legco-assets ingest --strategy both`` does, and print per paper: pages, chunks per
strategy, seconds, and the failure reason if any (the scanned paper's, without a vision LLM).

Times are printed, never asserted (tests do not time anything). Everything goes to a fresh
temporary data dir and Dagster instance, so a run never touches ``data/``.

    .venv/bin/python scripts/ingest_corpus.py [CORPUS_DIR]
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"


def papers(root: Path) -> list[Path]:
    """What ``ingest`` takes from the folder (the inbox rules), the corpus's manifest aside."""
    from legco_assets.core.settings import Settings
    from legco_assets.core.sources import folder_files, skip_reason

    settings = Settings()
    found = [f for f, relative in folder_files(root) if skip_reason(f, settings, relative) is None]
    return sorted(f for f in found if f.name != "MANIFEST.md")


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else CORPUS
    with tempfile.TemporaryDirectory(prefix="legco-corpus-") as tmp:
        os.environ["LEGCO_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["DAGSTER_HOME"] = str(Path(tmp) / "dagster_home")
        from legco_assets.cli.ingest import ingest_files
        from legco_assets.core.settings import Settings, Strategy

        settings = Settings.from_env()
        print(f"{'paper':<44} {'pages':>5} {'token':>6} {'question':>8} {'seconds':>8}  failure")
        total = 0.0
        for paper in papers(root):
            started = time.perf_counter()
            summary = ingest_files([paper], list(Strategy), settings, out=io.StringIO())
            seconds = time.perf_counter() - started
            total += seconds
            failure = summary["failed"][0]["error"] if summary["failed"] else ""
            chunks = summary["chunks"]
            print(
                f"{paper.name:<44} {summary['pages'] or '-':>5} {chunks['token'] or '-':>6} "
                f"{chunks['question'] or '-':>8} {seconds:>8.1f}  {failure}",
                flush=True,
            )
        print(f"total {total:.1f}s for {len(papers(root))} papers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
