"""Internal notes (``[Internal reference: …]``, ``[內部參考：…]``): the chunks record where they
lie, and the search service withholds them (hits, chunks, MCP tools, excerpts, the answer's
context) unless started with ``SERVE_INTERNAL_REFS=1``; the operator's CLI shows them.

The papers are the generated standby Q&A fixtures (paper_l_faq in English, paper_e_qa in
Chinese), whose gold files list every note they print; the shared real corpus has no paper
with bracketed notes."""

from __future__ import annotations

import ctypes
import html
import json
import re
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from mcp import Client

from legco_assets.core.chunking import WITHHELD
from legco_assets.core.excerpts.pdf import cut_pages
from legco_assets.core.pipeline import chunk_file
from legco_assets.core.records import ChunkRecord
from legco_assets.core.settings import Settings, Strategy

from .conftest import fixture_pdf, store_settings
from .llm_server import message_text
from .runs import cli
from .servers import SearchService, search_service, start_search_service

PAPERS = ("paper_l_faq.pdf", "paper_e_qa.pdf")
# words printed only inside one of paper_l_faq's notes
NOTE_QUERY = "Financial Secretary endorsed the rate of the supplement in March 2025"


def gold_notes(name: str) -> list[str]:
    gold = json.loads(fixture_pdf(name).with_suffix(".gold.json").read_text(encoding="utf-8"))
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            found.extend(node.get("internal_notes") or [])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(gold)
    return found


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def pdf_text(data: bytes) -> str:
    pdf = pdfium.PdfDocument(data)
    try:
        return "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    finally:
        pdf.close()


def words_of(note: str) -> set[str]:
    """A note's own words (those its paper prints nowhere else are what a leak would show)."""
    return {w for w in re.findall(r"[A-Za-z]{5,}", note)}


# -- the chunk record ----------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", list(Strategy))
@pytest.mark.parametrize("name", PAPERS)
def test_every_note_is_recorded_where_it_lies_in_its_chunks(
    name: str, strategy: Strategy, tmp_path: Path
) -> None:
    records = chunk_file(fixture_pdf(name), strategy, Settings(data_dir=tmp_path / "data"), use_llm=False)
    notes = gold_notes(name)
    assert notes
    covered = ""
    for record in map(ChunkRecord.of, records):
        chunk, meta = record, record.metadata
        spans = meta.internal_spans or []
        assert meta.has_internal_refs is (True if spans else None)
        as_chroma = ChunkRecord.from_chroma(record.id, record.text, record.to_chroma())
        assert as_chroma.metadata.internal_spans == meta.internal_spans
        for start, end in spans:
            part = chunk.text[start:end]
            assert part.endswith(("]", "］")) or end == len(chunk.text)
            covered += part
        # outside the spans, no note's text is left
        rest = squeezed("".join(chunk.text[a:b] for a, b in _gaps(spans, len(chunk.text))))
        assert not any(squeezed(n)[1:-1] in rest for n in notes)
    assert all(squeezed(n) in squeezed(covered) for n in notes)


def _gaps(spans: list[list[int]], length: int) -> list[tuple[int, int]]:
    out, pos = [], 0
    for start, end in sorted(spans):
        out.append((pos, start))
        pos = end
    return [*out, (pos, length)]


