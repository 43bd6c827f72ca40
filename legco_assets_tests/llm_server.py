"""A small OpenAI-compatible HTTP server for tests: scripted replies, counters and faults.

Tests start it themselves (stdlib ``ThreadingHTTPServer`` in a thread, on 127.0.0.1 and a free
port) and drive it through the real ``openai`` client, usually via ``LLMClient``::

    # conftest.py registers this module as a plugin: the fixture is there by name
    def test_x(llm_server, tmp_path):
        llm_server.enqueue("| a | b |\\n|---|---|\\n| 1 | 2 |")       # next chat reply
        settings = llm_server.settings(tmp_path / "data")           # LLM_* + vision on
        ...
        assert llm_server.calls["chat"] == 1

API (everything is thread-safe):

* ``base_url`` -- ``http://127.0.0.1:<port>/v1``; ``model`` -- the model name it reports.
* ``settings(data_dir, **changes)`` -- a :class:`Settings` pointing at this server (vision
  enabled, short timeout) with every artifact under ``data_dir``.
* ``client(**changes)`` -- an :class:`LLMClient` for this server (no disk cache unless you
  pass ``cache_dir``; ``max_retries`` defaults to 0 so faults surface at once).
* Chat replies, first match wins: ``enqueue(*replies)`` (a FIFO queue), then
  ``responder(messages) -> reply`` (a function of the request's ``messages``), then
  ``default_reply``. A reply is a ``str`` (the message content) or a :class:`Fault`.
* Faults: ``Fault.timeout(seconds)`` sleeps that long before answering (set it past the
  client's timeout); ``Fault.status(429)`` / ``Fault.status(500)`` answer with that HTTP
  status (``retry-after-ms: 1`` so the client's own retries are fast); ``Fault.bad_json()``
  answers 200 with a body that is not JSON. Invalid Markdown is just a ``str`` reply.
* ``embedding_faults`` -- a queue of :class:`Fault` for ``/v1/embeddings``; embeddings are
  otherwise deterministic unit vectors of ``embedding_dim`` floats derived from the text
  (``float`` or ``base64`` encoding, as the request asks).
* ``latency`` -- seconds every request waits before it is answered (default 0).
* ``calls`` -- a ``Counter`` of requests per endpoint (``"chat"``, ``"embeddings"``), faults
  included; ``requests`` -- ``(endpoint, json_body)`` in arrival order;
  ``max_in_flight`` -- the most requests being served at the same time.
* Helpers for responders: :func:`message_text` (all text parts of the messages) and
  :func:`message_images` (the decoded bytes of every ``data:`` URL image).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import struct
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from legco_assets.core.llm import LLMClient
from legco_assets.core.settings import Settings


@dataclass(frozen=True)
class Fault:
    """A scripted failure: ``kind`` is timeout | status | bad_json."""

    kind: str
    status_code: int = 200
    seconds: float = 0.0

    @classmethod
    def timeout(cls, seconds: float) -> Fault:
        return cls("timeout", seconds=seconds)

    @classmethod
    def status(cls, code: int) -> Fault:
        return cls("status", status_code=code)

    @classmethod
    def bad_json(cls) -> Fault:
        return cls("bad_json")


def short_limit_for(settings: Settings, fault: Any) -> Settings:
    """``settings`` with a half-second LLM limit when ``fault`` is a scripted timeout, so the
    test waits half a second for it, not the whole generous limit."""
    if isinstance(fault, Fault) and fault.kind == "timeout":
        return settings.with_(llm_timeout_s=0.5)
    return settings


def message_text(messages: list[dict[str, Any]]) -> str:
    """Every text part of the messages, joined by newlines."""
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if p.get("type") == "text")
    return "\n".join(parts)


def message_images(messages: list[dict[str, Any]]) -> list[bytes]:
    """The bytes of every ``data:<mime>;base64,...`` image in the messages."""
    images: list[bytes] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if part.get("type") == "image_url":
                url = part["image_url"]["url"]
                if url.startswith("data:") and ";base64," in url:
                    images.append(base64.b64decode(url.split(";base64,", 1)[1]))
    return images


def _vector(text: str, dim: int) -> list[float]:
    raw: list[float] = []
    counter = 0
    while len(raw) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        raw.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    vec = raw[:dim]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


class FakeLLMServer:
    """See the module docstring."""

    model = "fake-vision-model"

    def __init__(self, latency: float = 0.0, embedding_dim: int = 16) -> None:
        self.latency = latency
        self.embedding_dim = embedding_dim
        self.default_reply: str | Fault = "NO_TABLES"
        self.responder: Callable[[list[dict[str, Any]]], str | Fault] | None = None
        self.embedding_faults: deque[Fault] = deque()
        self.calls: Counter[str] = Counter()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._queue: deque[str | Fault] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting ---------------------------------------------------------------------------
    def enqueue(self, *replies: str | Fault) -> None:
        with self._lock:
            self._queue.extend(replies)

    def _next_chat_reply(self, messages: list[dict[str, Any]]) -> str | Fault:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return self.responder(messages)
        return self.default_reply

    def _next_embedding_fault(self) -> Fault | None:
        with self._lock:
            return self.embedding_faults.popleft() if self.embedding_faults else None

    # -- wiring ------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def settings(self, data_dir: Path, **changes: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": Path(data_dir),
            "inbox": Path(data_dir) / "inbox",
            "llm_base_url": self.base_url,
            "llm_model_name": self.model,
            "llm_api_key": "test-key",
            "qa_vision_enabled": True,
            "llm_timeout_s": 10.0,
        }
        values.update(changes)
        return Settings(**values)

    def client(self, **changes: Any) -> LLMClient:
        values: dict[str, Any] = {
            "base_url": self.base_url,
            "model": self.model,
            "api_key": "test-key",
            "max_retries": 0,
            "timeout_s": 10.0,
        }
        values.update(changes)
        return LLMClient(**values)

    def start(self) -> FakeLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.rstrip("/")
                if path.endswith("/chat/completions"):
                    endpoint = "chat"
                elif path.endswith("/embeddings"):
                    endpoint = "embeddings"
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                with server._lock:
                    server.calls[endpoint] += 1
                    server.requests.append((endpoint, body))
                    server._in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server._in_flight)
                try:
                    if server.latency:
                        time.sleep(server.latency)
                    if endpoint == "chat":
                        self._chat(body)
                    else:
                        self._embeddings(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout fault)
                finally:
                    with server._lock:
                        server._in_flight -= 1

            def _send(
                self,
                status: int,
                payload: Any,
                raw: bytes | None = None,
                headers: dict[str, str] | None = None,
            ) -> None:
                data = raw if raw is not None else json.dumps(payload, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _fault(self, fault: Fault) -> None:
                if fault.kind == "timeout":
                    time.sleep(fault.seconds)
                    self._send(200, {"error": "too late"})
                elif fault.kind == "status":
                    error = {
                        "error": {
                            "message": f"simulated {fault.status_code}",
                            "type": "server_error",
                            "code": str(fault.status_code),
                        }
                    }
                    self._send(fault.status_code, error, headers={"retry-after-ms": "1"})
                else:
                    self._send(200, None, raw=b"this is not json {")

            def _chat(self, body: dict[str, Any]) -> None:
                messages = body.get("messages") or []
                reply = server._next_chat_reply(messages)
                if isinstance(reply, Fault):
                    self._fault(reply)
                    return
                prompt_tokens = max(1, len(message_text(messages)) // 4) + 85 * len(message_images(messages))
                completion_tokens = max(1, len(reply) // 4)
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{server.calls['chat']}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", server.model),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply},
                                "finish_reason": "stop",
                                "logprobs": None,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt_tokens,
                            "completion_tokens": completion_tokens,
                            "total_tokens": prompt_tokens + completion_tokens,
                        },
                    },
                )

            def _embeddings(self, body: dict[str, Any]) -> None:
                fault = server._next_embedding_fault()
                if fault is not None:
                    self._fault(fault)
                    return
                inputs = body.get("input")
                texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
                as_base64 = body.get("encoding_format") == "base64"
                data = []
                for index, text in enumerate(texts):
                    vector = _vector(str(text), server.embedding_dim)
                    if as_base64:
                        encoded: Any = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode(
                            "ascii"
                        )
                    else:
                        encoded = vector
                    data.append({"object": "embedding", "index": index, "embedding": encoded})
                tokens = sum(max(1, len(str(t)) // 4) for t in texts)
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data,
                        "model": body.get("model", "fake-embedding-model"),
                        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                    },
                )

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False  # a handler sleeping in a timeout fault must not block stop()
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, name="fake-llm-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def llm_server() -> Iterator[FakeLLMServer]:
    """A started :class:`FakeLLMServer`, stopped after the test."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
