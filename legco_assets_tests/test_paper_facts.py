"""A paper's date, kind, paper number and committee, read from its own printed markers
(core/structure/paper_facts.py), and stamped on every chunk; the speakers' names in one form."""

from __future__ import annotations

from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.read import read_source, text_pages
from legco_assets.core.records import Page
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure.paper_facts import (
    PaperKind,
    date_line,
    date_span,
    edition_date,
    paper_number,
    parse_date,
    read_paper_profile,
    speaker_key,
    speaker_matches,
)

from .conftest import CORPUS

HTML = Path(__file__).resolve().parent / "fixtures" / "html"
HANSARD = Path(__file__).resolve().parent / "fixtures" / "hansard"


def pages_of(*texts: str) -> list[Page]:
    return [Page(i, t, t) for i, t in enumerate(texts, start=1)]


@pytest.mark.parametrize(
    "text, value, precision",
    [
        ("2012年11月21日星期三", "2012-11-21", "day"),
        ("立法會  ─  2013年 2月 21日", "2013-02-21", "day"),
        ("二零二四年二月二十八日", "2024-02-28", "day"),
        ("二〇一九年十月十六日（星期三）", "2019-10-16", "day"),
        ("Wednesday, 21 November 2012", "2012-11-21", "day"),
        ("9 January 2013", "2013-01-09", "day"),
        ("November 21, 2012", "2012-11-21", "day"),
        ("April 2026 Edition", "2026-04", "month"),
        ("2026 年 4 月", "2026-04", "month"),
    ],
)
def test_dates_at_the_precision_printed(text: str, value: str, precision: str) -> None:
    found = parse_date(text)
    assert found is not None and (found.value, found.precision) == (value, precision)


def test_edition_lines_at_their_precision() -> None:
    assert edition_date("April 2026 Edition").value == "2026-04"
    assert edition_date("本版定稿於 2025 年 12 月，指南內容或會因應需要不時作出修訂").value == "2025-12"
    found = edition_date("2019 Edition")
    assert found is not None and (found.value, found.precision) == ("2019", "year")
    assert edition_date("2019年版").value == "2019"
    assert edition_date("The 2019 figures") is None


def test_a_date_line_is_a_date_alone_not_one_inside_a_sentence() -> None:
    assert date_line("2014年4月30日星期三上午11時正").value == "2014-04-30"  # an agenda's meeting
    assert date_line("Wednesday 9 July 2014 at 11:00 am").value == "2014-07-09"
    assert date_line("立法會 ─ 2012年11月21日").value == "2012-11-21"  # a Hansard's running header
    assert date_line("本會在2025年5月21日星期三上午11時正續會。") is None  # the next meeting's
    assert date_line("Wednesday, 21 May 2025.") is None  # the end of a sentence
    assert date_line("2025年13月1日") is None  # no such month


def test_date_spans_and_bad_dates() -> None:
    assert [str(d) for d in date_span("2024-02")] == ["2024-02-01", "2024-02-29"]
    assert [str(d) for d in date_span("2019")] == ["2019-01-01", "2019-12-31"]
    for bad in ("2024-2-1", "yesterday", "2024-02-30", "2024-13"):
        with pytest.raises(ValueError):
            date_span(bad)


def test_paper_numbers_in_one_form() -> None:
    assert paper_number("立法會CB(3)641/2026(02)號文件") == "CB(3)641/2026(02)"
    assert paper_number("LC Paper No. CB(2)1234/2025(03)") == "CB(2)1234/2025(03)"
    assert paper_number("LC Paper No. CB(2) 456/12-13(1)") == "CB(2)456/12-13(01)"
    # another paper's number cited in a sentence is not this paper's stamp
    assert paper_number("(隨立法會CB(3) 566/13-14及CB(3) 573/13-14號文件發出)") is None


def test_speaker_names_in_one_form() -> None:
    assert speaker_key("林健鋒議員, G.B.S., J.P.") == speaker_key("林健鋒議員") == "林健鋒"
    assert speaker_key("MR JEFFREY LAM (in Chinese)") == "jeffrey lam"
    assert speaker_key("THE HONOURABLE JEFFREY LAM KIN-FUNG, G.B.S., J.P.") == "jeffrey lam kin-fung"
    assert speaker_key("Dr the Hon Lau Wong-fat, G.B.M., G.B.S., J.P.") == "lau wong-fat"
    assert speaker_key("劉皇發議員, 大紫荊勳賢, G.B.S., J.P.") == "劉皇發"
    assert speaker_matches("Hon Jeffrey Lam", "jeffrey lam kin-fung")
    assert speaker_matches("林健鋒", "林健鋒")
    assert not speaker_matches("林健", "林健鋒")


