"""``GET /excerpt/{chunk id}``: one chunk's own excerpt, cut on demand from the stored paper
and its strategy's highlights by :func:`legco_assets.core.excerpts.cut_chunk_excerpt` (which
keeps the last cuts in memory until the paper's excerpts are written again). Only this route
reads the data folder: nothing else under it (the Dagster instance, Chroma, a paper's other
artifacts) has a URL."""

from __future__ import annotations

from dataclasses import dataclass

from legco_assets.core.excerpts import cut_chunk_excerpt
from legco_assets.core.settings import Settings

CONTENT_TYPES = {"pdf": "application/pdf", "html": "text/html; charset=utf-8"}


class NoSuchChunk(KeyError):
    """No stored chunk has the id (404 ``no such chunk``)."""


class NoExcerptsYet(FileNotFoundError):
    """The chunk is stored but its paper's excerpts are not written yet (404)."""


@dataclass(frozen=True)
class ChunkExcerpts:
    """The chunks' excerpts of one data folder, as the route answers them: internal notes
    redacted unless ``SERVE_INTERNAL_REFS`` is on."""

    settings: Settings

    def get(self, chunk_id: str) -> tuple[bytes, str]:
        """The excerpt's bytes and its content type; :class:`NoSuchChunk` or
        :class:`NoExcerptsYet` when there is none to give."""
        try:
            withhold = not self.settings.serve_internal_refs
            data, extension = cut_chunk_excerpt(self.settings, chunk_id, withhold)
        except (KeyError, ValueError):
            raise NoSuchChunk(chunk_id) from None
        except FileNotFoundError:
            raise NoExcerptsYet(chunk_id) from None
        return data, CONTENT_TYPES.get(extension, "application/octet-stream")
