"""Chroma writes on the embedded client: deterministic ids, replace-by-document, versions kept,
cached embeddings (each behaviour is in vector_store_behaviours.py, shared with the server test)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from legco_assets.core.settings import Settings

from .vector_store_behaviours import BEHAVIOURS


@pytest.mark.parametrize("behaviour", BEHAVIOURS, ids=[b.__name__ for b in BEHAVIOURS])
def test_vector_store_behaviour(settings: Settings, behaviour: Callable[[Settings], None]) -> None:
    behaviour(settings)