def test_generated_papers() -> None:
    hansard = read_paper_profile(
        pages_of("立法會 ─ 2024年2月28日\n1\n會議過程正式紀錄\n二零二四年二月二十八日星期三\n出席議員：")
    )
    assert (hansard.kind, hansard.date, hansard.date_precision) == ("hansard", "2024-02-28", "day")
    budget = read_paper_profile(
        pages_of(
            "二零二五至二六年度\n財政預算案\n財政司司長\n陳茂波\n二零二五年二月二十六日", "引言\n1. 主席，"
        )
    )
    assert (budget.kind, budget.date, budget.date_precision) == ("speech", "2025-02-26", "day")
    paper = read_paper_profile(
        pages_of(
            "LC Paper No. CB(2)1234/2025(03)\nLegislative Council Panel on Manpower\n"
            "Employment of young people\nPurpose\nThis paper briefs Members on …\n",
            "Labour and Welfare Bureau\nJanuary 2025",
        )
    )
    assert (paper.kind, paper.paper_number, paper.committee) == (
        "committee_paper",
        "CB(2)1234/2025(03)",
        "Panel on Manpower",
    )
    assert paper.date == "2025-01"
    # LegCo's open data wins: the feed's meeting date is the sitting's
    fed = read_paper_profile(
        pages_of("OFFICIAL RECORD OF PROCEEDINGS\nWednesday, 21 November 2012"),
        {
            "meeting_date": "2012-11-22",
            "hansard_type": "English",
        },
    )
    assert (fed.kind, fed.date, fed.date_source) == ("hansard", "2012-11-22", "open data")


def test_fixture_papers_dated_or_warned(settings: Settings) -> None:
    """The fixture Hansard prints no sitting date (the next meeting's date is not its own):
    it gets none, its chunks carry none, and ``paper_date_found`` warns, never fails it."""
    paper = chunk_paper(HANSARD / "hansard_annex_zh.pdf", Strategy.question, settings, use_llm=False)
    assert all(r.metadata.kind == "hansard" and r.metadata.date is None for r in paper.records)
    check = next(c for c in paper.checks if c.name == "paper_date_found")
    assert not check.passed and not check.blocking and "no date" in check.description
    agenda = chunk_paper(
        HTML / "council_agenda_questions_en.html", Strategy.question, settings, use_llm=False
    )
    assert {r.metadata.date for r in agenda.records} == {"2024-06-12"}
    assert {r.metadata.kind for r in agenda.records} == {PaperKind.agenda.value}
    records = chunk_paper(
        HTML / "lcq_public_housing_tc.html", Strategy.question, settings, use_llm=False
    ).records
    asked = [r.metadata for r in records if r.metadata.asker]
    assert all(m.asker_name == speaker_key(m.asker) for m in asked)


REAL = {
    "legco/hansard_20121121_translate-c.pdf": ("hansard", "2012-11-21", "day"),
    "legco/hansard_20150429-c.html": ("hansard", "2015-04-29", "day"),
    "legco/hansard_20150429-e.html": ("hansard", "2015-04-29", "day"),
    "legco/session1213/12-13-cm0221-translate-c.txt": ("hansard", "2013-02-21", "day"),
    "legco/session1213/12-13-cm0605-translate-c.txt": ("hansard", "2013-06-05", "day"),
    "legco/agenda_20140709-e.html": ("agenda", "2014-07-09", "day"),
    "legco/agenda_20140430-c.html": ("agenda", "2014-04-30", "day"),
    "legco/cb3-634-2026-01_submission-c.pdf": ("submission", "2026-06-04", "day"),
    "legco/cb3-641-2026-02_scanned-c.pdf": ("committee_paper", None, None),
    "hkgov/ld_ECO_guide_with_FAQ_en.pdf": ("guide", "2026-04", "month"),
    "hkgov/ld_EO_concise_guide_en.pdf": ("guide", "2025-12", "month"),
    "hkgov/ld_EO_concise_guide_tc.pdf": ("guide", "2025-12", "month"),
    "hkgov/fdh_faq_en.html": ("faq", None, None),
    "hkgov/budget_2020-21_media_sheets_en.pdf": ("other", None, None),
}


def test_real_corpus_papers() -> None:
    """Every paper of the shared corpus at hand: its kind and date as it prints them (the
    suite passes without the corpus; these run wherever it is)."""
    present = {name: want for name, want in REAL.items() if (CORPUS / name).exists()}
    for name, want in present.items():
        _, pages = text_pages(read_source(CORPUS / name))
        got = read_paper_profile(pages)
        assert (got.kind, got.date, got.date_precision) == want, name
    if (CORPUS / "legco/cb3-634-2026-01_submission-c.pdf").exists():
        _, pages = text_pages(read_source(CORPUS / "legco/cb3-634-2026-01_submission-c.pdf"))
        got = read_paper_profile(pages)
        assert (got.paper_number, got.committee) == (
            "CB(3)634/2026(01)",
            "與規管網約車服務有關的4項附屬法例小組委員會",
        )


