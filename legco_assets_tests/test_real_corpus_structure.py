"""Structure detection and question chunks on real HK government / LegCo documents.

The corpus lives beside the repository (``../shared/corpus/real``) and is absent in some CI
environments, so these tests skip there; the fixture tests cover the same rules.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from legco_assets.core.chunking import QuestionChunkingStrategy
from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import DocumentText, Section
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure import detect_structure, printed_questions, structure_summary

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
pytestmark = pytest.mark.skipif(
    not CORPUS.exists(), reason="real corpus not available (../shared/corpus/real)"
)

ECO_PAGES = [48, 48, 49, 50, 50, 52, 53, 54, 54, 55, 55, 56, 57, 57, 59, 60, 60, 61, 62]


@cache
def load(relative: str) -> DocumentText:
    return DocumentText.from_pages(clean_pages(extract_document(read_source(CORPUS / relative)).pages))


def pairs(relative: str) -> list[Section]:
    return [s for s in detect_structure(load(relative)) if s.type == "qa"]


@pytest.mark.parametrize("lang", ["tc", "en"])
def test_continuous_contract_faq_numbered_questions(lang: str) -> None:
    found = pairs(f"hkgov/ld_continuous_contract_FAQ_{lang}.pdf")
    assert [s.qa_id for s in found] == ["1", "2", "3", "4"]
    assert [s.start_page for s in found] == [1, 1, 2, 2]
    assert all(s.question.rstrip().endswith(("?", "？")) and s.answer for s in found)
    if lang == "en":
        assert found[2].question.startswith("How to ascertain whether an employee is being employed")
        assert found[2].question.endswith("requirement’s effective date?")
    else:
        assert (
            found[2].question == "僱員的僱傭期橫跨新規定適用前後，應如何確定其僱傭合約是否屬「連續性合約」？"
        )
        assert found[0].answer.startswith("根據《僱傭條例》，僱員連續受僱於同一僱主")


def test_continuous_contract_faq_chunks_have_no_footer() -> None:
    for lang in ("tc", "en"):
        doc = load(f"hkgov/ld_continuous_contract_FAQ_{lang}.pdf")
        chunks = QuestionChunkingStrategy().chunk_text("faq", doc, detect_structure(doc))
        assert [c.question_id for c in chunks] == ["1", "2", "3", "4"]
        assert not any("09/2025" in c.text or "0 9 / 2 0 2 5" in c.text for c in chunks)


def test_eco_guide_faq_pairs_and_appendix_trap() -> None:
    found = pairs("hkgov/ld_ECO_guide_with_FAQ_en.pdf")
    assert [s.qa_id for s in found] == [f"Q{n}" for n in range(1, 20)]
    assert [s.start_page for s in found] == ECO_PAGES
    assert all(
        s.answer.startswith(("When", "The", "If", "According", "No", "Points", "An", "To", "(i)"))
        for s in found
    )
    assert found[2].heading == "(II) Notification of Accident"
    assert (
        found[11].heading
        == "(VII) Procedures for Medical Clearance and Assessment of Permanent Loss of Earning Capacity"
    )
    assert not [s for s in found if s.start_page < 48]  # appendix rows A1, A2 … on p.37 stay out


def test_eco_guide_last_answer_stops_before_the_forms_list() -> None:
    doc = load("hkgov/ld_ECO_guide_with_FAQ_en.pdf")
    chunks = QuestionChunkingStrategy().chunk_text("eco", doc, detect_structure(doc))
    q19 = [c for c in chunks if c.question_id == "Q19"]
    assert len(q19) == 1 and q19[0].text.endswith("contact the Police immediately\nfor assistance.")
    assert "Prescribed Forms" not in q19[0].text
    assert all(c.token_count <= 3000 for c in chunks)


@pytest.mark.parametrize(
    "relative",
    [
        "hkgov/ld_EO_concise_guide_en.pdf",
        "hkgov/ld_EO_concise_guide_tc.pdf",
        "hkgov/budget_2020-21_media_sheets_en.pdf",
        "legco/cb3-634-2026-01_submission-c.pdf",
        "legco/cb3-641-2026-02_scanned-c.pdf",
    ],
)
def test_documents_without_qa_give_no_pairs_and_fall_back(relative: str) -> None:
    doc = load(relative)
    sections = detect_structure(doc)
    assert structure_summary(sections)["pairs"] == 0
    chunks = QuestionChunkingStrategy().chunk_text("neg", doc, sections)
    assert chunks and all(c.section_type != "qa" and c.fallback in {"sections", "token"} for c in chunks)


def test_hansard_member_questions() -> None:
    found = [s for s in pairs("legco/hansard_20121121_translate-c.pdf") if s.question_kind != "supplementary"]
    assert [s.qa_id for s in found] == [str(n) for n in range(1, 21)]  # supplementaries: test_council.py
    assert found[0].heading == "實施法定最低工資的影響" and found[0].parent_topic == "議員質詢的口頭答覆"
    assert found[6].heading == "公共設施的通道受阻" and found[6].parent_topic == "議員質詢的書面答覆"
    assert all(s.answer.startswith("主席") for s in found)
    assert found[0].question.startswith("據報，法定最低工資的實施改變了勞動市場的薪酬")


def test_hansard_pipeline_chunks_every_page_run() -> None:
    """The whole no-LLM question pipeline on the 250-page Hansard (its speed is printed by
    ``scripts/bench_hansard.py``, not asserted: a timed test fails on a busy machine)."""
    path = CORPUS / "legco/hansard_20121121_translate-c.pdf"
    pages = clean_pages(extract_document(read_source(path)).pages)
    doc = DocumentText.from_pages(pages)
    chunks = QuestionChunkingStrategy().chunk_text("hansard", doc, detect_structure(doc))
    assert len(pages) == 250 and chunks
    assert chunks[-1].page_end >= 248  # the reading goes on to the written replies' end


SESSION = (
    sorted(p.relative_to(CORPUS).as_posix() for p in (CORPUS / "legco" / "session1213").glob("*.txt"))
    if CORPUS.exists()
    else []
)
HANSARDS = SESSION + [
    "legco/hansard_20121121_translate-c.pdfbox.txt",
    "legco/hansard_20121121_translate-c.pdf",
]


@pytest.mark.parametrize("relative", HANSARDS)
def test_every_numbered_question_of_a_hansard_is_an_exchange_of_its_own(relative: str) -> None:
    """A session's Council records (written questions only, oral ones postponed, the
    Committee of the whole Council, members who spoke English as ``(譯文 )``) and the 2012
    record as PDF and as PDFBox text: every question the paper numbers (its own count) is a
    main or written exchange of its own, in both strategies; every paper chunks and passes
    the blocking checks."""
    path = CORPUS / relative
    doc = load(relative)
    numbered = printed_questions(doc.text)
    for strategy in Strategy:
        paper = chunk_paper(path, strategy, Settings(), use_llm=False)
        assert paper.records, strategy
        assert not [c.line() for c in paper.checks if c.blocking and not c.passed], strategy
        if strategy is Strategy.question:
            own = {
                r.metadata.question_id
                for r in paper.records
                if r.metadata.question_kind in ("main", "written")
            }
            assert [n for n in numbered if str(n) not in own] == []
            check = next(
                c for c in paper.checks if c.name == "qa_numbering_complete"
            )  # names no printed question
            assert not {str(n) for n in numbered} & set(check.details["gaps"]), check.line()
    if "session1213" in relative and relative.split("-cm")[1][:4] not in ("0221", "0425"):
        assert numbered, (
            "a meeting with questions prints them"
        )  # the two without questions: a debate, a committee
