"""``GET /excerpt/{chunk id}``: one chunk's own excerpt, cut on demand from the stored paper
and its strategy's highlights (:func:`legco_assets.core.excerpts.cut_chunk_excerpt`), kept in
a small in-process cache.

Why a cache keyed by the excerpts folder's modification time: cutting a PDF takes tens of
milliseconds and a reader opens the same few results again; a re-ingest rewrites the folder,
so its time moves and the stale cut is never served. Only this route reads the data folder:
nothing else under it (the Dagster instance, Chroma, a paper's other artifacts) has a URL."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from legco_assets.core.excerpts import cut_chunk_excerpt, excerpt_folder
from legco_assets.core.settings import Settings

CACHE_ENTRIES = 48
CONTENT_TYPES = {
    "pdf": "application/pdf",
    "html": "text/html; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
}


class NoSuchChunk(KeyError):
    """No stored chunk has the id (404 ``no such chunk``)."""


class NoExcerptsYet(FileNotFoundError):
    """The chunk is stored but its paper's excerpts are not written yet (404)."""


class ExcerptCache:
    """Cut excerpts by (chunk id, the excerpts folder's mtime), least recently used dropped."""

    def __init__(self, settings: Settings, entries: int = CACHE_ENTRIES):
        self.settings = settings
        self.entries = entries
        self._cache: OrderedDict[tuple[str, int], tuple[bytes, str]] = OrderedDict()
        self._lock = threading.Lock()

    def _stamp(self, chunk_id: str) -> int:
        document = chunk_id.rsplit(":", 2)[0]
        if not document or document.startswith(".") or "/" in document or "\\" in document:
            raise NoSuchChunk(chunk_id)
        try:
            folder = Path(excerpt_folder(self.settings, document))
            return max((p.stat().st_mtime_ns for p in folder.iterdir()), default=folder.stat().st_mtime_ns)
        except OSError:
            return 0

    def get(self, chunk_id: str) -> tuple[bytes, str]:
        """The excerpt's bytes and its content type; :class:`NoSuchChunk` or
        :class:`NoExcerptsYet` when there is none to give."""
        if chunk_id.count(":") < 2:
            raise NoSuchChunk(chunk_id)
        key = (chunk_id, self._stamp(chunk_id))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        try:
            data, extension = cut_chunk_excerpt(self.settings, chunk_id)
        except (KeyError, ValueError):
            raise NoSuchChunk(chunk_id) from None
        except FileNotFoundError:
            raise NoExcerptsYet(chunk_id) from None
        entry = (data, CONTENT_TYPES.get(extension, "application/octet-stream"))
        with self._lock:
            self._cache[key] = entry
            while len(self._cache) > self.entries:
                self._cache.popitem(last=False)
        return entry
