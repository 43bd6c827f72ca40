"""LegCo's own list of a meeting's questions as a check on every Hansard the feed brings.

The local OData server serves the Hansard fixture (``fixtures/hansard/hansard_annex_zh.pdf``:
oral questions 1 and 2, written question 3) with its meeting's ``Questions`` records in the
published shape; the feed fetches both, and ``document_structure`` matches them.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import dagster as dg

from legco_assets.core import pipeline
from legco_assets.core.artifacts import Artifacts
from legco_assets.core.records import ChunkRecord, DocumentText, Page
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex, poll
from legco_assets.core.structure import (
    OFFICIAL_CHECK,
    detect_structure,
    match_official_questions,
    official_records,
)

from .conftest import TESTS
from .factories import feed_settings
from .odata_server import QUESTIONS_PATH, FakeHansardServer, Fault

PAPER = TESTS / "fixtures" / "hansard" / "hansard_annex_zh.pdf"
DAY = "2025-05-14"
# (type, subject, speaker, SpeakerID, RundownID): the fixture's questions as LegCo lists them
OFFICIAL = [
    ("Oral", "長者醫療券", "陳家樂議員", 301, 9001),
    ("Oral", "公共圖書館服務", "李慧琼議員", 302, 9002),
    ("Written", "海濱長廊的管理", "謝偉俊議員", 303, 9003),
]


def _serve(server: FakeHansardServer, extra: list[tuple[str, str, str, int, int]] = ()) -> None:
    url = server.add_record("7001", DAY, "Chinese", PAPER.read_bytes())
    server.add_record(
        "7002", DAY, "English", None, name="english-missing.pdf"
    )  # another paper of the day, not fetched
    for question in [*OFFICIAL, *extra]:
        server.add_question("7001", DAY, "Chinese", *question, file_url=url)
    server.add_question(
        "7002", DAY, "English", "Oral", "Elderly Health Care Vouchers", "Mr CHAN Ka-lok", 301, 9001
    )


def _ingest(settings: Settings) -> tuple[dict[str, Any], list[ChunkRecord]]:
    """The fetched paper through source, text, structure and question chunks."""
    [path] = sorted(settings.inbox.glob("*.pdf"))
    document_id = DocumentIndex(settings.documents_dir).register(path)
    pipeline.stage_source(settings, document_id)
    pipeline.stage_page_text(settings, document_id)
    pipeline.stage_structure(settings, document_id)
    records = pipeline.stage_chunks(settings, document_id, Strategy.question).records
    return Artifacts(settings, document_id).read_json("structure.json"), records


def test_the_feed_keeps_the_meetings_question_records_with_the_paper(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    _serve(odata_server)
    settings = feed_settings(odata_server, tmp_path)
    result = poll(settings, since=date(2025, 5, 1), types=("Chinese",))
    assert [f.record.hansard_id for f in result.fetched] == ["7001"] and not result.failed
    first, second = (
        odata_server.questions_queries
    )  # 3 records, 2 a page: paged by nextLink like the Hansard records
    assert (
        first["$filter"] == f"MeetingDate eq datetime'{DAY}T00:00:00' and HansardType eq 'Chinese'"
        and second["$skip"] == "2"
    )
    state = json.loads((settings.feed_dir / "state.json").read_text(encoding="utf-8"))
    kept = state["records"]["7001"]["questions"]
    assert [
        (q["question_type"], q["subject"], q["speaker"], q["speaker_id"], q["rundown_id"]) for q in kept
    ] == OFFICIAL


def test_every_official_question_is_matched_and_its_chunks_carry_the_record(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    _serve(odata_server)
    settings = feed_settings(odata_server, tmp_path)
    poll(settings, since=date(2025, 5, 1), types=("Chinese",))
    structure, records = _ingest(settings)
    report = structure["official_questions"]
    assert (
        report["evaluated"]
        and report["official"] == 3
        and report["unmatched"] == []
        and report["extra"] == []
    )
    assert [(m["question_id"], m["how"]) for m in report["matched"]] == [
        ("1", "subject and asker"),
        ("2", "subject and asker"),
        ("3", "subject and asker"),
    ]
    by_question = {r.metadata.question_id: r.metadata for r in records}
    for number, (_, subject, _, speaker_id, rundown_id) in zip("123", OFFICIAL):
        meta = by_question[number]
        assert (meta.official_subject, meta.speaker_id, meta.rundown_id) == (subject, speaker_id, rundown_id)
    assert "official_subject" not in by_question["1-S1"].to_json(), "a supplementary is no official question"


def test_an_extra_record_served_fails_the_check_and_is_named(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    _serve(odata_server, extra=[("Oral", "小型屋宇政策", "劉業強議員", 304, 9004)])
    settings = feed_settings(odata_server, tmp_path)
    poll(settings, since=date(2025, 5, 1), types=("Chinese",))
    structure, _ = _ingest(settings)
    check = pipeline_check(structure)
    assert (
        not check.passed
        and "小型屋宇政策" in check.description
        and "3 of 4 official questions matched" in check.description
    )
    assert (
        check.details["unmatched_subjects"] == ["Oral 小型屋宇政策 (劉業強議員)"]
        and check.details["extra"] == 0
    )


def test_a_question_missing_from_the_structure_fails_the_check_and_is_named() -> None:
    text = PAPER_TEXT
    doc = DocumentText.from_pages([Page(1, text, text)])
    sections = [s for s in detect_structure(doc) if s.qa_id != "3"]  # the rules lost the written question
    records = [
        dict(zip(("question_type", "subject", "speaker", "speaker_id", "rundown_id"), q)) for q in OFFICIAL
    ]
    result = match_official_questions(sections, records)
    check = result.check()
    assert not check.passed and check.name == OFFICIAL_CHECK
    assert (
        check.details["unmatched_subjects"] == ["Written 海濱長廊的管理 (謝偉俊議員)"]
        and check.details["matched"] == 2
    )
    every = match_official_questions(detect_structure(doc), records)
    assert every.passed and len(every.matched) == 3
    extra = match_official_questions(detect_structure(doc), records[:2])
    assert not extra.passed and extra.extra == ["3"], "a question LegCo does not list is named too"


def test_english_records_match_by_subject_and_asker_with_titles_and_full_names() -> None:
    text = PAPER_TEXT_EN
    doc = DocumentText.from_pages([Page(1, text, text)])
    records = [
        {
            "question_type": "Oral",
            "subject": "Elderly Health Care Vouchers",
            "speaker": "Hon CHAN Ka-lok",
            "speaker_id": 301,
            "rundown_id": 1,
        },
        {
            "question_type": "Written",
            "subject": "Management of harbourfront promenades",
            "speaker": "Hon Tommy CHEUNG Yu-yan",
            "speaker_id": 303,
            "rundown_id": 3,
        },
        {
            "question_type": "Oral",
            "subject": "Opening hours of public libraries",
            "speaker": "Hon Starry LEE Wai-king",
            "speaker_id": 302,
            "rundown_id": 2,
        },
    ]
    result = match_official_questions(detect_structure(doc), records)
    assert result.passed and [(m["question_id"], m["how"]) for m in result.matched] == [
        ("1", "subject and asker"),
        ("2", "asker"),
        ("3", "subject and asker"),
    ]


def test_without_records_the_check_is_skipped_and_says_why() -> None:
    doc = DocumentText.from_pages([Page(1, PAPER_TEXT, PAPER_TEXT)])
    not_from_feed = match_official_questions(detect_structure(doc), *official_records(None)).check()
    assert not_from_feed.passed and not_from_feed.details == {
        "evaluated": False,
        "reason": "no official question records: the paper did not come from LegCo's feed",
    }
    none_listed = match_official_questions(
        detect_structure(doc), *official_records({"hansard_id": "1", "questions": []})
    ).check()
    assert none_listed.passed and "lists no questions for this meeting" in none_listed.description
    not_yet = match_official_questions(detect_structure(doc), *official_records({"hansard_id": "1"})).check()
    assert not_yet.passed and "asks again next poll" in not_yet.description


def test_a_failed_questions_request_is_reported_and_asked_again_next_poll(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    _serve(odata_server)
    odata_server.fault(QUESTIONS_PATH, *[Fault.status(500)] * 3)
    settings = feed_settings(odata_server, tmp_path)
    first = poll(settings, since=date(2025, 5, 1), types=("Chinese",))
    assert [f.record.hansard_id for f in first.fetched] == ["7001"]
    assert [f.reason for f in first.failed] == [
        "official question records of HansardID 7001: HTTP 500 Internal Server Error (3 tries)"
    ]
    second = poll(settings, since=date(2025, 5, 1), types=("Chinese",))
    assert second.fetched == [] and second.failed == []
    state = json.loads((settings.feed_dir / "state.json").read_text(encoding="utf-8"))
    assert len(state["records"]["7001"]["questions"]) == 3


def test_dagster_shows_the_check_on_document_structure(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    from legco_assets.defs.assets import document_structure, page_text, source_document
    from legco_assets.defs.partitions import documents_partitions
    from legco_assets.defs.resources import LegcoSettings, LLMResource

    _serve(odata_server, extra=[("Written", "小型屋宇政策", "劉業強議員", 304, 9004)])
    settings = feed_settings(odata_server, tmp_path)
    poll(settings, since=date(2025, 5, 1), types=("Chinese",))
    [path] = sorted(settings.inbox.glob("*.pdf"))
    key = DocumentIndex(settings.documents_dir).register(path)
    resources = {
        "legco": LegcoSettings(data_dir=str(settings.data_dir), inbox=str(settings.inbox)),
        "llm": LLMResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            [source_document, page_text, document_structure],
            partition_key=key,
            instance=instance,
            resources=resources,
        )
        [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == OFFICIAL_CHECK]
        meta = result.asset_materializations_for_node("document_structure")[0].metadata
    assert result.success and not check.passed and check.severity == dg.AssetCheckSeverity.WARN
    assert check.metadata["details"].value["unmatched_subjects"] == ["Written 小型屋宇政策 (劉業強議員)"]
    assert [(a["annex"], a["answers_question_id"]) for a in meta["annexes"].value["linked"]] == [
        ("附錄I", "1-S1"),
        ("附錄II", "2-S2"),
    ]


def pipeline_check(structure: dict[str, Any]) -> Any:
    from legco_assets.core.structure import OfficialMatch

    return OfficialMatch.from_dict(structure["official_questions"]).check()


PAPER_TEXT = (
    "議員質詢的口頭答覆\n長者醫療券\n1. 陳家樂議員：主席，政府可否告知本會，會否提高醫療券金額？\n醫務衞生局局長：主席，會研究。\n"
    "周浩鼎議員：主席，會否擴展至大灣區？\n醫務衞生局局長：主席，正研究。\n主席：第二項質詢。\n"
    "公共圖書館服務\n2. 李慧琼議員：主席，圖書館會否延長開放時間？\n民政及青年事務局局長：主席，會。\n"
    "議員質詢的書面答覆\n海濱長廊的管理\n3. 謝偉俊議員：主席，海濱長廊由哪個部門清潔？\n發展局局長：主席，由食物環境衞生署負責。\n"
    "下次會議\n主席：我現在宣布休會。"
)
PAPER_TEXT_EN = (
    "ORAL ANSWERS TO QUESTIONS\nElderly Health Care Vouchers\n1. MR CHAN KA-LOK (in Cantonese): President, will the Government raise the amount?\n"
    "SECRETARY FOR HEALTH (in Cantonese): President, we will study it.\n"
    "Public Library Services\n2. MS STARRY LEE (in Cantonese): President, will libraries open longer?\n"
    "SECRETARY FOR HOME AND YOUTH AFFAIRS (in Cantonese): President, yes.\n"
    "WRITTEN ANSWERS TO QUESTIONS\nManagement of Harbourfront Promenades\n3. MR TOMMY CHEUNG (in Cantonese): President, who cleans the promenades?\n"
    "SECRETARY FOR DEVELOPMENT (in Cantonese): President, the Food and Environmental Hygiene Department.\nNEXT MEETING\nPRESIDENT (in Cantonese): I now adjourn the Council."
)
