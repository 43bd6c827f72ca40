"""What every route and tool of one server shares: the settings, the live index, the excerpt
cache and the LLM (None when none is configured). Built once when the server starts; a
route takes it as a parameter (:data:`Context`), a tool from the server it is built with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request

from legco_assets.core.llm import LLMClient
from legco_assets.core.settings import Settings, Strategy

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
    def default_strategy(self) -> Strategy:
        return self.settings.default_strategy


def get_context(request: Request) -> ServiceContext:
    """The context of the app that answers the request (:func:`.app.create_app` keeps it
    on the app): one place that knows where it is, so a route only names what it needs."""
    return request.app.state.service


# a route's parameter ``service: Context`` is the server's context (a FastAPI dependency)
Context = Annotated[ServiceContext, Depends(get_context)]
