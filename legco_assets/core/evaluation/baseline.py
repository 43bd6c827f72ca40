"""The seed's baseline: 1000-character windows, 200 overlap, over the same cleaned text.

Why: the eval compares every chunking strategy with what the project started from; the
baseline is no pipeline strategy, so the eval makes its chunks itself.
"""

from __future__ import annotations

from ..records import Chunk, ChunkRecord, DocumentText
from ..tokens import count_tokens
from .papers import Paper

BASELINE = "baseline"
BASELINE_SIZE, BASELINE_OVERLAP = 1000, 200


def char_windows(
    text: str, size: int = BASELINE_SIZE, overlap: int = BASELINE_OVERLAP
) -> list[tuple[int, int]]:
    """(start, end) of fixed character windows covering ``text`` (the seed's baseline)."""
    step = size - overlap
    spans = []
    for start in range(0, max(len(text), 1), step):
        spans.append((start, min(len(text), start + size)))
        if start + size >= len(text):
            break
    return spans


def baseline_records(paper: Paper) -> list[ChunkRecord]:
    """The baseline's chunk records (strategy ``baseline``) over the paper's cleaned text."""
    doc = DocumentText.from_pages(paper.pages)
    chunks = []
    for i, (start, end) in enumerate(char_windows(doc.text)):
        first, last = doc.span_pages(start, end)
        chunk_text = doc.text[start:end]
        chunks.append(
            Chunk(
                paper.document_id,
                BASELINE,
                i,
                chunk_text,
                first,
                last,
                "window",
                count_tokens(chunk_text),
                char_start=start,
                char_end=end,
            )
        )
    return [c.to_record(paper.path.name, paper.sha256) for c in chunks]
