"""How well every chunk's excerpt shows its chunk, per paper and strategy (issue 30).

For each paper (the real corpus by default, or the files given) and both strategies: chunk it
(``chunk_file``, no LLM), write the excerpts (``write_excerpts``) into a temp folder, read the
highlighted characters back from each excerpt file and count the chunks whose highlight holds
at least 99% of the chunk's own characters (Markdown tables and whitespace normalised; the
heading-path / follow-up context line the chunker adds is not the paper's text there).
Prints one line per paper and strategy, then the totals, excerpts/s and disk use.

    .venv/bin/python scripts/check_excerpts.py [FILE ...]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from legco_assets.core import pipeline  # noqa: E402
from legco_assets.core.errors import DocumentError  # noqa: E402
from legco_assets.core.excerpts import held_ratio, write_excerpts  # noqa: E402
from legco_assets.core.read import read_source  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "real"
HOLDS = 0.99


def papers(args: list[str]) -> list[Path]:
    if args:
        return [Path(a) for a in args]
    return sorted(p for p in CORPUS.rglob("*") if p.suffix.lower() in (".pdf", ".html", ".htm", ".docx", ".txt", ".md") and ".pdfbox" not in p.name and p.name != "MANIFEST.md")


def main(args: list[str]) -> int:
    settings = Settings.from_env()
    totals = {"chunks": 0, "held": 0, "written": 0, "seconds": 0.0, "bytes": 0}
    print(f"{'paper':<44} {'strategy':<9} {'chunks':>6} {'held':>6} {'share':>7} {'min':>6} {'exc/s':>6} {'MB':>7}")
    with tempfile.TemporaryDirectory(prefix="legco-excerpts-") as tmp:
        for path in papers(args):
            try:
                source = read_source(path)
                extracted, pages = pipeline.text_pages(source)
            except DocumentError as exc:
                print(f"{path.name:<44} skipped: {exc.reason}")
                continue
            for strategy in Strategy:
                try:
                    records = pipeline.chunk_file(path, strategy, settings, use_llm=False)
                except DocumentError as exc:
                    print(f"{path.name:<44} {strategy.value:<9} skipped: {exc.reason}")
                    break
                folder = Path(tmp) / path.stem / strategy.value
                kind = "text" if extracted.kind == "pdf" and extracted.extractor == "pypdf" else extracted.kind
                report = write_excerpts(folder, kind, source.data, pages, records, source.sha256, path.name)
                ratios = [held_ratio(r, folder / e.file) for r, e in zip(records, report.excerpts)]
                held = sum(r >= HOLDS for r in ratios)
                size = sum(f.stat().st_size for f in folder.iterdir())
                rate = report.written / report.seconds if report.seconds else 0.0
                print(
                    f"{path.name[:44]:<44} {strategy.value:<9} {len(records):>6} {held:>6} {held / max(1, len(records)):>7.1%} "
                    f"{min(ratios, default=1):>6.3f} {rate:>6.1f} {size / 1e6:>7.1f}"
                )
                totals["chunks"] += len(records)
                totals["held"] += held
                totals["written"] += report.written
                totals["seconds"] += report.seconds
                totals["bytes"] += size
    share = totals["held"] / max(1, totals["chunks"])
    print(
        f"\nall: {totals['held']} of {totals['chunks']} chunks held ({share:.2%}); "
        f"{totals['written'] / max(totals['seconds'], 1e-9):.1f} excerpts/s; {totals['bytes'] / 1e6:.0f} MB"
    )
    return 0 if share >= HOLDS else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
