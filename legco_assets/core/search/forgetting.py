"""Forgetting a paper: everything the pipeline keeps of it, gone, each removal said in a line.

Why one function for both faces: the ``forget_document`` job and ``legco-assets forget`` must
remove the same things (the Dagster partition is theirs to remove, the rest is here): its
chunks in Chroma, every version and strategy (the command line's BM25 is rebuilt from the
store), its segments in the search index (a server drops them at its next look), the
BM25 cache generations that listed its chunks (the cache is keyed by content, so a stale
generation would only be pruned later, and it holds the paper's ids), its artifacts under the
data dir, excerpts included (through :mod:`legco_assets.core.storage`, so an object store too), and its entry
in the document index (under the index's lock; a paper paired with it loses the pairing, in
the index and in its stored chunks).

A past version can be forgotten alone (``DOC@<sha256 prefix>``): its archived chunks and its
place in the index's versions. The current version is the paper itself: forget the paper.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..settings import Settings
from ..sources import DocumentIndex
from ..storage import StorePath, is_remote, remove_tree, shown
from .segment_store import SegmentStore
from .vector_store import link_counterparts, with_retries

MIN_VERSION_DIGITS = 8  # a version named by fewer hex digits of its sha256 is too easy to mistake


class UnknownDocument(LookupError):
    """Nothing of the paper is stored (one line: which, and how to list the known ones)."""


@dataclass(frozen=True)
class Target:
    """What to forget: a paper (``version`` None) or one past version of it."""

    document_id: str
    version: str | None = None

    @classmethod
    def parse(cls, text: str) -> Target:
        """``DOC`` or ``DOC@<hex>`` (at least :data:`MIN_VERSION_DIGITS` digits of the sha256)."""
        document, at, version = text.strip().partition("@")
        if not document:
            raise UnknownDocument(f"{text!r}: no document id")
        if at:
            version = version.lower()
            if len(version) < MIN_VERSION_DIGITS or any(c not in "0123456789abcdef" for c in version):
                raise UnknownDocument(
                    f"{text}: a version is {MIN_VERSION_DIGITS} or more hex digits of its sha256"
                )
            return cls(document, version)
        return cls(document)

    def __str__(self) -> str:
        return f"{self.document_id}@{self.version}" if self.version else self.document_id


@dataclass
class Forgotten:
    """What was removed for one target, one line per item, as the CLI prints them and the
    job logs them."""

    target: Target
    lines: list[str] = field(default_factory=list)

    def said(self, line: str) -> None:
        self.lines.append(f"{self.target}: {line}")


def stored_anything(settings: Settings, collection: Any, document_id: str, partitions: set[str]) -> bool:
    """Whether anything of the paper is kept: a partition, an index entry, artifacts or chunks."""
    if document_id in partitions or DocumentIndex(settings.documents_dir).get(document_id) is not None:
        return True
    if (settings.documents_dir / document_id).exists():
        return True
    return bool(collection.get(where={"document_id": document_id}, limit=1, include=[])["ids"])


def check_targets(
    settings: Settings, collection: Any, texts: list[str], partitions: set[str]
) -> list[Target]:
    """The targets named by ``texts``, each checked before anything is removed: an unknown
    paper, a version it never had, or its current version is :class:`UnknownDocument`."""
    targets = []
    for text in texts:
        target = Target.parse(text)
        if not stored_anything(settings, collection, target.document_id, partitions):
            raise UnknownDocument(
                f"{target.document_id}: no such document (legco-assets documents lists them)"
            )
        if target.version:
            _version_sha(settings, target)
        targets.append(target)
    return targets


def _version_sha(settings: Settings, target: Target) -> str:
    """The full sha256 of the past version ``target`` names."""
    entry = DocumentIndex(settings.documents_dir).get(target.document_id)
    versions = entry.versions if entry else []
    matches = [v for v in versions if v.startswith(target.version or "")]
    if len(matches) != 1:
        known = ", ".join(v[:12] for v in versions) or "none recorded"
        raise UnknownDocument(f"{target}: no such version (its versions: {known})")
    current = (entry.sha256 or versions[-1]) if entry else None
    if matches[0] == current:
        raise UnknownDocument(f"{target}: the current version; forget {target.document_id} itself")
    return matches[0]


def forget(settings: Settings, collection: Any, target: Target) -> Forgotten:
    """Remove what is kept of ``target`` (checked by :func:`check_targets`); the lines say what."""
    done = Forgotten(target)
    if target.version:
        _forget_version(settings, collection, target, _version_sha(settings, target), done)
        return done
    document = target.document_id
    index = DocumentIndex(settings.documents_dir)
    entry = index.get(document)
    partner = (entry.counterpart or {}).get("document_id") if entry else None
    segments = SegmentStore.of(settings)
    if partner:  # its partner's chunks stop pointing at it (counterpart keys) before it goes
        link_counterparts(collection, document, None, segments.update)
    _delete_chunks(collection, {"document_id": document}, done)
    for removed in segments.remove(document):
        done.said(f"search index: {removed} removed")
    _forget_bm25(settings, document, done)
    folder = settings.documents_dir / document
    files, excerpts = _files(folder), _files(folder / "excerpts")
    if files:
        remove_tree(folder)
        if excerpts:
            done.said(f"excerpts: {len(excerpts)} file(s) removed")
        done.said(f"artifacts: {shown(folder)} removed ({len(files)} file(s))")
    if index.remove(document) is not None:
        done.said(f"document index: entry removed ({shown(index.path)})")
        if partner:
            done.said(f"counterpart: {partner} is no longer paired with it")
    return done


def _forget_version(
    settings: Settings, collection: Any, target: Target, sha256: str, done: Forgotten
) -> None:
    where = {"$and": [{"document_id": target.document_id}, {"content_sha256": sha256}]}
    _delete_chunks(collection, where, done)
    if DocumentIndex(settings.documents_dir).remove_version(target.document_id, sha256):
        done.said(f"document index: version {sha256[:12]} removed from its versions")


def _delete_chunks(collection: Any, where: dict[str, Any], done: Forgotten) -> None:
    got = with_retries(lambda: collection.get(where=where, include=["metadatas"]))
    if not got["ids"]:
        return
    by_strategy = Counter(str(m.get("strategy_type")) for m in got["metadatas"] or [])
    with_retries(lambda: collection.delete(ids=got["ids"]))
    each = ", ".join(f"{name} {count}" for name, count in sorted(by_strategy.items()))
    done.said(f"Chroma: {len(got['ids'])} chunk(s) removed ({each}); the keyword index follows the store")


def _forget_bm25(settings: Settings, document_id: str, done: Forgotten) -> None:
    """Remove the BM25 cache generations that list the paper's chunks (rebuilt on the next
    search from what the store holds)."""
    folder = settings.cache_dir / "bm25"
    if not folder.is_dir():
        return
    prefixes = (f"{document_id}:", f"{document_id}@")
    removed = 0
    for generation in folder.iterdir():
        try:
            ids = json.loads((generation / "rows.json").read_text(encoding="utf-8"))["ids"]
        except (OSError, ValueError, KeyError):
            continue
        if any(i.startswith(prefixes) for i in ids):
            shutil.rmtree(generation, ignore_errors=True)
            removed += 1
    if removed:
        done.said(f"keyword index: {removed} cached BM25 generation(s) that listed it removed")


def _files(folder: StorePath) -> list[str]:
    """Every file under ``folder`` (none when it is absent), local or in an object store."""
    if is_remote(folder):
        return list(folder.fs.find(folder.path)) if folder.exists() else []
    return [str(p) for p in folder.rglob("*") if p.is_file()] if folder.exists() else []
