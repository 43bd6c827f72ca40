"""Document ids and the key → file index.

A partition key must be readable and stable across re-runs, and Dagster keys accept CJK, so
the id is the file name's stem, lower-cased, with runs of other characters turned into
``-``. The index file (``documents/index.json`` under the data dir) keeps the explicit
key → path mapping and each key's known versions; two different files with the same stem
get a short hash of their path appended.

The same bytes are one paper: :meth:`DocumentIndex.claim` gives a file whose
sha256 a document holds now that document's id, and records the file's path on it as
another name (``also_named``), so no second partition indexes the same text. A changed file
under a name already known stays that document (a new version), as before.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..markers import CJK
from ..storage import StorePath, location, read_whole, shown, write_whole
from ..store_lock import held

_KEEP = re.compile(f"[^0-9a-z{CJK}]+")


def file_sha256(path: StorePath) -> str:
    """The file's sha256, read in blocks: what tells one paper's bytes from another's."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def slug(path: str | StorePath) -> str:
    stem = unicodedata.normalize("NFKC", location(path).stem).lower()
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
    # the bytes this document holds now, as last seen (claimed by the sensor, ``ingest`` or the
    # feed before its run, then recorded by ``source_document``); None in an index made before it
    sha256: str | None = None
    # other files with the same bytes, taken as this document rather than a partition of their own
    also_named: list[str] = field(default_factory=list)

    def holds(self, sha256: str) -> bool:
        """Whether these are the bytes the document holds now (its latest version, or the
        bytes claimed for it before its first run)."""
        return (self.sha256 or (self.versions[-1] if self.versions else None)) == sha256


@dataclass(frozen=True)
class Claim:
    """What :meth:`DocumentIndex.claim` made of a file: its document, and whether the file is
    only another name of it (its bytes were already that document's)."""

    document_id: str
    same_bytes: bool = False
    new_name: bool = False  # this claim recorded the file as another name (not known before)


class DocumentIndex:
    """The persistent key → file mapping (one small JSON file)."""

    def __init__(self, documents_dir: StorePath):
        self.path = documents_dir / "index.json"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the index for one read-modify-write, across threads, processes and machines:
        the sensor, the CLI and every run's ``source_document`` step (each its own process
        with the multiprocess executor, perhaps on another machine) update the same file,
        and without a lock one process's save drops what another just registered. A file
        lock on a local folder, a lock object in an object store (:mod:`..store_lock`)."""
        with held(self.path.with_name(self.path.name + ".lock")):
            yield

    def _load(self) -> dict[str, DocumentEntry]:
        try:
            raw: dict[str, Any] = json.loads(read_whole(self.path))
        except FileNotFoundError:
            return {}
        return {k: DocumentEntry(**v) for k, v in raw.items()}

    def _save(self, entries: dict[str, DocumentEntry]) -> None:
        data = {k: asdict(v) for k, v in sorted(entries.items())}
        write_whole(self.path, json.dumps(data, ensure_ascii=False, indent=1))

    def register(self, path: str | Path) -> str:
        """The document id for ``path`` (its own, or the one it is another name of), adding
        it to the index if new."""
        resolved = shown(location(path))
        with self._locked():
            entries = self._load()
            known = _named(entries, resolved)
            if known is not None:
                return known
            key = _add(entries, path, resolved)
            self._save(entries)
            return key

    def claim(self, path: str | Path, sha256: str) -> Claim:
        """The document ``path`` with these bytes is, deciding by bytes first: a file known
        by this path is that document (changed bytes: a new version of it); a file another
        document holds the bytes of is that document, its path recorded in ``also_named``;
        any other file is a new document. The bytes are noted on the document, so a copy
        that arrives before the first run is recognised too."""
        resolved = shown(location(path))
        with self._locked():
            entries = self._load()
            own = next((e for e in entries.values() if e.path == resolved), None)
            if own is not None:
                if own.sha256 != sha256:
                    own.sha256 = sha256
                    self._save(entries)
                return Claim(own.document_id)
            alias = next((e for e in entries.values() if resolved in e.also_named), None)
            if alias is not None and alias.holds(sha256):
                return Claim(alias.document_id, same_bytes=True)
            if alias is not None:  # the other name now holds other bytes: no longer that paper
                alias.also_named.remove(resolved)
            twin = next((e for e in entries.values() if e.holds(sha256)), None)
            if twin is not None:
                twin.also_named.append(resolved)
                self._save(entries)
                return Claim(twin.document_id, same_bytes=True, new_name=True)
            key = _add(entries, path, resolved)
            entries[key].sha256 = sha256
            self._save(entries)
            return Claim(key)

    def holding(self, sha256: str) -> str | None:
        """The document that holds these bytes now, if any."""
        return next((k for k, e in self._load().items() if e.holds(sha256)), None)

    def record_version(self, document_id: str, sha256: str) -> tuple[int, str | None]:
        """Note a version; returns (its 1-based number, the previous latest sha or None)."""
        with self._locked():
            entries = self._load()
            entry = entries[document_id]
            previous = entry.versions[-1] if entry.versions else None
            if sha256 not in entry.versions or entry.sha256 != sha256:
                entry.versions += [] if sha256 in entry.versions else [sha256]
                entry.sha256 = sha256  # the bytes it holds now, also when an old version returns
                self._save(entries)
            return entry.versions.index(sha256) + 1, previous

    @contextmanager
    def pairing(self) -> Iterator[None]:
        """Hold the pairing of counterparts (its own lock file, apart from the index's): two
        versions' ``vector_index`` runs may finish together, and the one that links last must
        see both versions' chunks, or it would undo the other's links."""
        with held(self.path.with_name("counterparts.lock")):
            yield

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

    def remove(self, document_id: str) -> DocumentEntry | None:
        """Forget a document (:mod:`legco_assets.core.forgetting`): its entry goes, and a
        partner paired with it loses the pairing. The removed entry, or None when unknown."""
        with self._locked():
            entries = self._load()
            entry = entries.pop(document_id, None)
            if entry is None:
                return None
            for other in entries.values():
                if other.counterpart and other.counterpart.get("document_id") == document_id:
                    other.counterpart = None
            self._save(entries)
            return entry

    def remove_version(self, document_id: str, sha256: str) -> bool:
        """Drop one past version's sha256 from the document's versions (True when it was there)."""
        with self._locked():
            entries = self._load()
            entry = entries.get(document_id)
            if entry is None or sha256 not in entry.versions:
                return False
            entry.versions.remove(sha256)
            self._save(entries)
            return True

    def get(self, document_id: str) -> DocumentEntry | None:
        return self._load().get(document_id)

    def all(self) -> dict[str, DocumentEntry]:
        return self._load()


def _named(entries: dict[str, DocumentEntry], resolved: str) -> str | None:
    """The document known by this path, as its file or as another name of it."""
    for key, entry in entries.items():
        if entry.path == resolved:
            return key
    return next((k for k, e in entries.items() if resolved in e.also_named), None)


def _add(entries: dict[str, DocumentEntry], path: str | Path, resolved: str) -> str:
    """A new entry for the file, keyed by its slug (with a short hash of its path when
    another file already has that slug)."""
    key = slug(path)
    if key in entries:
        key = f"{key}-{hashlib.sha1(resolved.encode()).hexdigest()[:6]}"
    entries[key] = DocumentEntry(document_id=key, path=resolved)
    return key
