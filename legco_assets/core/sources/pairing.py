"""A stored paper paired with its other-language version: the candidate (by name or a
sidecar), judged by content (:mod:`.counterparts`) once both versions' text is stored, the
decision recorded on both index entries.

It reads the papers' artifacts, so it runs where both are stored (``vector_index``), never
in ``legco-assets chunk``, which sees one file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..artifacts import Artifacts
from ..records import DocumentText
from ..settings import Settings
from .counterparts import (
    NO_COUNTERPART,
    Decision,
    Profile,
    by_hand,
    confirm,
    profile_of,
    proposed_partner,
    read_sidecar,
)
from .documents import DocumentIndex


@dataclass
class CounterpartOutcome:
    """What :func:`pair_counterpart` found: the candidate (by name or sidecar), the decision
    (None while the candidate is not ingested yet: it links both when it arrives)."""

    candidate: str | None = None
    decision: Decision | None = None
    chunks_updated: int = 0

    @property
    def decided(self) -> bool:
        return self.decision is not None or self.candidate is None

    @property
    def paired_with(self) -> str | None:
        return self.candidate if self.decision is not None and self.decision.paired else None


def document_profile(settings: Settings, document_id: str) -> Profile | None:
    """The :class:`.counterparts.Profile` of a document from its stored artifacts, or None
    while its text is not extracted yet."""

    art = Artifacts(settings, document_id)
    if not art.has("source.json") or not art.has("page_text.json"):
        return None
    ids = [s.qa_id or "" for s in art.sections() if s.type == "qa"] if art.has("structure.json") else None
    return profile_of(DocumentText.from_pages(art.pages()).text, art.source().language, ids)


def counterpart_candidate(path: str, others: dict[str, str]) -> tuple[str | None, Decision | None]:
    """(the other version's key, a hand decision or None) for the file at ``path`` among
    ``others`` (key -> file path): a sidecar on either side decides, else the file names propose."""

    name = Path(path).name
    said = read_sidecar(path)
    if said == NO_COUNTERPART:
        return None, None
    for key, other in others.items():
        if said == Path(other).name:
            return key, by_hand(True, Path(path).name + ".counterpart")
        theirs = read_sidecar(other)
        if theirs == name:
            return key, by_hand(True, Path(other).name + ".counterpart")
    candidate = proposed_partner(name, {k: Path(v).name for k, v in others.items()})
    if candidate and read_sidecar(others[candidate]) == NO_COUNTERPART:
        return None, None
    return candidate, None


def counterpart_metadata(settings: Settings, document_id: str) -> dict[str, Any]:
    """What the index knows of this document's other-language version, as scalar metadata:
    ``counterpart_document_id`` when paired, else ``counterpart_candidate`` (a name match not
    judged yet, or rejected) with the reason; empty when there is no candidate."""
    entry = DocumentIndex(settings.documents_dir).get(document_id)
    if entry is None or not entry.counterpart:
        return {}
    known = dict(entry.counterpart)
    other = known.pop("document_id")
    key = "counterpart_document_id" if known.get("counterpart_paired") else "counterpart_candidate"
    return {key: other, **known}


def counterpart_question_counts(settings: Settings, document_id: str, partner: str) -> tuple[int, int]:
    """Q&A pairs found in each of two paired versions (their structure artifacts)."""
    counts = []
    for doc in (document_id, partner):
        profile = document_profile(settings, doc)
        counts.append(len(profile.question_ids or []) if profile else 0)
    return counts[0], counts[1]


def pair_counterpart(settings: Settings, document_id: str) -> CounterpartOutcome:
    """Find this document's other-language version among the registered documents, judge the
    pair by content (or by hand) once both are extracted, and record the decision on both
    index entries."""

    index = DocumentIndex(settings.documents_dir)
    entries = index.all()
    if document_id not in entries:  # chunks written without the index (tests, tools): no file to pair
        return CounterpartOutcome()
    others = {k: e.path for k, e in entries.items() if k != document_id}
    candidate, decision = counterpart_candidate(entries[document_id].path, others)
    result = CounterpartOutcome(candidate)
    if candidate is None:
        index.set_counterpart(document_id, None, None)
        return result
    mine, theirs = document_profile(settings, document_id), document_profile(settings, candidate)
    if mine is None or theirs is None:  # judged once both versions' text is stored
        return result
    result.decision = decision or confirm(mine, theirs)
    index.set_counterpart(document_id, candidate, result.decision.metadata())
    return result
