"""Bad input never stops the others: the matrix of broken, odd and huge files.

Why: analysts leave the pipeline running over an inbox that grows by itself. Every file that
cannot be processed must give one line naming the file and the reason, fail its own
partition (not the run of another document, not the sensor tick) and make the CLI exit
non-zero — while every good file of the same command or tick is still ingested completely.
Each row goes through ``legco-assets chunk``, ``legco-assets ingest`` (subprocesses with
their own data dir and ``DAGSTER_HOME``) and Dagster runs requested by the inbox sensor.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from legco_assets.core.read import extract_document, read_source
from legco_assets.core.search import open_collection, stored_chunks
from legco_assets.core.settings import Settings
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import JOBS
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.sensors import inbox_sensor

from .factories import english_paper
from .llm_server import FakeLLMServer
from .pdf_factory import encrypt_pdf
from .runs import chunk_file_ids, cli, dagster_resources, error_lines, raised_error, step_failure_messages


# -- the files --------------------------------------------------------------------------------
def scanned_paper(path: Path, seed: str) -> Path:
    """An image-only PDF: each page of a real paper rendered to a greyscale bitmap and
    placed as a picture, so there is no text layer at all (what a scanner produces)."""
    import pypdfium2 as pdfium
    from fpdf import FPDF

    source = pdfium.PdfDocument(english_paper(path.with_suffix(".src.pdf"), seed, pages=2).read_bytes())
    scan = FPDF(format="A4")
    for index in range(len(source)):
        image = source[index].render(scale=90 / 72).to_pil().convert("L")
        scan.add_page()
        scan.image(image, x=0, y=0, w=210, h=297)
    source.close()
    path.with_suffix(".src.pdf").unlink()
    scan.output(str(path))
    return path


def zero_page_pdf(path: Path) -> Path:
    from pypdf import PdfWriter

    buffer = io.BytesIO()
    PdfWriter().write(buffer)
    path.write_bytes(buffer.getvalue())
    return path


def empty_docx(path: Path) -> Path:
    import docx

    docx.Document().save(str(path))
    return path


def _write(data: bytes) -> Callable[[Path], Path]:
    def build(path: Path) -> Path:
        path.write_bytes(data)
        return path

    return build


def _from_paper(transform: Callable[[bytes], bytes]) -> Callable[[Path], Path]:
    def build(path: Path) -> Path:
        paper = english_paper(path.with_name("._paper.pdf"), path.stem)
        path.write_bytes(transform(paper.read_bytes()))
        paper.unlink()
        return path

    return build


def _encrypted(password: str) -> Callable[[Path], Path]:
    def build(path: Path) -> Path:
        paper = english_paper(path.with_name("._plain.pdf"), path.stem)
        encrypt_pdf(paper, path, password)
        paper.unlink()
        return path

    return build


@dataclass(frozen=True)
class Row:
    """One row of the matrix: how to build the file and what must happen to it."""

    id: str
    filename: str
    build: Callable[[Path], Path]
    reason: str | None  # the one-line reason (a prefix); None: the file is good
    failing_asset: str = "source_document"


ROWS = [
    Row(
        "not_a_pdf",
        "renamed zip.pdf",
        _write(b"PK\x03\x04" + b"\x00this is a zip archive renamed to .pdf" * 20),
        "not a PDF (the file does not start with %PDF)",
    ),
    Row(
        "truncated_pdf",
        "truncated.pdf",
        _from_paper(lambda data: data[: len(data) // 2]),
        "corrupt or truncated PDF (cannot be parsed)",
    ),
    Row(
        "corrupt_pdf",
        "corrupt.pdf",
        _write(b"%PDF-1.7\n" + bytes(range(256)) * 16),
        "corrupt or truncated PDF (cannot be parsed)",
    ),
    Row("zero_pages", "zero-pages.pdf", zero_page_pdf, "PDF has no pages"),
    Row(
        "encrypted_unknown_password",
        "locked.pdf",
        _encrypted("s3cret-pw"),
        "encrypted PDF (a password is required to open it)",
    ),
    Row("encrypted_empty_password", "empty-password.pdf", _encrypted(""), None),
    Row(
        "scanned_no_text_layer",
        "scanned.pdf",
        lambda p: scanned_paper(p, "scan"),
        "no extractable text (0 characters in 2 pages",
        "page_text",
    ),
    Row("chinese_name_with_spaces", "立法會 文件 第 1 號 (E).pdf", lambda p: english_paper(p, "cjk"), None),
    Row("empty_docx", "empty.docx", empty_docx, "empty document (no text)"),
    Row(
        "corrupt_docx",
        "broken.docx",
        _write(b"this is not a zip, so not a DOCX"),
        "corrupt DOCX (cannot be parsed)",
    ),
    Row("blank_txt", "blank.txt", _write(b" \n\n\t \n"), "empty document (no text)"),
    Row("zero_byte_txt", "zero bytes.txt", _write(b""), "empty file (0 bytes)"),
    Row(
        "binary_html",
        "photo.html",
        _write(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 8),
        "not an HTML page (binary content)",
    ),
    Row(
        "empty_html",
        "blank page.html",
        _write(
            b"<!DOCTYPE html><html><head><title>FAQ</title><style>p {}</style></head><body> </body></html>"
        ),
        "empty HTML page (no text)",
    ),
    Row(
        "error_page_html",
        "gone.htm",
        _write(
            b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL /faq.htm was not found on this server.</p><hr><address>Apache Server</address></body></html>"
        ),
        "an error page, not a paper (404 Not Found)",
    ),
    Row(
        "faq_html",
        "常見問題 faq.html",
        _write(
            (
                Path(__file__).resolve().parent / "fixtures" / "html" / "ld_faq_annual_leave_tc.html"
            ).read_bytes()
        ),
        None,
    ),
]
BAD = [r for r in ROWS if r.reason]
GOOD = [r for r in ROWS if not r.reason]


def build_all(folder: Path, rows: list[Row] = ROWS) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return {row.id: row.build(folder / row.filename) for row in rows}


def assert_reason_only(data: Any, path: Path, reason: str) -> None:
    """An expected failure is ``dg.Failure``: the one-line reason as its description, the
    file in its metadata, no retry; the traceback is Dagster's raise of it, nothing below."""
    failure = data.user_failure_data
    assert failure is not None, f"not a dg.Failure: {raised_error(data.error).message}"
    assert failure.description.startswith(reason) and "\n" not in failure.description, failure.description
    assert failure.metadata["file"].value == str(path)
    assert data.error.cls_name == "Failure" and data.error.cause is None


