"""HTML papers as a first-class input: the reader, the pairs it leads to, the silent-miss
guard, bad pages, and the CLI.

The committed fixtures (``fixtures/html/``) are hand-written in the shapes government and
LegCo pages take: a Labour Department FAQ with ``問1.`` / ``答1.`` in layout-table cells, the
questions listed at the top as anchor links and an answer ending in a data table; a Big5
page with ``問 1 :`` labels; an English ``Q1.`` page with implicit answers; a speech, a budget
paper and a Council agenda (questions put, not answered) as negatives; the Government's
release of a Council question and its reply (``LCQ5: …`` / ``立法會五題：…``); an FAQ with no
labels at all (questions as ``<dt>``, ``<h3>``, ``<summary>`` and bold lines, or a table of
questions and answers). The real pages of
the shared corpus are used when it is present.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from legco_assets.core.errors import DocumentError
from legco_assets.core.pipeline import chunk_file
from legco_assets.core.read import SourceBytes, extract_document, read_html, read_source, text_pages
from legco_assets.core.records import DocumentText, Page
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure import detect_structure, find_structure, page_label_coverage, question_labels
from legco_assets.core.structure import label_coverage as coverage_of

from .conftest import CORPUS
from .factories import english_paper
from .runs import cli, error_lines

HTML = Path(__file__).resolve().parent / "fixtures" / "html"
TC_FAQ = HTML / "ld_faq_annual_leave_tc.html"
BIG5_FAQ = HTML / "ld_faq_holidays_big5.html"
EN_FAQ = HTML / "faq_implicit_answers_en.html"
AGENDA = HTML / "council_agenda_questions_en.html"
LCQ_EN = HTML / "lcq_public_housing_en.html"
UNLABELLED_FAQ = HTML / "faq_unlabelled_en.html"
TABLE_FAQ = HTML / "faq_table_unlabelled.html"
LCQ_TC = HTML / "lcq_public_housing_tc.html"
NEGATIVES = [HTML / "speech_secretary_en.html", HTML / "budget_paper_tc.html"]


def _pairs(path: Path, tmp_path: Path) -> list[dict]:
    records = chunk_file(path, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    return [r for r in records if r["metadata"]["section_type"] == "qa"]


def _sections(path: Path) -> tuple[str, list]:
    _, pages = text_pages(read_source(path))
    doc = DocumentText.from_pages(pages)
    return doc.text, detect_structure(doc)


def _final_sections(path: Path) -> tuple[str, list]:
    """The sections as the pipeline ends with them (outline, headings that ask)."""
    _, pages = text_pages(read_source(path))
    return DocumentText.from_pages(pages).text, find_structure(pages, Settings()).sections


# -- FAQ pages: one pair per question ---------------------------------------------------------------
def test_labour_department_faq_in_table_cells_gives_one_pair_per_question(tmp_path: Path) -> None:
    """``問1.`` and the question in two cells read as one line; the list of questions at the
    top (anchor links) is not paired; the answer ending in a table keeps it as Markdown."""
    pairs = _pairs(TC_FAQ, tmp_path)
    assert [p["metadata"]["question_id"] for p in pairs] == ["1", "2", "3", "4", "5"]
    assert pairs[0]["metadata"]["question_text"] == "每年須給予僱員多少天有薪年假？"
    assert pairs[0]["text"].startswith(
        "問1. 每年須給予僱員多少天有薪年假？\n答1. 僱員根據連續性合約受僱滿12個月後"
    )
    table_pair = pairs[2]
    assert table_pair["metadata"]["has_table"] is True
    assert "| 服務年資 | 有薪年假日數 |\n|---|---|\n| 1 | 7 |" in table_pair["text"]
    assert table_pair["text"].rstrip().endswith("| 9或以上 | 14 |")
    assert [p["metadata"]["has_table"] for p in pairs] == [False, False, True, False, False]
    assert all(p["page_number"] == 1 for p in pairs)
    every_text = "\n".join(
        r["text"] for r in chunk_file(TC_FAQ, Strategy.question, Settings(data_dir=tmp_path), use_llm=False)
    )
    for furniture in (
        "回頁首",
        "網頁指南",
        "跳至主要內容",
        "私隱政策",
        "script text",
        "lastRevision",
        "休息日",
        "主頁",
    ):
        assert furniture not in every_text, furniture


def test_big5_page_is_decoded_and_its_spaced_labels_pair(tmp_path: Path) -> None:
    data = BIG5_FAQ.read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    page = read_html(BIG5_FAQ, data)
    assert page.encoding == "big5hkscs"
    assert "咁樣做係唔啱嘅" in page.text  # Hong Kong characters, not in plain Big5
    undeclared = read_html(BIG5_FAQ, data.replace(b"; charset=big5", b""))  # found by the detector
    assert undeclared.encoding == "big5hkscs" and undeclared.text == page.text
    pairs = _pairs(BIG5_FAQ, tmp_path)
    assert [p["metadata"]["question_id"] for p in pairs] == ["1", "2", "3"]
    assert (
        pairs[1]["text"]
        == "問 2 : 僱主可否以工資代替法定假日？\n答 : 不可以。僱主以工資代替法定假日，即屬違法。咁樣做係唔啱嘅。"
    )
    assert "主頁" not in "".join(p["text"] for p in pairs), "the left navigation column is dropped"


def test_english_faq_with_implicit_answers_and_a_question_index(tmp_path: Path) -> None:
    pairs = _pairs(EN_FAQ, tmp_path)
    assert [p["metadata"]["question_id"] for p in pairs] == ["Q1", "Q2", "Q3", "Q4"]
    assert (
        pairs[1]["text"]
        == "Q2. What is the current statutory minimum wage rate?\nWith effect from 1 May 2025, the statutory minimum wage rate is $42.1 per hour."
    )
    assert pairs[2]["metadata"]["has_table"] and pairs[2]["text"].endswith("| 208 | 8,756.8 |")
    assert not any("Back to top" in p["text"] for p in pairs)


def test_the_governments_release_of_a_council_question_is_one_pair_under_its_headline(tmp_path: Path) -> None:
    """``LCQ5: …`` / ``立法會五題：…`` releases print ``Question:`` / ``問題：`` and ``Reply:`` /
    ``答覆：`` on lines of their own, a question of several parts between them; the reply
    ends before the release's sign-off (``Ends/…``, ``完``, the time issued, ``NNNN``). The
    first line names the member and the official, and says the reply is written."""
    for path, headline, asked, last, who in (
        (
            LCQ_EN,
            "LCQ5: Public rental housing",
            "The Government announced on the 3rd of last month",
            "as they are handled under the Quota and Points System.",
            ("Hon Alice Mak", "Secretary for Transport and Housing"),
        ),
        (
            LCQ_TC,
            "立法會五題：公共租住房屋",
            "政府上月三日公布",
            "（三）政府沒有計劃為非長者一人申請者的平均輪候時間訂立目標。",
            ("麥美娟議員", "運輸及房屋局局長"),
        ),
    ):
        records = chunk_file(path, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
        pairs = [r for r in records if r["metadata"]["section_type"] == "qa"]
        assert len(pairs) == 1, path.name
        pair = pairs[0]
        assert pair["metadata"]["section_path"] == [headline]
        assert pair["metadata"]["question_text"].startswith(asked)
        assert pair["metadata"]["question_text"].endswith(
            ("average waiting time of non-elderly one-person applicants?", "平均輪候時間訂立目標？")
        )
        assert pair["text"].endswith(last)
        assert (
            pair["metadata"]["asker"],
            pair["metadata"]["answerer"],
            pair["metadata"]["question_kind"],
        ) == (*who, "written")
        assert not any(
            mark in r["text"] for r in records for mark in ("Ends/", "NNNN", "HKT", "\n完", "香港時間")
        )
        text, sections = _sections(path)
        assert coverage_of(text, sections).ok


@pytest.mark.parametrize(
    ("intro", "keys"),
    [
        (
            "Following is a question by Dr the Hon Elizabeth Quat and a reply by the Secretary for Labour and Welfare, "
            "Mr Chris Sun, in the Legislative Council today (June 12):",
            ("Dr the Hon Elizabeth Quat", "Secretary for Labour and Welfare", "main"),
        ),
        (
            "Following is a question by the Hon Tommy Cheung and a written reply by the Acting Secretary for Commerce and "
            "Economic Development, Dr Bernard Chan, in the Legislative Council today (March 20):",
            ("Hon Tommy Cheung", "Acting Secretary for Commerce and Economic Development", "written"),
        ),
        (
            "以下是今日（六月十二日）在立法會會議上梁熙議員的提問和勞工及福利局局長孫玉菡的答覆：",
            ("梁熙議員", "勞工及福利局局長", "main"),
        ),
    ],
)
def test_a_releases_first_line_names_asker_answerer_and_kind(intro: str, keys: tuple[str, str, str]) -> None:
    label, reply = ("問題：", "答覆：") if intro.startswith("以下") else ("Question:", "Reply:")
    text = f"LCQ3: Employment\n{intro}\n{label}\nWill the Government inform this Council of the figures?\n{reply}\nPresident,\nThe figures are set out below.\n"
    pairs = [s for s in detect_structure(DocumentText.from_pages([_page(text)])) if s.type == "qa"]
    assert [(s.asker, s.answerer, s.question_kind) for s in pairs] == [keys]


def test_a_worded_question_label_waits_for_its_reply_past_parts_that_end_in_a_question_mark() -> None:
    parts = "\n".join(f"({n}) whether item {n} will be reviewed?" for n in range(1, 10))
    text = f"LCQ1: Reviews\nQuestion:\nWill the Government inform this Council:\n{parts}\nReply:\nPresident,\nAll nine items will be reviewed.\n"
    sections = detect_structure(DocumentText.from_pages([_page(text)]))
    pairs = [s for s in sections if s.type == "qa"]
    assert len(pairs) == 1 and pairs[0].heading == "LCQ1: Reviews"
    assert pairs[0].question.endswith("(9) whether item 9 will be reviewed?")
    assert pairs[0].answer == "President,\nAll nine items will be reviewed."
    bare = detect_structure(
        DocumentText.from_pages([_page("Question:\nWhat was asked is not said here.\nNothing follows.\n")])
    )
    assert not any(s.type == "qa" for s in bare), (
        "a first bare Question: with no reply label below is no pair"
    )


def test_an_faq_without_labels_gives_a_pair_per_question_it_sets_apart(tmp_path: Path) -> None:
    """No ``Q1`` anywhere: the questions are ``<dt>``s, ``<h3>``s, an accordion's
    ``<summary>`` and a bold paragraph; each heading that asks is a pair with the text under
    it, under the page's own headings."""
    pairs = _pairs(UNLABELLED_FAQ, tmp_path)
    assert [(p["metadata"]["question_id"], p["metadata"]["section_path"][-1]) for p in pairs] == [
        ("1", "General"),
        ("2", "General"),
        ("3", "Pay period"),
        ("4", "Pay period"),
        ("5", "Records"),
        ("6", "Records"),
    ]
    assert [p["metadata"]["question_text"] for p in pairs][::2] == [
        "What is the current statutory minimum wage rate?",
        "How is the minimum wage calculated for a pay period?",
        "How long must an employer keep records of hours worked?",
    ]
    assert pairs[1]["text"] == (
        "Does the Minimum Wage Ordinance apply to student interns?\nStudent interns and work experience students "
        "during a period of exempted student employment are not covered.\nEmployers should keep records of the exemption."
    )
    assert (
        pairs[5]["text"]
        == "Can an employee ask for a copy of these records?\nYes. The employer must give a copy of the records on request, free of charge."
    )
    assert coverage_of(*_final_sections(UNLABELLED_FAQ)).ok


