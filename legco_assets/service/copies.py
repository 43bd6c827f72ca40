"""``GET /<document id>/excerpts/<strategy>.pdf|.html``: a strategy's whole highlighted copy
of a paper, the file a stored ``chunk_file_path`` names (``…/question.pdf#page=N``), so a
link written before the per-chunk route (the Dagster UI's previews, ``query``) still opens.

Only that exact path shape is answered: anything else under the data folder (``..``, encoded
or not, the Dagster instance, Chroma, a paper's other artifacts, the stored update section or
gzip page itself) is a 404, and so is a path that resolves outside the documents folder. An
HTML page goes out as stored, gzipped, to a client that takes gzip."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from legco_assets.core.excerpts import link_bytes

CONTENT_TYPES = {".pdf": "application/pdf", ".html": "text/html; charset=utf-8"}
_NAME = re.compile(r"[A-Za-z0-9_-]+\.(pdf|html)")


def copy_path(root: Path, document: str, name: str) -> Path | None:
    """The excerpt file ``<root>/<document>/excerpts/<name>``, or None when the parts name
    anything else."""
    if not _NAME.fullmatch(name) or document in ("", ".", "..") or document.startswith("."):
        return None
    if any(ch in document for ch in "/\\\x00"):
        return None
    candidate = (root / document / "excerpts" / name).resolve()
    return candidate if candidate.is_relative_to(root.resolve()) else None


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip`` or ``*``, not at ``q=0``)."""
    for item in (accept_encoding or "").split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() in ("gzip", "x-gzip", "*"):
            q = params.strip().lower().removeprefix("q=")
            try:
                return not params.strip() or float(q) > 0
            except ValueError:
                return False
    return False


def copy_body(path: Path, gzip_ok: bool) -> tuple[bytes, str | None]:
    """What to send for ``path`` and its ``Content-Encoding``; ``FileNotFoundError`` when the
    copy is not stored."""
    if path.suffix == ".html":
        stored = path.with_name(path.name + ".gz").read_bytes()
        return (stored, "gzip") if gzip_ok else (gzip.decompress(stored), None)
    return link_bytes(path), None
