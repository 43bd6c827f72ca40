"""Inbox filters and caps, and skipped files named with their reason, in ``ingest`` and the
inbox sensor alike (one ``skip_reason``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.read import SUPPORTED_SUFFIXES
from legco_assets.core.settings import Settings
from legco_assets.core.sources import scan_inbox, skip_reason
from legco_assets.defs.resources import LegcoSettings
from legco_assets.defs.sensors import inbox_sensor

from .factories import fixed_english_paper


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    inbox = tmp_path / "inbox"
    fixed_english_paper(inbox / "paper-c.pdf", pages=2)
    fixed_english_paper(inbox / "long report.pdf", pages=5)
    fixed_english_paper(inbox / "drafts" / "draft-e.pdf", pages=1)
    (inbox / "notes.xls").write_bytes(b"\xd0\xcf\x11\xe0 not ours")
    (inbox / "README").write_text("what this folder is")
    (inbox / ".DS_Store").write_bytes(b"\x00\x01")
    (inbox / ".hansard-2024-01-10-zh.pdf.123.part").write_bytes(b"%PDF-1.7 half")
    return inbox


@pytest.mark.parametrize(
    ("name", "settings", "relative", "expected"),
    [
        ("notes.xls", Settings(), "notes.xls", "unsupported file type .xls (supported: "),
        ("README", Settings(), "README", "unsupported file type (none)"),
        ("paper-c.pdf", Settings(), "paper-c.pdf", None),
        (
            "paper-c.pdf",
            Settings(inbox_include=("*-e.pdf", "*.docx")),
            "paper-c.pdf",
            "not matched by LEGCO_INBOX_INCLUDE (*-e.pdf,*.docx)",
        ),
        ("drafts/draft-e.pdf", Settings(inbox_include=("*-e.pdf",)), "drafts/draft-e.pdf", None),
        (
            "drafts/draft-e.pdf",
            Settings(inbox_exclude=("drafts/*",)),
            "drafts/draft-e.pdf",
            "matched by LEGCO_INBOX_EXCLUDE (drafts/*)",
        ),
        (
            "paper-c.pdf",
            Settings(inbox_exclude=("*-C.PDF",)),
            "paper-c.pdf",
            "matched by LEGCO_INBOX_EXCLUDE (*-C.PDF)",
        ),
        (
            "paper-c.pdf",
            Settings(inbox_exclude=("*-c.pdf",)),
            None,
            None,
        ),  # a file named by hand: globs do not apply
        ("long report.pdf", Settings(max_pages=4), "long report.pdf", "5 pages, over LEGCO_MAX_PAGES=4"),
        ("long report.pdf", Settings(max_pages=5), "long report.pdf", None),
        ("long report.pdf", Settings(max_file_mb=0.001), None, "MB, over LEGCO_MAX_FILE_MB=0.001"),
        ("notes.xls", Settings(), None, "unsupported file type .xls"),
    ],
)
def test_skip_reason(
    folder: Path, name: str, settings: Settings, relative: str | None, expected: str | None
) -> None:
    reason = skip_reason(folder / name, settings, relative)
    if expected is None:
        assert reason is None
    else:
        assert reason is not None and expected in reason, reason


def test_a_pdf_that_cannot_be_opened_is_left_to_ingest_to_report(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    assert skip_reason(broken, Settings(max_pages=1), "broken.pdf") is None


def test_scan_names_each_skipped_file_once_and_never_takes_it(folder: Path) -> None:
    settings = Settings(inbox=folder, max_pages=4, inbox_exclude=("drafts/*",))
    scan = scan_inbox(folder, {}, settings)
    assert [f.path.name for f in scan.changed] == ["paper-c.pdf"]
    assert {s.path.name: s.reason.split(" (")[0] for s in scan.skipped} == {
        "README": "unsupported file type",
        "notes.xls": "unsupported file type .xls",
        "long report.pdf": "5 pages, over LEGCO_MAX_PAGES=4",
        "draft-e.pdf": "matched by LEGCO_INBOX_EXCLUDE",
    }, "hidden files (.DS_Store, a download in progress) are not papers and not named"
    again = scan_inbox(folder, scan.state, settings)
    assert not again.changed and not again.skipped, "named once, not on every tick"
    raised = scan_inbox(folder, again.state, settings.with_(max_pages=10))
    assert [f.path.name for f in raised.changed] == ["long report.pdf"], (
        "a raised cap takes the file it left out"
    )


def test_the_inbox_sensor_logs_skipped_files_and_gives_them_no_partition(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture
) -> None:
    monkeypatch.setenv("LEGCO_MAX_PAGES", "4")
    monkeypatch.setenv("LEGCO_INBOX_EXCLUDE", "drafts/*")
    resources = {"legco": LegcoSettings(data_dir=str(tmp_path / "data"), inbox=str(folder))}
    with dg.instance_for_test() as instance:
        tick = inbox_sensor(dg.build_sensor_context(instance=instance, resources=resources))
        log = capfd.readouterr().err
        assert [r.partition_key for r in tick.run_requests] == ["paper-c"]
        assert tick.dynamic_partitions_requests[0].partition_keys == ["paper-c"]
        assert f"skipped {folder / 'long report.pdf'}: 5 pages, over LEGCO_MAX_PAGES=4" in log
        assert f"skipped {folder / 'notes.xls'}: unsupported file type .xls" in log
        assert (
            f"skipped {folder / 'drafts' / 'draft-e.pdf'}: matched by LEGCO_INBOX_EXCLUDE (drafts/*)" in log
        )
        index = json.loads((tmp_path / "data" / "documents" / "index.json").read_text())
        assert list(index) == ["paper-c"], "a skipped file is never registered"

        (folder / "paper-c.pdf").unlink()
        quiet = inbox_sensor(
            dg.build_sensor_context(instance=instance, resources=resources, cursor=tick.cursor)
        )
        assert not quiet.run_requests and "skipped" not in capfd.readouterr().err


def _cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {
        **os.environ,
        "LEGCO_DATA_DIR": str(tmp_path / "data"),
        "DAGSTER_HOME": str(tmp_path / "dagster_home"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", "ingest", *args],
        capture_output=True,
        text=True,
        env=full,
        timeout=600,
    )


def test_ingest_names_each_skipped_file_with_its_reason_and_counts_them(folder: Path, tmp_path: Path) -> None:
    done = _cli(tmp_path, str(folder), LEGCO_MAX_PAGES="4", LEGCO_INBOX_EXCLUDE="drafts/*")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
    assert sorted(line for line in lines if line.startswith("skipped ")) == sorted(
        [
            f"skipped {folder / 'README'}: unsupported file type (none) (supported: {supported})",
            f"skipped {folder / 'drafts' / 'draft-e.pdf'}: matched by LEGCO_INBOX_EXCLUDE (drafts/*)",
            f"skipped {folder / 'long report.pdf'}: 5 pages, over LEGCO_MAX_PAGES=4",
            f"skipped {folder / 'notes.xls'}: unsupported file type .xls (supported: {supported})",
        ]
    )
    assert "→ partition paper-c" in done.stdout and "→ partition long-report" not in done.stdout
    assert (
        lines[-1].startswith("ingested 1 document(s), 2 pages;")
        and "; failed: token 0; skipped 4;" in lines[-1]
    )

    # a file named by hand that cannot be taken is an error line and a non-zero exit
    named = _cli(tmp_path, str(folder / "notes.xls"))
    assert named.returncode == 1
    assert named.stderr.splitlines()[0].startswith(
        f"legco-assets: error: {folder / 'notes.xls'}: unsupported file type .xls"
    )