# -- legco-assets chunk -----------------------------------------------------------------------
@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_chunk_command(row: Row, tmp_path: Path) -> None:
    path = row.build(tmp_path / row.filename)
    done = cli("chunk", str(path), "--strategy", "question", "--no-llm", home=tmp_path)
    if row.reason:
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.count("\n") == 1, f"exactly one line on stderr, got {done.stderr!r}"
        assert done.stderr.startswith(f"legco-assets: error: {path}: {row.reason}"), done.stderr
    else:
        assert done.returncode == 0, done.stderr
        records = [json.loads(line) for line in done.stdout.splitlines()]
        assert records and {r["metadata"]["filename"] for r in records} == {row.filename}
        assert {r["metadata"]["content_sha256"] for r in records} == {
            hashlib.sha256(path.read_bytes()).hexdigest()
        }
        assert all(r["text"].strip() for r in records)


def test_a_bad_setting_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    paper = english_paper(tmp_path / "paper.pdf", "setting")
    done = cli("chunk", str(paper), home=tmp_path, env={"CHUNK_SIZE": "abc"})
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr
        == "legco-assets: error: invalid setting: CHUNK_SIZE='abc' (allowed: a whole number, at least 1)\n"
    )


# -- legco-assets ingest: good and bad files in one command ------------------------------------
def test_ingest_finishes_good_files_and_fails_each_bad_one(tmp_path: Path) -> None:
    """One command: the matrix, plus the same good file named twice (and also found in its
    folder) and a byte-identical copy of it under another name (found after it: the same
    paper, no partition of its own)."""
    files = build_all(tmp_path / "inbox")
    good = english_paper(tmp_path / "inbox" / "good paper.pdf", "good")
    copy = tmp_path / "inbox" / "the good paper again.pdf"
    copy.write_bytes(good.read_bytes())
    done = cli("ingest", str(tmp_path / "inbox"), str(good), str(good), home=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr

    errors = error_lines(done.stderr)
    assert len(errors) == len(BAD), errors
    for row in BAD:
        mine = [e for e in errors if e.startswith(f"legco-assets: error: {files[row.id]}: ")]
        assert len(mine) == 1 and mine[0].startswith(f"legco-assets: error: {files[row.id]}: {row.reason}"), (
            row.id,
            errors,
        )
    summary = done.stdout.strip().splitlines()[-1]
    assert (
        summary.startswith(f"ingested {len(GOOD) + 1} document(s)")
        and f"failed: token {len(BAD)};" in summary
        and "same bytes as a partition 1;" in summary
    )
    assert done.stdout.count("→ partition good-paper\n") == 1, "a file named twice is ingested once"
    assert f"{copy} has the same bytes as partition good-paper" in done.stdout, "and so is its copy"

    data = tmp_path / "data"
    index = DocumentIndex(data / "documents")
    stored = stored_chunks(open_collection(Settings(data_dir=data)))
    assert len({c.id for c in stored}) == len(stored), "no chunk twice"
    assert index.register(copy) == "good-paper" and index.get("good-paper").also_named == [
        str(copy.resolve())
    ]
    for path in [good, *(files[r.id] for r in GOOD)]:
        key = index.register(path)
        expected = chunk_file_ids(data, key)
        assert expected and sorted(c.id for c in stored if c.document_id == key) == sorted(expected)
    assert {c.document_id for c in stored} == {
        index.register(p) for p in [good, *(files[r.id] for r in GOOD)]
    }
    assert index.get("good-paper").versions == [hashlib.sha256(good.read_bytes()).hexdigest()]

    # the Dagster instance the CLI used records a failed partition with the same message
    with dg.DagsterInstance.from_config(str(tmp_path / "dagster_home")) as instance:
        for row in BAD:
            key = index.register(files[row.id])
            status = instance.get_status_by_partition(
                dg.AssetKey(row.failing_asset), [key], documents_partitions
            )
            assert status and status[key] == dg.AssetPartitionStatus.FAILED, (row.id, status)
            runs = instance.get_runs(filters=dg.RunsFilter(tags={"dagster/partition": key}))
            assert [r.status for r in runs] == [dg.DagsterRunStatus.FAILURE]
            failures = [
                e.dagster_event.event_specific_data
                for e in instance.all_logs(runs[0].run_id)
                if e.dagster_event and e.dagster_event.is_step_failure
            ]
            assert len(failures) == 1, "an expected failure is not retried"
            assert_reason_only(failures[0], files[row.id], row.reason)


# -- Dagster: one sensor tick over the matrix ---------------------------------------------------
def test_sensor_tick_runs_every_file_and_only_bad_partitions_fail(tmp_path: Path) -> None:
    data = tmp_path / "data"
    inbox = data / "inbox"
    files = build_all(inbox)
    defs = dg.Definitions(
        assets=ALL_ASSETS, jobs=list(JOBS.values()), sensors=[inbox_sensor], resources=dagster_resources(data)
    )
    with dg.instance_for_test() as instance:
        tick = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources={"legco": dagster_resources(data)["legco"]})
        )
        assert len(tick.run_requests) == len(ROWS), "the sensor does not judge files: every one gets its run"
        for request in tick.dynamic_partitions_requests:
            instance.add_dynamic_partitions(documents_partitions.name, list(request.partition_keys))
        index = DocumentIndex(data / "documents")
        by_key = {index.register(files[row.id]): row for row in ROWS}
        outcomes = {}
        for request in tick.run_requests:
            result = defs.resolve_job_def(request.job_name).execute_in_process(
                partition_key=request.partition_key,
                instance=instance,
                tags=request.tags,
                raise_on_error=False,
            )
            outcomes[request.partition_key] = result
        for key, row in by_key.items():
            result = outcomes[key]
            if row.reason is None:
                assert result.success, (row.id, step_failure_messages(result))
                assert chunk_file_ids(data, key)
                continue
            assert not result.success, row.id
            failures = step_failure_messages(result)
            assert list(failures) == [row.failing_asset], (row.id, failures)
            assert failures[row.failing_asset].startswith(row.reason), (row.id, failures)
            status = instance.get_status_by_partition(
                dg.AssetKey(row.failing_asset), [key], documents_partitions
            )
            assert status == {key: dg.AssetPartitionStatus.FAILED}
        good_keys = {k for k, r in by_key.items() if r.reason is None}
        first = stored_chunks(open_collection(Settings(data_dir=data)))
        assert {c.document_id for c in first} == good_keys

        # the same file's run again (e.g. re-executed from the UI): same ids, nothing twice
        again = next(r for r in tick.run_requests if r.partition_key in good_keys)
        rerun = defs.resolve_job_def(again.job_name).execute_in_process(
            partition_key=again.partition_key, instance=instance
        )
        assert rerun.success
        second = stored_chunks(open_collection(Settings(data_dir=data)))
        assert sorted(c.id for c in second) == sorted(c.id for c in first)
        assert len({c.id for c in second}) == len(second)


