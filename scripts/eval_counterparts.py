r"""Does letting a chunk inherit its other-language counterpart's rank help? (hybrid, no LLM)

Ingests each held-out set once (question strategy, counterparts linked as ``vector_index``
links them) and scores hybrid search for several ``Fusion.counterpart_share`` values from the
same rankings. Prints per set and pooled: same- and cross-language Hit@1 / Hit@5 / MRR, and,
for cross-language questions, the same with a hit on the gold chunk's counterpart counted
("either version": the same answer in the question's language).

``--both-versions`` adds to each set's papers the other-language version of each of its papers
that the corpus has (by the name convention), e.g. the English Hansard of 29 April 2015 to
``hansard-2015-zh``, which leaves it out on purpose.

    .venv/bin/python scripts/eval_counterparts.py [--held-out all|NAME,…] \
        [--shares 0,0.5,0.8,0.95,1] [--both-versions]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from legco_assets.core.evaluation import (  # noqa: E402
    HELD_OUT,
    REAL_CORPUS,
    EvalRun,
    holds_answer_end,
    paper_language,
    prepare_eval,
    rank,
)
from legco_assets.core.search import DEFAULT_FUSION, Mode  # noqa: E402
from legco_assets.core.settings import Settings  # noqa: E402
from legco_assets.core.sources import proposed_partner  # noqa: E402


def with_counterparts(gold: Path, out: Path) -> Path:
    """A copy of the gold file whose papers include each paper's counterpart in the corpus."""
    data = json.loads(gold.read_text(encoding="utf-8"))
    papers = list(data["papers"])
    for name in list(papers):
        folder = REAL_CORPUS / Path(name).parent
        others = {str(Path(name).parent / p.name): p.name for p in folder.iterdir() if p.is_file()}
        partner = proposed_partner(Path(name).name, others)
        if partner and partner not in papers:
            papers.append(partner)
    data["papers"] = papers
    out.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return out


def first_ranks(run: EvalRun, share: float) -> list[tuple[bool, int | None, int | None]]:
    """Per question: (cross-language, first rank of a gold chunk, first rank of a gold chunk
    or its counterpart), hybrid, question strategy."""
    scope = run.retriever.scope("question")
    fusion = replace(DEFAULT_FUSION, counterpart_share=share)
    out = []
    for q in run.questions:
        paper = run.papers[q.document]
        anchor = paper.anchor(q)
        gold = {r.id for r in scope.records if holds_answer_end(r, paper.document_id, anchor)}
        partners = {r.metadata.counterpart_id for r in scope.records if r.id in gold} - {None}
        hits = rank(run.rankings[(q.id, "question")], q.question, Mode.hybrid, fusion, scope)
        first = next((i for i, h in enumerate(hits, 1) if h.id in gold), None)
        either = next((i for i, h in enumerate(hits, 1) if h.id in gold or h.id in partners), None)
        out.append((q.lang != paper_language(paper), first, either))
    return out


def row(label: str, firsts: list[int | None]) -> str:
    n = len(firsts) or 1
    hit1 = sum(f == 1 for f in firsts) / n
    hit5 = sum(f is not None and f <= 5 for f in firsts) / n
    mrr = sum(1 / f for f in firsts if f) / n
    return f"| {label} | {len(firsts)} | {hit1:.3f} | {hit5:.3f} | {mrr:.3f} |"


def table(results: dict[float, list[tuple[bool, int | None, int | None]]]) -> str:
    lines = ["| share · subset | n | Hit@1 | Hit@5 | MRR |", "|---|---:|---:|---:|---:|"]
    for share, rows in results.items():
        lines.append(row(f"{share} · same-language", [f for cross, f, _ in rows if not cross]))
        lines.append(row(f"{share} · cross-language", [f for cross, f, _ in rows if cross]))
        lines.append(row(f"{share} · cross-language, either version", [e for cross, _, e in rows if cross]))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--held-out", default="all")
    parser.add_argument("--shares", default="0,0.5,0.8,0.95,1")
    parser.add_argument("--both-versions", action="store_true")
    args = parser.parse_args()
    names = list(HELD_OUT) if args.held_out == "all" else args.held_out.split(",")
    shares = [float(s) for s in args.shares.split(",")]
    pooled: dict[float, list] = {s: [] for s in shares}
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"legco-counterparts-{name}-") as tmp:
            work = Path(tmp)
            gold = (
                with_counterparts(HELD_OUT[name], work / "gold.json")
                if args.both_versions
                else HELD_OUT[name]
            )
            run = prepare_eval(
                work, gold, REAL_CORPUS, ["question"], Settings(data_dir=work, inbox=work / "inbox")
            )
            linked = sum(bool(r.metadata.counterpart_id) for r in run.retriever.scope("question").records)
            results = {s: first_ranks(run, s) for s in shares}
        for s in shares:
            pooled[s] += results[s]
        print(
            f"## {name}: {len(run.papers)} papers, {linked} question chunks linked\n\n{table(results)}\n",
            flush=True,
        )
    if len(names) > 1:
        print(f"## pooled\n\n{table(pooled)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
