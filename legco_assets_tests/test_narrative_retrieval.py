"""Every kind of chunk competes in every ranker, and sections lift their chunks.

A narrative chunk (a speech paragraph, a guide's section, a speaking-notes bullet, a token
window) gets a question side of its own: the nearest headings of its section path and its
opening sentence. Chunks of one section that score together lift one another, and
``query --sections`` ranks the sections themselves."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from legco_assets.core.records import Chunk, ChunkRecord
from legco_assets.core.search import (
    DEFAULT_FUSION,
    Candidate,
    Fusion,
    Hit,
    Mode,
    Retriever,
    aggregate,
    fuse,
    open_collection,
    question_side,
    replace_document,
)
from legco_assets.core.search.question_side import OPENING_MAX
from legco_assets.core.search.sections import lift
from legco_assets.core.settings import Settings

from .factories import chunk_record, question_records
from .runs import cli_in_process

# a Q&A paper on other subjects: before narrative chunks ranked, its chunks alone had the question ranker's vote
QA = [
    (
        "Q1",
        "What are the monthly rates of the Old Age Allowance?",
        "The Old Age Allowance is $1,675 a month from 1 February 2025.",
    ),
    (
        "Q2",
        "How much does public housing construction cost per flat?",
        "The average construction cost of a public rental flat is about $1.2 million.",
    ),
    (
        "Q3",
        "What penalties apply to unlicensed care homes?",
        "Operating a home without a licence carries a fine of $1,000,000 and 3 years.",
    ),
]
# a budget speech: headed sections of narrative paragraphs, no questions
SPEECH = [
    (
        ["經濟概況", "通脹"],
        "經濟概況\n通脹\n2023年的基本通脹率為1.7%，較2022年的1.7%相若。\n預計2024年基本通脹率為1.7%。",
    ),
    (["經濟概況", "通脹"], "輸入通脹在年內回落，本地成本壓力溫和。\n租金上升的影響將逐步浮現。"),
    (["經濟概況", "就業"], "經濟概況\n就業\n失業率由年初的3.4%下降至年底的2.9%。\n勞工市場持續緊張。"),
    (["公共財政", "收入"], "公共財政\n收入\n2023-24年度的政府收入預計為5,270億元。\n印花稅收入較預期為少。"),
    (["公共財政", "開支"], "公共財政\n開支\n政府開支預計為6,440億元，較上年度增加。\n醫療及教育佔最大份額。"),
]


def _qa_records() -> list[ChunkRecord]:
    return question_records("faq", QA, "a" * 64, section_path=["FAQ"])


def _speech_records() -> list[ChunkRecord]:
    chunks = [
        Chunk("speech", "question", i, text, i + 1, i + 1, "narrative", 60, section_path=path)
        for i, (path, text) in enumerate(SPEECH)
    ]
    return [c.to_record("speech.pdf", "b" * 64) for c in chunks]


@pytest.fixture
def store(settings: Settings) -> tuple[Settings, Any]:
    collection = open_collection(settings)
    replace_document(collection, _qa_records(), "faq", "question", "a" * 64)
    replace_document(collection, _speech_records(), "speech", "question", "b" * 64)
    return settings, collection


def test_a_question_side_is_the_papers_question_or_the_headings_and_opening() -> None:
    qa, speech = _qa_records()[0], _speech_records()[0]
    assert question_side(qa) == QA[0][1]
    # the headings the chunk repeats at its start are not repeated; the opening stops at its sentence
    assert question_side(speech) == "經濟概況 > 通脹 > 2023年的基本通脹率為1.7%，較2022年的1.7%相若。"
    long_text = chunk_record("long", "word " * 400)
    assert 0 < len(question_side(long_text)) <= OPENING_MAX


def test_a_narrative_chunk_is_found_first_through_every_ranker(store) -> None:
    """The case that made narrative chunks rank: a question about a speech paragraph. With the question-side ranker
    over Q&A chunks only, the speech's chunk has two rankers' votes against a Q&A chunk's
    three; with a question side of its own it competes on equal terms and comes first."""
    settings, collection = store
    query = "2023年的基本通脹率是多少？"
    before = Retriever(collection, Retriever.open(settings).embedder, question_sides="qa")
    now = Retriever.open(settings, translate=False, rerank=False)
    old = before.search(query, k=8, strategy="question")
    new = now.search(query, k=8, strategy="question")
    assert all("question" not in h.ranks for h in old if h.record.document_id == "speech")
    assert new[0].id == "speech:question:0" and "question" in new[0].ranks
    assert {h.record.document_id for h in now.search(query, k=8, strategy="question", mode=Mode.vector)} >= {
        "speech"
    }


def test_chunks_of_one_section_lift_each_other() -> None:
    records = {r.id: r for r in _speech_records()}
    scores = {
        "speech:question:0": 0.030,
        "speech:question:1": 0.020,
        "speech:question:2": 0.032,
        "speech:question:3": 0.010,
    }
    lifted = dict(scores)
    lift(lifted, records, 0.5)
    # the inflation section's two chunks agree: together they pass the lone employment chunk
    assert lifted["speech:question:0"] == pytest.approx(0.030 + 0.5 * 0.020)
    assert lifted["speech:question:1"] == pytest.approx(0.020 + 0.5 * 0.030)
    assert (
        lifted["speech:question:2"] == scores["speech:question:2"]
        and lifted["speech:question:3"] == scores["speech:question:3"]
    )
    assert lifted["speech:question:0"] > lifted["speech:question:2"] > scores["speech:question:0"]


def test_sections_are_ranked_by_their_best_chunks_with_decay() -> None:
    records = _speech_records()
    hits = [
        Hit(records[i], n, s)
        for n, (i, s) in enumerate([(2, 0.04), (0, 0.03), (1, 0.03), (3, 0.01)], start=1)
    ]
    sections = aggregate(hits)
    assert [s.path for s in sections] == [("經濟概況", "通脹"), ("經濟概況", "就業"), ("公共財政", "收入")]
    assert sections[0].score == pytest.approx(0.03 + 0.5 * 0.03) and [h.id for h in sections[0].hits] == [
        "speech:question:0",
        "speech:question:1",
    ]
    # without a section path a chunk stands alone rather than joining "the whole paper"
    bare = replace(records[4], metadata=replace(records[4].metadata, section_path=[]))
    assert [s.path for s in aggregate([Hit(bare, 1, 0.1), Hit(records[3], 2, 0.05)])] == [
        (bare.id,),
        ("公共財政", "收入"),
    ]


def test_section_share_in_fusion_only_moves_chunks_with_section_mates() -> None:
    records = _speech_records()
    rankings = {
        "vector": [Candidate(records[2], 0.9), Candidate(records[0], 0.8), Candidate(records[1], 0.7)],
        "question": [],
        "bm25": [],
    }
    plain = fuse("通脹", rankings, DEFAULT_FUSION)
    lifted = fuse("通脹", rankings, Fusion(section_share=1.0))
    assert plain[0].id == "speech:question:2" and lifted[0].id == "speech:question:0"


def test_query_sections_prints_sections_with_their_best_chunks(env_data_dir: Path) -> None:
    collection = open_collection(Settings.from_env())
    replace_document(collection, _qa_records(), "faq", "question", "a" * 64)
    replace_document(collection, _speech_records(), "speech", "question", "b" * 64)
    code, out, _ = cli_in_process(
        "query", "通脹率", "--strategy", "question", "--sections", "-k", "2", "--json"
    )
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [s["rank"] for s in lines] == [1, 2]
    assert lines[0]["document_id"] == "speech" and lines[0]["section_path"] == ["經濟概況", "通脹"]
    assert [c["id"] for c in lines[0]["chunks"]][:1] == ["speech:question:0"] and lines[0]["score"] >= lines[
        1
    ]["score"]
    code, out, _ = cli_in_process("query", "通脹率", "--strategy", "question", "--sections", "-k", "1")
    assert code == 0 and out.startswith("#1 ") and "§ 經濟概況 > 通脹" in out and "speech:question:0" in out
