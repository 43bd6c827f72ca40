"""Make an N-page LegCo-style paper by concatenating the fixture papers' pages.

Why: the benchmark needs papers of 10, 100 and 500 pages that look like what the pipeline
reads (Chinese and English Q&A, speaking notes, ruled tables, footers), not filler. The
committed fixture papers and the README samples are imported page by page with pypdfium2
(``PdfDocument.import_pages``), cycling through them in a fixed order, until N pages are
reached; the same N always gives the same page sequence.

``--table-light`` leaves out the table fixture (``paper_a_tables``: 38 tables on 18 pages)
and adds the outline fixtures (narrative under a three-level outline, no tables): what most
real papers look like, narrative and Q&A with a table now and then (about one page in five
has a table), where the default mix is table-dense (304 tables on 204 of 500 pages).

    python scripts/make_long_paper.py 500 /tmp/paper-500.pdf
    python scripts/make_long_paper.py 480 /tmp/paper-480-light.pdf --table-light
"""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted((REPO / "legco_assets_tests" / "fixtures" / "pdfs").glob("paper_*.pdf")) + sorted(
    (REPO / "data" / "samples").glob("*.pdf")
)
TABLE_LIGHT_SOURCES = [p for p in SOURCES if "tables" not in p.stem] + sorted(
    (REPO / "legco_assets_tests" / "fixtures" / "outline").glob("*.pdf")
)


def make_long_paper(pages: int, target: Path, sources: list[Path] | None = None) -> Path:
    """Write an exactly ``pages``-page PDF to ``target`` built from ``sources``' pages."""
    import pypdfium2 as pdfium

    sources = sources or SOURCES
    if not sources:
        raise SystemExit("no source papers: run python -m legco_assets_tests.fixtures.generate_fixtures")
    opened = [pdfium.PdfDocument(str(path)) for path in sources]
    out = pdfium.PdfDocument.new()
    try:
        index = 0
        while len(out) < pages:
            source = opened[index % len(opened)]
            take = min(len(source), pages - len(out))
            out.import_pages(source, list(range(take)))
            index += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        out.save(str(target))
        assert len(out) == pages
        return target
    finally:
        out.close()
        for doc in opened:
            doc.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", type=int, help="number of pages of the result")
    parser.add_argument("target", type=Path, help="where to write the PDF")
    parser.add_argument(
        "--table-light",
        action="store_true",
        help="narrative and Q&A with few tables (no table fixture, plus the outline fixtures)",
    )
    args = parser.parse_args()
    sources = TABLE_LIGHT_SOURCES if args.table_light else SOURCES
    path = make_long_paper(args.pages, args.target, sources)
    print(f"{path}: {args.pages} pages, {path.stat().st_size:,} bytes from {len(sources)} source papers")


if __name__ == "__main__":
    main()
