"""Resources configured from the environment.

Optional services (LLM, Chroma server, embedding endpoint) are wired only when their
variables are set: an unset ``EnvVar`` would fail the launch (docs/design.md#settings).

With the code location's entry (``legco_assets.definitions``) and the CLI's, this is where
the environment is read: :func:`resources_for` derives the resources from one
:class:`Settings`, and :class:`LegcoSettings` reads the rest once per run.
"""

from __future__ import annotations

import os
from typing import Any

import dagster as dg
from pydantic import PrivateAttr

from legco_assets.core.llm import LLMClient
from legco_assets.core.settings import Settings
from legco_assets.core.storage import location


class LegcoSettings(dg.ConfigurableResource):
    """Where data lives and how documents are processed (env-derived defaults)."""

    data_dir: str = "data"
    inbox: str = "data/inbox"
    # read once per run, on first use (Dagster makes a fresh copy of the resource for each run,
    # with its config): not in ``setup_for_execution``, where a bad setting would fail the
    # resource's set-up instead of the step that reads it, with its one-line reason
    _settings: Settings | None = PrivateAttr(default=None)

    def settings(self) -> Settings:
        """The settings of this run: the environment's, with this resource's folders."""
        if self._settings is None:
            self._settings = Settings.from_env().with_(
                data_dir=location(self.data_dir), inbox=location(self.inbox)
            )
        return self._settings


class LLMResource(dg.ConfigurableResource):
    """An OpenAI-compatible endpoint; without one every stage uses its rules/geometry."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None

    def client(self, settings: Settings) -> LLMClient | None:
        if not (self.base_url and self.model):
            return None
        return LLMClient.from_settings(
            settings.with_(llm_base_url=self.base_url, llm_model_name=self.model, llm_api_key=self.api_key)
        )


class ChromaResource(dg.ConfigurableResource):
    """Embedded Chroma under the data dir, or a Chroma server when ``host`` is set."""

    host: str | None = None
    port: int = 8000

    def collection(self, settings: Settings) -> Any:
        from legco_assets.core.search import open_collection  # Chroma loads in ~1 s: only when a run opens it

        return open_collection(settings.with_(chroma_host=self.host, chroma_port=self.port))


def _bound(name: str, value: str | None) -> Any:
    """``dg.EnvVar(name)`` when the environment holds this value (the UI then shows the
    variable, never a key), else the value itself (settings built in code, as tests do)."""
    if value is not None and os.environ.get(name) == value:
        return dg.EnvVar(name)
    return value


def resources_for(settings: Settings) -> dict[str, Any]:
    """The resources of these settings: the folders, and the LLM and Chroma server only when
    they are configured."""
    llm = (
        LLMResource(
            base_url=_bound("LLM_BASE_URL", settings.llm_base_url),
            model=_bound("LLM_MODEL_NAME", settings.llm_model_name),
            api_key=_bound("LLM_API_KEY", settings.llm_api_key),
        )
        if settings.llm_enabled
        else LLMResource()
    )
    chroma = (
        ChromaResource(host=_bound("CHROMA_HOST", settings.chroma_host), port=settings.chroma_port)
        if settings.chroma_host
        else ChromaResource()
    )
    return {
        "legco": LegcoSettings(data_dir=str(settings.data_dir), inbox=str(settings.inbox)),
        "llm": llm,
        "chroma": chroma,
    }
