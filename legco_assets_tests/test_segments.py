"""The search index's segments (one paper version, one strategy, written at index time) rank
as a scope built from Chroma over the same chunks does: BM25 scores and coverage identical to
the bit, the same ids in the same order, the same records, filter columns, language means and
variant forms; the vector rankers equal but for the order of exact ties. A new version
replaces its paper's segment, a later paper's links reach it through its overlay, a removed
paper's segment goes, and the index of a store made before segments is written from Chroma.
Generated fixture papers and the samples, chunked by the pipeline, stored in a temp Chroma."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.search import (
    Retriever,
    SearchFilters,
    SegmentStore,
    embedding_function,
    follow_store,
    index_paper,
    index_store,
    open_collection,
    open_segment,
    replace_document,
    segment_scope,
)
from legco_assets.core.search.vector_rows import ExactRows, SegmentRows, quantized
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import slug

from .conftest import FIXTURES, SAMPLES

PAPERS = [
    SAMPLES / "sample_zh_qa.pdf",
    SAMPLES / "sample_en_qa.pdf",
    SAMPLES / "sample_zh_speaking_notes.pdf",
    FIXTURES / "paper_e_qa.pdf",
    FIXTURES / "paper_l_faq.pdf",
    FIXTURES / "paper_a_tables.pdf",
]
QUERIES = [
    "網約車規管框架",
    "minimum wage review",
    "水浸黑點",
    "政府會否",
    "What is the budget for 2019",
    "圖書館開放時間",
    "Secretary reply",
    "Old Age Allowance",
    "渠務署 智能感應器",
    "housing supply 房屋",
    "點樣申請牌照",  # colloquial
    "僱員 裏面",  # variant forms
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Any]:
    home = tmp_path_factory.mktemp("segments")
    settings = Settings(data_dir=home / "data", inbox=home / "data" / "inbox")
    collection = open_collection(settings)
    embedder = embedding_function(settings)
    for path in PAPERS:
        for strategy in Strategy:
            records = chunk_paper(path, strategy, settings, use_llm=False, check=False).records
            replace_document(collection, records, slug(path), strategy, records[0].metadata.content_sha256)
            index_paper(SegmentStore.of(settings), collection, embedder, slug(path), strategy.value)
    return settings, collection


def two_retrievers(settings: Settings, collection: Any) -> tuple[Retriever, Retriever]:
    """One over Chroma (the CLI's and the eval's), one over the segments (a server's)."""
    chroma = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    segments = Retriever.open(settings, translate=False, rerank=False, store=False)
    segments.follow_store = False
    listed = SegmentStore.of(settings).listing()
    for strategy in Strategy:
        mine = [open_segment(folder) for (name, _), folder in listed.items() if name == strategy.value]
        segments._scopes[(strategy.value, False)] = segment_scope(mine)
    return chroma, segments


@pytest.mark.parametrize("strategy", list(Strategy), ids=lambda s: s.value)
def test_a_scope_of_segments_holds_what_the_store_holds(store, strategy: Strategy) -> None:
    chroma, segments = two_retrievers(*store)
    a, b = chroma.scope(strategy), segments.scope(strategy)
    assert len(a.ids) > 20 and list(b.ids) == list(a.ids)
    assert [b.records[i] for i in range(len(b.ids))] == list(a.records)
    assert list(b.documents) == list(a.documents) and np.array_equal(b.asked, a.asked)
    assert [list(b.index.scripts)] == [list(a.index.scripts)]
    assert np.array_equal(b.question_rows, a.question_rows)
    assert len(b.question_vectors) == len(a.question_rows)
    if len(a.question_rows):
        assert np.array_equal(np.concatenate(b.question_vectors.exact), a.question_vectors.matrix)
    for field in ("dates", "kinds", "askers", "answerers", "question_ids", "versions"):
        assert list(getattr(b.facts, field)) == list(getattr(a.facts, field)), field
    assert b.paired == a.paired and b.printed_forms == a.printed_forms
    for means in ("script_means", "question_means"):
        mine, theirs = getattr(b, means), getattr(a, means)
        assert mine.keys() == theirs.keys() and all(np.array_equal(mine[k], theirs[k]) for k in mine)


@pytest.mark.parametrize("strategy", list(Strategy), ids=lambda s: s.value)
def test_bm25_from_postings_scores_as_the_built_index(store, strategy: Strategy) -> None:
    chroma, segments = two_retrievers(*store)
    a, b = chroma.scope(strategy), segments.scope(strategy)
    for query in QUERIES:
        assert np.array_equal(b.index.scores(query), a.index.scores(query)), query
        assert np.array_equal(b.index.coverage(query), a.index.coverage(query)), query
        assert b.index.top(query, 10) == a.index.top(query, 10)
    # past the kept postings' limit (a long-lived server): a query's tokens are all still read
    b.index.postings_of([f"token{n}" for n in range(1500)])
    for query in QUERIES:
        b.index.postings_of([f"other{n}" for n in range(1100)] + [query])
        assert np.array_equal(b.index.scores(query), a.index.scores(query)), query
    known = list(a.index.vocabulary)
    assert len(known) > 100 and b.index.known_tokens(set(known[::7]) | {"zzzqqq"}) == set(known[::7])
    assert a.index.known_tokens(set(known[::7]) | {"zzzqqq"}) == set(known[::7])


@pytest.mark.parametrize("strategy", list(Strategy), ids=lambda s: s.value)
def test_the_int8_scan_finds_the_rows_the_float32_scan_finds(store, strategy: Strategy) -> None:
    """The segments' two-pass vector search (int8 over every row, float32 for the best
    candidates) gives the rows and scores of scanning every float32 row: for the queries' own
    vectors, for them less a language mean (as the rankers centre them), for random
    directions, among a document's rows, and each kind's best apart."""
    chroma, segments = two_retrievers(*store)
    a, b = chroma.scope(strategy), segments.scope(strategy)
    whole = ExactRows(np.concatenate(b.vectors.exact))
    rng = np.random.default_rng(7)
    vectors = [chroma.embed_query(q) for q in QUERIES]
    vectors += [v - 0.5 * a.script_means.get("zh", 0 * v) for v in vectors]
    vectors += [rng.standard_normal(whole.matrix.shape[1]).astype(np.float32) for _ in range(8)]
    mask = np.asarray(b.documents == "sample-zh-qa")
    kinds = b.asked[b.question_rows]
    for vector in vectors:
        for n, keep in ((10, None), (50, None), (5, mask)):
            rows, sims = b.vectors.best(vector, n, keep)
            theirs, their_sims = whole.best(vector, n, keep)
            assert np.array_equal(rows, theirs) and np.allclose(sims, their_sims, atol=1e-6)
        rows, sims = b.question_vectors.best(vector, 10, None, kinds)
        theirs, their_sims = a.question_vectors.best(vector, 10, None, kinds)
        assert np.array_equal(rows, theirs) and np.allclose(sims, their_sims, atol=1e-6)


def test_the_int8_scan_over_many_segments_matches_the_float32_scan() -> None:
    """At a size where candidates are a small share of the rows (40,000 rows in 100
    segments, random unit vectors: the closest scores of all), with a filter and groups."""
    rng = np.random.default_rng(3)
    parts = [rng.standard_normal((400, 64)).astype(np.float32) for _ in range(100)]
    parts = [p / np.linalg.norm(p, axis=1, keepdims=True) for p in parts]
    small = [quantized(p) for p in parts]
    rows = SegmentRows(parts, [q for q, _ in small], [s for _, s in small])
    whole = ExactRows(np.concatenate(parts))
    keep = rng.random(len(whole)) < 0.3
    groups = rng.random(len(whole)) < 0.5
    for _ in range(20):
        vector = rng.standard_normal(64).astype(np.float32)
        for n, mask, kinds in ((10, None, None), (100, keep, None), (20, None, groups)):
            mine, sims = rows.best(vector, n, mask, kinds)
            theirs, their_sims = whole.best(vector, n, mask, kinds)
            assert np.array_equal(mine, theirs) and np.allclose(sims, their_sims, atol=1e-6)


@pytest.mark.parametrize("strategy", list(Strategy), ids=lambda s: s.value)
def test_searches_answer_as_the_store_does(store, strategy: Strategy) -> None:
    """Hybrid and BM25: the same first passage and four of the same top five (two papers
    here print one passage alike, and which of two equal vectors ranks first may differ:
    a matrix product over one paper's rows and over all rows differ in the 7th digit). Vector mode: Chroma's index is
    approximate and the segments' search exact; the scores of the first five agree."""
    chroma, segments = two_retrievers(*store)
    filters = SearchFilters.of(kinds="faq,speech")
    for query in QUERIES:
        for mode in ("hybrid", "bm25"):
            theirs = chroma.search(query, 5, strategy, mode)
            mine = segments.search(query, 5, strategy, mode)
            assert len(mine) == len(theirs), (query, mode)
            if theirs:  # by text: two papers here print one passage alike (an exact tie)
                assert mine[0].text == theirs[0].text, (query, mode)
                shared = {h.text for h in mine} & {h.text for h in theirs}
                assert len(shared) >= min(4, len(theirs)), (query, mode)
        theirs = chroma.search(query, 5, strategy, "vector")
        mine = segments.search(query, 5, strategy, "vector")
        assert np.allclose([h.score for h in mine], [h.score for h in theirs], atol=1e-5), query
        assert [h.text for h in mine][:1] == [h.text for h in theirs][:1], query
        one = segments.search(query, 5, strategy, "hybrid", document="sample-zh-qa")
        assert one and all(h.record.document_id == "sample-zh-qa" for h in one)
        theirs = chroma.search(query, 3, strategy, filters=filters)
        mine = segments.search(query, 3, strategy, filters=filters)
        assert [h.text for h in mine][:1] == [h.text for h in theirs][:1], query
        assert all(h.metadata.kind in ("faq", "speech") for h in mine)


def test_a_new_version_replaces_the_segment_and_links_reach_it(store, tmp_path: Path) -> None:
    settings, collection = store
    segments = SegmentStore.of(settings)
    paper = segments.paper_dir("question", "sample-en-qa")
    before = sorted(p.name for p in paper.iterdir())
    generation = segments.generation()
    index_paper(segments, collection, embedding_function(settings), "sample-en-qa", "question")
    after = sorted(p.name for p in paper.iterdir())
    assert len(before) == len(after) == 1 and before != after and segments.generation() != generation
    segment = open_segment(paper / after[0])
    first = segment.ids[0]
    assert segments.update({first: {"counterpart_id": "x:question:0", "counterpart_document_id": "x"}}) == 1
    changed = open_segment(paper / after[0])
    assert changed.counterpart_ids[0] == "x:question:0" and changed.counterpart_documents[0] == "x"
    assert changed.record(0).metadata.counterpart_id == "x:question:0"
    assert changed.stamp != segment.stamp
    segments.update({first: {"counterpart_id": None, "counterpart_document_id": None}})
    assert open_segment(paper / after[0]).record(0).metadata.counterpart_id is None


def test_the_index_of_a_store_made_before_is_written_from_chroma(store, tmp_path: Path) -> None:
    settings, collection = store
    fresh = SegmentStore(tmp_path / "index")
    assert not fresh.exists()
    papers = index_store(fresh, collection, embedding_function(settings))
    assert papers == len(PAPERS) * len(Strategy)
    assert fresh.listing().keys() == SegmentStore.of(settings).listing().keys()
    assert fresh.remove("sample-zh-qa") == ["question/sample-zh-qa", "token/sample-zh-qa"]
    assert ("question", "sample-zh-qa") not in fresh.listing()


def test_a_machine_that_follows_a_shared_store_indexes_what_others_ingested(store, tmp_path: Path) -> None:
    """A server whose papers other machines ingest (a data dir in object storage) keeps its own
    index in step with the shared Chroma: every paper indexed, nothing twice, a paper the store
    no longer holds removed."""
    settings, collection = store
    mine = SegmentStore(tmp_path / "index")
    embedder = embedding_function(settings)
    assert follow_store(mine, collection, embedder) == len(PAPERS) * len(Strategy)
    assert follow_store(mine, collection, embedder) == 0
    gone = open_segment(mine.listing()[("question", "sample-zh-qa")])
    records = [gone.record(row) for row in range(gone.rows)]
    renamed = [
        replace(r, id=r.id.replace("sample-zh-qa", "gone-paper"), document_id="gone-paper") for r in records
    ]
    mine.write(renamed, [r.to_chroma() for r in renamed], list(gone.arrays["vectors"]), "chunk", embedder)
    assert ("question", "gone-paper") in mine.listing()
    assert follow_store(mine, collection, embedder) == 1
    assert ("question", "gone-paper") not in mine.listing()
