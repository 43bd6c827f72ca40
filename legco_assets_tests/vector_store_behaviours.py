"""The vector-store behaviours the pipeline relies on: deterministic ids, replace-by-document,
versions kept, strategies side by side, cached embeddings.

Why plain functions of ``settings`` in a helper module: test_vector_store.py runs each on the
embedded client and test_chroma_server.py runs the same ones against a real Chroma server;
a test module imports them from here, never from another test module.
"""

from __future__ import annotations

from collections.abc import Callable

from legco_assets.core.records import Chunk
from legco_assets.core.search import open_client, open_collection, replace_document, stored_chunks
from legco_assets.core.settings import Settings

from .factories import doc_records


def rewrite_is_idempotent_and_removes_stale_ids(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(
        collection,
        doc_records(
            ["問 A1：排水？答：足夠。", "問 A2：補償？答：按政策。", "問 A3：時間？答：明年。"], "s1"
        ),
        "doc",
        "question",
        "s1",
    )
    replace_document(
        collection,
        doc_records(
            ["問 A1：排水？答：足夠。", "問 A2：補償？答：按政策。", "問 A3：時間？答：明年。"], "s1"
        ),
        "doc",
        "question",
        "s1",
    )
    assert sorted(c.id for c in stored_chunks(collection)) == [
        "doc:question:0",
        "doc:question:1",
        "doc:question:2",
    ]
    replace_document(
        collection,
        doc_records(["問 A1：排水？答：足夠。", "問 A2：補償？答：按政策。"], "s1"),
        "doc",
        "question",
        "s1",
    )
    assert sorted(c.id for c in stored_chunks(collection)) == ["doc:question:0", "doc:question:1"]


def a_chunk_written_again_keeps_no_key_it_lost(settings: Settings) -> None:
    """A paper chunked again reuses its chunk ids: what was a Q&A chunk and is now a
    narrative one must not keep its question id in Chroma (its upsert merges keys)."""
    collection = open_collection(settings)
    replace_document(collection, doc_records(["問 A1：排水？答：足夠。"], "s1"), "doc", "question", "s1")
    narrative = Chunk("doc", "question", 0, "排水系統的容量足夠。", 1, 1, "narrative", 8)
    replace_document(collection, [narrative.to_record("doc.pdf", "s1")], "doc", "question", "s1")
    (stored,) = stored_chunks(collection)
    assert stored.text == "排水系統的容量足夠。" and stored.metadata.section_type == "narrative"
    assert stored.metadata.question_id is None and stored.metadata.question_text is None
    assert collection.get(where={"question_id": "A1"}, include=[])["ids"] == []


def new_version_archives_previous_chunks(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(
        collection, doc_records(["old answer one", "old answer two"], "a" * 64), "doc", "question", "a" * 64
    )
    result = replace_document(collection, doc_records(["new answer"], "b" * 64), "doc", "question", "b" * 64)
    assert result.archived == 2
    by_id = {c.id: c for c in stored_chunks(collection)}
    assert (
        by_id["doc:question:0"].text == "new answer"
        and by_id["doc:question:0"].metadata.is_latest_version is True
    )
    assert by_id["doc@aaaaaaaa:question:0"].metadata.is_latest_version is False
    assert by_id["doc@aaaaaaaa:question:1"].text == "old answer two"
    latest = stored_chunks(collection, {"is_latest_version": True})
    assert [c.id for c in latest] == ["doc:question:0"]


def strategies_coexist_and_metadata_is_scalar(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(collection, doc_records(["a"], "s"), "doc", "question", "s")
    replace_document(collection, doc_records(["a", "b"], "s", "token"), "doc", "token", "s")
    stored = stored_chunks(collection)
    assert sorted(c.id for c in stored) == ["doc:question:0", "doc:token:0", "doc:token:1"]
    for c in stored:  # section_path comes back as the list the record has
        assert all(
            isinstance(v, (str, int, float, bool))
            for k, v in c.metadata.to_json().items()
            if k != "section_path"
        )
        assert c.metadata.section_path == []
    raw = collection.get(include=["metadatas"])["metadatas"]
    assert all(isinstance(v, (str, int, float, bool)) for m in raw for v in m.values()), (
        "Chroma holds scalars only"
    )


def section_path_is_stored_joined_and_read_back_as_a_list(settings: Settings) -> None:
    collection = open_collection(settings)
    chunk = Chunk(
        "doc",
        "question",
        0,
        "預算案",
        1,
        1,
        "narrative",
        5,
        section_heading="中小企業",
        section_path=["第二章支援企業", "中小企業"],
    )
    replace_document(collection, [chunk.to_record("doc.pdf", "s")], "doc", "question", "s")
    assert (
        collection.get(ids=["doc:question:0"], include=["metadatas"])["metadatas"][0]["section_path"]
        == "第二章支援企業 > 中小企業"
    )
    assert stored_chunks(collection)[0].metadata.section_path == ["第二章支援企業", "中小企業"]


def reopened_collection_finds_its_embedding_function_and_cache(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(collection, doc_records(["排水系統的容量足夠應付暴雨"], "s"), "doc", "question", "s")
    embedder = collection._embedding_function
    before = embedder.embedded_count
    replace_document(collection, doc_records(["排水系統的容量足夠應付暴雨"], "s"), "doc", "question", "s")
    assert embedder.embedded_count == before, "unchanged text is never re-embedded"
    reopened = open_client(settings).get_collection(
        "legco_chunks"
    )  # no embedding function passed: rebuilt from config
    hits = reopened.query(query_texts=["排水容量"], n_results=1)
    assert hits["ids"][0] == ["doc:question:0"]


BEHAVIOURS: list[Callable[[Settings], None]] = [
    rewrite_is_idempotent_and_removes_stale_ids,
    a_chunk_written_again_keeps_no_key_it_lost,
    new_version_archives_previous_chunks,
    strategies_coexist_and_metadata_is_scalar,
    section_path_is_stored_joined_and_read_back_as_a_list,
    reopened_collection_finds_its_embedding_function_and_cache,
]
