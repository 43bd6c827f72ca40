"""Chroma writes on the embedded client: deterministic ids, replace-by-document, versions kept,
cached embeddings (each behaviour is in vector_store_behaviours.py, shared with the server test)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from legco_assets.core.settings import Settings

from .vector_store_behaviours import BEHAVIOURS


@pytest.mark.parametrize("behaviour", BEHAVIOURS, ids=[b.__name__ for b in BEHAVIOURS])
def test_vector_store_behaviour(settings: Settings, behaviour: Callable[[Settings], None]) -> None:
    behaviour(settings)


def test_the_embedder_encodes_shares_side_by_side_as_one_call_would() -> None:
    """The default embedder splits a paper's texts into shares encoded on every core: each
    text must still get its own vector, in its own place, and BLAS its thread count back."""
    from threadpoolctl import threadpool_info

    from legco_assets.core.search.embeddings import UseMultilingualEmbedding

    texts = [
        f"第{i}項：政府就議員第{i}個質詢作出的答覆，涉及{'強積金對沖' * (i % 5 + 1)}。" for i in range(53)
    ]
    texts += [f"Question {i} on the Mandatory Provident Fund offsetting arrangement" for i in range(20)]
    embedder = UseMultilingualEmbedding(None)
    blas_before = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    shared = embedder._embed(texts)
    assert [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"] == blas_before
    alone = UseMultilingualEmbedding._encoder().encode(texts)
    assert len(shared) == len(texts) > 4 * UseMultilingualEmbedding.SHARE
    similarity = np.einsum("ij,ij->i", np.asarray(shared), alone)
    assert similarity.min() > 0.99999, "every text keeps its own vector, in order"
