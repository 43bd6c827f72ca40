"""Document ids and the key → file index.

A partition key must be readable and stable across re-runs, and Dagster keys accept CJK, so
the id is the file name's stem, lower-cased, with runs of other characters turned into
``-``. The index file (``documents/index.json`` under the data dir) keeps the explicit
key → path mapping and each key's known versions; two different files with the same stem
get a short hash of their path appended.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..artifacts import atomic_write_text
from ..markers import CJK

_KEEP = re.compile(f"[^0-9a-z{CJK}]+")
_LOCK = threading.Lock()
_PAIRING_LOCK = threading.Lock()


def slug(path: str | Path) -> str:
    stem = unicodedata.normalize("NFKC", Path(path).stem).lower()
    key = _KEEP.sub("-", stem).strip("-")[:80]
    return key or "document"


@dataclass
class DocumentEntry:
    document_id: str
    path: str
    versions: list[str] = field(default_factory=list)  # sha256 of each version seen, oldest first
    # the other language's version, as last judged (core/sources/counterparts.py): its document id and
    # the decision's metadata (paired or not, and why); None before any counterpart was proposed
    counterpart: dict[str, Any] | None = None


class DocumentIndex:
    """The persistent key → file mapping (one small JSON file)."""

    def __init__(self, documents_dir: Path):
        self.path = documents_dir / "index.json"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the index for one read-modify-write, across threads *and* processes: the
        sensor, the CLI and every run's ``source_document`` step (each its own process with
        the multiprocess executor) update the same file, and without a file lock one
        process's save drops what another just registered."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK, open(self.path.with_name(self.path.name + ".lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _load(self) -> dict[str, DocumentEntry]:
        if not self.path.exists():
            return {}
        raw: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        return {k: DocumentEntry(**v) for k, v in raw.items()}

    def _save(self, entries: dict[str, DocumentEntry]) -> None:
        data = {k: asdict(v) for k, v in sorted(entries.items())}
        atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1))

    def register(self, path: str | Path) -> str:
        """The document id for ``path``, adding it to the index if new."""
        resolved = str(Path(path).resolve())
        with self._locked():
            entries = self._load()
            for key, entry in entries.items():
                if entry.path == resolved:
                    return key
            key = slug(path)
            if key in entries:
                key = f"{key}-{hashlib.sha1(resolved.encode()).hexdigest()[:6]}"
            entries[key] = DocumentEntry(document_id=key, path=resolved)
            self._save(entries)
            return key

    def record_version(self, document_id: str, sha256: str) -> tuple[int, str | None]:
        """Note a version; returns (its 1-based number, the previous latest sha or None)."""
        with self._locked():
            entries = self._load()
            entry = entries[document_id]
            previous = entry.versions[-1] if entry.versions else None
            if sha256 not in entry.versions:
                entry.versions.append(sha256)
                self._save(entries)
            return entry.versions.index(sha256) + 1, previous

    @contextmanager
    def pairing(self) -> Iterator[None]:
        """Hold the pairing of counterparts (its own lock file, apart from the index's): two
        versions' ``vector_index`` runs may finish together, and the one that links last must
        see both versions' chunks, or it would undo the other's links."""
        import fcntl

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _PAIRING_LOCK, open(self.path.with_name("counterparts.lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def set_counterpart(self, document_id: str, partner: str | None, decision: dict[str, Any] | None) -> None:
        """Record a pairing decision on both entries (``partner`` None: this document has
        none now, and whoever it was paired with loses it)."""
        with self._locked():
            entries = self._load()
            for entry in entries.values():
                linked = entry.counterpart and entry.counterpart.get("document_id") == document_id
                if linked and entry.document_id != partner:
                    entry.counterpart = None
            entries[document_id].counterpart = (
                {"document_id": partner, **(decision or {})} if partner else None
            )
            if partner and partner in entries:
                entries[partner].counterpart = {"document_id": document_id, **(decision or {})}
            self._save(entries)

    def get(self, document_id: str) -> DocumentEntry | None:
        return self._load().get(document_id)

    def all(self) -> dict[str, DocumentEntry]:
        return self._load()
