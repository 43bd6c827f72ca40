r"""Throughput and peak memory of each stage, next to raw pypdfium2 text extraction.

Why: analysts feed papers of a few pages to many hundreds; the pipeline must stay within a
small factor of reading the PDF's text layer, grow linearly with pages, and fit in memory.
For generated LegCo-style papers of 10, 100 and 500 pages (scripts/make_long_paper.py)
every stage runs in a fresh subprocess (so the peak RSS is that stage's process alone):

* raw pypdfium2: open the bytes, ``get_text_range`` on every page (the floor);
* text extraction: ``read_source`` + ``extract_document`` + ``clean_pages`` (+ ``require_text``);
* structure (rules, no LLM), tables (geometric, no LLM), chunking per strategy;
* embedding: the configured local model on the token chunks (empty vector cache), and
  vector_index: embedding + Chroma upsert (``replace_document``, embedded Chroma);
* the whole no-LLM pipeline per strategy (``chunk_file``, what ``legco-assets chunk`` runs);
* start-up included (what a user waits for): ``legco-assets chunk --strategy question --no-llm`` as a
  process of its own against raw pypdfium2 in a process of its own (import, open, text of
  every page): what a user waits for, interpreter and imports in both;
* the inbox sensor handling 200 new files in one tick (and the next, unchanged, tick).

Prints a Markdown table and the bars; nothing is asserted. ``--profile STAGE`` prints the
top functions of one stage (cProfile) instead. Usage:

    .venv/bin/python scripts/benchmark.py [--pages 10 100 500] [--repeat 1] [--table-light]
    .venv/bin/python scripts/benchmark.py --pages 480 --table-light \
        --stages raw_process cli_question --repeat 5
    .venv/bin/python scripts/benchmark.py --paper data/samples/sample_zh_qa.pdf \
        --stages raw_process cli_question --repeat 10 --sensor-files 0
    .venv/bin/python scripts/benchmark.py --profile structure --pages 500

``--pairs N`` times whole processes instead, in N alternating rounds (so a busy machine slows
every side alike): raw pypdfium2 text, then ``legco-assets chunk FILE --strategy question
--no-llm`` (and, with
``--against DIR``, the same command run from another checkout, e.g. a ``git worktree`` of an
older commit), and prints each round and the medians; the ratio is the median of the
rounds' own ratios:

    .venv/bin/python scripts/benchmark.py --pages 480 --table-light --pairs 5
    .venv/bin/python scripts/benchmark.py --pages 480 --table-light --pairs 5 --producer both

``--producer platypus`` times papers of another producer instead (reportlab platypus:
Chinese paragraphs with CJK word-wrap, a gridded table every few pages; ``make_long_paper
--platypus``, font ``STSong-Light``, ``--cjk-font PATH`` or ``--box-font``: a generated TTF
embedded as a word processor embeds its font, for machines with no CJK font), whose short
text runs make per-object and per-rectangle work show; ``--producer both`` (with
``--pairs``) runs the pairs on both papers, one table each, so the two ratios are read side
by side.
    .venv/bin/python scripts/benchmark.py --pairs 5 --against ../older-checkout \
        --paper ../shared/corpus/real/legco/hansard_20121121_translate-c.pdf
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

STAGES = [
    "raw_pypdfium2",
    "text_extraction",
    "structure",
    "tables",
    "chunk_token",
    "chunk_question",
    "embedding",
    "vector_index",
    "pipeline_token",
    "pipeline_question",
    "raw_process",
    "cli_question",
]
LABELS = {
    "raw_pypdfium2": "raw pypdfium2 text (floor)",
    "text_extraction": "text extraction + cleaning",
    "structure": "structure (rules)",
    "tables": "tables (geometric)",
    "chunk_token": "chunking: token",
    "chunk_question": "chunking: question",
    "embedding": "embedding (local model)",
    "vector_index": "vector_index (embed + upsert)",
    "pipeline_token": "whole no-LLM pipeline: token",
    "pipeline_question": "whole no-LLM pipeline: question",
    "raw_process": "raw pypdfium2 text, own process (start-up included)",
    "cli_question": "legco-assets chunk --strategy question --no-llm, own process",
}
# raw pypdfium2 as a program of its own: the floor for a command, start-up included
RAW_PROGRAM = """
import sys
import pypdfium2 as pdfium
pdf = pdfium.PdfDocument(sys.argv[1])
chars = 0
for i in range(len(pdf)):
    page = pdf[i]
    textpage = page.get_textpage()
    chars += len(textpage.get_text_range())
    textpage.close()
    page.close()
