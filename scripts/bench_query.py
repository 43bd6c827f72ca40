"""Query latency over 10,000 stored chunks: BM25, vector and hybrid (query embedding included).

Why synthetic chunks: the fixture papers hold about 140 chunks; a store a hundred times
larger is built from their sentences, recombined per chunk with a fixed seed (every text is
unique, so the HNSW index and BM25 see 10,000 distinct documents). Half are question chunks
carrying their source pair's ``question_text`` (the queried scope), half token chunks, so
the strategy filter has something to filter. The store is kept under ``--data-dir``
(default ``data/cache/bench``): embeddings are cached, so only the first run pays for
embedding 10,000 texts.

Prints figures, asserts nothing::

    .venv/bin/python scripts/bench_query.py            # build once, then time 3 modes
    .venv/bin/python scripts/bench_query.py --queries 100 --chunks 10000
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURE_PAPERS = REPO / "legco_assets_tests" / "fixtures" / "pdfs"  # the gold set's papers

from legco_assets.core.evaluation import (  # noqa: E402
    GOLD_QUESTIONS,
    QUERY_TRANSLATIONS,
    load_gold_questions,
    load_translations,
)
from legco_assets.core.pipeline import chunk_file  # noqa: E402
from legco_assets.core.records import Chunk  # noqa: E402
from legco_assets.core.search import Mode, Retriever, open_collection, replace_document  # noqa: E402  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402

PAPERS = ("paper_e_qa.pdf", "paper_l_faq.pdf", "paper_b_speaking_notes.pdf")
STRATEGY = "question"
SENTENCE = re.compile(r"[^。！？.!?\n]+[。！？.!?]?")


def source_chunks(settings: Settings) -> list[dict]:
    """The fixture papers' question chunks: the material the synthetic store is made of."""
    records = []
    for name in PAPERS:
        records += chunk_file(FIXTURE_PAPERS / name, Strategy.question, settings, use_llm=False)
    return records


def synthetic_records(
    sources: list[dict], total: int, per_document: int, strategy: str, seed: str
) -> list[list[dict]]:
    """``total`` unique chunk records grouped by document: each keeps a source chunk's first
    line (and, for the question strategy, its question) followed by 4–10 sentences drawn
    from chunks of the same language."""
    rng = random.Random(seed)
    pools: dict[bool, list[str]] = {True: [], False: []}
    for r in sources:
        pools[_is_chinese(r["text"])] += [
            s.strip() for s in SENTENCE.findall(r["text"]) if len(s.strip()) > 8
        ]
    documents = []
    for d in range(0, total, per_document):
        doc_id = f"bench-{strategy}-{d // per_document:04d}"
        chunks = []
        for i in range(min(per_document, total - d)):
            src = sources[(d + i) % len(sources)]
            first = src["text"].strip().split("\n", 1)[0]
            body = rng.sample(pools[_is_chinese(src["text"])], rng.randint(4, 10))
            meta = src["metadata"] if strategy == STRATEGY else {"section_type": "window"}
            chunk = Chunk(
                doc_id,
                strategy,
                i,
                "\n".join([first, *body]),
                1 + i // 3,
                1 + i // 3,
                meta["section_type"],
                300,
                question_id=meta.get("question_id"),
                question_text=meta.get("question_text"),
            )
            chunks.append(chunk.to_record(f"{doc_id}.pdf", f"{d:064d}"))
        documents.append(chunks)
    return documents


def _is_chinese(text: str) -> bool:
    return len(re.findall(r"[\u4e00-\u9fff]", text)) * 4 >= len(re.findall(r"[A-Za-z]", text))


