"""Speed of the no-LLM question pipeline on the real 250-page Chinese Hansard: pages/s of
structure detection alone and of extraction + cleaning + detection + chunking, best of N.

Speed is measured here and printed, never asserted in the tests (a timed test fails on a
busy machine). The Hansard is in the shared corpus (``../shared/corpus/real``), not in the
repository.

    .venv/bin/python scripts/bench_hansard.py [--repeat 3] [PDF]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from legco_assets.core.chunking import QuestionChunkingStrategy
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import DocumentText
from legco_assets.core.structure import detect_structure

HANSARD = Path(__file__).resolve().parents[2] / "shared/corpus/real/legco/hansard_20121121_translate-c.pdf"


def one_run(path: Path) -> tuple[int, int, float, float]:
    """(pages, chunks, detection seconds, whole pipeline seconds)."""
    started = time.perf_counter()
    pages = clean_pages(extract_document(read_source(path)).pages)
    doc = DocumentText.from_pages(pages)
    detected = time.perf_counter()
    sections = detect_structure(doc)
    detect_s = time.perf_counter() - detected
    chunks = QuestionChunkingStrategy().chunk_text("hansard", doc, sections)
    return len(pages), len(chunks), detect_s, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdf", nargs="?", type=Path, default=HANSARD)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs = [one_run(args.pdf) for _ in range(args.repeat)]
    pages, chunks = runs[0][:2]
    detect_s, total_s = min(r[2] for r in runs), min(r[3] for r in runs)
    print(f"{args.pdf.name}: {pages} pages, {chunks} question chunks (best of {args.repeat})")
    print(f"structure detection: {detect_s:.3f} s = {pages / detect_s:,.0f} pages/s")
    print(f"extract + clean + detect + chunk: {total_s:.3f} s = {pages / total_s:,.0f} pages/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
