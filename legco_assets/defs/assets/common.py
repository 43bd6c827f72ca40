"""What the assets of every stage share: the env-derived defaults of their run config, a
stage's data version, check results and Markdown tables for the UI."""

from typing import Any

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.quality import Check
from legco_assets.core.settings import Settings

from ..lineage import digest

_DEFAULTS = Settings.from_env()
COUNCIL_COLUMNS = ["kind", "asker", "parent"]  # a Hansard's questions: main | supplementary | written


def _check_results(checks: list[Check], severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR) -> list[dg.AssetCheckResult]:
    return [
        dg.AssetCheckResult(
            check_name=c.name, passed=c.passed, severity=severity, description=c.description,
            metadata={"details": dg.MetadataValue.json(c.details)},
        )
        for c in checks
    ]


def _md_table(header: list[str], rows: list[list[Any]]) -> str:
    return to_markdown(header, [[str(c) for c in row] for row in rows])


def _written(settings: Settings, document_id: str, *names: str) -> dg.DataVersion:
    """The data version of a stage: a hash of the files it wrote for this paper (lineage.py)."""
    art = pipeline.Artifacts(settings, document_id)
    return digest(art.path(name) for name in names)
