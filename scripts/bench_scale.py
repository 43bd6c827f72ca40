"""The search service at archive size: a synthetic index of N chunks, what a server costs.

Why synthetic: one Council session is tens of thousands of chunks and the archive millions;
nobody here has that many real papers chunked. The chunks are made from the fixture papers'
real chunk texts recombined (as ``bench_query.py`` makes them), in papers of
``--per-document`` chunks, half question chunks, and written straight into the index's
segments (``core/search/segment_store.py``) with a fast stand-in embedder (a vector drawn from
each text's hash, of the real model's width): the build only. The server then runs as a user
runs it, with the real embedder for the queries.

Measured per size, in a fresh process each: start-up (the index opened, the embedder loaded),
memory (VmRSS) after the searches and at its peak while one new paper is added, p50/p95 of a
fixed query set (hybrid, question strategy), seconds from a new paper's segment being written
to its chunks being searchable, disk per chunk; and at the first size, searches per second with
8 concurrent HTTP clients against ``legco-assets serve --workers 1`` and ``--workers 2``.

Prints figures, asserts nothing::

    .venv/bin/python scripts/bench_scale.py --sizes 40000 200000
    .venv/bin/python scripts/bench_scale.py --sizes 1000000 --no-throughput
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from bench_query import source_chunks, synthetic_records  # noqa: E402

from legco_assets.core.settings import Settings  # noqa: E402

QUERIES = [
    "水浸黑點",
    "Old Age Allowance",
    "渠務署 智能感應器",
    "licence application",
    "河道 生態",
    "網約車規管框架",
    "政府會否增加資源",
    "How many inspections were made",
    "長者生活津貼的申請資格",
    "點樣申請牌照",
    "僱員 工資",
    "the Secretary's reply on housing supply",
]


def anon_mib(pid: int | str = "self") -> float:
    """RssAnon of a process in MiB: its own memory, without the index's mapped file pages
    (page cache the kernel may drop and read again, which VmRSS counts too)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split(":", 1)[1].split()[0]) / 1024
    return 0.0


