"""Stage 4, chunking: the structured, table-woven text cut into chunk records, by token
windows or one chunk per question/answer exchange, behind one :class:`Chunker` interface.

Code outside this package imports only the names below."""

from __future__ import annotations

from .build import Chunker, FindSections, build_chunks, chunker_for
from .internal_notes import WITHHELD, mark_internal_notes, withheld, withheld_record
from .question_chunking import QuestionChunkingStrategy
from .short_sections import join_short_sections
from .summaries import summarise
from .token_chunking import TokenChunkingStrategy, token_windows, with_paths

__all__ = [
    "Chunker",
    "FindSections",
    "QuestionChunkingStrategy",
    "TokenChunkingStrategy",
    "WITHHELD",
    "build_chunks",
    "chunker_for",
    "join_short_sections",
    "mark_internal_notes",
    "summarise",
    "token_windows",
    "with_paths",
    "withheld",
    "withheld_record",
]
