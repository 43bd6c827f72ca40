"""Council proceedings: every oral question's supplementaries an exchange of their own.

The fixture tests build small Hansard texts the way the Official Record prints them
(speaker turns, the President's lines); the real-corpus tests check the 2012 Chinese Hansard
against the floor record's speaker turns of the same meeting and the 2015 HTML Hansards
(English and Chinese), and skip when the corpus is absent.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache

import pytest

from legco_assets.core import markers
from legco_assets.core.chunking import QuestionChunkingStrategy
from legco_assets.core.quality import structure_checks
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import Chunk, DocumentText, Page, Section
from legco_assets.core.structure import council, detect_structure, structure_summary

from .conftest import CORPUS


def doc_of(text: str) -> DocumentText:
    return DocumentText.from_pages([Page(number=1, raw=text, cleaned=text)])


def pairs(doc: DocumentText) -> list[Section]:
    return [s for s in detect_structure(doc) if s.type == "qa"]


ZH_ORAL = """議員質詢的口頭答覆
主席：質詢。第一項質詢。
實施法定最低工資的影響
1. 林健鋒議員：據報，不少食肆在招聘員工時遇到困難。就此，政府可否告知本會：
(一) 有否研究最低工資對各行業的影響；及
(二) 職位空缺的數目為何？
勞工及福利局局長：主席，就林健鋒議員的提問，現答覆如下：
(一) 統計處已進行調查。
(二) 職位空缺約有七萬個。
林健鋒議員：主席，局長可否說說哪些行業出現職位空缺？
勞工及福利局局長：主席，空缺分布於零售業。
主席：你的補充質詢是否未獲答覆？
林健鋒議員：主席，是的，局長沒有回答飲食業的情況。
主席：局長，你有否補充？
勞工及福利局局長：飲食業的空缺達10 500個。
易志明議員：主席，物流業的情況為何？
勞工及福利局局長：主席，物流基本上是包括在運輸行業內。
易志明議員：主席，我明白局長......
主席：易議員，如你想提出其他問題，請再次排隊輪候。
鄧家彪議員︰主席，政府會否支援中小企？
環境局局長(譯文)：主席，我們會繼續支援中小企。
主席：本會就這項質詢已用了22分40秒。第二項質詢。
香港的單車政策
2. 胡志偉議員：主席，政府會否推廣單車？
運輸及房屋局局長：主席，政府會在新市鎮推廣單車。
胡志偉議員：主席，市區又如何？
運輸及房屋局局長 ︰市區道路擠塞，不宜騎單車。
主席：口頭質詢到此為止。
議員質詢的書面答覆
公共設施的通道受阻
3. 梁美芬議員：主席，政府可否告知本會：
(一) 是否知悉有關情況？
發展局局長：主席，現答覆如下：
(一) 屋宇署已跟進。
"""

EN_ORAL = """ORAL ANSWERS TO QUESTIONS
PRESIDENT: First question.
Impact of Statutory Minimum Wage
1. MR JEFFREY LAM (in Chinese): President, will the Government inform this Council:
(1) of the number of vacancies; and
(2) whether it has studied the impact?
SECRETARY FOR LABOUR AND WELFARE (in Chinese): President, my reply is as follows:
(1) There are about 70 000 vacancies.
(2) A study is under way.
MR TOMMY CHEUNG (in Cantonese): President, which trades have the most vacancies?
SECRETARY FOR LABOUR AND WELFARE (in Cantonese): President, the retail trade.
PRESIDENT: Mr CHEUNG, which part of your supplementary question has not been answered?
MR TOMMY CHEUNG (in Cantonese): President, the catering trade.
SECRETARY FOR LABOUR AND WELFARE (in Cantonese): The catering trade has 10 500 vacancies.
DR KWOK KA-KI: President, will the Government help small enterprises?
SECRETARY FOR LABOUR AND WELFARE: President, we will.
PRESIDENT: Last supplementary question.
MS CLAUDIA MO: President, what about the elderly workers?
SECRETARY FOR LABOUR AND WELFARE: President, they have gained most.
PRESIDENT: Second question.
Cycling Policy
2. MR WU CHI-WAI (in Cantonese): President, will cycling be promoted?
SECRETARY FOR TRANSPORT AND HOUSING: President, yes, in new towns.
"""


def test_chinese_oral_question_exchanges() -> None:
    found = pairs(doc_of(ZH_ORAL))
    assert [s.qa_id for s in found] == ["1", "1-S1", "1-S2", "1-S3", "2", "2-S1", "3"]
    assert [s.question_kind for s in found] == ["main"] + ["supplementary"] * 3 + [
        "main",
        "supplementary",
        "written",
    ]
    assert [s.parent_question_id for s in found] == [None, "1", "1", "1", None, "2", None]
    assert [s.asker for s in found] == [
        "林健鋒議員",
        "林健鋒議員",
        "易志明議員",
        "鄧家彪議員",
        "胡志偉議員",
        "胡志偉議員",
        "梁美芬議員",
    ]
    assert found[3].answerer == "環境局局長" and found[5].answerer == "運輸及房屋局局長"
    assert {s.heading for s in found[:4]} == {"實施法定最低工資的影響"} and found[
        6
    ].heading == "公共設施的通道受阻"
    main, s1, s2, s3 = found[:4]
    assert main.text.endswith("(二) 職位空缺約有七萬個。") and main.answer.startswith(
        "主席，就林健鋒議員的提問"
    )
    # the follow-up after "是否未獲答覆" and the further reply stay in the exchange
    assert s1.question == "主席，局長可否說說哪些行業出現職位空缺？"
    assert s1.answer.startswith("主席，空缺分布於零售業。") and s1.text.endswith("飲食業的空缺達10 500個。")
    # the same member speaking again after the reply to their own supplementary is a follow-up;
    # the President's ruling after it belongs to no exchange
    assert s2.text.endswith("易志明議員：主席，我明白局長......")
    assert all(
        "排隊輪候" not in s.text and "第二項質詢" not in s.text and "22分40秒" not in s.text for s in found
    )
    assert s3.text.startswith("鄧家彪議員︰主席") and s3.answer == "主席，我們會繼續支援中小企。"
    assert "口頭質詢到此為止" not in found[5].text and found[5].answer == "市區道路擠塞，不宜騎單車。"


ZH_WRAPPED_TITLES = """議員質詢的口頭答覆

