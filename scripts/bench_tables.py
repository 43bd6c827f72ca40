"""Which geometric extractor: PDFium page objects (ours) against pdfplumber, measured.

For each fixture paper (legco_assets_tests/fixtures/pdfs, with gold tables) and each real
corpus PDF that is present (../shared/corpus/real), prints pages/s of

* ``pdfium``: :func:`legco_assets.core.tables.stage.find_tables` without an LLM (gate, grids, cells,
  continuations), on all pages, and on the table pages alone;
* ``pdfplumber``: ``page.find_tables()`` + ``extract()`` on every page, and on the same table
  pages alone;

and, where there is gold, how many gold tables each reproduces cell for cell (header and
rows, whitespace runs collapsed). Finally a 500-page paper (the fixture papers concatenated
until 500 pages) through ``find_tables``: the stage's share of the >= 50 pages/s budget of
the whole no-LLM pipeline (from 100 pages, worker processes on the spare cores share the
geometry: :class:`legco_assets.core.tables.workers.GeometricTables`).

    .venv/bin/python scripts/bench_tables.py [--no-corpus] [--no-plumber]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from legco_assets.core.read import (  # noqa: E402
    clean_pages,  # noqa: E402
    extract_document,
    read_source,
)
from legco_assets.core.settings import Settings  # noqa: E402
from legco_assets.core.tables import find_tables  # noqa: E402

FIXTURES = ROOT / "legco_assets_tests" / "fixtures" / "pdfs"
CORPUS = ROOT.parent / "shared" / "corpus" / "real"


def norm(cell: str | None) -> str:
    return " ".join((cell or "").split())


def grid_of(header: list, rows: list) -> list[list[str]]:
    return [[norm(c) for c in header]] + [[norm(c) for c in r] for r in rows]


def plumber_cell(cell: str | None) -> str:
    """pdfplumber keeps a cell's line breaks; join them the way a reader would."""
    if not cell:
        return ""
    lines = [ln.strip() for ln in cell.split("\n") if ln.strip()]
    out = lines[0] if lines else ""
    for line in lines[1:]:
        out += ("" if (ord(out[-1]) > 0x2E80 or ord(line[0]) > 0x2E80) else " ") + line
    return out


def run_plumber(
    data: bytes, only: list[int] | None = None
) -> tuple[dict[int, list[list[list[str]]]], float, int]:
    import pdfplumber

    started = time.perf_counter()
    found: dict[int, list[list[list[str]]]] = {}
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        numbers = only if only is not None else list(range(1, len(pdf.pages) + 1))
        for number in numbers:
            page = pdf.pages[number - 1]
            tables = []
            for table in page.find_tables():
                rows = [[plumber_cell(c) for c in row] for row in table.extract()]
                if len(rows) >= 2:
                    tables.append(grid_of(rows[0], rows[1:]))
            if tables:
                found[number] = tables
            page.close()
    return found, time.perf_counter() - started, len(numbers)


def score(gold: dict, found: dict[int, list[list[list[str]]]]) -> tuple[int, int]:
    hits = 0
    for table in gold["tables"]:
        want = grid_of(table["header"], table["rows"])
        hits += any(got == want for got in found.get(table["page"], []))
    return hits, len(gold["tables"])


