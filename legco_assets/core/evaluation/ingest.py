"""Ingest the eval's papers: ``pipeline.chunk_file`` for each strategy (the baseline's windows
for ``baseline``), then ``vector_store.replace_document`` into a Chroma under a temp data dir,
no Dagster; language versions of one paper are linked as ``vector_index`` links them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..pipeline import chunk_file
from ..read import detect_language
from ..search import link_counterparts, open_collection, replace_document
from ..settings import Settings, Strategy
from ..sources import confirm, counterpart_candidate, profile_of
from ..structure import find_structure
from .baseline import BASELINE, baseline_records
from .papers import Paper

_CHUNKED: dict[tuple[Any, ...], list[dict[str, Any]]] = {}  # (paper sha256, strategy, sizes) -> chunk records


def ingest_papers(papers: Sequence[Paper], strategies: Sequence[str], settings: Settings) -> Any:
    """Chunk every paper with every strategy into the Chroma of ``settings``; the collection."""
    collection = open_collection(settings)
    for paper in papers:
        for strategy in strategies:
            if strategy == BASELINE:
                records = baseline_records(paper)
            else:
                key = (
                    paper.sha256,
                    strategy,
                    settings.chunk_size,
                    settings.chunk_overlap,
                    settings.qa_max_chunk_tokens,
                    settings.section_join_tokens,
                )
                if key not in _CHUNKED:  # the sets share their distractors: chunk each paper once per process
                    _CHUNKED[key] = chunk_file(paper.path, Strategy.parse(strategy), settings, use_llm=False)
                records = _CHUNKED[key]
            replace_document(collection, records, paper.document_id, strategy, paper.sha256)
    link_paper_counterparts(collection, papers, settings)
    return collection


def link_paper_counterparts(
    collection: Any, papers: Sequence[Paper], settings: Settings
) -> dict[tuple[str, str], Any]:
    """Pair the papers that are language versions of one paper, as ``vector_index`` does
    (names or a sidecar propose, content confirms: :mod:`..sources.counterparts`), and link their stored
    chunks; the decisions by (document id, counterpart id)."""
    paths = {p.document_id: str(p.path) for p in papers}
    by_id = {p.document_id: p for p in papers}

    def profile(paper: Paper) -> Any:
        ids = [s.qa_id or "" for s in find_structure(paper.pages, settings).sections if s.type == "qa"]
        return profile_of(paper.text, detect_language(paper.text), ids)

    decisions: dict[tuple[str, str], Any] = {}
    for paper in papers:
        candidate, hand = counterpart_candidate(
            str(paper.path), {k: v for k, v in paths.items() if k != paper.document_id}
        )
        if candidate is None or (candidate, paper.document_id) in decisions:
            continue
        decision = hand or confirm(profile(paper), profile(by_id[candidate]))
        decisions[(paper.document_id, candidate)] = decision
        link_counterparts(collection, paper.document_id, candidate if decision.paired else None)
    return decisions
