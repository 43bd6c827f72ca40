"""A Hansard exchange and its appendix travel together through search and answering.

Why: the figures an official promised in the meeting are printed in an appendix far from
the exchange (``annex_ids`` on the exchange's chunk, ``answers_question_id`` on the
appendix's, :mod:`structure.annexes`). A reader who finds one should see the other, and a
model asked to answer from the exchange should get the figures: so ``query`` shows the link
under a hit and ``answer`` puts the linked chunk into the context right after the one chosen.

The other-language version of a chunk (``counterpart_id``) travels with it the same way:
``query`` shows it under the hit, the fusion can let a chunk ride on its counterpart's score
(:func:`inherit_counterparts`), and ``answer`` reads the version in the question's language
(:func:`in_language_of`). Only the records are needed here, not the retriever.
"""

from __future__ import annotations

import numpy as np

from ..records import ChunkRecord
from .bm25_index import script_of
from .filters import Where, admits
from .hits import Hit, Scope


def linked_records(record: ChunkRecord, scope: Scope) -> list[ChunkRecord]:
    """The stored records linked to ``record``: its appendices' chunks for an exchange, the
    exchange's chunks (same paper, version and strategy) for an appendix."""
    meta = record.metadata
    linked = [scope.records[scope.position[i]] for i in meta.annex_ids or [] if i in scope.position]
    answers = meta.answers_question_id
    if answers:
        facts = scope.facts
        rows = np.flatnonzero(
            (scope.documents == record.document_id)
            & (facts.question_ids == answers)
            & (facts.versions == meta.content_sha256)
        )
        linked += [scope.records[int(row)] for row in rows]
    return linked


def with_linked(hits: list[Hit], scope: Scope) -> list[Hit]:
    """The hits with each one's linked records right after it (same rank and score), none
    repeated: the context ``answer`` reads."""
    out: list[Hit] = []
    seen: set[str] = set()
    for hit in hits:
        for record, linked in [(hit.record, False)] + [(r, True) for r in linked_records(hit.record, scope)]:
            if record.id in seen:
                continue
            seen.add(record.id)
            out.append(
                hit if not linked else Hit(record, hit.rank, hit.score, {**hit.ranks, LINKED: hit.rank})
            )
    return out


LINKED = "linked"  # in ``Hit.ranks``: the rank of the hit whose appendix (or exchange) this is


# -- counterparts: the other language's version of a chunk ---------------------------------------
COUNTERPART = "counterpart"  # in ``Hit.ranks``: the fused rank of the counterpart a chunk inherited from


def inherit_counterparts(
    scores: dict[str, float],
    records: dict[str, ChunkRecord],
    ranks: dict[str, dict[str, int]],
    scope: Scope,
    share: float,
    document: Where = None,
) -> None:
    """Raise each chunk's fused score to ``share`` of its counterpart's where that is better
    (in place). Why: an English question finds the English version of a Q&A pair far more
    easily than the Chinese one (BM25 cannot cross languages), and the Chinese pair is the same
    answer; letting it ride on its counterpart brings the paper's other version up with it.
    Only original scores are inherited (no chains), from chunks the rankers found."""
    original = dict(scores)
    fused_rank = {i: n for n, i in enumerate(sorted(original, key=lambda i: -original[i]), start=1)}
    for chunk_id, score in original.items():
        partner = records[chunk_id].metadata.counterpart_id
        row = scope.position.get(partner) if partner else None
        if row is None or share * score <= scores.get(partner, 0.0):
            continue
        record = scope.records[row]
        if not admits(record, document):
            continue
        scores[partner] = share * score
        records.setdefault(partner, record)
        ranks[partner][COUNTERPART] = fused_rank[chunk_id]


def counterpart_of(record: ChunkRecord, scope: Scope) -> ChunkRecord | None:
    """The stored record of ``record``'s other-language version in ``scope``, if any."""
    partner = record.metadata.counterpart_id
    row = scope.position.get(partner) if partner else None
    return scope.records[row] if row is not None else None


def with_counterparts(hits: list[Hit], scope: Scope) -> list[Hit]:
    """The hits, each with its counterpart's record attached, and its appendix or the exchange
    an appendix answers (:func:`linked_records`; ``query`` shows both under the hit)."""
    for hit in hits:
        hit.counterpart = counterpart_of(hit.record, scope)
        hit.links = linked_records(hit.record, scope)
    return hits


def in_language_of(query: str, hits: list[Hit]) -> list[Hit]:
    """The hits with each one not in the query's script swapped for its counterpart when that
    is (a counterpart already among the hits is not repeated): ``answer`` reads and cites the
    version in the question's language when the paper has one."""
    script = script_of(query)
    out: list[Hit] = []
    seen: set[str] = set()
    for hit in hits:
        chosen = hit
        if (
            hit.counterpart is not None
            and script_of(hit.text) != script
            and script_of(hit.counterpart.text) == script
        ):
            chosen = Hit(hit.counterpart, hit.rank, hit.score, hit.ranks, hit.record)
        if chosen.id not in seen:
            seen.add(chosen.id)
            out.append(chosen)
    return out
