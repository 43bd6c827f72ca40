"""Jobs shared with a forked child give exactly what this process alone gives.

Why: ``forked.SharedRun`` hands the back of a list of jobs to a forked copy of the process
(a long PDF's pages as read, the question chunker's sections); the pages and the chunks must
not depend on which process read or chunked them, on whether the child ran at all, or on
how it ended, and a child must never outlive the call.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from legco_assets.core import forked
from legco_assets.core.chunking import question_chunking
from legco_assets.core.pipeline import chunk_file
from legco_assets.core.read import extract_document, read_source, start_extract
from legco_assets.core.settings import Settings, Strategy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from make_long_paper import make_long_paper, make_platypus_paper  # noqa: E402

PARENT = os.getpid()


def _pid(value: int) -> tuple[int, int]:
    return value, os.getpid()


def _jobs(n: int):  # type: ignore[no-untyped-def]
    return [lambda v=v: _pid(v) for v in range(n)]


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Forking allowed whatever threads the test process runs, and the children started."""
    started: list[int] = []
    start = forked._Child.start

    def counted(jobs):  # type: ignore[no-untyped-def]
        child = start(jobs)
        if child is not None:
            started.append(child.pid)
        return child

    monkeypatch.setattr(forked, "single_threaded", lambda: True)
    monkeypatch.setattr(forked, "cores", lambda: 2)
    monkeypatch.setattr(forked._Child, "start", staticmethod(counted))
    return started


def _reaped(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_child_takes_jobs_from_the_back_and_they_come_back_in_order(forks: list[int]) -> None:
    import time

    def slow(v: int):  # type: ignore[no-untyped-def]
        return lambda: (time.sleep(0.05), _pid(v))[1]

    results = forked.run_shared([slow(v) for v in range(8)], work=10, min_work=10)
    assert [v for v, _ in results] == list(range(8))
    pids = [pid for _, pid in results]
    here = pids.index(next(p for p in pids if p != PARENT))  # the first job the child ran
    assert 0 < here < 8 and set(pids[:here]) == {PARENT} and PARENT not in pids[here:]
    assert len(forks) == 1 and _reaped(forks[0])


def test_the_slow_jobs_are_shared_wherever_they_are(forks: list[int]) -> None:
    import time

    def job(v: int, seconds: float):  # type: ignore[no-untyped-def]
        return lambda: (time.sleep(seconds), _pid(v))[1]

    # two slow jobs at the front, many quick ones behind: a split by count would leave
    # both slow ones here; taken as they go, the child gets the second
    jobs = [job(0, 0.3), job(1, 0.3)] + [job(v, 0.001) for v in range(2, 40)]
    results = forked.run_shared(jobs, work=10, min_work=10)
    assert [v for v, _ in results] == list(range(40))
    assert results[0][1] == PARENT and results[1][1] != PARENT


def test_little_work_one_job_or_no_fork_allowed_runs_here(
    forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert {pid for _, pid in forked.run_shared(_jobs(4), work=4, min_work=5)} == {PARENT}
    assert {pid for _, pid in forked.run_shared(_jobs(1), work=9, min_work=5)} == {PARENT}
    monkeypatch.setattr(forked, "single_threaded", lambda: False)  # a thread could hold a lock
    assert {pid for _, pid in forked.run_shared(_jobs(4), work=36, min_work=5)} == {PARENT}
    monkeypatch.setattr(forked, "single_threaded", lambda: True)
    monkeypatch.setattr(forked, "cores", lambda: 1)  # no core for a child
    assert {pid for _, pid in forked.run_shared(_jobs(4), work=36, min_work=5)} == {PARENT}
    assert forks == []


def test_single_threaded_counts_native_threads_too() -> None:
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not forked.single_threaded()
    finally:
        stop.set()
        thread.join()


def test_jobs_a_child_fails_or_dies_in_are_run_here(forks: list[int]) -> None:
    def fails_in_a_child() -> int:
        if os.getpid() != PARENT:
            raise RuntimeError("only in the child")
        return 7

    def dies_in_a_child() -> int:
        if os.getpid() != PARENT:
            os._exit(3)
        return 8

    assert forked.run_shared([lambda: 1, fails_in_a_child], work=1, min_work=0) == [1, 7]
    assert forked.run_shared([lambda: 1, dies_in_a_child], work=1, min_work=0) == [1, 8]
    assert len(forks) == 2 and all(_reaped(pid) for pid in forks)


def test_an_error_here_is_raised_and_the_child_does_not_outlive_it(forks: list[int]) -> None:
    import time

    def fails() -> int:
        raise ValueError("a job's own error")

    def sleeps() -> int:
        time.sleep(300)
        return 0

    with pytest.raises(ValueError, match="a job's own error"):
        forked.run_shared([fails, sleeps], work=1, min_work=0)
    assert len(forks) == 1 and _reaped(forks[0])


@pytest.fixture(scope="module")
def long_papers(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A long paper of exchanges (the fixture papers) and one of headed Chinese narrative
    (reportlab's platypus: the question chunker's sections without pairs)."""
    folder = tmp_path_factory.mktemp("long")
    return [make_long_paper(60, folder / "exchanges.pdf"), make_platypus_paper(50, folder / "narrative.pdf")]


def test_a_long_papers_chunks_are_the_same_with_and_without_the_child(
    long_papers: list[Path], forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings()
    for paper in long_papers:
        with monkeypatch.context() as patch:
            patch.setattr(forked, "cores", lambda: 1)
            alone = chunk_file(paper, Strategy.question, settings, use_llm=False)
        before = len(forks)
        monkeypatch.setattr(question_chunking, "SHARED_MIN_CHARS", 0)
        shared = chunk_file(paper, Strategy.question, settings, use_llm=False)
        assert len(forks) == before + 2, (
            paper.name
        )  # children read the later pages, chunked the later sections
        assert len(alone) > 20 and shared == alone, paper.name
    assert all(_reaped(pid) for pid in forks)


def test_a_long_pdfs_pages_read_with_the_child_are_the_pages_read_alone(
    long_papers: list[Path], forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for paper in long_papers:
        source = read_source(paper)
        with monkeypatch.context() as patch:
            patch.setattr(forked, "cores", lambda: 1)
            alone = extract_document(source)
        before = len(forks)
        shared = extract_document(source)
        assert len(forks) == before + 1, paper.name  # the child read the later pages
        assert len(alone.pages) >= 40 and shared == alone, paper.name
        assert any(p.headings for p in shared.pages), paper.name  # the typography's hints came back
    assert all(_reaped(pid) for pid in forks)


def test_a_reading_begun_and_dropped_leaves_no_child(long_papers: list[Path], forks: list[int]) -> None:
    with start_extract(read_source(long_papers[0])) as reading:
        assert reading.kind == "pdf" and len(forks) == 1
    assert _reaped(forks[0])