def test_an_faq_set_as_a_table_of_questions_and_answers_gives_a_pair_per_row(tmp_path: Path) -> None:
    """``Question | Answer`` rows (the header dropped), an answer of two paragraphs, an answer
    starting with a figure, and a Chinese table without a header under its own heading."""
    pairs = _pairs(TABLE_FAQ, tmp_path)
    assert [
        (p["metadata"]["question_id"], p["metadata"]["question_text"], p["metadata"]["section_path"][-1])
        for p in pairs
    ] == [
        ("1", "Who can join the scheme?", "Frequently Asked Questions: Employment Support"),
        ("2", "How much is the allowance?", "Frequently Asked Questions: Employment Support"),
        ("3", "How do I apply?", "Frequently Asked Questions: Employment Support"),
        ("4", "參加者須否供款？", "計劃問答"),
        ("5", "何時截止申請？", "計劃問答"),
    ]
    assert (
        pairs[0]["text"]
        == "Who can join the scheme?\nAny unemployed resident aged 18 or above.\nStudents in full-time study cannot join."
    )
    assert pairs[1]["text"] == "How much is the allowance?\n$5,000 a month for up to six months."
    lines = read_html(TABLE_FAQ, TABLE_FAQ.read_bytes()).text.split("\n")
    assert (
        "Question" not in lines and "Answer" not in lines and not any(line.startswith("|") for line in lines)
    )


