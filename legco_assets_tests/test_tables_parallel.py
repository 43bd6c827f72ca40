"""Geometric tables on more than one core give exactly what one core gives.

Why: ``GeometricTables`` splits a long document's pages between worker processes and the
caller, and falls back to the caller for anything a worker does not deliver; the tables
(and so the chunks) must not depend on which process read a page or whether a worker ran.
The character reader skips text lines far from every grid; that must not change a
character either.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_file
from legco_assets.core.read import read_source, text_pages
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.tables import GeometricTables, find_tables, geometric_tables
from legco_assets.core.tables import page_reader as page_reader_module
from legco_assets.core.tables import workers as workers_module

from .conftest import FIXTURES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from make_long_paper import make_long_paper  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
PDFS = sorted(FIXTURES.glob("*.pdf")) + sorted(SAMPLES.glob("*.pdf"))


@pytest.fixture(scope="module")
def long_paper(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """60 pages of the fixture papers (tables on many of them), as the benchmark makes."""
    return make_long_paper(60, tmp_path_factory.mktemp("long") / "long.pdf").read_bytes()


def parallel(data: bytes, numbers: list[int] | None = None, workers: int = 1) -> dict:
    with GeometricTables(data, numbers, workers=workers, min_pages=2) as geometry:
        return geometry.result()


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.stem)
def test_worker_processes_find_the_same_tables_as_one_process(path: Path) -> None:
    data = path.read_bytes()
    assert parallel(data) == geometric_tables(data)


def test_long_paper_same_tables_in_the_same_order_with_one_or_two_workers(long_paper: bytes) -> None:
    serial = geometric_tables(long_paper)
    assert sum(len(t) for t in serial.values()) > 20
    for workers in (1, 2):
        found = parallel(long_paper, workers=workers)
        assert found == serial and list(found) == list(serial)
    with GeometricTables(long_paper, workers=1, min_pages=2) as geometry:  # the worker really reads
        worker = geometry._workers[0]
        deadline = time.monotonic() + 60
        while worker.done < 10 and worker.alive and time.monotonic() < deadline:
            time.sleep(0.01)
        assert worker.done >= 10
        assert geometry.result() == serial
    some = [50, 3, 17, 18, 999, 4, 41]  # any order, and a page the document does not have
    assert parallel(long_paper, some) == geometric_tables(long_paper, some)


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "spawned"])
def test_workers_are_forked_only_from_a_single_threaded_process(
    long_paper: bytes, forked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers_module, "single_threaded", lambda: forked)
    with GeometricTables(long_paper, workers=2, min_pages=2) as geometry:
        kinds = {type(w.process) for w in geometry._workers}
        assert kinds == ({workers_module._Forked} if forked else {subprocess.Popen})
        assert geometry.result() == geometric_tables(long_paper)


def test_a_worker_that_cannot_start_or_dies_leaves_the_pages_to_the_caller(
    long_paper: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial = geometric_tables(long_paper)
    with monkeypatch.context() as patch:  # spawned
        patch.setattr(workers_module, "single_threaded", lambda: False)
        patch.setattr(workers_module.sys, "executable", "/nonexistent/python")  # cannot start
        assert parallel(long_paper) == serial
        patch.setattr(workers_module.sys, "executable", "/bin/true")  # starts, reports nothing
        assert parallel(long_paper) == serial
    monkeypatch.setattr(workers_module, "single_threaded", lambda: True)  # forked
    serve = workers_module._serve
    monkeypatch.setattr(workers_module, "_serve", lambda pdf_bytes, numbers, out: None)  # reports nothing
    assert parallel(long_paper) == serial

    def two_pages_then_crash(pdf_bytes: bytes, numbers: list[int], out) -> None:  # type: ignore[no-untyped-def]
        serve(pdf_bytes, numbers[:2], out)
        os._exit(3)

    monkeypatch.setattr(workers_module, "_serve", two_pages_then_crash)
    assert parallel(long_paper) == serial
    monkeypatch.setattr(workers_module.os, "fork", lambda: (_ for _ in ()).throw(OSError("no fork here")))
    assert parallel(long_paper) == serial


def test_short_documents_stay_in_process(long_paper: bytes) -> None:
    geometry = GeometricTables(long_paper, workers=1, min_pages=100)
    assert not geometry._workers
    assert geometry.result() == geometric_tables(long_paper)


def test_a_file_pdfium_cannot_open_fails_as_before() -> None:
    with pytest.raises(Exception) as parallel_error:
        GeometricTables(b"%PDF-1.4 not really", workers=1, min_pages=1).result()
    with pytest.raises(Exception) as serial_error:
        geometric_tables(b"%PDF-1.4 not really")
    assert type(parallel_error.value) is type(serial_error.value)


def test_find_tables_and_chunk_file_same_with_workers(
    long_paper: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(long_paper)
    settings = Settings(data_dir=tmp_path / "data")
    _, pages = text_pages(read_source(path))
    runs = {}
    for min_pages in (10_000, 2):  # in process, then with a worker
        monkeypatch.setattr(workers_module, "PARALLEL_MIN_PAGES", min_pages)
        monkeypatch.setattr(workers_module, "_spare_cores", lambda: 1)
        runs[min_pages] = (
            find_tables(long_paper, pages, settings).tables,
            chunk_file(path, Strategy.question, settings, use_llm=False),
        )
    assert runs[2] == runs[10_000]


@pytest.mark.parametrize("path", PDFS, ids=lambda p: p.stem)
def test_skipping_far_text_lines_reads_the_same_characters(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_all() -> list:
        seen: list = []
        original = page_reader_module.PageReader.chars

        def recording(self, textpage, regions):  # type: ignore[no-untyped-def]
            out = original(self, textpage, regions)
            seen.append([(c.ch, c.x0, c.top, c.x1, c.bottom, c.space_before, c.printed_space) for c in out])
            return out

        with monkeypatch.context() as patch:
            patch.setattr(page_reader_module.PageReader, "chars", recording)
            geometric_tables(path.read_bytes())
        return seen

    skipping = read_all()
    monkeypatch.setattr(page_reader_module.PageReader, "_line_far", lambda *args: False)
    assert read_all() == skipping
    # no characters read only where no grid is drawn (the Policy Address fixture: prose alone)
    assert skipping or not any(geometric_tables(path.read_bytes()).values())


def test_in_order_gives_every_page_in_order_as_one_process_finds_them(long_paper: bytes) -> None:
    serial = geometric_tables(long_paper)
    assert 0 < len(serial) < 60  # pages with tables and pages without
    for workers in (0, 1, 2):
        with GeometricTables(long_paper, workers=workers, min_pages=2) as geometry:
            got = list(geometry.in_order())
        assert [n for n, _ in got] == list(range(1, 61))
        assert {n: t for n, t in got if t} == serial
        assert all(t == [] for n, t in got if n not in serial)


def test_stopping_in_order_early_stops_the_workers(long_paper: bytes) -> None:
    geometry = GeometricTables(long_paper, workers=2, min_pages=2)
    processes = [w.process for w in geometry._workers]
    assert len(processes) == 2
    pages = geometry.in_order()
    first = [next(pages) for _ in range(3)]
    assert [n for n, _ in first] == [1, 2, 3]
    pages.close()  # the caller stops reading (an error in chunking, say)
    assert not geometry._workers
    assert all(p.poll() is not None for p in processes)  # ended (killed, or done before)


def test_question_chunks_are_made_while_later_pages_are_still_unread(
    long_paper: bytes, tmp_path: Path
) -> None:
    """chunk_file hands the tables over page by page (PageTables): each section is chunked as
    soon as the pages up to its end are read, not after the last page."""
    from legco_assets.core.chunking import question_chunking
    from legco_assets.core.records import DocumentText, PageTables
    from legco_assets.core.structure import find_structure
    from legco_assets.core.tables import iter_page_tables

    path = tmp_path / "long.pdf"
    path.write_bytes(long_paper)
    settings = Settings(data_dir=tmp_path / "data")
    _, pages = text_pages(read_source(path))
    sections = find_structure(pages, settings).sections
    events: list[tuple[str, int]] = []

    def reading():  # type: ignore[no-untyped-def]
        with GeometricTables(long_paper, workers=1, min_pages=2) as geometry:
            for number, tables in iter_page_tables(long_paper, pages, settings, None, geometry):
                events.append(("read", number))
                yield number, tables

    strategy = question_chunking.QuestionChunkingStrategy()
    original = question_chunking._section_tables

    def noting(section, tables):  # type: ignore[no-untyped-def]
        found = original(section, tables)
        events.append(("chunk", section.end_page))
        return found

    doc = DocumentText.from_pages(pages)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(question_chunking, "_section_tables", noting)
        streamed = strategy.chunk_text("long", doc, sections, PageTables(reading()))
    read_so_far = 0
    chunked_while_unread = 0
    for kind, page in events:
        if kind == "read":
            read_so_far = page
        else:
            assert read_so_far >= page  # never before its pages are read
            chunked_while_unread += read_so_far < 60
    assert chunked_while_unread > 10
    assert streamed == strategy.chunk_text(
        "long", doc, sections, find_tables(long_paper, pages, settings).tables
    )
