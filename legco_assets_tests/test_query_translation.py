"""Query translation: with an LLM configured, hybrid search also runs the query in the
papers' other language, through the real ``openai`` client against the local test server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from legco_assets.core.search import (
    TRANSLATED,
    Retriever,
    open_collection,
    parse_translation,
    replace_document,
    target_language,
    translation_messages,
)
from legco_assets.core.settings import Settings

from .factories import ZH_PAIRS, question_records
from .llm_server import FakeLLMServer, Fault, short_limit_for
from .runs import cli_in_process

ASKED = "How many flooding black spots are still left across Hong Kong?"
TRANSLATED_QUERY = '{"translation": "全港仍有多少個水浸黑點？"}'


def test_the_other_language_is_asked_for_and_the_reply_is_read_strictly() -> None:
    assert target_language(ASKED) == "zh" and target_language("全港仍有多少個水浸黑點？") == "en"
    assert "Traditional Chinese" in translation_messages(ASKED)[-1]["content"]
    assert "into English" in translation_messages("水浸黑點")[-1]["content"]
    assert parse_translation(TRANSLATED_QUERY, ASKED) == "全港仍有多少個水浸黑點？"
    assert parse_translation('```json\n{"translation": "水浸黑點"}\n```', ASKED) == "水浸黑點"
    assert parse_translation("水浸黑點還有多少？", ASKED) == "水浸黑點還有多少？", (
        "a plain one-line reply is taken"
    )
    assert parse_translation('"水浸黑點"', ASKED) == "水浸黑點"
    assert parse_translation('{"translation": ""}', ASKED) is None
    assert parse_translation(f'{{"translation": "{ASKED}"}}', ASKED) is None, (
        "the query echoed back is no translation"
    )
    assert parse_translation('{"translation": "flooding black spots"}', ASKED) is None, (
        "not in the target language"
    )
    assert parse_translation("第一行\n第二行", ASKED) is None


def test_an_english_query_finds_the_chinese_answer_through_its_translation(
    llm_store, llm_server: FakeLLMServer
) -> None:
    settings, collection = llm_store
    llm_server.enqueue(TRANSLATED_QUERY)
    retriever = Retriever.open(settings, collection=collection, rerank=False)
    hits = retriever.search(ASKED, k=3, strategy="question")
    assert hits[0].metadata.question_id == "A2" and hits[0].ranks[TRANSLATED + "bm25"] == 1
    sent = llm_server.requests[-1][1]["messages"]
    assert sent[-1]["content"].endswith(ASKED) and "Traditional Chinese" in sent[-1]["content"]
    assert llm_server.calls["chat"] == 1
    retriever.search(ASKED, k=3, strategy="question")
    Retriever.open(settings, collection=collection, rerank=False).search(ASKED, k=3, strategy="question")
    assert llm_server.calls["chat"] == 1, "asked once per process, then answered from the LLM cache"
    plain = Retriever.open(settings, collection=collection, translate=False, rerank=False).search(
        ASKED, k=3, strategy="question"
    )
    assert not any(name.startswith(TRANSLATED) for hit in plain for name in hit.ranks)


@pytest.mark.parametrize(
    "fault",
    [
        Fault.status(500),
        Fault.status(429),
        Fault.timeout(2.0),
        Fault.bad_json(),
        "I cannot help with that.\nSorry.",
    ],
)
def test_a_failed_translation_searches_the_query_alone(
    llm_store, llm_server: FakeLLMServer, fault: Any
) -> None:
    settings, collection = llm_store
    settings = short_limit_for(settings, fault)
    llm_server.enqueue(fault, fault)  # the first try and the translator's one retry
    retriever = Retriever.open(settings, collection=collection, rerank=False)
    hits = retriever.search(ASKED, k=3, strategy="question")
    alone = Retriever.open(settings, collection=collection, translate=False, rerank=False).search(
        ASKED, k=3, strategy="question"
    )
    assert [h.id for h in hits] == [h.id for h in alone] and [h.score for h in hits] == [
        h.score for h in alone
    ]
    assert retriever.translation(ASKED) is None


def test_query_command_says_what_it_also_searched(
    llm_server: FakeLLMServer, env_data_dir: Path, monkeypatch
) -> None:
    monkeypatch.setenv("LLM_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("LLM_MODEL_NAME", llm_server.model)
    collection = open_collection(Settings.from_env())
    replace_document(collection, question_records("drain", ZH_PAIRS, "a" * 64), "drain", "question", "a" * 64)
    llm_server.enqueue(TRANSLATED_QUERY)
    code, out, err = cli_in_process("query", ASKED, "--strategy", "question", "-k", "1", "--no-rerank")
    assert (
        code == 0
        and "A2" in out
        and "translated bm25 1" in out
        and "also searched as: 全港仍有多少個水浸黑點？" in err
    )
    code, out, err = cli_in_process(
        "query", ASKED, "--strategy", "question", "-k", "1", "--no-translate", "--no-rerank"
    )
    assert code == 0 and "translated" not in out + err and llm_server.calls["chat"] == 1
