"""Settings read from the environment (see ``.env.example``).

One frozen dataclass, built once per run, so every stage sees the same values and tests can
build their own without touching ``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

from .storage import StorePath, is_remote, location


class Strategy(str, Enum):
    """The chunking strategies; the value is what users type and what ids carry."""

    token = "token"
    question = "question"

    @classmethod
    def parse(cls, value: str) -> Strategy:
        """Turn user input into a strategy, with an error that lists the valid ones."""
        try:
            return cls(value.strip().lower())
        except ValueError:
            valid = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown strategy {value!r} (valid: {valid})") from None


def _bool(value: str | None, default: bool) -> bool:
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _int(value: str | None, default: int | None) -> int | None:
    if value is None or value.strip() == "":
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"not a whole number: {value!r}") from None


def _float(value: str | None, default: float | None) -> float | None:
    if value is None or value.strip() == "":
        return default
    return float(value)


def _list(value: str | None, default: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A comma-separated list (globs, feed types); blanks dropped."""
    if value is None or value.strip() == "":
        return default
    return tuple(part.strip() for part in value.split(",") if part.strip())


DEFAULT_FEED_URL = "https://app.legco.gov.hk/OpenData/HansardDB"
# where LegCo serves the papers a feed record points to; the feed's own host is always allowed
DEFAULT_FEED_ALLOWED_HOSTS = ("legco.gov.hk", "*.legco.gov.hk")
DOWNLOAD_MAX_FILE_MB = 200.0  # a download's cap when LEGCO_MAX_FILE_MB is unset (a Hansard is a few MB)
SERVE_PORT = 8000  # where ``legco-assets serve`` (and so ``make ui``) serves the page, API and excerpts
DEFAULT_EXCERPTS_BASE_URL = f"http://127.0.0.1:{SERVE_PORT}/"
FEED_USER_AGENT = "legco-assets/0.1 (Hansard open-data client of the legco-assets project)"