def test_headings_that_ask_are_pairs_only_in_a_paper_without_labels_and_only_several() -> None:
    """One rhetorical heading in a narrative paper stays narrative; a labelled FAQ keeps
    its labels' pairs; a Chinese page's ``？`` asks as ``?`` does."""

    def sections_of(markup: str) -> list:
        path = Path("inline.html")
        _, pages = text_pages(SourceBytes(path, markup.encode()))
        return find_structure(pages, Settings()).sections

    body = "<p>" + "The scheme is set out in this paper at some length. " * 3 + "</p>"
    one = sections_of(
        f"<html><body><h1>Paper</h1><h2>Why is a scheme needed?</h2>{body}<h2>Timetable</h2>{body}</body></html>"
    )
    assert not any(s.type == "qa" for s in one)
    labelled = sections_of(
        "<html><body><h2>Is it free?</h2><p>Yes, it is free of charge for every applicant.</p>"
        "<p>Q1. How do I apply?</p><p>A1. Apply online at the department's website.</p>"
        "<h2>Who can apply?</h2><p>Any resident aged 18 or above may apply for it.</p></body></html>"
    )
    assert [s.qa_id for s in labelled if s.type == "qa"] == ["Q1"]
    chinese = sections_of(
        "<html><body><h1>常見問題</h1><h3>最低工資水平是多少？</h3><p>由2025年5月1日起，法定最低工資水平為每小時42.1元。</p>"
        "<h3>休息日是否計算為工作時數？</h3><p>不是。除非僱員應僱主要求在休息日工作，否則休息日不計算為工作時數。</p></body></html>"
    )
    assert [(s.qa_id, s.question, s.path) for s in chinese if s.type == "qa"] == [
        ("1", "最低工資水平是多少？", ["常見問題"]),
        ("2", "休息日是否計算為工作時數？", ["常見問題"]),
    ]


def test_labelled_pairs_under_a_title_and_headings_have_the_headings_as_their_path(tmp_path: Path) -> None:
    """An ``<h1>`` right above an ``<h2>`` reads to the rules as one title wrapped over two
    lines; the path has each heading once, not the two joined as a third."""
    page = tmp_path / "faq_headed.html"
    page.write_text(
        "<html><body><h1>FAQ on Employment</h1><h2>Leave: annual and sick</h2>"
        "<p>Q1. How many days of annual leave?</p><p>A1. Seven to fourteen days, by years of service.</p>"
        "<h2>Wages, deductions and payment</h2><p>Q2. When must wages be paid?</p><p>A2. Within seven days.</p></body></html>",
        encoding="utf-8",
    )
    pairs = _pairs(page, tmp_path)
    assert [(p["metadata"]["question_id"], p["metadata"]["section_path"]) for p in pairs] == [
        ("Q1", ["FAQ on Employment", "Leave: annual and sick"]),
        ("Q2", ["FAQ on Employment", "Wages, deductions and payment"]),
    ]
    assert (
        pairs[0]["text"]
        == "Q1. How many days of annual leave?\nA1. Seven to fourteen days, by years of service."
    )


def test_a_speaker_turn_with_a_bold_name_is_not_a_question_heading() -> None:
    """Only text wholly in bold sets a paragraph apart: a Hansard turn bolds the speaker's
    name, and the words after it (the ``<strong>``'s tail) are not bold."""
    markup = (
        "<html><body><p>Proceedings of the Council, long enough to be a page of a paper.</p>"
        "<p><strong>CHAIRMAN </strong>(in Cantonese):<strong> </strong>Does any other Member wish to speak?</p>"
        "<p><strong>Is the whole of this line bold?</strong></p></body></html>"
    )
    assert [h["text"] for h in read_html("inline.html", markup.encode()).headings] == [
        "Is the whole of this line bold?"
    ]


def test_html_source_is_one_page_of_kind_html_with_its_headings() -> None:
    extracted = extract_document(read_source(TC_FAQ))
    assert (extracted.kind, extracted.extractor, [p.number for p in extracted.pages]) == ("html", "lxml", [1])
    page = extracted.pages[0]
    lines = page.raw.split("\n")
    assert [(level, text) for text, level in page.headings] == [(1, "常見問題 - 有薪年假"), (2, "問題及答案")]
    assert all(text in lines for text, _ in page.headings), "each heading is a line of its own"


def test_layout_rows_run_labels_into_their_text_and_data_tables_become_markdown() -> None:
    markup = (
        "<html><body><table><tr><td>Q1.</td><td><p>Can I?</p></td></tr><tr><td>A1.</td><td><p>Yes.</p>"
        "<table><tr><th>Year</th><th>Cases</th></tr><tr><td>2023</td><td>1 204</td></tr></table></td></tr></table>"
        "<p>Plain <strong>201</strong><strong>5</strong> text, long enough to be a page of a paper.</p></body></html>"
    )
    page = read_html("inline.html", markup.encode())
    assert page.text.split("\n") == [
        "Q1. Can I?",
        "A1. Yes.",
        "| Year | Cases |",
        "|---|---|",
        "| 2023 | 1 204 |",
        "Plain 2015 text, long enough to be a page of a paper.",
    ]
    assert [(t.header, t.rows, t.method) for t in page.tables] == [
        (["Year", "Cases"], [["2023", "1 204"]], "html")
    ]


