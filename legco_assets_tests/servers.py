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
        """Terminate the whole process group; kill it if it does not exit in time."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


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
# a search hit's keys, as issue 48 lists them (the API's, the page's and the tools' hits)
SEARCH_HIT_KEYS = frozenset(
    {
        "id",
        "document_id",
        "title",
        "text",
        "score",
        "page_start",
        "page_end",
        "section_path",
        "question_id",
        "language",
        "excerpt_url",
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
    from dataclasses import replace

    import uvicorn

    from legco_assets.service import ServiceContext, create_app

    port = free_port()
    settings = replace(settings, excerpts_base_url=f"http://127.0.0.1:{port}/")
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
