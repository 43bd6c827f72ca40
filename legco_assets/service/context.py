"""What every route and tool of one server shares: the settings, the live index, the excerpt
cache and the LLM (None when none is configured). Built once when the server starts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from legco_assets.core.llm import LLMClient
from legco_assets.core.settings import Settings

from .excerpts import ChunkExcerpts
from .index import LiveIndex


@dataclass
class ServiceContext:
    settings: Settings
    index: LiveIndex
    excerpts: ChunkExcerpts
    llm: Any | None  # an unbudgeted LLMClient, or None

    @classmethod
    def open(cls, settings: Settings) -> ServiceContext:
        """Load the embedder, the BM25 indexes and the store once (seconds), for the process."""
        llm = LLMClient.from_settings(settings)
        return cls(settings, LiveIndex(settings), ChunkExcerpts(settings), llm.unbudgeted() if llm else None)

    @property
    def default_strategy(self) -> str:
        return self.settings.default_strategy.value
