"""Lineage per document: which materialisations of the *same* paper a stage read.

Why our own record: Dagster stamps every materialisation with ``dagster/input_event_pointer/<asset>``
tags, but it fills them from the upstream asset's *latest materialisation of any partition*
(``asset_record.last_materialization_record`` in ``data_version_cache.py``, 1.13), so with one
dynamic partition per paper a ``chunks`` event points at whichever paper was ingested last.
The input *data versions* Dagster records are per partition (that is what its stale status
uses), the pointers are not. So each asset looks up, for every asset it depends on, the
latest materialisation of its own partition (and, for ``chunks``, of its own strategy) and
writes it into its metadata: asset, run id, time, data version, a link to that partition.
:func:`document_chain` reads the same records back for ``legco-assets lineage``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import dagster as dg

from legco_assets.core.settings import Strategy

STAGES = [
    "source_document",
    "page_text",
    "page_images",
    "page_tables",
    "document_structure",
    "chunks",
    "vector_index",
    "chunk_excerpts",
]
PER_STRATEGY = {"chunks", "vector_index", "chunk_excerpts"}  # materialised once per strategy (run config)
SCAN = 20  # how many of a partition's latest materialisations to look through for a strategy


def digest(paths: Iterable[Path]) -> dg.DataVersion:
    """A data version for what a stage wrote: sha256 over the files' names and bytes (a
    folder counts as its files, sorted), so it changes exactly when the output does."""
    h = hashlib.sha256()
    for path in paths:
        files = (
            sorted(p for p in path.rglob("*") if p.is_file())
            if path.is_dir()
            else [path]
            if path.exists()
            else []
        )
        for f in files:
            h.update(f.name.encode("utf-8") + b"\0" + hashlib.sha256(f.read_bytes()).digest())
    return dg.DataVersion(h.hexdigest())


def partition_url(asset: str, partition: str) -> str:
    """The UI page of one partition of an asset (relative to the UI's root)."""
    return f"/assets/{asset}?view=partitions&partition={quote(partition)}"


@dataclass
class Materialisation:
    """One materialisation of one partition, as lineage shows it."""

    asset: str
    partition: str
    run_id: str
    timestamp: float
    storage_id: int
    data_version: str | None
    code_version: str | None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def when(self) -> str:
        return datetime.fromtimestamp(self.timestamp, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    @property
    def url(self) -> str:
        return partition_url(self.asset, self.partition)

    @property
    def strategy(self) -> str | None:
        return self.metadata.get("strategy")

    def pointer(self) -> dict[str, Any]:
        """What a downstream materialisation records about this one."""
        return {
            "asset": self.asset,
            "partition": self.partition,
            "run_id": self.run_id,
            "time": self.when,
            "storage_id": self.storage_id,
            "data_version": self.data_version,
            "url": self.url,
            **({"strategy": self.strategy} if self.strategy else {}),
        }

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "time": self.when, "url": self.url}

    @classmethod
    def of(cls, record: Any) -> Materialisation:
        mat = record.asset_materialization
        tags = mat.tags or {}
        return cls(
            asset=mat.asset_key.to_user_string(),
            partition=mat.partition or "",
            run_id=record.run_id,
            timestamp=record.timestamp,
            storage_id=record.storage_id,
            data_version=tags.get("dagster/data_version"),
            code_version=tags.get("dagster/code_version"),
            metadata={k: _plain(v) for k, v in mat.metadata.items()},
        )


def _plain(value: Any) -> Any:
    """A metadata value as JSON can hold it."""
    raw = getattr(value, "value", value)
    if isinstance(raw, (str, int, float, bool, list, dict)) or raw is None:
        return raw
    return str(raw)


def latest(
    instance: dg.DagsterInstance, asset: str, partition: str, strategy: Strategy | None = None
) -> Materialisation | None:
    """The latest materialisation of ``asset`` for this partition (and this strategy, for the
    assets materialised per strategy), or None."""
    wanted = (
        strategy.value if strategy is not None and asset in PER_STRATEGY else None
    )  # as the metadata says it
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[partition]),
        limit=SCAN if wanted else 1,
    ).records
    for record in records:
        found = Materialisation.of(record)
        if wanted is None or found.strategy == wanted:
            return found
    return None


def upstream_of(context: dg.AssetExecutionContext, strategy: Strategy | None = None) -> list[Materialisation]:
    """The materialisations of this partition that the running asset reads, one per asset
    it depends on (the strategy's, for ``chunks``); an asset never materialised is left out."""
    parents = sorted(k.to_user_string() for k in context.assets_def.asset_deps[context.asset_key])
    found = (latest(context.instance, name, context.partition_key, strategy) for name in parents)
    return [m for m in found if m is not None]


def upstream_metadata(context: dg.AssetExecutionContext, strategy: Strategy | None = None) -> dict[str, Any]:
    """``upstream`` (a table with links, for a person) and ``upstream_materializations``
    (JSON, for ``legco-assets lineage``) for the running asset's materialisation."""
    found = upstream_of(context, strategy)
    rows = [
        f"| [{m.asset}]({m.url}) | [{m.run_id[:8]}](/runs/{m.run_id}) | {m.when} | "
        f"`{(m.data_version or '')[:12]}` |"
        for m in found
    ]
    table = "\n".join(
        ["| upstream (this paper) | run | materialised | data version |", "|---|---|---|---|", *rows]
    )
    return {
        "upstream": dg.MetadataValue.md(table if rows else "no upstream materialisation of this partition"),
        "upstream_materializations": dg.MetadataValue.json([m.pointer() for m in found]),
    }


# -- reading a paper's chain back (legco-assets lineage) ------------------------------------------
@dataclass
class Chain:
    """A paper's provenance: each stage's latest materialisation (per strategy where the
    stage has one), and the chunk ids stored in Chroma per strategy."""

    document_id: str
    stages: list[Materialisation]
    chunk_ids: dict[str, list[str]] = field(default_factory=dict)

    @property
    def source(self) -> Materialisation | None:
        return next((m for m in self.stages if m.asset == "source_document"), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "document_id": self.document_id,
            "stages": [m.to_json() for m in self.stages],
            "chunk_ids": self.chunk_ids,
        }


def document_chain(instance: dg.DagsterInstance, document_id: str, strategy: Strategy | None = None) -> Chain:
    """Every stage's latest materialisation of ``document_id`` (only ``strategy``'s for the
    per-strategy stages when given, else each strategy's)."""
    stages = []
    for asset in STAGES:
        wanted: list[Strategy | None] = (
            ([strategy] if strategy else list(Strategy)) if asset in PER_STRATEGY else [None]
        )
        for s in wanted:
            found = latest(instance, asset, document_id, s)
            if found is not None:
                stages.append(found)
    return Chain(document_id, stages)
