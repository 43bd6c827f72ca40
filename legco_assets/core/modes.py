"""The closed sets that the command line lists, in a module of their own that imports
nothing: the chunking strategies and the search modes. The CLI's parser lists them
(``--strategy``, ``--mode``) without loading the settings (pydantic) or the search (numpy,
BM25, Chroma) that use them, and every face of the program (the CLI, the API, the MCP tools,
the settings) takes the one list."""

from __future__ import annotations

from enum import Enum


class Strategy(str, Enum):
    """The chunking strategies; the value is what users type and what ids carry."""

    token = "token"
    question = "question"

    @classmethod
    def parse(cls, value: str) -> Strategy:
        """Turn user input into a strategy, with an error that lists the valid ones."""
        try:
            return cls(value.strip().lower())
        except ValueError:
            valid = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown strategy {value!r} (valid: {valid})") from None


# the strategy of a command or run that names none, when DEFAULT_CHUNKING_STRATEGY is unset
DEFAULT_STRATEGY = Strategy.token


class Mode(str, Enum):
    """How to rank: fused, chunk embeddings only, or BM25 only."""

    hybrid = "hybrid"
    vector = "vector"
    bm25 = "bm25"


DEFAULT_MODE = Mode.hybrid
