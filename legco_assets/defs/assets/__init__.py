"""The asset graph, one dynamic partition per document.

Each asset calls one ``stage_*`` function of the core, which reads its inputs from the
document's artifact folder and writes its output there; dependencies are declared with
``deps`` so materialising a subset re-uses stored upstream results (docs/design.md#asset-graph). Metadata is
what a person reads in the UI.

One module per stage, named as the core's stage packages (``core/<stage>/``) are:
``sources`` (source_document), ``read`` (page_text, page_images), ``tables`` (page_tables),
``structure`` (document_structure), ``chunking`` (chunks and their run config), ``search``
(vector_index) and ``excerpts`` (chunk_excerpts); ``common`` holds what they share.
"""

from .chunking import CHUNK_CHECKS, ChunkingConfig, chunks
from .common import COUNCIL_COLUMNS, STRATEGY_TAG
from .excerpts import EXCERPT_LOCATED, chunk_excerpts
from .read import PageImagesConfig, page_images, page_text
from .search import COUNTERPART_CHECK, RETRIEVAL_CHECK, vector_index
from .sources import source_document
from .structure import STRUCTURE_CHECKS, document_structure
from .tables import page_tables

ALL_ASSETS = [
    source_document,
    page_text,
    page_images,
    page_tables,
    document_structure,
    chunks,
    vector_index,
    chunk_excerpts,
]

__all__ = [
    "ALL_ASSETS",
    "CHUNK_CHECKS",
    "COUNCIL_COLUMNS",
    "COUNTERPART_CHECK",
    "EXCERPT_LOCATED",
    "RETRIEVAL_CHECK",
    "STRATEGY_TAG",
    "STRUCTURE_CHECKS",
    "ChunkingConfig",
    "PageImagesConfig",
    "chunk_excerpts",
    "chunks",
    "document_structure",
    "page_images",
    "page_tables",
    "page_text",
    "source_document",
    "vector_index",
]
