"""Structure detection: pairs, topics, speaking notes, TOC and the traps that must not pair.

Inline texts stand for cleaned pages (each argument of :func:`doc_of` is one page); the
fixture papers check the same rules end to end against their gold annotations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import DocumentText, Page, Section
from legco_assets.core.structure import (
    detect_structure,
    drop_internal_refs,
    looks_tabular,
    structure_summary,
    unchunked_pages,
)

from .conftest import fixture_pdf


def doc_of(*pages: str) -> DocumentText:
    return DocumentText.from_pages([Page(number=n + 1, raw=t, cleaned=t) for n, t in enumerate(pages)])


def pairs(doc: DocumentText, **kwargs: bool) -> list[Section]:
    return [s for s in detect_structure(doc, **kwargs) if s.type == "qa"]


def squash(text: str | None) -> str:
    return re.sub(r"\s", "", text or "")


# -- Chinese 問/答 pairs --------------------------------------------------------------------------
ZH_PAPER = doc_of(
    "備用問答\n(A) 排水系統\n問 A1：政府會否檢視現有雨水排放隧道的設計容量，並考慮興建\n新隧道？\n"
    "答 A1：渠務署現時營運四條雨水排放隧道。\n因應氣候變化，設計標準已提高。\n"
    "問A2:全港仍有多少個水浸黑點？",
    "答A2:全港仍有五個水浸黑點。\n有關工程會在2027年完成。\n(B) 工地安全\n問 B1︰承建商須採取甚麼措施？\n"
    "答 B1︰承建商須按指引採取以下措施：\n(1) 停止戶外工作\n(2) 加固棚架\n工務部門會巡查工地。",
)


def test_zh_pairs_ids_questions_and_answers() -> None:
    found = pairs(ZH_PAPER)
    assert [s.qa_id for s in found] == ["A1", "A2", "B1"]
    assert found[0].question == "政府會否檢視現有雨水排放隧道的設計容量，並考慮興建新隧道？"
    assert found[0].answer == "渠務署現時營運四條雨水排放隧道。\n因應氣候變化，設計標準已提高。"
    assert found[2].answer.endswith("(2) 加固棚架\n工務部門會巡查工地。")  # a (1) list stays in the answer


def test_zh_question_and_answer_on_different_pages() -> None:
    a2 = pairs(ZH_PAPER)[1]
    assert (a2.start_page, a2.end_page) == (1, 2)
    assert a2.question == "全港仍有多少個水浸黑點？"
    assert a2.answer.startswith("全港仍有五個水浸黑點。")
    assert "(B) 工地安全" not in a2.text


def test_topic_headings_and_parent() -> None:
    found = pairs(ZH_PAPER)
    assert [s.heading for s in found] == ["(A) 排水系統", "(A) 排水系統", "(B) 工地安全"]
    assert {s.parent_topic for s in found} == {"備用問答"}
    headings = [s for s in detect_structure(ZH_PAPER) if s.type == "heading_only"]
    assert [s.heading for s in headings] == ["備用問答", "(A) 排水系統", "(B) 工地安全"]


def test_section_spans_index_the_document() -> None:
    for section in detect_structure(ZH_PAPER):
        assert ZH_PAPER.text[section.char_start : section.char_start + 2].strip()
        if section.answer_start is not None:
            assert section.char_start < section.answer_start < section.char_end
            assert ZH_PAPER.text[section.answer_start] == "答"


def test_page_separator_inside_an_answer_is_one_newline() -> None:
    a2 = pairs(ZH_PAPER)[1]
    assert "\n\n" not in a2.text
    assert a2.text.startswith("問A2:全港仍有多少個水浸黑點？\n答A2:")


# -- Q-only pairs, bare topic lines, Others ------------------------------------------------------
EN_Q_ONLY = doc_of(
    "Licensing\nQ1 Who needs a licence to operate a platform?\nAny company that matches riders with drivers.\n"
    "It must apply to the Commissioner.\nQ2 How long is a licence valid\nfor?\nFive years.\n"
    "Vehicles\nQ3 What vehicles qualify?\nPrivate cars under 12 years old.\nOthers\n"
    "O1 Will the fees be reviewed?\nYes, every two years."
)


def test_q_only_pairs_and_bare_topics() -> None:
    found = pairs(EN_Q_ONLY)
    assert [s.qa_id for s in found] == ["Q1", "Q2", "Q3", "O1"]
    assert [s.heading for s in found] == ["Licensing", "Licensing", "Vehicles", "Others"]
    assert found[1].question == "How long is a licence valid for?"
    assert found[1].answer == "Five years."
    assert found[0].answer.endswith("It must apply to the Commissioner.")
    assert "Vehicles" not in found[1].text and "Others" not in found[2].text


def test_quarter_labels_are_not_questions() -> None:
    doc = doc_of("Visitor arrivals\nQ3 2024 figures rose by 5%.\nQ4 2024 figures fell.")
    assert pairs(doc) == []
    table = doc_of("Quarter\nArrivals\nQ1\n2,345\nQ2\n3,456\nQ3\n4,567")
    assert pairs(table) == []


def test_bare_q_label_above_its_question() -> None:
    doc = doc_of("Q1\nWho needs a licence?\nAny operator.\nQ2\nHow long is it valid?\nFive years.")
    found = pairs(doc)
    assert [(s.qa_id, s.question, s.answer) for s in found] == [
        ("Q1", "Who needs a licence?", "Any operator."),
        ("Q2", "How long is it valid?", "Five years."),
    ]


# -- numbered FAQ -----------------------------------------------------------------------------
NUMBERED_FAQ = doc_of(
    "Frequently Asked Questions\n1 How to apply the new requirement?\nAn employee employed for four weeks.\n"
    "2 When will the new requirement take effect? Will this\napply retrospectively?\nFrom 18 January 2026.",
    "3\nHow to ascertain whether an employee is being\nemployed under a continuous contract?\nAdd up the hours.\n"
    "1. the first condition;\n2. the second condition.\n4 Will the amendments affect\nholiday pay?\nNo.",
)


def test_numbered_questions_wrap_and_bare_number() -> None:
    found = pairs(NUMBERED_FAQ)
    assert [s.qa_id for s in found] == ["1", "2", "3", "4"]
    assert found[1].question == "When will the new requirement take effect? Will this apply retrospectively?"
    assert (
        found[2].question
        == "How to ascertain whether an employee is being employed under a continuous contract?"
    )
    assert found[2].start_page == 2
    assert found[2].answer.endswith("2. the second condition.")  # a numbered list inside an answer


def test_numbered_chapter_list_without_questions_gives_no_pairs() -> None:
    doc = doc_of(
        "The Ordinance does not apply to:\n1. casual employees; or\n2. outworkers; or\n3. family members."
    )
    assert pairs(doc) == []


# -- Q1 / A1 with the appendix trap ---------------------------------------------------------------
ECO_LIKE = doc_of(
    "Appendix 2 List of occupational diseases\nA. CAUSED BY PHYSICAL AGENTS\nA1 Inflammation, ulceration\n"
    "Any occupation involving exposure.\n10 years.\nA2 Heat cataract Any occupation involving rays.\n3 years.",
    "Frequently Asked Questions on\nCommon Issues\n(I) Compulsory Insurance\n"
    "Q1 What should an employer take note of when taking out an\ninsurance policy?\n"
    "A1 When taking out a policy, employers should note:\n No deduction from earnings;\n"
    "(II) Notification of Accident\nQ2 Is an employer required to notify his insurer?\n"
    "A2 The employer must notify the Commissioner for Labour.",
)


def test_appendix_rows_labelled_a1_are_not_answers() -> None:
    found = pairs(ECO_LIKE)
    assert [s.qa_id for s in found] == ["Q1", "Q2"]
    assert [s.start_page for s in found] == [2, 2]
    assert found[0].question == "What should an employer take note of when taking out an insurance policy?"
    assert found[0].answer.startswith("When taking out a policy")
    assert found[1].heading == "(II) Notification of Accident"
    assert found[1].parent_topic == "Frequently Asked Questions on Common Issues"


def test_page_label_a1_on_annex_page_is_not_an_answer() -> None:
    doc = doc_of("Annex\nA1\nWritten reply\nThe figures are as follows.")
    assert pairs(doc) == []


# -- speaking notes, TOC -----------------------------------------------------------------------
SPEAKING = doc_of(
    "目錄\n發言要點 ........ 1\n備用問答 ........ 2\n問 B1 平台牌照 ........ 2",
    "發言要點\n⚫ 主席，多謝委員會。\n● 框架包括：\n➢ 平台牌照；\n➢ 車輛許可證。",
    "備用問答\n問 B1：平台牌照的申請資格為何？\n答 B1：須為本地公司。",
)


def test_speaking_notes_toc_and_standby() -> None:
    sections = detect_structure(SPEAKING)
    kinds = [s.type for s in sections]
    assert kinds == ["toc", "speaking_notes", "heading_only", "qa"]
    notes = sections[1]
    assert notes.heading == "發言要點" and notes.start_page == 2
    assert sections[3].qa_id == "B1" and sections[3].heading == "備用問答"


def test_toc_entries_that_look_like_questions_are_skipped() -> None:
    doc = doc_of(
        "Contents\nQ1 What is a licence? ........ 3\nQ2 Who applies? ........ 4",
        "Q1 What is a licence?\nA permit.",
    )
    found = pairs(doc)
    assert len(found) == 1 and found[0].start_page == 2


def test_leader_lines_in_an_appendix_table_are_not_a_toc() -> None:
    body = "\n".join(f"Paragraph {n} of the guide." for n in range(30))
    pages = [body] * 20 + [
        "Appendix 1 List of injuries\n1. Loss of 2 limbs ........ 100\n2. Loss of both hands .... 100"
    ]
    assert not [s for s in detect_structure(doc_of(*pages)) if s.type == "toc"]


# -- notes inside answers -------------------------------------------------------------------------
NOTES = doc_of(
    "問 A1：會否延長過渡期？\n答 A1：現階段沒有計劃。\n[內部參考：業界估計約有一萬二千名司機，\n數字未經核實。]\n"
    "[如被追問：會否設立過渡期？我們建議設立十二個月的過渡期。]\n我們會適時匯報。\n"
    "問 A2：何時生效？\n答 A2：明年。\n[Internal reference: not for release.]"
)


def test_internal_refs_and_follow_ups_stay_in_their_answer() -> None:
    a1, a2 = pairs(NOTES)
    assert "[內部參考" in a1.answer and "[如被追問" in a1.answer and a1.answer.endswith("我們會適時匯報。")
    assert "[Internal reference" in a2.answer


def test_internal_refs_can_be_dropped_but_not_follow_ups() -> None:
    a1, a2 = pairs(NOTES, include_internal_refs=False)
    assert "內部參考" not in a1.answer and "內部參考" not in a1.text
    assert "[如被追問：會否設立過渡期？" in a1.answer and a1.answer.endswith("我們會適時匯報。")
    assert a2.answer == "明年。"
    assert drop_internal_refs("甲。[內部參考：乙] 丙。") == "甲。 丙。"
    assert drop_internal_refs("甲。\n[內部參考：乙，\n丙。]\n丁。") == "甲。\n丁。"
    assert drop_internal_refs("甲。\n[Internal reference: no closing bracket\n\n乙。") == "甲。\n\n乙。"


# -- hansard ------------------------------------------------------------------------------------
def test_hansard_member_questions_and_replies() -> None:
    doc = doc_of(
        "議員質詢的書面答覆\n公共設施的通道受阻\n7. 梁美芬議員：主席，政府可否告知本會：\n(一) 是否知悉有關情況？\n"
        "發展局局長：主席，現答覆如下：\n(一) 屋宇署已跟進。\n處理酷刑聲請\n8. 郭榮鏗議員(譯文)：主席，政府可否告知本會？\n"
        "保安局局長：主席，答覆如下。"
    )
    found = pairs(doc)
    assert [s.qa_id for s in found] == ["7", "8"]
    assert [s.heading for s in found] == ["公共設施的通道受阻", "處理酷刑聲請"]
    assert found[0].answer.startswith("主席，現答覆如下：")


def test_english_hansard_questions_and_replies() -> None:
    doc = doc_of(
        "WRITTEN ANSWERS TO QUESTIONS\nFuel Prices\n4. DR ELIZABETH QUAT (in Chinese): President, will the Government inform"
        " this Council:\n(1) whether it will review the prices;\nSECRETARY FOR THE ENVIRONMENT (in Chinese): President,\n"
        "(1) Retail prices are set by the oil companies.\nPublic Library Services\n5. MR ABRAHAM SHEK: President, will the"
        " Government inform this Council of the opening hours?\nSECRETARY FOR HOME AFFAIRS: President, my reply is as follows."
    )
    found = pairs(doc)
    assert [(s.qa_id, s.heading) for s in found] == [("4", "Fuel Prices"), ("5", "Public Library Services")]
    assert found[0].answer.startswith("President,\n(1) Retail prices")
    assert found[1].parent_topic == "WRITTEN ANSWERS TO QUESTIONS"


def test_marker_variants() -> None:
    doc = doc_of(
        "一、背景\n本文件介紹資助計劃。\n二、常見問題\nQ: What is the scheme?\nA: A subsidy.\nQuestion 3: When?\n"
        "Answer 3: Now.\nQ. How much?\nA. Ten dollars.\nQ5: Who pays?\nAns: The Government.\nQ6. Where?\nAns. Online.\n"
        "問題1：甚麼是計劃？\n答案1：資助。"
    )
    found = pairs(doc)
    assert [(s.question, s.answer) for s in found] == [
        ("What is the scheme?", "A subsidy."),
        ("When?", "Now."),
        ("How much?", "Ten dollars."),
        ("Who pays?", "The Government."),
        ("Where?", "Online."),
        ("甚麼是計劃？", "資助。"),
    ]
    assert [s.qa_id for s in found][:2] == ["Q1", "Q3"]
    assert {s.heading for s in found} == {"二、常見問題"}
    narrative = [s for s in detect_structure(doc) if s.type == "narrative"]
    assert [s.heading for s in narrative] == ["一、背景"]


# -- tables, summary --------------------------------------------------------------------------------
def test_table_shapes() -> None:
    rows = "隧道 長度 啟用年份\n荔枝角 3.7 2012\n荃灣 5.1 2013\n總計 8.8 –"
    assert looks_tabular(rows)
    assert looks_tabular("| a | b |\n|---|---|\n| 1 | 2 |")
    assert not looks_tabular(
        "渠務署已於2024年完成檢討，並把設計標準提高約百分之十一，\n以反映本世紀末的預計雨量增幅。"
    )


def test_summary_reports_gaps_duplicates_and_missing_answers() -> None:
    doc = doc_of("問 A1：甲？\n答 A1：乙。\n問 A3：丙？\n答 A3：\n問 A3：丁？\n答 A3：戊。")
    summary = structure_summary(detect_structure(doc))
    assert summary["pairs"] == 3 and summary["qa_ids"] == ["A1", "A3", "A3"]
    assert summary["numbering_gaps"] == ["A2"]
    assert summary["duplicate_ids"] == ["A3"]
    assert summary["questions_without_answers"] == ["A3"]
    assert summary["unsure"] is True
    assert structure_summary(detect_structure(ZH_PAPER))["unsure"] is False


def test_empty_and_plain_documents() -> None:
    assert detect_structure(doc_of("")) == []
    plain = detect_structure(doc_of("Just one paragraph of text without any structure."))
    assert [s.type for s in plain] == ["narrative"]


def test_a_long_paper_keeps_every_pair() -> None:
    """500 pages of pairs: every one found (the time it takes, and how it grows with length,
    is measured by ``scripts/benchmark.py``, whose structure row reports pages/s and s/page
    against the smallest paper, not asserted here)."""
    page = ZH_PAPER.text.replace("A", "C").replace("B", "D") + "\n" + "渠務署會繼續監察排水情況。\n" * 30
    sections = detect_structure(doc_of(*[page] * 500))
    assert len([s for s in sections if s.type == "qa"]) == 1500


def test_topic_with_a_number_label_before_a_question() -> None:
    doc = doc_of(
        "問 C1：寮屋住戶可獲得何種安置？\n答 C1：可入住公屋，條件如下：\n(1) 通過資產審查\n(2) 通過全面凍結登記\n"
        "(2) 業務經營者的補償\n問 C2：經營者可獲甚麼補償？\n答 C2：特惠津貼。"
    )
    c1, c2 = pairs(doc)
    assert c1.answer.endswith("(2) 通過全面凍結登記") and c2.heading == "(2) 業務經營者的補償"


# -- fixture papers against their gold ---------------------------------------------------------------
def fixture_doc(name: str) -> tuple[DocumentText, dict]:
    path = fixture_pdf(name)
    gold = json.loads(Path(str(path).replace(".pdf", ".gold.json")).read_text(encoding="utf-8"))
    doc = DocumentText.from_pages(clean_pages(extract_document(read_source(path)).pages))
    return doc, gold


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("paper_e_qa.pdf", 15),
        ("paper_l_faq.pdf", 24),
        ("paper_b_speaking_notes.pdf", 3),
        ("paper_a_tables.pdf", 0),
    ],
)
def test_fixture_pairs_match_gold(name: str, expected: int) -> None:
    doc, gold = fixture_doc(name)
    found = pairs(doc)
    assert len(gold["pairs"]) == expected
    assert [s.qa_id for s in found] == [g["qa_id"] for g in gold["pairs"]]
    for section, g in zip(found, gold["pairs"]):
        assert section.start_page == g["page"], g["qa_id"]
        assert section.end_page == g["answer_end_page"], g["qa_id"]
        assert section.heading == g["heading"], g["qa_id"]
        assert squash(section.question) == squash(g["question"]), g["qa_id"]
        assert squash(section.answer).startswith(squash(g["answer_first_line"])), g["qa_id"]
        assert squash(section.answer).endswith(squash(g["answer_last_line"])), g["qa_id"]
        assert section.has_table == g["has_table"], g["qa_id"]


def test_fixture_e_topics_and_others() -> None:
    doc, gold = fixture_doc("paper_e_qa.pdf")
    found = pairs(doc)
    assert sum(1 for s in found if s.qa_id.startswith("O")) == 3
    assert {s.heading for s in found} == set(gold["topic_headings"])
    assert structure_summary(detect_structure(doc))["unsure"] is False


def test_fixture_l_toc_narrative_and_topics() -> None:
    doc, gold = fixture_doc("paper_l_faq.pdf")
    sections = detect_structure(doc)
    toc = [s for s in sections if s.type == "toc"]
    assert len(toc) == 1 and toc[0].start_page == gold["toc_lines"][0]["page"]
    narrative = [s.heading for s in sections if s.type == "narrative" and s.heading]
    assert narrative == [h for h in gold["narrative_headings"] if h != "Standby Questions and Answers"]
    assert [s.heading for s in sections if s.type == "heading_only"] == [
        "Standby Questions and Answers",
        *gold["topic_headings"],
    ]
    summary = structure_summary(sections)
    assert summary["qa_ids"] == [f"Q{n}" for n in range(1, 25)] and not summary["unsure"]
    assert unchunked_pages(sections) == [toc[0].start_page]


def test_fixture_b_speaking_notes_section() -> None:
    doc, gold = fixture_doc("paper_b_speaking_notes.pdf")
    notes = [s for s in detect_structure(doc) if s.type == "speaking_notes"]
    assert len(notes) == 1 and notes[0].heading == "發言要點"
    for bullet in gold["speaking_note_bullets"]:
        assert squash(bullet) in squash(notes[0].text)


# -- numbered paragraphs that ask -----------------------------------------------------------------
def _speech_paragraphs() -> list[str]:
    asks = {
        5: "How can we make sure that every young person in Hong Kong has a fair chance to own a home in the years ahead?",
        6: "And how can we keep our city competitive while we do so?",
        17: "What does this mean for the middle class?",
    }
    return [
        f"{n}. {asks.get(n) or f'The Government will invest in housing and transport, and paragraph {n} sets out the measures for the year, with ${n * 3} billion.'}"
        for n in range(1, 31)
    ]


@pytest.mark.parametrize("kind", ["pdf", "html"])
def test_a_speech_numbering_its_paragraphs_makes_no_pair_of_its_questions(kind: str, tmp_path: Path) -> None:
    """A speech numbers its paragraphs and asks now and then (``6. How can we …?`` between
    ``5.`` and ``7. The Government will …``): read as bare numbered questions, paragraph 6
    took the rest of the speech as its answer and the checks reported numbering gaps.
    The run of numbers mostly does not ask, so none of it is a question (``structure.numbering``);
    no pair, no warning."""
    from legco_assets.core.pipeline import chunk_paper
    from legco_assets.core.settings import Settings, Strategy

    from .pdf_factory import make_leaflet

    title, paragraphs = "The 2025-26 Budget Speech by the Financial Secretary", _speech_paragraphs()
    if kind == "pdf":
        path = make_leaflet(tmp_path / "speech.pdf", title, [(p, False) for p in paragraphs])
    else:
        path = tmp_path / "speech.html"
        path.write_text(
            f"<html><body><h1>{title}</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</body></html>"
        )
    paper = chunk_paper(path, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    assert paper.records and not any(r.metadata.section_type == "qa" for r in paper.records)
    judged = [c for c in paper.checks if c.name != "paper_date_found"]  # an undated paper: test_paper_facts
    assert all(c.passed for c in judged), [c.line() for c in judged if not c.passed]


def test_an_faq_numbering_its_questions_keeps_its_pairs_with_lists_in_its_answers() -> None:
    """The same reading leaves an FAQ alone: its numbers ask at every step, and a list in an
    answer restarts at 1, a run of its own, even where it runs ``1.``, ``2.`` just before
    question ``3.``."""
    from legco_assets.core.structure.numbering import paragraph_numbers

    lines = [
        "1. How do I apply?",
        "Apply online.",
        "2. What must I bring?",
        "Bring these:",
        "1. Your identity card.",
        "2. Proof of address.",
        "3. How long does it take?",
        "It depends on:",
        "1. The season.",
        "2. The district.",
        "3. Your documents.",
        "4. Can I appeal?",
        "Yes, within 28 days.",
        "5. Other enquiries",
        "Call 2345 6789.",
    ]
    assert paragraph_numbers(lines) == set()
    assert paragraph_numbers(_speech_paragraphs()) == {4, 5, 16}


# -- a bill's amendments ------------------------------------------------------------------------
AMENDMENTS = doc_of(
    "附表\n對《公司(董事報告)規例》的修訂\n1. 修訂第 2條 (釋義)\n(1) 第 2條，中文文本  ─\n"
    "代以\n“在有關財政年度內，該公司須按本規例擬備董事報告”。",
    "廢除\n“由該公司訂立，或由其他人就該公司的董事提供的彌償條文”\n代以\n“述明該公司的名稱”。\n"
    "Repeal\n“section 8 of the Regulation as it stood before the commencement date of this Ordinance”\n"
    "Substitute\n“the report of the directors of the company for the financial year concerned”.",
)


def test_a_bill_amendment_s_instruction_words_are_never_headings() -> None:
    """``廢除`` / ``Repeal``, ``代以`` / ``Substitute``, ``加入`` / ``Add`` stand on lines of their
    own in a bill's amendments, short and bare like titles (at a page top too); the text they
    act on stays in the section of the amendment's own numbered line."""
    headings = {s.heading for s in detect_structure(AMENDMENTS)}
    assert not headings & {"廢除", "代以", "Repeal", "Substitute"}, headings