print(chars)
"""


def chunk_command(paper: Path) -> list[str]:
    """``legco-assets chunk PAPER --strategy question --no-llm``, a process of its own: what a
    user waits for (start-up included)."""
    return [
        sys.executable,
        "-m",
        "legco_assets.cli",
        "chunk",
        str(paper.resolve()),
        "--strategy",
        "question",
        "--no-llm",
    ]


def _process(args: list[str], data_dir: Path) -> Callable[[], dict[str, Any]]:
    """A timed call that runs ``args`` as a fresh process, output discarded. Bytecode is
    written and read as in a normal install (a ``PYTHONDONTWRITEBYTECODE`` set by the shell
    would make every run compile this package again, ~0.1 s no user pays)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LEGCO_DATA_DIR"] = str(data_dir)
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, check=True)  # warm: pyc files, caches

    def run() -> dict[str, Any]:
        done = subprocess.run(args, env=env, stdout=subprocess.PIPE, text=True, check=True)
        return {"output lines": done.stdout.count("\n")}

    return run


# -- one stage in this process (the child) ------------------------------------------------------
def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _prepare(stage: str, paper: Path, work: Path) -> Callable[[], dict[str, Any]]:
    """Everything the stage needs (not timed), and the timed call itself."""
    from legco_assets.core.pipeline import build_chunks, chunk_file
    from legco_assets.core.read import read_source, require_text, text_pages
    from legco_assets.core.settings import Settings, Strategy
    from legco_assets.core.structure import find_structure
    from legco_assets.core.tables import find_page_tables

    settings = Settings(data_dir=work / "data")
    if stage == "raw_process":
        return _process([sys.executable, "-c", RAW_PROGRAM, str(paper)], work / "data")
    if stage == "cli_question":
        return _process(chunk_command(paper), work / "data")
    if stage == "raw_pypdfium2":
        import pypdfium2 as pdfium

        data = paper.read_bytes()

        def raw() -> dict[str, Any]:
            pdf = pdfium.PdfDocument(data)
            chars = 0
            for i in range(len(pdf)):
                page = pdf[i]
                textpage = page.get_textpage()
                chars += len(textpage.get_text_range())
                textpage.close()
                page.close()
            pdf.close()
            return {"characters": chars}

        return raw
    if stage == "text_extraction":

        def extraction() -> dict[str, Any]:
            source = read_source(paper)
            _, pages = text_pages(source)
            require_text(paper, pages)
            return {"characters": sum(len(p.cleaned) for p in pages)}

        return extraction
    if stage.startswith("pipeline_"):
        strategy = Strategy(stage.removeprefix("pipeline_"))
        return lambda: {"chunks": len(chunk_file(paper, strategy, settings, use_llm=False))}

    source = read_source(paper)
    _, pages = text_pages(source)
    if stage == "structure":
        return lambda: {"sections": len(find_structure(pages, settings, None).sections)}
    if stage == "tables":
        return lambda: {"tables": len(find_page_tables(source, pages, settings, None).tables)}
    tables = find_page_tables(source, pages, settings, None).tables
    if stage == "chunk_token":
        return lambda: {"chunks": len(build_chunks("bench", Strategy.token, pages, settings, None, tables))}
    if stage == "chunk_question":
        sections = find_structure(pages, settings, None).sections
        return lambda: {
            "chunks": len(build_chunks("bench", Strategy.question, pages, settings, sections, tables))
        }
    records = [
        c.to_record(paper.name, source.sha256)
        for c in build_chunks("bench", Strategy.token, pages, settings, None, tables)
    ]
    if stage == "embedding":
        from legco_assets.core.search import embedding_function

        embed = embedding_function(settings)
        embed(["warm-up: load the model outside the timed part"])

        def embedding() -> dict[str, Any]:
            vectors = embed([r.text for r in records])
            return {"chunks": len(vectors)}

        return embedding
    if stage == "vector_index":
        from legco_assets.core.search import open_collection, replace_document

        collection = open_collection(settings)
        collection._embedding_function(["warm-up: load the model outside the timed part"])

        def index() -> dict[str, Any]:
            return {"chunks": replace_document(collection, records, "bench", "token", source.sha256).written}

        return index
    raise SystemExit(f"unknown stage {stage!r} (one of {', '.join(STAGES)})")


