"""An attendance list (``MEMBERS PRESENT:`` / ``出席議員：``, one name per line) is one narrative
section: a member's name without honours is short and bare like a title, but a run of lines
of the same form (``THE HONOURABLE …``, ``…議員``) is a list, in PDF and HTML alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_file
from legco_assets.core.read import read_source, text_pages
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure import find_structure
from legco_assets.core.structure.rosters import in_name_list

from .conftest import CORPUS
from .pdf_factory import make_pdf

EN_NAMES = [
    "THE PRESIDENT",
    "THE HONOURABLE JASPER TSANG YOK-SING, G.B.S., J.P.",
    "THE HONOURABLE ALBERT HO CHUN-YAN",
    "THE HONOURABLE LEE CHEUK-YAN",
    "THE HONOURABLE CHAN KAM-LAM, S.B.S., J.P.",
    "THE HONOURABLE LEUNG YIU-CHUNG",
    "DR THE HONOURABLE LAU WONG-FAT, G.B.M., G.B.S., J.P.",
    "THE HONOURABLE EMILY LAU WAI-HING, J.P.",
    "THE HONOURABLE KWOK WAI-KEUNG",
    "THE HONOURABLE CHRISTOPHER CHEUNG WAH-FUNG, S.B.S., J.P.",
]
EN_RECORD = [
    "OFFICIAL RECORD OF PROCEEDINGS",
    "Wednesday, 29 April 2015",
    "The Council met at Eleven o'clock",
    "MEMBERS PRESENT:",
    *EN_NAMES,
    "TABLING OF PAPERS",
    "The following papers were laid on the Table under Rule 21(2) of the Rules of Procedure today.",
    "WRITTEN ANSWERS TO QUESTIONS",
    "Fuel Prices",
    "1. DR ELIZABETH QUAT (in Chinese): President, will the Government inform this Council of the fuel prices?",
    "SECRETARY FOR THE ENVIRONMENT (in Chinese): President, the prices are monitored every week by the department.",
    "Public Library Services",
    "2. MR CHRISTOPHER CHUNG (in Chinese): President, will the Government inform this Council of the opening hours?",
    "SECRETARY FOR HOME AFFAIRS (in Chinese): President, the libraries open seven days a week in all districts.",
]
ZH_NAMES = [
    "梁耀忠議員",
    "劉皇發議員, 大紫荊勳賢, G.B.S., J.P.",
    "劉慧卿議員, J.P.",
    "陳家洛議員",
    "陳婉嫻議員, S.B.S., J.P.",
    "郭偉强議員",
]


def _headings(path: Path) -> list[str]:
    _, pages = text_pages(read_source(path))
    return [h for s in find_structure(pages, Settings()).sections for h in s.path]


def test_a_run_of_names_of_one_form_is_a_list() -> None:
    lines = [
        "MEMBERS PRESENT:",
        *EN_NAMES,
        "TABLING OF PAPERS",
        "The following papers were laid on the Table.",
    ]
    assert all(in_name_list(lines, i) for i in range(2, 1 + len(EN_NAMES)))
    assert not in_name_list(lines, len(lines) - 2)  # a heading after the list is no name
    assert all(in_name_list(["出席議員：", *ZH_NAMES], i) for i in range(1, len(ZH_NAMES) + 1))
    # two titles in a row are not a list of names
    assert not in_name_list(["Fuel Prices", "Public Library Services", "1. DR QUAT: President, …"], 0)


def test_html_attendance_list_is_one_narrative_section(tmp_path: Path) -> None:
    page = tmp_path / "council_hansard-e.html"
    body = "".join(f"<p>{line}</p>" for line in EN_RECORD)
    page.write_text(f"<html><head><title>Hansard</title></head><body>{body}</body></html>", encoding="utf-8")
    headings = _headings(page)
    assert not any("HONOURABLE" in h for h in headings), headings
    assert "TABLING OF PAPERS" in headings and "Fuel Prices" in headings
    records = chunk_file(page, Strategy.question, Settings(), use_llm=False)
    holding = [r for r in records if "THE HONOURABLE" in r["text"]]
    assert len(holding) == 1 and holding[0]["metadata"]["section_type"] == "narrative"
    assert all(name.split(",")[0] in holding[0]["text"] for name in EN_NAMES)


def test_pdf_attendance_list_is_one_narrative_section(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "council_record.pdf", [EN_RECORD[:12], EN_RECORD[12:]], footer=None)
    assert not any("HONOURABLE" in h for h in _headings(pdf))
    records = chunk_file(pdf, Strategy.question, Settings(), use_llm=False)
    assert sum("THE HONOURABLE" in r["text"] for r in records) == 1


real = pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")


@real
@pytest.mark.parametrize(
    "relative",
    [
        "legco/hansard_20150429-e.html",
        "legco/hansard_20150429-c.html",
        "legco/hansard_20121121_translate-c.pdf",
    ],
)
def test_real_hansard_attendance_names_are_never_headings(relative: str) -> None:
    headings = _headings(CORPUS / relative)
    assert not any("HONOURABLE" in h or h.endswith("議員") for h in headings), [
        h for h in headings if "議員" in h or "HONOUR" in h
    ][:5]
    assert headings  # the record's own headings are still found
