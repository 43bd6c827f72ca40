"""Find the tables on a document's pages: the pure function behind the ``page_tables`` asset.

Geometry first, always (:mod:`.geometry`; a long document on several cores, :mod:`.workers`);
with a vision LLM configured, the pages with a detected table are read from their image
(:mod:`.vision`); last, a table that goes on over a page break is linked to its first part
(:mod:`.continued`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field
from typing import Any

from ..llm import LLMClient
from ..read import SourceBytes, document_kind
from ..records import Page, PageTables, Table
from ..settings import Settings
from .continued import link_continuations, link_pages
from .geometry import iter_geometric_tables
from .vision import read_tables_from_images
from .workers import GeometricTables


@dataclass
class TablesResult:
    """What ``page_tables`` stores: the tables and what it took to find them."""

    tables: list[Table]
    pages_with_tables: list[int]
    vision_pages: int = 0
    warnings: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TablesResult:
        return cls(
            tables=[Table.from_dict(t) for t in data.get("tables", [])],
            pages_with_tables=list(data.get("pages_with_tables", [])),
            vision_pages=int(data.get("vision_pages", 0)),
            warnings=list(data.get("warnings", [])),
            stats=dict(data.get("stats", {})),
        )


# -- the page_tables function --------------------------------------------------------------------
def find_tables(
    pdf_bytes: bytes,
    pages: list[Page],
    settings: Settings,
    llm: LLMClient | None = None,
    geometry: GeometricTables | None = None,
) -> TablesResult:
    """Tables on the document's pages (the ``page_tables`` asset's pure function).

    Geometry first (always; it is fast and the fallback for every page). With a vision LLM
    configured (``settings.llm_enabled`` and ``settings.qa_vision_enabled``; ``llm`` or one
    built from ``settings``), the pages with a detected table are read from their image and a
    valid reply replaces the geometric tables of that page; a failed or invalid reply keeps
    them and adds a warning. ``stats`` holds what this call spent (LLM calls made/cached,
    failures, tokens, seconds) and ``seconds`` for the whole call. ``geometry``: the same
    document's geometric tables, already started (:class:`GeometricTables`, all pages or
    these pages); without it they are found here, on several cores for a long document.
    """
    started = time.perf_counter()
    numbers = [p.number for p in pages] if pages else None
    by_page: dict[int, list[Table]] = {}
    warnings: list[str] = []
    # the same keys with or without an LLM, so the asset's metadata always reads the same
    stats: dict[str, Any] = {
        key: 0
        for key in (
            "llm_calls",
            "llm_cached",
            "llm_failures",
            "llm_tokens_in",
            "llm_tokens_out",
            "llm_seconds",
        )
    }
    vision_pages = 0
    client = None
    if settings.llm_enabled and settings.qa_vision_enabled:
        client = llm if llm is not None else LLMClient.from_settings(settings)

    def detected() -> Iterator[int]:
        if client is None or geometry is not None:
            found: Iterable[tuple[int, list[Table]]] = _geometry_pages(pdf_bytes, numbers, geometry)
        else:  # page by page, so the vision model gets each page as soon as it is found
            found = iter_geometric_tables(pdf_bytes, numbers)
        for number, tables in found:
            if tables:
                by_page[number] = tables
                yield number

    if client is None:
        for _ in detected():
            pass
    else:
        before = client.stats.as_dict()
        # pages go to the vision model as soon as geometry has found a table on them
        outcome = read_tables_from_images(pdf_bytes, pages, detected(), settings, client, by_page)
        after = client.stats.as_dict()
        stats.update({key: round(after[key] - before[key], 3) for key in after})
        warnings.extend(outcome.warnings)
        vision_pages = outcome.pages
        stats.update(outcome.counts)
    stats["geometric_tables"] = sum(len(t) for t in by_page.values())
    if client is not None:
        for number, tables in outcome.tables.items():
            by_page[number] = tables
    tables = link_continuations({k: v for k, v in by_page.items() if v}, pages)
    stats["tables"] = len(tables)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    return TablesResult(
        tables=tables,
        pages_with_tables=sorted({t.page for t in tables}),
        vision_pages=vision_pages,
        warnings=warnings,
        stats=stats,
    )


def iter_page_tables(
    pdf_bytes: bytes,
    pages: list[Page],
    settings: Settings,
    llm: LLMClient | None = None,
    geometry: GeometricTables | None = None,
) -> Iterator[tuple[int, list[Table]]]:
    """What :func:`find_tables` finds, as ``(page number, tables)`` in page order. Without
    a vision LLM each page comes as soon as it is read and linked to the page before, so a
    long document's first pages can be chunked while the workers read its last
    (:class:`~legco_assets.core.records.PageTables`); with one, once all are read."""
    if settings.llm_enabled and settings.qa_vision_enabled:
        by_page: dict[int, list[Table]] = {}
        for table in find_tables(pdf_bytes, pages, settings, llm, geometry).tables:
            by_page.setdefault(table.page, []).append(table)
        yield from sorted(by_page.items())
        return
    numbers = [p.number for p in pages] if pages else None
    yield from link_pages(_geometry_pages(pdf_bytes, numbers, geometry), pages)


def _geometry_pages(
    pdf_bytes: bytes, numbers: list[int] | None, geometry: GeometricTables | None
) -> Iterator[tuple[int, list[Table]]]:
    """Geometric tables of ``numbers`` (all pages when None) in order, from ``geometry``
    when it was started for this document, else found here (on several cores when long)."""
    if geometry is None:
        return GeometricTables(pdf_bytes, numbers).in_order()
    wanted = set(numbers) if numbers is not None else None
    return ((n, t) for n, t in geometry.in_order() if wanted is None or n in wanted)


# -- a paper's tables, whatever its kind ------------------------------------------------------------
def find_page_tables(
    source: SourceBytes,
    pages: list[Page],
    settings: Settings,
    llm: LLMClient | None = None,
    geometry: GeometricTables | None = None,
) -> TablesResult | None:
    """Tables per page (geometric, or vision when configured); None for non-PDF inputs.
    ``geometry``: what :func:`start_page_tables` started for this source, if anything."""
    if document_kind(source) != "pdf":
        return None

    return find_tables(source.data, pages, settings, llm, geometry)


def page_tables_as_read(
    source: SourceBytes,
    pages: list[Page],
    settings: Settings,
    llm: LLMClient | None = None,
    geometry: GeometricTables | None = None,
) -> PageTables | None:
    """:func:`find_page_tables`'s tables, handed over page by page as they are read
    (:class:`PageTables`): the question chunker chunks the first sections of a long PDF while
    the workers of :func:`start_page_tables` read its last pages. None for non-PDF inputs."""
    if document_kind(source) != "pdf":
        return None

    return PageTables(iter_page_tables(source.data, pages, settings, llm, geometry))


def start_page_tables(source: SourceBytes) -> AbstractContextManager[GeometricTables | None]:
    """Start finding a PDF's geometric tables in worker processes, to be collected by
    :func:`find_page_tables` (a context manager: leaving it stops the workers). Geometry
    needs only the bytes, so it runs while this process reads and structures the text.
    Nothing for other kinds of document."""
    if document_kind(source) != "pdf":
        return nullcontext(None)

    return GeometricTables(source.data)
