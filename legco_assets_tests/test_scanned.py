"""Scanned pages: a clean one-line error without a vision LLM, a transcription with one.

The committed ``scanned_paper.pdf`` (two image-only pages and a paper-number stamp, like the
real ``cb3-641-2026-02_scanned-c.pdf``) runs everywhere; the real corpus file runs where the
corpus is present. The vision model is the fake server: a responder recognises each page by
the sha256 of the PNG the pipeline renders and replies with what that page's image says.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from legco_assets.core import pipeline
from legco_assets.core.artifacts import Artifacts
from legco_assets.core.errors import DocumentError
from legco_assets.core.read import (
    NO_TEXT,
    merged_raw,
    read_source,
    render_page_png,
    reply_text,
    scanned_pages,
    text_pages,
)
from legco_assets.core.records import Page
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets_tests.fixtures.llm.generate_llm_fixtures import SCANNED_PAGES, SCANNED_PDF, STAMP, TOPIC_PDF
from legco_assets_tests.llm_server import FakeLLMServer, Fault, message_images

from .conftest import CORPUS
from .pdf_factory import make_pdf

REAL_SCANNED = CORPUS / "legco" / "cb3-641-2026-02_scanned-c.pdf"


def cli_chunk(path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``python -m legco_assets.cli chunk FILE`` in a subprocess, with ``env`` over os.environ."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "QA_"))}
    full.update(env)
    command = [sys.executable, "-m", "legco_assets.cli", "chunk", str(path), *args]
    return subprocess.run(command, capture_output=True, text=True, env=full, timeout=300)


def page_responder(pdf: Path, dpi: int, texts: list[str]) -> Callable[[list[dict[str, Any]]], str]:
    """Replies with ``texts[n-1]`` to the image of page ``n`` (known by its PNG's sha256)."""
    data = pdf.read_bytes()
    by_sha = {
        hashlib.sha256(render_page_png(data, n, dpi)).hexdigest(): text
        for n, text in enumerate(texts, start=1)
    }

    def respond(messages: list[dict[str, Any]]) -> str:
        images = message_images(messages)
        assert len(images) == 1, "one page image per transcription call"
        return by_sha[hashlib.sha256(images[0]).hexdigest()]

    return respond


def transcripts() -> list[str]:
    return ["\n".join(lines) for lines in SCANNED_PAGES]


def assert_one_line_error(done: subprocess.CompletedProcess, name: str) -> None:
    assert done.returncode == 1 and done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line, done.stderr
    assert line.startswith("legco-assets: error: ") and name in line and "no extractable text" in line


# -- pure parts ---------------------------------------------------------------------------------
def test_scanned_pages_are_those_with_an_image_and_no_text(tmp_path: Path) -> None:
    blank = make_pdf(
        tmp_path / "blank.pdf",
        [[], ["A page of ordinary text, long enough to count as a text layer."]],
        footer=None,
    )
    empty_pages = [Page(1, "", ""), Page(2, "", "")]
    assert scanned_pages(SCANNED_PDF.read_bytes(), [Page(1, STAMP, STAMP), Page(2, "", "")], 50) == [1, 2]
    assert scanned_pages(blank.read_bytes(), empty_pages, 50) == [], (
        "a blank page has no image: nothing to read"
    )
    assert scanned_pages(TOPIC_PDF.read_bytes(), [Page(1, "", "x" * 60), Page(2, "", "y" * 60)], 50) == []


def test_replies_are_unfenced_and_keep_the_stamp() -> None:
    assert reply_text("```text\n問 1：甲？\n```") == "問 1：甲？"
    assert reply_text(f" {NO_TEXT} ") == ""
    assert merged_raw("問 1：甲？", STAMP) == f"問 1：甲？\n{STAMP}"
    assert merged_raw(f"{STAMP}\n問 1：甲？", STAMP) == f"{STAMP}\n問 1：甲？"


# -- without a vision model ---------------------------------------------------------------------
def test_scanned_paper_without_llm_is_a_one_line_error(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    env = {"LEGCO_DATA_DIR": str(tmp_path / "data")}
    assert_one_line_error(cli_chunk(SCANNED_PDF, env, "--strategy", "question"), "scanned_paper.pdf")
    with_llm = {**env, "LLM_BASE_URL": llm_server.base_url, "LLM_MODEL_NAME": llm_server.model}
    assert_one_line_error(cli_chunk(SCANNED_PDF, with_llm), "scanned_paper.pdf")
    assert_one_line_error(
        cli_chunk(SCANNED_PDF, {**with_llm, "QA_VISION_ENABLED": "true"}, "--no-llm"), "scanned_paper.pdf"
    )
    assert llm_server.calls["chat"] == 0, "no vision switch, or --no-llm: nothing is sent"


@pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")
def test_real_scanned_paper_without_llm_is_a_one_line_error(tmp_path: Path) -> None:
    done = cli_chunk(REAL_SCANNED, {"LEGCO_DATA_DIR": str(tmp_path / "data")})
    assert_one_line_error(done, REAL_SCANNED.name)
    assert "23 characters in 3 pages" in done.stderr


# -- with a vision model ------------------------------------------------------------------------
def test_scanned_pages_are_transcribed_and_chunked_by_question(
    llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    settings = llm_server.settings(tmp_path / "data")
    llm_server.responder = page_responder(SCANNED_PDF, settings.image_dpi, transcripts())
    records = pipeline.chunk_file(SCANNED_PDF, Strategy.question, settings)
    pairs = [r for r in records if r["metadata"]["section_type"] == "qa"]
    assert [r["metadata"]["question_id"] for r in pairs] == ["1", "2"]
    assert [r["metadata"]["question_text"] for r in pairs] == [
        "政府會否增加郊野公園的垃圾收集次數？",
        "政府如何處理行山徑的水土流失問題？",
    ]
    assert [r["page_number"] for r in pairs] == [1, 2]
    assert "並在熱門地點加設回收設施。" in pairs[0]["text"] and "並以天然物料鞏固路面" in pairs[1]["text"]
    assert llm_server.calls["chat"] == 2
    assert pipeline.chunk_file(SCANNED_PDF, Strategy.question, settings) == records
    tokens = pipeline.chunk_file(SCANNED_PDF, Strategy.token, settings)
    assert STAMP in tokens[0]["text"], "the text layer's stamp is kept beside the transcription"
    assert llm_server.calls["chat"] == 2, "transcriptions are cached by the page image's sha256"


def test_cli_chunk_transcribes_with_the_vision_model_configured(
    llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    llm_server.responder = page_responder(SCANNED_PDF, Settings().image_dpi, transcripts())
    env = {
        "LEGCO_DATA_DIR": str(tmp_path / "data"),
        "LLM_BASE_URL": llm_server.base_url,
        "LLM_MODEL_NAME": llm_server.model,
        "QA_VISION_ENABLED": "true",
    }
    done = cli_chunk(SCANNED_PDF, env, "--strategy", "token")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    text = "".join(r["text"] for r in records).replace("\n", "")
    assert (
        "問 1：政府會否增加郊野公園的垃圾收集次數？" in text
        and "答 2：署方會按優先次序修復受損的行山徑" in text
    )
    assert llm_server.calls["chat"] == 2


def test_failed_transcription_keeps_the_no_text_error(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    llm_server.responder = lambda messages: Fault.status(500)
    with pytest.raises(DocumentError) as failure:
        pipeline.chunk_file(SCANNED_PDF, Strategy.token, llm_server.settings(tmp_path / "data"))
    assert "no extractable text" in str(failure.value) and "\n" not in str(failure.value)
    assert llm_server.calls["chat"] == 2 * (1 + 3), (
        "each page: one call and openai's three retries, then the error"
    )


def test_page_text_stage_records_the_transcription(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    settings = llm_server.settings(tmp_path / "data")
    llm_server.responder = page_responder(SCANNED_PDF, settings.image_dpi, transcripts())
    key = DocumentIndex(settings.documents_dir).register(SCANNED_PDF)
    pipeline.stage_source(settings, key)
    extracted = pipeline.stage_page_text(settings, key)
    assert extracted.extractor.endswith("+vision")
    assert extracted.pages[1].cleaned == transcripts()[1]
    art = Artifacts(settings, key)
    meta = art.read_json("transcription.json")
    assert meta["transcribed"] == [1, 2] and meta["failed"] == [] and meta["stats"]["llm_calls"] == 2
    sections = pipeline.stage_structure(settings, key, llm_server.client()).sections
    assert [s.qa_id for s in sections if s.type == "qa"] == ["1", "2"]
    assert art.read_json("structure.json")["llm"]["reason"] is None, (
        "the rules read the transcription: no structure call"
    )
    assert llm_server.calls["chat"] == 2


@pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")
def test_real_scanned_paper_is_transcribed_page_by_page(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    settings = llm_server.settings(tmp_path / "data", image_dpi=50)
    texts = [
        "就網約車規管的意見書\n本會建議當局盡快為網約車服務訂立發牌制度，並設立過渡期安排，讓現有司機有足夠時間申領牌照及符合新規定。",
        "保險方面，所有網約車必須購買涵蓋乘客的第三者風險保險，保額不應低於的士的水平，平台亦須確保保單在每次行程均有效。",
        "司機須持有正式駕駛執照三年以上，並須通過背景審查；平台亦應公開收費計算方法，讓乘客在確認行程前清楚知道車資。",
    ]
    llm_server.responder = page_responder(REAL_SCANNED, settings.image_dpi, texts)
    source = read_source(REAL_SCANNED)
    records = pipeline.chunk_file(REAL_SCANNED, Strategy.token, settings)
    joined = "".join(r["text"] for r in records)
    assert all(t in joined for t in texts) and "立法會CB(3)641/2026(02)號文件" in joined
    assert llm_server.calls["chat"] == 3 and {r["metadata"]["content_sha256"] for r in records} == {
        source.sha256
    }


# -- a text layer that maps to no characters ------------------------------------------------------
EN_QA = Path(__file__).resolve().parents[1] / "data" / "samples" / "sample_en_qa.pdf"


def without_unicode_map(source: Path, target: Path, pages: set[int] | None = None) -> Path:
    """``source`` with its fonts' ``/ToUnicode`` maps removed on ``pages`` (1-based; all by
    default), as some producers embed fonts: the pages look the same, and PDFium reads their
    glyph numbers, not characters. Pages share their fonts, so the other pages are copied
    from ``source`` itself, with fonts of their own."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject

    garbled = PdfReader(source)
    for page in garbled.pages:
        for font in page["/Resources"].get_object()["/Font"].get_object().values():
            font.get_object().pop(NameObject("/ToUnicode"), None)
    kept = PdfReader(source)
    writer = PdfWriter()
    for number, (plain, bare) in enumerate(zip(kept.pages, garbled.pages), 1):
        writer.add_page(bare if pages is None or number in pages else plain)
    writer.write(target)
    return target


def test_a_text_layer_of_control_codes_is_unreadable_and_real_text_is_not() -> None:
    from legco_assets.core.read.extract import unreadable_text

    assert unreadable_text(
        "\x01\n\x04 \x05\x06\x07\x08\t \n\x0b\x0c \x04\r\x01\x0e\x0f\x0e\x10\x11\x12\x0e\x13\x0e\x14\x01\x13\x10 !\"#$%&'()*+"
    )
    assert not unreadable_text(
        "政府會否增加郊野公園的垃圾收集次數？\uf0fc 僱主須支付\ue473工資，\uf8e7見附件。" * 3
    ), "HKSCS and symbol-font bullets are private use, not garbage"
    assert not unreadable_text("\x01\x02\x03 short"), "too few characters to judge"


def test_a_paper_whose_fonts_have_no_unicode_map_is_a_one_line_error_without_vision(tmp_path: Path) -> None:
    garbled = without_unicode_map(EN_QA, tmp_path / "garbled.pdf")
    done = cli_chunk(garbled, {"LEGCO_DATA_DIR": str(tmp_path / "data")}, "--strategy", "question")
    assert done.returncode == 1 and done.stdout == ""
    pages = len(text_pages(read_source(EN_QA))[1])
    assert done.stderr.strip() == (
        f"legco-assets: error: {garbled}: unreadable text layer ({pages} of {pages} pages: fonts without a Unicode map "
        "give control codes, not characters; configure a vision LLM to transcribe it)"
    )


def test_an_unreadable_page_among_readable_ones_is_left_out_and_named(tmp_path: Path) -> None:
    mixed = without_unicode_map(EN_QA, tmp_path / "mixed.pdf", pages={2})
    done = cli_chunk(mixed, {"LEGCO_DATA_DIR": str(tmp_path / "data")}, "--strategy", "question")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records and not any(ch < " " and ch not in "\n\t" for r in records for ch in r["text"]), (
        "no control code is chunked"
    )
    page_two = max(text_pages(read_source(EN_QA))[1][1].cleaned.split("\n"), key=len)
    assert len(page_two) > 40 and not any(page_two in r["text"] for r in records), (
        "the page's text is left out, not garbled in"
    )
    assert (
        "legco-assets: warning: " in done.stderr
        and "text_layer_readable: 1 page(s) whose text layer maps to no characters" in done.stderr
    )
    assert "(missing_pages 2)" in done.stderr
    assert (
        "set LLM_BASE_URL, LLM_MODEL_NAME and QA_VISION_ENABLED=true to have a vision LLM transcribe them"
        in (done.stderr)
    ), "without a vision model the warning says what to configure, not that a model transcribes"


def test_unreadable_pages_are_transcribed_with_the_vision_model(
    llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    garbled = without_unicode_map(EN_QA, tmp_path / "garbled.pdf")
    originals = [page.cleaned for page in text_pages(read_source(EN_QA))[1]]
    # the model reads pages only
    settings = llm_server.settings(tmp_path / "data").with_(structure_mode="rules")
    llm_server.responder = page_responder(garbled, settings.image_dpi, originals)
    records = pipeline.chunk_file(garbled, Strategy.question, settings)
    expected = pipeline.chunk_file(EN_QA, Strategy.question, settings, use_llm=False)
    assert llm_server.calls["chat"] >= len(originals), (
        "every page's image is read (a table page's once more, for its tables)"
    )
    assert not any(ch < " " and ch not in "\n\t" for r in records for ch in r["text"])
    asked = [r["metadata"]["question_text"] for r in expected if r["metadata"].get("question_text")]
    paired = [r["metadata"]["question_text"] for r in records if r["metadata"].get("question_text")]
    assert len(asked) == 5 and paired == asked, "the transcribed pages pair as the readable paper does"
    assert all(" ".join(q.split()) in " ".join(" ".join(r["text"] for r in records).split()) for q in asked)
