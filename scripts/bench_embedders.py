r"""Ingest speed of each in-process embedder: chunks embedded per second, no cache.

Why: the embedder is chosen by retrieval figures *and* by ingest speed (at least
20 chunks/s on a 2-core machine), and chunk length drives the cost, so the texts are real
chunks: both strategies' chunks of real papers (an English guide and the Chinese Hansard by
default), taken in order, the first ``--chunks`` of them. Each model embeds the same texts
once for warm-up (a few) and then all of them, timed; its vector cache is off.

::

    .venv/bin/python scripts/bench_embedders.py [--chunks 120] \
        [--models use-multilingual,multilingual-e5-small] [PAPER ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from legco_assets.core.evaluation import REAL_CORPUS  # noqa: E402
from legco_assets.core.pipeline import chunk_file  # noqa: E402
from legco_assets.core.search.embeddings import MODELS  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402

PAPERS = ("hkgov/ld_EO_concise_guide_en.pdf", "legco/hansard_20121121_translate-c.pdf")


def texts_of(papers: list[Path], strategies: tuple[str, ...], limit: int) -> list[str]:
    """The first ``limit`` chunk texts, taken in turn from each (paper, strategy)."""
    per = [
        [r["text"] for r in chunk_file(p, Strategy.parse(s), Settings(), use_llm=False)]
        for p in papers
        for s in strategies
    ]
    out: list[str] = []
    for i in range(max(len(t) for t in per)):
        out += [t[i] for t in per if i < len(t)]
    return out[:limit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("papers", nargs="*", help=f"default: {', '.join(PAPERS)} of the real corpus")
    parser.add_argument("--chunks", type=int, default=120)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    papers = [Path(p) for p in args.papers] or [REAL_CORPUS / p for p in PAPERS]
    texts = texts_of(papers, ("question", "token"), args.chunks)
    chars = sum(len(t) for t in texts)
    print(
        f"{len(texts)} chunks, {chars:,} characters (mean {chars / len(texts):,.0f}) "
        f"from {', '.join(p.name for p in papers)}"
    )
    print("| model | seconds | chunks/s | characters/s |\n|---|---:|---:|---:|")
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        model = MODELS[name](None)  # no cache: every text goes to the model
        model(texts[:4])
        started = time.perf_counter()
        model(texts)
        seconds = time.perf_counter() - started
        print(f"| {name} | {seconds:.1f} | {len(texts) / seconds:.1f} | {chars / seconds:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
