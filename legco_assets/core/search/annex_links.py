"""A Hansard exchange and its appendix travel together through search and answering.

Why: the figures an official promised in the meeting are printed in an appendix far from
the exchange (``annex_ids`` on the exchange's chunk, ``answers_question_id`` on the
appendix's, :mod:`structure.annexes`). A reader who finds one should see the other, and a
model asked to answer from the exchange should get the figures: so ``query`` shows the link
under a hit and ``answer`` puts the linked chunk into the context right after the one chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .retrieval import Hit, Scope


def linked_records(record: dict[str, Any], scope: "Scope") -> list[dict[str, Any]]:
    """The stored records linked to ``record``: its appendices' chunks for an exchange, the
    exchange's chunks (same paper, version and strategy) for an appendix."""
    meta = record["metadata"]
    ids = meta.get("annex_ids") or []
    if isinstance(ids, str):
        ids = ids.split()
    linked = [scope.records[scope.position[i]] for i in ids if i in scope.position]
    answers = meta.get("answers_question_id")
    if answers:
        linked += [
            r for r in scope.records
            if r["document_id"] == record["document_id"]
            and r["metadata"].get("question_id") == answers
            and r["metadata"].get("content_sha256") == meta.get("content_sha256")
        ]
    return linked


def with_linked(hits: list["Hit"], scope: "Scope") -> list["Hit"]:
    """The hits with each one's linked records right after it (same rank and score), none
    repeated: the context ``answer`` reads."""
    from .retrieval import Hit

    out: list[Hit] = []
    seen: set[str] = set()
    for hit in hits:
        for record, linked in [(hit.record, False)] + [(r, True) for r in linked_records(hit.record, scope)]:
            if record["id"] in seen:
                continue
            seen.add(record["id"])
            out.append(hit if not linked else Hit(record, hit.rank, hit.score, {**hit.ranks, LINKED: hit.rank}))
    return out


LINKED = "linked"  # in ``Hit.ranks``: the rank of the hit whose appendix (or exchange) this is
