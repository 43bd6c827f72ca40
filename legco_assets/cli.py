"""``legco-assets``: chunk, ingest, query and inspect LegCo papers.

``chunk`` runs the pure core in memory and never imports Dagster (it must start fast);
``ingest`` registers partitions in the persistent Dagster instance (``DAGSTER_HOME``,
default ``data/dagster_home``, shared with ``dagster dev``) and materialises the same asset
graph the UI shows, so its runs appear there.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

STRATEGY_CHOICES = ("token", "question")


def _settings() -> Any:
    from legco_assets.core.settings import Settings

    return Settings.from_env()


def _strategy(value: str) -> Any:
    from legco_assets.core.settings import Strategy

    try:
        return Strategy.parse(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _fail(message: str) -> None:
    print(f"legco-assets: error: {message}", file=sys.stderr)


def _warn(message: str) -> None:
    print(f"legco-assets: warning: {message}", file=sys.stderr)


# -- chunk ------------------------------------------------------------------------------------
def cmd_chunk(args: argparse.Namespace) -> int:
    """Chunks on stdout; each failed check of the paper (the checks the assets run) as one
    line on stderr: ``check failed`` for a blocking one (Dagster keeps such chunks out of
    Chroma), ``warning`` for the others. ``--strict``: a failed blocking check exits 1."""
    from legco_assets.core.errors import DocumentError
    from legco_assets.core.pipeline import chunk_paper

    settings = _settings()
    strategy = args.strategy or settings.default_strategy
    try:
        paper = chunk_paper(args.file, strategy, settings, use_llm=not args.no_llm)
    except DocumentError as exc:
        _fail(str(exc))
        return 1
    out = sys.stdout
    for record in paper.records:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    out.flush()
    failed = [c for c in paper.checks if not c.passed]
    for check in failed:
        if check.blocking:
            print(f"legco-assets: check failed: {args.file}: {check.line()}", file=sys.stderr)
        else:
            _warn(f"{args.file}: {check.line()}")
    return 1 if args.strict and any(c.blocking for c in failed) else 0


# -- ingest -----------------------------------------------------------------------------------
def _expand(paths: Sequence[str], settings: Any) -> tuple[list[Path], list[tuple[Path, str, bool]]]:
    """Files named or found under folders, each once: a file named twice (or also found
    through its folder) is one document, so it is ingested and counted once. Files left out
    come back as ``(path, reason, named)`` (``core.inbox.skip_reason``: the sensor's rules),
    ``named`` when the user named that file itself."""
    from legco_assets.core.sources import folder_files, skip_reason

    files: list[Path] = []
    skipped: list[tuple[Path, str, bool]] = []
    for raw in paths:
        p = Path(raw)
        found = folder_files(p) if p.is_dir() else [(p, None)]
        for f, relative in found:
            reason = skip_reason(f, settings, relative)
            if reason:
                skipped.append((f, reason, relative is None))
            else:
                files.append(f)
    unique: dict[Path, Path] = {}
    for f in files:
        unique.setdefault(f.resolve(), f)
    left_out: dict[Path, tuple[Path, str, bool]] = {}
    for path, reason, named in skipped:
        key = path.resolve()
        if key not in unique:
            left_out[key] = (path, reason, named or (key in left_out and left_out[key][2]))
    return list(unique.values()), list(left_out.values())


def dagster_instance(settings: Any) -> Any:
    """The persistent instance under the data dir (or ``DAGSTER_HOME`` when set). A home
    without ``dagster.yaml`` gets one that turns Dagster's telemetry off: nothing here may
    reach the network at run time, and Dagster would otherwise print its missing-file and
    telemetry notices on every command. An existing ``dagster.yaml`` is left as it is."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.data_dir / "dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    from dagster import DagsterInstance

    return DagsterInstance.get()


def _failure_message(result: Any) -> str:
    """The error our code raised in the first failed step, as one line without its class
    name. Dagster wraps it (``DagsterExecutionStepExecutionError``); its own ``__cause__``
    (e.g. the PdfiumError behind "corrupt or truncated PDF") is detail, not the message."""
    for event in result.all_events:
        if event.is_step_failure:
            failure = event.event_specific_data.user_failure_data
            if failure is not None and failure.description:  # dg.Failure: the reason itself
                return failure.description
            error = event.event_specific_data.error
            while error.cause is not None and (error.cls_name or "").startswith("Dagster"):
                error = error.cause
            last = error.message.strip().splitlines()[-1]
            prefix = f"{error.cls_name}: " if error.cls_name else ""
            for candidate in (prefix, f"{error.cls_name.rsplit('.', 1)[-1]}: " if error.cls_name else ""):
                if candidate and ": " in last and last.split(": ", 1)[0].endswith(candidate.rstrip(": ")):
                    return last.split(": ", 1)[1]
            return last
    return "run failed"


def _stage_lines(result: Any) -> list[str]:
    lines = []
    for event in result.all_events:
        if event.event_type_value == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            meta = mat.metadata
            facts = [f"{k}={meta[k].value}" for k in ("pages", "characters", "images", "tables", "sections", "qa_pairs", "chunks", "ids_written", "excerpts", "written") if k in meta]
            lines.append(f"    {mat.asset_key.to_user_string():<19} {' '.join(facts)}")
    return lines


def _failed_checks(result: Any) -> list[tuple[bool, str]]:
    """Each asset check the run failed, ``(blocking, line)`` with the line ``chunk`` prints
    for it (``check: what failed (pages or ids)``): a paper that ingests with a warning, or
    whose chunks a blocking check kept out of Chroma, says so here, not only in the UI."""
    import dagster as dg

    from legco_assets.core.quality import Check

    lines = []
    for evaluation in result.get_asset_check_evaluations():
        if not evaluation.passed:
            details = evaluation.metadata.get("details")
            check = Check(evaluation.check_name, False, evaluation.description or "", details.value if details else {})
            lines.append((evaluation.severity == dg.AssetCheckSeverity.ERROR, check.line()))
    return lines


def _run_strategy(instance: Any, key: str, strategy: Any, upstream: bool) -> Any:
    """One run of the strategy's named job (so the UI shows it as such); after the first
    strategy only ``chunks``, ``vector_index`` and ``chunk_excerpts`` run, re-using the stored
    upstream results."""
    import dagster as dg

    from legco_assets.defs.assets import ALL_ASSETS
    from legco_assets.defs.jobs import JOBS, strategy_run_config
    from legco_assets.defs.resources import resources_from_env

    # the resources of this command's environment (data dir, LLM, Chroma), read now: the code
    # location's ``defs`` bound them when it was first imported, maybe under another setting
    named = JOBS[strategy]
    job = dg.Definitions(assets=ALL_ASSETS, jobs=[named], resources=resources_from_env()).resolve_job_def(named.name)
    return job.execute_in_process(
        run_config={**strategy_run_config(strategy), "loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},
        instance=instance,
        partition_key=key,
        raise_on_error=False,
        asset_selection=None if upstream else [dg.AssetKey("chunks"), dg.AssetKey("vector_index"), dg.AssetKey("chunk_excerpts")],
        tags={"legco/strategy": strategy.value, "legco/source": "cli"},
    )


def ingest_files(files: list[Path], strategies: list[Any], settings: Any, out: Any = sys.stdout) -> dict[str, Any]:
    """Register and materialise each file; a failure never stops the others."""
    from legco_assets.core.sources import DocumentIndex
    from legco_assets.defs.partitions import documents_partitions

    if files:  # the model loads while Dagster starts and the first stages run
        from legco_assets.core.search import embedding_function

        try:
            embedding_function(settings).warm_up()
        except ValueError:  # a bad EMBEDDING_MODEL: vector_index reports it, as a step failure
            pass
    instance = dagster_instance(settings)
    index = DocumentIndex(settings.documents_dir)
    keys = [index.register(f) for f in files]
    existing = set(instance.get_dynamic_partitions(documents_partitions.name))
    instance.add_dynamic_partitions(documents_partitions.name, [k for k in dict.fromkeys(keys) if k not in existing])
    summary: dict[str, Any] = {"documents": 0, "failed": [], "pages": 0, "chunks": {s.value: 0 for s in strategies}}
    for n, (key, path) in enumerate(zip(keys, files), start=1):
        print(f"[{n}/{len(files)}] {path.name} → partition {key}", file=out, flush=True)
        for i, strategy in enumerate(strategies):
            started = time.perf_counter()
            result = _run_strategy(instance, key, strategy, upstream=i == 0)
            for line in _stage_lines(result):
                print(line, file=out, flush=True)
            for blocking, line in _failed_checks(result):
                if blocking:
                    print(f"legco-assets: check failed: {path}: {line}", file=sys.stderr)
                else:
                    _warn(f"{path}: {line}")
            if not result.success:
                message = _failure_message(result)
                _fail(message if message.startswith(str(path)) else f"{path}: {message}")
                summary["failed"].append({"file": str(path), "error": message})
                break
            print(f"    {strategy.value} done in {time.perf_counter() - started:.1f}s", file=out, flush=True)
            summary["chunks"][strategy.value] += _count_chunks(settings, key, strategy)
        else:
            summary["documents"] += 1
            summary["pages"] += _count_pages(settings, key)
    return summary


def _count_chunks(settings: Any, key: str, strategy: Any) -> int:
    from legco_assets.core.pipeline import Artifacts

    return len(Artifacts(settings, key).read_chunks(strategy))


def _count_pages(settings: Any, key: str) -> int:
    from legco_assets.core.pipeline import Artifacts

    return Artifacts(settings, key).source().pages


def cmd_ingest(args: argparse.Namespace) -> int:
    from legco_assets.core.settings import Strategy

    settings = _settings()
    files, skipped = _expand(args.paths or [str(settings.inbox)], settings)
    for path, reason, named in skipped:  # a file the user named is an error; a folder's, a filter
        if named:
            _fail(f"{path}: {reason}")
        else:
            print(f"skipped {path}: {reason}", flush=True)
    if not files:
        _fail("no PDF, DOCX, TXT, Markdown or HTML files found in " + ", ".join(args.paths or [str(settings.inbox)]))
        return 1
    strategies = list(Strategy) if args.strategy == "both" else [_strategy(args.strategy) if args.strategy else settings.default_strategy]
    started = time.perf_counter()
    summary = ingest_files(files, strategies, settings)
    per_strategy = ", ".join(f"{k} {v}" for k, v in summary["chunks"].items())
    print(
        f"ingested {summary['documents']} document(s), {summary['pages']} pages; chunks: {per_strategy}; "
        f"failed {len(summary['failed'])}; skipped {len(skipped)}; {time.perf_counter() - started:.1f}s"
    )
    return 1 if summary["failed"] or any(named for _, _, named in skipped) else 0


# -- parser -----------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``legco-assets: error: …``) and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        _fail(message)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="legco-assets", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    chunk = sub.add_parser("chunk", help="print a file's chunks as JSON Lines")
    chunk.add_argument("file")
    chunk.add_argument("--strategy", type=_strategy, help="token | question (default: DEFAULT_CHUNKING_STRATEGY)")
    chunk.add_argument("--no-llm", action="store_true", help="never call an LLM, even if LLM_* is set")
    chunk.add_argument("--strict", action="store_true", help="exit 1 when a blocking check fails (as Dagster would keep the chunks out of Chroma)")
    chunk.set_defaults(func=cmd_chunk, one_shot=True)

    ingest = sub.add_parser("ingest", help="register files as partitions and materialise the asset graph")
    ingest.add_argument("paths", nargs="*", help="files or folders (default: the inbox)")
    ingest.add_argument("--strategy", choices=[*STRATEGY_CHOICES, "both"], help="default: DEFAULT_CHUNKING_STRATEGY")
    ingest.set_defaults(func=cmd_ingest)

    from legco_assets import cli_feed, cli_lineage, cli_views

    cli_views.add_commands(sub)
    cli_feed.add_command(sub)
    cli_lineage.add_command(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command in this process (the tests call it; the console script is :func:`run`)."""
    return _dispatch(build_parser().parse_args(argv))


def _dispatch(args: argparse.Namespace) -> int:
    from legco_assets.core.errors import ConfigError

    try:
        return int(args.func(args) or 0)
    except ConfigError as exc:  # a bad environment variable: its one line, not a traceback
        _fail(str(exc))
        return 2


def run() -> None:
    """The ``legco-assets`` program. A one-shot command (``chunk``: it holds no files,
    connections or threads once it has printed) runs with the cyclic garbage collector
    rarely woken and leaves without tearing the interpreter down: collections over a long
    paper's objects and freeing them, with the tokenizer's 100k ranks, one by one cost
    0.03-0.06 s of a command that must start and end fast (issue 27; docs/benchmarks.md).
    Every other command exits the ordinary way."""
    import gc

    args = build_parser().parse_args()
    if not getattr(args, "one_shot", False):
        sys.exit(_dispatch(args))
    gc.set_threshold(100_000, 50, 100)
    try:
        code = _dispatch(args)
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (``| head``): it has what it wanted, no traceback
        code = 1
    os._exit(code)


if __name__ == "__main__":
    run()
