"""Chinese and English versions of one paper: pairing documents, linking chunks, search and UI."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from legco_assets.core import pipeline
from legco_assets.core.read import detect_language, read_source, text_pages
from legco_assets.core.records import ChunkRecord, DocumentText
from legco_assets.core.search import (
    DEFAULT_FUSION,
    Retriever,
    answer_question,
    in_language_of,
    open_collection,
    stored_chunks,
    stored_versions,
)
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex, counterpart_candidate, counterpart_metadata
from legco_assets.core.sources import counterparts as cp
from legco_assets.core.structure import find_structure

from .conftest import CORPUS, SAMPLES, TESTS
from .factories import chunk_record

PAIRS = TESTS / "fixtures" / "counterparts"


def _ingest(
    settings: Settings,
    path: Path,
    strategies: tuple[Strategy, ...] = (Strategy.question,),
    tables: bool = True,
) -> str:
    """Every stage of the pipeline for one file, as the asset graph runs them (``tables``:
    with the geometric table stage, which long real PDFs spend most of their time in and
    which changes no question id)."""
    key = DocumentIndex(settings.documents_dir).register(path)
    pipeline.stage_source(settings, key)
    pipeline.stage_page_text(settings, key)
    pipeline.stage_structure(settings, key)
    if tables:
        pipeline.stage_tables(settings, key)
    collection = open_collection(settings)
    for strategy in strategies:
        pipeline.stage_chunks(settings, key, strategy)
        pipeline.stage_vector_index(settings, key, strategy, collection)
    return key


def _stored(settings: Settings, document_id: str, strategy: str = "question") -> list[ChunkRecord]:
    where = {"$and": [{"document_id": document_id}, {"strategy_type": strategy}, {"is_latest_version": True}]}
    return sorted(stored_chunks(open_collection(settings), where), key=lambda c: c.metadata.chunk_index)


def _unlinked(chunk: ChunkRecord) -> bool:
    """No counterpart key in the chunk's record (absent, not empty)."""
    return not set(cp.COUNTERPART_KEYS) & set(chunk.metadata.to_json())


def _assert_qa_linked(settings: Settings, a: str, b: str) -> int:
    """Every Q&A chunk of ``a`` points at ``b``'s chunk of the same question id (and part)."""
    theirs = {c.id: c.metadata for c in _stored(settings, b)}
    qa = [c for c in _stored(settings, a) if c.metadata.section_type == "qa"]
    assert qa
    for chunk in qa:
        meta = chunk.metadata
        assert meta.counterpart_document_id == b
        other = theirs[str(meta.counterpart_id)]
        assert cp.normalise_id(str(other.question_id)) == cp.normalise_id(str(meta.question_id))
        if meta.part and other.part:
            assert other.part == min(meta.part, other.parts or 0)
    return len(qa)


def _profile(path: Path, settings: Settings) -> cp.Profile:
    _, pages = text_pages(read_source(path))
    text = DocumentText.from_pages(pages).text
    ids = [s.qa_id or "" for s in find_structure(pages, settings).sections if s.type == "qa"]
    return cp.profile_of(text, detect_language(text), ids)


# -- names and content ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, expected",
    [
        ("hansard_20150429-e.html", ("hansard_20150429", "en")),
        ("hansard_20150429-c.html", ("hansard_20150429", "zh")),
        ("ld_continuous_contract_FAQ_tc.pdf", ("ld_continuous_contract_faq", "zh")),
        ("ld_EO_concise_guide_en.pdf", ("ld_eo_concise_guide", "en")),
        ("paper-zh.docx", ("paper", "zh")),
        ("paper_chi.pdf", ("paper", "zh")),
        ("paper-eng.pdf", ("paper", "en")),
        ("ld_ECO_guide_with_FAQ_en.pdf", ("ld_eco_guide_with_faq", "en")),
        ("floor_20121121_confirm-ec.json", None),  # "ec" is no language tag
        ("sample_en_qa.pdf", None),  # the tag must end the name
    ],
)
def test_name_tags(name: str, expected: tuple[str, str] | None) -> None:
    assert cp.name_tag(name) == expected


def test_names_propose_only_the_other_language_with_the_same_base() -> None:
    others = {
        "a": "drainage_faq-c.txt",
        "b": "drainage_faq-e.txt",
        "c": "other-c.txt",
        "d": "drainage_faq_tc.pdf",
    }
    assert (
        cp.proposed_partner("drainage_faq-e.txt", {k: v for k, v in others.items() if k != "b"}) is None
    )  # two Chinese candidates
    assert cp.proposed_partner("drainage_faq-e.txt", {"a": others["a"], "c": others["c"]}) == "a"
    assert (
        cp.proposed_partner("drainage_faq-c.txt", {"c": others["c"], "d": others["d"]}) is None
    )  # same language


