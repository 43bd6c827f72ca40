"""``legco-assets serve``'s JSON API, excerpts and search page, on a real server
on 127.0.0.1 over the sample papers ingested once with both strategies (``served_store``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from legco_assets.core.records import ChunkMetadata
from legco_assets.core.settings import DEFAULT_EXCERPTS_BASE_URL, SERVE_PORT

from .conftest import store_settings
from .servers import SEARCH_HIT_KEYS, SearchService, search_service, start_search_service


@pytest.fixture(scope="module")
def service(served_store) -> Iterator[SearchService]:
    with search_service(store_settings(served_store)) as running:
        yield running


def get(service: SearchService, path: str, **params: Any) -> tuple[int, Any, dict[str, str]]:
    url = service.base + path + (("?" + urllib.parse.urlencode(params)) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            body = reply.read()
            kind = reply.headers.get("Content-Type", "")
            headers = {k.lower(): v for k, v in reply.headers.items()}
            return reply.status, (json.loads(body) if "json" in kind else body), headers
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), {k.lower(): v for k, v in exc.headers.items()}


def test_search_answers_hits_with_the_issues_keys_and_their_excerpt_urls(service: SearchService) -> None:
    status, data, _ = get(service, "/api/search", q="水浸黑點", k=3, strategy="question")
    assert status == 200 and data["query"] == "水浸黑點" and data["strategy"] == "question"
    hits = data["hits"]
    assert 1 <= len(hits) <= 3 and all(set(h) == SEARCH_HIT_KEYS for h in hits)
    first = hits[0]
    assert first["document_id"] == "sample-zh-qa" and first["language"] == "zh-Hant"
    assert "水浸黑點" in first["text"] and first["question_id"] == "A1"
    assert first["id"].startswith("sample-zh-qa:question:") and first["page_start"] <= first["page_end"]
    assert first["excerpt_url"] == service.base + "/excerpt/" + urllib.parse.quote(first["id"], safe=":")
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_the_filters_narrow_the_hits(service: SearchService) -> None:
    _, english, _ = get(service, "/api/search", q="allowance", k=5, strategy="token", language="en")
    assert english["hits"] and {h["language"] for h in english["hits"]} == {"en"}
    assert all(":token:" in h["id"] for h in english["hits"])
    _, one, _ = get(service, "/api/search", q="渠務署", k=5, document="sample-zh-qa", mode="bm25")
    assert one["hits"] and {h["document_id"] for h in one["hits"]} == {"sample-zh-qa"}
    _, vector, _ = get(service, "/api/search", q="old age allowance", k=2, mode="vector")
    assert vector["mode"] == "vector" and len(vector["hits"]) == 2


def test_documents_list_each_paper_per_strategy_with_its_title(service: SearchService) -> None:
    status, data, _ = get(service, "/api/documents")
    rows = {(r["document_id"], r["strategy"]): r for r in data["documents"]}
    assert status == 200 and set(rows) == {
        (d, s) for d in ("sample-zh-qa", "sample-en-qa") for s in ("token", "question")
    }
    assert rows[("sample-zh-qa", "question")]["title"] == "立法會發展事務委員會"
    assert all(r["chunks"] > 0 and len(r["version"]) == 12 for r in rows.values())


def test_a_chunk_is_the_typed_record_with_its_excerpt_url(service: SearchService) -> None:
    _, found, _ = get(service, "/api/search", q="Guangdong", k=1, strategy="question")
    chunk_id = found["hits"][0]["id"]
    status, record, _ = get(service, f"/api/chunks/{urllib.parse.quote(chunk_id, safe='')}")
    assert status == 200 and record["id"] == chunk_id and record["document_id"] == "sample-en-qa"
    assert set(record["metadata"]) <= {f for f in ChunkMetadata.__dataclass_fields__}
    assert record["metadata"]["strategy_type"] == "question" and record["metadata"]["section_path"]
    assert record["excerpt_url"].endswith(urllib.parse.quote(chunk_id, safe=":"))
    assert get(service, "/api/chunks/sample-en-qa:question:999")[:2] == (404, {"detail": "no such chunk"})


def test_the_openapi_page_publishes_the_chunk_record(service: SearchService) -> None:
    status, spec, _ = get(service, "/openapi.json")
    assert status == 200
    paths = spec["paths"]
    assert {"/api/search", "/api/documents", "/api/chunks/{chunk_id}", "/api/answer"} <= set(paths)
    schemas = spec["components"]["schemas"]
    assert {"question_id", "section_path", "chunk_file_path"} <= set(schemas["ChunkMetadata"]["properties"])
    assert set(schemas["SearchHit"]["properties"]) == SEARCH_HIT_KEYS
    status, page, _ = get(service, "/docs")  # the reference, rendered here: nothing loads from elsewhere
    text = page.decode()
    assert status == 200 and "GET /api/search" in text and "POST /api/answer" in text
    assert "<script" not in text and "cdn" not in text.lower() and "https://" not in text


def test_answer_without_an_llm_is_a_503_with_its_reason(service: SearchService) -> None:
    request = urllib.request.Request(
        service.base + "/api/answer",
        data=json.dumps({"question": "最低工資是多少？"}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 503
    assert json.loads(caught.value.read())["detail"].startswith("no LLM configured")


def test_a_hits_excerpt_url_opens_a_pdf_of_its_chunk(service: SearchService) -> None:
    """The excerpt route answers with ``cut_chunk_excerpt``'s PDF. The pages and the one
    highlight are the excerpts engineer's side (core/excerpts); tighten
    :func:`assert_excerpt_is_the_chunks` there at merge."""
    _, found, _ = get(service, "/api/search", q="Residential Care Supplement", k=1, strategy="question")
    hit = found["hits"][0]
    with urllib.request.urlopen(hit["excerpt_url"], timeout=60) as reply:
        body = reply.read()
        assert reply.headers["content-type"] == "application/pdf"
        assert reply.headers["X-Content-Type-Options"] == "nosniff"
    assert_excerpt_is_the_chunks(body, hit)
    with urllib.request.urlopen(hit["excerpt_url"], timeout=60) as again:  # from the cache: the same bytes
        assert again.read() == body
    assert get(service, "/excerpt/sample-en-qa%3Aquestion%3A999")[:2] == (404, {"detail": "no such chunk"})


def assert_excerpt_is_the_chunks(pdf: bytes, hit: dict[str, Any]) -> None:
    """What the excerpt of ``hit`` must be: a PDF of the chunk's pages (``page_start`` to
    ``page_end``) whose highlights name this chunk (the excerpts' annotations carry it)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    assert pdf.startswith(b"%PDF") and len(document) == hit["page_end"] - hit["page_start"] + 1
    assert hit["id"].encode() in pdf  # the highlight's annotation names its chunk


def test_the_page_shows_results_with_the_querys_words_marked(service: SearchService) -> None:
    status, page, headers = get(service, "/", q="水浸黑點", strategy="question", language="zh")
    text = page.decode()
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert "<mark>水浸黑點</mark>" in text
    assert "立法會發展事務委員會" in text and 'href="/excerpt/sample-zh-qa:question:' in text
    assert "<script" not in text and "http://" not in text.split("<body>", 1)[1].replace(service.base, "")
    _, english, _ = get(service, "/", q="old age allowance", strategy="token", language="en")
    assert "<mark>Allowance</mark>" in english.decode() and "水浸" not in english.decode()


def test_the_serve_command_defaults_to_this_machine_and_the_excerpts_port() -> None:
    from legco_assets.cli.main import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port is None and SERVE_PORT == 8000
    assert DEFAULT_EXCERPTS_BASE_URL == "http://127.0.0.1:8000/"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve-excerpts"])


def test_answer_with_an_llm_cites_the_chunks_it_read(served_store, llm_server) -> None:
    """With an LLM configured, ``POST /api/answer`` answers from the retrieved chunks and
    hands back the chunks it read, each with its excerpt URL (a second server: the shared
    one has no LLM)."""
    llm_server.default_reply = json.dumps(
        {
            "sufficient": True,
            "answer": "全港仍有五個水浸黑點。",
            "citations": [{"document_id": "sample-zh-qa", "page": 1, "question_id": "A1"}],
        },
        ensure_ascii=False,
    )
    running = start_search_service(llm_server.settings(served_store / "data", qa_vision_enabled=False))
    try:
        request = urllib.request.Request(
            running.base + "/api/answer",
            data=json.dumps({"question": "還有多少個水浸黑點？", "strategy": "question"}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=120) as reply:
            data = json.loads(reply.read())
    finally:
        running.stop()
    assert data["sufficient"] and data["answer"] == "全港仍有五個水浸黑點。"
    assert data["citations"][0]["question_id"] == "A1"
    assert data["context"] and all(set(h) == SEARCH_HIT_KEYS for h in data["context"])
    assert any(h["question_id"] == "A1" for h in data["context"])
    assert llm_server.calls["chat"] >= 1


def test_the_serve_command_answers_with_links_to_itself(served_store) -> None:
    """``legco-assets serve --port P`` as a user starts it (a process of its own): without
    ``EXCERPTS_BASE_URL`` its hits' excerpt URLs point at itself, and they open."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from .servers import free_port

    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_", "EXCERPTS_"))
    }
    env.update(LEGCO_DATA_DIR=str(served_store / "data"), DAGSTER_HOME=str(served_store / "dagster_home"))
    process = subprocess.Popen(
        [sys.executable, "-m", "legco_assets.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/search?q=Guangdong&k=1", timeout=30) as reply:
                    hit = json.loads(reply.read())["hits"][0]
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.5)
        assert hit["excerpt_url"].startswith(f"{base}/excerpt/sample-en-qa:")
        with urllib.request.urlopen(hit["excerpt_url"], timeout=60) as reply:
            assert reply.status == 200 and reply.headers["Content-Type"] == "application/pdf"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def test_an_unknown_document_filter_is_a_404_with_one_line(service: SearchService) -> None:
    status, data, _ = get(service, "/api/search", q="allowance", document="no-such-paper")
    assert status == 404 and data == {"detail": "no such document: no-such-paper (/api/documents lists them)"}
    request = urllib.request.Request(
        service.base + "/api/answer",
        data=json.dumps({"question": "allowance", "document": "no-such-paper"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:  # before the 503 of a server without an LLM
        urllib.request.urlopen(request, timeout=60)
    assert refused.value.code == 404 and json.loads(refused.value.read())["detail"].startswith(
        "no such document"
    )


def test_the_reference_shows_titles_limits_and_the_servers_defaults(service: SearchService) -> None:
    _, spec, _ = get(service, "/openapi.json")
    parameters = {p["name"]: p for p in spec["paths"]["/api/search"]["get"]["parameters"]}
    assert parameters["k"]["schema"]["minimum"] == 1 and parameters["k"]["schema"]["maximum"] == 50
    assert parameters["q"]["schema"]["maxLength"] == 500
    assert parameters["strategy"]["schema"]["default"] == "token"  # the server's, not a constant's name
    assert all(p["schema"].get("title") and p.get("description") for p in parameters.values())
    assert spec["paths"]["/api/search"]["get"]["summary"] == "Search the chunks"
    _, page, _ = get(service, "/docs")
    text = page.decode()
    assert (
        "<th>default</th>" in text
        and "<td>1-50</td>" in text
        and "DEFAULT_CHUNKING_STRATEGY</td>" not in text
    )
    row = next(r for r in text.split("<tr>") if r.startswith("<td><code>strategy</code>"))
    assert "<code>token</code>" in row and "token | question" in row


def test_a_chunks_markdown_table_is_an_html_table_with_every_cell_escaped() -> None:
    """The page's passage: a Markdown table as rows and cells, the query's words marked in
    them, and nothing of the chunk's text reaches the page as markup."""
    from html.parser import HTMLParser

    from legco_assets.core.settings import Strategy
    from legco_assets.service.page import render
    from legco_assets.service.schema import SearchHit, SearchResponse

    text = (
        "Table 1 <img src=x onerror=alert(1)>\n"
        "| Item | Wage \\| HK$ |\n|---|---:|\n| <script>alert(1)</script> | 37.5 |\n| minimum wage | 40 |\n"
        "After the table."
    )
    hit = SearchHit(
        id="p:token:0", document_id="p", title="t", text=text, score=1.0, page_start=1, page_end=1,
        section_path=[], question_id=None, language="en", excerpt_url="http://127.0.0.1/excerpt/p:token:0",
    )  # fmt: skip
    page = render(
        "wage",
        Strategy.token,
        "",
        SearchResponse(query="wage", strategy=Strategy.token, mode="hybrid", hits=[hit]),
    )

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.cells: list[str] = []
            self.open = False

        def handle_starttag(self, tag: str, attrs: list) -> None:
            self.tags.append(tag)
            if tag in ("td", "th"):
                self.open, self.cells = True, [*self.cells, ""]

        def handle_endtag(self, tag: str) -> None:
            self.open = self.open and tag not in ("td", "th")

        def handle_data(self, data: str) -> None:
            if self.open:
                self.cells[-1] += data

    parsed = Cells()
    parsed.feed(page)
    assert "script" not in parsed.tags and "img" not in parsed.tags
    assert parsed.tags.count("table") == 1 and parsed.tags.count("tr") == 3
    assert parsed.cells == ["Item", "Wage | HK$", "<script>alert(1)</script>", "37.5", "minimum wage", "40"]
    assert "<mark>wage</mark>" in page and "After the table." in page