# -- a 1,000-page paper --------------------------------------------------------------------------
def thousand_page_paper(path: Path) -> Path:
    """1,000 pages by importing a 10-page paper's pages 100 times (pypdfium2)."""
    import pypdfium2 as pdfium

    base = pdfium.PdfDocument(english_paper(path.with_name("ten.pdf"), "long", pages=10).read_bytes())
    out = pdfium.PdfDocument.new()
    for _ in range(100):
        out.import_pages(base)
    out.save(str(path))
    assert len(out) == 1000
    return path


def test_thousand_page_paper(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``chunk`` and the whole asset graph; embeddings from the fake endpoint so the
    test measures our code, not the local embedding model (see scripts/benchmark.py)."""
    paper = thousand_page_paper(tmp_path / "long paper.pdf")
    done = cli("chunk", str(paper), "--strategy", "question", "--no-llm", home=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert max(r["metadata"]["page_end"] for r in records) == 1000
    assert min(r["metadata"]["page_start"] for r in records) == 1

    monkeypatch.setenv("EMBEDDING_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("EMBEDDING_MODEL", "fake-embedding-model")
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(paper)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            ALL_ASSETS,
            partition_key=key,
            instance=instance,
            resources=dagster_resources(data),
            raise_on_error=False,
        )
        assert result.success, step_failure_messages(result)
        assert result.asset_materializations_for_node("source_document")[0].metadata["pages"].value == 1000
    expected = chunk_file_ids(data, key)
    stored = stored_chunks(
        open_collection(
            Settings(
                data_dir=data, embedding_base_url=llm_server.base_url, embedding_model="fake-embedding-model"
            )
        )
    )
    assert sorted(c.id for c in stored) == sorted(expected) and len(expected) >= 100
    assert llm_server.calls["embeddings"] >= 1


# -- a file replaced while being read -----------------------------------------------------------
REPLACE_AFTER_READ = r"""
import pathlib, sys
target, replacement = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).read_bytes()
original_read_bytes = pathlib.Path.read_bytes