def rss_mib(pid: int | str = "self") -> tuple[float, float]:
    """VmRSS and VmHWM (the peak) of a process, in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            name, value = line.split(":", 1)
            fields[name] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


class StandIn:
    """A vector per text from its hash, ``width`` wide: fast and deterministic (build only)."""

    def __init__(self, width: int):
        self.width = width

    def __call__(self, texts: list[str]) -> list[np.ndarray]:
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out.append(np.random.default_rng(seed).standard_normal(self.width).astype(np.float32))
        return out


def settings_for(folder: Path) -> Settings:
    return Settings(data_dir=folder / "data", inbox=folder / "data" / "inbox")


def build(folder: Path, total: int, per_document: int, width: int) -> float:
    """Write the synthetic index (unless there); returns the seconds it took (0: there)."""
    from legco_assets.core.search import SegmentStore

    settings = settings_for(folder)
    store = SegmentStore.of(settings)
    done = folder / "built.json"
    if done.exists() and json.loads(done.read_text())["total"] == total:
        return 0.0
    shutil.rmtree(folder, ignore_errors=True)
    started = time.perf_counter()
    sources = [r if isinstance(r, dict) else r.to_json() for r in source_chunks(settings)]
    embed = StandIn(width)
    half = total // 2
    papers = synthetic_records(sources, half, per_document, "question", "scale-question")
    papers += synthetic_records(sources, total - half, per_document, "token", "scale-token")
    for n, records in enumerate(papers, start=1):
        sides = "chunk" if records[0].metadata.strategy_type == "question" else "qa"
        store.write(records, [r.to_chroma() for r in records], embed([r.text for r in records]), sides, embed)
        if n % 200 == 0:
            print(f"  built {n}/{len(papers)} papers", file=sys.stderr)
    seconds = time.perf_counter() - started
    done.write_text(json.dumps({"total": total, "seconds": seconds}))
    return seconds


def measure(folder: Path, per_document: int, width: int, new_paper: Path | None = None) -> dict[str, Any]:
    """In this (fresh) process: open the index as a server does, search, and have another
    process add a paper (a synthetic one, or ``new_paper`` ingested by the command line)
    while a thread here looks for it as a server's requests do."""
    from legco_assets.core.search import SegmentStore
    from legco_assets.core.sources import slug
    from legco_assets.service import LiveIndex
    from legco_assets.service import index as live

    settings = settings_for(folder)
    SegmentStore.of(settings).remove("scale-new-0000")  # a measure before this one added it
    started = time.perf_counter()
    index = LiveIndex(settings, translate=False, rerank=False)
    retriever = index.current().retriever
    retriever.embed_query("warm up")  # the embedder loads lazily: part of start-up
    startup = time.perf_counter() - started
    rss_open, _ = rss_mib()
    for query in QUERIES:  # each query's first search reads its pages of the index from disk
        index.current().retriever.search(query, 10, "question")
    times = []
    for _ in range(3):
        for query in QUERIES:
            began = time.perf_counter()
            index.current().retriever.search(query, 10, "question")
            times.append((time.perf_counter() - began) * 1000)
    rss_searched, peak_before = rss_mib()
    anon_searched = anon_mib()
    document = slug(new_paper) if new_paper else "scale-new-0000"
    seen: list[float] = []

    def look() -> None:  # a request every 0.1 s, as a busy server has them
        while not seen:
            if np.any(index.current().retriever.scope("question").documents == document):
                seen.append(time.time())
            time.sleep(0.1)

    watcher = threading.Thread(target=look, daemon=True)
    watcher.start()
    if new_paper:
        env = {
            **os.environ,
            "LEGCO_DATA_DIR": str(folder / "data"),
            "DAGSTER_HOME": str(folder / "dagster_home"),
        }
        command = [sys.executable, "-m", "legco_assets.cli", "ingest", str(new_paper), "--strategy", "both"]
        subprocess.run(command, env=env, check=True, capture_output=True)
        written_at = time.time()
    else:
        command = [sys.executable, __file__, "--add-paper", str(folder), "--per-document", str(per_document)]
        writer = subprocess.run([*command, "--width", str(width)], check=True, capture_output=True, text=True)
        written_at = float(writer.stdout.strip().splitlines()[-1])
    live.CHECK_EVERY_S = 0.5
    watcher.join(timeout=120)
    searchable = max(0.0, seen[0] - written_at) if seen else float("nan")
    hits = index.current().retriever.search("scale-new", 5, "question", document=document)
    rss_after, peak_after = rss_mib()
    disk = sum(p.stat().st_size for p in settings.index_dir.rglob("*") if p.is_file())
    rows = sum(len(index.current().retriever.scope(s).ids) for s in ("question", "token"))
    return {
        "chunks": rows,
        "startup_s": round(startup, 2),
        "rss_open_mib": round(rss_open),
        "rss_after_searches_mib": round(rss_searched),
        "anon_after_searches_mib": round(anon_searched),
        "rss_after_add_mib": round(rss_after),
        "peak_during_add_mib": round(peak_after) if peak_after > peak_before else "≤ before",
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(sorted(times)[int(len(times) * 0.95) - 1], 1),
        "new_paper_searchable_s": round(searchable, 2),
        "new_paper_hits": len(hits),
        "disk_bytes_per_chunk": round(disk / max(rows, 1)),
    }


def add_paper(folder: Path, per_document: int, width: int) -> None:
    """Write one new paper's segment (another process, as an ingest is); print when it ended."""
    from legco_assets.core.search import SegmentStore

    settings = settings_for(folder)
    sources = [r if isinstance(r, dict) else r.to_json() for r in source_chunks(settings)]
    records = synthetic_records(sources, per_document, per_document, "question", "scale-new")[0]
    records = [
        type(r)(
            r.id.replace("bench-question-0000", "scale-new-0000"),
            "scale-new-0000",
            r.text,
            r.page_number,
            r.metadata,
        )
        for r in records
    ]
    embed = StandIn(width)
    SegmentStore.of(settings).write(
        records, [r.to_chroma() for r in records], embed([r.text for r in records]), "chunk", embed
    )
    print(time.time())


