"""The blind eval: question sets judged by a quoted answer end, dev sets apart from the
held-out ones, and ``scripts/eval_retrieval.py`` searching with the configured embedder."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

from legco_assets.core.evaluation import (
    DEV_SETS,
    HELD_OUT,
    LLM_RECORDED_SETS,
    SET_KINDS,
    LooseEnd,
    Paper,
    add_question_anchors,
    holds_answer_end,
    load_gold_questions,
    loose,
    script_language,
)

from .factories import chunk_record

REPO = Path(__file__).resolve().parents[1]


def _script() -> object:
    spec = importlib.util.spec_from_file_location("eval_retrieval", REPO / "scripts" / "eval_retrieval.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_set_has_a_kind_and_the_dev_sets_are_not_held_out() -> None:
    assert set(SET_KINDS) == set(HELD_OUT) | set(DEV_SETS)
    assert not set(DEV_SETS) & set(HELD_OUT) and set(LLM_RECORDED_SETS) < set(HELD_OUT)
    for path in [*HELD_OUT.values(), *DEV_SETS.values()]:
        assert path.exists(), path


def test_blind_questions_load_without_a_question_id_and_name_their_answer_end() -> None:
    for name in ("narrative", "crosslang", "narrative-dev", "crosslang-dev"):
        path = HELD_OUT.get(name) or DEV_SETS[name]
        questions = load_gold_questions(path)
        assert questions and all(q.qa_id is None and q.answer_end and q.document for q in questions), name
        assert {script_language(q.lang) for q in questions} <= {"zh", "en"}
    kinds = {
        json.loads(p.read_text(encoding="utf-8"))["kind"]
        for p in (HELD_OUT["crosslang"], DEV_SETS["crosslang-dev"])
    }
    assert kinds == {"cross-language"} and SET_KINDS["crosslang"] == "cross-language"


def test_variant_dev_sets_ask_in_other_variant_forms_and_in_cantonese() -> None:
    variant, cantonese = (
        load_gold_questions(DEV_SETS["variant-dev"]),
        load_gold_questions(DEV_SETS["cantonese-dev"]),
    )
    for questions in (variant, cantonese):
        assert questions and all(q.qa_id is None and q.answer_end and q.document for q in questions)
    assert {q.lang for q in variant} == {"zh"} and {q.lang for q in cantonese} == {"yue"}
    notes = [
        json.loads(DEV_SETS["variant-dev"].read_text(encoding="utf-8"))["questions"][i]["note"]
        for i in range(len(variant))
    ]
    # each note names the pairs as question form -> page form, and the question uses the first
    for q, note in zip(variant, notes):
        pairs = [pair.split("→") for pair in note.split(", ")]
        assert any(asked in q.question for asked, _ in pairs), (q.id, note)
    assert SET_KINDS["variant-dev"] == "variant forms" and SET_KINDS["cantonese-dev"] == "Cantonese"


def test_a_quoted_answer_end_matches_with_punctuation_and_spacing_ignored() -> None:
    paper = Paper(Path("guide.pdf"), "guide", "0" * 64, "", {})
    question = load_gold_questions(DEV_SETS["narrative-dev"])[0]
    add_question_anchors({question.document: paper}, [question])
    anchor = paper.anchor(question)
    assert isinstance(anchor, LooseEnd) and anchor == loose(question.answer_end)
    # the chunk prints the end across a line break, with other spacing and no full stop
    printed = "... any term of a contract of employment which purports to extinguish any right conferred on the\nemployee by this  Ordinance shall be void"
    assert holds_answer_end(chunk_record("guide:0", printed, "guide"), "guide", anchor)
    assert not holds_answer_end(chunk_record("other:0", printed, "other"), "guide", anchor)
    assert not holds_answer_end(
        chunk_record("guide:0", "employee by this Ordinance", "guide"), "guide", anchor
    )
    assert loose("《僱傭條例》㇐ 年") == "僱傭條例一年"  # the CJK stroke some PDFs print for 一
    # a writer quotes the 2012 Hansard as extracted (令 as the compatibility ideograph U+F9A8);
    # its chunks hold the text as the pipeline reads it
    quoted = LooseEnd(loose("結構安全保證，\uf9a8其業主放心。"))
    assert holds_answer_end(chunk_record("h:0", "……提供結構安全保證，令其業主放心。", "h"), "h", quoted)


def test_cantonese_questions_are_same_language_for_a_chinese_paper() -> None:
    assert script_language("yue") == "zh" and script_language("zh") == "zh" and script_language("en") == "en"


def test_the_eval_searches_with_the_configured_embedder_and_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script()
    monkeypatch.setenv("EMBEDDING_MODEL", "multilingual-e5-small")
    monkeypatch.setenv("LEGCO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHROMA_HOST", "chroma.example")
    settings = script.eval_settings(tmp_path / "runs", "faq", argparse.Namespace(embedding_model=None))
    assert settings.embedding_model == "multilingual-e5-small" and settings.data_dir == tmp_path / "data"
    # each set gets a Chroma of its own, never the configured server's collection
    assert settings.chroma_host is None and settings.chroma_dir == tmp_path / "runs" / "faq" / "chroma"
    assert (
        script.eval_settings(
            tmp_path / "runs", "faq", argparse.Namespace(embedding_model="use-multilingual")
        ).embedding_model
        == "use-multilingual"
    )
    monkeypatch.delenv("LEGCO_DATA_DIR")
    assert (
        script.eval_settings(tmp_path / "runs", "faq", argparse.Namespace(embedding_model=None)).data_dir
        == tmp_path / "runs"
    )
