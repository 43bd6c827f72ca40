"""Short narrative sections under one heading joined into one chunk (chunking/short_sections.py)."""

from __future__ import annotations

import statistics
from dataclasses import replace
from pathlib import Path

import pytest

from legco_assets.core.chunking import QuestionChunkingStrategy, join_short_sections
from legco_assets.core.records import DocumentText, Page, Section

from .conftest import CORPUS

GUIDE = (
    "第五章：疾病津貼\n"
    "疾病津貼\n疾病津貼的每日款額相等於僱員每日平均工資的五分之四。\n"
    "違例與罰則\n僱主如無合理辯解而不支付疾病津貼，可被檢控。\n"
    "第六章：生育保障\n"
    "產假\n女性僱員可享有連續 14 星期的產假。\n"
    "問 1：產假薪酬怎樣計算？\n答 1：按每日平均工資的五分之四計算。\n"
    "放取產假\n僱員可選擇在預產期前 2 至 4 星期開始放產假。\n"
)


def _section(kind: str, path: list[str], first: str, last: str | None = None) -> Section:
    start = GUIDE.index(first)
    end = GUIDE.index(last or first) + len(last or first)
    return Section(kind, path[-1], path[0], 1, 1, start, end, GUIDE[start:end], path=path, level=len(path))


def _guide() -> tuple[DocumentText, list[Section]]:
    doc = DocumentText.from_pages([Page(number=1, raw=GUIDE, cleaned=GUIDE)])
    chapter5, chapter6 = "第五章：疾病津貼", "第六章：生育保障"
    sections = [
        _section("heading_only", [chapter5], chapter5),
        _section("narrative", [chapter5, "疾病津貼"], "疾病津貼\n疾病津貼的", "五分之四。"),
        _section("narrative", [chapter5, "違例與罰則"], "違例與罰則", "可被檢控。"),
        _section("heading_only", [chapter6], chapter6),
        _section("narrative", [chapter6, "產假"], "產假\n女性", "產假。"),
        _section("qa", [chapter6], "問 1", "計算。\n"),
        _section("narrative", [chapter6, "放取產假"], "放取產假", "放產假。"),
    ]
    return doc, sections


def test_short_sections_under_one_chapter_join_with_the_chapter_as_their_path() -> None:
    doc, sections = _guide()
    joined = join_short_sections(sections, doc, 500)
    assert [s.type for s in joined] == ["narrative", "narrative", "qa", "narrative"]
    first = joined[0]
    assert first.path == ["第五章：疾病津貼"] and first.heading == "第五章：疾病津貼" and first.level == 1
    assert first.text == GUIDE[: GUIDE.index("第六章")].rstrip("\n")
    assert (first.char_start, first.char_end) == (sections[0].char_start, sections[2].char_end)
    # the next chapter starts a run of its own, which a pair ends
    assert joined[1].path == ["第六章：生育保障"] and joined[1].text.startswith("第六章：生育保障\n產假\n")
    assert joined[2] is sections[5] and joined[3] is sections[6], (
        "one narrative section after a pair has nothing to join"
    )


def test_a_heading_at_the_end_of_a_run_stays_out_of_it() -> None:
    doc, sections = _guide()
    sub_heading = replace(sections[2], type="heading_only")
    assert join_short_sections([sections[1], sub_heading, sections[4]], doc, 500) == [
        sections[1],
        sub_heading,
        sections[4],
    ]


def test_the_budget_is_a_setting_off_by_default() -> None:
    from legco_assets.core.settings import Settings
    from legco_assets.defs.assets import ChunkingConfig

    assert Settings().section_join_tokens == 0 and Settings.from_env({}).section_join_tokens == 0
    assert Settings.from_env({"SECTION_JOIN_TOKENS": "500"}).section_join_tokens == 500
    assert ChunkingConfig(section_join_tokens=300).apply(Settings()).section_join_tokens == 300


def test_a_budget_of_zero_or_a_section_that_fills_it_changes_nothing() -> None:
    doc, sections = _guide()
    assert join_short_sections(sections, doc, 0) is sections
    assert join_short_sections(sections, doc, 10) == sections, "every section is over 10 tokens"


def test_joined_chunks_keep_the_sub_headings_in_their_text() -> None:
    doc, sections = _guide()
    chunks = QuestionChunkingStrategy(join_tokens=500).chunk_text("guide", doc, sections)
    narrative = [c for c in chunks if c.section_type == "narrative"]
    assert narrative[0].text.startswith("第五章：疾病津貼\n疾病津貼\n疾病津貼的每日款額")
    assert "違例與罰則\n僱主如無合理辯解" in narrative[0].text
    assert narrative[0].section_path == ["第五章：疾病津貼"]
    plain = QuestionChunkingStrategy().chunk_text("guide", doc, sections)
    assert len([c for c in plain if c.section_type == "narrative"]) == len(narrative) + 1


@pytest.mark.skipif(
    not (CORPUS / "hkgov/ld_EO_concise_guide_tc.pdf").exists(), reason="real corpus not present"
)
def test_the_chinese_employment_guide_gets_chunks_of_a_useful_size(tmp_path: Path) -> None:
    from legco_assets.core.pipeline import chunk_file
    from legco_assets.core.settings import Settings, Strategy

    paper = CORPUS / "hkgov/ld_EO_concise_guide_tc.pdf"
    settings = Settings(data_dir=tmp_path)
    by_heading = chunk_file(paper, Strategy.question, settings.with_(section_join_tokens=0), use_llm=False)
    joined = chunk_file(paper, Strategy.question, settings.with_(section_join_tokens=500), use_llm=False)
    # half its headings hold a sentence or two (about 200 characters since its table rows'
    # cells stopped being headings)
    assert statistics.median(len(r["text"]) for r in by_heading) < 250
    assert statistics.median(len(r["text"]) for r in joined) > 300
    assert len(joined) < 0.7 * len(by_heading)
    assert all(r["metadata"]["token_count"] <= 1000 for r in joined)
    pages = {p for r in by_heading for p in range(r["page_number"], r["metadata"]["page_end"] + 1)}
    assert pages == {p for r in joined for p in range(r["page_number"], r["metadata"]["page_end"] + 1)}
