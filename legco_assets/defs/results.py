"""The core's checks as Dagster check results, and back: :func:`check_results` writes them,
:func:`failed_check` reads a stored evaluation back as the core's :class:`Check`; and
:func:`stage_facts`, the summary facts of a stage's materialisation. ``legco-assets ingest``
reads a run's events through these, so what it prints is what the assets wrote."""

from __future__ import annotations

from typing import Any

import dagster as dg

from legco_assets.core.quality import Check

from .names import BLOCKING, DETAILS, EVALUATED, REASON, STAGE_SUMMARY


def not_run(check_name: str, reason: str) -> dg.AssetCheckResult:
    """A check that could not run for this paper (no records to compare with). Not a pass:
    a failed WARN result whose description says it did not run and why (``evaluated``
    False). Dagster 1.13's ``@asset`` requires a result for each of its check specs (only a
    subsettable multi-asset may leave one out), so "no result" is not an option here."""
    return dg.AssetCheckResult(
        check_name=check_name,
        passed=False,
        severity=dg.AssetCheckSeverity.WARN,
        description=f"not run: {reason}",
        metadata={EVALUATED: False, REASON: reason},
    )


def check_results(checks: list[Check]) -> list[dg.AssetCheckResult]:
    """The core's checks as results: ERROR for a blocking check, WARN for the others; a
    check that could not run (``details["evaluated"]`` False) as :func:`not_run`."""
    return [
        not_run(c.name, c.details.get(REASON) or c.description)
        if c.details.get(EVALUATED) is False
        else dg.AssetCheckResult(
            check_name=c.name,
            passed=c.passed,
            description=c.description,
            severity=dg.AssetCheckSeverity.ERROR if c.blocking else dg.AssetCheckSeverity.WARN,
            metadata={DETAILS: dg.MetadataValue.json(c.details), BLOCKING: c.blocking},
        )
        for c in checks
    ]


def failed_check(evaluation: Any) -> Check | None:
    """A stored check evaluation (``AssetCheckEvaluation``) as the core's check when it
    failed; None for a pass, and for a check that could not run (``evaluated`` False: no
    finding about the paper)."""
    meta = evaluation.metadata
    if evaluation.passed or (EVALUATED in meta and meta[EVALUATED].value is False):
        return None
    details = meta.get(DETAILS)
    blocking = bool(BLOCKING in meta and meta[BLOCKING].value)
    return Check(
        evaluation.check_name, False, evaluation.description or "", details.value if details else {}, blocking
    )


def stage_facts(asset: str, metadata: dict[str, Any]) -> list[tuple[str, Any]]:
    """The summary facts (:data:`STAGE_SUMMARY`) of one materialisation of ``asset``."""
    return [(key, metadata[key].value) for key in STAGE_SUMMARY.get(asset, ()) if key in metadata]
