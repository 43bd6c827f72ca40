"""Variant characters folded for search: either form of a pair finds the same
chunks in the same order, while chunks keep the characters the paper prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import Retriever, open_collection, replace_document, tokenize, variant_fold
from legco_assets.core.settings import Settings

from .factories import question_records

# (the form the page prints, the other form, the page's Q&A pair, a question in the other form)
PAIRS = [
    (
        "産",
        "產",
        ("Q1", "男性僱員可否放侍産假？", "合資格的男性僱員每名新生嬰兒可享有五天侍産假。"),
        "男性僱員的侍產假有多少天？",
    ),
    (
        "爲",
        "為",
        ("Q2", "僱主須否爲僱員投保？", "僱主必須爲所有僱員購買僱員補償保險。"),
        "僱主是否必須為僱員購買保險？",
    ),
    ("衞", "衛", ("Q3", "食水由誰檢驗？", "衞生署定期抽驗食水樣本。"), "哪個部門是衛生署？"),
    ("綫", "線", ("Q4", "如何查詢？", "請致電勞工處熱綫 2717 1771 查詢。"), "勞工處熱線電話是多少？"),
    (
        "着",
        "著",
        ("Q5", "欠薪個案如何處理？", "勞工處會着手調查欠薪個案並提出檢控。"),
        "勞工處會著手調查甚麼個案？",
    ),
    (
        "裏",
        "裡",
        ("Q6", "工作地方發生意外怎辦？", "在工作地方裏發生的意外須於七天內呈報。"),
        "工作地方裡發生意外要幾天內呈報？",
    ),
    ("峯", "峰", ("Q7", "何時最繁忙？", "早上八時至九時是交通的高峯時段。"), "交通高峰時段是何時？"),
]
# an English paper on other subjects: the dictionary's renderings have somewhere to go
EN = [("E1", "How do I renew a passport?", "Passports are renewed online or at an Immigration office.")]


def _records(document: str, pairs: list[tuple[str, str, str]]) -> list[ChunkRecord]:
    return question_records(document, pairs, document[0] * 64)


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    root: Path = tmp_path_factory.mktemp("variants")
    settings = Settings(data_dir=root / "data", inbox=root / "data" / "inbox")
    collection = open_collection(settings)
    replace_document(
        collection, _records("faq", [page for _, _, page, _ in PAIRS]), "faq", "question", "f" * 64
    )
    replace_document(collection, _records("enfaq", EN), "enfaq", "question", "e" * 64)
    return Retriever.open(settings, translate=False, rerank=False)


@pytest.mark.parametrize(("printed", "other", "page", "question"), PAIRS, ids=[p[0] + p[1] for p in PAIRS])
def test_either_form_finds_the_same_chunks_in_the_same_order(
    retriever: Retriever, printed: str, other: str, page: tuple[str, str, str], question: str
) -> None:
    assert other in question and printed not in question and printed in page[2]
    as_typed = retriever.search(question, k=8, strategy="question")
    as_printed = retriever.search(question.replace(other, printed), k=8, strategy="question")
    assert [(h.id, h.ranks) for h in as_typed] == [(h.id, h.ranks) for h in as_printed]
    assert [h.score for h in as_typed] == pytest.approx([h.score for h in as_printed])
    first = as_typed[0]
    assert first.record.metadata.question_id == page[0], [h.text for h in as_typed]
    assert printed in first.text and other not in first.text, (
        "the chunk keeps the characters the paper prints"
    )


def test_folding_joins_the_forms_of_one_word_in_the_index() -> None:
    for printed, other, _, _ in PAIRS:
        assert variant_fold(printed) == variant_fold(other), (printed, other)
    assert tokenize("侍産假") == tokenize("侍產假") == ["侍產", "產假"]
    assert len(variant_fold("侍産假，僱員")) == len("侍産假，僱員"), (
        "one character for one: offsets stay valid"
    )


def test_a_character_with_a_meaning_of_its_own_is_not_folded_into_its_lookalike() -> None:
    # 里 (a unit of length, a neighbourhood) shares yitizi's class with 裏/裡; 箸 (chopsticks) with 着/著
    assert variant_fold("里") == "里" and variant_fold("裏") != "里"
    assert variant_fold("箸") == "箸" and variant_fold("着") != "箸"
    # 冲 is the simplified form of both 沖 and 衝: no one word to fold it into
    assert variant_fold("冲") == "冲"
    assert variant_fold("公里") != variant_fold("公裏")
