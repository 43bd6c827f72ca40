"""An FAQ paper that prints no labels: each bold question line and the text under it is a pair.

The fixture (``fixtures/faq/faq_unlabelled_en.pdf``, from ``generate_faq_fixtures.py``) sets
its questions in Helvetica-Bold at body size and its answers in Helvetica; the expected
questions and answers are the generator's own lists. The HTML shapes of the same kind of
page (``<dt>``, ``<h3>``, ``<summary>``, bold paragraphs) are tested in ``test_html_input.py``.
"""

from __future__ import annotations

from pathlib import Path

from legco_assets.core.pipeline import chunk_file
from legco_assets.core.settings import Settings, Strategy
from legco_assets_tests.fixtures.generate_faq_fixtures import EN, OUT_DIR

PDF = OUT_DIR / "faq_unlabelled_en.pdf"


def test_bold_questions_of_a_pdf_faq_without_labels_are_one_pair_each(tmp_path: Path) -> None:
    records = chunk_file(PDF, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    pairs = [r for r in records if r["metadata"]["section_type"] == "qa"]
    expected = [(topic, q, a) for topic, items in EN["topics"] for q, a in items]
    assert [p["metadata"]["question_id"] for p in pairs] == [str(n) for n in range(1, len(expected) + 1)]
    assert [(p["metadata"]["section_path"], p["metadata"]["question_text"]) for p in pairs] == [([t], q) for t, q, _ in expected]
    for pair, (_, question, answer) in zip(pairs, expected):
        text = " ".join(pair["text"].split())
        assert text == " ".join([question, *answer]), question
    assert [p["page_number"] for p in pairs] == [1, 1, 2, 2, 3, 3]


def test_the_same_paper_chunked_by_tokens_is_unchanged_by_its_questions(tmp_path: Path) -> None:
    """The token strategy keeps its windows; only the section paths come from the outline."""
    records = chunk_file(PDF, Strategy.token, Settings(data_dir=tmp_path / "data"), use_llm=False)
    every_question = [q for _, items in EN["topics"] for q, _ in items]
    text = " ".join(" ".join(r["text"].split()) for r in records)
    assert all(q in text for q in every_question)
    assert "question_text" not in records[0]["metadata"]
