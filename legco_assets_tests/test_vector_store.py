"""Chroma writes: deterministic ids, replace-by-document, versions kept, cached embeddings."""

from __future__ import annotations

from legco_assets.core.records import Chunk
from legco_assets.core.search import open_client, open_collection, replace_document, stored_chunks
from legco_assets.core.settings import Settings


def _records(texts: list[str], sha: str, strategy: str = "question") -> list[dict]:
    chunks = [
        Chunk("doc", strategy, i, t, 1, 1, "qa", 10, question_id=f"A{i + 1}", question_index=i, question_text=t[:10])
        for i, t in enumerate(texts)
    ]
    return [c.to_record("doc.pdf", sha) for c in chunks]


def test_rewrite_is_idempotent_and_removes_stale_ids(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(collection, _records(["問 A1：排水？答：足夠。", "問 A2：補償？答：按政策。", "問 A3：時間？答：明年。"], "s1"), "doc", "question", "s1")
    replace_document(collection, _records(["問 A1：排水？答：足夠。", "問 A2：補償？答：按政策。", "問 A3：時間？答：明年。"], "s1"), "doc", "question", "s1")
    assert sorted(c["id"] for c in stored_chunks(collection)) == ["doc:question:0", "doc:question:1", "doc:question:2"]
    replace_document(collection, _records(["問 A1：排水？答：足夠。", "問 A2：補償？答：按政策。"], "s1"), "doc", "question", "s1")
    assert sorted(c["id"] for c in stored_chunks(collection)) == ["doc:question:0", "doc:question:1"]


def test_new_version_archives_previous_chunks(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(collection, _records(["old answer one", "old answer two"], "a" * 64), "doc", "question", "a" * 64)
    result = replace_document(collection, _records(["new answer"], "b" * 64), "doc", "question", "b" * 64)
    assert result.archived == 2
    by_id = {c["id"]: c for c in stored_chunks(collection)}
    assert by_id["doc:question:0"]["text"] == "new answer" and by_id["doc:question:0"]["metadata"]["is_latest_version"] is True
    assert by_id["doc@aaaaaaaa:question:0"]["metadata"]["is_latest_version"] is False
    assert by_id["doc@aaaaaaaa:question:1"]["text"] == "old answer two"
    latest = stored_chunks(collection, {"is_latest_version": True})
    assert [c["id"] for c in latest] == ["doc:question:0"]


def test_strategies_coexist_and_metadata_is_scalar(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(collection, _records(["a"], "s"), "doc", "question", "s")
    replace_document(collection, _records(["a", "b"], "s", "token"), "doc", "token", "s")
    stored = stored_chunks(collection)
    assert sorted(c["id"] for c in stored) == ["doc:question:0", "doc:token:0", "doc:token:1"]
    for c in stored:  # issue 22: section_path comes back as the list the record has
        assert all(isinstance(v, (str, int, float, bool)) for k, v in c["metadata"].items() if k != "section_path")
        assert c["metadata"]["section_path"] == []
    raw = collection.get(include=["metadatas"])["metadatas"]
    assert all(isinstance(v, (str, int, float, bool)) for m in raw for v in m.values()), "Chroma holds scalars only"


def test_section_path_is_stored_joined_and_read_back_as_a_list(settings: Settings) -> None:
    collection = open_collection(settings)
    chunk = Chunk("doc", "question", 0, "預算案", 1, 1, "narrative", 5, section_heading="中小企業",
                  section_path=["第二章支援企業", "中小企業"])
    replace_document(collection, [chunk.to_record("doc.pdf", "s")], "doc", "question", "s")
    assert collection.get(ids=["doc:question:0"], include=["metadatas"])["metadatas"][0]["section_path"] == "第二章支援企業 > 中小企業"
    assert stored_chunks(collection)[0]["metadata"]["section_path"] == ["第二章支援企業", "中小企業"]


def test_reopened_collection_finds_its_embedding_function_and_cache(settings: Settings) -> None:
    collection = open_collection(settings)
    replace_document(collection, _records(["排水系統的容量足夠應付暴雨"], "s"), "doc", "question", "s")
    embedder = collection._embedding_function
    before = embedder.embedded_count
    replace_document(collection, _records(["排水系統的容量足夠應付暴雨"], "s"), "doc", "question", "s")
    assert embedder.embedded_count == before, "unchanged text is never re-embedded"
    reopened = open_client(settings).get_collection("legco_chunks")  # no embedding function passed: rebuilt from config
    hits = reopened.query(query_texts=["排水容量"], n_results=1)
    assert hits["ids"][0] == ["doc:question:0"]
