"""Section aggregation: chunks of one headed section that score together lift the section.

Why: a narrative paper answers a question over a section (a guide's chapter on maternity
leave, a speech's part on inflation), and its chunks are cut by size, not by meaning. When
several chunks of one section all rank fairly well, that agreement is evidence the section is
the answer, stronger than one chunk of an unrelated paper that a single ranker liked.
Retrieval over headed sections (docs/design.md#retrieval) has this ranking side:

* :func:`aggregate` groups fused hits by (document, section path) and scores a section by its
  best chunks, each worth :data:`SECTION_DECAY` of the one before (so a section is not
  rewarded merely for being long: the fourth chunk adds nothing);
* :func:`lift` adds ``share`` of a chunk's section-mates' decayed scores to its own, which is
  how hybrid search uses the sections (``Fusion.section_share``); chunks without a section
  path (a paper with no headings) are left as they are, since "the whole paper" is no section.

Measured on the dev sets (docs/history/retrieval.md), lifting lost everywhere (shares 0.25
and 0.5: fixtures, narrative and cross-language dev sets, both strategies): a Q&A paper's
long sections and a Hansard's many replies under one heading lift whole neighbourhoods past
the one chunk that answers. So hybrid search leaves it off (``Fusion.section_share`` 0), and
sections are what ``legco-assets query --sections`` shows: a reader's view of where in the
papers the answer lies.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records import ChunkRecord
from .hits import Hit

SECTION_DECAY = 0.5  # a section's k-th best chunk counts decay**(k-1) of its score
SECTION_TOP = 3  # chunks that count towards a section's score


@dataclass
class Section:
    """One section of one document as the fused ranking saw it: its best chunks first."""

    document_id: str
    path: tuple[str, ...]
    score: float = 0.0
    hits: list[Hit] = field(default_factory=list)  # best first

    def to_json(self, chunks: int) -> dict[str, Any]:
        """The ``query --sections --json`` line: the section and its ``chunks`` best hits."""
        return {
            "document_id": self.document_id,
            "section_path": list(self.path),
            "score": round(self.score, 6),
            "chunks": [h.to_json() for h in self.hits[:chunks]],
        }


def section_key(record: ChunkRecord) -> tuple[str, tuple[str, ...]] | None:
    """(document, section path) of a chunk record; None when it has no headed section."""
    path = tuple(record.metadata.section_path)
    return (record.document_id, path) if path else None


def decayed(scores: Sequence[float], decay: float = SECTION_DECAY, top: int = SECTION_TOP) -> float:
    """The sum of the best ``top`` scores, the k-th times ``decay ** (k - 1)``."""
    return sum(s * decay**i for i, s in enumerate(sorted(scores, reverse=True)[:top]))


def aggregate(hits: Sequence[Hit], decay: float = SECTION_DECAY, top: int = SECTION_TOP) -> list[Section]:
    """The sections of ``hits`` (fused, best first), best section first. A chunk without a
    section path stands as a section of its own (its document, its own chunk id as path) so
    ``query --sections`` still shows a paper that has no headings."""
    groups: dict[tuple[str, tuple[str, ...]], Section] = {}
    for hit in hits:
        key = section_key(hit.record) or (hit.record.document_id, (hit.id,))
        section = groups.setdefault(key, Section(key[0], key[1]))
        section.hits.append(hit)
    for section in groups.values():
        section.score = decayed([h.score for h in section.hits], decay, top)
    return sorted(groups.values(), key=lambda s: -s.score)


def lift(
    scores: dict[str, float], records: dict[str, ChunkRecord], share: float, decay: float = SECTION_DECAY
) -> None:
    """Add ``share`` of each chunk's section-mates' decayed scores to its own (in place; the
    mates' original scores, best :data:`SECTION_TOP` − 1 of them)."""
    if share <= 0:
        return
    members: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    for chunk_id, record in records.items():
        key = section_key(record)
        if key is not None and chunk_id in scores:
            members[key].append(chunk_id)
    original = dict(scores)
    for ids in members.values():
        if len(ids) < 2:
            continue
        for chunk_id in ids:
            mates = [original[m] for m in ids if m != chunk_id]
            scores[chunk_id] = original[chunk_id] + share * decayed(mates, decay, SECTION_TOP - 1)
