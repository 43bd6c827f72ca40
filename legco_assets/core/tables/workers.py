"""Geometric tables on more than one core: worker processes read a long document's pages
while the caller goes on.

Geometry needs only the bytes: for a long document (``PARALLEL_MIN_PAGES``)
:class:`GeometricTables` reads pages in worker processes too, while the caller reads the
text layer, and hands them over in page order (:func:`~.stage.iter_page_tables`) so that the
first sections can be chunked before the last page is read; the result is the same as on
one core.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..forked import cores, single_threaded
from ..read import pdf_page_count
from ..records import Table
from .geometry import geometric_tables, page_tables_of, tables_of

# -- geometry on more than one core ------------------------------------------------------------------
PARALLEL_MIN_PAGES = 100  # fewer pages: starting a worker (~0.1 s of a fresh Python) saves nothing
MAX_WORKERS = 3  # worker processes at most, besides the caller's own
# A forked worker yields the cores to the caller's own reading of the text (and to the child
# reading its later pages, ``forked.SharedRun``): the text is what the next steps wait for,
# while the tables are needed only when the sections are chunked. Measured on two cores,
# 480 pages: the chunk command about 10% faster than at the caller's niceness.
FORKED_NICENESS = 10
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # so a worker imports this very code


def _spare_cores() -> int:
    return max(0, min(MAX_WORKERS, cores() - 1))


def serve_worker(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """A spawned worker process's whole life: read ``(pdf bytes, page numbers)``, then
    :func:`_serve` them."""
    stdin = stdin or sys.stdin.buffer
    pdf_bytes, numbers = pickle.load(stdin)
    _serve(pdf_bytes, numbers, stdout or sys.stdout.buffer)


def _serve(pdf_bytes: bytes, numbers: list[int], stdout: BinaryIO) -> None:
    """Report ``(position, tables)`` for each page in order until done or killed. A page
    that fails is reported as ``(position, None)`` and ends the worker: the caller reads it
    itself."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    pdf = pdfium.PdfDocument(pdf_bytes)
    count = len(pdf)
    for position, number in enumerate(numbers):
        try:
            found = page_tables_of(raw, pdf.raw, number) if 1 <= number <= count else []
        except Exception:
            pickle.dump((position, None), stdout)
            stdout.flush()
            return
        pickle.dump((position, found), stdout)
        stdout.flush()


class _Forked:
    """A worker forked from this process, with what :class:`_Worker` uses of ``Popen``.
    Why: a fork starts reading pages at once, with this process's imports and bytes; a
    fresh Python spends about 0.1 s of a core starting up first. Only from a single-threaded
    process (the CLI, the benchmark); elsewhere (a Dagster run worker) workers are spawned."""

    stdin = None

    def __init__(self, pdf_bytes: bytes, numbers: list[int]) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report its pages, then leave without the parent's exit handlers
            code = 1
            try:
                os.close(read_fd)
                os.nice(FORKED_NICENESS)
                with os.fdopen(write_fd, "wb") as out:
                    _serve(pdf_bytes, numbers, out)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        self.pid = pid
        self.stdout = os.fdopen(read_fd, "rb")
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int:
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode


