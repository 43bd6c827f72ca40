"""Which inbox files are new or changed since the last look (the sensor's logic, pure).

The state maps a path to its size, mtime and sha256, so unchanged files are not re-hashed
on every tick; a file whose bytes changed gets a new sha256 and so a new run key.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .extract import SUPPORTED_SUFFIXES


@dataclass(frozen=True)
class InboxFile:
    path: Path
    sha256: str


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scan_inbox(inbox: Path, state: dict[str, list]) -> tuple[list[InboxFile], dict[str, list]]:
    """(new or changed files, updated state); state values are [size, mtime_ns, sha256]."""
    changed: list[InboxFile] = []
    new_state: dict[str, list] = {}
    if not inbox.is_dir():
        return changed, state
    for path in sorted(p for p in inbox.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES):
        stat = path.stat()
        key = str(path.resolve())
        previous = state.get(key)
        if previous and previous[0] == stat.st_size and previous[1] == stat.st_mtime_ns:
            new_state[key] = previous
            continue
        sha = _sha256(path)
        new_state[key] = [stat.st_size, stat.st_mtime_ns, sha]
        if not previous or previous[2] != sha:
            changed.append(InboxFile(path, sha))
    return changed, new_state
