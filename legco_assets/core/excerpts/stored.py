"""The excerpts of a stored paper: where its ``excerpts`` folder is, what kind of excerpt it
gets, each chunk's ``chunk_file_path`` in it, and one chunk's excerpt cut by its id, all
read from the paper's artifact folder (:mod:`..artifacts`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..artifacts import Artifacts, SourceInfo
from ..records import ChunkRecord
from ..settings import Settings, Strategy
from .links import chunk_link
from .make import ExcerptReport, cut_excerpt


@dataclass
class ExcerptsOutcome:
    """What ``chunk_excerpts`` shows: the run's report (:func:`.make.write_excerpts`), the
    folder its links point into, and the paper's own size (the excerpts must cost less)."""

    report: ExcerptReport
    folder: Path
    paper_bytes: int


def excerpt_source_kind(info: SourceInfo) -> str:
    """The kind of excerpt a paper gets: a PDF that only pypdf could open is excerpted
    from its text, as PDFium (which cuts and highlights pages) could not read it."""
    return "text" if info.kind == "pdf" and info.extractor == "pypdf" else info.kind


def excerpt_folder(settings: Settings, document_id: str) -> Path:
    """A paper's ``excerpts`` folder: one file (and manifest) per strategy."""
    return Artifacts(settings, document_id).path("excerpts")


def with_excerpt_paths(
    settings: Settings, document_id: str, strategy: Strategy, records: list[ChunkRecord]
) -> list[ChunkRecord]:
    """The records with ``chunk_file_path``: the strategy's excerpt file that
    ``chunk_excerpts`` writes (or wrote) and the chunk's place in it (``#page=N``). It
    follows from the chunk alone, so ``vector_index`` stores it without waiting for the
    excerpts."""

    kind = excerpt_source_kind(Artifacts(settings, document_id).source())
    folder = excerpt_folder(settings, document_id)
    links = [chunk_link(folder, strategy.value, kind, r.metadata) for r in records]
    return [replace(r, metadata=replace(r.metadata, chunk_file_path=link)) for r, link in zip(records, links)]


def cut_chunk_excerpt(settings: Settings, chunk_id: str) -> tuple[bytes, str]:
    """One stored chunk's excerpt on its own (:func:`.make.cut_excerpt`) and its extension;
    ``KeyError`` when no stored chunk has that id."""
    document_id, strategy_name, _ = chunk_id.rsplit(":", 2)
    strategy = Strategy.parse(strategy_name)
    art = Artifacts(settings, document_id)
    if not art.has("source.json"):
        raise KeyError(chunk_id)
    record = next((r for r in art.read_chunks(strategy) if r.id == chunk_id), None)
    if record is None:
        raise KeyError(chunk_id)
    info = art.source()
    folder, kind = excerpt_folder(settings, document_id), excerpt_source_kind(info)
    return cut_excerpt(folder, strategy.value, kind, record, art.pages(), info.filename)