def test_the_graph_shows_the_papers_facts_and_warns_without_a_date(tmp_path: Path) -> None:
    """``document_structure`` shows the paper's date, kind (and number, committee) and runs
    ``paper_date_found``: passed for the dated agenda, a WARN for the undated FAQ; the chunks
    carry the date and the ``chunks`` preview shows it."""
    import json

    import dagster as dg

    from legco_assets.core.sources import DocumentIndex
    from legco_assets.defs.assets import ALL_ASSETS
    from legco_assets.defs.jobs import strategy_run_config
    from legco_assets.defs.partitions import documents_partitions

    from .runs import dagster_resources

    data = tmp_path / "data"
    index = DocumentIndex(data / "documents")
    agenda = index.register(HTML / "council_agenda_questions_en.html")
    faq = index.register(HTML / "ld_faq_annual_leave_tc.html")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [agenda, faq])
        seen = {}
        for key in (agenda, faq):
            result = dg.materialize(
                ALL_ASSETS,
                partition_key=key,
                instance=instance,
                resources=dagster_resources(data),
                run_config=strategy_run_config(Strategy.question, None),
            )
            structure = result.asset_materializations_for_node("document_structure")[0].metadata
            chunks = result.asset_materializations_for_node("chunks")[0].metadata
            check = next(
                c for c in result.get_asset_check_evaluations() if c.check_name == "paper_date_found"
            )
            seen[key] = (structure, chunks, check)
    structure, chunks, check = seen[agenda]
    assert (structure["paper_date"].value, structure["paper_kind"].value) == ("2024-06-12", "agenda")
    assert check.passed and "| date |" in chunks["preview"].value and "2024-06-12" in chunks["preview"].value
    records = (data / "documents" / agenda / "chunks-question.jsonl").read_text(encoding="utf-8").splitlines()
    assert {json.loads(line)["metadata"]["date"] for line in records} == {"2024-06-12"}
    structure, chunks, check = seen[faq]
    assert (structure["paper_date"].value, structure["paper_kind"].value) == ("none printed", "faq")
    assert not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert "no date of its own" in check.description


def test_real_hansards_name_one_member_one_way(settings: Settings) -> None:
    """The same sitting's English and Chinese records: each asker's name loses its title and
    language note (``MR JEFFREY LAM (in Chinese)`` -> ``jeffrey lam``, ``林健鋒議員`` -> ``林健鋒``),
    and every chunk carries the sitting's date."""
    pairs = {"legco/hansard_20150429-e.html": "jeffrey lam", "legco/hansard_20150429-c.html": "林健鋒"}
    for name, member in pairs.items():
        if not (CORPUS / name).exists():
            continue
        records = chunk_paper(CORPUS / name, Strategy.question, settings, use_llm=False, check=False).records
        assert {r.metadata.date for r in records} == {"2015-04-29"}
        names = {r.metadata.asker_name for r in records if r.metadata.asker}
        assert member in names
        assert not any(n.startswith(("mr ", "dr ", "ms ", "mrs ")) or n.endswith("議員") for n in names)


def test_chunk_summaries_with_an_llm_cached_by_text(llm_server, tmp_path: Path) -> None:
    """With ``QA_CHUNK_SUMMARIES`` and an LLM, each chunk gets one or two sentences asked in
    its paper's language; a second run asks nothing (cached by the chunk's text); without an
    LLM, or with the setting off, no chunk has a summary."""
    from .llm_server import message_text

    asked: list[str] = []

    def reply(messages: list[dict]) -> str:
        text = message_text(messages)
        asked.append(text)
        return "這段講述最低工資的檢討。" if "繁體中文" in text else "The passage is about the minimum wage."

    llm_server.responder = reply
    paper = tmp_path / "hansard-zh.txt"
    paper.write_text(
        "立法會 ─ 2013年1月9日\n\n會議過程正式紀錄\n\n2013年1月9日星期三\n\n議員質詢的書面答覆\n\n最低工資的檢討\n\n"
        "1. 林健鋒議員：主席，政府可否告知本會，最低工資的檢討何時完成？\n\n"
        "勞工及福利局局長：主席，最低工資委員會會在今年內完成檢討。\n",
        encoding="utf-8",
    )
    settings = llm_server.settings(tmp_path / "data", chunk_summaries=True, qa_vision_enabled=False)
    records = chunk_paper(paper, Strategy.question, settings, use_llm=True, check=False).records
    assert records and {r.metadata.summary for r in records} == {"這段講述最低工資的檢討。"}
    assert len(asked) == len({r.text for r in records}) and all("繁體中文" in a for a in asked)
    again = chunk_paper(paper, Strategy.question, settings, use_llm=True, check=False).records
    assert [r.metadata.summary for r in again] == [r.metadata.summary for r in records]
    assert len(asked) == len({r.text for r in records})  # every reply from the cache
    off = llm_server.settings(tmp_path / "data", qa_vision_enabled=False)
    plain = chunk_paper(paper, Strategy.question, off, use_llm=True, check=False).records
    assert all(r.metadata.summary is None and "summary" not in r.to_json()["metadata"] for r in plain)
    assert [r.text for r in plain] == [r.text for r in records]  # the chunks are the same