# -- the excerpt PDF: the characters gone, a box in their place ----------------------------------
def test_a_text_object_mixing_a_note_and_other_text_loses_only_the_note(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.text(
        20, 30, "Reply: the scheme opens in May. [Internal reference: zebra quokka budget.] Ask the Bureau."
    )
    pdf.text(20, 45, "Another line without notes.")
    data = bytes(pdf.output())
    made = datetime(2026, 1, 1, tzinfo=UTC)
    plain, redacted = cut_pages(data, "x", [0], made), cut_pages(data, "x", [0], made, redact=True)
    text = pdf_text(redacted)
    assert "zebra" in pdf_text(plain) and not {"zebra", "quokka", "Internal"} & set(re.findall(r"\w+", text))
    assert "Reply: the scheme opens in May." in text and "Ask the Bureau." in text
    assert "Another line without notes." in text
    # the kept characters stay where they were printed, and a filled box covers the note
    assert _origins(plain, "Ask the Bureau.") == pytest.approx(_origins(redacted, "Ask the Bureau."), abs=0.5)
    assert _filled_boxes(redacted) == 1 and _filled_boxes(plain) == 0


def _origins(data: bytes, words: str) -> list[float]:
    import pypdfium2.raw as pdfium_c

    pdf = pdfium.PdfDocument(data)
    textpage = pdf[0].get_textpage()
    text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)) for i in range(textpage.count_chars()))
    start = text.index(words)
    out = []
    for i in range(start, start + len(words)):
        x, y = ctypes.c_double(), ctypes.c_double()
        pdfium_c.FPDFText_GetCharOrigin(textpage.raw, i, ctypes.byref(x), ctypes.byref(y))
        out += [x.value, y.value]
    return out


def _filled_boxes(data: bytes) -> int:
    pdf = pdfium.PdfDocument(data)
    return sum(1 for obj in pdf[0].get_objects() if obj.type == 2)  # FPDF_PAGEOBJ_PATH


# -- the service ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def noted_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("noted")
    (home / "dagster_home").mkdir()
    done = cli("ingest", *(str(fixture_pdf(n)) for n in PAPERS), "--strategy", "both", home=home)
    assert done.returncode == 0, done.stderr[-2000:]
    return home


@pytest.fixture(scope="module")
def withholding(noted_store: Path) -> Iterator[SearchService]:
    with search_service(store_settings(noted_store)) as running:
        yield running


@pytest.fixture(scope="module")
def serving(noted_store: Path) -> Iterator[SearchService]:
    with search_service(store_settings(noted_store).with_(serve_internal_refs=True)) as running:
        yield running


def get_json(base: str, path: str, **params: Any) -> Any:
    url = base + path + "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=60) as reply:
        return json.loads(reply.read())


