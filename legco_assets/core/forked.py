"""Independent jobs shared with a forked copy of this process: the child takes them from
the back of the list while this process takes them from the front, until the two meet.

Why: ``legco-assets chunk`` on a long paper read its pages on one core (its other core ran
the table geometry) and chunked its sections on one core (the geometry done by then), while
the pages, and then the sections, are independent of each other. A fork starts at once with
everything this process holds (the open document, the sections, the tables, the loaded
tokenizer) and sends back only the results.

Only from a single-threaded process, on a machine with a core to spare: a thread that holds
a lock when the process forks leaves it held in the child for ever (a Dagster run worker, a
server); there, and for work too small to pay for a process, the jobs run here, one after
the other. Either way the results are the same: a child that fails, dies or is killed leaves
its jobs to this process, which runs them as it would have (a job's own error is raised
here, as without the fork).
"""

from __future__ import annotations

import mmap
import os
import pickle
import signal
import struct
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on (its affinity, which a container's limit may narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def single_threaded() -> bool:
    """True when this process runs one thread, native ones included (Linux says so in
    /proc): only then is forking safe (no lock can be left held in the child)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def can_fork() -> bool:
    """A fork is safe here and has a core of its own to run on."""
    return hasattr(os, "fork") and cores() >= 2 and single_threaded()


def run_shared(jobs: Sequence[Callable[[], T]], work: int, min_work: int) -> list[T]:
    """``[job() for job in jobs]``, shared with a forked child when ``work`` (what the jobs
    are expected to take, in any unit) reaches ``min_work`` and :func:`can_fork`
    (:class:`SharedRun`, started and finished at once)."""
    return SharedRun(jobs, work, min_work).results()


class SharedRun(Generic[T]):
    """``[job() for job in jobs]``, begun: when ``work`` reaches ``min_work`` and
    :func:`can_fork`, a forked child starts on the jobs from the back at once, and
    :meth:`results` takes them from the front in this process until the two meet.

    Why begun: the child must be forked before this process starts a thread (a long PDF's
    table workers), and it can be busy meanwhile. Each side says in a shared page which job
    it has taken, so jobs of very different cost (a section with tables beside a page of
    prose) end up evenly shared, whatever their order. Where both took the same job at the
    meeting point it was run twice, with the same result; whatever the child did not report
    is run here."""

    def __init__(self, jobs: Sequence[Callable[[], T]], work: int, min_work: int) -> None:
        self.jobs = jobs
        self._board: _Board | None = None
        self._child: _Child | None = None
        if len(jobs) < 2 or work < min_work or not can_fork():
            return
        board = _Board(len(jobs))
        self._child = _Child.start(lambda: board.run_back(jobs))
        if self._child is None:
            board.shared.close()
        else:
            self._board = board

    def results(self) -> list[T]:
        jobs, board, child = self.jobs, self._board, self._child
        if board is None or child is None:
            return [job() for job in jobs]
        self._board = self._child = None
        try:
            done: dict[int, T] = board.run_front(jobs)
            back = child.results()
        finally:
            child.close()
            board.shared.close()
        if isinstance(back, dict):
            done = {**back, **done}
        return [done[i] if i in done else job() for i, job in enumerate(jobs)]

    def close(self) -> None:
        """Stop a child whose results will not be asked for (the caller failed before)."""
        if self._child is not None:
            self._child.close()
        if self._board is not None:
            self._board.shared.close()
        self._board = self._child = None


class _Board:
    """Two counters in memory shared with the child (an anonymous mapping made before the
    fork): how far this process has taken jobs from the front, and the child from the back.
    Each side writes only its own counter and reads the other's before taking a job."""

    _FRONT, _BACK = 0, 8

    def __init__(self, count: int) -> None:
        self.count = count
        self.shared = mmap.mmap(-1, 16)
        struct.pack_into("q", self.shared, self._FRONT, 0)
        struct.pack_into("q", self.shared, self._BACK, count)

    def _read(self, at: int) -> int:
        return int(struct.unpack_from("q", self.shared, at)[0])

    def run_front(self, jobs: Sequence[Callable[[], T]]) -> dict[int, T]:
        done: dict[int, T] = {}
        i = 0
        while i < self.count and i < self._read(self._BACK):
            struct.pack_into("q", self.shared, self._FRONT, i + 1)
            done[i] = jobs[i]()
            i += 1
        return done

    def run_back(self, jobs: Sequence[Callable[[], T]]) -> dict[int, T]:
        done: dict[int, T] = {}
        j = self.count - 1
        while j >= 0 and j >= self._read(self._FRONT):
            struct.pack_into("q", self.shared, self._BACK, j)
            done[j] = jobs[j]()
            j -= 1
        return done


class _Child:
    """A forked child running ``work`` and writing its pickled result to a pipe."""

    def __init__(self, pid: int, read_fd: int) -> None:
        self.pid = pid
        self.read_fd = read_fd
        self.exit_code: int | None = None

    @classmethod
    def start(cls, work: Callable[[], object]) -> _Child | None:
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return None
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:  # the child: run, report, leave without the parent's exit handlers
            code = 1
            try:
                os.close(read_fd)
                payload = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write_fd, "wb") as out:
                    out.write(payload)
                code = 0
            except BaseException:  # noqa: BLE001 - any failure: the parent runs the jobs itself
                pass
            finally:
                os._exit(code)
        os.close(write_fd)
        return cls(pid, read_fd)

    def results(self) -> object:
        """The child's result once it is done; None when it failed or died."""
        with os.fdopen(self.read_fd, "rb") as pipe:
            self.read_fd = -1
            payload = pipe.read()
        if self._wait() != 0 or not payload:
            return None
        try:
            return pickle.loads(payload)
        except Exception:  # noqa: BLE001 - a torn payload: run the jobs here
            return None

    def _wait(self) -> int:
        if self.exit_code is None:
            self.exit_code = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.exit_code

    def close(self) -> None:
        """Stop the child if it still runs (this process failed or was interrupted) and
        reap it."""
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1
        if self.exit_code is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._wait()