# the ways FAQ pages set a question apart from its answer, one page each
ASKED = [
    "How do I apply for the scheme online?",
    "What documents must I submit with the form?",
    "How long does the approval take normally?",
    "Can I appeal if my application is refused?",
]
ANSWERED = [
    "You may apply through the online portal at any time of the day.",
    "You must submit a copy of your identity card and proof of address.",
    "Approval normally takes about four weeks from receipt of all documents.",
    "Yes, you may lodge an appeal within 28 days of the decision letter.",
]
LABEL_GRAMMARS = {
    "q_colon": ("", "<p><b>Q:</b> {q}</p><p><b>A:</b> {a}</p>", ""),
    "question_n_answer": ("", "<p>Question {n}: {q}</p><p>Answer: {a}</p>", ""),
    "q_n_in_h4": ("", "<h4>Q{n}. {q}</h4><p>{a}</p>", ""),
    "q_n_dash": ("", "<p>Q{n} – {q}</p><p>A{n} – {a}</p>", ""),
    "q_dot_n": ("", "<p>Q.{n} {q}</p><p>A.{n} {a}</p>", ""),
    "bracketed_q_n": ("", "<p>[Q{n}] {q}</p><p>[A{n}] {a}</p>", ""),
    "question_no_n": ("", "<p>Question No. {n}: {q}</p><p>Answer: {a}</p>", ""),
    "q_n_paren": ("", "<p>Q{n}) {q}</p><p>A{n}) {a}</p>", ""),
    "q_n_plain_answer": ("", "<p>Q{n}: {q}</p><p>{a}</p>", ""),
    "table_number_question_answer": (
        "<table><tr><th>No.</th><th>Question</th><th>Answer</th></tr>",
        "<tr><td>{n}</td><td>{q}</td><td>{a}</td></tr>",
        "</table>",
    ),
    "h2_and_div": ("", "<div class='faq'><h2>{q}</h2><div>{a}</div></div>", ""),
    "collapse_link": (
        "",
        "<div class='card'><div class='card-header'><a data-toggle='collapse' href='#c{n}'>{q}</a></div><div id='c{n}' class='collapse'><div class='card-body'>{a}</div></div></div>",
        "",
    ),
    "role_button": (
        "",
        "<div role='button' aria-expanded='false' aria-controls='p{n}'>{q}</div><div id='p{n}' role='region'>{a}</div>",
        "",
    ),
    "span_above_div": (
        "",
        "<div class='item'><span class='title'>{q}</span><div class='content'><p>{a}</p></div></div>",
        "",
    ),
    "paragraphs_only": ("", "<p>{q}</p><p>{a}</p>", ""),
    "zh_wen_da": ("", "<p>問：{q}</p><p>答：{a}</p>", ""),
    "zh_wenti_daan": ("", "<p>問題{n}：{q}</p><p>答案：{a}</p>", ""),
    "bold_numbered": ("", "<p><strong>{n}. {q}</strong></p><p>{a}</p>", ""),
    "ol_of_bold": ("<ol>", "<li><strong>{q}</strong><p>{a}</p></li>", "</ol>"),
    "details": ("", "<details><summary>{q}</summary><p>{a}</p></details>", ""),
    "dl": ("<dl>", "<dt>{q}</dt><dd>{a}</dd>", "</dl>"),
}


@pytest.mark.parametrize("grammar", list(LABEL_GRAMMARS))
def test_each_way_an_faq_sets_its_questions_apart_gives_a_pair_per_question(
    grammar: str, tmp_path: Path
) -> None:
    """``Question 1:`` answered by a bare ``Answer:`` made no pair at all (a numbered
    ``Question`` word counted only after another pair), though the guard saw its labels;
    ``Q.1``, ``[Q1]`` and ``Question No. 1:`` were no labels at all; an accordion's header
    that is a collapse link or carries ``role="button"``, and, on a page titled as an FAQ,
    a question that is only a paragraph of its own, were not set apart."""
    head, each, tail = LABEL_GRAMMARS[grammar]
    body = (
        head + "".join(each.format(n=n, q=q, a=a) for n, (q, a) in enumerate(zip(ASKED, ANSWERED), 1)) + tail
    )
    page = tmp_path / f"{grammar}.html"
    page.write_text(
        f"<html><head><title>FAQ</title></head><body><h1>Frequently asked questions on the subsidy scheme</h1>{body}<p>Last revised: May 2025</p></body></html>"
    )
    pairs = _pairs(page, tmp_path)
    assert [ASKED[n] in p["metadata"]["question_text"] for n, p in enumerate(pairs)] == [True] * 4
    assert [p["text"].rstrip().endswith(ANSWERED[n]) for n, p in enumerate(pairs)] == [True] * 4


ASKED_ZH = ["僱主可否扣減僱員的工資？", "僱員放取產假有甚麼條件？", "法定假日有多少天？", "遣散費如何計算？"]
ANSWERED_ZH = [
    "除《僱傭條例》准許的情況外，僱主不得扣減僱員的工資。",
    "僱員須在緊接產假前已按連續性合約受僱不少於四十星期。",
    "現時每年共有十四天法定假日。",
    "遣散費按僱員最後一個月工資的三分之二乘以服務年資計算。",
]
CN = "一二三四"
LABEL_GRAMMARS_ZH = {
    "wen_full_width_digits": lambda n, q, a: (
        f"<p>問{chr(0xFF10 + n)}．{q}</p><p>答{chr(0xFF10 + n)}．{a}</p>"
    ),
    "wen_chinese_numeral": lambda n, q, a: f"<p>問{CN[n - 1]}：{q}</p><p>答{CN[n - 1]}：{a}</p>",
    "wenti_chinese_numeral": lambda n, q, a: f"<p>問題{CN[n - 1]}：{q}</p><p>答：{a}</p>",
    "bracketed": lambda n, q, a: f"<p>【問】{q}</p><p>【答】{a}</p>",
    "spaced": lambda n, q, a: f"<p>問 {n} ： {q}</p><p>答 {n} ： {a}</p>",
    "listed_heading": lambda n, q, a: f"<h3>{CN[n - 1]}、{q}</h3><p>{a}</p>",
}