@dataclass(frozen=True)
class Settings:
    """Everything configurable; defaults are the embedded, offline set-up."""

    # a local folder, or an object-store URL (s3://bucket/prefix: core/storage.py)
    data_dir: StorePath = Path("data")
    inbox: StorePath = Path("data/inbox")
    # caches that are only caches (embeddings, BM25, tokenizer, LLM replies): always on local disk
    cache_path: Path | None = None
    chunk_size: int = 1000
    chunk_overlap: int = 200
    qa_max_chunk_tokens: int = 3000
    qa_include_internal_refs: bool = True
    # question strategy: consecutive short narrative sections under one heading are joined
    # up to this many tokens (chunking/short_sections.py); 0 keeps one chunk per heading
    section_join_tokens: int = 0
    default_strategy: Strategy = Strategy.token
    # what a paper from the inbox or the feed is chunked with, in this order (one run each)
    sensor_strategies: tuple[Strategy, ...] = (Strategy.token, Strategy.question)
    structure_mode: str = "auto"  # auto | rules | llm
    image_dpi: int = 150
    llm_base_url: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    llm_model_name: str | None = None
    llm_max_concurrency: int = 8
    llm_max_calls_per_document: int | None = None
    llm_max_tokens_per_document: int | None = None
    llm_timeout_s: float = 60.0
    qa_vision_enabled: bool = False
    qa_cache_vision_results: bool = True
    embedding_model: str = "use-multilingual"
    embedding_base_url: str | None = None
    embedding_api_key: str | None = field(default=None, repr=False)
    chroma_path: Path | None = None
    chroma_host: str | None = None
    chroma_port: int = 8000
    # inbox filters and caps: a file outside them is skipped with its reason (core/sources/inbox.py)
    inbox_include: tuple[str, ...] = ()
    inbox_exclude: tuple[str, ...] = ()
    max_pages: int | None = None
    max_file_mb: float | None = None
    # LegCo's Hansard open data (core/sources/legco_feed.py)
    feed_url: str = DEFAULT_FEED_URL
    feed_types: tuple[str, ...] = ("Chinese", "English")
    feed_since: str | None = None  # YYYY-MM-DD for the very first poll (default: 30 days back)
    feed_interval_minutes: int = 60
    feed_timeout_s: float = 60.0
    feed_retries: int = 3
    feed_backoff_s: float = 2.0
    feed_user_agent: str = FEED_USER_AGENT
    feed_allowed_hosts: tuple[str, ...] = DEFAULT_FEED_ALLOWED_HOSTS  # host, host:port or *.domain
    # where the UI, ``query`` and ``answer`` link the excerpts: the documents folder as served
    # (``make ui``'s server by default; an object store or web server in production)
    excerpts_base_url: str = DEFAULT_EXCERPTS_BASE_URL
    # the Dagster instance the CLI and ``dagster dev`` share (DAGSTER_HOME; None: under the data dir)
    dagster_home: Path | None = None

    @property
    def llm_enabled(self) -> bool:
        """An LLM is used only when an endpoint and a model are both configured."""
        return bool(self.llm_base_url and self.llm_model_name)

    @property
    def download_max_bytes(self) -> int:
        """The most bytes one download may bring: ``LEGCO_MAX_FILE_MB``, else
        :data:`DOWNLOAD_MAX_FILE_MB` (the inbox has no cap by default; a download from an
        unattended feed always has one)."""
        return int((self.max_file_mb if self.max_file_mb is not None else DOWNLOAD_MAX_FILE_MB) * 1024 * 1024)

    @property
    def documents_dir(self) -> StorePath:
        return self.data_dir / "documents"

    @property
    def feed_dir(self) -> StorePath:
        return self.data_dir / "feed"

    @property
    def local_dir(self) -> Path:
        """Where what must be on this machine's disk goes by default (caches, an embedded
        Chroma, the Dagster instance): the data dir when it is local, else ``data/`` here."""
        return Path("data") if is_remote(self.data_dir) else Path(self.data_dir)

    @property
    def cache_dir(self) -> Path:
        return self.cache_path or (self.local_dir / "cache")

    @property
    def chroma_dir(self) -> Path:
        return self.chroma_path or (self.local_dir / "chroma")

    def with_(self, **changes: object) -> Settings:
        return replace(self, **changes)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read the documented variables; unset ones keep the embedded defaults. A value that
        cannot be used is a :class:`ConfigError` (one line, for the CLI and the Dagster UI)."""
        try:
            return cls._from_env(os.environ if env is None else env)
        except ValueError as exc:
            from .errors import ConfigError

            raise ConfigError(f"invalid setting: {exc}") from None

    @classmethod
    def _from_env(cls, e: Mapping[str, str]) -> Settings:
        data_dir = location(e.get("LEGCO_DATA_DIR") or "data")
        return cls(
            data_dir=data_dir,
            inbox=location(e.get("LEGCO_INBOX") or data_dir / "inbox"),
            cache_path=Path(e["LEGCO_CACHE_DIR"]) if e.get("LEGCO_CACHE_DIR") else None,
            chunk_size=_int(e.get("CHUNK_SIZE"), 1000) or 1000,
            chunk_overlap=_int(e.get("CHUNK_OVERLAP"), 200) or 0,
            qa_max_chunk_tokens=_int(e.get("QA_MAX_CHUNK_TOKENS"), 3000) or 3000,
            qa_include_internal_refs=_bool(e.get("QA_INCLUDE_INTERNAL_REFS"), True),
            section_join_tokens=_int(e.get("SECTION_JOIN_TOKENS"), cls.section_join_tokens) or 0,
            default_strategy=Strategy.parse(e.get("DEFAULT_CHUNKING_STRATEGY") or "token"),
            sensor_strategies=_strategies(e.get("LEGCO_SENSOR_STRATEGIES")),
            structure_mode=(e.get("QA_STRUCTURE_MODE") or "auto").lower(),
            image_dpi=_int(e.get("PAGE_IMAGE_DPI"), 150) or 150,
            llm_base_url=e.get("LLM_BASE_URL") or None,
            llm_api_key=e.get("LLM_API_KEY") or None,
            llm_model_name=e.get("LLM_MODEL_NAME") or None,
            llm_max_concurrency=_int(e.get("LLM_MAX_CONCURRENCY"), 8) or 8,
            llm_max_calls_per_document=_int(e.get("LLM_MAX_CALLS_PER_DOCUMENT"), None),
            llm_max_tokens_per_document=_int(e.get("LLM_MAX_TOKENS_PER_DOCUMENT"), None),
            llm_timeout_s=float(e.get("LLM_TIMEOUT_S") or 60.0),
            qa_vision_enabled=_bool(e.get("QA_VISION_ENABLED"), False),
            qa_cache_vision_results=_bool(e.get("QA_CACHE_VISION_RESULTS"), True),
            embedding_model=e.get("EMBEDDING_MODEL") or "use-multilingual",
            embedding_base_url=e.get("EMBEDDING_BASE_URL") or None,
            embedding_api_key=e.get("EMBEDDING_API_KEY") or None,
            chroma_path=Path(e["CHROMA_PATH"]) if e.get("CHROMA_PATH") else None,
            chroma_host=e.get("CHROMA_HOST") or None,
            chroma_port=_int(e.get("CHROMA_PORT"), 8000) or 8000,
            inbox_include=_list(e.get("LEGCO_INBOX_INCLUDE")),
            inbox_exclude=_list(e.get("LEGCO_INBOX_EXCLUDE")),
            max_pages=_int(e.get("LEGCO_MAX_PAGES"), None),
            max_file_mb=_float(e.get("LEGCO_MAX_FILE_MB"), None),
            feed_url=(e.get("LEGCO_FEED_URL") or DEFAULT_FEED_URL).rstrip("/"),
            feed_types=_list(e.get("LEGCO_FEED_TYPES"), ("Chinese", "English")),
            feed_since=e.get("LEGCO_FEED_SINCE") or None,
            feed_interval_minutes=_int(e.get("LEGCO_FEED_INTERVAL_MINUTES"), 60) or 60,
            feed_timeout_s=_float(e.get("LEGCO_FEED_TIMEOUT_S"), 60.0) or 60.0,
            feed_retries=_int(e.get("LEGCO_FEED_RETRIES"), 3) or 0,
            feed_backoff_s=_float(e.get("LEGCO_FEED_BACKOFF_S"), 2.0) or 0.0,
            feed_user_agent=e.get("LEGCO_FEED_USER_AGENT") or FEED_USER_AGENT,
            feed_allowed_hosts=_list(e.get("LEGCO_FEED_ALLOWED_HOSTS"), DEFAULT_FEED_ALLOWED_HOSTS),
            excerpts_base_url=_http_url(e.get("EXCERPTS_BASE_URL"), DEFAULT_EXCERPTS_BASE_URL),
            dagster_home=Path(e["DAGSTER_HOME"]) if e.get("DAGSTER_HOME") else None,
        )


def _http_url(value: str | None, default: str) -> str:
    """An ``http(s)://`` URL ending in ``/`` (the UI follows no other scheme)."""
    if value is None or value.strip() == "":
        return default
    value = value.strip()
    if not value.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {value!r}")
    return value if value.endswith("/") else value + "/"


def _strategies(value: str | None) -> tuple[Strategy, ...]:
    """``token,question`` (the default) or one of them; each once, in the order given."""
    names = _list(value, ("token", "question"))
    return tuple(dict.fromkeys(Strategy.parse(name) for name in names)) or (Strategy.token, Strategy.question)
