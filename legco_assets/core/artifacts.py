"""A paper's files under the data dir (``data/documents/<document_id>/``): what each stage
writes and the next one reads, so any stage can be re-run alone from stored upstream
results, exactly as Dagster materialises a subset.

The data dir may be a local folder or an object store (:mod:`.storage`): every file here (and
the index and the feed's state beside them) is written whole or not at all
(:func:`.storage.write_whole`), so a killed run never leaves half a file for the next to read.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .records import ChunkRecord, ExtractedDocument, Page, Section, Table
from .settings import Settings, Strategy
from .storage import StorePath, write_whole

TABLE_INDEX = "tables/index.json"


def chunks_file(strategy: Strategy) -> str:
    """The name of a strategy's chunk file: both strategies' chunks of a paper coexist."""
    return f"chunks-{strategy.value}.jsonl"


@dataclass
class SourceInfo:
    """What ``source_document`` records about one version of one file (``source.json``)."""

    document_id: str
    path: str
    filename: str
    sha256: str
    kind: str
    extractor: str
    pages: int
    language: str
    title: str
    size_bytes: int
    version: int
    previous_sha256: str | None = None
    # where the feed got it: source_url, meeting_date, hansard_type, hansard_id (+ questions)
    origin: dict[str, Any] | None = None


class Artifacts:
    """The files of one document under the data dir."""

    def __init__(self, settings: Settings, document_id: str):
        self.settings = settings
        self.document_id = document_id
        self.root = settings.documents_dir / document_id

    def path(self, name: str) -> StorePath:
        return self.root / name

    def has(self, name: str) -> bool:
        return self.path(name).exists()

    def write_json(self, name: str, data: Any) -> StorePath:
        path = self.path(name)
        write_whole(path, json.dumps(data, ensure_ascii=False, indent=1))
        return path

    def read_json(self, name: str) -> Any:
        try:  # one GET in an object store, not a HEAD first
            text = self.path(name).read_text(encoding="utf-8")
        except FileNotFoundError:
            missing = f"{self.document_id}: {name} is missing"
            raise FileNotFoundError(f"{missing}; materialise the upstream asset first") from None
        return json.loads(text)

    def source(self) -> SourceInfo:
        return SourceInfo(**self.read_json("source.json"))

    def write_source(self, info: SourceInfo) -> None:
        self.write_json("source.json", asdict(info))

    def source_file(self, filename: str) -> StorePath:
        """The snapshot of the paper's bytes (``source.pdf``, ``source.html``…)."""
        return self.path("source" + Path(filename).suffix.lower())

    def source_bytes(self) -> bytes:
        return self.source_file(self.source().filename).read_bytes()

    def pages(self) -> list[Page]:
        return ExtractedDocument.from_dict(self.read_json("page_text.json")).pages

    def sections(self) -> list[Section]:
        return [Section.from_dict(s) for s in self.read_json("structure.json")["sections"]]

    def tables(self) -> list[Table]:
        if not self.has("tables.json"):
            return []
        return [Table.from_dict(t) for t in self.read_json("tables.json")["tables"]]

    def table_summaries(self) -> list[dict[str, Any]]:
        """``tables/index.json``'s rows; none when ``page_tables`` has not written it."""
        try:
            return list(self.read_json(TABLE_INDEX)["tables"])
        except FileNotFoundError:
            return []

    def write_chunks(self, strategy: Strategy, records: list[ChunkRecord]) -> StorePath:
        """One JSON line per record (its :meth:`.ChunkRecord.to_json`, the ``chunk`` command's form)."""
        path = self.path(chunks_file(strategy))
        write_whole(path, "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records))
        return path

    def read_chunks(self, strategy: Strategy) -> list[ChunkRecord]:
        try:
            lines = self.path(chunks_file(strategy)).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            missing = f"{self.document_id}: no {strategy.value} chunks"
            raise FileNotFoundError(f"{missing}; materialise chunks first") from None
        return [ChunkRecord.from_json(json.loads(line)) for line in lines if line.strip()]