@pytest.mark.parametrize("grammar", list(LABEL_GRAMMARS_ZH))
def test_each_way_a_chinese_faq_labels_its_questions_gives_a_pair_per_question(
    grammar: str, tmp_path: Path
) -> None:
    """``問一：`` / ``答一：`` (Chinese numerals) and ``【問】`` / ``【答】`` made no pair, and the
    guard saw no label either; the labels' ids count in digits (``問一`` answers to ``答1``)."""
    body = "".join(
        LABEL_GRAMMARS_ZH[grammar](n, q, a) for n, (q, a) in enumerate(zip(ASKED_ZH, ANSWERED_ZH), 1)
    )
    page = tmp_path / f"{grammar}.html"
    page.write_text(
        f"<html><head><meta charset='utf-8'></head><body><h1>僱傭條例常見問題</h1>{body}<p>最後更新日期：2025年5月1日</p></body></html>",
        encoding="utf-8",
    )
    pairs = _pairs(page, tmp_path)
    assert [ASKED_ZH[n] in p["metadata"]["question_text"] for n, p in enumerate(pairs)] == [True] * 4
    assert [p["text"].rstrip().endswith(ANSWERED_ZH[n]) for n, p in enumerate(pairs)] == [True] * 4


def test_a_chinese_title_that_ends_in_its_faq_word_is_an_faq_title_for_the_guard(tmp_path: Path) -> None:
    """Chinese titles put the subject first (``僱傭條例常見問題``); a page so titled that
    makes no pair (its questions worded as topics, none asking) is reported, as
    ``Frequently asked questions on …`` is."""
    page = tmp_path / "parts.html"
    page.write_text(
        "<html><head><meta charset='utf-8'></head><body><h1>僱傭條例常見問題</h1>"
        + "".join(
            f"<p>({n}) {q.rstrip('？')}</p><p>{a}</p>"
            for n, (q, a) in enumerate(zip(ASKED_ZH, ANSWERED_ZH), 1)
        )
        + "</body></html>",
        encoding="utf-8",
    )
    done = cli("chunk", str(page), "--strategy", "question", home=tmp_path)
    assert done.returncode == 0 and _pairs(page, tmp_path) == []
    assert (
        error_lines(done.stderr) == [] and "titled as questions and answers (僱傭條例常見問題)" in done.stderr
    )


RESPONSES = {
    "en": (
        "Administration's response to questions raised by Members at the meeting on 15 May 2025",
        "Question {n}: {q}",
        "Response: {a}",
        ("Labour and Welfare Bureau", "May 2025"),
        [
            "How many applications were received in 2024?",
            "What is the average processing time?",
            "Will the Administration review the income limit?",
        ],
        [
            "The Labour Department received 12 345 applications in 2024.",
            "The average processing time was 23 working days.",
            "The Administration will review it in the fourth quarter of 2025.",
        ],
    ),
    "zh": (
        "政府當局就委員在2025年5月15日會議上提出的問題所作的回應",
        "問題{n}：{q}",
        "政府當局的回應：{a}",
        ("勞工及福利局", "2025年5月"),
        ["2024年共接獲多少宗申請？", "處理每宗申請平均需時多久？", "政府會否檢討入息上限？"],
        [
            "勞工處在2024年共接獲12 345宗申請。",
            "平均處理時間為23個工作天。",
            "政府會在2025年第四季檢討入息上限。",
        ],
    ),
}


@pytest.mark.parametrize("language", list(RESPONSES))
def test_an_administration_paper_answering_members_questions_pairs_each_and_its_sign_off_ends_the_last(
    language: str, tmp_path: Path
) -> None:
    """LegCo papers answer Members' questions with ``Response:`` / ``政府當局的回應：``, and end
    with the bureau and the month: the English paper made no pair (``Response`` was no
    answer label, and a first ``Question 1:`` waits for one), and the sign-off ran on in
    the last answer in both languages."""
    title, asked, answered, sign_off, questions, answers = RESPONSES[language]
    body = "".join(
        f"<p>{asked.format(n=n, q=q)}</p><p>{answered.format(a=a)}</p>"
        for n, (q, a) in enumerate(zip(questions, answers), 1)
    )
    page = tmp_path / f"response_{language}.html"
    page.write_text(
        f"<html><head><meta charset='utf-8'></head><body><h1>{title}</h1>{body}<p>{sign_off[0]}<br>{sign_off[1]}</p></body></html>",
        encoding="utf-8",
    )
    records = chunk_file(page, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    pairs = [r for r in records if r["metadata"]["section_type"] == "qa"]
    assert [p["metadata"]["question_text"] for p in pairs] == questions
    assert [p["text"].rstrip().endswith(a) for p, a in zip(pairs, answers)] == [True] * 3
    assert [r["text"].split("\n")[-1] for r in records if sign_off[0] in r["text"]] == [
        sign_off[1] if language == "en" else sign_off[0]
    ]


def test_a_page_in_deeply_nested_layout_tables_reads_each_cell_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Old sites lay a page out in tables within tables; each level judges its rows by their
    cells' text before reading them. Read afresh each time, twenty levels took minutes (2^n
    readings of the innermost cell); each cell is now read once, and the text is the same as
    the page's without the wrapping."""
    from legco_assets.core.read import html_reader

    body = (
        "<p>Q1. Can I take leave?</p><p>A1. Yes, after three months.</p><p>Q2. Is it paid?</p><p>A2. Yes.</p>"
    )
    plain = read_html("plain.html", f"<html><body>{body}</body></html>".encode())
    depth = 20
    nested = (
        "<html><body>"
        + "<table><tr><td>Menu</td></tr><tr><td>" * depth
        + body
        + "</td></tr></table>" * depth
        + "</body></html>"
    )
    walks = []
    walk_cell = html_reader._Reader._walk_cell
    monkeypatch.setattr(
        html_reader._Reader, "_walk_cell", lambda self, cell: walks.append(cell) or walk_cell(self, cell)
    )
    page = read_html("nested.html", nested.encode())
    assert len(walks) == len(set(map(id, walks))) == 2 * depth, "each of the 40 cells read once"
    assert page.text.split("\n")[depth:] == plain.text.split("\n")
    assert page.text.split("\n")[:depth] == ["Menu"] * depth


