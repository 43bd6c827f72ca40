r"""What reading one paper's chunks back from Chroma costs as the store grows.

Why: ``vector_index`` reads a paper's stored chunks back several times (the previous version
before it replaces them, the search index's segment, the counterpart link). Asked with the
filter ``document_id AND strategy_type AND is_latest_version``, Chroma intersects each
clause's rows, and the last two hold for most of a store; asked by the paper alone
(:func:`legco_assets.core.search.vector_store.latest_rows`, which narrows the rest itself),
only the paper's rows are read. This builds an embedded collection of N synthetic chunks
(papers of 400, half of each strategy, vectors drawn at random, the real model's width) and
times both reads of one paper's chunks of one strategy, with their texts, metadata and
vectors, as the ingest asks. Prints a Markdown table; asserts nothing::

    .venv/bin/python scripts/bench_chroma_reads.py --sizes 8000 60000 200000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from legco_assets.core.search.vector_store import latest_rows, with_retries  # noqa: E402

PER_PAPER = 400
WIDTH = 512  # the default embedder's


def fill(collection, start: int, stop: int, rng: np.random.Generator) -> None:
    """Chunks ``start``..``stop`` of the synthetic store, in Chroma's batches."""
    for low in range(start, stop, 4000):
        rows = range(low, min(low + 4000, stop))
        strategy = ["token" if i % 2 else "question" for i in rows]
        collection.add(
            ids=[f"paper-{i // PER_PAPER}:{s}:{i}" for i, s in zip(rows, strategy)],
            embeddings=rng.standard_normal((len(rows), WIDTH)).astype(np.float32),
            documents=[f"第{i}段 minimum wage 最低工資 " * 8 for i in rows],
            metadatas=[
                {"document_id": f"paper-{i // PER_PAPER}", "strategy_type": s, "is_latest_version": True}
                for i, s in zip(rows, strategy)
            ],
        )


def timed(read, repeat: int) -> float:
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        read()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8000, 60000, 200000])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    client = chromadb.PersistentClient(
        path=tempfile.mkdtemp(prefix="chroma-reads-"), settings=ChromaSettings(anonymized_telemetry=False)
    )
    collection = client.get_or_create_collection("bench_reads", metadata={"hnsw:space": "cosine"})
    rng = np.random.default_rng(0)
    include = ["metadatas", "documents", "embeddings"]
    print("| chunks stored | filter on paper, strategy, latest | the paper alone, narrowed here | rows |")
    print("|---:|---:|---:|---:|")
    paper = "paper-3"
    where = {"$and": [{"document_id": paper}, {"strategy_type": "token"}, {"is_latest_version": True}]}
    stored = 0
    for size in sorted(args.sizes):
        fill(collection, stored, size, rng)
        stored = size
        both = timed(lambda: with_retries(lambda: collection.get(where=where, include=include)), args.repeat)
        alone = timed(
            lambda: latest_rows(collection, {"document_id": paper}, ["documents", "embeddings"], "token"),
            args.repeat,
        )
        rows = len(latest_rows(collection, {"document_id": paper}, [], "token")["ids"])
        print(f"| {size:,} | {both:.1f} ms | {alone:.1f} ms | {rows} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
