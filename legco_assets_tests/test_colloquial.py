"""Colloquial Cantonese questions reach BM25 in written Chinese."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from legco_assets.core.search import (
    COLLOQUIAL,
    DEFAULT_FUSION,
    Retriever,
    lexical_query,
    open_collection,
    replace_document,
    tokenize,
    variant_fold,
    written_form,
)
from legco_assets.core.search.dictionary_translation import dictionary
from legco_assets.core.settings import Settings

from .factories import question_records

FAQ = [
    ("Q1", "僱主須於何時支付工資？", "僱主須於工資期屆滿後七天內支付工資，即發薪日。"),
    ("Q2", "男性僱員可享多少天侍產假？", "合資格的男性僱員每名新生嬰兒可享有五天侍產假。"),
    ("Q3", "僱員有沒有權享有有薪年假？", "僱員為同一僱主工作滿十二個月後，可享有有薪年假。"),
]


def test_a_cantonese_question_gets_its_written_words() -> None:
    assert written_form("僱主幾時要出糧？") == "雇主何時要發薪？ 甚麼時候 工資"
    assert written_form("侍產假有幾多日？") == "侍產假有多少日？"
    assert written_form("佢哋有冇關係？") == "他們有沒有關係？", "係 inside the written word 關係 stays"
    assert written_form("最低工資是多少？") == "", "a written question has nothing to add"
    assert written_form("How much is the minimum wage?") == ""
    assert lexical_query("點樣申請？") == "點樣申請？\n怎樣申請？ 如何"


def test_every_written_word_is_a_cc_cedict_word() -> None:
    """The list was checked against CC-Canto and CC-CEDICT by hand (colloquial.py); what can
    be checked here is that every written word is one CC-CEDICT knows (in a variant form)."""
    words = dictionary().glosses
    for colloquial, written in COLLOQUIAL.items():
        for word in written:
            assert word in words or variant_fold(word) in words or word.replace("甚麼", "什麼") in words, (
                colloquial,
                word,
            )


def test_bm25_finds_the_written_answer_and_the_embedder_reads_the_question_as_asked(
    settings: Settings,
) -> None:
    collection = open_collection(settings)
    replace_document(collection, question_records("faq", FAQ, "f" * 64), "faq", "question", "f" * 64)
    # off by default (measured: docs/history/retrieval.md); switched on, the lexical rankers read it
    retriever = Retriever.open(
        settings, fusion=replace(DEFAULT_FUSION, colloquial_reading=True), translate=False, rerank=False
    )
    seen: list[str] = []
    embed = retriever.embed_query

    def recording(query: str) -> Any:
        seen.append(query)
        return embed(query)

    retriever.embed_query = recording  # type: ignore[method-assign]
    question = "僱主幾時要出糧？"
    assert not set(tokenize(question)) & set(tokenize(FAQ[0][1] + FAQ[0][2])) - set(tokenize("僱主")), (
        "only 僱主 is shared as asked"
    )
    found = retriever.rankings(question, "question", 3)["bm25"]
    assert found[0].id == "faq:question:0"
    assert found[0].coverage > retriever.scope("question").index.coverage(question)[0], (
        "coverage of the written reading"
    )
    assert seen == [question], "the embedder reads the question as asked"
    assert retriever.search(question, k=1, strategy="question", mode="bm25")[0].id == "faq:question:0"