def bench_file(path: Path, plumber: bool) -> dict:
    source = read_source(path)
    pages = clean_pages(extract_document(source).pages)
    settings = Settings()
    started = time.perf_counter()
    result = find_tables(source.data, pages, settings)
    ours_all = time.perf_counter() - started
    table_pages = result.pages_with_tables
    started = time.perf_counter()
    find_tables(source.data, [p for p in pages if p.number in table_pages], settings)
    ours_tables = time.perf_counter() - started
    ours = {}
    for t in result.tables:
        ours.setdefault(t.page, []).append(grid_of(t.header, t.rows))
    row = {
        "file": path.name,
        "pages": len(pages),
        "table_pages": len(table_pages),
        "tables": len(result.tables),
        "pdfium_pps_all": len(pages) / ours_all,
        "pdfium_pps_table_pages": len(table_pages) / ours_tables if table_pages else None,
    }
    gold_path = path.with_name(path.stem + ".gold.json")
    gold = json.loads(gold_path.read_text(encoding="utf-8")) if gold_path.exists() else None
    if gold:
        row["pdfium_exact"] = score(gold, ours)
    if plumber:
        found, seconds, n = run_plumber(source.data)
        row["plumber_pps_all"] = n / seconds
        row["plumber_tables"] = sum(len(v) for v in found.values())
        if table_pages:
            _, seconds, n = run_plumber(source.data, table_pages)
            row["plumber_pps_table_pages"] = n / seconds
        if gold:
            row["plumber_exact"] = score(gold, found)
    return row


def big_paper(target: int = 500) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    parts = sorted(FIXTURES.glob("*.pdf"))
    while len(writer.pages) < target:
        for part in parts:
            if len(writer.pages) >= target:
                break
            writer.append(str(part))
    while len(writer.pages) > target:
        writer.remove_page(len(writer.pages) - 1)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-corpus", action="store_true", help="fixture papers only")
    parser.add_argument("--no-plumber", action="store_true", help="skip the pdfplumber baseline")
    args = parser.parse_args()
    files = sorted(FIXTURES.glob("*.pdf"))
    if CORPUS.exists() and not args.no_corpus:
        files += sorted(CORPUS.glob("*/*.pdf"))
    print(
        f"{'file':42} {'pages':>5} {'tbl pg':>6} {'tables':>6} | "
        f"{'pdfium p/s':>10} {'tbl pg/s':>8} {'exact':>7} | "
        f"{'plumber p/s':>11} {'tbl pg/s':>8} {'tables':>6} {'exact':>7}"
    )
    totals = {"ours": [0, 0], "plumber": [0, 0]}
    for path in files:
        r = bench_file(path, not args.no_plumber)

        def fmt(value, spec=".0f"):
            return "-" if value is None else format(value, spec)

        ours_exact = r.get("pdfium_exact")
        plumber_exact = r.get("plumber_exact")
        if ours_exact:
            totals["ours"][0] += ours_exact[0]
            totals["ours"][1] += ours_exact[1]
        if plumber_exact:
            totals["plumber"][0] += plumber_exact[0]
            totals["plumber"][1] += plumber_exact[1]
        print(
            f"{r['file'][:42]:42} {r['pages']:>5} {r['table_pages']:>6} {r['tables']:>6} | "
            f"{fmt(r['pdfium_pps_all']):>10} {fmt(r['pdfium_pps_table_pages']):>8} "
            f"{(f'{ours_exact[0]}/{ours_exact[1]}' if ours_exact else '-'):>7} | "
            f"{fmt(r.get('plumber_pps_all')):>11} {fmt(r.get('plumber_pps_table_pages')):>8} "
            f"{fmt(r.get('plumber_tables'), 'd'):>6} "
            f"{(f'{plumber_exact[0]}/{plumber_exact[1]}' if plumber_exact else '-'):>7}"
        )
    print(f"gold tables reproduced cell for cell: pdfium {totals['ours'][0]}/{totals['ours'][1]}", end="")
    if not args.no_plumber:
        print(f", pdfplumber {totals['plumber'][0]}/{totals['plumber'][1]}")
    else:
        print()

    data = big_paper()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "paper_500.pdf"
        path.write_bytes(data)
        source = read_source(path)
        pages = clean_pages(extract_document(source).pages)
        started = time.perf_counter()
        result = find_tables(source.data, pages, Settings())
        seconds = time.perf_counter() - started
    print(
        f"500-page paper (fixtures concatenated): find_tables {len(pages) / seconds:.0f} pages/s "
        f"({seconds:.2f} s, {len(result.pages_with_tables)} table pages, {len(result.tables)} tables)"
    )


if __name__ == "__main__":
    main()
