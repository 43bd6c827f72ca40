"""One interface for both chunking strategies, the factory that makes one from the settings,
and :func:`build_chunks`, which chunks a paper without knowing which strategy it runs.

As docling-core's ``BaseChunker``: a chunker takes the whole document (here its cleaned pages,
the sections the structure stage found, and the tables) and gives its chunks; how it reads
them is its own business (the token strategy weaves every table into the pages first, the
question strategy embeds a section's tables as it reaches them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..records import Chunk, Page, PageTables, Section, Table
from ..settings import Settings, Strategy
from .question_chunking import QuestionChunkingStrategy
from .token_chunking import TokenChunkingStrategy

FindSections = Callable[[list[Page]], list[Section]]


class Chunker(Protocol):
    """A chunking strategy: ``name`` is its ``strategy_type``; ``Chunk.index`` is the place in
    the list. ``sections`` None: the chunker finds them itself (its ``find_sections``), or
    works without them. ``tables`` as :class:`PageTables` may still be being read."""

    name: str

    def chunk(
        self,
        document_id: str,
        pages: list[Page],
        sections: list[Section] | None,
        tables: list[Table] | PageTables | None = None,
    ) -> list[Chunk]: ...


def chunker_for(strategy: Strategy, settings: Settings, find_sections: FindSections | None = None) -> Chunker:
    """The chunker of ``strategy`` with the settings' limits; ``find_sections``: how to find a
    paper's sections when none are stored (the pipeline's structure step)."""
    if strategy is Strategy.token:
        return TokenChunkingStrategy(settings.chunk_size, settings.chunk_overlap, find_sections=find_sections)
    return QuestionChunkingStrategy(
        max_tokens=settings.qa_max_chunk_tokens,
        chunk_size=settings.chunk_size,
        chunk_overlap=settings.chunk_overlap,
        include_internal_refs=settings.qa_include_internal_refs,
        join_tokens=settings.section_join_tokens,
        find_sections=find_sections,
    )


def build_chunks(
    document_id: str,
    strategy: Strategy,
    pages: list[Page],
    settings: Settings,
    sections: list[Section] | None = None,
    tables: list[Table] | PageTables | None = None,
    find_sections: FindSections | None = None,
) -> list[Chunk]:
    """Chunks of one document for one strategy; tables go in as Markdown in both. The
    question strategy reads ``PageTables`` only as far as the section it is chunking."""
    return chunker_for(strategy, settings, find_sections).chunk(document_id, pages, sections, tables)
