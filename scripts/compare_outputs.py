"""Chunk every sample and real paper with both strategies (no LLM) and write, or compare,
one JSON Lines file per paper and strategy. A refactor that must change no output runs it
before (``--write DIR``) and after (``--compare DIR``): any byte that differs is named.

    python scripts/compare_outputs.py --write /tmp/before
    python scripts/compare_outputs.py --compare /tmp/before
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "corpus" / "real"
SUFFIXES = {".pdf", ".html", ".htm", ".docx", ".txt", ".md"}


def papers() -> list[Path]:
    """The sample papers, the committed fixtures' PDFs and HTML, and the real corpus."""
    found = sorted((ROOT / "data" / "samples").glob("*"))
    found += sorted((ROOT / "legco_assets_tests" / "fixtures").rglob("*"))
    if REAL.is_dir():
        found += sorted(REAL.rglob("*"))
    return [p for p in found if p.suffix.lower() in SUFFIXES and p.is_file()]


def render(path: Path, strategy: str) -> str:
    """The chunk records as ``legco-assets chunk --no-llm`` prints them, or the error line."""
    from legco_assets.core.errors import DocumentError
    from legco_assets.core.pipeline import chunk_file
    from legco_assets.core.settings import Settings, Strategy

    try:
        records = chunk_file(
            path, Strategy.parse(strategy), Settings.from_env(), use_llm=False, warn=lambda m: None
        )
    except DocumentError as exc:
        # the paper's path as seen from this checkout's parent: a worktree's run compares equal
        return f"error: {str(exc).replace(str(ROOT.parent), '')}\n"
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path)
    group.add_argument("--compare", type=Path)
    args = parser.parse_args()
    differ = 0
    for path in papers():
        for strategy in ("token", "question"):
            name = f"{path.relative_to(path.parents[1]).as_posix().replace('/', '__')}.{strategy}.jsonl"
            text = render(path, strategy)
            if args.write:
                args.write.mkdir(parents=True, exist_ok=True)
                (args.write / name).write_text(text, encoding="utf-8")
                continue
            before = (
                (args.compare / name).read_text(encoding="utf-8") if (args.compare / name).exists() else None
            )
            same = before == text
            differ += not same
            print(f"{'same ' if same else 'DIFFERS'} {name} ({text.count(chr(10))} lines)")
    if args.compare:
        print(f"{differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