def get_bytes(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as reply:
        return reply.read()


async def mcp_search(base: str, query: str, strategy: str) -> tuple[dict[str, Any], dict[str, Any]]:
    async with Client(base + "/mcp") as client:
        found = await client.call_tool("search", {"query": query, "k": 3, "strategy": strategy})
        hits = found.structured_content or json.loads(found.content[0].text)
        chunk = await client.call_tool("get_chunk", {"id": hits["hits"][0]["id"]})
        return hits, chunk.structured_content or json.loads(chunk.content[0].text)


NOTE = next(n for n in gold_notes("paper_l_faq.pdf") if "Financial Secretary" in n)


def _leaks(text: str) -> bool:
    """Whether any stretch of the note (its words in order, 3 at a time) is in ``text``."""
    words = re.findall(r"\w+", NOTE)
    flat = " ".join(re.findall(r"\w+", text))
    return "Internal reference" in text or any(
        " ".join(words[i : i + 3]) in flat for i in range(len(words) - 2)
    )


@pytest.mark.parametrize("strategy", ["question", "token"])
def test_the_service_withholds_a_note_a_search_finds(withholding: SearchService, strategy: str) -> None:
    data = get_json(
        withholding.base, "/api/search", q=NOTE_QUERY, k=3, strategy=strategy, document="paper-l-faq"
    )
    hits = data["hits"]
    assert hits and WITHHELD in hits[0]["text"]
    assert not any(_leaks(h["text"]) for h in hits)
    record = get_json(withholding.base, f"/api/chunks/{urllib.parse.quote(hits[0]['id'], safe='')}")
    assert WITHHELD in record["text"] and not _leaks(record["text"])
    assert record["metadata"]["has_internal_refs"] is True and "internal_spans" not in record["metadata"]
    found, chunk = anyio.run(mcp_search, withholding.base, NOTE_QUERY, strategy)
    assert WITHHELD in found["hits"][0]["text"] and not any(_leaks(h["text"]) for h in found["hits"])
    assert not _leaks(chunk["text"])
    page = (
        urllib.request.urlopen(
            withholding.base + "/?" + urllib.parse.urlencode({"q": NOTE_QUERY, "strategy": strategy}),
            timeout=60,
        )
        .read()
        .decode()
    )
    results = html.unescape(re.sub(r"<[^>]+>", "", page[page.index('<div id="results">') :]))
    assert not _leaks(results)  # (the page echoes the query above the results; it shows 900 characters)
    excerpt = pdf_text(get_bytes(hits[0]["excerpt_url"]))
    assert excerpt and not _leaks(excerpt)
    assert "should not be disclosed" not in squeezed(excerpt) and "Financial" not in excerpt


def test_with_serve_internal_refs_the_note_is_back(serving: SearchService) -> None:
    data = get_json(
        serving.base, "/api/search", q=NOTE_QUERY, k=3, strategy="question", document="paper-l-faq"
    )
    top = data["hits"][0]
    assert WITHHELD not in top["text"] and squeezed(NOTE) in squeezed(top["text"])
    found, chunk = anyio.run(mcp_search, serving.base, NOTE_QUERY, "question")
    assert squeezed(NOTE) in squeezed(found["hits"][0]["text"]) and squeezed(NOTE) in squeezed(chunk["text"])
    assert squeezed(NOTE) in squeezed(pdf_text(get_bytes(top["excerpt_url"])))


def test_a_chinese_note_is_withheld_from_the_excerpt(withholding: SearchService) -> None:
    note = gold_notes("paper_e_qa.pdf")[0]
    data = get_json(
        withholding.base, "/api/search", q="小瀝源 工程延誤 追趕進度計劃", k=3, strategy="question"
    )
    top = data["hits"][0]
    assert top["document_id"] == "paper-e-qa" and WITHHELD in top["text"]
    body = squeezed(note)[6:-1]  # past ``[內部參考：``
    assert not any(body[i : i + 6] in squeezed(h["text"]) for h in data["hits"] for i in range(len(body) - 5))
    excerpt = squeezed(pdf_text(get_bytes(top["excerpt_url"])))
    assert excerpt and not any(body[i : i + 6] in excerpt for i in range(len(body) - 5))


def test_the_operators_cli_shows_the_notes(noted_store: Path) -> None:
    done = cli("query", NOTE_QUERY, "--strategy", "question", "-k", "1", "--json", home=noted_store)
    assert done.returncode == 0, done.stderr[-2000:]
    assert squeezed(NOTE) in squeezed(json.loads(done.stdout.splitlines()[0])["text"])


def test_the_answers_context_has_the_notes_withheld(noted_store: Path, llm_server: Any) -> None:
    """``POST /api/answer``: what the model is sent, and the context handed back, show the marker
    where the note was (a second server, with the test's LLM)."""
    llm_server.default_reply = json.dumps({"sufficient": True, "answer": "It is set.", "citations": []})
    running = start_search_service(llm_server.settings(noted_store / "data", qa_vision_enabled=False))
    try:
        request = urllib.request.Request(
            running.base + "/api/answer",
            data=json.dumps(
                {"question": NOTE_QUERY, "strategy": "question", "document": "paper-l-faq"}
            ).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=120) as reply:
            data = json.loads(reply.read())
    finally:
        running.stop()
    sent = [message_text(body["messages"]) for endpoint, body in llm_server.requests if endpoint == "chat"]
    # the passages (the prompt ends with the question, which shares words with the note)
    asked = [text.rsplit("\n\nQuestion:", 1)[0] for text in sent if "Context passages" in text]
    assert asked and all(WITHHELD in text and not _leaks(text) for text in asked)
    assert data["context"] and not any(_leaks(h["text"]) for h in data["context"])
    assert any(WITHHELD in h["text"] for h in data["context"])
