"""Stage ``sources`` (core/sources): ``source_document``, the registered file, with where the
LegCo feed got it and its other-language version."""

from typing import Any
from urllib.parse import quote

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.settings import Settings
from legco_assets.core.sources import DocumentIndex, counterpart_metadata

from ..lineage import upstream_metadata
from ..resources import LegcoSettings
from .common import paper_asset


def _origin_metadata(origin: dict[str, str] | None) -> dict[str, Any]:
    """Where the LegCo feed got the paper, so lineage shows it (absent for inbox drops)."""
    if not origin:
        return {}
    return {
        "source_url": dg.MetadataValue.url(origin["source_url"]),
        "meeting_date": origin["meeting_date"],
        "hansard_type": origin["hansard_type"],
        "hansard_id": origin["hansard_id"],
    }


@paper_asset(
    "ingest",
    {"pdf", "python"},
    "3",
    description="The registered file: sha256, pages, language, title; its bytes are snapshotted and its text "
    "layer read once.",
)
def source_document(context: dg.AssetExecutionContext, legco: LegcoSettings) -> dg.MaterializeResult:
    info = pipeline.stage_source(legco.settings(), context.partition_key)
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(info.path),
            "filename": info.filename,
            "sha256": info.sha256,
            "pages": info.pages,
            "language": info.language,
            "title": info.title,
            "kind": info.kind,
            "size_bytes": info.size_bytes,
            "version": info.version,
            **_origin_metadata(info.origin),
            **same_bytes_metadata(legco.settings(), context.partition_key),
            **counterpart_ui_metadata(legco.settings(), context.partition_key),
            **upstream_metadata(context),
        },
        data_version=dg.DataVersion(info.sha256),
    )


def same_bytes_metadata(settings: Settings, document_id: str) -> dict[str, Any]:
    """The other files with this paper's bytes (no partitions of their own), as a line of the
    partition's own metadata: the sensor's tick says it once, in a tooltip; the partition's
    page keeps it. A name claimed after this materialisation is on the page as an observation
    (``another_name``)."""
    entry = DocumentIndex(settings.documents_dir).get(document_id)
    names = entry.also_named if entry else []
    if not names:
        return {}
    shown = ", ".join(name.rsplit("/", 1)[-1] for name in names)
    return {"same_bytes": f"the same bytes as this partition's file, no partition of their own: {shown}"}


def counterpart_ui_metadata(settings: Settings, document_id: str) -> dict[str, Any]:
    """The other-language version as the UI shows it: its partition key, linked to its page."""
    meta: dict[str, Any] = dict(counterpart_metadata(settings, document_id))
    other = meta.get("counterpart_document_id")
    if other:
        meta["counterpart"] = dg.MetadataValue.md(
            f"[{other}](/assets/source_document?view=partitions&partition={quote(other)})"
        )
    return meta