class _Worker:
    """One worker process reading one run of pages front to back; a thread collects what
    it reports (``done`` pages so far), and the caller takes pages off the run's back
    (``end``) when it has nothing else to do. Forked when ``fork``, else a fresh Python
    running :func:`serve_worker`; :meth:`start` starts the threads that talk to it."""

    def __init__(
        self, pdf_bytes: bytes, numbers: list[int], first: int, changed: threading.Condition, fork: bool
    ) -> None:
        self.numbers = numbers
        self.first = first  # position of numbers[0] in the whole list
        self.done = 0
        self.end = len(numbers)
        self.alive = True
        self.found: dict[int, list[Table]] = {}
        self._changed = changed
        self._payload = b""
        self.process: subprocess.Popen[bytes] | _Forked
        if fork:
            self.process = _Forked(pdf_bytes, numbers)
        else:
            env = dict(
                os.environ,
                PYTHONPATH=os.pathsep.join(filter(None, [_PACKAGE_ROOT, os.environ.get("PYTHONPATH")])),
            )
            command = [
                sys.executable,
                "-c",
                "from legco_assets.core.tables.workers import serve_worker; serve_worker()",
            ]
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
            )
            self._payload = pickle.dumps((pdf_bytes, numbers), protocol=pickle.HIGHEST_PROTOCOL)
        self.reader = threading.Thread(target=self._collect, daemon=True)

    def start(self) -> None:
        if self._payload:
            threading.Thread(target=self._send, args=(self._payload,), daemon=True).start()
            self._payload = b""
        self.reader.start()

    def _send(self, payload: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:  # the pipe holds 64 KiB: the worker reads the rest once it has started
            stdin.write(payload)
            stdin.close()
        except OSError:  # the worker died or was stopped: the caller reads its pages
            pass

    def _collect(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                position, found = pickle.load(stdout)
                if found is None:
                    break
                with self._changed:
                    if found:
                        self.found[self.numbers[position]] = found
                    self.done = position + 1
                    self._changed.notify_all()
        except Exception:  # end of the pipe (done, stopped or crashed)
            pass
        with self._changed:
            self.alive = False
            self._changed.notify_all()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass
        self.reader.join(timeout=5)


class GeometricTables:
    """The geometric tables of a PDF, found by worker processes while the caller goes on.

    Why: table geometry is a pure function of the bytes and the largest part of the no-LLM
    pipeline, and the rest of the pipeline runs on one core. Started early (``chunk_file``
    starts it before reading the text layer), each worker reads its run of pages front to
    back; :meth:`in_order` hands the pages over in order and, while the next one is still
    with a worker, reads pages off the back of the runs in the calling process until they
    meet, so all finish together however busy the machine is. A page both read is read the
    same way twice (a pure function). Workers are plain processes, not a ``multiprocessing``
    pool (no re-import of the caller's main script, allowed in daemon processes): forked
    from a single-threaded caller, else a fresh Python running :func:`serve_worker` (never
    a fork of a threaded process such as a Dagster run worker). They are never needed: a
    document under ``min_pages`` pages, no spare core, a worker that cannot start or dies,
    or a page that fails in a worker is read in this process, with the same code and the
    same result as :func:`geometric_tables`.
    """

    def __init__(
        self,
        pdf_bytes: bytes,
        page_numbers: Iterable[int] | None = None,
        workers: int | None = None,
        min_pages: int | None = None,
    ) -> None:
        self.pdf_bytes = pdf_bytes
        self._numbers = list(page_numbers) if page_numbers is not None else None
        self._changed = threading.Condition()
        self._workers: list[_Worker] = []
        self._opened = False
        try:
            count = pdf_page_count(pdf_bytes)
        except Exception:  # PDFium cannot open it: result() raises as geometric_tables does
            return
        self._opened = True
        if self._numbers is None:
            self._numbers = list(range(1, count + 1))
        workers = _spare_cores() if workers is None else workers
        min_pages = PARALLEL_MIN_PAGES if min_pages is None else min_pages
        if workers >= 1 and len(self._numbers) >= max(2, min_pages):
            self._start(workers)

    def _start(self, workers: int) -> None:
        numbers = self._numbers or []
        # runs of equal length, one per worker plus the caller's own share at the back
        size = -(-len(numbers) // workers)
        fork = hasattr(os, "fork") and single_threaded()  # decided before any thread starts
        try:
            for first in range(0, len(numbers), size):
                self._workers.append(
                    _Worker(self.pdf_bytes, numbers[first : first + size], first, self._changed, fork)
                )
        except OSError:  # cannot start a process here: the caller reads those pages
            pass
        for worker in self._workers:
            worker.start()

    def result(self) -> dict[int, list[Table]]:
        """Tables per page number, in page order, exactly as :func:`geometric_tables` gives."""
        return {number: tables for number, tables in self.in_order() if tables}

    def in_order(self) -> Iterator[tuple[int, list[Table]]]:
        """``(page number, tables)`` for every page asked for (``[]`` when it has none; a
        document read on one core, under ``min_pages``, gives only its pages with tables), in
        the order asked, each as soon as it is known: a caller can use the first pages while
        the workers read the last. While the next page is still with a worker, this process
        reads a page off the back of the busiest worker's run rather than wait. The workers
        are stopped at the end (or when the caller stops early)."""
        if not self._opened:
            yield from geometric_tables(self.pdf_bytes, self._numbers).items()  # raises as it does
            return
        slots = {n: (w, i) for w in self._workers for i, n in enumerate(w.numbers)}
        stolen: dict[int, list[Table]] = {}
        try:
            with _LocalReader(self.pdf_bytes) as local:
                for number in self._numbers or []:
                    yield number, self._page(number, slots.get(number), local, stolen)
        finally:
            self.close()

    def _page(
        self,
        number: int,
        slot: tuple[_Worker, int] | None,
        local: _LocalReader,
        stolen: dict[int, list[Table]],
    ) -> list[Table]:
        """One page's tables: from its worker once reported, from this process when the
        page is this process's (never given to a worker, taken off a run's back, or left
        by a worker that died); meanwhile pages are taken off the back of the runs."""
        if slot is None:
            return local.page(number)
        worker, position = slot
        while True:
            with self._changed:
                if position < worker.done:
                    return worker.found.get(number, [])
                mine = position >= worker.end or not worker.alive
            if mine:
                return stolen.pop(number) if number in stolen else local.page(number)
            victim = self._busiest()
            if victim is not None:
                taken = victim.numbers[victim.end]
                stolen[taken] = local.page(taken)

    def _busiest(self) -> _Worker | None:
        """The live worker with the most pages left, its last one now the caller's."""
        with self._changed:
            left = [(w.end - w.done, w) for w in self._workers if w.end > w.done]
            if not left:
                return None
            worker = max(left, key=lambda item: item[0])[1]
            worker.end -= 1
            return worker

    def close(self) -> None:
        """Stop the workers (what they have not reported is dropped)."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.stop()

    def __enter__(self) -> GeometricTables:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class _LocalReader:
    """The caller's own copy of the document, opened only when it reads a page."""

    def __init__(self, pdf_bytes: bytes) -> None:
        self.pdf_bytes = pdf_bytes
        self.pdf: Any = None

    def page(self, number: int) -> list[Table]:
        if self.pdf is None:
            import pypdfium2 as pdfium

            self.pdf = pdfium.PdfDocument(self.pdf_bytes)
        return next((found for _, found in tables_of(self.pdf, [number])), [])

    def __enter__(self) -> _LocalReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.pdf is not None:
            self.pdf.close()
