"""One dynamic partition per document; the key is the readable document id.

The same bytes are one paper: a file whose bytes a partition already holds gets
no partition of its own. The sensors and ``ingest`` say so in one line (:func:`same_bytes_line`)
and record the file as another name of that partition's paper with an observation of its
``source_document`` (:func:`another_name`), so the partition's page in the UI shows it."""

from pathlib import Path

import dagster as dg

documents_partitions = dg.DynamicPartitionsDefinition(name="documents")


def same_bytes_line(path: Path, document_id: str) -> str:
    """What the sensor's tick and ``ingest`` say of a file that is another name of a paper."""
    return (
        f"{path} has the same bytes as partition {document_id}: "
        "recorded as another name of it, no new partition"
    )


def another_name(path: Path, document_id: str, names: list[str]) -> dg.AssetObservation:
    """The observation that puts another name of the paper on its partition's page:
    ``also_named`` lists every other name the document index holds for it."""
    return dg.AssetObservation(
        asset_key="source_document",
        partition=document_id,
        description=f"also named {path.name}: the same bytes as this partition's file",
        metadata={"also_named": dg.MetadataValue.json(names), "file": dg.MetadataValue.path(str(path))},
    )
