"""How well every chunk's excerpt shows its chunk, per paper and strategy.

For each paper (the real corpus by default, or the files given) and both strategies: chunk it
(``chunk_file``, no LLM), write the excerpts (``write_excerpts``) into a temp folder, read the
highlighted characters back from the strategy's excerpt file by chunk and count the chunks
whose highlight holds at least 99% of the chunk's own characters (Markdown tables and
whitespace normalised; the heading-path / follow-up context line the chunker adds is not the
paper's text there). Prints one line per paper and strategy (with the stored excerpts' size
against the paper's), then the totals, excerpts/s and disk use.

``--data DIR`` checks an ingested data folder instead: for every paper and strategy, that
what every chunk's link (``chunk_file_path``, ``excerpt/<id>``) opens is its own excerpt
(``cut_chunk_excerpt``: a PDF whose only highlight names the chunk, or a page whose marks
are the chunk's), and that the strategy's excerpts take no more than the paper; it prints
the size table per paper. Exit 1 when either fails.

    .venv/bin/python scripts/check_excerpts.py [FILE ...]
    .venv/bin/python scripts/check_excerpts.py --data /tmp/excerpts/data
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from legco_assets.core import pipeline  # noqa: E402
from legco_assets.core.errors import DocumentError  # noqa: E402
from legco_assets.core.excerpts import (  # noqa: E402
    chunk_link,
    cut_chunk_excerpt,
    held_share,
    highlighted_texts,
    shown_in,
    shown_of,
    shown_texts,
    write_excerpts,
)
from legco_assets.core.read import read_source, text_pages  # noqa: E402
from legco_assets.core.records import ChunkRecord  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "real"
HOLDS = 0.99


def papers(args: list[str]) -> list[Path]:
    if args:
        return [Path(a) for a in args]
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.suffix.lower() in (".pdf", ".html", ".htm", ".docx", ".txt", ".md")
        and ".pdfbox" not in p.name
        and p.name != "MANIFEST.md"
    )


def main(args: list[str]) -> int:
    settings = Settings.from_env()
    totals = {"chunks": 0, "held": 0, "written": 0, "seconds": 0.0, "bytes": 0}
    print(
        f"{'paper':<44} {'strategy':<9} {'chunks':>6} {'held':>6} {'share':>7} "
        f"{'min':>6} {'exc/s':>6} {'MB':>7}"
    )
    with tempfile.TemporaryDirectory(prefix="legco-excerpts-") as tmp:
        for path in papers(args):
            try:
                source = read_source(path)
                extracted, pages = text_pages(source)
            except DocumentError as exc:
                print(f"{path.name:<44} skipped: {exc.reason}")
                continue
            for strategy in Strategy:
                try:
                    records = pipeline.chunk_paper(
                        path, strategy, settings, use_llm=False, check=False
                    ).records
                except DocumentError as exc:
                    print(f"{path.name:<44} {strategy.value:<9} skipped: {exc.reason}")
                    break
                folder = Path(tmp) / path.stem / "excerpts"
                folder.mkdir(parents=True, exist_ok=True)
                (folder.parent / "source.pdf").write_bytes(source.data)
                kind = (
                    "text" if extracted.kind == "pdf" and extracted.extractor == "pypdf" else extracted.kind
                )
                report = write_excerpts(
                    folder, strategy, kind, source.data, pages, records, source.sha256, path.name
                )
                texts = shown_texts(folder / report.file)
                ratios = [held_share(r, shown_of(r, texts)) for r in records]
                held = sum(r >= HOLDS for r in ratios)
                size = report.bytes
                rate = report.written / report.seconds if report.seconds else 0.0
                print(
                    f"{path.name[:44]:<44} {strategy.value:<9} {len(records):>6} {held:>6} "
                    f"{held / max(1, len(records)):>7.1%} "
                    f"{min(ratios, default=1):>6.3f} {rate:>6.1f} "
                    f"{size / 1e6:>7.2f} {size / len(source.data):>7.3f}"
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


def check_data(data: Path) -> int:
    """Every chunk's ``chunk_file_path`` in an ingested data folder opens its highlighted
    page, and each strategy's excerpts of a paper take no more than the paper."""
    from legco_assets.core.artifacts import Artifacts, chunks_file
    from legco_assets.core.excerpts import with_excerpt_paths

    settings = Settings.from_env().with_(data_dir=data)
    bad, chunks, over = 0, 0, 0
    print(
        f"{'paper':<46} {'source MB':>9} "
        + " ".join(f"{s.value + ' MB':>11} {'ratio':>6}" for s in Strategy)
        + f" {'opened':>8}"
    )
    for folder in sorted(p for p in settings.documents_dir.iterdir() if (p / "source.json").exists()):
        art = Artifacts(settings, folder.name)
        info = art.source()
        paper = art.path("source" + Path(info.filename).suffix.lower()).stat().st_size
        cells, opened = [], 0
        for strategy in Strategy:
            if not art.has(chunks_file(strategy)):
                cells.append(f"{'-':>11} {'-':>6}")
                continue
            records = with_excerpt_paths(art.read_chunks(strategy))
            stored = sorted((folder / "excerpts").glob(f"{strategy.value}.*"))
            size = sum(f.stat().st_size for f in stored if not f.name.endswith(".json"))
            over += size > paper
            cells.append(f"{size / 1e6:>11.3f} {size / paper:>6.3f}")
            for record in records:
                chunks += 1
                ok = _opens(settings, record)
                opened += ok
                bad += not ok
        print(f"{folder.name[:46]:<46} {paper / 1e6:>9.3f} " + " ".join(cells) + f" {opened:>8}")
    print(
        f"\n{chunks - bad} of {chunks} chunk links open their own excerpt (only its highlight); "
        f"{over} paper-strategies over the paper's size"
    )
    return 0 if bad == 0 and over == 0 else 1


def _opens(settings: Settings, record: ChunkRecord) -> bool:
    """The link names the chunk's own excerpt, and what it opens marks that chunk alone."""
    if record.metadata.chunk_file_path != chunk_link(record.id):
        return False
    try:
        data, extension = cut_chunk_excerpt(settings, record.id)
    except (OSError, KeyError, ValueError):
        return False
    if extension == "pdf" and list(highlighted_texts(data)) != [record.id]:
        return False
    return held_share(record, shown_in(data, extension)) > 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--data"]:
        sys.exit(check_data(Path(sys.argv[2])))
    sys.exit(main(sys.argv[1:]))
