"""Numbered questions a Hansard prints against the exchanges the structure rules make.

For each Council record given (default: the real corpus's Hansards: the session sample
``legco/session1213/`` and the 2012 record as PDF and as PDFBox text), count the numbered
member questions the paper itself prints (``7. 姚思榮議員：…`` lines under the oral and written
question headings, ``(譯文)`` or not) and how many of them became an exchange of their own
(a ``qa`` section whose id is that number, main or written), naming the ones that did not.

    PYTHONPATH=$PWD .venv/bin/python scripts/hansard_questions.py [FILE ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import DocumentText
from legco_assets.core.structure import detect_structure, printed_questions

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "corpus" / "real" / "legco"


def exchanges_found(doc: DocumentText) -> set[int]:
    """Numbers with a main or written exchange of their own."""
    return {
        int(s.qa_id)
        for s in detect_structure(doc)
        if s.type == "qa" and s.qa_id and s.qa_id.isdigit() and s.question_kind != "supplementary"
    }


def papers(args: list[str]) -> list[Path]:
    if args:
        return [Path(a) for a in args]
    return sorted((REAL / "session1213").glob("*.txt")) + [
        REAL / "hansard_20121121_translate-c.pdfbox.txt",
        REAL / "hansard_20121121_translate-c.pdf",
    ]


def main() -> int:
    total = found_total = 0
    for path in papers(sys.argv[1:]):
        doc = DocumentText.from_pages(clean_pages(extract_document(read_source(path)).pages))
        numbered = printed_questions(doc.text)
        found = exchanges_found(doc)
        missed = [n for n in numbered if n not in found]
        total, found_total = total + len(numbered), found_total + len(numbered) - len(missed)
        print(
            f"{path.name}: numbered {len(numbered)}, found {len(numbered) - len(missed)}"
            + (f", missed {missed}" if missed else "")
        )
    print(f"all: numbered {total}, found {found_total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
