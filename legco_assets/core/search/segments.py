"""One paper's entries in the search index, written when the paper is indexed and read back
by a server without rebuilding anything: a *segment* (one paper version, one strategy).

Why per paper: LegCo's records are an archive that grows a paper at a time. A keyword index
built over the whole store (what :mod:`.bm25_index` caches) must be rebuilt when one paper
changes, and a server that loads every chunk's text and metadata into memory grows with the
archive. A segment holds what ranking needs of one paper, in arrays a server maps from disk:

- its BM25 *postings*, not scores: each token (by a 64-bit hash of its text, so segments share
  no vocabulary) with the rows holding it and how often, and each row's length. BM25's scores
  depend on the whole scope (document count, mean length, each token's document frequency),
  so :mod:`.segment_scope` computes them at query time from every segment's postings, with
  the formula and float types of ``bm25s`` (Lucene's variant): a scope of segments scores as
  the index built over the same chunks would.
- its unit chunk vectors (the server ranks papers written after it opened Chroma by them)
  and its question-side vectors (:func:`.question_side.question_vectors`, embedded here at
  index time, so a server never embeds a stored chunk);
- per row the filter columns (:class:`.hits.RowFacts`), the script, the id, and each
  variant character's count (:func:`.variants.variant_counts`);
- its chunk records as Chroma returned them (one JSON line per row, with the byte offset of
  each line), read by row when a hit is answered.

Every array lives in one file (``arrays.bin``, each array's dtype, shape and offset in
``segment.json`` beside the columns): a server over an archive of thousands of papers opens
two files and maps one per paper, not one per array (start-up, and the kernel's limit on
mapped areas). The vectors are there twice: in float32, read only for the rows a ranker
rescores, and as int8 per row scaled to its largest component (a quarter of the bytes),
which every search scans (:mod:`.vector_rows`).

A segment is written whole into a staging folder and renamed into place: a reader sees all
of a paper or none of it. It is never changed afterwards, but for metadata that a later paper
changes (the other-language version's links): those go to ``overlay.json`` beside it
(replaced whole), applied when a record or the columns are read.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import sys
import tempfile
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from ..records import ChunkRecord
from .bm25_index import TOKENIZER_VERSION, script_of, tokenize
from .hits import RowFacts, shared_tuples
from .question_side import question_vectors, unit_rows
from .variants import variant_counts
from .vector_rows import quantized

SEGMENT_FORMAT = 2  # with the tokeniser's version: a segment of another format is not read
ARRAYS = "arrays.bin"
DESCRIPTION = "segment.json"
ALIGN = 64  # each array starts on a cache line
PICKED = ("vectors", "question_vectors", "records")  # read a few rows at a time, never scanned
LOADED = ("lengths", "scripts", "asked", "question_rows", "offsets", "chunk_sums", "question_sums")
SCRIPTS = ("en", "zh")  # the rows of ``chunk_sums`` and ``question_sums``
OVERLAY = "overlay.json"
RECORD_CACHE = 4096  # records kept once read, the least recently used dropped (hits repeat)


def term_key(token: str) -> int:
    """A token's key in every segment: the first 8 bytes of its BLAKE2b digest (a collision
    between two of the archive's few million distinct tokens is about 1 in 10^7)."""
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")


def term_keys(tokens: Sequence[str]) -> np.ndarray:
    return np.fromiter((term_key(t) for t in tokens), dtype=np.uint64, count=len(tokens))


@dataclass
class Segment:
    """One written segment, its arrays memory-mapped (postings, vectors) or loaded (the
    per-row columns), its records read by row."""

    folder: Path
    meta: dict[str, Any]
    ids: list[str]
    facts: RowFacts
    counterpart_ids: list[str | None]
    counterpart_documents: list[str | None]
    variants: Counter[str]
    arrays: dict[str, np.ndarray]
    overlay: dict[str, dict[str, Any]] = field(default_factory=dict)
    stamp: tuple[str, int] = ("", 0)  # folder name and overlay mtime: what a reader compares

    @property
    def rows(self) -> int:
        return len(self.ids)

    @property
    def document_id(self) -> str:
        return str(self.meta["document_id"])

    @property
    def strategy(self) -> str:
        return str(self.meta["strategy"])

    def holds(self, key: int) -> bool:
        terms = self.arrays["terms"]
        at = int(np.searchsorted(terms, np.uint64(key)))
        return at < len(terms) and int(terms[at]) == key

    def record(self, row: int) -> ChunkRecord:
        """The chunk record of ``row``, as Chroma returned it, with the overlay applied."""
        return _record(self, row)

    def read_line(self, row: int) -> dict[str, Any]:
        offsets = self.arrays["offsets"]
        return json.loads(bytes(self.arrays["records"][int(offsets[row]) : int(offsets[row + 1])]))