def test_content_confirms_a_pair_and_rejects_unrelated_papers_with_matching_suffixes(
    settings: Settings, tmp_path: Path
) -> None:
    pair = cp.confirm(
        _profile(PAIRS / "drainage_faq-e.txt", settings), _profile(PAIRS / "drainage_faq-c.txt", settings)
    )
    assert pair.paired, pair.reason
    assert pair.evidence["counterpart_question_ids_agree"] == 1.0
    assert pair.evidence["counterpart_same_meeting_date"] and pair.evidence["counterpart_same_paper_number"]

    unrelated = cp.confirm(
        _profile(PAIRS / "school_meals_en.txt", settings), _profile(PAIRS / "school_meals_tc.txt", settings)
    )
    assert not unrelated.paired and "differ" in unrelated.reason

    # two generated sample papers (one Chinese, one English, about different things), named as a pair
    zh, en = tmp_path / "sample_qa-c.pdf", tmp_path / "sample_qa-e.pdf"
    shutil.copy(SAMPLES / "sample_zh_qa.pdf", zh)
    shutil.copy(SAMPLES / "sample_en_qa.pdf", en)
    assert counterpart_candidate(str(zh), {"en": str(en)}) == ("en", None)
    samples = cp.confirm(_profile(zh, settings), _profile(en, settings))
    assert not samples.paired and samples.reason

    same_language = cp.confirm(
        _profile(PAIRS / "drainage_faq-e.txt", settings), _profile(PAIRS / "school_meals_en.txt", settings)
    )
    assert not same_language.paired and "same language" in same_language.reason


def test_a_sidecar_pairs_by_hand_or_forbids(tmp_path: Path) -> None:
    a, b, c = tmp_path / "minutes_2025.txt", tmp_path / "會議紀錄.txt", tmp_path / "x-c.txt"
    for path in (a, b, c):
        path.write_text("text", encoding="utf-8")
    assert counterpart_candidate(str(a), {"b": str(b)}) == (None, None)
    Path(str(b) + ".counterpart").write_text("minutes_2025.txt\n", encoding="utf-8")
    key, hand = counterpart_candidate(str(a), {"b": str(b)})
    assert key == "b" and hand.paired and hand.by == "hand" and ".counterpart" in hand.reason
    e = tmp_path / "x-e.txt"
    e.write_text("text", encoding="utf-8")
    assert counterpart_candidate(str(e), {"c": str(c)})[0] == "c"
    Path(str(e) + ".counterpart").write_text("none", encoding="utf-8")
    assert counterpart_candidate(str(e), {"c": str(c)}) == (None, None)


# -- chunk links -------------------------------------------------------------------------------
def _record(doc: str, index: int, section_type: str, **meta: Any) -> ChunkRecord:
    return chunk_record(
        f"{doc}:question:{index}",
        document_id=doc,
        strategy_type="question",
        section_type=section_type,
        chunk_index=index,
        **meta,
    )


def test_chunk_links_by_question_id_part_and_heading_numbering() -> None:
    en = [
        _record("en", 0, "narrative", section_heading="(1) Background"),
        _record("en", 1, "narrative", section_heading="Unnumbered remarks"),
        _record("en", 2, "qa", question_id="1"),
        _record("en", 3, "qa", question_id="1-S1"),
        _record("en", 4, "qa", question_id="2", part=1, parts=3),
        _record("en", 5, "qa", question_id="2", part=2, parts=3),
        _record("en", 6, "qa", question_id="2", part=3, parts=3),
        _record("en", 7, "qa", question_id="Q3"),
        _record("en", 8, "narrative", section_heading="Chapter 4: Rest Days"),
    ]
    zh = [
        _record("zh", 0, "narrative", section_heading="(一) 背景"),
        _record("zh", 1, "narrative", section_heading="其他"),
        _record("zh", 2, "qa", question_id="1"),
        _record("zh", 3, "qa", question_id="1-S1"),
        _record("zh", 4, "qa", question_id="2", part=1, parts=2),
        _record("zh", 5, "qa", question_id="2", part=2, parts=2),
        _record("zh", 6, "qa", question_id="3"),
        _record("zh", 7, "narrative", section_heading="第四章：休息日"),
    ]
    links = cp.chunk_links(en, zh)
    assert links == {
        "en:question:0": "zh:question:0",
        "en:question:2": "zh:question:2",
        "en:question:3": "zh:question:3",
        "en:question:4": "zh:question:4",
        "en:question:5": "zh:question:5",
        "en:question:6": "zh:question:5",  # theirs has two parts: the last one
        "en:question:7": "zh:question:6",  # Q3 is question 3
        "en:question:8": "zh:question:7",
    }
    token = [replace(r, metadata=replace(r.metadata, strategy_type="token")) for r in en]
    assert cp.chunk_links(token, zh) == {}


