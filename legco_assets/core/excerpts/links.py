"""Where a chunk's excerpt is, as a path and as a URL, and the bytes a strategy's file holds.

A strategy's excerpts of a paper are one file in the paper's ``excerpts/`` folder:
``<strategy>.pdf`` for a PDF (the paper with every chunk's highlight) or ``<strategy>.html``
for a web page or a DOCX/TXT/Markdown paper (its text once, each chunk's characters marked).
Neither is stored as it is read. The PDF copy is the stored paper (``source.pdf`` beside the
folder) followed by the strategy's update section, stored as ``<strategy>.pdf.update``
(:mod:`increment`), so its fonts and images are not stored again. The HTML page is stored
gzip-compressed, ``<strategy>.html.gz``: it holds a text paper's text once plus its marks,
1.01-1.10x the paper uncompressed (over the bound of less than the paper), 0.09-0.52x compressed.
:func:`link_bytes` gives what such a file holds, for the on-demand cut and the checks.

A chunk's link does not name that file: on a page of the strategy's copy several chunks are
highlighted alike, and a reader could not tell which passage a search result was.
``chunk_file_path`` is the URL path ``excerpt/<chunk id>`` below ``EXCERPTS_BASE_URL``,
where the server (``legco-assets serve``) answers with the chunk's own excerpt, cut on
demand (:func:`.stored.cut_chunk_excerpt`): only its pages and only its highlight. It
follows from the chunk's id alone, so it names what opens whichever machine serves it.
"""

from __future__ import annotations

import gzip
from urllib.parse import quote

from ..settings import Strategy
from ..storage import StorePath

EXTENSIONS = {"pdf": "pdf", "html": "html", "text": "html"}
SOURCE_PDF = "source.pdf"  # the stored paper, in the folder above ``excerpts/``
UPDATE = ".update"  # suffix of the stored update section of ``<strategy>.pdf``
GZIP = ".gz"  # suffix of the stored, compressed ``<strategy>.html``


def excerpt_kind(document_kind: str) -> str:
    """``pdf`` for a PDF paper, ``html`` for a web page, ``text`` for DOCX/TXT/Markdown."""
    return document_kind if document_kind in ("pdf", "html") else "text"


def excerpt_file(folder: StorePath, strategy: Strategy, document_kind: str) -> StorePath:
    """The file a strategy's excerpts are in, in a paper's ``excerpts`` folder."""
    return folder / f"{strategy.value}.{EXTENSIONS[excerpt_kind(document_kind)]}"


def update_file(copy: StorePath) -> StorePath:
    """Where the update section of the PDF copy ``copy`` is stored."""
    return copy.with_name(copy.name + UPDATE)


def stored_file(path: StorePath) -> StorePath:
    """The file stored for the excerpt file ``path`` a link names: a PDF copy's update
    section, an HTML page's gzip-compressed bytes."""
    return update_file(path) if path.suffix == ".pdf" else path.with_name(path.name + GZIP)


def compressed(page: bytes) -> bytes:
    """An HTML page as it is stored (gzip, no timestamp: the same page, the same bytes)."""
    return gzip.compress(page, compresslevel=9, mtime=0)


EXCERPT_PREFIX = "excerpt/"  # chunk_file_path: the URL path of a chunk's own excerpt


def chunk_link(chunk_id: str) -> str:
    """``chunk_file_path``: where the chunk's own excerpt opens, relative to
    ``EXCERPTS_BASE_URL`` (``excerpt/<id>``, the id percent-quoted but for its ``:``)."""
    return EXCERPT_PREFIX + quote(chunk_id, safe=":")


def link_bytes(path: StorePath) -> bytes:
    """What the excerpt file ``path`` holds: a PDF copy is the stored paper and its update
    section joined, an HTML page its stored bytes decompressed. ``FileNotFoundError`` when
    it is not there."""
    stored = stored_file(path).read_bytes()
    if path.suffix != ".pdf":
        return gzip.decompress(stored)
    return (path.parent.parent / SOURCE_PDF).read_bytes() + stored


def excerpt_url(base_url: str, link: str) -> str:
    """The URL of ``link`` (a ``chunk_file_path``) where the excerpts are served from
    ``base_url`` (``legco-assets serve``, or any server that answers ``excerpt/<id>``)."""
    return base_url.rstrip("/") + "/" + link.lstrip("/")
