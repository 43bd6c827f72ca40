"""The persistent Dagster instance that ``legco-assets ingest``, ``lineage`` and ``dagster dev``
share (``DAGSTER_HOME``, default ``data/dagster_home``), so runs from the command line appear
in the UI.

Dagster itself is imported only when the instance is asked for: the command-line tools that
reach this module must still start fast.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def dagster_instance(settings: Any) -> Any:
    """The persistent instance under the data dir (or ``settings.dagster_home``, from
    ``DAGSTER_HOME``). A home without ``dagster.yaml`` gets one that turns Dagster's telemetry
    off: nothing here may reach the network at run time, and Dagster would otherwise print its
    missing-file and telemetry notices on every command. An existing ``dagster.yaml`` is left as
    it is. The home is written back to ``DAGSTER_HOME``: not configuration read here, but where
    ``DagsterInstance.get()`` (and any process Dagster starts) looks for it."""
    home = Path(settings.dagster_home or settings.data_dir / "dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    from dagster import DagsterInstance

    return DagsterInstance.get()