def test_metadata_keys_are_absent_without_a_counterpart() -> None:
    meta = {"strategy_type": "question", "counterpart_document_id": "x", "counterpart_id": "x:question:1"}
    assert cp.linked_metadata(meta, None, None) == {"strategy_type": "question"}
    assert cp.linked_metadata(meta, "y", None) == {
        "strategy_type": "question",
        "counterpart_document_id": "y",
    }


# -- the pipeline ------------------------------------------------------------------------------
def test_the_first_version_is_linked_when_the_second_arrives(settings: Settings, tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in ("drainage_faq-e.txt", "drainage_faq-c.txt", "school_meals_en.txt", "school_meals_tc.txt"):
        shutil.copy(PAIRS / name, inbox / name)
    both = (Strategy.question, Strategy.token)
    en = _ingest(settings, inbox / "drainage_faq-e.txt", both)
    assert not any(c.metadata.counterpart_document_id for c in stored_chunks(open_collection(settings)))
    assert counterpart_metadata(settings, en) == {}

    zh = _ingest(settings, inbox / "drainage_faq-c.txt", both)  # no re-run of the English paper's stages
    assert _assert_qa_linked(settings, en, zh) == 3 and _assert_qa_linked(settings, zh, en) == 3
    narrative = {c.metadata.section_heading: c.metadata.counterpart_id for c in _stored(settings, en)}
    assert (
        narrative["(1) Background"] == f"{zh}:question:1"
        and narrative["(2) Progress of works"] == f"{zh}:question:2"
    )
    assert all(c.metadata.counterpart_id is None for c in _stored(settings, en, "token"))
    assert all(c.metadata.counterpart_document_id == zh for c in _stored(settings, en, "token"))
    meta = counterpart_metadata(settings, en)
    assert (
        meta["counterpart_document_id"] == zh
        and meta["counterpart_paired"]
        and meta["counterpart_by"] == "names"
    )
    rows = [r for r in stored_versions(open_collection(settings)) if r["document_id"] in (en, zh)]
    assert rows and {r["counterpart_document_id"] for r in rows} == {en, zh}

    # an unrelated pair with matching suffixes: not paired, and the reason is recorded
    school_en = _ingest(settings, inbox / "school_meals_en.txt")
    school_zh = _ingest(settings, inbox / "school_meals_tc.txt")
    rejected = counterpart_metadata(settings, school_zh)
    assert rejected["counterpart_candidate"] == school_en and not rejected["counterpart_paired"]
    assert "differ" in rejected["counterpart_reason"]
    for doc in (school_en, school_zh):
        assert all(_unlinked(c) for c in _stored(settings, doc))

    # search brings the counterpart along, --json has it, and answer reads the question's language
    retriever = Retriever.open(settings, translate=False, rerank=False)
    hits = retriever.search("How many flooding blackspots remain?", k=3, strategy="question")
    top = hits[0]
    assert (
        top.metadata.question_id == "Q1"
        and top.counterpart is not None
        and top.counterpart.id == top.metadata.counterpart_id
    )
    assert top.to_json()["counterpart"]["document_id"] == zh
    swapped = in_language_of("北區仍有多少個水浸黑點？", hits)
    assert (
        swapped[0].record.document_id == zh
        and swapped[0].counterpart is not None
        and swapped[0].counterpart.id == top.id
    )
    assert len({h.id for h in swapped}) == len(swapped)

    class Fixed:  # the English hits above, whatever the question
        def search(self, *args: Any, **kwargs: Any) -> list:
            return hits

    asked_in_chinese = answer_question(Fixed(), "北區仍有多少個水浸黑點？", None, Strategy.question)
    assert asked_in_chinese.blocks[0].citation() == {"document_id": zh, "page": 1, "question_id": "1"}
    assert "問1" in asked_in_chinese.messages[1]["content"]
    asked_in_english = answer_question(
        Fixed(), "How many flooding blackspots remain?", None, Strategy.question
    )
    assert asked_in_english.blocks[0].citation()["document_id"] == en

    # a chunk may inherit its counterpart's rank: only in the document searched
    from dataclasses import replace

    retriever.fusion = replace(DEFAULT_FUSION, counterpart_share=0.9)
    inherited = retriever.search("How many flooding blackspots remain?", k=3, strategy="question")
    assert [h.id for h in inherited[:2]] == [top.id, top.metadata.counterpart_id]
    assert inherited[1].ranks["counterpart"] == 1 and inherited[1].score == pytest.approx(
        0.9 * inherited[0].score
    )
    only_en = retriever.search("How many flooding blackspots remain?", k=10, strategy="question", document=en)
    assert {h.record.document_id for h in only_en} == {en}


def test_a_new_version_that_contradicts_its_counterpart_unlinks_both(
    settings: Settings, tmp_path: Path
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(PAIRS / "drainage_faq-e.txt", inbox / "drainage_faq-e.txt")
    shutil.copy(PAIRS / "drainage_faq-c.txt", inbox / "drainage_faq-c.txt")
    en = _ingest(settings, inbox / "drainage_faq-e.txt")
    zh = _ingest(settings, inbox / "drainage_faq-c.txt")
    assert _assert_qa_linked(settings, en, zh)
    shutil.copy(
        PAIRS / "school_meals_tc.txt", inbox / "drainage_faq-c.txt"
    )  # a different paper under the same name
    _ingest(settings, inbox / "drainage_faq-c.txt")
    for doc in (en, zh):
        assert all(_unlinked(c) for c in _stored(settings, doc))
    assert not counterpart_metadata(settings, en)["counterpart_paired"]


def test_dagster_shows_the_counterpart_and_checks_question_counts(tmp_path: Path) -> None:
    from legco_assets.defs.assets import ALL_ASSETS, COUNTERPART_CHECK
    from legco_assets.defs.jobs import strategy_run_config
    from legco_assets.defs.partitions import documents_partitions
    from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

    data = tmp_path / "data"
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(PAIRS / "drainage_faq-e.txt", inbox / "drainage_faq-e.txt")
    shutil.copy(PAIRS / "drainage_faq-c.txt", inbox / "drainage_faq-c.txt")
    index = DocumentIndex(data / "documents")
    keys = [index.register(inbox / "drainage_faq-e.txt"), index.register(inbox / "drainage_faq-c.txt")]
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(inbox)),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, keys)
        for key in keys:
            result = dg.materialize(
                ALL_ASSETS,
                partition_key=key,
                instance=instance,
                resources=resources,
                run_config=strategy_run_config(Strategy.question),
            )
            assert result.success
        [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == COUNTERPART_CHECK]
        assert (
            check.passed
            and check.metadata["questions"].value == 3 == check.metadata["counterpart_questions"].value
        )
        meta = result.asset_materializations_for_node("vector_index")[0].metadata
        assert (
            meta["counterpart_document_id"].value == keys[0] and meta["counterpart_chunks_updated"].value > 0
        )
        observed = instance.fetch_observations(dg.AssetKey("source_document"), limit=10).records
        by_partition = {r.asset_observation.partition: r.asset_observation.metadata for r in observed}
        assert by_partition[keys[0]]["counterpart_document_id"].value == keys[1]
        assert f"partition={keys[1]}" in by_partition[keys[0]]["counterpart"].value

        # a later version of the Chinese paper with one question fewer: 2 of 3 question numbers
        # are too few for the content to confirm it, so a person pairs them by hand; the check warns
        text = (PAIRS / "drainage_faq-c.txt").read_text(encoding="utf-8")
        (inbox / "drainage_faq-c.txt").write_text(text.split("問3：")[0], encoding="utf-8")
        (inbox / "drainage_faq-c.txt.counterpart").write_text("drainage_faq-e.txt\n", encoding="utf-8")
        result = dg.materialize(
            ALL_ASSETS,
            partition_key=keys[1],
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.question),
        )
        [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == COUNTERPART_CHECK]
        assert result.success and not check.passed and check.severity == dg.AssetCheckSeverity.WARN
        assert check.description == f"question: 2 Q&A pairs here, 3 in {keys[0]}"  # its strategy first
        assert check.metadata["strategy"].value == "question"
        meta = result.asset_materializations_for_node("vector_index")[0].metadata
        assert meta["counterpart_by"].value == "hand" and "counterpart" in meta["counterpart_reason"].value
        source = dg.materialize(
            ALL_ASSETS,
            selection=["source_document"],
            partition_key=keys[0],
            instance=instance,
            resources=resources,
        )
        assert (
            source.asset_materializations_for_node("source_document")[0]
            .metadata["counterpart_document_id"]
            .value
            == keys[1]
        )


