"""One read-modify-write at a time, across threads, processes and machines, wherever the
data lives (:mod:`.storage`).

On a local folder this is ``flock`` on a lock file beside the data, as before. In an object
store there is no file lock, so the lock is an object created only if absent (a conditional
PUT): whoever creates it holds it, and deletes it when done. A worker killed while holding
it leaves it behind; a lock older than ``stale_after_s`` (by the time its holder wrote in
it) is taken over, so a dead worker delays the others by that much at most. What is held
here is short (a few small reads and writes), so a live holder never gets near that age.
One gap is known: two waiters that find a dead holder's lock at the same instant may both
delete it and both create theirs, one after the other, and both go on (an object store
without conditional deletes cannot tell them apart). It needs a dead holder and two waiters
within milliseconds; the index's read-modify-write is then at worst one lost update.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from .storage import StorePath, create_new, is_remote

STALE_AFTER_S = 60.0
_POLL_S = 0.05
_threads: dict[str, threading.Lock] = {}
_threads_guard = threading.Lock()


def _thread_lock(lock: StorePath) -> threading.Lock:
    with _threads_guard:
        return _threads.setdefault(str(lock), threading.Lock())


class LockBusy(Exception):
    """Another holder has the lock and the caller asked not to wait."""


@contextmanager
def held(lock: StorePath, stale_after_s: float = STALE_AFTER_S, wait: bool = True) -> Iterator[None]:
    """Hold ``lock`` (a path used only as the lock) for the body; ``wait=False``: raise
    :class:`LockBusy` at once when someone else holds it."""
    guard = _thread_lock(lock)
    if not guard.acquire(blocking=wait):
        raise LockBusy(str(lock))
    try:
        with _lease(lock, stale_after_s, wait) if is_remote(lock) else _flock(lock, wait):
            yield
    finally:
        guard.release()


@contextmanager
def _flock(lock: StorePath, wait: bool) -> Iterator[None]:
    import fcntl

    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise LockBusy(str(lock)) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _stamp() -> bytes:
    owner = f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"
    return json.dumps({"owner": owner, "at": time.time()}).encode()


def _try_lease(lock: StorePath, stale_after_s: float) -> bool:
    """Take the object-store lock if free or stale (True), without waiting."""
    if create_new(lock, _stamp()):
        return True
    if _age(lock) > stale_after_s:
        lock.unlink(missing_ok=True)
        return create_new(lock, _stamp())
    return False


def _age(lock: StorePath) -> float:
    """Seconds since the holder took the lock (0 when it is gone or unreadable: try again)."""
    try:
        return time.time() - float(json.loads(lock.read_bytes())["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


@contextmanager
def _lease(lock: StorePath, stale_after_s: float, wait: bool) -> Iterator[None]:
    while not _try_lease(lock, stale_after_s):
        if not wait:
            raise LockBusy(str(lock))
        time.sleep(_POLL_S)
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