def server_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of a process and its children (a server's workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def throughput(folder: Path, workers: int, clients: int = 8, each: int = 25) -> tuple[float, float]:
    """Searches per second of ``clients`` threads against ``serve --workers``, and how many
    cores the server's processes kept busy meanwhile (the clients share the machine)."""
    from legco_assets_tests.servers import free_port  # a free port, as the tests find one

    port = free_port()
    env = {**os.environ, "LEGCO_DATA_DIR": str(folder / "data")}
    server = subprocess.Popen(
        [sys.executable, "-m", "legco_assets.cli", "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{base}/api/search?q=warm&k=1", timeout=60).read()
                break
            except OSError:
                time.sleep(0.5)
        for _ in range(workers * 4):  # every worker warm
            urllib.request.urlopen(f"{base}/api/search?q=warm&k=1", timeout=60).read()

        def client(number: int) -> None:
            for i in range(each):
                query = urllib.parse.quote(QUERIES[(number + i) % len(QUERIES)])
                urllib.request.urlopen(
                    f"{base}/api/search?q={query}&k=10&strategy=question", timeout=120
                ).read()

        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        began, cpu = time.perf_counter(), server_cpu_s(server.pid)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - began
        return clients * each / seconds, (server_cpu_s(server.pid) - cpu) / seconds
    finally:
        server.terminate()
        server.wait(timeout=60)


def rates_line(folder: Path) -> str:
    got = {w: throughput(folder, w) for w in (1, 2)}
    (one, busy_one), (two, busy_two) = got[1], got[2]
    return (
        f"  8 clients: {one:.1f} searches/s at 1 worker ({busy_one:.2f} cores busy), "
        f"{two:.1f} at 2 ({busy_two:.2f} cores; {two / one:.2f}x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[40000, 200000])
    parser.add_argument("--per-document", type=int, default=400)
    parser.add_argument("--folder", type=Path, default=REPO / "data" / "cache" / "bench-scale")
    parser.add_argument("--no-throughput", action="store_true")
    parser.add_argument(
        "--store",
        type=Path,
        help="measure this home (data/, dagster_home/) as it is instead of synthetic sizes",
    )
    parser.add_argument("--new-paper", type=Path, help="with --store: the paper ingested while it serves")
    parser.add_argument("--width", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--add-paper", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.add_paper:
        add_paper(args.add_paper, args.per_document, args.width)
        return 0
    if args.measure:
        print(json.dumps(measure(args.measure, args.per_document, args.width, args.new_paper)))
        return 0
    from legco_assets.core.search import embedding_function

    width = len(embedding_function(settings_for(args.folder))(["width"])[0])
    print(f"machine: {os.cpu_count()} cores; embedder width {width}; papers of {args.per_document} chunks")
    if args.store:
        command = [sys.executable, __file__, "--measure", str(args.store), "--width", str(width)]
        if args.new_paper:
            command += ["--new-paper", str(args.new_paper)]
        got = subprocess.run(command, check=True, capture_output=True, text=True)
        print(f"{args.store}: " + got.stdout.strip().splitlines()[-1])
        if not args.no_throughput:
            print(rates_line(args.store))
        return 0
    for n, size in enumerate(args.sizes):
        folder = args.folder / str(size)
        seconds = build(folder, size, args.per_document, width)
        print(f"{size} chunks: index {f'built in {seconds:.0f} s' if seconds else 'already built'}")
        got = subprocess.run(
            [
                sys.executable,
                __file__,
                "--measure",
                str(folder),
                "--per-document",
                str(args.per_document),
                "--width",
                str(width),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        print("  " + got.stdout.strip().splitlines()[-1])
        if n == 0 and not args.no_throughput:
            print(rates_line(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
