"""The whole real corpus through the Dagster path, as the assets run in production.

Every paper that ``legco-assets ingest`` would take from ``../shared/corpus/real`` (its
MANIFEST.md aside; the session sample of Hansards in ``legco/session1213/`` included) gets a dynamic partition and is materialised with both strategies: the
whole graph with the token strategy, then ``chunks`` + ``vector_index`` with the question
strategy, into one embedded Chroma, with the blocking asset checks. Each must succeed; the
scanned paper fails at ``page_text`` with its reason (no vision LLM configured). Each
paper's question chunks cover every page with text (a contents page aside, which is never
chunked by design).

Why: each capability has its own tests on its own file, but only a run of the main job
over the real papers shows that the checks the assets enforce hold everywhere (the 2012
Hansard once failed ``every_page_covered`` in Dagster while ``chunk`` printed its chunks).
Skipped without the corpus; in CI the corpus is present. Its running time is in docs/benchmarks.md#the-whole-corpus-as-a-test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest

from legco_assets.core.artifacts import Artifacts
from legco_assets.core.records import DocumentText
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex, folder_files, skip_reason
from legco_assets.core.structure import printed_questions, unchunked_pages
from legco_assets.defs.assets import ALL_ASSETS, chunk_excerpts, chunks, vector_index
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

from .conftest import CORPUS

pytestmark = [pytest.mark.corpus, pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")]

SCANNED = {"cb3-641-2026-02_scanned-c.pdf": "no extractable text"}


def corpus_papers() -> list[Path]:
    """What ``ingest`` takes from the corpus folder (the same rules), but its manifest."""
    if not CORPUS.exists():
        return []
    settings = Settings()
    found = [f for f, relative in folder_files(CORPUS) if skip_reason(f, settings, relative) is None]
    return sorted(f for f in found if f.name != "MANIFEST.md")


@pytest.fixture(scope="module")
def ingest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dg.DagsterInstance, Path]]:
    """One Dagster instance and one data dir (one Chroma) for the whole corpus, as a user's."""
    data = tmp_path_factory.mktemp("corpus") / "data"
    with dg.instance_for_test() as instance:
        yield instance, data


def _materialize(
    instance: dg.DagsterInstance, data: Path, key: str, strategy: Strategy, selection: list | None
) -> dg.ExecuteInProcessResult:
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    return dg.materialize(
        ALL_ASSETS,
        selection=selection,
        partition_key=key,
        instance=instance,
        resources=resources,
        run_config=strategy_run_config(strategy),
        raise_on_error=False,
    )


def _failure(result: dg.ExecuteInProcessResult) -> tuple[str, str]:
    event = next(e for e in result.all_events if e.is_step_failure)
    failure = event.event_specific_data.user_failure_data
    return event.step_key, failure.description if failure else event.event_specific_data.error.message


@pytest.mark.parametrize("paper", corpus_papers(), ids=lambda p: p.name)
def test_every_real_paper_ingests_with_both_strategies(
    paper: Path, ingest: tuple[dg.DagsterInstance, Path]
) -> None:
    instance, data = ingest
    key = DocumentIndex(data / "documents").register(paper)
    instance.add_dynamic_partitions(documents_partitions.name, [key])
    token = _materialize(instance, data, key, Strategy.token, None)
    if paper.name in SCANNED:
        assert not token.success
        step, reason = _failure(token)
        assert step == "page_text" and SCANNED[paper.name] in reason and "vision LLM" in reason, reason
        return
    assert token.success, _failure(token)
    question = _materialize(instance, data, key, Strategy.question, [chunks, vector_index, chunk_excerpts])
    assert question.success, _failure(question)
    for result in (token, question):  # a heuristic may warn (the paper is still indexed); nothing may block
        blocked = [
            (c.check_name, c.description)
            for c in result.get_asset_check_evaluations()
            if c.asset_key == chunks.key and not c.passed and c.severity == dg.AssetCheckSeverity.ERROR
        ]
        assert not blocked, blocked

    art = Artifacts(Settings(data_dir=data), key)
    pages = {p.number for p in art.pages() if p.cleaned.strip()} - set(unchunked_pages(art.sections()))
    records = art.read_chunks(Strategy.question)
    covered = {n for r in records for n in range(r.metadata.page_start, r.metadata.page_end + 1)}
    assert pages <= covered, f"pages with text in no question chunk: {sorted(pages - covered)[:20]}"
    assert art.read_chunks(Strategy.token)
    # a Council record: every question it numbers is an exchange of its own, indexed
    numbered = printed_questions(DocumentText.from_pages(art.pages()).text)
    own = {r.metadata.question_id for r in records if r.metadata.question_kind in ("main", "written")}
    assert [n for n in numbered if str(n) not in own] == []
    for strategy in Strategy:  # every chunk of both strategies is highlighted in its strategy's excerpts
        manifest = json.loads((art.root / "excerpts" / f"{strategy.value}.json").read_text(encoding="utf-8"))
        assert len(manifest) == len(art.read_chunks(strategy)), strategy
    written = question.asset_materializations_for_node("vector_index")[0].metadata["ids_written"].value
    assert written == len(records)
