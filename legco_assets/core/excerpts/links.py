"""Where a chunk's excerpt is, as a path and as a URL, and the bytes a link opens.

A strategy's excerpts of a paper are one file in the paper's ``excerpts/`` folder:
``<strategy>.pdf`` for a PDF (the paper with every chunk's highlight, a chunk's link
``…/excerpts/<strategy>.pdf#page=N`` at its first page) or ``<strategy>.html`` for a web
page or a DOCX/TXT/Markdown paper (its text once, a chunk's link ``#chunk-<index>``).
Neither is stored as linked. The PDF copy is the stored paper (``source.pdf`` beside the
folder) followed by the strategy's update section, stored as ``<strategy>.pdf.update``
(:mod:`increment`), so its fonts and images are not stored again. The HTML page is stored
gzip-compressed, ``<strategy>.html.gz``: it holds a text paper's text once plus its marks,
1.01-1.10x the paper uncompressed (over issue 42's bound), 0.09-0.52x compressed;
the server sends it as it is stored with ``Content-Encoding: gzip``, which browsers undo.
:func:`link_bytes` gives what a link opens, for the file server, the on-demand cut and
the checks.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from urllib.parse import quote

from ..records import ChunkMetadata

EXTENSIONS = {"pdf": "pdf", "html": "html", "text": "html"}
SOURCE_PDF = "source.pdf"  # the stored paper, in the folder above ``excerpts/``
UPDATE = ".update"  # suffix of the stored update section of ``<strategy>.pdf``
GZIP = ".gz"  # suffix of the stored, compressed ``<strategy>.html``


def excerpt_kind(document_kind: str) -> str:
    """``pdf`` for a PDF paper, ``html`` for a web page, ``text`` for DOCX/TXT/Markdown."""
    return document_kind if document_kind in ("pdf", "html") else "text"


def excerpt_file(folder: Path, strategy: str, document_kind: str) -> Path:
    """The file a strategy's excerpts are in, in a paper's ``excerpts`` folder."""
    return folder / f"{strategy}.{EXTENSIONS[excerpt_kind(document_kind)]}"


def update_file(copy: Path) -> Path:
    """Where the update section of the PDF copy ``copy`` is stored."""
    return copy.with_name(copy.name + UPDATE)


def stored_file(path: Path) -> Path:
    """The file stored for the excerpt file ``path`` a link names: a PDF copy's update
    section, an HTML page's gzip-compressed bytes."""
    return update_file(path) if path.suffix == ".pdf" else path.with_name(path.name + GZIP)


def compressed(page: bytes) -> bytes:
    """An HTML page as it is stored (gzip, no timestamp: the same page, the same bytes)."""
    return gzip.compress(page, compresslevel=9, mtime=0)


def chunk_link(folder: Path, strategy: str, document_kind: str, meta: ChunkMetadata) -> str:
    """``chunk_file_path``: the strategy's file and the chunk's place in it (``#page=N``,
    N its first page, or ``#chunk-<index>``)."""
    path = excerpt_file(folder, strategy, document_kind)
    fragment = f"page={max(1, meta.page_start)}" if path.suffix == ".pdf" else f"chunk-{meta.chunk_index}"
    return f"{path}#{fragment}"


def split_link(link: str) -> tuple[Path, str]:
    """A ``chunk_file_path`` as (file, fragment)."""
    path, _, fragment = link.partition("#")
    return Path(path), fragment


def link_bytes(path: Path) -> bytes:
    """What the excerpt file ``path`` holds: a PDF copy is the stored paper and its update
    section joined, an HTML page its stored bytes decompressed. ``FileNotFoundError`` when
    it is not there."""
    stored = stored_file(path).read_bytes()
    if path.suffix != ".pdf":
        return gzip.decompress(stored)
    return (path.parent.parent / SOURCE_PDF).read_bytes() + stored


def excerpt_url(base_url: str, documents_dir: Path, link: str) -> str:
    """The URL of ``link`` (a ``chunk_file_path`` under ``documents_dir``) where the
    excerpts are served from ``base_url`` (``make ui``'s server, an object store, a web
    server): the path below the documents folder, each part quoted, and the fragment."""
    path, fragment = split_link(link)
    relative = path.resolve().relative_to(documents_dir.resolve())
    url = base_url.rstrip("/") + "/" + "/".join(quote(part) for part in relative.parts)
    return f"{url}#{fragment}" if fragment else url