主席：第一項質詢。


法定最低工資水平作為訂定申請公共租住房屋的入息限額的一項準
則

1. 郭偉強議員：主席，由2013年5月1日起，法定最低工資水平由每小
時28元調高至30元。就此，政府可否告知本會：會否檢討入息限額？

運輸及房屋局局長：主席，現答覆如下：當局每年檢討入息限額。

主席：第二項質詢。

總數  99 94 182 70
天秀墟

2. 麥美娟議員：主席，由政府推動設立的天秀墟，政府可否告知本會：
其營運情況為何？

運輸及房屋局局長：主席，天秀墟由東華三院營運。
"""


def test_a_wrapped_question_title_is_one_heading() -> None:
    """A long question title wraps onto a second line: the two lines are the heading, not the
    fragment on the last line; a table row right above a short title stays out of it."""
    first, second = [s for s in pairs(doc_of(ZH_WRAPPED_TITLES)) if s.question_kind == "main"]
    assert first.heading == "法定最低工資水平作為訂定申請公共租住房屋的入息限額的一項準則"
    assert first.parent_topic == "議員質詢的口頭答覆"
    assert second.heading == "天秀墟"


def test_english_oral_question_exchanges() -> None:
    found = pairs(doc_of(EN_ORAL))
    assert [s.qa_id for s in found] == ["1", "1-S1", "1-S2", "1-S3", "2"]
    assert [s.asker for s in found] == [
        "MR JEFFREY LAM",
        "MR TOMMY CHEUNG",
        "DR KWOK KA-KI",
        "MS CLAUDIA MO",
        "MR WU CHI-WAI",
    ]
    assert {s.answerer for s in found[:4]} == {"SECRETARY FOR LABOUR AND WELFARE"}
    assert found[0].heading == "Impact of Statutory Minimum Wage" and found[4].heading == "Cycling Policy"
    assert found[1].text.endswith("The catering trade has 10 500 vacancies.")
    assert "has not been answered" in found[1].text
    assert found[2].text.endswith("President, we will.") and found[2].answer == "President, we will."
    assert all("Last supplementary" not in s.text and "Second question" not in s.text for s in found)
    assert found[4].question_kind == "main"


def test_members_and_officials_of_the_current_council_are_speakers() -> None:
    """Titles the Council's members and officials carry since 2022: a surveyor (``SR``), an
    engineer and doctor (``IR DR``), a clergyman (``REVD CANON``), the Deputy Financial
    Secretary and the Deputy Chief Secretary, in a Hansard and on an agenda."""
    text = (
        "1. REVD CANON PETER DOUGLAS KOON HO-MING (in Cantonese): President, what is the plan?\n"
        "DEPUTY FINANCIAL SECRETARY (in Cantonese): President, the plan is set out in the paper.\n"
        "SR DR TANG FEI (in Cantonese): President, when will it start?\n"
        "DEPUTY CHIEF SECRETARY FOR ADMINISTRATION (in Cantonese): President, next year.\n"
        "IR DR LO WAI-KWOK (in Cantonese): President, at what cost?\n"
        "DEPUTY FINANCIAL SECRETARY (in Cantonese): President, within the estimate.\n"
    )
    turns = council.speaker_turns(text, 0, len(text))
    assert [(t.role, t.speaker) for t in turns] == [
        ("member", "REVD CANON PETER DOUGLAS KOON HO-MING"),
        ("official", "DEPUTY FINANCIAL SECRETARY"),
        ("member", "SR DR TANG FEI"),
        ("official", "DEPUTY CHIEF SECRETARY FOR ADMINISTRATION"),
        ("member", "IR DR LO WAI-KWOK"),
        ("official", "DEPUTY FINANCIAL SECRETARY"),
    ]
    found = council.exchanges(text, 0, len(text), written=False)
    assert [(e.kind, e.asker, e.answerer) for e in found] == [
        ("main", "REVD CANON PETER DOUGLAS KOON HO-MING", "DEPUTY FINANCIAL SECRETARY"),
        ("supplementary", "SR DR TANG FEI", "DEPUTY CHIEF SECRETARY FOR ADMINISTRATION"),
        ("supplementary", "IR DR LO WAI-KWOK", "DEPUTY FINANCIAL SECRETARY"),
    ]
    agenda = "\n".join(
        [
            "1. Revd Canon Hon Peter Douglas KOON Ho-ming to ask:",
            "*2. Ir Dr Hon LO Wai-kwok to ask: (Translation)",
            "3. Sr Dr Hon TANG Fei to ask:",
        ]
    )
    assert [m["asker"] for m in map(markers.AGENDA_QUESTION.match, agenda.split("\n"))] == [
        "Revd Canon Hon Peter Douglas KOON Ho-ming",
        "Ir Dr Hon LO Wai-kwok",
        "Sr Dr Hon TANG Fei",
    ]


# members who spoke the other language, as each record prints them: the label between name and
# colon with whatever spacing the text layer gives, and each colon form the records use
ZH_TRANSLATED = """議員質詢的口頭答覆
板球發展
1. 葉劉淑儀議員 (譯文 )：主席，板球自2010年起已成為亞洲運動會的項目，政府會否資助？
民政事務局局長：主席，現答覆如下：政府會資助板球總會。
郭榮鏗議員（譯文）︰主席，資助額為何？
民政事務局局長：主席，每年約二百萬元。
何俊仁議員(譯 文):主席，學校又如何？
民政事務局局長：主席，會推廣至學校。
議員質詢的書面答覆
屋宇裝備
2. 何俊仁議員 ( 譯文 )︰主席，政府可否告知本會，氚氣出口標誌的數目為何？
發展局局長 (譯文 )：主席，屋宇署備有有關數字。
"""

EN_IN_LANGUAGE = """ORAL ANSWERS TO QUESTIONS
Cycling Policy
1. MR WU CHI-WAI ( in Cantonese ) : President, will cycling be promoted?
SECRETARY FOR TRANSPORT AND HOUSING (in Putonghua)︰President, yes, in new towns.
MS CLAUDIA MO (in Chinese)：President, what about the old districts?
SECRETARY FOR TRANSPORT AND HOUSING: President, the roads are too busy.
MR TOMMY CHEUNG(in Putonghua) ： President, at what cost?
SECRETARY FOR TRANSPORT AND HOUSING: President, within the estimate.
WRITTEN ANSWERS TO QUESTIONS
Data Leaks
2. DR ELIZABETH QUAT (in Cantonese)： President, will the Police act?
SECRETARY FOR SECURITY (in Chinese): President, yes.
"""


@pytest.mark.parametrize("text", [ZH_TRANSLATED, EN_IN_LANGUAGE], ids=["zh_translated", "en_in_language"])
def test_translated_and_interpreted_turns_are_the_members(text: str) -> None:
    """``(譯文 )`` (a Chinese record's member who spoke English) and ``(in Cantonese)`` /
    ``(in Putonghua)`` / ``(in Chinese)`` (an English record's) sit between name and colon,
    spaced as the text layer gives them, with ``：``, ``︰`` or ``:``: the member's turn."""
    found = pairs(doc_of(text))
    assert [s.qa_id for s in found] == ["1", "1-S1", "1-S2", "2"]
    assert [s.question_kind for s in found] == ["main", "supplementary", "supplementary", "written"]
    assert all(s.answerer and s.answer for s in found)
    assert all("(" not in s.asker and "（" not in s.asker for s in found if s.asker)
    assert len({s.asker for s in found[:3]}) == 3


def test_an_indented_question_line_is_its_own_main_exchange() -> None:
    """A text layer that indents the numbered question's line (``  4. 張國柱議員：…``) still
    opens the main exchange with it: the question gets its own chunk, its supplementaries theirs."""
    text = ZH_ORAL.replace("1. 林健鋒議員：", "  1. 林健鋒議員：").replace(
        "\n2. 胡志偉議員", "\n 2. 胡志偉議員"
    )
    found = pairs(doc_of(text))
    assert [s.qa_id for s in found] == ["1", "1-S1", "1-S2", "1-S3", "2", "2-S1", "3"]
    assert found[0].question_kind == "main" and found[0].asker == "林健鋒議員"
    assert "據報" in found[0].text and not any("據報" in s.text for s in found[1:])
    chunks = qa_chunks(doc_of(text))
    assert [c.question_id for c in chunks][:2] == ["1", "1-S1"]


def test_summary_counts_supplementaries_without_gaps_or_duplicates() -> None:
    summary = structure_summary(detect_structure(doc_of(ZH_ORAL)))
    assert summary["qa_ids"][:3] == ["1", "1-S1", "1-S2"]
    assert summary["numbering_gaps"] == [] and summary["duplicate_ids"] == [] and not summary["unsure"]


def test_the_structure_check_names_each_question_without_an_exchange() -> None:
    """A number skipped, or a main question whose supplementaries have exchanges but which
    has none of its own: the check's line names the number, not only a count of gaps."""

    def qa(qa_id: str) -> Section:
        section = Section("qa", None, None, 1, 1, 0, 1, "x", qa_id=qa_id, question="q", answer="a")
        section.parent_question_id = qa_id.split("-")[0] if "-" in qa_id else None
        return section

    summary = structure_summary([qa(i) for i in ("1", "1-S1", "3", "4-S1", "4-S2", "5")])
    assert summary["numbering_gaps"] == ["2", "4"]
    check = next(c for c in structure_checks(summary) if c.name == "qa_numbering_complete")
    assert not check.passed and "(2, 4)" in check.description and "gaps 2, 4" in check.line()
    whole = structure_summary(detect_structure(doc_of(ZH_ORAL)))
    assert next(c for c in structure_checks(whole) if c.name == "qa_numbering_complete").passed


def qa_chunks(doc: DocumentText, **kwargs: object) -> list[Chunk]:
    return [
        c
        for c in QuestionChunkingStrategy(**kwargs).chunk_text("h", doc, detect_structure(doc))
        if c.section_type == "qa"
    ]  # type: ignore[arg-type]


def test_supplementary_chunk_starts_with_one_context_line_and_carries_its_keys() -> None:
    chunks = qa_chunks(doc_of(ZH_ORAL))
    s1 = next(c for c in chunks if c.question_id == "1-S1")
    first, second = s1.text.split("\n")[:2]
    assert first == "第1項質詢「實施法定最低工資的影響」的補充質詢"
    assert second.startswith("林健鋒議員：主席，局長可否說說") and "據報" not in s1.text
    meta = s1.metadata("h.pdf", "sha").to_json()
    assert {
        k: meta[k] for k in ("question_kind", "parent_question_id", "asker", "answerer", "section_heading")
    } == {
        "question_kind": "supplementary",
        "parent_question_id": "1",
        "asker": "林健鋒議員",
        "answerer": "勞工及福利局局長",
        "section_heading": "實施法定最低工資的影響",
    }
    main = next(c for c in chunks if c.question_id == "1").metadata("h.pdf", "sha").to_json()
    assert main["question_kind"] == "main" and "parent_question_id" not in main
    en = next(c for c in qa_chunks(doc_of(EN_ORAL)) if c.question_id == "1-S2")
    assert en.text.split("\n")[0] == "Supplementary question to Question 1: Impact of Statutory Minimum Wage"
    # no council keys on a paper that is no Hansard
    faq = qa_chunks(doc_of("常見問題\n問1：甚麼是計劃？\n答1：資助。\n問2：何時？\n答2：明年。"))
    assert faq and not any(
        k in c.metadata("f", "s").to_json() for c in faq for k in ("question_kind", "asker")
    )


def _long_written(lang: str) -> str:
    filler_zh = "當局一直密切留意有關情況，並會適時檢討相關措施。" * 15
    filler_en = "The Government keeps the matter under close review and will adjust the measures. " * 40
    if lang == "zh":
        return (
            "議員質詢的書面答覆\n處理酷刑聲請\n8. 郭榮鏗議員(譯文)：主席，就處理酷刑聲請，政府可否告知本會：\n"
            "(一) 過去一年接獲的聲請數目為何；\n(二) 審核所需的時間為何；及\n(三) 當局會否增撥資源？\n"
            f"保安局局長(譯文)：主席，現答覆如下：\n(一) 去年接獲1 200宗聲請。{filler_zh}\n"
            f"(二)及(三)\n審核平均需時25個月。{filler_zh}\n"
            "防止個人資料外泄\n9. 葛珮帆議員：主席，警方會否加強保安？\n保安局局長：主席，會。\n提交文件\n"
        )
    return (
        "WRITTEN ANSWERS TO QUESTIONS\nTorture Claims\n8. MR DENNIS KWOK: President, will the Government inform this Council:\n"
        "(1) of the number of claims received last year;\n(2) of the time taken to screen a claim; and\n"
        "(3) whether it will allocate more resources?\n"
        f"SECRETARY FOR SECURITY: President, my reply is as follows:\n(1) 1 200 claims were received.\n{filler_en}\n"
        f"(2) and (3)\nScreening takes 25 months on average.\n{filler_en}\n"
        "Data Leaks\n9. DR ELIZABETH QUAT: President, will the Police act?\nSECRETARY FOR SECURITY: President, yes.\nBILLS\n"
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_long_written_reply_is_split_at_its_own_parts(lang: str) -> None:
    doc = doc_of(_long_written(lang))
    section = pairs(doc)[0]
    assert section.question_kind == "written" and section.qa_id == "8"
    chunks = [c for c in qa_chunks(doc, max_tokens=800) if c.question_id == "8"]
    assert [c.part for c in chunks] == [1, 2] and all(c.token_count <= 800 for c in chunks)
    first, second = chunks
    if lang == "zh":
        assert first.text.startswith(
            "8. 郭榮鏗議員(譯文)：(一) 過去一年接獲的聲請數目為何；\n保安局局長(譯文)：主席，現答覆如下："
        )
        assert "(二) 審核" not in first.text and "1 200宗" in first.text and "25個月" not in first.text
        assert second.text.startswith(
            "8. 郭榮鏗議員(譯文)：(二) 審核所需的時間為何；及\n(三) 當局會否增撥資源？\n(二)及(三)"
        )
        assert first.question_text == "(一) 過去一年接獲的聲請數目為何；"
    else:
        assert first.text.startswith(
            "8. MR DENNIS KWOK: (1) of the number of claims received last year;\nSECRETARY FOR SECURITY:"
        )
        assert second.text.startswith(
            "8. MR DENNIS KWOK: (2) of the time taken to screen a claim; and\n(3) whether it will"
        )
        assert "Screening takes 25 months" in second.text and "Screening" not in first.text
    assert all(c.question_kind == "written" for c in chunks)
    # within the limit the written reply stays one pair
    assert len([c for c in qa_chunks(doc, max_tokens=3000) if c.question_id == "8"]) == 1


def test_reply_parts_follow_the_question_s_labels() -> None:
    question = "政府可否告知本會：\n(一) 甲為何；及\n(二) 乙為何？"
    answer = (
        "主席，目標如下：\n(i) 融合規劃；\n(ii) 運用鐵路。\n現答覆如下：\n(一) 甲已落實。\n(二) 乙正研究。"
    )
    parts = council.reply_parts(question, answer)
    assert [asked for asked, _ in parts] == ["(一) 甲為何；及", "(二) 乙為何？"]
    assert parts[0][1].startswith("主席，目標如下：\n(i) 融合規劃；") and parts[1][1] == "(二) 乙正研究。"
    # a reply that does not say which part it answers repeats the whole question
    assert council.reply_parts("Will the Government act?", "(a) Yes.\n(b) Soon.") == [
        (None, "(a) Yes."),
        (None, "(b) Soon."),
    ]
    # a label wrapped mid-sentence is no part
    _, found = council.labelled_parts(
        "(1) The first part, as set out in\n(2) of the Ordinance, applies.\n(2) The second."
    )
    assert [p.values for p in found] == [(1,), (2,)] and found[1].text == "(2) The second."


# -- the real corpus ----------------------------------------------------------------------------------
real = pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not available (../shared/corpus/real)")


def _squash(text: str) -> str:
    """Text without spaces, in NFKC: the floor record writes some characters as CJK
    compatibility ideographs (``行`` U+FA08), the PDF as unified ones."""
    return unicodedata.normalize("NFKC", re.sub(r"\s+", "", text))


@cache
def _load(relative: str) -> DocumentText:
    path = CORPUS / relative
    return DocumentText.from_pages(clean_pages(extract_document(read_source(path)).pages))


def floor_exchanges(speeches: list[dict]) -> list[dict]:
    """The oral questions' exchanges of a floor record: the speakers' roles come from its
    bookmarks (``SP_MB`` member, ``SP_PO`` officer, ``SP_LC`` President); they are grouped
    as the Rules of Procedure run a question time (see :mod:`council`)."""
    found: list[dict] = []
    current: dict | None = None
    follow_up = False
    for speech in speeches:
        mark, content = speech["bookmark"], speech["content"]
        if mark.startswith("SP_LC"):
            if "口頭質詢到此為止" in content:
                break
            if re.search(r"第.項質詢|最後一項口頭質詢", content):
                current = None
            follow_up = follow_up or "未獲答覆" in content
        elif mark.startswith("SP_PO") and current:
            current["replies"].append(content)
        elif mark.startswith("SP_MB"):
            asker = re.split(r"[:：︰]", speech["title"])[0]  # one title holds its speech too
            same = current and current["asker"] == asker
            if current and (not current["replies"] or (same and (follow_up or current["kind"] != "main"))):
                current["questions"].append(content)
            else:
                current = {
                    "kind": "supplementary" if current else "main",
                    "asker": asker,
                    "questions": [content],
                    "replies": [],
                }
                found.append(current)
            follow_up = False
    return found


@real
def test_real_hansard_every_exchange_in_a_chunk_of_its_own() -> None:
    """>= 95% of the oral exchanges each in a chunk holding the question's start and the
    reply's end, with no other exchange's start; no two supplementaries share a chunk."""
    speeches = json.loads(
        (CORPUS / "legco/floor_20121121_confirm-ec.speeches.json").read_text(encoding="utf-8")
    )["speeches"]
    truth = floor_exchanges(speeches)
    assert (len(truth), sum(e["kind"] == "main" for e in truth)) == (41, 6)
    starts = [_squash(next(q for q in e["questions"] if q.strip()))[:14] for e in truth]
    ends = [_squash(e["replies"][-1])[-14:] for e in truth]
    chunks = [_squash(c.text) for c in qa_chunks(_load("legco/hansard_20121121_translate-c.pdf"))]
    own = 0
    for n, (start, end) in enumerate(zip(starts, ends)):
        others = [s for k, s in enumerate(starts) if k != n]
        if any(
            start in c and end in c and c.index(start) < c.rindex(end) and not any(o in c for o in others)
            for c in chunks
        ):
            own += 1
    assert own / len(truth) >= 0.95, f"{own} of {len(truth)} exchanges in a chunk of their own"
    supplementary_starts = [s for s, e in zip(starts, truth) if e["kind"] == "supplementary"]
    assert all(sum(s in c for s in supplementary_starts) <= 1 for c in chunks)


@real
def test_real_hansard_sections_name_kind_asker_and_parent() -> None:
    found = pairs(_load("legco/hansard_20121121_translate-c.pdf"))
    kinds = [s.question_kind for s in found]
    assert (kinds.count("main"), kinds.count("supplementary"), kinds.count("written")) == (6, 35, 14)
    assert [s.qa_id for s in found if s.question_kind != "supplementary"] == [str(n) for n in range(1, 21)]
    assert all(
        s.parent_question_id == s.qa_id.split("-")[0] for s in found if s.question_kind == "supplementary"
    )
    assert all(
        s.asker and s.asker.endswith("議員") and s.answerer and s.answerer.endswith("局長") for s in found
    )
    summary = structure_summary(detect_structure(_load("legco/hansard_20121121_translate-c.pdf")))
    assert not summary["numbering_gaps"] and not summary["duplicate_ids"]


@real
@pytest.mark.parametrize("lang", ["e", "c"])
def test_real_html_hansard_written_replies(lang: str) -> None:
    """The 2015 Hansard as the eval reads it (HTML as text): 19 written questions, no
    supplementaries, each asked by a member and answered by an official; the committee
    debate after them makes no exchange."""
    doc = _load(f"legco/hansard_20150429-{lang}.html")
    found = pairs(doc)
    assert [s.qa_id for s in found] == [str(n) for n in range(1, 20)]
    assert {s.question_kind for s in found} == {"written"}
    member = re.compile(r"^(?:MR|MS|MRS|DR|PROF|IR) |議員$")
    assert all(s.asker and member.search(s.asker) and s.answerer for s in found)
    assert all(
        s.answerer.startswith("SECRETARY") if lang == "e" else s.answerer.endswith(("局長", "司長"))
        for s in found
    )
    chunks = qa_chunks(doc)
    assert all(c.token_count <= 3000 for c in chunks)
    split = [c for c in chunks if c.parts]
    assert all(c.text.startswith(f"{c.question_id}. ") for c in split)


def test_dagster_tables_show_kind_asker_and_parent(tmp_path) -> None:
    from legco_assets.defs.assets import (
        chunks,
        document_structure,
        page_images,
        page_tables,
        page_text,
        source_document,
    )

    from .runs import materialize_paper

    paper = tmp_path / "hansard.txt"
    paper.write_text(ZH_ORAL, encoding="utf-8")
    selection = [source_document, page_text, page_images, page_tables, document_structure, chunks]
    result = materialize_paper(
        tmp_path, paper, {"ops": {"chunks": {"config": {"strategy": "question"}}}}, selection=selection
    )
    assert result.success
    structure = result.asset_materializations_for_node("document_structure")[0].metadata["structure"].value
    assert "| kind | asker | parent |" in structure and "| 1-S1 |" in structure
    assert "| supplementary | 林健鋒議員 | 1 |" in structure
    preview = result.asset_materializations_for_node("chunks")[0].metadata["preview"].value
    assert "| kind | asker | parent |" in preview and "| supplementary | 易志明議員 | 1 |" in preview


ZH_REPLY_WITHOUT_ADDRESS = """議員質詢的口頭答覆

代理主席：第一項質詢。

青少年沉迷於暴力電子遊戲的問題

1. 廖長江議員：據報，近期發生數宗倫常兇殺案。政府可否告知本會：
(一) 有否進行專題研究；
(二) 有否制訂政策；及
(三) 會否加強輔導？

勞工及福利局局長：青少年上網及電子遊戲成癮的問題涉及不同政策局的
範疇。我的答覆如下：(一) 政府沒有進行專題研究。

廖長江議員：主席，局長會否重新考慮作出研究？

勞工及福利局局長：主席，我們會繼續留意。

代理主席：第二項質詢。

單車政策

2. 胡志偉議員：主席，政府會否推廣單車？

代理主席：哪位局長作答？運輸及房屋局局長，請作答。

運輸及房屋局局長：主席，政府會在新市鎮推廣單車。
"""


def test_a_reply_that_does_not_address_the_president_is_the_reply() -> None:
    """An official's reply usually opens ``主席，``; one that goes straight to the answer is
    still the reply, and the acting President's line (an official-like label) never is."""
    main, supplementary, second = pairs(doc_of(ZH_REPLY_WITHOUT_ADDRESS))
    assert main.question.endswith("(三) 會否加強輔導？") and "代理主席" not in main.question
    assert main.answer.startswith("青少年上網及電子遊戲成癮的問題") and main.answerer == "勞工及福利局局長"
    assert supplementary.qa_id == "1-S1" and supplementary.answer == "主席，我們會繼續留意。"
    assert "代理主席" not in supplementary.text
    assert second.answerer == "運輸及房屋局局長" and second.answer == "主席，政府會在新市鎮推廣單車。"


ZH_MOTION_DEBATE = """議員質詢的書面答覆

單車泊位

1. 陳婉嫻議員：主席，政府可否告知本會，全港有多少個單車泊位？

運輸及房屋局局長：主席，全港共有約 42 000個公眾單車泊位。

天秀墟

2. 麥美娟議員：主席，天秀墟的營運情況為何？

運輸及房屋局局長：主席，天秀墟由東華三院營運。

議員議案

主席：第一項議員議案：積極推動家庭友善政策。

積極推動家庭友善政策

李慧琼議員：主席，我動議通過印載於議程內的議案，並請議員審議下列兩項附屬法例：

(1) 《2013年證券及期貨(合約限量及須申報的持倉量)(修訂)規
則》；及

(2) 《〈一手住宅物業銷售條例〉(生效日期)公告》。

李慧琼議員動議的議案如下：

“鑒於香港近年發生多宗家庭倫常慘劇，本會促請政府推動家庭友善政策；建議的措施包括：

(一) 有關部門應評估現時香港家庭暴力的嚴重程度；

(五) 為雙職父母提供更多照顧子女的支援服務 (包括擴大社區
幼兒託管服務，增加各區幼兒託管名額 )；及

附表

(六) 推動長幼共融的房屋政策。”

代理主席：我現在向各位提出的待議議題是：李慧琼議員動議的議案，予以通過。

梁家騮議員：代理主席，家庭是社會的基石，我支持議案，並希望政府盡快落實各項措施。
"""


def test_a_quoted_motion_s_items_and_a_speech_s_list_are_not_headings() -> None:
    """The motion a Hansard quotes in full (“…”) numbers its proposals and may carry a
    schedule; a speech lists the instruments it moves, one item wrapping with its bracket
    open. None of them is a heading: the debate stays under the motion's title."""
    sections = detect_structure(doc_of(ZH_MOTION_DEBATE))
    speech = next(s for s in sections if "家庭是社會的基石" in s.text)
    assert (speech.heading, speech.parent_topic) == ("積極推動家庭友善政策", "議員議案")
    headings = {s.heading for s in sections if s.heading}
    assert not any(h.startswith(("(五)", "(六)", "(1)", "(2)", "附表")) for h in headings), headings
