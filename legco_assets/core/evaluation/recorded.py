"""Recorded LLM replies: query translations and reranking orders, recorded once and replayed,
so that the eval measures LLM translation and reranking without calling a model.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..records import ChunkRecord
from ..search import Reranker


def load_translations(path: Path) -> dict[str, str]:
    """Recorded query translations: ``{"translations": {question: translation}}``."""
    return dict(json.loads(Path(path).read_text(encoding="utf-8"))["translations"])


class RecordedRerankings(dict[str, list[str]]):
    """Question -> the chunk ids an LLM named, best first; ``chunks``: chunk id -> the
    fingerprint (:func:`chunk_fingerprint`) of the text that id held when the orders were
    last measured, so that a replay never credits the model with a chunk it did not see (a
    chunk id is a position in its paper: a chunking change gives it other text)."""

    chunks: dict[str, str]


def chunk_fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def load_rerankings(path: Path) -> RecordedRerankings:
    """Recorded LLM rerankings, ``{"rerankings": {strategy: {question: {"shown": [chunk ids],
    "ranking": [the ids it named, best first]}}}}``, as question -> named chunk ids (chunk ids
    name their strategy, so one list per question serves every strategy), with the named
    chunks' fingerprints from ``<name>_chunks.json`` beside it, when there is one."""
    recorded = json.loads(Path(path).read_text(encoding="utf-8"))["rerankings"]
    merged = RecordedRerankings()
    for by_question in recorded.values():
        for question, entry in by_question.items():
            merged.setdefault(question, []).extend(entry["ranking"])
    chunks = Path(path).with_name(f"{Path(path).stem}_chunks.json")
    merged.chunks = json.loads(chunks.read_text(encoding="utf-8"))["chunks"] if chunks.exists() else {}
    return merged


def recorded_reranker(rerankings: Mapping[str, Sequence[str]]) -> Reranker:
    """A reranker that replays recorded orders: the chunks the model named for this query,
    in its order, among those now shown (a chunk it was not shown then follows them, in
    fused order, as one it did not name). A named id whose text is no longer the one it had
    (its fingerprint differs) counts as not shown."""
    known: Mapping[str, str] = getattr(rerankings, "chunks", {})

    def same(record: ChunkRecord) -> bool:
        fingerprint = known.get(record.id)
        return fingerprint is None or fingerprint == chunk_fingerprint(record.text)

    def order(query: str, records: Sequence[ChunkRecord]) -> list[int] | None:
        place = {r.id: i for i, r in enumerate(records)}
        named = [place[c] for c in rerankings.get(query, ()) if c in place and same(records[place[c]])]
        return named or None

    return order
