"""Pages/second of the token path next to raw pypdfium2 text extraction, same file, same run.

The paper is the committed LegCo-shaped fixtures' pages repeated up to N pages (default
200). Prints one table; nothing is asserted. Usage:

    .venv/bin/python scripts/bench_token_path.py [--pages 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import pypdfium2 as pdfium

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from legco_assets.core.chunking import TokenChunkingStrategy  # noqa: E402
from legco_assets.core.pipeline import chunk_file  # noqa: E402
from legco_assets.core.read import read_source, text_pages  # noqa: E402
from legco_assets.core.records import DocumentText  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402

FIXTURES = REPO / "legco_assets_tests" / "fixtures" / "pdfs"


def long_paper(pages: int, target: Path) -> Path:
    """Concatenate the fixture papers' pages until ``pages`` pages."""
    out = pdfium.PdfDocument.new()
    sources = [pdfium.PdfDocument(str(p)) for p in sorted(FIXTURES.glob("paper_*.pdf"))]
    while len(out) < pages:
        for src in sources:
            take = min(len(src), pages - len(out))
            if take <= 0:
                break
            out.import_pages(src, list(range(take)))
    out.save(str(target))
    return target


def raw_extraction(path: Path) -> None:
    pdf = pdfium.PdfDocument(str(path))
    for i in range(len(pdf)):
        pdf[i].get_textpage().get_text_range()


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    settings = Settings(data_dir=Path(tempfile.mkdtemp()))
    path = long_paper(args.pages, Path(tempfile.mkdtemp()) / f"paper_{args.pages}.pdf")

    def text_and_tokens() -> None:
        _, pages = text_pages(read_source(path))
        TokenChunkingStrategy().chunk_text("bench", DocumentText.from_pages(pages))

    rows = [
        ("raw pypdfium2 text extraction", best(lambda: raw_extraction(path), args.repeat)),
        ("token path: text + clean + token windows", best(text_and_tokens, args.repeat)),
        (
            "token path end to end (chunk_file, geometric tables)",
            best(lambda: chunk_file(path, Strategy.token, settings, use_llm=False), args.repeat),
        ),
    ]
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{args.pages} pages; best of {args.repeat}"
    )
    print(f"{'stage':<56} {'seconds':>8} {'pages/s':>9} {'x raw':>7}")
    raw = rows[0][1]
    for name, seconds in rows:
        print(f"{name:<56} {seconds:>8.3f} {args.pages / seconds:>9.1f} {seconds / raw:>7.2f}")


if __name__ == "__main__":
    main()
