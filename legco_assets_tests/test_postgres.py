"""The same definitions on Dagster's PostgreSQL storage (``dagster-postgres``), past one machine.

A real PostgreSQL server (Debian's ``postgresql`` package, which ``scripts/run_tests.sh``
installs in CI) is initialised in a temp dir on 127.0.0.1; ``legco-assets ingest`` runs with a
``dagster.yaml`` that puts runs, the event log, schedules and dynamic partitions there — the
configuration ``docs/scaling.md`` documents — and the test reads the results back from
PostgreSQL itself.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from legco_assets.core.sources import slug

FIXTURES = Path(__file__).parent / "fixtures" / "pdfs"
DAGSTER_YAML = """\
storage:
  postgres:
    postgres_url:
      env: DAGSTER_PG_URL
telemetry:
  enabled: false
"""


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    initdb = found[-1] if found else shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL server with a ``dagster`` database; its URL."""
    pg_bin = _pg_bin()
    if pg_bin is None:
        pytest.fail(
            "PostgreSQL is not installed (initdb not found): scripts/run_tests.sh installs Debian's postgresql when run as root"
        )
    # its own folder under /tmp: the server's user must reach it (pytest's tmp dirs are 0700)
    root = Path(tempfile.mkdtemp(prefix="legco-pg-"))
    as_owner: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root: run the server as the postgres user
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
        as_owner = ["runuser", "-u", "postgres", "--"]
    data, port = root / "data", _free_port()
    run = lambda *cmd: subprocess.run([*as_owner, *map(str, cmd)], check=True, capture_output=True, text=True)  # noqa: E731
    run(pg_bin / "initdb", "-D", data, "-A", "trust", "-U", "postgres")
    run(
        pg_bin / "pg_ctl",
        "-D",
        data,
        "-o",
        f"-k {root} -p {port} -h 127.0.0.1",
        "-l",
        root / "log",
        "-w",
        "start",
    )
    try:
        run(pg_bin / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "dagster")
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/dagster"
    finally:
        run(pg_bin / "pg_ctl", "-D", data, "-m", "fast", "stop")
        shutil.rmtree(root, ignore_errors=True)


def _query(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    import psycopg2

    with (
        psycopg2.connect(url.replace("postgresql+psycopg2://", "postgresql://")) as conn,
        conn.cursor() as cur,
    ):
        cur.execute(sql, params)
        return cur.fetchall()


def test_ingest_records_runs_partitions_and_materialisations_in_postgres(
    postgres_url: str, tmp_path: Path
) -> None:
    home, data, inbox = tmp_path / "home", tmp_path / "data", tmp_path / "inbox"
    for folder in (home, data, inbox):
        folder.mkdir()
    (home / "dagster.yaml").write_text(DAGSTER_YAML)
    shutil.copy(FIXTURES / "paper_e_qa.pdf", inbox / "pg paper.pdf")
    (inbox / "bad.pdf").write_text("not a pdf at all")
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "LEGCO_DATA_DIR": str(data),
        "LEGCO_INBOX": str(inbox),
        "DAGSTER_PG_URL": postgres_url,
    }
    env.pop("CHROMA_HOST", None)
    done = subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", "ingest", str(inbox), "--strategy", "both"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0  # the bad file fails...
    assert "bad.pdf: not a PDF" in done.stderr
    assert "ingested 1 document(s)" in done.stdout  # ...and the good one is ingested anyway

    good = slug(inbox / "pg paper.pdf")
    statuses = dict(_query(postgres_url, "select status, count(*) from runs group by status"))
    assert statuses == {"SUCCESS": 2, "FAILURE": 1}  # token and question jobs; the bad file's run
    partitions = {
        row[0]
        for row in _query(
            postgres_url, "select partition from dynamic_partitions where partitions_def_name = 'documents'"
        )
    }
    assert {good, "bad"} <= partitions
    materialised = _query(
        postgres_url,
        "select asset_key from event_logs where dagster_event_type = 'ASSET_MATERIALIZATION' and partition = %s",
        (good,),
    )
    keys = {json.loads(key)[-1] for (key,) in materialised}  # stored as the key's path, a JSON list
    assert {"source_document", "page_text", "document_structure", "chunks", "vector_index"} <= keys
    # nothing of the run storage went to SQLite under DAGSTER_HOME
    assert not list(home.rglob("*.db"))
