"""``legco-assets serve`` against ``legco-assets query``: the same questions, the same store,
the same run.

Ingests the real corpus with both strategies into a temporary home (or takes one given with
``--home``, a folder holding ``data/`` and ``dagster_home/``), starts the server on a free
port of 127.0.0.1, warms it up, then times 200 searches through the HTTP API (hybrid, k=5,
the two strategies in turn) and a handful of ``legco-assets query`` runs of the same
questions (each a new process, as a shell user or an assistant calling the CLI pays). Prints
p50/p95 of each, the ratio, and the server's resident memory. Prints figures, asserts nothing::

    .venv/bin/python scripts/bench_serve.py                      # ingest the corpus first (~200 s)
    .venv/bin/python scripts/bench_serve.py --home /tmp/corpus   # an already ingested home
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "real"
QUESTIONS = [
    "什麼是連續性合約的468規定？",
    "How is the 468 rule of a continuous contract applied?",
    "僱員補償保險是否強制？",
    "Is employees' compensation insurance compulsory?",
    "外籍家庭傭工的最低工資是多少？",
    "What happens if a foreign domestic helper's contract is terminated early?",
    "政府會否增加職位空缺？",
    "visitor arrivals from the Mainland",
    "僱主須給予僱員多少天有薪年假？",
    "How many days of paid annual leave must an employer give?",
    "網約車規管",
    "budget relief measures for small and medium enterprises",
    "法定假日的安排",
    "occupational diseases compensation amounts",
    "勞工及福利局局長的答覆",
    "President, will the Government inform this Council",
    "產假及侍產假",
    "sickness allowance calculation",
    "最低工資",
    "rest days under the Employment Ordinance",
]
SEARCHES = 200
WARM_UP = 20
CLI_RUNS = 6


def env_for(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_"))
    }
    env.update(
        LEGCO_DATA_DIR=str(home / "data"),
        DAGSTER_HOME=str(home / "dagster_home"),
        PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""),
    )
    return env


def cli(home: Path, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", *args],
        env=env_for(home),
        capture_output=True,
        text=True,
        cwd=REPO,
        **kwargs,
    )


def ingest(home: Path) -> None:
    (home / "dagster_home").mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    done = cli(home, "ingest", str(CORPUS), "--strategy", "both")
    print(
        f"ingest of {CORPUS} (both strategies): {time.perf_counter() - started:.0f} s, exit {done.returncode}"
    )
    print("  " + (done.stdout.strip().splitlines() or [""])[-1])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(home: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    started = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "legco_assets.cli", "serve", "--port", str(port)],
        env=env_for(home),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/documents", timeout=5):
                return server, time.perf_counter() - started
        except OSError:
            if server.poll() is not None:
                raise SystemExit("the server exited") from None
            time.sleep(0.2)


def search(port: int, question: str, strategy: str) -> tuple[float, int]:
    query = urllib.parse.urlencode({"q": question, "k": 5, "strategy": strategy})
    started = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/search?{query}", timeout=120) as reply:
        hits = len(json.loads(reply.read())["hits"])
    return time.perf_counter() - started, hits


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, help="an ingested home (data/, dagster_home/); default: ingest")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="legco-bench-serve-") as tmp:
        home = args.home or Path(tmp)
        if args.home is None:
            ingest(home)
        port = free_port()
        server, load_s = start_server(home, port)
        try:
            rss_loaded = resident_mib(server.pid)
            print(f"server up in {load_s:.1f} s (embedder, BM25, store loaded); RSS {rss_loaded:.0f} MiB")
            strategies = ("token", "question")
            for i in range(WARM_UP):
                search(port, QUESTIONS[i % len(QUESTIONS)], strategies[i % 2])
            timed = {s: [] for s in strategies}
            empty = 0
            for i in range(SEARCHES):
                strategy = strategies[i % 2]
                seconds, hits = search(port, QUESTIONS[(i // 2) % len(QUESTIONS)], strategy)
                timed[strategy].append(seconds)
                empty += hits == 0
            rss = resident_mib(server.pid)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        every = timed["token"] + timed["question"]
        cli_times = []
        for i in range(CLI_RUNS):
            started = time.perf_counter()
            done = cli(home, "query", QUESTIONS[i], "-k", "5", "--strategy", strategies[i % 2])
            cli_times.append(time.perf_counter() - started)
            if done.returncode:
                print("query failed:", done.stderr.strip().splitlines()[-1:])
    ms = lambda s: f"{s * 1000:.1f} ms"  # noqa: E731
    print(f"HTTP API, {SEARCHES} searches after {WARM_UP} warm-up (hybrid, k=5; {empty} without hits):")
    print(f"  all       p50 {ms(statistics.median(every))}  p95 {ms(percentile(every, 0.95))}")
    for strategy in strategies:
        values = timed[strategy]
        print(f"  {strategy:9} p50 {ms(statistics.median(values))}  p95 {ms(percentile(values, 0.95))}")
    print(f"legco-assets query, {CLI_RUNS} runs (a process each):")
    print(f"  p50 {ms(statistics.median(cli_times))}  max {ms(max(cli_times))}")
    print(f"CLI p50 / API p50: {statistics.median(cli_times) / statistics.median(every):.0f}x")
    print(f"server resident memory after the searches: {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