def _cpu_seconds(who: int) -> float:
    """User + system time of this process (``RUSAGE_SELF``) or of its finished children
    (``RUSAGE_CHILDREN``: table workers)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run_stage(stage: str, paper: Path) -> dict[str, Any]:
    """Child entry point: prepare, then time the stage once; seconds, CPU and memory (this
    process, and the largest worker process it started, if any)."""
    with tempfile.TemporaryDirectory() as tmp:
        call = _prepare(stage, paper, Path(tmp))
        before = _maxrss_mib()
        own, workers = _cpu_seconds(resource.RUSAGE_SELF), _cpu_seconds(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        facts = call()
        seconds = time.perf_counter() - started
        own, workers = (
            _cpu_seconds(resource.RUSAGE_SELF) - own,
            _cpu_seconds(resource.RUSAGE_CHILDREN) - workers,
        )
        cpu = own + workers
        # the largest child of the whole process: only the stage's when the stage started one
        worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 if workers > 0 else 0.0
        return {
            "stage": stage,
            "seconds": seconds,
            "cpu_seconds": cpu,
            "peak_rss_mib": _maxrss_mib(),
            "stage_rss_mib": _maxrss_mib() - before,
            "worker_rss_mib": worker,
            **facts,
        }


def run_sensor(files: int, work: Path) -> dict[str, Any]:
    """Child entry point: ``files`` new PDFs in the inbox, one tick, then an unchanged tick."""
    import dagster as dg
    from make_long_paper import make_long_paper

    from legco_assets.defs.partitions import documents_partitions
    from legco_assets.defs.resources import LegcoSettings
    from legco_assets.defs.sensors import inbox_sensor

    data = work / "data"
    inbox = data / "inbox"
    inbox.mkdir(parents=True)
    base = make_long_paper(4, work / "base.pdf").read_bytes()
    for n in range(files):  # distinct bytes (a trailing comment) so every file is new content
        (inbox / f"paper {n:03d}.pdf").write_bytes(base + f"\n% copy {n}\n".encode())
    (work / "home").mkdir()
    resources = {"legco": LegcoSettings(data_dir=str(data), inbox=str(inbox))}
    with dg.instance_for_test(temp_dir=str(work / "home")) as instance:
        before = _maxrss_mib()
        started = time.perf_counter()
        result = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        for request in result.dynamic_partitions_requests:
            instance.add_dynamic_partitions(documents_partitions.name, list(request.partition_keys))
        first = time.perf_counter() - started
        started = time.perf_counter()
        again = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources=resources, cursor=result.cursor)
        )
        second = time.perf_counter() - started
        assert len(result.run_requests) == files and not again.run_requests
        return {
            "stage": "sensor",
            "files": files,
            "seconds": first,
            "unchanged_tick_seconds": second,
            "run_requests": len(result.run_requests),
            "peak_rss_mib": _maxrss_mib(),
            "stage_rss_mib": _maxrss_mib() - before,
        }


# -- the parent: papers, subprocesses, the table ------------------------------------------------
def _child(args: list[str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def machine() -> str:
    mem = ""
    try:
        kib = int(
            next(
                line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
            ).split()[1]
        )
        mem = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    cpu = ""
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    return (
        f"{os.cpu_count()} cores{mem}; {cpu}; Python {platform.python_version()}; "
        f"{platform.system()} {platform.release()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[10, 100, 500])
    parser.add_argument("--repeat", type=int, default=1, help="runs per stage; the fastest is reported")
    parser.add_argument("--stages", nargs="+", default=STAGES, choices=STAGES)
    parser.add_argument("--sensor-files", type=int, default=200)
    parser.add_argument(
        "--table-light",
        action="store_true",
        help="papers of narrative and Q&A with few tables (make_long_paper --table-light)",
    )
    parser.add_argument(
        "--producer",
        choices=["fixtures", "platypus", "both"],
        default="fixtures",
        help="generated papers from the fixtures' pages, from reportlab platypus, or both (--pairs)",
    )
    parser.add_argument(
        "--cjk-font", type=Path, help="platypus papers: a TTF/TTC with CJK glyphs instead of STSong-Light"
    )
    parser.add_argument(
        "--box-font",
        action="store_true",
        help="platypus papers: embed a generated TTF of box glyphs (no CJK font needed)",
    )
    parser.add_argument(
        "--paper",
        type=Path,
        help="time this PDF instead of generated papers (e.g. data/samples/sample_zh_qa.pdf for start-up)",
    )
    parser.add_argument(
        "--profile",
        choices=STAGES,
        help="cProfile one stage on the largest paper and print its top functions",
    )
    parser.add_argument(
        "--pairs", type=int, default=0, help="alternating rounds of whole processes (raw, chunk), medians"
    )
    parser.add_argument(
        "--against", type=Path, help="with --pairs: also time the chunk command of this checkout"
    )
    parser.add_argument("--child", nargs=2, metavar=("STAGE", "PAPER"), help=argparse.SUPPRESS)
    parser.add_argument("--child-sensor", nargs=2, metavar=("FILES", "WORKDIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(run_stage(args.child[0], Path(args.child[1]))))
        return
    if args.child_sensor:
        print(json.dumps(run_sensor(int(args.child_sensor[0]), Path(args.child_sensor[1]))))
        return

    from make_long_paper import (
        SOURCES,
        TABLE_LIGHT_SOURCES,
        make_box_font,
        make_long_paper,
        make_platypus_paper,
    )

    work = Path(tempfile.mkdtemp(prefix="legco-bench-"))
    try:
        sources = TABLE_LIGHT_SOURCES if args.table_light else SOURCES
        if args.paper:
            papers = {_page_count(args.paper): args.paper.resolve()}
        else:
            papers = {}
            if args.producer != "platypus":
                papers = {n: make_long_paper(n, work / f"paper-{n}.pdf", sources) for n in args.pages}
            if args.producer == "both" and not args.pairs:
                raise SystemExit("--producer both is for --pairs (a stage table holds one producer)")
        platypus: dict[int, Path] = {}
        if args.producer in ("platypus", "both") and not args.paper:
            font = make_box_font(work / "boxes.ttf") if args.box_font else args.cjk_font
            for n in args.pages:
                path = make_platypus_paper(n, work / f"platypus-{n}.pdf", font)
                platypus[_page_count(path)] = path
            if args.producer == "platypus":
                papers = platypus
        if args.profile:
            profile(args.profile, papers[max(papers)])
            return
        if args.pairs:
            runs = list(papers.items()) + (list(platypus.items()) if args.producer == "both" else [])
            for n, paper in runs:
                print(run_pairs(paper, n, args.pairs, args.against, work))
                print()
            return
        results: dict[tuple[str, int], dict[str, Any]] = {}
        for n, paper in papers.items():
            for stage in args.stages:
                runs = [_child(["--child", stage, str(paper)]) for _ in range(args.repeat)]
                results[(stage, n)] = min(runs, key=lambda r: r["seconds"])
                print(
                    f"  {stage:<18} {n:>4} pages  {results[(stage, n)]['seconds']:8.3f}s",
                    file=sys.stderr,
                    flush=True,
                )
        sensor = None
        if args.sensor_files:
            sensor_dir = work / "sensor"
            sensor_dir.mkdir()
            sensor = _child(["--child-sensor", str(args.sensor_files), str(sensor_dir)])
        print(report(results, sensor, sorted(papers), args))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _page_count(path: Path) -> int:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return len(pdf)
    finally:
        pdf.close()


def report(
    results: dict[tuple[str, int], dict[str, Any]],
    sensor: dict[str, Any] | None,
    sizes: list[int],
    args: argparse.Namespace,
) -> str:
    light = (" --table-light" if args.table_light else "") + (f" --paper {args.paper}" if args.paper else "")
    lines = [
        f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the end",
        f"Command: .venv/bin/python scripts/benchmark.py --pages {' '.join(map(str, sizes))} "
        f"--repeat {args.repeat}{light} "
        f"--stages {' '.join(args.stages)}",
        "",
        "| stage | pages | seconds | CPU s | pages/s | × raw pypdfium2 | s/page vs smallest | "
        "peak RSS (MiB) | stage Δ RSS (MiB) | worker RSS (MiB) | output |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    smallest = sizes[0]
    for stage in args.stages:
        for n in sizes:
            r = results[(stage, n)]
            # a process against raw pypdfium2 in a process, a stage against the raw loop
            raw = results.get(
                ("raw_process" if stage in ("raw_process", "cli_question") else "raw_pypdfium2", n)
            )
            vs_raw = f"{r['seconds'] / raw['seconds']:.2f}" if raw and raw["seconds"] > 0 else "–"
            base = results[(stage, smallest)]
            growth = (
                (r["seconds"] / n) / (base["seconds"] / smallest) if base["seconds"] > 0 else float("nan")
            )
            output = ", ".join(
                f"{k} {v}"
                for k, v in r.items()
                if k in ("characters", "sections", "tables", "chunks", "output lines")
            )
            lines.append(
                f"| {LABELS[stage]} | {n} | {r['seconds']:.3f} | "
                f"{r['cpu_seconds']:.2f} | {n / r['seconds']:,.0f} | "
                f"{vs_raw} | {growth:.2f} | "
                f"{r['peak_rss_mib']:.0f} | {r['stage_rss_mib']:.0f} | {r['worker_rss_mib']:.0f} | {output} |"
            )
    if sensor:
        lines.append(
            f"| inbox sensor, one tick | {sensor['files']} files | {sensor['seconds']:.3f} | – | – | – | – | "
            f"{sensor['peak_rss_mib']:.0f} | {sensor['stage_rss_mib']:.0f} | – | "
            f"{sensor['run_requests']} run requests; "
            f"unchanged tick {sensor['unchanged_tick_seconds']:.3f}s |"
        )
    largest = sizes[-1]
    if ("cli_question", largest) in results and ("raw_process", largest) in results:
        cli, raw = results[("cli_question", largest)], results[("raw_process", largest)]
        ratio = cli["seconds"] / raw["seconds"]
        lines += [
            "",
            "Bar: the chunk command within 2.5× raw pypdfium2, "
            f"start-up included, {largest} pages: "
            f"{ratio:.2f}× — {'met' if ratio <= 2.5 else 'MISSED'} (CPU seconds, workers included: "
            f"{cli['cpu_seconds'] / raw['cpu_seconds']:.2f}×; "
            "on a loaded machine the CPU ratio is the steadier one)",
        ]
    if ("pipeline_question", largest) in results and ("raw_pypdfium2", largest) in results:
        q = results[("pipeline_question", largest)]
        raw = results[("raw_pypdfium2", largest)]
        small = results[("pipeline_question", smallest)]
        growth = (q["seconds"] / largest) / (small["seconds"] / smallest)
        peak = max(r["peak_rss_mib"] + r["worker_rss_mib"] for r in results.values())
        lines += [
            "",
            f"Bars (no-LLM question pipeline, {largest} pages):",
            f"- ≥ 50 pages/s: {largest / q['seconds']:,.0f} pages/s — "
            f"{'met' if largest / q['seconds'] >= 50 else 'MISSED'}",
            f"- within 3× raw pypdfium2: {q['seconds'] / raw['seconds']:.1f}× — "
            f"{'met' if q['seconds'] <= 3 * raw['seconds'] else 'MISSED'}",
            f"- time per page grows < 1.3× from {smallest} to {largest} pages: {growth:.2f}× — "
            f"{'met' if growth < 1.3 else 'MISSED'}",
            f"- peak memory < 1 GiB (any stage: its process + its largest worker): {peak:.0f} MiB — "
            f"{'met' if peak < 1024 else 'MISSED'}",
        ]
    return "\n".join(lines)


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (workers included) of one whole process, output discarded. It
    runs in the tree its ``PYTHONPATH`` names: ``python -m`` puts the working folder first
    on the path, so a command run from this checkout would import this checkout's code
    whatever ``PYTHONPATH`` says."""
    cpu = _cpu_seconds(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    cwd = env.get("PYTHONPATH") or None
    subprocess.run(args, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started, _cpu_seconds(resource.RUSAGE_CHILDREN) - cpu


def run_pairs(paper: Path, pages: int, rounds: int, against: Path | None, work: Path) -> str:
    """``rounds`` alternating rounds of whole processes: raw pypdfium2 text, the chunk
    command of this checkout and (``against``) of another; a Markdown table of each round
    (wall seconds, CPU seconds in brackets) and the medians. Bytecode is written and read as
    in a normal install (one warm-up run each)."""
    import statistics

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LEGCO_DATA_DIR"] = str(work / "data")
    chunk = chunk_command(paper)
    trees = {"this": str(REPO), **({"against": str(against.resolve())} if against else {})}
    commands = {"raw": ([sys.executable, "-c", RAW_PROGRAM, str(paper)], env)}
    for name, tree in trees.items():
        commands[name] = (chunk, {**env, "PYTHONPATH": tree})
    for args, cmd_env in commands.values():
        _timed(args, cmd_env)
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (args, cmd_env) in commands.items():
            seconds, used = _timed(args, cmd_env)
            wall[name].append(seconds)
            cpu[name].append(used)

    def cell(name: str, k: int) -> str:
        return f"{wall[name][k]:.3f} ({cpu[name][k]:.2f})"

    ratios = [c / r for c, r in zip(wall["this"], wall["raw"])]
    cpu_ratios = [c / r for c, r in zip(cpu["this"], cpu["raw"])]
    names = list(commands)
    lines = [
        f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the end",
        f"Paper: {paper.name}, {pages} pages; {rounds} alternating rounds of whole processes, "
        "wall s (CPU s, workers included)",
        "",
        "| round | raw pypdfium2 | chunk | × raw, wall (CPU) |"
        + (" against | this / against, wall |" if against else ""),
        "|---:|---:|---:|---:|" + ("---:|---:|" if against else ""),
    ]
    for k in range(rounds):
        row = f"| {k + 1} | {cell('raw', k)} | {cell('this', k)} | {ratios[k]:.2f} ({cpu_ratios[k]:.2f}) |"
        if against:
            row += f" {cell('against', k)} | {wall['this'][k] / wall['against'][k]:.2f} |"
        lines.append(row)
    med = {n: (statistics.median(wall[n]), statistics.median(cpu[n])) for n in names}
    row = (
        f"| median | {med['raw'][0]:.3f} ({med['raw'][1]:.2f}) | "
        f"{med['this'][0]:.3f} ({med['this'][1]:.2f}) | "
        f"{statistics.median(ratios):.2f} ({statistics.median(cpu_ratios):.2f}) |"
    )
    if against:
        row += (
            f" {med['against'][0]:.3f} ({med['against'][1]:.2f}) | {med['this'][0] / med['against'][0]:.2f} |"
        )
    return "\n".join([*lines, row])


def profile(stage: str, paper: Path) -> None:
    """Top functions of one stage by cumulative and own time (cProfile)."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory() as tmp:
        call = _prepare(stage, paper, Path(tmp))
        profiler = cProfile.Profile()
        profiler.enable()
        call()
        profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(20)
    stats.sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
