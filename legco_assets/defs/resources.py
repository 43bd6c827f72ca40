"""Resources configured from the environment.

Optional services (LLM, Chroma server, embedding endpoint) are wired only when their
variables are set: an unset ``EnvVar`` would fail the launch (DESIGN.md).
"""

from __future__ import annotations

import os
from typing import Any, Optional

import dagster as dg

from legco_assets.core.llm import LLMClient
from legco_assets.core.settings import Settings


class LegcoSettings(dg.ConfigurableResource):
    """Where data lives and how documents are processed (env-derived defaults)."""

    data_dir: str = "data"
    inbox: str = "data/inbox"

    def settings(self) -> Settings:
        env = dict(os.environ)
        env["LEGCO_DATA_DIR"] = self.data_dir
        env["LEGCO_INBOX"] = self.inbox
        return Settings.from_env(env)


class LLMResource(dg.ConfigurableResource):
    """An OpenAI-compatible endpoint; without one every stage uses its rules/geometry."""

    base_url: Optional[str] = None
    model: Optional[str] = None
    api_key: Optional[str] = None

    def client(self, settings: Settings) -> LLMClient | None:
        if not (self.base_url and self.model):
            return None
        return LLMClient.from_settings(settings.with_(llm_base_url=self.base_url, llm_model_name=self.model, llm_api_key=self.api_key))


class ChromaResource(dg.ConfigurableResource):
    """Embedded Chroma under the data dir, or a Chroma server when ``host`` is set."""

    host: Optional[str] = None
    port: int = 8000

    def collection(self, settings: Settings) -> Any:
        from legco_assets.core.search import open_collection  # Chroma loads in ~1 s: only when a run opens it

        return open_collection(settings.with_(chroma_host=self.host, chroma_port=self.port))


def resources_from_env() -> dict[str, Any]:
    env = os.environ
    data_dir = env.get("LEGCO_DATA_DIR") or "data"
    llm = (
        LLMResource(base_url=dg.EnvVar("LLM_BASE_URL"), model=dg.EnvVar("LLM_MODEL_NAME"),
                    api_key=dg.EnvVar("LLM_API_KEY") if env.get("LLM_API_KEY") else None)
        if env.get("LLM_BASE_URL") and env.get("LLM_MODEL_NAME")
        else LLMResource()
    )
    chroma = (
        ChromaResource(host=dg.EnvVar("CHROMA_HOST"), port=int(env.get("CHROMA_PORT") or 8000))
        if env.get("CHROMA_HOST")
        else ChromaResource()
    )
    return {
        "legco": LegcoSettings(data_dir=data_dir, inbox=env.get("LEGCO_INBOX") or f"{data_dir}/inbox"),
        "llm": llm,
        "chroma": chroma,
    }
