"""Forty-four papers in formats this project had not been built on, written blind, five sets.

Five helpers who saw none of this project's code or fixtures wrote them from how the
Government and LegCo publish, each set with ``key.json``: the exchanges a careful reader
expects, each question's text and the last characters of its answer.

* ``fixtures/html/blind/``: a Council question's press release in English (written reply, a
  table in it) and in Chinese (oral reply), a Bootstrap accordion FAQ, a Chinese FAQ as a
  ``編號 | 問題 | 答案`` table, a Chinese FAQ with ``問1.`` / ``答1.`` labels and its questions
  listed at the top, a Council agenda, a speech's press release, a plain-text FAQ leaflet.
  Its first run made 21 of its 30 exchanges pairs (17 ending right) and left the agenda's six
  questions in one chunk.
* ``fixtures/html/blind2/``: FAQs as an ``<ol>`` of bold questions, as ``Q:`` / ``A:``
  paragraphs, as numbered ``<h4>``s in tabs (Chinese), a Hansard extract in HTML (two oral
  questions, four supplementaries, a printed page's running head), a Chinese written reply's
  release, a Chinese speech, a ``Q1:`` / ``A1:`` text leaflet, and ``<h3>`` questions two of
  which have no question mark. Its first run, after the fixes of the first set: 32 of 40
  exchanges pairs (29 ending right), no pair in the speech.
* ``fixtures/html/blind3/``: an FAQ whose questions are named only by ``class="question"``, a
  Chinese ``問：`` / ``答：`` FAQ, a Chinese Hansard extract, three PDFs (a ``Q1.`` / ``A1.``
  leaflet over three pages, a two-page FAQ without labels, a LegCo panel paper), an oral
  reply's release and a narrative guide. Its first run, after the fixes of the first two:
  27 of 34 exchanges pairs (24 ending right), no pair in the panel paper, two in the guide.
* ``fixtures/html/blind4/``: ten papers of the helper's own choosing, three of them PDFs (a
  Hansard extract over four pages, a Council agenda, a guide with an FAQ part), committed
  before they were run and run once: the held-out figure, after every fix of the first
  three sets: 46 of 46 exchanges pairs (45 with the whole question: a Hansard reply label
  whose ``President,`` wrapped to the next line), 42 ending right (three last answers ran into what
  followed their FAQ's list or table, one answer into a table's category row), the agenda's
  six questions a chunk each (under a wrong item: the PDF sets its items and their
  sub-headings alike, and ``II. Questions`` sits at a page's foot; fixed since: numbered
  parts go above the headings set like them), no pair in the speech.
* ``fixtures/html/blind5/``: ten more of the helper's choosing, four of them PDFs (a Hansard
  extract, an agenda, a panel paper, a two-page admissions FAQ), committed before they were
  run and run once after the fourth set's fixes: 38 of 38 exchanges pairs with the whole
  question, 36 ending as the key's text ends (one more ends right but sets its last table as
  Markdown), each agenda question a chunk under ``II. Questions``, no pair in the speech
  (rhetorical questions answered by the speaker) or the panel paper.

What the runs found was fixed (see the commits), so the first four sets are development
cases; the fourth and fifth sets' first runs are held-out figures. What is still misread is
asserted as it is:

* the two-page PDF FAQs' last answers take in their closing notes (in a PDF, text after the
  last answer with no heading or rule of its own cannot be told from more answer; an HTML
  page says where its list, box or table of questions closes); the admissions FAQ's footer
  (``Last updated: … Page 2 of 2``) did too at first, and is learned since;
* that PDF's running header, printed on its second page only, stays in the answer before it
  (one page is no repetition to learn furniture from).

The guide's two numbered headings that ask (``1. Who is a part-time worker?``) were pairs
until the run of its numbers was read (``structure.numbering``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.settings import Settings, Strategy

HTML = Path(__file__).resolve().parent / "fixtures" / "html"
BLIND, BLIND3, BLIND4, BLIND5 = HTML / "blind", HTML / "blind3", HTML / "blind4", HTML / "blind5"
SETS = (BLIND, HTML / "blind2", BLIND3, BLIND4, BLIND5)
KEY = {
    folder / entry["file"]: entry
    for folder in SETS
    for entry in json.loads((folder / "key.json").read_text(encoding="utf-8"))
}
# (file, pair index): answers that run on past their end, as the module docstring says
RUNS_ON = {
    (BLIND3 / "faq_unlabelled_en.pdf", 3),
    (BLIND3 / "faq_unlabelled_en.pdf", 5),
    (BLIND5 / "lru_nonjupas_admissions_faq_2025.pdf", 8),
}


def _squashed(text: str | None) -> str:
    """Text without white space, and without the bars of a table set as Markdown (the keys
    give a table's cells as plain text)."""
    return re.sub(r"[\s|]+", "", text or "")


@pytest.mark.parametrize(
    "name",
    sorted(k for k, v in KEY.items() if v["pairs"] and v["pairs"][0]["answer_ends_with"]),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_each_exchange_the_key_names_is_a_pair_of_its_own(name: Path, tmp_path: Path) -> None:
    """Each question, and its answer's last characters, in a pair of its own, and every
    check the assets run passes."""
    paper = chunk_paper(name, Strategy.question, Settings(data_dir=tmp_path), use_llm=False)
    pairs = [r for r in paper.records if r.metadata.section_type == "qa"]
    expected = KEY[name]["pairs"]
    assert len(pairs) == len(expected)
    for n, (pair, want) in enumerate(zip(pairs, expected)):
        assert _squashed(want["question"]) in _squashed(pair.metadata.question_text), (name, n)
        end, text = _squashed(want["answer_ends_with"]), _squashed(pair.text)
        if (name, n) in RUNS_ON:
            assert end in text and not text.endswith(end), (name, n)
        else:
            assert text.endswith(end), (name, n)
    judged = [c for c in paper.checks if c.name != "paper_date_found"]  # an undated paper: test_paper_facts
    assert all(c.passed for c in judged), [c.line() for c in judged if not c.passed]


def test_the_releases_name_asker_answerer_and_kind_and_drop_the_sign_off(tmp_path: Path) -> None:
    found = {}
    for name in ("lcq_en.html", "lcq_zh.html"):
        records = chunk_paper(
            BLIND / name, Strategy.question, Settings(data_dir=tmp_path), use_llm=False
        ).records
        pair = next(r for r in records if r.metadata.section_type == "qa")
        found[name] = (pair.metadata.asker, pair.metadata.answerer, pair.metadata.question_kind)
        assert not any(
            mark in r.text
            for r in records
            for mark in ("NNNN", "Issued at HKT", "香港時間", "Today's Press Releases", "今日新聞公報")
        )
    assert found == {
        "lcq_en.html": ("Hon Cheung Wing-sze", "Secretary for Transport and Logistics", "written"),
        "lcq_zh.html": ("何敏儀議員", "保安局局長", "main"),
    }


def test_the_agendas_questions_are_one_chunk_each_under_their_item(tmp_path: Path) -> None:
    paper = chunk_paper(
        BLIND / "agenda_en.html", Strategy.question, Settings(data_dir=tmp_path), use_llm=False
    )
    asked = [r for r in paper.records if r.metadata.section_path[:1] == ["II. Questions"]]
    expected = KEY[BLIND / "agenda_en.html"]["pairs"]
    assert len(asked) == len(expected)
    for record, want in zip(asked, expected):
        assert _squashed(want["question"]) in _squashed(record.text)
        assert record.text.split("\n")[-1].startswith(("Public Officer to reply", "* For written reply"))
    assert [r.metadata.section_path[-1] for r in asked][:2] == [
        "1. Hon CHAN Kwok-wai to ask: (Oral reply)",
        "2. Hon LO Yuk-ying to ask: (Oral reply) (Translation)",
    ]
    labels = next(c for c in paper.checks if c.name == "question_labels_paired")
    assert not labels.passed and "a question put without a reply ×6" in labels.description


@pytest.mark.parametrize(
    ("name", "asked", "last"),
    [
        (BLIND / "speech_en.html", "What makes a good employer?", "Thank you."),
        (HTML / "blind2" / "speech_zh.html", "？", "謝謝各位。"),
    ],
)
def test_a_speech_has_no_pair_and_no_sign_off(name: Path, asked: str, last: str, tmp_path: Path) -> None:
    records = chunk_paper(name, Strategy.question, Settings(data_dir=tmp_path), use_llm=False).records
    assert records and not any(r.metadata.section_type == "qa" for r in records)
    text = "\n".join(r.text for r in records)
    assert asked in text and text.endswith(last)
    assert not any(mark in text for mark in ("NNNN", "Issued at HKT", "香港時間", "\n完"))


def test_the_hansard_extract_gives_each_exchange_with_its_speakers_and_no_running_head(
    tmp_path: Path,
) -> None:
    records = chunk_paper(
        HTML / "blind2" / "hansard_oral_en.html",
        Strategy.question,
        Settings(data_dir=tmp_path),
        use_llm=False,
    ).records
    pairs = [r.metadata for r in records if r.metadata.section_type == "qa"]
    assert [(m.question_id, m.question_kind) for m in pairs] == [
        ("1", "main"),
        ("1-S1", "supplementary"),
        ("1-S2", "supplementary"),
        ("1-S3", "supplementary"),
        ("2", "main"),
        ("2-S1", "supplementary"),
    ]
    assert {m.answerer for m in pairs[:4]} == {"SECRETARY FOR HOUSING"}
    assert not any("LEGISLATIVE COUNCIL ―" in r.text for r in records)


def test_papers_without_questions_make_no_pair_not_even_the_guides_numbered_headings_that_ask(
    tmp_path: Path,
) -> None:
    """The panel paper (numbered paragraphs, bold headings, a drawn table) makes no pair; the
    guide numbers its sections 1 to 5 and two of them ask (``1. Who is a part-time worker?``):
    they were pairs until the run of numbers was read (``structure.numbering``: most of its
    numbers do not ask, so they number sections); now every section is narrative under its
    own heading, the two that ask included, and the guard counts no label."""
    paper = chunk_paper(
        BLIND3 / "paper_en.pdf", Strategy.question, Settings(data_dir=tmp_path), use_llm=False
    ).records
    assert paper and not any(r.metadata.section_type == "qa" for r in paper)
    guide = chunk_paper(
        BLIND3 / "guide_en.html", Strategy.question, Settings(data_dir=tmp_path), use_llm=False
    )
    assert not any(r.metadata.section_type == "qa" for r in guide.records)
    headings = [r.metadata.section_path[1] for r in guide.records if len(r.metadata.section_path) > 1]
    assert list(dict.fromkeys(headings)) == [
        "1. Who is a part-time worker?",
        "2. Why is a written contract important?",
        "3. Entitlements at a glance",
        "4. Keeping records",
        "5. Further enquiries",
    ]
    judged = [c for c in guide.checks if c.name != "paper_date_found"]  # an undated paper: test_paper_facts
    assert all(c.passed for c in judged), [c.line() for c in judged if not c.passed]


def test_the_agenda_pdf_gives_each_question_a_chunk_of_its_own(tmp_path: Path) -> None:
    records = chunk_paper(
        BLIND4 / "legco_council_agenda_20240529.pdf",
        Strategy.question,
        Settings(data_dir=tmp_path),
        use_llm=False,
    ).records
    labels = [
        r.metadata.section_path[-1]
        for r in records
        if r.metadata.section_path[-1:] and "to ask:" in r.metadata.section_path[-1]
    ]
    assert [label.split(".")[0] for label in labels] == ["1", "2", "3", "*4", "*5", "*6"]
    assert {
        tuple(r.metadata.section_path[:-1])
        for r in records
        if "to ask:" in "".join(r.metadata.section_path[-1:])
    } == {
        ("II. Questions",),
    }, "the item the PDF sets like its sub-headings, at a page's foot"
    tops = [r.metadata.section_path[0] for r in records if r.metadata.section_path]
    assert list(dict.fromkeys(tops)) == [
        "I. Tabling of Papers",
        "II. Questions",
        "III. Bills",
        "IV. Members' Motions",
    ]
