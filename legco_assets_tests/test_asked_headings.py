"""An FAQ paper that prints no labels: each bold question line and the text under it is a pair.

The fixture (``fixtures/faq/faq_unlabelled_en.pdf``, from ``generate_faq_fixtures.py``) sets
its questions in Helvetica-Bold at body size and its answers in Helvetica; the expected
questions and answers are the generator's own lists. The HTML shapes of the same kind of
page (``<dt>``, ``<h3>``, ``<summary>``, bold paragraphs) are tested in ``test_html_input.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_file
from legco_assets.core.settings import Settings, Strategy
from legco_assets_tests.fixtures.generate_faq_fixtures import EN, OUT_DIR

PDF = OUT_DIR / "faq_unlabelled_en.pdf"


def test_bold_questions_of_a_pdf_faq_without_labels_are_one_pair_each(tmp_path: Path) -> None:
    records = chunk_file(PDF, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    pairs = [r for r in records if r["metadata"]["section_type"] == "qa"]
    expected = [(topic, q, a) for topic, items in EN["topics"] for q, a in items]
    assert [p["metadata"]["question_id"] for p in pairs] == [str(n) for n in range(1, len(expected) + 1)]
    assert [(p["metadata"]["section_path"], p["metadata"]["question_text"]) for p in pairs] == [
        ([t], q) for t, q, _ in expected
    ]
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


# -- a one-page PDF leaflet of questions, each way of setting them apart --------------------------
ASKED = [
    "How do I apply for the scheme online?",
    "What documents must I submit with the form?",
    "How long does the approval take normally?",
    "Can I appeal if my application is refused?",
]
ANSWERED = [
    "You may apply through the online portal at any time of the day. Applications are processed in the order received.",
    "You must submit a copy of your identity card and proof of address. Copies need not be certified.",
    "Approval normally takes about four weeks from receipt of all documents.",
    "Yes, you may lodge an appeal within 28 days of the decision letter.",
]
ENQUIRIES = "Enquiries: please call 2345 6789 during office hours."
LEAFLET_STYLES = {
    "q_colon": lambda n, q, a: [(f"Q: {q}", True), (f"A: {a}", False)],
    "question_n_answer": lambda n, q, a: [(f"Question {n}: {q}", True), (f"Answer: {a}", False)],
    "q_n_in_bold": lambda n, q, a: [(f"Q{n}. {q}", True), (a, False)],
    "q_n_a_n": lambda n, q, a: [(f"Q{n}: {q}", False), (f"A{n}: {a}", False)],
    "bold_numbered": lambda n, q, a: [(f"{n}. {q}", True), (a, False)],
    "bold_only": lambda n, q, a: [(q, True), (a, False)],
    "labels_on_lines_of_their_own": lambda n, q, a: [(f"Q{n}", True), (q, True), (f"A{n}", True), (a, False)],
}


@pytest.mark.parametrize("style", list(LEAFLET_STYLES))
def test_a_one_page_leaflet_gives_a_pair_per_question_and_its_enquiry_note_a_chunk_of_its_own(
    style: str, tmp_path: Path
) -> None:
    """Found by setting one leaflet each way: questions in bold with no label made no pair
    (on a one-page paper a style seen on page 1 only was the title's unless its lines were
    apart, and apart was counted among the candidate lines, not the page's lines), and the
    closing ``Enquiries:`` line ran on in the last answer."""
    from .pdf_factory import make_leaflet

    lines = [
        line for n, (q, a) in enumerate(zip(ASKED, ANSWERED), 1) for line in LEAFLET_STYLES[style](n, q, a)
    ]
    leaflet = make_leaflet(
        tmp_path / f"{style}.pdf",
        "Frequently Asked Questions on the Subsidy Scheme",
        lines + [(ENQUIRIES, False)],
    )
    records = chunk_file(leaflet, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    pairs = [r for r in records if r["metadata"]["section_type"] == "qa"]
    assert [ASKED[n] in p["metadata"]["question_text"] for n, p in enumerate(pairs)] == [True] * 4
    assert [" ".join(p["text"].split()).endswith(ANSWERED[n]) for n, p in enumerate(pairs)] == [True] * 4
    assert [r["text"].split("\n")[-1] for r in records if ENQUIRIES in r["text"]] == [ENQUIRIES]
