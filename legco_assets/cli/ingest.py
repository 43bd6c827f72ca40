"""``legco-assets ingest PATH …``: register files as partitions in the persistent Dagster
instance (``DAGSTER_HOME``, default ``data/dagster_home``, shared with ``dagster dev``) and
materialise the same asset graph the UI shows, so its runs appear there.

Dagster, the asset definitions and the core are imported inside the functions that run them:
building the parser must import nothing heavy.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings, Strategy


def _expand(paths: Sequence[str], settings: Settings) -> tuple[list[Path], list[tuple[Path, str, bool]]]:
    """Files named or found under folders, each once: a file named twice (or also found
    through its folder) is one document, so it is ingested and counted once. Files left out
    come back as ``(path, reason, named)`` (``core.inbox.skip_reason``: the sensor's rules),
    ``named`` when the user named that file itself."""
    from legco_assets.core.sources import folder_files, skip_reason
    from legco_assets.core.storage import location, shown

    files: list[Path] = []
    skipped: list[tuple[Path, str, bool]] = []
    for raw in paths:
        p = location(raw)  # a local path, or a file or prefix in an object store
        found = folder_files(p) if p.is_dir() else [(p, None)]
        for f, relative in found:
            reason = skip_reason(f, settings, relative)
            if reason:
                skipped.append((f, reason, relative is None))
            else:
                files.append(f)
    unique: dict[str, Path] = {}
    for f in files:
        unique.setdefault(shown(f), f)
    left_out: dict[str, tuple[Path, str, bool]] = {}
    for path, reason, named in skipped:
        key = shown(path)
        if key not in unique:
            left_out[key] = (path, reason, named or (key in left_out and left_out[key][2]))
    return list(unique.values()), list(left_out.values())


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
    """Each materialisation of the run as one line: the asset and its summary facts."""
    from legco_assets.defs.results import stage_facts

    lines = []
    for event in result.all_events:
        if event.event_type_value == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            asset = mat.asset_key.to_user_string()
            facts = [f"{k}={v}" for k, v in stage_facts(asset, mat.metadata)]
            lines.append(f"    {asset:<19} {' '.join(facts)}")
    return lines


def _failed_checks(result: Any) -> list[tuple[bool, str]]:
    """Each asset check the run failed, ``(blocking, line)`` with the line ``chunk`` prints
    for it (``check: what failed (pages or ids)``): a paper that ingests with a warning, or
    whose chunks a blocking check kept out of Chroma, says so here, not only in the UI. A
    check that could not run (no records to compare with: ``evaluated`` False) is no finding
    about the paper and is not printed; the UI shows it."""
    from legco_assets.defs.results import failed_check

    failed = (failed_check(evaluation) for evaluation in result.get_asset_check_evaluations())
    return [(check.blocking, check.line()) for check in failed if check is not None]


def _run_strategy(instance: Any, definitions: Any, key: str, strategy: Strategy, upstream: bool) -> Any:
    """One run of the strategy's named job (so the UI shows it as such); after the first
    strategy only ``chunks``, ``vector_index`` and ``chunk_excerpts`` run, re-using the stored
    upstream results."""
    import dagster as dg

    from legco_assets.defs.instance import runs_of_the_code_location
    from legco_assets.defs.jobs import JOBS, STRATEGY_ASSETS, strategy_run_config
    from legco_assets.defs.names import SOURCE_TAG, STRATEGY_TAG

    job = definitions.resolve_job_def(JOBS[strategy].name)
    with runs_of_the_code_location(instance), _ctrl_c_stops_the_command():  # on the Overview timeline too
        return job.execute_in_process(
            run_config={
                **strategy_run_config(strategy),
                "loggers": {"console": {"config": {"log_level": "CRITICAL"}}},
            },
            instance=instance,
            partition_key=key,
            raise_on_error=False,
            asset_selection=None if upstream else [dg.AssetKey(name) for name in STRATEGY_ASSETS],
            tags={STRATEGY_TAG: strategy.value, SOURCE_TAG: "cli"},
        )


@contextlib.contextmanager
def _ctrl_c_stops_the_command() -> Iterator[None]:
    """A Ctrl-C (or SIGTERM) that comes during a run stops the command, as the
    KeyboardInterrupt it was. Why: Dagster holds a run's interrupts for its steps; one inside a
    step ends the run as a failure, and one after the last step is dropped when the run ends, so
    the command went on to the next paper. Python writes each signal's number to the wakeup
    socket whichever Python handler takes it (Dagster's, during the run), so every one that
    came during the run is seen."""
    import dagster as dg

    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only: a run in another thread is not interrupted
        return
    receive, send = socket.socketpair()
    receive.setblocking(False)
    send.setblocking(False)
    previous = signal.set_wakeup_fd(send.fileno(), warn_on_full_buffer=False)
    try:
        try:
            yield
        except dg.DagsterExecutionInterruptedError:  # raised out of the run, outside its steps
            raise KeyboardInterrupt from None
        if _received(receive) & {signal.SIGINT, signal.SIGTERM}:
            raise KeyboardInterrupt
    finally:
        signal.set_wakeup_fd(previous)
        receive.close()
        send.close()


def _received(receive: socket.socket) -> set[int]:
    """The signals written to the wakeup socket so far."""
    numbers: set[int] = set()
    with contextlib.suppress(BlockingIOError):
        while chunk := receive.recv(512):
            numbers.update(chunk)
    return numbers


def _failed_steps(result: Any) -> list[str]:
    """The steps (assets) that failed in a run, in order."""
    return [event.step_key for event in result.all_events if event.is_step_failure]


def _claim(index: Any, files: list[Path]) -> tuple[list[tuple[Path, str]], list[tuple[Path, str, bool]]]:
    """Each file with its document id, and apart the files whose bytes a partition already
    holds, each with whether it is a name new to the index (the same bytes are one paper: the
    index records each as another name of that paper, and it is not ingested again). A file
    that cannot be read is registered by its path: its run says why."""
    from legco_assets.core.sources import file_sha256

    kept: list[tuple[Path, str]] = []
    aliases: list[tuple[Path, str, bool]] = []
    for path in files:
        try:
            claim = index.claim(path, file_sha256(path))
        except OSError:
            kept.append((path, index.register(path)))
            continue
        if claim.same_bytes:
            aliases.append((path, claim.document_id, claim.new_name))
        else:
            kept.append((path, claim.document_id))
    return kept, aliases


def _report_aliases(index: Any, aliases: list[tuple[Path, str, bool]], instance: Any, out: Any) -> None:
    """One line per other name, and for a name new to the index an observation on its
    paper's partition (the UI's record of it)."""
    from legco_assets.defs.partitions import another_name, same_bytes_line

    for path, key, new in aliases:
        print(same_bytes_line(path, key), file=out, flush=True)
        if new:
            instance.report_runless_asset_event(another_name(path, key, index.get(key).also_named))


def ingest_files(
    files: list[Path], strategies: list[Strategy], settings: Settings, out: Any = sys.stdout
) -> dict[str, Any]:
    """Register and materialise each file with each strategy; a failure never stops the
    others: not another paper, nor the paper's other strategy. The first
    strategy's run makes the shared stages too; when one of those fails, the paper's later
    strategies have nothing to chunk and fail with it (said per strategy). A paper is
    ingested when at least one strategy reached the index."""
    from legco_assets.core.embedding_ahead import embedding_ahead
    from legco_assets.core.sources import DocumentIndex

    index = DocumentIndex(settings.documents_dir)
    claimed, aliases = _claim(index, files)
    # the papers' vectors are made in a process of their own while the runs do the rest
    with embedding_ahead(settings, [(key, path) for path, key in claimed], strategies) as ahead:
        if ahead is None and claimed:
            _warm_up(settings)
        return _materialise(claimed, aliases, index, strategies, settings, out)


def _warm_up(settings: Settings) -> None:
    """Load this process's model while Dagster starts and the first stages run."""
    from legco_assets.core.search import embedding_function

    try:
        embedding_function(settings).warm_up()
    except ValueError:  # a bad EMBEDDING_MODEL: vector_index reports it, as a step failure
        pass


def _materialise(
    claimed: list[tuple[Path, str]],
    aliases: list[tuple[Path, str, bool]],
    index: Any,
    strategies: list[Strategy],
    settings: Settings,
    out: Any,
) -> dict[str, Any]:
    """The runs of :func:`ingest_files`, each claimed file with each strategy in turn."""
    from legco_assets.defs.instance import dagster_instance
    from legco_assets.defs.jobs import STRATEGY_ASSETS
    from legco_assets.defs.location import build_definitions
    from legco_assets.defs.partitions import documents_partitions

    instance = dagster_instance(settings)
    definitions = build_definitions(settings)  # the code location's, bound to this command's settings
    files, keys = [f for f, _ in claimed], [k for _, k in claimed]
    existing = set(instance.get_dynamic_partitions(documents_partitions.name))
    instance.add_dynamic_partitions(
        documents_partitions.name, [k for k in dict.fromkeys(keys) if k not in existing]
    )
    _report_aliases(index, aliases, instance, out)
    names = [s.value for s in strategies]
    summary: dict[str, Any] = {
        "documents": 0,
        "failed": [],
        "pages": 0,
        "chunks": dict.fromkeys(names, 0),
        "failed_by_strategy": dict.fromkeys(names, 0),
        "same_bytes": len(aliases),
    }
    for n, (key, path) in enumerate(zip(keys, files), start=1):
        print(f"[{n}/{len(files)}] {path.name} → partition {key}", file=out, flush=True)
        shared_failure: tuple[str, str] | None = None  # (stage, reason) of a failed shared stage
        indexed = 0
        for i, strategy in enumerate(strategies):
            started = time.perf_counter()
            if shared_failure is None:
                result = _run_strategy(instance, definitions, key, strategy, upstream=i == 0)
                for line in _stage_lines(result):
                    print(line, file=out, flush=True)
                for blocking, line in _failed_checks(result):
                    common.report_check(path, blocking, line)
                if result.success:
                    print(
                        f"    {strategy.value} done in {time.perf_counter() - started:.1f}s",
                        file=out,
                        flush=True,
                    )
                    summary["chunks"][strategy.value] += _count_chunks(settings, key, strategy)
                    indexed += 1
                    continue
                message = _failure_message(result)
                shared = [step for step in _failed_steps(result) if step not in STRATEGY_ASSETS]
                if shared:
                    shared_failure = (shared[0], message)
                    note = (
                        f" (strategies {', '.join(names[i:])}: the shared stage {shared[0]} failed)"
                        if len(names) > 1
                        else ""
                    )
                else:
                    note = f" (strategy {strategy.value})" if len(names) > 1 else ""
                common.fail((message if message.startswith(str(path)) else f"{path}: {message}") + note)
            else:
                message = f"not run: the shared stage {shared_failure[0]} failed: {shared_failure[1]}"
            print(f"    {strategy.value} failed", file=out, flush=True)
            summary["failed"].append({"file": str(path), "strategy": strategy.value, "error": message})
            summary["failed_by_strategy"][strategy.value] += 1
        if indexed:
            summary["documents"] += 1
            summary["pages"] += _count_pages(settings, key)
    return summary


def failed_line(summary: dict[str, Any]) -> str:
    """``failed: token 1, question 0``: the failed runs per strategy."""
    return "failed: " + ", ".join(f"{k} {v}" for k, v in summary["failed_by_strategy"].items())


def _count_chunks(settings: Settings, key: str, strategy: Strategy) -> int:
    from legco_assets.core.artifacts import Artifacts

    return len(Artifacts(settings, key).read_chunks(strategy))


def _count_pages(settings: Settings, key: str) -> int:
    from legco_assets.core.artifacts import Artifacts

    return Artifacts(settings, key).source().pages


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from legco_assets.core.settings import Strategy

    files, skipped = _expand(args.paths or [str(settings.inbox)], settings)
    for path, reason, named in skipped:  # a file the user named is an error; a folder's, a filter
        if named:
            common.fail(f"{path}: {reason}")
        else:
            print(f"skipped {path}: {reason}", flush=True)
    if not files:
        common.fail(
            "no PDF, DOCX, TXT, Markdown or HTML files found in "
            + ", ".join(args.paths or [str(settings.inbox)])
        )
        return 1
    strategies = (
        list(Strategy)
        if args.strategy == "both"
        else [common.strategy(args.strategy) if args.strategy else settings.default_strategy]
    )
    started = time.perf_counter()
    summary = ingest_files(files, strategies, settings)
    per_strategy = ", ".join(f"{k} {v}" for k, v in summary["chunks"].items())
    print(
        f"ingested {summary['documents']} document(s), {summary['pages']} pages; chunks: {per_strategy}; "
        f"{failed_line(summary)}; skipped {len(skipped)}; "
        + (f"same bytes as a partition {summary['same_bytes']}; " if summary["same_bytes"] else "")
        + f"{time.perf_counter() - started:.1f}s"
    )
    return 1 if summary["failed"] or any(named for _, _, named in skipped) else 0


def add_command(sub: Any) -> None:
    ingest = sub.add_parser("ingest", help="register files as partitions and materialise the asset graph")
    ingest.add_argument("paths", nargs="*", help="files or folders (default: the inbox)")
    ingest.add_argument(
        "--strategy", choices=[*common.STRATEGY_CHOICES, "both"], help=common.STRATEGY_DEFAULT
    )
    ingest.set_defaults(func=cmd_ingest)
