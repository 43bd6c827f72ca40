"""The persistent Dagster instance that ``legco-assets ingest``, ``lineage`` and ``dagster dev``
share (``DAGSTER_HOME``, default ``data/dagster_home``), so runs from the command line appear
in the UI, and the code location those runs belong to (:func:`runs_of_the_code_location`), so
they appear on the Overview timeline too.

Dagster itself is imported only when the instance is asked for: the command-line tools that
reach this module must still start fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DAGSTER_YAML = """\
telemetry:
  enabled: false
instance_class:
  module: legco_assets.defs.storage
  class: LocalInstance
"""
WRITTEN_BEFORE = ("telemetry:\n  enabled: false\n",)  # what earlier versions wrote for a new home
LOCATION_NAME = "legco_assets"  # workspace.yaml's location_name
LOCATION_MODULE = "legco_assets.definitions"  # and its python_module


def dagster_instance(settings: Any) -> Any:
    """The persistent instance under the data dir when it is local (``data/`` here when it is an
    object store; or ``settings.dagster_home``, from ``DAGSTER_HOME``).

    A home without ``dagster.yaml`` gets :data:`DAGSTER_YAML`: Dagster's telemetry off
    (nothing here may reach the network at run time, and Dagster would otherwise print its
    missing-file and telemetry notices on every command), and :class:`.storage.LocalInstance`,
    Dagster's local storage reusing its connections. An existing ``dagster.yaml`` is left as
    it is, unless it is the one an earlier version wrote. The home is written back to
    ``DAGSTER_HOME``: not configuration read here, but where ``DagsterInstance.get()`` (and
    any process Dagster starts) looks for it."""
    home = Path(settings.dagster_home or settings.local_dir / "dagster_home").resolve()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists() or config.read_text(encoding="utf-8") in WRITTEN_BEFORE:
        config.write_text(DAGSTER_YAML, encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home)
    from dagster import DagsterInstance

    return DagsterInstance.get()


@contextmanager
def runs_of_the_code_location(instance: Any) -> Iterator[None]:
    """Runs the command line creates on ``instance`` meanwhile (``execute_in_process``) carry
    the origin of the code location ``dagster dev`` loads (workspace.yaml: location
    ``legco_assets``, its one repository, the job's name).

    Why: the Overview timeline of Dagster 1.13 places a run by its ``remote_job_origin`` (the
    GraphQL ``Run.repositoryOrigin``), which only runs launched through a code location have;
    ``execute_in_process`` creates its run without one, so the CLI's runs were in the Runs list
    but missing from the timeline. ``execute_in_process`` takes no origin, so its call of
    ``create_run_for_job`` gets it here, on this instance object only, for this block."""
    from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
    from dagster._core.remote_origin import (
        ManagedGrpcPythonEnvCodeLocationOrigin,
        RemoteJobOrigin,
        RemoteRepositoryOrigin,
    )
    from dagster._core.types.loadable_target_origin import LoadableTargetOrigin

    repository = RemoteRepositoryOrigin(
        ManagedGrpcPythonEnvCodeLocationOrigin(
            LoadableTargetOrigin(executable_path=sys.executable, module_name=LOCATION_MODULE),
            location_name=LOCATION_NAME,
        ),
        SINGLETON_REPOSITORY_NAME,
    )
    create = instance.create_run_for_job

    def with_origin(job_def: Any, **kwargs: Any) -> Any:
        kwargs["remote_job_origin"] = kwargs.get("remote_job_origin") or RemoteJobOrigin(
            repository, job_def.name
        )
        return create(job_def=job_def, **kwargs)

    instance.create_run_for_job = with_origin
    try:
        yield
    finally:
        del instance.create_run_for_job