# -- the real corpus ---------------------------------------------------------------------------
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"real corpus not present at {CORPUS}")


@needs_corpus
def test_real_papers_are_paired_and_their_questions_linked(settings: Settings) -> None:
    hkgov, legco = CORPUS / "hkgov", CORPUS / "legco"
    keys = {}
    for name in (
        "ld_continuous_contract_FAQ_en.pdf",
        "ld_continuous_contract_FAQ_tc.pdf",
        "ld_ECO_guide_with_FAQ_en.pdf",
    ):
        keys[name] = _ingest(settings, hkgov / name, tables=False)
    for name in ("hansard_20150429-e.html", "hansard_20150429-c.html"):
        keys[name] = _ingest(settings, legco / name, tables=False)

    faq_en, faq_tc = keys["ld_continuous_contract_FAQ_en.pdf"], keys["ld_continuous_contract_FAQ_tc.pdf"]
    hansard_en, hansard_zh = keys["hansard_20150429-e.html"], keys["hansard_20150429-c.html"]
    assert (
        _assert_qa_linked(settings, faq_en, faq_tc) == 4 and _assert_qa_linked(settings, faq_tc, faq_en) == 4
    )
    assert (
        _assert_qa_linked(settings, hansard_en, hansard_zh) >= 19
        and _assert_qa_linked(settings, hansard_zh, hansard_en) >= 19
    )
    assert counterpart_metadata(settings, hansard_en)["counterpart_same_meeting_date"]
    eco = keys["ld_ECO_guide_with_FAQ_en.pdf"]
    assert counterpart_metadata(settings, eco) == {}
    assert all(_unlinked(c) for c in _stored(settings, eco))


