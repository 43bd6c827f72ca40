"""The no-LLM route across languages: a query's words rendered in the other script by
CC-CEDICT, searched by BM25 alone, and what that vote is worth in the fusion."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import (
    DEFAULT_FUSION,
    DICTIONARY,
    PLAIN_RRF,
    Retriever,
    open_collection,
    replace_document,
    tokenize,
)
from legco_assets.core.search.dictionary_translation import translate_words, vocabulary_test
from legco_assets.core.settings import Settings

from .factories import question_records

# a Chinese-only paper (Hong Kong forms: 僱主, not CC-CEDICT's 雇主) and an English one on
# other subjects, so that no English chunk answers the English question below
ZH = [
    (
        "Q1",
        "僱主須否為外籍家庭傭工購買保險？",
        "僱主必須為外籍家庭傭工購買僱員補償保險，並須在合約期內保持有效。",
    ),
    ("Q2", "最低工資是多少？", "法定最低工資為每小時42.1元，每兩年檢討一次。"),
    ("Q3", "公共泳池月票的收費是多少？", "康文署的公共泳池成人月票收費為每張 300 元。"),
]
EN = [
    ("Q1", "How do I renew a passport?", "Passports are renewed online or at an Immigration office."),
    ("Q2", "Where can I park a bicycle?", "Bicycle parking spaces are provided near MTR stations."),
]


def _records(document: str, pairs: list[tuple[str, str, str]]) -> list[ChunkRecord]:
    return question_records(document, pairs, document[0] * 64)


@pytest.fixture
def store(settings: Settings) -> tuple[Settings, Any]:
    collection = open_collection(settings)
    replace_document(collection, _records("zhfaq", ZH), "zhfaq", "question", "z" * 64)
    replace_document(collection, _records("enfaq", EN), "enfaq", "question", "e" * 64)
    return settings, collection


def test_english_words_become_the_hong_kong_forms_the_index_holds() -> None:
    vocabulary = set(tokenize("僱主 保險 補償"))  # as the index holds them (variant characters folded)
    rendering = translate_words("Must an employer buy insurance?", vocabulary_test(vocabulary))
    words = rendering.text.split()
    assert "僱主" in words and "保險" in words, rendering
    assert "雇主" not in words, "CC-CEDICT's mainland form is not in the index"
    # employer, buy, insurance: two of three content words found a known rendering
    assert rendering.share == pytest.approx(2 / 3)


def test_chinese_words_become_their_first_gloss_known_to_the_index() -> None:
    rendering = translate_words("僱主要買保險嗎？", vocabulary_test({"employer", "insurance"}))
    assert set(rendering.text.split()) == {"employer", "insurance"}
    assert 0 < rendering.share <= 1


def test_nothing_known_renders_nothing() -> None:
    rendering = translate_words("What is the monthly fare?", vocabulary_test({"僱主"}))
    assert rendering.text == "" and rendering.share == 0.0


def test_an_english_question_finds_the_chinese_only_answer_through_the_dictionary(store) -> None:
    settings, collection = store
    retriever = Retriever.open(settings, translate=False, rerank=False)
    query = "Does an employer have to buy insurance for a foreign domestic helper?"
    rankings = retriever.rankings(query, "question", 10)
    assert [c.id for c in rankings["bm25"] if c.record.document_id == "zhfaq"] == [], (
        "BM25 alone cannot cross scripts"
    )
    assert rankings[DICTIONARY][0].id == "zhfaq:question:0"
    hits = retriever.search(query, k=3, strategy="question")
    assert hits[0].id == "zhfaq:question:0" and DICTIONARY in hits[0].ranks
    # its vote is what lifts the answer: without it (weight 0, as in the textbook fusion) its lead
    # over the runner-up is smaller (fused scores are scaled to the best hit's, so compare leads)
    without = Retriever(collection, retriever.embedder, fusion=replace(DEFAULT_FUSION, dictionary_weight=0.0))
    plain = without.search(query, k=10, strategy="question")
    score = {h.id: h.score for h in plain}
    lead_without = score["zhfaq:question:0"] - max(h.score for h in plain if h.id != "zhfaq:question:0")
    assert hits[0].score - hits[1].score > lead_without and PLAIN_RRF.dictionary_weight == 0.0


def test_a_query_in_the_papers_own_script_only_asks_the_dictionary_when_the_other_script_is_stored(
    settings: Settings,
) -> None:
    collection = open_collection(settings)
    replace_document(collection, _records("enfaq", EN), "enfaq", "question", "e" * 64)
    retriever = Retriever.open(settings, translate=False, rerank=False)
    assert retriever.rankings("How do I renew a passport?", "question", 10)[DICTIONARY] == []