def build_store(settings: Settings, total: int, per_document: int, question_share: float) -> None:
    """Write the synthetic store (question and token chunks) unless it is already there."""
    collection = open_collection(settings)
    if collection.count() == total:
        print(f"store: {total} chunks already in {settings.chroma_dir}")
        return
    started = time.perf_counter()
    sources = source_chunks(settings)
    questions = round(total * question_share)
    documents = synthetic_records(sources, questions, per_document, STRATEGY, "bench-question")
    documents += synthetic_records(sources, total - questions, per_document, "token", "bench-token")
    written = 0
    for records in documents:
        first = records[0]
        replace_document(
            collection,
            records,
            first.document_id,
            first.metadata.strategy_type,
            first.metadata.content_sha256,
        )
        written += len(records)
        if written % 2000 == 0:
            print(f"  {written} chunks written ({time.perf_counter() - started:.0f}s)", flush=True)
    print(f"store: {collection.count()} chunks built in {time.perf_counter() - started:.1f}s")


def time_mode(
    retriever: Retriever, queries: list[str], mode: Mode, k: int, document: str | None = None
) -> list[float]:
    """Milliseconds per search, one warm-up query first; each mode gets its own query texts
    so no query embedding comes from the cache."""
    retriever.search("warm-up " + mode.value, k=k, strategy=STRATEGY, mode=mode, document=document)
    times = []
    for q in queries:
        q = f"{q} {mode.value}{'-doc' if document else ''}"
        started = time.perf_counter()
        retriever.search(q, k=k, strategy=STRATEGY, mode=mode, document=document)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _row(label: str, times: list[float]) -> str:
    p90 = statistics.quantiles(times, n=10)[-1]
    return f"{label:<22} {statistics.median(times):>10.1f} {p90:>8.1f} {max(times):>8.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--data-dir", default=str(REPO / "data" / "cache" / "bench"), help="where the bench store lives"
    )
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--per-document", type=int, default=100)
    parser.add_argument(
        "--question-share", type=float, default=0.5, help="share of question chunks (the rest: token)"
    )
    parser.add_argument("--queries", type=int, default=68, help="how many gold questions to time (cycled)")
    parser.add_argument("-k", type=int, default=5)
    args = parser.parse_args()

    settings = Settings(data_dir=Path(args.data_dir), inbox=Path(args.data_dir) / "inbox")
    build_store(settings, args.chunks, args.per_document, args.question_share)
    gold = [q.question for q in load_gold_questions(GOLD_QUESTIONS)]
    nonce = os.urandom(3).hex()  # every timed query is new to the embedding cache: embedding is timed too
    queries = [f"{gold[i % len(gold)]} ({nonce}-{i})" for i in range(args.queries)]

    for cache in ("cold: BM25 built", "warm: BM25 from cache"):
        if cache.startswith("cold"):
            for old in (settings.cache_dir / "bm25").glob(f"{STRATEGY}-latest-*"):
                shutil.rmtree(old)
        retriever = Retriever.open(settings)
        scope = retriever.scope(STRATEGY)
        print(f"open scope ({cache}): {scope.seconds * 1000:.0f} ms for {len(scope.records)} chunks")

    total = retriever.collection.count()
    print(
        f"machine: {os.cpu_count()} CPU cores; {total} stored chunks, "
        f"{len(scope.records)} in the {STRATEGY} scope; "
        f"{len(queries)} queries, k={args.k}"
    )
    print(f"{'mode':<22} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
    for mode in (Mode.bm25, Mode.vector, Mode.hybrid):
        print(_row(mode.value, time_mode(retriever, queries, mode, args.k)))
    one = scope.records[0].document_id
    print(_row("hybrid, one document", time_mode(retriever, queries, Mode.hybrid, args.k, one)))
    retriever.translator = recorded_translator(load_translations(QUERY_TRANSLATIONS))
    print(_row("hybrid + translation", time_mode(retriever, queries, Mode.hybrid, args.k)))
    print(
        "(hybrid + translation: the recorded translations stand in for the model, so the model's own latency,"
    )
    print(
        " one call per new query, is not included; what is timed is the second query's embedding and rankers)"
    )
    return 0


def recorded_translator(translations: dict[str, str]):
    """The recorded translation of a timed query's gold question, with the query's own suffix
    kept so that its embedding is not in the cache either."""

    def translate(query: str) -> str | None:
        gold, _, rest = query.partition(" (")
        found = translations.get(gold)
        return f"{found} ({rest}" if found else None

    return translate


if __name__ == "__main__":
    sys.exit(main())
