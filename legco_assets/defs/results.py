"""The core's checks as Dagster check results, and back: :func:`check_results` writes them,
:func:`failed_check` reads a stored evaluation back as the core's :class:`Check`; and
:func:`stage_facts`, the summary facts of a stage's materialisation. ``legco-assets ingest``
reads a run's events through these, so what it prints is what the assets wrote."""

from __future__ import annotations

from typing import Any

import dagster as dg

from legco_assets.core.quality import Check
from legco_assets.core.settings import Strategy

from .names import BLOCKING, CHECKS_NOT_RUN, DETAILS, EVALUATED, REASON, STAGE_SUMMARY, STRATEGY


def not_run(checks: list[Check]) -> dict[str, str]:
    """The checks that could not run for this paper (no records to compare with:
    ``details["evaluated"]`` False), name → why. They get no result at all: a result would be
    a pass or a failure, and neither is true. Their assets are subsettable
    (:func:`~legco_assets.defs.assets.common.paper_asset` with ``checks_may_not_run``), so
    Dagster records the planned check as skipped for the partition (not executed in the UI),
    and the asset's materialisation names them and why (:func:`not_run_metadata`)."""
    return {
        c.name: c.details.get(REASON) or c.description for c in checks if c.details.get(EVALUATED) is False
    }


def not_run_metadata(skipped: dict[str, str]) -> dict[str, Any]:
    """The materialisation's ``checks_not_run`` entry: each check that could not run and why."""
    return {CHECKS_NOT_RUN: dg.MetadataValue.json(skipped)} if skipped else {}


def check_results(checks: list[Check], strategy: Strategy | None = None) -> list[dg.AssetCheckResult]:
    """The core's checks as results: ERROR for a blocking check, WARN for the others; a
    check that could not run gets none (:func:`not_run`). ``strategy``: the chunking strategy
    the checks judged (the chunk checks'), first in the metadata and leading the description,
    so the check's history tells a token result from a question one."""
    return [
        dg.AssetCheckResult(
            check_name=c.name,
            passed=c.passed,
            description=f"{strategy.value}: {c.description}" if strategy else c.description,
            severity=dg.AssetCheckSeverity.ERROR if c.blocking else dg.AssetCheckSeverity.WARN,
            metadata={
                **({STRATEGY: strategy.value} if strategy else {}),
                DETAILS: dg.MetadataValue.json(c.details),
                BLOCKING: c.blocking,
            },
        )
        for c in checks
        if c.details.get(EVALUATED) is not False
    ]


def failed_check(evaluation: Any) -> Check | None:
    """A stored check evaluation (``AssetCheckEvaluation``) as the core's check when it
    failed; None for a pass (a check that could not run has no evaluation). The description
    loses the strategy that leads it in the UI, so ``ingest`` prints the line ``chunk`` prints."""
    meta = evaluation.metadata
    if evaluation.passed or (EVALUATED in meta and meta[EVALUATED].value is False):
        return None
    details = meta.get(DETAILS)
    blocking = bool(BLOCKING in meta and meta[BLOCKING].value)
    description = evaluation.description or ""
    if STRATEGY in meta:
        description = description.removeprefix(f"{meta[STRATEGY].value}: ")
    return Check(evaluation.check_name, False, description, details.value if details else {}, blocking)


def stage_facts(asset: str, metadata: dict[str, Any]) -> list[tuple[str, Any]]:
    """The summary facts (:data:`STAGE_SUMMARY`) of one materialisation of ``asset``."""
    return [(key, metadata[key].value) for key in STAGE_SUMMARY.get(asset, ()) if key in metadata]
