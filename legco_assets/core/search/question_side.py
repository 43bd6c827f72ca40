"""Every chunk's *question side*: the short text the question-side ranker compares a query with.

Why: a user's question is closest to a paper's own question, so Q&A chunks are searched by
their ``question_text`` alone as well as by their whole text. At first only chunks with
a question took part in that ranker, and at weight 2 its vote decided most searches: any Q&A
chunk of any paper outranked every narrative chunk (a speech paragraph, a guide's section, a
speaking-notes bullet, a token window), however well BM25 and the chunk vectors found them.
Narrative is most of what LegCo and the government publish, so every chunk gets a question
side: its question when it has one, otherwise what a reader sees first and what a writer
puts there to say what follows, the nearest headings of its section path and its opening
sentence (several embeddings per chunk, docs/design.md#retrieval; an LLM's generated
questions could be a third kind, cached by content hash like vision results).

Measured on the dev sets (docs/history/retrieval.md), a narrative chunk asked by its own
text's vector did better than by its headings and opening (narrative dev Hit@1 0.64 against
0.32, each kind ranked among its own), so the default (``retrieval.QUESTION_SIDE``) uses
this module for Q&A chunks' questions, and the openings stay an option (``"opening"``).

The opening is cut at the first line that ends a sentence (:data:`.markers.SENTENCE_END`, the
same typography the outline uses) once it is :data:`OPENING_MIN` wide, and at
:data:`OPENING_MAX` in any case (widths as printed, a CJK character counting twice): enough
to say what a paragraph is about without becoming the chunk's whole text again (that is the
chunk-vector ranker's job).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import markers
from ..records import ChunkRecord, join_path
from ..structure import display_width

OPENING_MIN = 40  # display width (CJK counts 2): a lone short line (a label, a figure) is no opening
OPENING_MAX = 240  # display width: about one long English sentence, or two Chinese ones
PATH_HEADINGS = 2  # the innermost headings of the section path that name the chunk's subject


def question_side(record: ChunkRecord) -> str:
    """The text the question-side ranker embeds for ``record`` (a chunk record)."""
    asked = (record.metadata.question_text or "").strip()
    if asked:
        return asked
    headings = _headings(record.metadata.section_path)
    opening = opening_of(record.text, skip=set(headings))
    return join_path(headings + [opening] if opening else headings)


def opening_of(text: str, skip: set[str] | frozenset[str] = frozenset()) -> str:
    """The chunk text's first sentence or so (see the module docstring); lines equal to one of
    ``skip`` (its own headings, which chunks repeat at their start) are left out."""
    taken: list[str] = []
    size = 0
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line in skip or set(line) <= set("|-: "):  # blank, a heading again, a table rule
            continue
        taken.append(line)
        size += display_width(line)
        if size >= OPENING_MAX or (size >= OPENING_MIN and markers.SENTENCE_END.search(line)):
            break
    return " ".join(taken)[:OPENING_MAX]


def _headings(path: list[str]) -> list[str]:
    return [h.strip() for h in path[-PATH_HEADINGS:] if h.strip()]


def unit_rows(vectors: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32; an empty input gives a 0x0 matrix)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.size == 0:
        return np.zeros((0, 0), dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def question_vectors(
    records: Sequence[ChunkRecord],
    vectors: Sequence[Any],
    sides: str,
    embed: Callable[[list[str]], list[Any]],
) -> tuple[np.ndarray, np.ndarray]:
    """The rows that take part in the question-side ranker and their unit question vectors.

    ``sides`` is one of ``retrieval.QUESTION_SIDES``: ``qa``, Q&A chunks' questions only;
    ``opening``, every chunk, a narrative one by its headings and opening; ``chunk``, every
    chunk, a narrative one by its own vector (``vectors``, the stored chunk vectors, in the
    records' order). ``embed`` embeds texts (each distinct text once is the caller's concern)."""
    asked = [bool(r.metadata.question_text) for r in records]
    rows = [i for i in range(len(records)) if asked[i] or sides != "qa"]
    if sides == "chunk":  # a narrative chunk is asked by its own text's vector
        side = [None if asked[i] else vectors[i] for i in rows]
        embedded = iter(embed([question_side(records[i]) for i, v in zip(rows, side) if v is None]))
        matrix = unit_rows([next(embedded) if v is None else v for v in side])
    else:
        matrix = unit_rows(embed([question_side(records[i]) for i in rows]))
    return np.array(rows, dtype=np.int64), matrix
