"""Stage 4, chunking: the structured, table-woven text cut into chunk records, by token
windows or one chunk per question/answer exchange.

Code outside this package imports only the names below."""

from __future__ import annotations

from .question_chunking import QuestionChunkingStrategy
from .short_sections import join_short_sections
from .token_chunking import TokenChunkingStrategy, token_windows

__all__ = [
    "QuestionChunkingStrategy",
    "TokenChunkingStrategy",
    "join_short_sections",
    "token_windows",
]