_RECORDS: OrderedDict[tuple[str, tuple[str, int], int], ChunkRecord] = OrderedDict()
_RECORDS_LOCK = threading.Lock()


def _record(segment: Segment, row: int) -> ChunkRecord:
    key = (str(segment.folder), segment.stamp, row)
    with _RECORDS_LOCK:
        found = _RECORDS.get(key)
        if found is not None:
            _RECORDS.move_to_end(key)
            return found
    line = segment.read_line(row)
    meta = dict(line["metadata"])
    for name, value in segment.overlay.get(line["id"], {}).items():
        if value is None:
            meta.pop(name, None)
        else:
            meta[name] = value
    found = ChunkRecord.from_chroma(line["id"], line["text"], meta)
    with _RECORDS_LOCK:
        _RECORDS[key] = found
        if len(_RECORDS) > RECORD_CACHE:
            _RECORDS.popitem(last=False)
    return found


def forget_cached(segment: Segment) -> None:
    """Drop the records kept of ``segment`` (it was replaced or removed)."""
    mine = (str(segment.folder), segment.stamp)
    with _RECORDS_LOCK:
        for key in [k for k in _RECORDS if k[:2] == mine]:
            del _RECORDS[key]


# -- writing ----------------------------------------------------------------------------------
def write_segment(
    folder: Path,
    records: Sequence[ChunkRecord],
    chroma_metadatas: Sequence[dict[str, Any]],
    vectors: Sequence[Any],
    sides: str,
    embed: Callable[[list[str]], list[Any]],
) -> None:
    """Write the segment of one paper version's chunks of one strategy into ``folder``
    (which must not exist; made whole or not at all).

    ``records``, ``chroma_metadatas`` and ``vectors`` are the stored chunks as Chroma holds
    them (:func:`.vector_store.stored_vectors`), in any order: rows are sorted by id, the
    order a scope built from Chroma has. ``sides`` and ``embed``: the question side of the
    strategy (``retrieval.QUESTION_SIDE``) and the embedder of question texts."""
    order = sorted(range(len(records)), key=lambda i: records[i].id)
    records = [records[i] for i in order]
    metadatas = [chroma_metadatas[i] for i in order]
    vectors = [vectors[i] for i in order]
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder.parent))
    try:
        _write(staging, records, metadatas, vectors, sides, embed)
        os.rename(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _write(
    folder: Path,
    records: list[ChunkRecord],
    metadatas: list[dict[str, Any]],
    vectors: list[Any],
    sides: str,
    embed: Callable[[list[str]], list[Any]],
) -> None:
    tokens = [tokenize(r.text) for r in records]
    arrays = _postings(tokens)
    question_rows, questions = question_vectors(records, vectors, sides, embed)
    scripts = np.array([script_of(r.text) for r in records], dtype="<U2")
    units = unit_rows(vectors) if records else np.zeros((0, 0), dtype=np.float32)
    arrays.update(
        lengths=np.array([len(t) for t in tokens], dtype=np.int64),
        scripts=scripts,
        chunk_sums=script_sums(units, scripts),
        question_sums=script_sums(questions, scripts[question_rows]),
        asked=np.array([bool(r.metadata.question_text) for r in records], dtype=bool),
        vectors=units,
        question_rows=question_rows,
        question_vectors=questions,
    )
    for name in ("vectors", "question_vectors"):
        arrays[f"{name}_i8"], arrays[f"{name}_scale"] = quantized(arrays[name])
    lines = [
        (json.dumps({"id": r.id, "text": r.text, "metadata": m}, ensure_ascii=False) + "\n").encode("utf-8")
        for r, m in zip(records, metadatas)
    ]
    arrays["offsets"] = np.cumsum([0] + [len(line) for line in lines], dtype=np.int64)
    arrays["records"] = np.frombuffer(b"".join(lines), dtype=np.uint8)
    layout = _write_arrays(folder / ARRAYS, arrays)
    facts = RowFacts.of(records)
    columns = {
        "ids": [r.id for r in records],
        "dates": list(facts.dates),
        "kinds": list(facts.kinds),
        "askers": list(facts.askers),
        "answerers": list(facts.answerers),
        "speakers": [list(v) if v else None for v in facts.speakers],
        "question_ids": list(facts.question_ids),
        "versions": list(facts.versions),
        "counterpart_ids": [r.metadata.counterpart_id for r in records],
        "counterpart_documents": [r.metadata.counterpart_document_id for r in records],
        "variants": dict(variant_counts(r.text for r in records)),
    }
    first = records[0] if records else None
    meta = {
        "format": SEGMENT_FORMAT,
        "tokenizer": TOKENIZER_VERSION,
        "sides": sides,
        "document_id": first.document_id if first else "",
        "strategy": first.metadata.strategy_type if first else "",
        "sha256": first.metadata.content_sha256 if first else "",
        "rows": len(records),
        "paper": _paper_fields(first) if first else {},
        "arrays": layout,
        "columns": columns,
    }
    (folder / DESCRIPTION).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")


def _write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> dict[str, list[Any]]:
    """Write ``arrays`` one after another into ``path``; returns name → [dtype, shape, offset]."""
    layout: dict[str, list[Any]] = {}
    at = 0
    with open(path, "wb") as handle:
        for name, array in arrays.items():
            array = np.ascontiguousarray(array)
            pad = -at % ALIGN
            handle.write(b"\0" * pad)
            at += pad
            layout[name] = [array.dtype.str, list(array.shape), at]
            handle.write(array.tobytes())
            at += array.nbytes
    return layout


def read_description(folder: Path) -> dict[str, Any]:
    """A segment's ``segment.json``: format, paper fields, the arrays' layout, the columns."""
    return json.loads((folder / DESCRIPTION).read_text(encoding="utf-8"))


def script_sums(units: np.ndarray, scripts: np.ndarray) -> np.ndarray:
    """Per script of :data:`SCRIPTS`, the float64 sum of its rows' unit vectors and, in the
    last column, how many rows: what a scope's mean vector per script adds up from."""
    dim = units.shape[1] if units.ndim == 2 else 0
    out = np.zeros((len(SCRIPTS), dim + 1), dtype=np.float64)
    for i, script in enumerate(SCRIPTS):
        mine = units[scripts == script] if len(units) else units
        if len(mine):
            out[i, :dim] = mine.astype(np.float64).sum(axis=0)
            out[i, dim] = len(mine)
    return out


def _paper_fields(record: ChunkRecord) -> dict[str, Any]:
    """What the document listing shows of a paper, from its first chunk's metadata."""
    m = record.metadata
    return {
        "filename": m.filename,
        "date": m.date,
        "date_precision": m.date_precision,
        "kind": m.kind,
        "paper_number": m.paper_number,
        "counterpart_document_id": m.counterpart_document_id,
    }


def _postings(tokens: list[list[str]]) -> dict[str, np.ndarray]:
    """The token → (rows, counts) lists of a paper, keyed and sorted by :func:`term_key`, each
    token's rows in order. Counted in numpy over the paper's tokens in one array (a token's
    number is its first appearance), not row by row in Python: the same arrays in 15% less
    time on the real papers' tokens."""
    flat = list(chain.from_iterable(tokens))
    vocabulary = list(dict.fromkeys(flat))
    number = dict(zip(vocabulary, range(len(vocabulary))))
    token_ids = np.fromiter(map(number.__getitem__, flat), dtype=np.int64, count=len(flat))
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    row_of = np.repeat(np.arange(len(tokens), dtype=np.int64), lengths)
    keys = term_keys(vocabulary)
    by_key = np.argsort(keys, kind="stable")
    place = np.empty(len(keys), dtype=np.int64)
    place[by_key] = np.arange(len(keys))
    width = max(len(tokens), 1)  # (term, row) as one number, sorted by term, then row
    pairs, counts = np.unique(place[token_ids] * width + row_of, return_counts=True)
    term_of, rows = np.divmod(pairs, width)
    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum(np.bincount(term_of, minlength=len(keys)), out=indptr[1:])
    return {
        "terms": keys[by_key],
        "indptr": indptr,
        "post_rows": rows.astype(np.int32),
        "post_tf": counts.astype(np.float32),
    }


# -- reading ----------------------------------------------------------------------------------
class StaleSegment(ValueError):
    """A segment of another format or tokeniser: its paper must be indexed again."""


def open_segment(folder: Path) -> Segment:
    """The segment in ``folder``, its large arrays mapped from disk (mapped, the text too: a
    reader keeps a paper's records while a writer replaces its folder)."""
    try:
        meta = read_description(folder)
    except FileNotFoundError:
        raise StaleSegment(f"{folder.name}: an earlier format") from None
    if meta.get("format") != SEGMENT_FORMAT or meta.get("tokenizer") != TOKENIZER_VERSION:
        raise StaleSegment(f"{folder.name}: format {meta.get('format')}, tokeniser {meta.get('tokenizer')}")
    columns = meta.pop("columns")
    arrays = _mapped(folder / ARRAYS, meta.pop("arrays"))
    overlay, stamp = read_overlay(folder)
    counterpart_ids = list(columns["counterpart_ids"])
    counterpart_documents = list(columns["counterpart_documents"])
    for row, chunk_id in enumerate(columns["ids"]):
        changes = overlay.get(chunk_id)
        if changes:
            counterpart_ids[row] = changes.get("counterpart_id", counterpart_ids[row])
            counterpart_documents[row] = changes.get("counterpart_document_id", counterpart_documents[row])
    # a segment written before speakers were named has no such column: nobody speaks in it
    speakers = shared_tuples(columns.get("speakers") or [None] * len(columns["ids"]))
    named = {name: _interned(columns[name]) for name in ("dates", "kinds", "askers", "answerers")}
    facts = RowFacts.columns(
        *named.values(), speakers, _interned(columns["question_ids"]), _interned(columns["versions"])
    )
    return Segment(
        folder,
        meta,
        list(columns["ids"]),
        facts,
        counterpart_ids,
        counterpart_documents,
        Counter(columns["variants"]),
        arrays,
        overlay,
        (folder.name, stamp),
    )


def _mapped(path: Path, layout: dict[str, list[Any]]) -> dict[str, np.ndarray]:
    """The arrays of ``layout`` as views of one map of ``path``; the per-row columns of
    :data:`LOADED`, small and read on every search, copied into memory."""
    whole = np.memmap(path, dtype=np.uint8, mode="r") if path.stat().st_size else np.zeros(0, np.uint8)
    arrays = {}
    for name, (dtype, shape, offset) in layout.items():
        view = np.ndarray(tuple(shape), dtype=np.dtype(dtype), buffer=whole, offset=offset)
        arrays[name] = np.array(view) if name in LOADED else view
        if name in PICKED and view.nbytes and isinstance(whole, np.memmap):
            _read_at_random(whole, offset, view.nbytes)
    return arrays


def _read_at_random(whole: np.memmap, offset: int, size: int) -> None:
    """Tell the kernel these bytes are read a row at a time (the candidates a search
    rescores, the records it shows): without it each row read pulls in the pages around it,
    and a server's memory grows with the archive's full vectors, not with what it reads."""
    start = offset - offset % mmap.PAGESIZE
    if hasattr(mmap, "MADV_RANDOM"):
        whole._mmap.madvise(mmap.MADV_RANDOM, start, offset + size - start)  # type: ignore[attr-defined]


def _interned(values: list[Any]) -> list[Any]:
    """One string object per distinct value (a paper's date, version and speakers repeat on
    every row: held once, a million rows' columns stay small)."""
    return [sys.intern(v) if isinstance(v, str) else v for v in values]


def read_overlay(folder: Path) -> tuple[dict[str, dict[str, Any]], int]:
    """The segment's metadata changes made after it was written, and the overlay's mtime (0: none)."""
    path = folder / OVERLAY
    try:
        stamp = path.stat().st_mtime_ns
        return json.loads(path.read_text(encoding="utf-8")), stamp
    except FileNotFoundError:
        return {}, 0


def overlay_stamp(folder: Path) -> int:
    try:
        return (folder / OVERLAY).stat().st_mtime_ns
    except FileNotFoundError:
        return 0


def write_overlay(folder: Path, changes: dict[str, dict[str, Any]]) -> None:
    """Merge ``changes`` (chunk id → metadata keys, None removing one) into the overlay,
    replaced whole (a reader sees the old overlay or the new one)."""
    current, _ = read_overlay(folder)
    for chunk_id, keys in changes.items():
        current.setdefault(chunk_id, {}).update(keys)
    staging = folder / f".{OVERLAY}.tmp-{os.getpid()}"
    staging.write_text(json.dumps(current, ensure_ascii=False), encoding="utf-8")
    os.replace(staging, folder / OVERLAY)
