"""PDFium's functions called without argument conversion answer as pypdfium2's declared
ones do: the same C functions with the same return types, read on every page of the sample
papers and the committed fixture PDFs (objects, characters, text rectangles, fonts)."""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as raw

from legco_assets.core.read.pdfium_calls import NAMES, bare_calls

ROOT = Path(__file__).resolve().parents[1]
PAPERS = sorted((ROOT / "data" / "samples").glob("*.pdf")) + sorted(
    (ROOT / "legco_assets_tests" / "fixtures" / "pdfs").glob("*.pdf")
)


def test_each_function_keeps_its_return_type() -> None:
    calls = bare_calls()
    for name in NAMES:
        typed, bare = getattr(raw, name), getattr(calls, name)
        assert bare.restype is typed.restype, name
        assert bare.argtypes is None, name
        assert ctypes.cast(bare, ctypes.c_void_p).value == ctypes.cast(typed, ctypes.c_void_p).value, name


def _doubles() -> tuple[list[ctypes.c_double], list[object]]:
    values = [ctypes.c_double() for _ in range(4)]
    return values, [ctypes.byref(v) for v in values]


def _page_answers(calls: Any, page: object, textpage: object, typed: bool) -> list[object]:
    """Everything the hot loops ask of one page, through ``calls``: typed calls get ctypes
    numbers (converted to pointers), bare ones references."""
    values, refs = _doubles()
    args = values if typed else refs
    loose = raw.FS_RECTF()
    answers: list[object] = []
    for i in range(calls.FPDFPage_CountObjects(page)):
        obj = calls.FPDFPage_GetObject(page, i)
        answers.append((calls.FPDFPageObj_GetType(obj), calls.FPDFTextObj_GetTextRenderMode(obj)))
    count = raw.FPDFText_CountChars(textpage)
    for i in range(count):
        found = calls.FPDFText_GetCharBox(textpage, i, *args)
        box = tuple(v.value for v in values)
        calls.FPDFText_GetLooseCharBox(textpage, i, ctypes.byref(loose))
        obj = calls.FPDFText_GetTextObject(textpage, i)
        font = calls.FPDFTextObj_GetFont(obj) if obj else None
        answers.append(
            (
                found,
                box,
                (loose.left, loose.top, loose.right, loose.bottom),
                calls.FPDFText_GetFontSize(textpage, i),
                calls.FPDFText_GetFontWeight(textpage, i),
                calls.FPDFText_IsGenerated(textpage, i),
                ctypes.cast(font, ctypes.c_void_p).value if font else None,
            )
        )
    rects = calls.FPDFText_CountRects(textpage, 0, count)
    for i in range(rects):
        calls.FPDFText_GetRect(textpage, i, *args)
        answers.append(tuple(v.value for v in values))
    return answers


def test_bare_calls_answer_as_the_declared_ones() -> None:
    assert PAPERS
    calls, pages, chars = bare_calls(), 0, 0
    for path in PAPERS:
        pdf = pdfium.PdfDocument(path)
        try:
            for page in pdf:
                textpage = page.get_textpage()
                try:
                    typed = _page_answers(raw, page.raw, textpage.raw, typed=True)
                    bare = _page_answers(calls, page.raw, textpage.raw, typed=False)
                finally:
                    textpage.close()
                    page.close()
                assert bare == typed, f"{path.name} page {pages}"
                chars += sum(1 for a in typed if isinstance(a, tuple) and len(a) == 7)
                pages += 1
        finally:
            pdf.close()
    assert pages >= len(PAPERS) and chars > 1000
