"""``legco-assets eval``: the retrieval eval on the gold questions (Hit@1/5, MRR, nDCG@5,
context read), over the papers ingested into a temp dir. The gold set ships with the package;
the fixture papers it asks about are the tests', so ``--papers`` names their folder.

The evaluation is imported inside the command, so building the parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest the papers into a temp dir and print the gold-question eval table."""
    from legco_assets.core.evaluation import GOLD_QUESTIONS, run_eval
    from legco_assets.core.search import Mode

    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    modes = [Mode(m.strip()) for m in args.modes.split(",") if m.strip()]
    with tempfile.TemporaryDirectory(prefix="legco-eval-") as tmp:
        work = Path(args.work_dir) if args.work_dir else Path(tmp)
        report = run_eval(work, Path(args.gold or GOLD_QUESTIONS), Path(args.papers), strategies, modes)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(report.table())
    return 0


def add_command(sub: Any) -> None:
    ev = sub.add_parser(
        "eval", help="retrieval eval on the gold questions (Hit@1/5, MRR, nDCG@5, context read)"
    )
    ev.add_argument(
        "--gold", help="gold questions JSON (default: the fixture papers' set, shipped with the package)"
    )
    ev.add_argument(
        "--papers",
        required=True,
        help="folder of the papers and their .gold.json files "
        "(for the default set: the tests' fixtures/pdfs)",
    )
    ev.add_argument(
        "--strategies", default="question,token,baseline", help="comma list (baseline = 1000-char windows)"
    )
    ev.add_argument("--modes", default="hybrid,vector,bm25", help="comma list")
    ev.add_argument("--work-dir", help="keep the eval's data dir here (default: a temp dir)")
    ev.add_argument("--json", action="store_true")
    ev.set_defaults(func=cmd_eval)
