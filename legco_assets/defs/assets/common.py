"""What the assets of every stage share: the env-derived defaults of their run config, a
stage's data version, check results and Markdown tables for the UI."""

from typing import Any, Callable

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.quality import Check
from legco_assets.core.settings import Settings

from ..failures import reasons_as_failures
from ..lineage import digest
from ..partitions import documents_partitions

DEFAULTS = Settings.from_env()
COUNCIL_COLUMNS = ["kind", "asker", "parent"]  # a Hansard's questions: main | supplementary | written


def paper_asset(group: str, kinds: set[str], code_version: str, **spec: Any) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
    """``@dg.asset`` for one stage of one paper: every asset of the graph is partitioned by
    document, sits in its stage's group with a code version (the UI shows what a code change
    made stale), and shows the core's expected failures as their one-line reason
    (:func:`reasons_as_failures`). ``spec`` is the rest of ``dg.asset``'s arguments."""

    def decorate(fn: Callable[..., Any]) -> dg.AssetsDefinition:
        return dg.asset(partitions_def=documents_partitions, group_name=group, kinds=kinds, code_version=code_version, **spec)(
            reasons_as_failures(fn)
        )

    return decorate


def check_results(checks: list[Check], severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR) -> list[dg.AssetCheckResult]:
    return [
        dg.AssetCheckResult(
            check_name=c.name, passed=c.passed, severity=severity, description=c.description,
            metadata={"details": dg.MetadataValue.json(c.details)},
        )
        for c in checks
    ]


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    return to_markdown(header, [[str(c) for c in row] for row in rows])


def written_version(settings: Settings, document_id: str, *names: str) -> dg.DataVersion:
    """The data version of a stage: a hash of the files it wrote for this paper (lineage.py)."""
    art = pipeline.Artifacts(settings, document_id)
    return digest(art.path(name) for name in names)
