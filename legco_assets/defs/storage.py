"""Dagster's own SQLite storage for a local home, made to reuse what it builds for every event.

Why: Dagster's SQLite event log opens a new SQLAlchemy engine for each event it stores (about
60 events a run: steps, outputs, materialisations, planned and evaluated checks), and again
for the index database that mirrors each asset and check event. An engine is built, its
statements compiled, one connection opened and closed, and the engine thrown away, each time;
on a session's Council records (16 runs, 992 events) the runs' and steps' own time was 17.9 s
of the 46 s ``ingest`` spent beside embedding, and 9.0 s with this storage. Here each database
keeps its engine, so its compiled statements are reused, the index database keeps its one
connection open between events, and a new run's database is a copy of an empty one.

What stays as Dagster wrote it: the files, their schema and migrations, the locking (one
writer in this process at a time, SQLite's own locks between processes), and the run
databases' connections, which are still closed after each event. That last part is on purpose:
a run's database in WAL mode is written back to its file when its last connection closes,
and that write is what the Dagster UI's live view of a run watches for (a file watcher on the
run's ``.db``); a connection kept open would hold the events in the WAL until the run ended.

``DagsterInstance`` picks this storage through :class:`LocalInstance`, named by the
``dagster.yaml`` that :func:`.instance.dagster_instance` writes for a new home; a home with a
``storage`` section of its own (PostgreSQL: docs/scaling.md) uses that instead.
"""

from __future__ import annotations

import os
import tempfile
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import yaml
from dagster import DagsterInstance
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    INDEX_SHARD_NAME,
    SqliteEventLogStorage,
)
from dagster._core.storage.sql import create_engine
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage
from dagster._serdes import ConfigurableClassData
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool, QueuePool

# Engines kept for run databases besides the index: a run writes to its own only while it
# runs, so a few cover the runs of one process at a time.
RUN_ENGINES = 4


class ReusingSqliteEventLogStorage(SqliteEventLogStorage):
    """Dagster's run-sharded SQLite event log, with an engine kept per database."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._tables: set[str] = set()
        self._empty_run_database: bytes | None = None
        super().__init__(base_dir, inst_data)

    def _engine(self, shard: str) -> Engine:
        """The shard's engine, made (and its database created) on first use. Called under
        ``_db_lock``."""
        engine = self._engines.get(shard)
        if engine is not None:
            self._engines.move_to_end(shard)
            return engine
        engine = create_engine(
            self.conn_string_for_shard(shard),
            poolclass=QueuePool if shard == INDEX_SHARD_NAME else NullPool,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS},
        )
        if shard not in self._initialized_dbs:
            if shard == INDEX_SHARD_NAME or not self._copy_of_new_run_database(shard):
                self._initdb(engine)
            self._initialized_dbs.add(shard)
        self._engines[shard] = engine
        runs = [name for name in self._engines if name != INDEX_SHARD_NAME]
        for name in runs[: max(0, len(runs) - RUN_ENGINES)]:
            self._engines.pop(name).dispose()
        return engine

    def _copy_of_new_run_database(self, shard: str) -> bool:
        """A new run's database as a copy of one made empty once by this process, and True;
        False when the file is there already (an earlier run's, or another process's that was
        quicker) or cannot be linked, and Dagster's own set-up checks or makes it.

        Why: Dagster makes each new run's database by creating its tables and stamping its
        migration revision, reading its migration scripts each time (about 0.1 s a run). The
        copy is linked into place whole, so no other process sees it half written."""
        path = self.path_for_shard(shard)
        if os.path.exists(path):
            return False
        if self._empty_run_database is None:
            with tempfile.TemporaryDirectory() as scratch:
                made = os.path.join(scratch, "empty.db")
                engine = create_engine(f"sqlite:///{made}", poolclass=NullPool)
                self._initdb(engine)
                engine.dispose()
                with open(made, "rb") as empty:
                    self._empty_run_database = empty.read()
        fd, staged = tempfile.mkstemp(dir=self._base_dir, suffix=".db-new")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(self._empty_run_database)
            os.link(staged, path)
        except OSError:  # there already, or a file system without hard links
            return False
        finally:
            os.unlink(staged)
        return True

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:  # type: ignore[override]
        with self._db_lock:
            with self._engine(shard).connect() as conn, conn.begin():
                yield conn

    def has_table(self, table_name: str) -> bool:
        """Asked before most asset writes; a table, once there, stays."""
        if table_name not in self._tables and super().has_table(table_name):
            self._tables.add(table_name)
        return table_name in self._tables

    def _forget_engines(self) -> None:
        with self._db_lock:
            while self._engines:
                self._engines.popitem()[1].dispose()
            self._tables.clear()

    def wipe(self) -> None:
        """Dagster deletes the run databases' files: their engines go first."""
        self._forget_engines()
        super().wipe()

    def dispose(self) -> None:
        self._forget_engines()
        super().dispose()


class ReusingSqliteStorage(DagsterSqliteStorage):
    """Dagster's default local storage (runs, event log, schedules under the home), with the
    event log above."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        super().__init__(base_dir, inst_data)
        stock = self._event_log_storage
        self._event_log_storage = ReusingSqliteEventLogStorage(stock._base_dir)  # noqa: SLF001 - the same directory Dagster chose
        stock.dispose()

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData, config_value: Mapping[str, Any]
    ) -> ReusingSqliteStorage:  # type: ignore[override]
        return cls.from_local(inst_data=inst_data, **config_value)


class LocalInstance(DagsterInstance):
    """A Dagster instance whose default storage is :class:`ReusingSqliteStorage`; everything
    else (and any storage the home's ``dagster.yaml`` names) as Dagster's own."""

    @classmethod
    def config_schema(cls) -> dict[str, Any]:
        return {}

    @staticmethod
    def config_defaults(base_dir: str) -> Mapping[str, ConfigurableClassData | None]:
        return {
            **InstanceRef.config_defaults(base_dir),
            "storage": ConfigurableClassData(
                __name__,
                ReusingSqliteStorage.__name__,
                yaml.dump({"base_dir": os.fspath(base_dir)}, default_flow_style=False),
            ),
        }
