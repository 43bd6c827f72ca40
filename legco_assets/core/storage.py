"""Where the data lives: a local folder, or an object store named by an fsspec URL
(``s3://bucket/prefix``, ``gs://…``, ``file://…``) read and written through
``universal-pathlib``, so a run worker needs no shared file system.

A local path stays a plain :class:`pathlib.Path` and behaves exactly as before; a URL
becomes a :class:`upath.UPath` with the same ``/``, ``read_text``, ``exists``… The few
things that differ between the two are here, one function each:

- writing whole (:func:`write_whole`): locally a temp file and a rename; in an object store
  one PUT, so an object appears whole or not at all (a killed worker leaves nothing a
  reader trusts);
- reading whole (:func:`read_whole`): in an object store one GET, so a file another
  worker rewrites meanwhile is read as the old content or the new (a buffered read checks
  the ETag between requests and fails when the object was replaced);
- creating only if absent (:func:`create_new`): ``O_EXCL`` locally, a conditional PUT
  (``If-None-Match: *``) in S3;
- removing a folder, and showing a path to a person.

Endpoint and keys come from the standard variables (``AWS_ENDPOINT_URL_S3`` /
``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``), which botocore
reads itself; nothing here takes a credential.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from upath import UPath

    StorePath: TypeAlias = Path | UPath  # a local path or an object-store path
else:
    # upath (and fsspec, asyncio under it: ~25 ms) is imported when a URL is first named, so a
    # command over local files does not pay for object storage at start-up
    StorePath = Any


def is_store_path(value: object) -> bool:
    """Whether ``value`` is a path of upath's (none can exist before upath is imported)."""
    upath = sys.modules.get("upath")
    return upath is not None and isinstance(value, upath.UPath)


def location(value: str | os.PathLike[str]) -> StorePath:
    """The path ``value`` names: a URL (``scheme://…``) in its store, anything else a local
    path. Listings are not cached, so a worker sees what another just wrote."""
    if is_store_path(value):
        return value
    text = str(value)
    if "://" not in text:
        return Path(text)
    from upath import UPath

    return UPath(text, use_listings_cache=False)


def is_remote(path: StorePath) -> bool:
    """Whether ``path`` is in a store reached through fsspec (a URL), not a local path."""
    return is_store_path(path) and not isinstance(path, Path)


def _in_local_fs(path: UPath) -> bool:
    return path.protocol in ("file", "local", "")


def write_whole(path: StorePath, data: bytes | str) -> None:
    """Write ``data`` so that a reader sees the old content or the new, never part of it."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if is_remote(path) and not _in_local_fs(path):
        path.fs.pipe_file(path.path, raw)  # one PUT: whole or not at all
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_bytes(raw)
    if is_remote(path):
        path.fs.mv(tmp.path, path.path)
    else:
        tmp.replace(path)


def read_whole(path: StorePath) -> bytes:
    """The bytes at ``path`` as one version of the file, even while another worker rewrites
    it (:func:`write_whole`'s counterpart). ``FileNotFoundError`` when nothing is there."""
    if is_remote(path) and not _in_local_fs(path):
        return bytes(path.fs.cat_file(path.path))  # one GET of a small file
    return path.read_bytes()


def create_new(path: StorePath, data: bytes) -> bool:
    """Write ``data`` to ``path`` only if nothing is there (True), atomically against every
    other writer; False when something already was."""
    try:
        if is_remote(path):
            with path.fs.open(path.path, "xb") as handle:
                handle.write(data)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "xb") as handle:
                handle.write(data)
        return True
    except FileExistsError:
        return False
    except OSError as error:
        if _precondition_failed(error) or path.exists():
            return False
        raise


def _precondition_failed(error: OSError) -> bool:
    """Whether S3 refused a conditional write because an object was there. s3fs names
    that ``FileExistsError`` only when the server says which condition failed; servers
    that do not (SeaweedFS) reach here as a plain ``OSError`` whose cause carries the code.
    Asking ``exists()`` afterwards is no substitute: the holder may have let go meanwhile."""
    response = getattr(error.__cause__, "response", None) or {}
    return response.get("Error", {}).get("Code") == "PreconditionFailed"


def remove_tree(path: StorePath) -> None:
    """Delete a folder (or prefix) and everything under it; nothing there is no error."""
    if not is_remote(path):
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.fs.rm(path.path, recursive=True)


def shown(path: StorePath) -> str:
    """How a path is shown to a person (the UI's metadata, a log line): absolute when local,
    the URL itself when not."""
    return str(path) if is_remote(path) else str(Path(path).resolve())


_STORE_MODULES = frozenset({"botocore", "aiobotocore", "s3fs", "aiohttp", "gcsfs", "adlfs", "fsspec"})


def store_error(exc: BaseException) -> str | None:
    """The one-line reason when ``exc`` is the object store's (unreachable, refused, access
    denied: raised by fsspec's client or behind one of its errors), else None. An outage is
    an expected failure: the stage says so in one line, and what earlier stages wrote is
    still there for the re-run."""
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__module__.split(".")[0] in _STORE_MODULES:
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            return f"object store error: {line}"
        seen = seen.__cause__ or seen.__context__
    return None
