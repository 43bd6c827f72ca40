"""Running the command line and the Dagster assets in tests, and reading what they left.

Why here and not in a test module: several test files run the CLI or materialise a paper
the same way; a test module imports these from here, never from another test module.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import dagster as dg

from legco_assets import cli as cli_module
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource


# -- the command line -------------------------------------------------------------------------
def cli(
    *args: str, home: Path, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m legco_assets.cli`` with its data dir and Dagster instance under ``home``."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_"))
    }
    base.update(
        {"LEGCO_DATA_DIR": str(home / "data"), "DAGSTER_HOME": str(home / "dagster_home"), **(env or {})}
    )
    return subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", *args],
        capture_output=True,
        text=True,
        env=base,
        cwd=cwd,
        timeout=600,
    )


def cli_in_process(*args: str) -> tuple[int, str, str]:
    """``legco_assets.cli.main`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_module.main(list(args))
    return code, out.getvalue(), err.getvalue()


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("legco-assets: error:")]


# -- what a run left ----------------------------------------------------------------------------
def chunk_file_ids(data: Path, key: str, strategy: str = "token") -> list[str]:
    path = data / "documents" / key / f"chunks-{strategy}.jsonl"
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]


def inbox_files(root: Path) -> list[str]:
    """Every file in the inbox, hidden ones included (a temporary download must not stay)."""
    inbox = root / "data" / "inbox"
    return sorted(p.name for p in inbox.iterdir()) if inbox.exists() else []


# -- Dagster ----------------------------------------------------------------------------------
def dagster_resources(data: Path) -> dict[str, Any]:
    return {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }


def materialize_paper(
    tmp_path: Path, paper: Path, run_config: dict, selection=None
) -> dg.ExecuteInProcessResult:
    """Register ``paper`` under ``tmp_path/data`` and materialise its partition in a test
    instance; a failed step is returned in the result, not raised."""
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(paper)
    with dg.instance_for_test() as instance:
        return materialize_partition(instance, data, key, run_config, selection)


def materialize_partition(
    instance: dg.DagsterInstance, data: Path, key: str, run_config: dict | None = None, selection=None
) -> dg.ExecuteInProcessResult:
    """Add the partition ``key`` (a paper registered under ``data``) to ``instance`` and
    materialise it there; a failed step is returned in the result, not raised."""
    instance.add_dynamic_partitions("documents", [key])
    return dg.materialize(
        ALL_ASSETS,
        selection=selection,
        partition_key=key,
        instance=instance,
        resources=dagster_resources(data),
        run_config=run_config,
        raise_on_error=False,
    )


def check_statuses(instance: dg.DagsterInstance, key: dg.AssetCheckKey) -> dict[str, str]:
    """Partition → the check's status there as the check's Partitions tab shows it
    (``SUCCEEDED``, ``FAILED``, ``SKIPPED``: planned by a run that succeeded without a
    result…), computed by Dagster from its event log as the UI's GraphQL does."""
    from dagster._core.definitions.partitions.context import partition_loading_context
    from dagster._core.storage.asset_check_state import AssetCheckState, bulk_update_asset_check_state

    from legco_assets.defs.partitions import documents_partitions

    with partition_loading_context(dynamic_partitions_store=instance):
        state = bulk_update_asset_check_state(
            instance, [(key, documents_partitions)], {key: AssetCheckState.empty()}
        )[key]
        return {
            partition: status.value
            for status, subset in state.subsets.items()
            for partition in subset.subset_value.get_partition_keys()
        }


def ran(evaluation: dg.AssetCheckEvaluation) -> bool:
    """A check that ran for the paper (one that could not says so: ``evaluated`` False)."""
    evaluated = evaluation.metadata.get("evaluated")
    return evaluated is None or evaluated.value is not False


def raised_error(error: Any) -> Any:
    """The error our code raised, inside Dagster's ``DagsterExecutionStepExecutionError``
    (the UI shows it as "The above exception was caused by")."""
    while error.cause is not None and (error.cls_name or "").startswith("Dagster"):
        error = error.cause
    return error


def failure_message(data: Any) -> str:
    """What a failed step says: a ``dg.Failure``'s description (an expected failure: the
    reason alone), else the message of the error it raised."""
    if data.user_failure_data is not None and data.user_failure_data.description:
        return data.user_failure_data.description
    return raised_error(data.error).message.strip()


def step_failure_messages(result: Any) -> dict[str, str]:
    """Failed step (asset) → what it says (:func:`failure_message`)."""
    return {
        event.step_key: failure_message(event.event_specific_data)
        for event in result.all_events
        if event.is_step_failure
    }
