"""One OpenAI-compatible client for every LLM call, with a content-hash cache and budgets.

Why one place: re-running any stage must make zero calls for unchanged input, so every call
goes through :meth:`LLMClient.complete`, keyed by sha256 of (kind, model, prompt version,
messages). Retries with backoff on 429/5xx/timeouts are the ``openai`` client's own
(``max_retries``); concurrency is bounded by a semaphore so callers can use a thread pool of
any size. Stats (calls made, cache hits, tokens, seconds) feed the Dagster metadata. The API
key is never logged, stored or put into an error message.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .settings import Settings


class LLMError(Exception):
    """A call failed after retries, or its reply was unusable; callers fall back."""


class LLMBudgetExceeded(LLMError):
    """``LLM_MAX_CALLS_PER_DOCUMENT`` or the token budget was reached."""


@dataclass
class LLMStats:
    calls: int = 0
    cached: int = 0
    failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **values: float) -> None:
        with self._lock:
            for key, value in values.items():
                setattr(self, key, getattr(self, key) + value)

    def as_dict(self) -> dict[str, float]:
        return {
            "llm_calls": self.calls,
            "llm_cached": self.cached,
            "llm_failures": self.failures,
            "llm_tokens_in": self.tokens_in,
            "llm_tokens_out": self.tokens_out,
            "llm_seconds": round(self.seconds, 3),
        }


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def unfenced(reply: str) -> str:
    """The reply without a Markdown code fence around it (models often wrap the JSON asked
    for in one), stripped."""
    return _FENCE.sub("", reply.strip())


def cache_key(kind: str, model: str, prompt_version: str, payload: Any) -> str:
    blob = json.dumps([kind, model, prompt_version, payload], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class LLMClient:
    """Chat completions through the real ``openai`` client, cached on disk."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    cache_dir: Path | None = None
    use_cache: bool = True
    max_concurrency: int = 8
    timeout_s: float = 60.0
    max_retries: int = 3
    max_calls: int | None = None
    max_tokens_budget: int | None = None
    stats: LLMStats = field(default_factory=LLMStats)

    def __post_init__(self) -> None:
        from openai import OpenAI

        self._client = OpenAI(
            base_url=self.base_url,
            api_key=self.api_key or "not-needed",
            timeout=self.timeout_s,
            max_retries=self.max_retries,
        )
        self._slots = threading.Semaphore(max(1, self.max_concurrency))
        self._budget_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> LLMClient | None:
        """None when no LLM is configured (the embedded default)."""
        if not settings.llm_enabled:
            return None
        return cls(
            base_url=str(settings.llm_base_url),
            model=str(settings.llm_model_name),
            api_key=settings.llm_api_key,
            cache_dir=settings.cache_dir / "llm",
            use_cache=settings.qa_cache_vision_results,
            max_concurrency=settings.llm_max_concurrency,
            timeout_s=settings.llm_timeout_s,
            max_calls=settings.llm_max_calls_per_document,
            max_tokens_budget=settings.llm_max_tokens_per_document,
        )

    def unbudgeted(self) -> LLMClient:
        """A copy for calls about no document (search, ``answer``): the same cache, its own
        stats, and none of the per-document budgets, which a long-lived retriever would
        otherwise spend once and then lose every later call to."""
        return replace(self, max_calls=None, max_tokens_budget=None, stats=LLMStats())

    def for_search(self, timeout_s: float) -> LLMClient:
        """An :meth:`unbudgeted` copy with a search's patience: at most ``timeout_s`` per try
        and one retry (a search falls back to its own ranking rather than wait)."""
        return replace(self.unbudgeted(), timeout_s=min(self.timeout_s, timeout_s), max_retries=1)

    def fresh_stats(self) -> LLMStats:
        """Start counting for a new document (budgets are per document)."""
        self.stats = LLMStats()
        return self.stats

    # -- cache ---------------------------------------------------------------------------
    def _cache_path(self, key: str) -> Path | None:
        if not (self.use_cache and self.cache_dir):
            return None
        return self.cache_dir / key[:2] / f"{key}.json"

    def _cached(self, key: str) -> str | None:
        path = self._cache_path(key)
        if path and path.exists():
            return json.loads(path.read_text(encoding="utf-8"))["content"]
        return None

    def _store(self, key: str, content: str) -> None:
        """Write via a temp file named for this process and thread, then rename: two
        workers storing the same key (the same page image in two concurrent runs, or twice
        in one document) must not rename each other's temp file away."""
        path = self._cache_path(key)
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            tmp.write_text(json.dumps({"content": content}, ensure_ascii=False), encoding="utf-8")
            tmp.replace(path)

    def _reserve_call(self) -> None:
        """Check the budgets and count the call in one step, so concurrent callers can
        never overshoot ``max_calls`` (the call is counted even if it then fails)."""
        with self._budget_lock:
            if self.max_calls is not None and self.stats.calls >= self.max_calls:
                raise LLMBudgetExceeded(f"LLM call budget reached ({self.max_calls} calls per document)")
            spent = self.stats.tokens_in + self.stats.tokens_out
            if self.max_tokens_budget is not None and spent >= self.max_tokens_budget:
                raise LLMBudgetExceeded(
                    f"LLM token budget reached ({self.max_tokens_budget} tokens per document)"
                )
            self.stats.add(calls=1)

    # -- calls ---------------------------------------------------------------------------
    def complete(
        self,
        kind: str,
        prompt_version: str,
        messages: list[dict[str, Any]],
        cache_payload: Any,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """The reply text for ``messages``; ``cache_payload`` is what identifies the input
        (e.g. the page image's sha256 rather than its base64), so keys stay small."""
        key = cache_key(kind, self.model, prompt_version, cache_payload)
        hit = self._cached(key)
        if hit is not None:
            self.stats.add(cached=1)
            return hit
        self._reserve_call()
        content = self._call(messages, response_format, max_tokens)
        self._store(key, content)
        return content

    def ask_image(
        self,
        kind: str,
        prompt_version: str,
        system: str,
        instruction: str,
        png: bytes,
        max_tokens: int = 4096,
    ) -> str:
        """One page image (base64 PNG in Chat Completions ``image_url`` content), cached by
        sha256 of the image bytes + model + prompt version."""
        b64 = base64.b64encode(png).decode("ascii")
        messages = [
            {"role": "system", "content": system},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": instruction},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}},
                ],
            },
        ]
        return self.complete(
            kind,
            prompt_version,
            messages,
            cache_payload=hashlib.sha256(png).hexdigest(),
            max_tokens=max_tokens,
        )

    def _call(
        self, messages: list[dict[str, Any]], response_format: dict[str, Any] | None, max_tokens: int | None
    ) -> str:
        from openai import OpenAIError

        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if response_format:
            kwargs["response_format"] = response_format
        if max_tokens:
            kwargs["max_tokens"] = max_tokens
        started = time.perf_counter()
        with self._slots:
            try:
                reply = self._client.chat.completions.create(**kwargs)
            except (OpenAIError, ValueError) as exc:  # ValueError: a 200 reply whose body is not JSON
                self.stats.add(failures=1, seconds=time.perf_counter() - started)
                raise LLMError(f"LLM call failed: {type(exc).__name__}") from None
        usage = getattr(reply, "usage", None)
        self.stats.add(
            seconds=time.perf_counter() - started,
            tokens_in=getattr(usage, "prompt_tokens", 0) or 0,
            tokens_out=getattr(usage, "completion_tokens", 0) or 0,
        )
        content = reply.choices[0].message.content if reply.choices else None
        if not content:
            self.stats.add(failures=1)
            raise LLMError("LLM reply was empty")
        return content