# -- negatives: no invented pairs -----------------------------------------------------------------
@pytest.mark.parametrize("path", NEGATIVES, ids=[p.stem for p in NEGATIVES])
def test_speeches_and_budget_papers_give_no_pairs(path: Path, tmp_path: Path) -> None:
    assert _pairs(path, tmp_path) == []
    text, sections = _sections(path)
    assert coverage_of(text, sections).ok


def test_questions_put_without_replies_are_no_pairs_and_the_guard_says_so(tmp_path: Path) -> None:
    """A Council agenda prints each question and who will reply; the rules would take the
    one ending in ``?`` for a pair answered by the rest of the agenda."""
    assert _pairs(AGENDA, tmp_path) == []
    text, sections = _sections(AGENDA)
    coverage = coverage_of(text, sections)
    assert (coverage.labels_seen, coverage.pairs_made, coverage.ok) == (3, 0, False)
    assert (
        coverage.message
        == "3 question labels seen, 0 pairs made; without a pair: a question put without a reply ×3"
    )


def test_each_question_put_on_an_agenda_is_a_section_of_its_own_under_its_item(tmp_path: Path) -> None:
    """No pair, but no question lost in a run of others: each is a narrative chunk headed by
    its label, under the agenda item it belongs to, and ends at the official who will reply."""
    records = chunk_file(AGENDA, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    paths = [r["metadata"]["section_path"] for r in records]
    assert paths == [
        [],
        ["I. Tabling of Papers"],
        ["II. Questions for written replies", "1. Hon CHAN Siu-ming to ask:"],
        ["II. Questions for written replies", "2. Hon LEE Wai-ling to ask: (Translation)"],
        ["II. Questions for written replies", "3. Hon WONG Kam-fai to ask:"],
        ["III. Members' Motions"],
    ]
    second = records[3]
    assert second["metadata"]["section_type"] == "narrative" and "question_text" not in second["metadata"]
    assert second["text"].startswith(
        "II. Questions for written replies > 2. Hon LEE Wai-ling to ask: (Translation)\nIt has been reported"
    )
    assert second["text"].endswith(
        "(c) whether it will consider prosecuting employers who breach the clause?\nPublic Officer to reply : Secretary for Labour and Welfare"
    )


def test_a_bold_numbered_row_of_a_data_table_is_the_next_heading() -> None:
    """A Council agenda lays its items out in one grid: ``II. Questions`` is the last row of
    the table listing the papers tabled. A bold row that reads as a numbered heading leaves
    the table; a bold row without a number, or a numbered one in body type, stays a row."""
    row = '<tr><td>{}</td><td colspan="2">{}</td></tr>'
    markup = (
        "<html><body><p>I. Tabling of Papers, with enough text to be a page of a paper.</p><table>"
        + row.format("", "<strong>Subsidiary Legislation</strong>")
        + row.format("1.", "Fire Service Regulation 2014")
        + row.format("2.", "Timber Stores Regulation 2014")
        + row.format("", "III. Bills in body type")
        + '<tr><td colspan="3"><strong>II.</strong><strong> </strong><strong>Questions</strong></td></tr>'
        + "</table><p>1. Hon Alan LEONG to ask:</p></body></html>"
    )
    lines = read_html("inline.html", markup.encode()).text.split("\n")
    assert lines[1:] == [
        "|  | Subsidiary Legislation |  |",
        "|---|---|---|",
        "| 1. | Fire Service Regulation 2014 |  |",
        "| 2. | Timber Stores Regulation 2014 |  |",
        "|  | III. Bills in body type |  |",
        "II. Questions",
        "1. Hon Alan LEONG to ask:",
    ]


def test_two_tables_in_a_row_stay_two_tables(tmp_path: Path) -> None:
    """A Council agenda prints the papers tabled as two tables back to back
    (``</table><table>``): a blank line keeps them apart, so the second's header is no row of
    the first, and a window that continues the second repeats its own header."""
    row = "<tr><td>{}</td><td>{}</td><td>{}</td></tr>"
    first = "".join(row.format(f"{n}.", f"Regulation {n} of 2014", f"{100 + n}/2014") for n in range(1, 40))
    second = "".join(row.format(f"{n}.", f"Report {n} of the Panel", "-") for n in range(1, 40))
    markup = (
        "<html><body><h2>I. Tabling of Papers</h2><table>"
        + row.format("Subsidiary Legislation", "", "L.N. No.")
        + first
        + "</table><table>"
        + row.format("Other Papers", "", "")
        + second
        + "</table></body></html>"
    )
    lines = read_html("inline.html", markup.encode()).text.split("\n")
    gap = lines.index("| Other Papers |  |  |")
    assert (
        lines[gap - 1] == ""
        and lines[gap - 2].startswith("| 39. | Regulation 39")
        and lines[gap + 1] == "|---|---|---|"
    )
    page = tmp_path / "agenda.html"
    page.write_bytes(markup.encode())
    settings = Settings(data_dir=tmp_path / "data", chunk_size=120, chunk_overlap=0)
    records = chunk_file(page, Strategy.question, settings, use_llm=False)
    later = [r["text"] for r in records if "Report 30 of the Panel" in r["text"]]
    assert later and all(
        "| Other Papers |" in text and "Subsidiary Legislation" not in text for text in later
    )


def test_lettered_headings_keep_their_level_when_some_letters_look_roman(tmp_path: Path) -> None:
    """``I.`` and ``V.`` in a run of lettered headings (``H.``, ``I.``, ``J.``…) are letters:
    they do not go above the others as a Council agenda's numbered parts do."""
    body = "<p>" + "Text of the part, long enough to be read as a paragraph of the paper. " * 2 + "</p>"
    heads = ["H. Aitch", "I. Iota", "J. Jay", "V. Vee", "W. Double"]
    page = tmp_path / "lettered.html"
    page.write_text(
        "<html><body>" + "".join(f"<h2>{h}</h2>{body}" for h in heads) + "</body></html>", encoding="utf-8"
    )
    records = chunk_file(page, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    assert [r["metadata"]["section_path"] for r in records] == [[h] for h in heads]


def test_roman_numbered_headings_follow_each_other() -> None:
    """``II.``, ``III.``, ``IV.`` number a paper's parts as ``I.`` and ``V.`` do."""
    text = (
        "I. Introduction\nThis paper sets out the proposal.\nII. Background\nThe scheme began in 2014.\n"
        "III. The Proposal\nFees rise by 5%.\nIV. Consultation\nTwo panels were consulted.\n"
    )
    sections = detect_structure(DocumentText.from_pages([_page(text)]))
    assert [s.heading for s in sections] == [
        "I. Introduction",
        "II. Background",
        "III. The Proposal",
        "IV. Consultation",
    ]


def test_a_paper_titled_as_an_faq_that_pairs_nothing_gets_a_warning(tmp_path: Path) -> None:
    """Questions run into their answers in plain paragraphs: no label, no heading, no pair.
    The page calls itself ``Frequently Asked Questions``, so the guard says so."""
    page = tmp_path / "faq_plain.html"
    page.write_text(
        "<html><body><h1>Frequently Asked Questions on Paternity Leave</h1>"
        "<p>Who is entitled to paternity leave? A male employee employed under a continuous contract.</p>"
        "<p>How many days of leave? Five days for each confinement of his spouse or partner.</p></body></html>",
        encoding="utf-8",
    )
    coverage = coverage_of(*_final_sections(page))
    assert (coverage.labels_seen, coverage.pairs_made, coverage.ok) == (0, 0, False)
    assert (
        coverage.message
        == "0 question labels seen, 0 pairs made; titled as questions and answers (Frequently Asked Questions on Paternity Leave)"
    )
    assert coverage_of(*_final_sections(UNLABELLED_FAQ)).ok, "the same title over pairs made is fine"


def test_guard_counts_a_list_of_questions_once_and_names_the_unpaired() -> None:
    text = "問1. 甲？\n問2. 乙？\n問1. 甲？\n答1. 是。\n問2. 乙？\n答2. 否。\nQ3. Why?\n"
    assert set(question_labels(text)) == {"1", "2", "Q3"}
    doc = DocumentText.from_pages([_page(text)])
    coverage = coverage_of(doc.text, detect_structure(doc))
    assert (coverage.labels_seen, coverage.pairs_made, coverage.unpaired_labels) == (3, 2, ["Q3. Why?"])
    assert not coverage.ok


def _page(text: str) -> Page:
    return Page(number=1, raw=text, cleaned=text)


def test_pages_label_coverage_matches_the_pairs_of_a_faq() -> None:
    _, pages = text_pages(read_source(TC_FAQ))
    text, sections = _sections(TC_FAQ)
    coverage = page_label_coverage(pages, sections)
    assert (coverage.labels_seen, coverage.pairs_made, coverage.ok) == (5, 5, True)


# -- bad pages ------------------------------------------------------------------------------------
DEEP = "HTML nested over 255 elements deep: the parser drops the text below that depth"
BAD_PAGES = [
    (
        "picture.html",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,
        "not an HTML page (binary content)",
    ),
    (
        "blank.html",
        b"<html><head><title>Notice</title><script>var a = 1;</script></head><body>\n \n</body></html>",
        "empty HTML page (no text)",
    ),
    (
        "missing.htm",
        b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>",
        "an error page, not a paper (404 Not Found)",
    ),
    (
        "stub.html",
        b"<html><body><p>Loading...</p></body></html>",
        "no text content in the HTML page (10 characters)",
    ),
    # libxml2 drops text nested over 255 elements deep: said, not read as empty or in part
    (
        "deep.html",
        b"<html><body>"
        + b"<div>" * 300
        + b"<p>Q1. Why?</p><p>A1. Because the rule says so.</p>"
        + b"</div>" * 300
        + b"</body></html>",
        DEEP,
    ),
    (
        "deep_in_part.html",
        b"<html><body><h1>Frequently asked questions about leave</h1>"
        + b"<div>" * 300
        + b"<p>Q1. Why?</p>"
        + b"</div>" * 300
        + b"</body></html>",
        DEEP,
    ),
]


@pytest.mark.parametrize(("name", "data", "reason"), BAD_PAGES, ids=[b[0] for b in BAD_PAGES])
def test_bad_pages_are_document_errors_with_the_reason(
    name: str, data: bytes, reason: str, tmp_path: Path
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(DocumentError) as error:
        extract_document(read_source(path))
    assert error.value.reason == reason and str(error.value) == f"{path}: {reason}"


# -- the real pages (skipped without the shared corpus) ---------------------------------------------
def _real(name: str) -> Path:
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"shared corpus not present ({path})")
    return path


@pytest.mark.parametrize("name", ["legco/hansard_20150429-e.html", "legco/hansard_20150429-c.html"])
def test_real_html_hansards_are_chunked_by_question(name: str, tmp_path: Path) -> None:
    pairs = _pairs(_real(name), tmp_path)
    assert {p["metadata"]["question_id"] for p in pairs} == {str(n) for n in range(1, 20)}
    assert sum(p["metadata"]["has_table"] for p in pairs) >= 5, "the replies' tables come as Markdown"
    text, sections = _sections(_real(name))
    assert coverage_of(text, sections).ok


def test_real_fdh_faq_gives_its_36_pairs(tmp_path: Path) -> None:
    pairs = _pairs(_real("hkgov/fdh_faq_en.html"), tmp_path)
    assert [p["metadata"]["question_id"] for p in pairs] == [f"Q{n}" for n in range(1, 37)]
    assert pairs[0]["text"].startswith(
        "Q1. Can an employer concurrently enter into another employment contract"
    )


@pytest.mark.parametrize(
    ("name", "questions", "items"),
    [
        (
            "legco/agenda_20140709-e.html",
            22,
            ["I. Tabling of Papers", "II. Questions", "III. Bills", "IV. Motions", "V. Members’ Motions"],
        ),
        (
            "legco/agenda_20140430-c.html",
            18,
            ["I. 提交文件", "II. 以書面答覆的質詢", "III. 法案", "IV. 議員議案"],
        ),
    ],
)
def test_real_agendas_give_no_pairs_a_warning_and_a_section_per_question(
    name: str, questions: int, items: list[str], tmp_path: Path
) -> None:
    """The items are the agenda's headings (``II. Questions`` is a bold row of the papers'
    grid in the English page), and every question put is under its item, headed by its label."""
    assert _pairs(_real(name), tmp_path) == []
    text, sections = _sections(_real(name))
    coverage = coverage_of(text, sections)
    assert (coverage.labels_seen, coverage.pairs_made, coverage.ok) == (questions, 0, False)
    records = chunk_file(_real(name), Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
    paths = [r["metadata"]["section_path"] for r in records]
    assert list(dict.fromkeys(p[0] for p in paths if p)) == items
    asked = list(dict.fromkeys(p[1] for p in paths if len(p) == 2))
    assert len(asked) == questions and all(p[0] == items[1] for p in paths if len(p) == 2)
    assert asked[0].startswith("1. ") and asked[-1].lstrip("*").startswith(f"{questions}. ")


# -- the CLI ------------------------------------------------------------------------------------------
def test_chunk_command_reads_html_and_warns_on_unpaired_labels(tmp_path: Path) -> None:
    done = cli("chunk", str(TC_FAQ), "--strategy", "question", "--no-llm", home=tmp_path)
    assert done.returncode == 0 and done.stderr == (  # an FAQ page that prints no date says so, and only that
        f"legco-assets: warning: {TC_FAQ}: paper_date_found: no date of its own printed on its first pages "
        "(kind: faq): its chunks carry none\n"
    )
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["metadata"].get("question_id") for r in records if r["metadata"]["section_type"] == "qa"] == [
        "1",
        "2",
        "3",
        "4",
        "5",
    ]
    assert {r["metadata"]["filename"] for r in records} == {TC_FAQ.name}

    warned = cli("chunk", str(AGENDA), "--strategy", "question", "--no-llm", home=tmp_path)
    assert warned.returncode == 0 and all(json.loads(line) for line in warned.stdout.splitlines())
    assert warned.stderr == (
        f"legco-assets: warning: {AGENDA}: question_labels_paired: 3 question labels seen, 0 pairs made; "
        "without a pair: a question put without a reply ×3\n"
    )


def test_skip_links_are_furniture_whatever_their_markup() -> None:
    """A skip link jumps within the page (``href="#…"``) for keyboards and screen readers:
    it is never a line of the paper, with or without a class that names it."""
    page = read_html(
        "faq.html",
        (
            '<html><body><a href="#content">跳至主要內容</a><div><a href="#main" class="hidden">Skip to main content</a></div>'
            '<p>跳至主要內容</p><main id="content"><h1>常見問題</h1><p>問1. 何謂連續性合約？</p><p>答1. 僱員連續受僱於同一僱主四星期或以上，而每星期工作最少十八小時，即屬連續性合約。</p>'
            '<p><a href="#q2">跳至問題二</a></p></main></body></html>'
        ).encode(),
    )
    assert page.text.split("\n") == [
        "常見問題",
        "問1. 何謂連續性合約？",
        "答1. 僱員連續受僱於同一僱主四星期或以上，而每星期工作最少十八小時，即屬連續性合約。",
        "跳至問題二",
    ]


def test_ingest_of_a_folder_with_a_pdf_and_an_html_page(tmp_path: Path) -> None:
    """A PDF, an HTML page, a bad HTML page and an unsupported file: all four are reported."""
    folder = tmp_path / "inbox"
    folder.mkdir()
    english_paper(folder / "paper.pdf", "folder")
    (folder / "faq.htm").write_bytes(TC_FAQ.read_bytes())
    (folder / "bad page.html").write_bytes(BAD_PAGES[2][1])
    (folder / "figures.xls").write_bytes(b"\xd0\xcf\x11\xe0 not ours")
    done = cli("ingest", str(folder), "--strategy", "question", home=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert error_lines(done.stderr) == [
        f"legco-assets: error: {folder / 'bad page.html'}: an error page, not a paper (404 Not Found)"
    ]
    lines = done.stdout.strip().splitlines()
    assert any(
        line.startswith(f"skipped {folder / 'figures.xls'}: unsupported file type .xls") for line in lines
    ), done.stdout
    assert sum("→ partition" in line for line in lines) == 3  # the PDF, the page and the bad page were tried
    assert (
        lines[-1].startswith("ingested 2 document(s), 4 pages")
        and "failed: question 1; skipped 1;" in lines[-1]
    )
    source = json.loads((tmp_path / "data" / "documents" / "faq" / "source.json").read_text(encoding="utf-8"))
    assert (source["kind"], source["extractor"], source["pages"]) == ("html", "lxml", 1)
    chunks = [
        json.loads(line)
        for line in (tmp_path / "data" / "documents" / "faq" / "chunks-question.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    assert [c["metadata"].get("question_id") for c in chunks if c["metadata"]["section_type"] == "qa"] == [
        "1",
        "2",
        "3",
        "4",
        "5",
    ]


# -- answered questions win ------------------------------------------------------------------------
def _kinds(text: str) -> list[tuple[str, str | None]]:
    doc = DocumentText.from_pages([_page(text)])
    return [(s.type, s.qa_id) for s in detect_structure(doc)]


def test_a_list_of_questions_above_an_introduction_is_never_paired() -> None:
    """The last listed question's "answer" is the introduction: kept as narrative text."""
    text = (
        "Q1. Who is covered?\nQ2. What is the rate?\nQ3. Are interns covered?\n"
        "This page answers the questions employers ask most often about the statutory minimum wage.\n"
        "Q1. Who is covered?\nAll employees except live-in domestic workers.\n"
        "Q2. What is the rate?\nIt is 42.1 dollars per hour.\nQ3. Are interns covered?\nNo.\n"
    )
    assert _kinds(text) == [
        ("toc", None),
        ("toc", None),
        ("narrative", None),
        ("qa", "Q1"),
        ("qa", "Q2"),
        ("qa", "Q3"),
    ]


def test_a_question_asked_and_answered_twice_keeps_both_pairs() -> None:
    answer = "答：渠務署已完成改善工程，並會繼續監察排水情況。\n工程費用約為三千萬元。\n"
    text = f"(A) 排水系統\n問1：工程何時完成？\n{answer}(B) 交通\n問1：工程何時完成？\n{answer}"
    assert [k for k in _kinds(text) if k[0] == "qa"] == [("qa", "1"), ("qa", "1")]