def read_then_replace(self):
    data = original_read_bytes(self)
    if self.resolve() == target and not getattr(read_then_replace, "done", False):
        read_then_replace.done = True          # another program overwrites the file just after we read it
        target.write_bytes(replacement)
    return data

pathlib.Path.read_bytes = read_then_replace
from legco_assets import cli
sys.exit(cli.main(sys.argv[3:]))
"""


def _text_of(data: bytes, name: str, tmp: Path) -> str:
    path = tmp / name
    path.write_bytes(data)
    return "".join(p.raw for p in extract_document(read_source(path)).pages)


def test_file_replaced_while_being_read_keeps_text_and_sha256_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bytes are read once: the text, the snapshot and the recorded sha256 all describe
    the version that was read, never a mix with the file that replaced it."""
    original = english_paper(tmp_path / "inbox" / "moving.pdf", "original").read_bytes()
    replacement = english_paper(tmp_path / "replacement.pdf", "replacement").read_bytes()
    original_sha = hashlib.sha256(original).hexdigest()
    original_text = _text_of(original, "o.pdf", tmp_path)
    assert "the original scheme" in original_text and "the replacement scheme" not in original_text

    # the CLI (chunk)
    target = tmp_path / "inbox" / "moving.pdf"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            REPLACE_AFTER_READ,
            str(target),
            str(tmp_path / "replacement.pdf"),
            "chunk",
            str(target),
            "--no-llm",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == replacement, "the file really was replaced during the command"
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert {r["metadata"]["content_sha256"] for r in records} == {original_sha}
    text = "".join(r["text"] for r in records)
    assert "the original scheme" in text and "the replacement scheme" not in text

    # a Dagster run (source_document reads the file; every later asset uses its snapshot)
    target.write_bytes(original)
    import pathlib

    original_read_bytes = pathlib.Path.read_bytes
    replaced = {"done": False}

    def read_then_replace(self: pathlib.Path) -> bytes:
        data = original_read_bytes(self)
        if self.resolve() == target.resolve() and not replaced["done"]:
            replaced["done"] = True
            target.write_bytes(replacement)
        return data

    monkeypatch.setattr(pathlib.Path, "read_bytes", read_then_replace)
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(target)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            ALL_ASSETS,
            partition_key=key,
            instance=instance,
            resources=dagster_resources(data),
            raise_on_error=False,
        )
        assert result.success, step_failure_messages(result)
        assert replaced["done"] and target.read_bytes() == replacement
        assert (
            result.asset_materializations_for_node("source_document")[0].metadata["sha256"].value
            == original_sha
        )
    folder = data / "documents" / key
    assert hashlib.sha256((folder / "source.pdf").read_bytes()).hexdigest() == original_sha
    assert json.loads((folder / "source.json").read_text(encoding="utf-8"))["sha256"] == original_sha
    page_text = json.loads((folder / "page_text.json").read_text(encoding="utf-8"))
    assert "".join(p["raw"] for p in page_text["pages"]) == original_text
    chunk_text = (folder / "chunks-token.jsonl").read_text(encoding="utf-8")
    assert (
        original_sha in chunk_text
        and "the original scheme" in chunk_text
        and "the replacement scheme" not in chunk_text
    )
