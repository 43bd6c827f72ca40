"""What a chunk's link costs to open: the time ``cut_chunk_excerpt`` takes to cut
one chunk's own excerpt from its strategy's stored file, uncached (every chunk of the paper
once, the first in a fresh process apart) and cached (the same chunk again).

The paper is taken through the pipeline's stages into a temp data folder (source, page text,
structure, tables, chunks, excerpts; no Dagster, no Chroma, no LLM), for both strategies.
Prints, per strategy, the first cut, the median, p95 and max of the uncached cuts, the
median of the cached ones, and the cuts' median size.

    .venv/bin/python scripts/bench_excerpt_cut.py [FILE]   # default: the 250-page 2012 Hansard
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from legco_assets.core import pipeline  # noqa: E402
from legco_assets.core.artifacts import Artifacts  # noqa: E402
from legco_assets.core.excerpts import cut_chunk_excerpt  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402
from legco_assets.core.sources import DocumentIndex  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "real" / "legco" / "hansard_20121121_translate-c.pdf"


def ingest(settings: Settings, paper: Path) -> str:
    """The paper's artifacts up to its excerpts, both strategies; its document id."""
    key = DocumentIndex(settings.documents_dir).register(paper)
    pipeline.stage_source(settings, key)
    pipeline.stage_page_text(settings, key)
    pipeline.stage_structure(settings, key)
    pipeline.stage_tables(settings, key)
    for strategy in Strategy:
        pipeline.stage_chunks(settings, key, strategy)
        pipeline.stage_excerpts(settings, key, strategy)
    return key


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def main(args: list[str]) -> int:
    paper = Path(args[0]) if args else DEFAULT
    with tempfile.TemporaryDirectory(prefix="legco-bench-cut-") as tmp:
        settings = Settings.from_env().with_(data_dir=Path(tmp) / "data")
        started = time.perf_counter()
        key = ingest(settings, paper)
        print(f"{paper.name}: ingested to its excerpts in {time.perf_counter() - started:.1f} s")
        for strategy in Strategy:
            ids = [r.id for r in Artifacts(settings, key).read_chunks(strategy)]
            cold, sizes = [], []
            for chunk_id in ids:
                began = time.perf_counter()
                data, extension = cut_chunk_excerpt(settings, chunk_id)
                cold.append(time.perf_counter() - began)
                sizes.append(len(data))
            warm = []
            for chunk_id in ids[-20:]:  # the cache holds the last ones cut
                began = time.perf_counter()
                cut_chunk_excerpt(settings, chunk_id)
                warm.append(time.perf_counter() - began)
            rest = sorted(cold[1:]) or cold
            print(
                f"{strategy.value:<9} {len(ids)} chunks ({extension}): first {ms(cold[0])}, "
                f"uncached median {ms(statistics.median(rest))} p95 {ms(rest[int(0.95 * (len(rest) - 1))])} "
                f"max {ms(rest[-1])}; cached median {ms(statistics.median(warm))}; "
                f"median cut {statistics.median(sizes) / 1e6:.2f} MB"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
