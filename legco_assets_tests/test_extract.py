"""Reading the text layer: pages from 1, encrypted/corrupt/odd inputs give one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docx
import pytest

from legco_assets.core.errors import DocumentError
from legco_assets.core.read.extract import _pypdf_texts, extract_document, read_source

from .conftest import CORPUS
from .pdf_factory import encrypt_pdf, make_pdf

LINES = [["Question one is here", "Answer one follows"], ["Second page text", "More on page two"]]


def test_pages_numbered_from_one_with_pypdfium2(tmp_path: Path) -> None:
    doc = extract_document(read_source(make_pdf(tmp_path / "a.pdf", LINES)))
    assert doc.extractor == "pypdfium2"
    assert [p.number for p in doc.pages] == [1, 2]
    assert "Second page text" in doc.pages[1].raw and "E-2" in doc.pages[1].raw


def test_pypdf_reader_gives_the_same_pages(tmp_path: Path) -> None:
    source = read_source(make_pdf(tmp_path / "a.pdf", LINES))
    texts, off_page = _pypdf_texts(source)
    assert len(texts) == 2 and "Question one is here" in texts[0]
    assert off_page == [0, 0]


def test_encrypted_with_empty_user_password_opens(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", LINES)
    doc = extract_document(read_source(encrypt_pdf(plain, tmp_path / "enc.pdf", "")))
    assert "Answer one follows" in doc.pages[0].raw


def test_encrypted_with_unknown_password_is_a_clean_error(tmp_path: Path) -> None:
    plain = make_pdf(tmp_path / "plain.pdf", LINES)
    locked = encrypt_pdf(plain, tmp_path / "locked.pdf", "secret")
    with pytest.raises(DocumentError, match="encrypted PDF"):
        extract_document(read_source(locked))


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("fake.pdf", b"PK\x03\x04 this is a zip", "not a PDF"),
        ("empty.pdf", b"", "empty file"),
        ("empty.txt", b"   \n", "empty document"),
        ("notes.xls", b"data", "unsupported file type"),
    ],
)
def test_bad_inputs_name_the_file_and_reason(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DocumentError) as err:
        extract_document(read_source(path))
    assert reason in str(err.value) and str(path) in str(err.value) and "\n" not in str(err.value)


def test_truncated_pdf_is_a_clean_error(tmp_path: Path) -> None:
    data = make_pdf(tmp_path / "a.pdf", LINES).read_bytes()
    (tmp_path / "cut.pdf").write_bytes(data[: len(data) // 3])
    with pytest.raises(DocumentError, match="corrupt or truncated"):
        extract_document(read_source(tmp_path / "cut.pdf"))


def test_docx_txt_and_markdown_are_one_page(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("問 A1：排水系統？")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([["項目", "數量"], ["泵房", "11 991"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.save(str(tmp_path / "a.docx"))
    (tmp_path / "b.md").write_text("# Title\n\nQ1 What?\n", encoding="utf-8")
    word = extract_document(read_source(tmp_path / "a.docx"))
    assert word.extractor == "python-docx" and len(word.pages) == 1
    assert "| 泵房 | 11 991 |" in word.pages[0].raw
    assert extract_document(read_source(tmp_path / "b.md")).pages[0].raw.startswith("# Title")


@pytest.mark.skipif(not CORPUS.exists(), reason="real corpus (../shared/corpus/real) not present")
def test_real_aes_encrypted_guides_open() -> None:
    for name in ("ld_ECO_guide_with_FAQ_en.pdf", "ld_EO_concise_guide_tc.pdf"):
        doc = extract_document(read_source(CORPUS / "hkgov" / name))
        assert len(doc.pages) == 64 and sum(len(p.raw) for p in doc.pages) > 30_000


@pytest.mark.parametrize("name", ["sample_zh_qa.pdf", "paper_a_tables.pdf"])
@pytest.mark.parametrize("strategy", ["question", "token"])
def test_pages_turned_for_display_read_as_drawn(name: str, strategy: str, tmp_path: Path) -> None:
    """A page rotated in a viewer (/Rotate) keeps its content as drawn; PDFium orders such a
    page's characters by the lines they make on screen, which scrambled its lines and split
    its pairs. Read upright, the turned paper gives the chunks of the original, tables too."""
    from legco_assets.core.pipeline import chunk_file
    from legco_assets.core.settings import Settings, Strategy

    from .conftest import SAMPLES, fixture_pdf, rotated_copy

    original = SAMPLES / name if name.startswith("sample") else fixture_pdf(name)
    turned = rotated_copy(original, tmp_path / name)
    chunks = [
        chunk_file(p, Strategy(strategy), Settings.from_env(), use_llm=False) for p in (original, turned)
    ]
    assert [(c["text"], c["metadata"]["page_start"]) for c in chunks[1]] == [
        (c["text"], c["metadata"]["page_start"]) for c in chunks[0]
    ]
    assert len(chunks[0]) >= 9


DOCX_ASKED = [
    "How do I apply for the scheme online?",
    "What documents must I submit with the form?",
    "Can I appeal if my application is refused?",
]
DOCX_ANSWERED = [
    "Through the online portal, at any time of the day.",
    "A copy of your identity card and proof of address.",
    "Yes, within 28 days of the decision letter.",
]


def _bold(document: Any, question: str, answer: str) -> None:
    document.add_paragraph().add_run(question).bold = True
    document.add_paragraph(answer)


def _listed(document: Any, question: str, answer: str) -> None:
    document.add_paragraph(question, style="List Number")  # Word numbers it: no number in the text
    document.add_paragraph(answer)


@pytest.mark.parametrize("style", ["bold", "list_number", "table"])
def test_a_docx_faq_without_labels_gives_a_pair_per_question(style: str, tmp_path: Path) -> None:
    """Word FAQs set each question apart without a label or a heading style: in bold, as an
    item of a numbered list, or in a table beside its answer. Each made no pair (the guard
    warned): the DOCX reader now gives such a question as a heading hint, as the HTML reader
    does a line all in bold or an FAQ table's row (``read.qa_tables``, one rule for both), so
    each question and its answer are a pair. A bold paragraph that does not ask stays text."""
    from legco_assets.core.pipeline import chunk_file
    from legco_assets.core.settings import Settings, Strategy

    document = docx.Document()
    document.add_heading("Frequently Asked Questions on the Subsidy Scheme", 1)
    document.add_paragraph().add_run("Please read these notes before you apply.").bold = True
    if style == "table":
        table = document.add_table(rows=1, cols=3)
        for cell, text in zip(table.rows[0].cells, ("No.", "Question", "Answer")):
            cell.text = text
        for n, (question, answer) in enumerate(zip(DOCX_ASKED, DOCX_ANSWERED), 1):
            for cell, text in zip(table.add_row().cells, (f"{n}.", question, answer)):
                cell.text = text
    else:
        for question, answer in zip(DOCX_ASKED, DOCX_ANSWERED):
            (_bold if style == "bold" else _listed)(document, question, answer)
    path = tmp_path / "faq.docx"
    document.save(path)
    hints = extract_document(read_source(path)).pages[0].headings
    numbered = [f"{n}. " if style == "table" else "" for n in range(1, 4)]
    assert hints == [["Frequently Asked Questions on the Subsidy Scheme", 1]] + [
        [f"{n}{q}", 6] for n, q in zip(numbered, DOCX_ASKED)
    ]
    pairs = [
        r
        for r in chunk_file(path, Strategy.question, Settings(data_dir=tmp_path / "data"), use_llm=False)
        if r["metadata"]["section_type"] == "qa"
    ]
    assert [p["metadata"]["question_text"] for p in pairs] == DOCX_ASKED
    assert [p["text"].split("\n")[-1] for p in pairs] == DOCX_ANSWERED


def test_every_name_of_the_read_package_is_what_its_module_defines() -> None:
    """The names the read package offers, those loaded when first asked for included, are
    the functions and values their modules define, never a submodule of the same name
    (a submodule imported first is an attribute of the package under its own name)."""
    import types
    from importlib import import_module

    from legco_assets.core import read

    for name in read.__all__:
        value = getattr(read, name)
        assert not isinstance(value, types.ModuleType), name
    assert read.text_pages is import_module("legco_assets.core.read.paper").text_pages
    assert read.NO_TEXT == import_module("legco_assets.core.read.transcribe").NO_TEXT
