"""Which inbox files are new or changed since the last look, and which are skipped and why
(the sensor's logic and ``ingest DIR``'s, pure).

The state maps a path to its size, mtime and sha256, so unchanged files are not re-hashed
on every tick; a file whose bytes changed gets a new sha256 and so a new run key.

:func:`skip_reason` is the one place that decides whether a file is left out: an unsupported
type, the ``LEGCO_INBOX_INCLUDE`` / ``LEGCO_INBOX_EXCLUDE`` globs, the ``LEGCO_MAX_FILE_MB`` and
``LEGCO_MAX_PAGES`` caps. It runs before a partition exists, so a skipped file is never half
ingested, and both the sensor and the CLI name it with the same reason. Hidden files and
folders (``.DS_Store``, the feed's ``.…part`` downloads in progress) are not papers and are
passed over without a word.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from ..read import SUPPORTED_SUFFIXES
from ..settings import Settings
from ..storage import StorePath, is_remote, shown
from .documents import file_sha256

MB = 1024 * 1024


@dataclass(frozen=True)
class InboxFile:
    path: StorePath
    sha256: str


@dataclass(frozen=True)
class SkippedFile:
    path: StorePath
    reason: str


@dataclass
class InboxScan:
    """One look at the inbox: files to ingest, files newly skipped (or skipped for a new
    reason, so a log names each once, not on every tick), and the state for the next look."""

    changed: list[InboxFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    state: dict[str, list] = field(default_factory=dict)


def _first_match(relative: str, patterns: Iterable[str]) -> str | None:
    """The first glob that matches the file's path under the folder or its bare name
    (case-insensitive, as ``.PDF`` and ``.pdf`` are the same kind of file)."""
    rel = relative.lower()
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        p = pattern.lower()
        if fnmatchcase(rel, p) or fnmatchcase(name, p):
            return pattern
    return None


def _pdf_pages(path: StorePath) -> int | None:
    """Page count without reading the whole file; None when PDFium cannot open it (the
    ingest then reports the real reason: encrypted, corrupt…)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(path.read_bytes() if is_remote(path) else str(path))
    except Exception:  # noqa: BLE001 - any open failure is the ingest's to report
        return None
    try:
        return len(pdf)
    finally:
        pdf.close()


def unsupported_reason(path: StorePath) -> str | None:
    if path.suffix.lower() in SUPPORTED_SUFFIXES:
        return None
    supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
    return f"unsupported file type {path.suffix or '(none)'} (supported: {supported})"


def skip_reason(path: StorePath, settings: Settings, relative: str | None = None) -> str | None:
    """Why ``path`` is not ingested, or None when it is.

    ``relative`` is its path under the folder being scanned; the include/exclude globs
    choose among a folder's files, so they apply only then (a file named by hand is taken
    whatever its name). Type and caps apply to every file. A file that cannot be read is
    not skipped here: the ingest reports why it cannot read it.
    """
    reason = unsupported_reason(path)
    if reason:
        return reason
    if relative is not None:
        if settings.inbox_include and not _first_match(relative, settings.inbox_include):
            return f"not matched by LEGCO_INBOX_INCLUDE ({','.join(settings.inbox_include)})"
        excluded = _first_match(relative, settings.inbox_exclude)
        if excluded:
            return f"matched by LEGCO_INBOX_EXCLUDE ({excluded})"
    if settings.max_file_mb is not None:
        try:
            size = path.stat().st_size
        except OSError:
            return None
        if size > settings.max_file_mb * MB:
            return f"{size / MB:.1f} MB, over LEGCO_MAX_FILE_MB={settings.max_file_mb:g}"
    if settings.max_pages is not None and path.suffix.lower() == ".pdf":
        pages = _pdf_pages(path)
        if pages is not None and pages > settings.max_pages:
            return f"{pages} pages, over LEGCO_MAX_PAGES={settings.max_pages}"
    return None


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


@dataclass(frozen=True)
class Listed:
    """One file of a folder's listing: its path, its path under the folder, size and mtime."""

    path: StorePath
    relative: str
    size: int
    mtime_ns: int


def folder_files(folder: StorePath) -> list[tuple[StorePath, str]]:
    """Every visible file under ``folder`` with its path relative to it, sorted."""
    return [(f.path, f.relative) for f in listing(folder)]


def listing(folder: StorePath) -> list[Listed]:
    """Every visible file under ``folder``, sorted, with its size and mtime: one listing of
    the prefix in an object store (not a request per file)."""
    if is_remote(folder):
        return _remote_listing(folder)
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if _hidden(relative):
            continue
        try:
            stat = path.stat()
        except OSError:  # gone since the listing: the next look decides
            continue
        found.append(Listed(path, relative.as_posix(), stat.st_size, stat.st_mtime_ns))
    return found


def _remote_listing(folder: StorePath) -> list[Listed]:
    root = folder.path.rstrip("/") + "/"
    found = []
    for key, info in sorted(folder.fs.find(root, detail=True).items()):
        relative = key[len(root) :] if key.startswith(root) else key.rsplit("/", 1)[-1]
        if info.get("type") != "file" or not relative or _hidden(Path(relative)):
            continue
        modified = info.get("LastModified") or info.get("mtime") or info.get("created")
        stamp = modified.timestamp() if hasattr(modified, "timestamp") else float(modified or 0)
        tag = str(info.get("ETag") or "")  # a rewrite within one second still changes it
        found.append(
            Listed(folder / relative, relative, int(info.get("size") or 0), int(stamp * 1e9) + _crc(tag))
        )
    return found


def _crc(tag: str) -> int:
    """A small number from an object's ETag, folded into its mtime: S3 dates are to the
    second, and a file replaced within that second must still read as changed."""
    import zlib

    return zlib.crc32(tag.encode()) % 1_000_000 if tag else 0


def scan_inbox(inbox: StorePath, state: dict[str, list], settings: Settings | None = None) -> InboxScan:
    """New or changed files and skipped ones; state values are ``[size, mtime_ns, sha256]``
    for a taken file and ``[size, mtime_ns, None, reason]`` for a skipped one."""
    settings = settings or Settings(inbox=inbox)
    scan = InboxScan(state=state)
    if not inbox.is_dir():
        return scan
    new_state: dict[str, list] = {}
    for listed in listing(inbox):
        path, size, mtime_ns = listed.path, listed.size, listed.mtime_ns
        key = shown(path)
        previous = state.get(key)
        unchanged = bool(previous) and previous[0] == size and previous[1] == mtime_ns
        if unchanged and previous[2] is not None:
            new_state[key] = previous
            continue
        reason = skip_reason(path, settings, listed.relative)
        if reason:
            new_state[key] = [size, mtime_ns, None, reason]
            if not (unchanged and previous[3] == reason):
                scan.skipped.append(SkippedFile(path, reason))
            continue
        sha = file_sha256(path)
        new_state[key] = [size, mtime_ns, sha]
        if not previous or previous[2] != sha:
            scan.changed.append(InboxFile(path, sha))
    scan.state = new_state
    return scan