@needs_corpus
def test_the_employment_ordinance_guides_are_paired(settings: Settings) -> None:
    """A guide with no Q&A: the figures in its text confirm the pair."""
    en = _profile(CORPUS / "hkgov" / "ld_EO_concise_guide_en.pdf", settings)
    tc = _profile(CORPUS / "hkgov" / "ld_EO_concise_guide_tc.pdf", settings)
    decision = cp.confirm(en, tc)
    assert decision.paired and decision.evidence["counterpart_numbers_shared"] >= cp.MIN_SHARED_NUMBERS
    assert counterpart_candidate(
        str(CORPUS / "hkgov" / "ld_EO_concise_guide_en.pdf"),
        {
            "tc": str(CORPUS / "hkgov" / "ld_EO_concise_guide_tc.pdf"),
            "eco": str(CORPUS / "hkgov" / "ld_ECO_guide_with_FAQ_en.pdf"),
        },
    ) == ("tc", None)
    budget = _profile(CORPUS / "hkgov" / "budget_2020-21_media_sheets_en.pdf", settings)
    assert not cp.confirm(tc, budget).paired  # an unrelated English paper of similar length


def test_the_commands_show_the_counterpart(
    env_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from legco_assets import cli

    settings = Settings.from_env()
    inbox = tmp_path / "papers"
    inbox.mkdir()
    for name in ("drainage_faq-e.txt", "drainage_faq-c.txt"):
        shutil.copy(PAIRS / name, inbox / name)
    en = _ingest(settings, inbox / "drainage_faq-e.txt")
    zh = _ingest(settings, inbox / "drainage_faq-c.txt")
    capsys.readouterr()

    assert (
        cli.main(
            [
                "query",
                "How many flooding blackspots remain?",
                "--strategy",
                "question",
                "-k",
                "1",
                "--no-translate",
                "--no-rerank",
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert f"{en}:question:3" in shown and f"↔ {zh}:question:3" in shown and "問1" in shown

    assert (
        cli.main(
            [
                "query",
                "How many flooding blackspots remain?",
                "--strategy",
                "question",
                "-k",
                "1",
                "--json",
                "--no-translate",
                "--no-rerank",
            ]
        )
        == 0
    )
    [record] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert record["metadata"]["counterpart_id"] == record["counterpart"]["id"] == f"{zh}:question:3"

    assert cli.main(["documents", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {(r["document_id"], r["counterpart_document_id"]) for r in rows} == {(en, zh), (zh, en)}
