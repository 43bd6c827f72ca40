"""Vision LLM tables through the real openai client against the local test server:
validated replies, the content-hash cache, concurrency, faults falling back to geometry."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from openai import OpenAI

from legco_assets.core.llm import LLMClient
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.read import clean_pages, extract_document, read_source, render_page_png
from legco_assets.core.records import Page
from legco_assets.core.settings import Settings
from legco_assets.core.tables import (
    NO_TABLES,
    PROMPT_VERSION,
    find_tables,
    parse_markdown_tables,
    typed_tables,
    validate_reply,
)

from .conftest import FIXTURES
from .llm_server import FakeLLMServer, Fault, message_images, message_text

DPI = Settings().image_dpi


def norm_rows(header: list[str], rows: list[list[str]]) -> list[list[str]]:
    return [[" ".join(c.split()) for c in r] for r in [header, *rows]]


class Paper:
    """A fixture paper, its pages, gold tables and the correct vision reply per page image."""

    def __init__(self, name: str) -> None:
        source = read_source(FIXTURES / f"{name}.pdf")
        self.data = source.data
        self.pages: list[Page] = clean_pages(extract_document(source).pages)
        self.gold = json.loads((FIXTURES / f"{name}.gold.json").read_text(encoding="utf-8"))
        self.table_pages = sorted({t["page"] for t in self.gold["tables"]})
        self.replies: dict[str, str] = {}
        for page in self.table_pages:
            frags = [t for t in self.gold["tables"] if t["page"] == page]
            png = render_page_png(self.data, page, DPI)
            self.replies[hashlib.sha256(png).hexdigest()] = "\n\n".join(
                to_markdown(t["header"], t["rows"]) for t in frags
            )

    def respond(self, messages: list[dict]) -> str:
        (image,) = message_images(messages)
        return self.replies.get(hashlib.sha256(image).hexdigest(), NO_TABLES)

    def geometric(self):
        return find_tables(self.data, self.pages, Settings())


@pytest.fixture(scope="module")
def paper_e() -> Paper:
    return Paper("paper_e_qa")


def test_valid_replies_replace_geometric_tables(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path
) -> None:
    llm_server.responder = paper_e.respond
    settings = llm_server.settings(tmp_path / "data")
    result = find_tables(paper_e.data, paper_e.pages, settings)  # client built from settings
    n = len(paper_e.table_pages)
    assert llm_server.calls["chat"] == n and result.vision_pages == n
    assert result.stats["llm_calls"] == n and result.stats["llm_cached"] == 0
    assert result.stats["vision_replaced"] == n and result.stats["llm_tokens_in"] > 0
    assert result.warnings == []
    assert all(t.method == "vision" for t in result.tables)
    for expected in paper_e.gold["tables"]:
        want = norm_rows(expected["header"], expected["rows"])
        (table,) = [
            t for t in result.tables if t.page == expected["page"] and norm_rows(t.header, t.rows) == want
        ]
        assert table.continues_from_previous == (expected["continued_from_page"] is not None)
        assert table.bbox is not None  # taken from the geometric table it replaced
    # what was sent: a system prompt, and the page as a base64 PNG data URL
    endpoint, body = llm_server.requests[0]
    assert endpoint == "chat" and body["model"] == llm_server.model
    assert "Markdown" in message_text(body["messages"])
    (image,) = message_images(body["messages"])
    assert image.startswith(b"\x89PNG\r\n\x1a\n")
    assert body["messages"][1]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_vision_tables_become_typed_tables_as_geometric_ones_do(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path
) -> None:
    """Tables as data from the vision path: the same typed tables (continuations joined,
    thin-space thousands read, units from the header) as the geometry gives."""
    llm_server.responder = paper_e.respond
    vision = find_tables(paper_e.data, paper_e.pages, llm_server.settings(tmp_path / "data")).tables
    assert vision and all(t.method == "vision" for t in vision)
    typed = typed_tables("paper_e_qa", vision, paper_e.pages)
    geometric = typed_tables("paper_e_qa", paper_e.geometric().tables, paper_e.pages)
    assert [(t.id, t.rows, t.values) for t in typed] == [(t.id, t.rows, t.values) for t in geometric]
    first = typed[0]
    assert first.method == "vision" and first.values[0][4] == 1765
    assert (first.columns[4].type, first.columns[4].unit) == ("currency", "百萬元")
    villages = next(t for t in typed if t.columns[0].name == "村落")
    continued = next(values for values in villages.values if values[0] == "金錢村")  # the second part's row
    assert len(villages.pages) == 2 and continued[4] == 5617358


def test_rerun_of_unchanged_paper_makes_zero_calls(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path
) -> None:
    """Bar (b): the cache key is sha256(page image) + model + prompt version."""
    llm_server.responder = paper_e.respond
    settings = llm_server.settings(tmp_path / "data")
    first = find_tables(paper_e.data, paper_e.pages, settings, LLMClient.from_settings(settings))
    calls = llm_server.calls["chat"]
    assert calls == len(paper_e.table_pages)
    assert list((settings.cache_dir / "llm").rglob("*.json"))
    second = find_tables(paper_e.data, paper_e.pages, settings, LLMClient.from_settings(settings))
    assert llm_server.calls["chat"] == calls
    assert second.stats["llm_calls"] == 0 and second.stats["llm_cached"] == calls
    assert second.tables == first.tables


def test_cache_turned_off_calls_again(llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path) -> None:
    llm_server.responder = paper_e.respond
    settings = llm_server.settings(tmp_path / "data", qa_cache_vision_results=False)
    find_tables(paper_e.data, paper_e.pages, settings)
    find_tables(paper_e.data, paper_e.pages, settings)
    assert llm_server.calls["chat"] == 2 * len(paper_e.table_pages)
    assert not (settings.cache_dir / "llm").exists()


def test_new_prompt_version_or_model_misses_the_cache(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path, monkeypatch
) -> None:
    llm_server.responder = paper_e.respond
    settings = llm_server.settings(tmp_path / "data")
    find_tables(paper_e.data, paper_e.pages, settings)
    n = len(paper_e.table_pages)
    find_tables(paper_e.data, paper_e.pages, settings.with_(llm_model_name="another-model"))
    assert llm_server.calls["chat"] == 2 * n
    monkeypatch.setattr("legco_assets.core.tables.vision.PROMPT_VERSION", PROMPT_VERSION + "-next")
    find_tables(paper_e.data, paper_e.pages, settings)
    assert llm_server.calls["chat"] == 3 * n


def test_calls_run_concurrently(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    """Bar (c) in miniature (the timed figure is scripts/bench_vision_concurrency.py)."""
    paper = Paper("paper_a_tables")
    llm_server.responder = paper.respond
    llm_server.latency = 0.3
    settings = llm_server.settings(tmp_path / "data", llm_max_concurrency=4)
    result = find_tables(paper.data, paper.pages, settings)
    assert llm_server.calls["chat"] == len(paper.table_pages) >= 8
    assert 1 < llm_server.max_in_flight <= 4
    assert result.stats["vision_replaced"] == len(paper.table_pages)


FAULTS = {
    "timeout": Fault.timeout(2.0),
    "rate_limited": Fault.status(429),
    "server_error": Fault.status(500),
    "not_json": Fault.bad_json(),
    "prose": "I am sorry, I cannot read tables from images.",
    "invented_cells": "| Year | Amount |\n|---|---|\n| 1999 | 12 345 678 |",
    "one_column": "| 項目 |\n|---|\n| 2025 |",
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_failures_fall_back_to_geometric_with_a_warning(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path, fault: str
) -> None:
    """Bar (d): every page keeps its geometric tables, each failure is warned and counted."""
    llm_server.responder = lambda messages: FAULTS[fault]
    settings = llm_server.settings(tmp_path / "data")
    # Only the scripted timeout may time out: a short limit on the other faults lets a
    # loaded machine's slow answer count as one more call (a retry the fault did not cause).
    timeout_s = 0.5 if fault == "timeout" else 30.0
    client = llm_server.client(timeout_s=timeout_s, max_retries=1, cache_dir=settings.cache_dir / "llm")
    result = find_tables(paper_e.data, paper_e.pages, settings, client)
    geometric = paper_e.geometric()
    n = len(paper_e.table_pages)
    assert result.tables == geometric.tables
    assert len(result.warnings) == n and all("kept geometric tables" in w for w in result.warnings)
    if isinstance(FAULTS[fault], Fault):
        retried = FAULTS[fault].kind != "bad_json"  # a 200 with a broken body is not retried
        assert llm_server.calls["chat"] == (2 * n if retried else n)  # the openai client retried once
        assert result.stats["vision_failed"] == n and result.stats["llm_failures"] == n
    else:
        assert llm_server.calls["chat"] == n
        assert result.stats["vision_invalid"] == n and result.stats["llm_failures"] == 0


def test_one_rate_limit_is_retried_by_the_client(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path
) -> None:
    llm_server.responder = paper_e.respond
    llm_server.enqueue(Fault.status(429))
    settings = llm_server.settings(tmp_path / "data")
    result = find_tables(paper_e.data, paper_e.pages, settings, llm_server.client(max_retries=2))
    assert llm_server.calls["chat"] == len(paper_e.table_pages) + 1
    assert result.warnings == [] and all(t.method == "vision" for t in result.tables)


def test_call_budget_keeps_geometry_for_the_rest(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path
) -> None:
    llm_server.responder = paper_e.respond
    settings = llm_server.settings(tmp_path / "data", llm_max_calls_per_document=2, llm_max_concurrency=1)
    result = find_tables(paper_e.data, paper_e.pages, settings)
    n = len(paper_e.table_pages)
    assert llm_server.calls["chat"] == 2
    assert sum(1 for w in result.warnings if "budget" in w) == n - 2
    assert len({t.page for t in result.tables if t.method == "vision"}) == 2
    assert len(result.tables) == len(paper_e.gold["tables"])


def test_no_table_reply_keeps_geometry(llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path) -> None:
    llm_server.default_reply = NO_TABLES
    result = find_tables(paper_e.data, paper_e.pages, llm_server.settings(tmp_path / "data"))
    assert result.tables == paper_e.geometric().tables
    assert result.stats["vision_no_table"] == len(paper_e.table_pages)


@pytest.mark.parametrize("changes", [{"qa_vision_enabled": False}, {"llm_base_url": None}])
def test_vision_off_or_no_llm_makes_no_calls(
    llm_server: FakeLLMServer, paper_e: Paper, tmp_path: Path, changes: dict
) -> None:
    settings = llm_server.settings(tmp_path / "data", **changes)
    client = llm_server.client() if changes.get("llm_base_url", "") is None else None
    result = find_tables(paper_e.data, paper_e.pages, settings, client)
    assert llm_server.calls["chat"] == 0 and result.vision_pages == 0
    assert result.tables == paper_e.geometric().tables
    assert result.stats["llm_calls"] == 0 and result.stats["llm_cached"] == 0


# -- reply parsing and validation ----------------------------------------------------------------
def test_parse_markdown_tables_handles_fences_pipes_and_ragged_rows() -> None:
    reply = "```markdown\n| 年份 | 金額 |\n|:---|---:|\n| 2024 | 11 991 |\n| 總計 |\n\n| a \\| b | c |\n|---|---|\n| 1 | 2 |\n```"
    assert parse_markdown_tables(reply) == [
        (["年份", "金額"], [["2024", "11 991"], ["總計", ""]]),
        (["a | b", "c"], [["1", "2"]]),
    ]
    assert parse_markdown_tables("no table here\n| just | a row |") == []


def test_validate_reply_checks_cells_against_page_text() -> None:
    page = "答 A1：數字如下：\n年份\n申請數目\n2022\n11\u2009991\n總計 ✓"
    ok, reason = validate_reply("| 年份 | 申請數目 |\n|---|---|\n| 2022 | 11 991 |\n| 總計 | ✓ |", page)
    assert reason is None and ok == [(["年份", "申請數目"], [["2022", "11 991"], ["總計", "✓"]])]
    _, reason = validate_reply("| 年份 | 申請數目 |\n|---|---|\n| 2022 | 12 000 |", page)
    assert reason and "not in the page text" in reason
    assert validate_reply(NO_TABLES, page) == ([], "the model saw no table")


# -- the test server itself -------------------------------------------------------------------------
def test_server_embeddings_are_deterministic_in_both_encodings(llm_server: FakeLLMServer) -> None:
    client = OpenAI(base_url=llm_server.base_url, api_key="test-key", max_retries=0)
    as_base64 = client.embeddings.create(model="m", input=["立法會", "LegCo"])  # the client asks for base64
    as_floats = client.embeddings.create(model="m", input="立法會", encoding_format="float")
    assert len(as_base64.data) == 2 and len(as_base64.data[0].embedding) == llm_server.embedding_dim
    assert as_floats.data[0].embedding == pytest.approx(as_base64.data[0].embedding, abs=1e-6)
    assert as_base64.data[0].embedding != as_base64.data[1].embedding
    assert llm_server.calls["embeddings"] == 2 and llm_server.calls["chat"] == 0
    llm_server.embedding_faults.append(Fault.status(500))
    with pytest.raises(Exception, match="500"):
        client.embeddings.create(model="m", input="x")
    assert llm_server.calls["embeddings"] == 3


def test_server_queue_before_responder_and_counts_in_flight(llm_server: FakeLLMServer) -> None:
    client = llm_server.client()
    llm_server.responder = lambda messages: "from responder: " + message_text(messages)
    llm_server.enqueue("first", "second")
    ask = lambda text: client.complete("t", "v1", [{"role": "user", "content": text}], cache_payload=text)  # noqa: E731
    assert [ask("a"), ask("b"), ask("c")] == ["first", "second", "from responder: c"]
    assert llm_server.calls["chat"] == 3 and llm_server.max_in_flight == 1
    assert client.stats.tokens_in > 0 and client.stats.calls == 3


def test_pages_are_sent_as_the_same_png_render_page_png_makes(paper_e: Paper) -> None:
    """The cache key hashes these bytes: they must not depend on which thread encoded them."""
    import pypdfium2 as pdfium

    from legco_assets.core.tables import page_png

    page_number = paper_e.table_pages[0]
    pdf = pdfium.PdfDocument(paper_e.data)
    try:
        image = pdf[page_number - 1].render(scale=DPI / 72).to_pil().copy()
    finally:
        pdf.close()
    assert page_png(image) == render_page_png(paper_e.data, page_number, DPI)
