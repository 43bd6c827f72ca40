"""The main job with its data in a local folder and in S3 (SeaweedFS on 127.0.0.1), in one run.

    .venv/bin/python scripts/bench_object_storage.py [--papers FILE_OR_DIR ...] [--rounds 2]

Each round runs ``legco-assets ingest --strategy both`` on the same papers twice, local data
dir first, then ``LEGCO_DATA_DIR=s3://…`` (alternating the order each round), each in a fresh
empty folder with a fresh cache (what a first ingest pays) and an embedded Chroma, so the
only difference is where the artifacts go. Prints wall seconds per run, the median ratio
S3/local (the target: at most 1.3x, so object storage costs little over a local disk), and
what each leaves: bytes and files of artifacts in the data dir or the bucket, and what stays
on the worker's disk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from legco_assets_tests.servers import start_s3_server  # noqa: E402

REAL = REPO.parent / "shared" / "corpus" / "real"
DEFAULT_REAL = ("hansard", "eo_concise_guide_en", "cb3-634")  # a Hansard, a guide, a submission


def default_papers() -> list[Path]:
    papers = sorted((REPO / "data" / "samples").glob("*.pdf"))
    if REAL.is_dir():
        papers += [
            p for p in sorted(REAL.rglob("*.pdf")) if any(tag in p.name.lower() for tag in DEFAULT_REAL)
        ]
    return papers


def folder_bytes(root: Path, skip: tuple[str, ...] = ()) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file() and not any(part in skip for part in p.parts)]
    return sum(p.stat().st_size for p in files), len(files)


def ingest(papers: list[Path], env: dict[str, str], cwd: Path, inbox: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", "ingest", "--strategy", "both", inbox],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: a paper failed by design (a scan without a vision LLM)
        raise SystemExit(f"ingest failed ({done.returncode}): {done.stderr[-2000:]}")
    print("   ", done.stdout.strip().splitlines()[-1], flush=True)
    return seconds


def base_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CHROMA_", "LEGCO_", "DAGSTER_"))}
    env.update(
        LEGCO_CACHE_DIR=str(work / "cache"),
        DAGSTER_HOME=str(work / "dagster_home"),
        CHROMA_PATH=str(work / "chroma"),
    )
    return env


def run_local(papers: list[Path], root: Path, n: int) -> float:
    work = root / f"local-{n}"
    inbox = work / "inbox"
    inbox.mkdir(parents=True)
    for p in papers:
        (inbox / p.name).write_bytes(p.read_bytes())
    env = {**base_env(work), "LEGCO_DATA_DIR": str(work / "data"), "LEGCO_INBOX": str(inbox)}
    seconds = ingest(papers, env, work, str(inbox))
    size, count = folder_bytes(work / "data")
    print(
        f"  local  {seconds:7.1f} s   artifacts {size / 1e6:7.1f} MB in {count} files (data dir)", flush=True
    )
    return seconds


def run_s3(papers: list[Path], root: Path, n: int, server: object) -> float:
    bucket = server.make_bucket(f"bench-{n}")  # type: ignore[attr-defined]
    client = server.client()  # type: ignore[attr-defined]
    for p in papers:
        client.pipe(f"bench-{n}/inbox/{p.name}", p.read_bytes())
    work = root / f"s3-{n}"
    work.mkdir()
    env = {**base_env(work), **server.env(), "LEGCO_DATA_DIR": f"{bucket}/data"}  # type: ignore[attr-defined]
    seconds = ingest(papers, env, work, f"{bucket}/inbox")
    keys = client.find(f"bench-{n}/data", detail=True)
    size = sum(int(info.get("size") or 0) for info in keys.values())
    local, local_files = folder_bytes(work)
    print(
        f"  s3     {seconds:7.1f} s   artifacts {size / 1e6:7.1f} MB in {len(keys)} objects (bucket); "
        f"worker's disk {local / 1e6:.1f} MB in {local_files} files (caches, Chroma, Dagster home)",
        flush=True,
    )
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    papers = [
        f for p in (args.papers or default_papers()) for f in (sorted(p.glob("*.pdf")) if p.is_dir() else [p])
    ]
    pages = sum(len(__import__("pypdfium2").PdfDocument(str(p))) for p in papers)
    print(f"{len(papers)} papers, {pages} pages: {', '.join(p.name for p in papers)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-s3-") as tmp:
        root = Path(tmp)
        server = start_s3_server(root / "seaweedfs")
        try:
            ratios = []
            for n in range(args.rounds):
                print(f"round {n + 1}", flush=True)
                if n % 2 == 0:
                    local = run_local(papers, root, n)
                    remote = run_s3(papers, root, n, server)
                else:
                    remote = run_s3(papers, root, n, server)
                    local = run_local(papers, root, n)
                ratios.append(remote / local)
                print(f"  ratio  {remote / local:.2f}x", flush=True)
        finally:
            server.stop()
    print(f"median S3/local over {len(ratios)} rounds: {statistics.median(ratios):.2f}x (target <= 1.3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
