r"""What any fusion of the four rankers can reach: per question, the rank of the answer in each
ranker alone, in the best of them (an oracle choosing the ranker per question) and in their
candidates at all, beside the default hybrid search (measured in the sixth retrieval round).

Why: the fusion's weights were tuned over six rounds, each gaining a point or two. Whether a
target is out of reach of *any* weights is a property of the rankers, not of the fusion: when
an oracle that picks the best ranker for each question finds fewer answers first than the
target asks, the way forward is a better ranker (an LLM, a stronger model), not more tuning.
A fusion can still beat the oracle where every ranker holds the answer second or third, so
the oracle is a guide, not a proof; the candidates' recall is a hard bound.

Uses the eval's own ingest and rankings (``scripts/eval_retrieval.py``, same settings and
sets), question strategy by default::

    LEGCO_DATA_DIR=/tmp/eval-data .venv/bin/python scripts/retrieval_ceiling.py \
        [--held-out all|v9|…] [--strategy question|token]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import eval_retrieval as er  # noqa: E402

from legco_assets.core.evaluation import (  # noqa: E402
    REAL_CORPUS,
    SET_KINDS,
    holds_answer_end,
    prepare_eval,
    script_language,
)
from legco_assets.core.search import DEFAULT_FUSION, DICTIONARY, FUSED, dictionary_votes, fuse, script_of  # noqa: E402

DEPTH = 50  # each ranker's candidates, as the fusion takes them (Fusion.depth)


def first_hit(ids: list[str], relevant: set[str]) -> int | None:
    return next((n for n, i in enumerate(ids, start=1) if i in relevant), None)


def question_rows(run, strategy: str) -> list[dict]:
    """Per question: its groups and the first rank of its answer per ranker, fused, and best."""
    scope = run.retriever.scope(strategy)
    rows = []
    for q in run.questions:
        paper = run.papers[q.document]
        anchor = paper.anchor(q)
        relevant = {r.id for r in scope.records if holds_answer_end(r, paper.document_id, anchor)}
        rankings = run.rankings[(q.id, strategy)]
        firsts = {}
        for ranker in FUSED:
            found = rankings.get(ranker, [])
            found = dictionary_votes(found, DEFAULT_FUSION, scope) if ranker == DICTIONARY else found
            firsts[ranker] = first_hit([c.id for c in found[:DEPTH]], relevant)
        fused = first_hit([h.id for h in fuse(q.question, rankings, DEFAULT_FUSION, scope)], relevant)
        cross = script_language(q.lang) != script_of(paper.text)
        rows.append(
            {
                "firsts": firsts,
                "fused": fused,
                "groups": ["all", "across languages" if cross else "same language"],
            }
        )
    return rows


def at(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def table(rows: list[dict]) -> str:
    """Hit@1 / Hit@5 of the default, the per-question best ranker, each ranker, and recall."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        for group in row["groups"]:
            groups[group].append(row)
    head = [
        "questions",
        "n",
        "default",
        "best ranker per question",
        "answer among the candidates",
        *(f"{r} alone" for r in FUSED),
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, items in groups.items():
        n = len(items)

        def share(test) -> str:
            return f"{sum(map(test, items)) / n:.3f}"  # noqa: B023 - used in this iteration only

        cells = [
            name,
            str(n),
            f"{share(lambda r: at(r['fused'], 1))} / {share(lambda r: at(r['fused'], 5))}",
            f"{share(lambda r: any(at(v, 1) for v in r['firsts'].values()))} / "
            f"{share(lambda r: any(at(v, 5) for v in r['firsts'].values()))}",
            share(lambda r: any(v is not None for v in r["firsts"].values())),
            *(
                f"{share(lambda r, k=k: at(r['firsts'][k], 1))} / "
                f"{share(lambda r, k=k: at(r['firsts'][k], 5))}"
                for k in FUSED
            ),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", default="all", help="sets as for eval_retrieval.py (default: all)")
    parser.add_argument("--strategy", default="question")
    args = parser.parse_args()
    try:
        names = er.held_out_names(args.held_out)
    except ValueError as exc:
        parser.error(str(exc))
    settings_args = argparse.Namespace(embedding_model=None, work_dir=None)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="legco-ceiling-") as tmp:
        for name in names:
            settings = er.eval_settings(Path(tmp), name, settings_args)
            run = prepare_eval(Path(tmp) / name, er.set_path(name), REAL_CORPUS, [args.strategy], settings)
            found = question_rows(run, args.strategy)
            for row in found:
                row["groups"].append(f"{SET_KINDS.get(name, '?')} sets")
            rows.extend(found)
            print(f"{name}: {len(found)} questions", file=sys.stderr, flush=True)
    print(
        f"## what four rankers can reach ({args.strategy} strategy, {len(rows)} questions, "
        f"first {DEPTH} candidates each)\n"
    )
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
