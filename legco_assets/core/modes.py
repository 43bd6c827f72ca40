"""The search modes, in a module of their own that imports nothing: the CLI's parser lists
them (``--mode``) without loading the search (numpy, BM25, Chroma) that ranks by them, and
every face of the program (the CLI, the API, the MCP tools) takes the one list."""

from __future__ import annotations

from enum import Enum


class Mode(str, Enum):
    """How to rank: fused, chunk embeddings only, or BM25 only."""

    hybrid = "hybrid"
    vector = "vector"
    bm25 = "bm25"


DEFAULT_MODE = Mode.hybrid
