"""Calibrate (and score) the strong/weak judgement of search hits (core/search/closeness.py).

For each question of a set: its hits from a store that holds its paper (``present``) and
from the same store less every paper that answers it (``absent``: every ranker's whole list
without their chunks, cut to the fusion's depth and fused as a search fuses them, which is a
store without them but for BM25's word statistics and the centering means). For the top ``k``
hits of each, the scores the judgement reads (:func:`closeness.hit_scores`).

Which papers answer a question (``--absent``): ``subject`` (the default) removes its paper, its
other-language version and every paper on the same subject (:data:`SUBJECTS`: the Labour
Department's guides and FAQs all explain the Employment Ordinance, so one answers another's
questions); ``paper`` removes only its paper and its other-language version, which leaves a
store that often still answers (the measure used before 2026-12-06).

    python scripts/calibrate_closeness.py collect --set gold --out /tmp/dev.json
    python scripts/calibrate_closeness.py choose /tmp/dev.json        # dev sets only
    python scripts/calibrate_closeness.py score /tmp/heldout.json      # once, after freezing
    python scripts/calibrate_closeness.py probe /tmp/dev.json         # dev sets only

``choose`` prints, per strategy, the thresholds that flag ``no_close_match`` for the most
absent questions while flagging at most 10% of present ones; ``score`` the precision and
recall of ``weak`` (absent questions are the positives) under :data:`closeness.CLOSENESS`;
``probe`` how far any score of the rankers' lists separates absent from present on the
development sets: each alone (its AUC, and the absent share it flags at 10% of present), and
all of them weighed together by a logistic regression, fitted on all the sets (the most a
weighting can reach on them) and on all but one set, scored on the set left out (what it
keeps on a set it was not fitted to).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from legco_assets.core.evaluation.ingest import ingest_papers  # noqa: E402
from legco_assets.core.evaluation.papers import load_papers  # noqa: E402
from legco_assets.core.evaluation.questions import GOLD_QUESTIONS, load_gold_questions  # noqa: E402
from legco_assets.core.evaluation.sets import DEV_SETS, HELD_OUT, REAL_CORPUS  # noqa: E402
from legco_assets.core.search import DEFAULT_FUSION, Retriever, distinct, fuse  # noqa: E402
from legco_assets.core.search.closeness import CLOSENESS, Closeness, HitScores, hit_scores, is_strong  # noqa: E402
from legco_assets.core.settings import Settings  # noqa: E402

FIXTURE_PAPERS = REPO / "legco_assets_tests" / "fixtures" / "pdfs"
K = 5  # hits judged per query (the service's default k)
PROBED = 30  # each ranker's scores kept per query for ``probe``
STRATEGIES = ("token", "question")
MAX_PRESENT_FLAGGED = 0.10
# papers that answer one another's questions, by the start of their file names: the Labour
# Department's guides and FAQs on the Employment Ordinance (the domestic helpers' FAQ included)
SUBJECTS = {"employment ordinance": ("ld_", "fdh_")}


def subject_of(paper_name: str) -> str:
    """A paper's subject: one of :data:`SUBJECTS`, else its own name (a subject of its own)."""
    found = (name for name, starts in SUBJECTS.items() if paper_name.startswith(starts))
    return next(found, paper_name)


def set_path(name: str) -> tuple[Path, Path]:
    if name == "gold":
        return GOLD_QUESTIONS, FIXTURE_PAPERS
    return {**DEV_SETS, **HELD_OUT}[name], REAL_CORPUS


def collect(names: list[str], out: Path, absent: str = "subject") -> None:
    """The sets' questions against one store of all their papers (each set's distractors too);
    ``absent``: which papers the absent case removes (``subject`` or ``paper``)."""
    asked, papers = [], {}
    for name in names:
        gold_path, papers_dir = set_path(name)
        questions = load_gold_questions(gold_path)
        mine = load_papers(gold_path, papers_dir, questions)
        papers.update({p.document_id: p for p in mine.values()})
        asked += [(name, q, mine[q.document].document_id) for q in questions]
    work = Path(tempfile.mkdtemp(prefix="closeness-"))
    settings = Settings(data_dir=work, inbox=work / "inbox")
    collection = ingest_papers(list(papers.values()), STRATEGIES, settings)
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    rows = []
    for strategy in STRATEGIES:
        scope = retriever.scope(strategy)
        # a paper's other-language version answers its questions too: absent means both gone
        pairs = {r.document_id: r.metadata.counterpart_document_id for r in scope.records}
        subjects = {p.document_id: subject_of(p.path.name) for p in papers.values()}
        whole = len(scope.records)  # each ranker's whole list: the absent case reads past the gone papers
        for name, q, own in asked:
            gone = {own, pairs.get(own)}
            if absent == "subject":
                gone |= {d for d, subject in subjects.items() if subject == subjects[own]}
            everything = retriever.rankings(q.question, strategy, whole)
            rankings = {r: found[: DEFAULT_FUSION.depth] for r, found in everything.items()}
            without = {
                r: [c for c in found if c.record.document_id not in gone][: DEFAULT_FUSION.depth]
                for r, found in everything.items()
            }
            for case, lists in (("present", rankings), ("absent", without)):
                hits = distinct(fuse(q.question, lists, DEFAULT_FUSION, scope))[:K]
                rows.append(
                    {
                        "set": name,
                        "strategy": strategy,
                        "question": q.id,
                        "case": case,
                        "hits": [asdict(hit_scores(lists, h.id)) for h in hits],
                        # each ranker's own scores, best first (what ``probe`` reads)
                        "lists": {
                            r: [[c.score, c.coverage] for c in found[:PROBED]] for r, found in lists.items()
                        },
                    }
                )
    print(f"{', '.join(names)}: {len(asked)} questions, {len(papers)} papers", file=sys.stderr)
    out.write_text(json.dumps(rows), encoding="utf-8")


def flagged(row: dict, closeness: Closeness) -> bool:
    """``no_close_match``: no hit strong."""
    return not any(is_strong(HitScores(**h), closeness) for h in row["hits"])


def rates(rows: list[dict], closeness: Closeness) -> tuple[float, float, float, int, int]:
    """(recall of weak on absent, share of present flagged, precision of weak, absent, present)."""
    absent = [r for r in rows if r["case"] == "absent"]
    present = [r for r in rows if r["case"] == "present"]
    tp = sum(flagged(r, closeness) for r in absent)
    fp = sum(flagged(r, closeness) for r in present)
    recall = tp / len(absent) if absent else 0.0
    false = fp / len(present) if present else 0.0
    precision = tp / (tp + fp) if tp + fp else 1.0
    return recall, false, precision, len(absent), len(present)


DEV = {"gold", *DEV_SETS}


def choose(rows: list[dict]) -> None:
    rows = [r for r in rows if r["set"] in DEV]  # thresholds are chosen on the development sets only
    for strategy in STRATEGIES:
        mine = [r for r in rows if r["strategy"] == strategy]
        values = {
            key: sorted({h[key] for r in mine for h in r["hits"]})
            for key in ("vector", "question", "coverage")
        }
        # thresholds at quantiles of the distinct scores, and off
        grid = {
            key: [*np.quantile(v, np.linspace(0.3, 1.0, 29)).tolist(), math.inf] for key, v in values.items()
        }
        best = None
        for vector, question, coverage in itertools.product(
            grid["vector"], grid["question"], grid["coverage"]
        ):
            closeness = Closeness(*(round(v, 4) if v < math.inf else v for v in (vector, question, coverage)))
            recall, false, precision, *_ = rates(mine, closeness)
            if false <= MAX_PRESENT_FLAGGED and (best is None or (recall, -false) > best[0]):
                best = ((recall, -false), closeness, precision)
        assert best is not None
        (recall, false), closeness, precision = best
        print(
            f"{strategy}: {closeness}  recall of weak (absent flagged) {recall:.3f}  "
            f"present flagged {-false:.3f}  precision {precision:.3f}"
        )


def score(rows: list[dict]) -> None:
    for strategy in STRATEGIES:
        names = sorted({r["set"] for r in rows})
        for name in [*names, "development", "held-out"]:
            mine = [
                r
                for r in rows
                if r["strategy"] == strategy
                and (r["set"] == name or name == ("development" if r["set"] in DEV else "held-out"))
            ]
            if not mine:
                continue
            recall, false, precision, absent, present = rates(mine, CLOSENESS[strategy])
            print(
                f"{strategy:8} {name:14} absent {absent:3} flagged {recall:.3f} (recall of weak)  "
                f"present {present:3} flagged {false:.3f}  precision of weak {precision:.3f}"
            )


def probe_features(row: dict) -> dict[str, float]:
    """The scores a judgement could read for one query: the top ``K`` hits' best scores (what
    :data:`CLOSENESS` reads), each ranker's best score, and how far that best stands above the
    ranker's ranks 6 to 30 (a query its store answers should have one hit standing out)."""
    hits = row["hits"]
    out = {
        f"hit {key}": max((h[key] for h in hits), default=0.0) for key in ("vector", "question", "coverage")
    }
    for ranker in ("vector", "question", "bm25"):
        scores = [score for score, _ in row["lists"].get(ranker, [])]
        if not scores:
            continue
        out[f"{ranker} best"] = scores[0]
        rest = scores[5:]
        out[f"{ranker} lead"] = scores[0] - (sum(rest) / len(rest) if rest else 0.0)
    return out


def auc(absent: np.ndarray, present: np.ndarray) -> float:
    """The chance that a present question scores above an absent one (ties count half)."""
    above = (present[:, None] > absent[None, :]).mean()
    ties = (present[:, None] == absent[None, :]).mean()
    return float(above + ties / 2)


def logistic(x: np.ndarray, y: np.ndarray, ridge: float = 1e-2) -> np.ndarray:
    """Weights (bias first) of a ridge logistic regression of ``y`` on ``x`` by Newton steps."""
    design = np.hstack([np.ones((len(x), 1)), x])
    weights = np.zeros(design.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-design @ weights))
        hessian = design.T @ (design * (p * (1 - p))[:, None]) + ridge * np.eye(len(weights))
        step = np.linalg.solve(hessian, design.T @ (p - y) + ridge * weights)
        weights -= step
        if np.abs(step).max() < 1e-8:
            break
    return weights


def flags_at_present_share(fit: np.ndarray, x: np.ndarray, y: np.ndarray, test: np.ndarray) -> np.ndarray:
    """Which ``test`` rows are flagged by the weights' score at the cut that flags
    :data:`MAX_PRESENT_FLAGGED` of the fitted rows' present questions."""
    score = np.hstack([np.ones((len(x), 1)), x]) @ fit
    cut = np.quantile(score[y == 0], 1 - MAX_PRESENT_FLAGGED)
    return (np.hstack([np.ones((len(test), 1)), test]) @ fit) > cut


def probe(rows: list[dict]) -> None:
    rows = [r for r in rows if r["set"] in DEV and "lists" in r]
    if not rows:
        raise SystemExit("no development rows with the rankers' lists: collect them again")
    for strategy in STRATEGIES:
        mine = [r for r in rows if r["strategy"] == strategy]
        table = [probe_features(r) for r in mine]
        names = [n for n in table[0] if len({t.get(n, 0.0) for t in table}) > 1]
        x = np.array([[t.get(n, 0.0) for n in names] for t in table])
        y = np.array([r["case"] == "absent" for r in mine], dtype=float)
        sets = np.array([r["set"] for r in mine])
        print(f"{strategy}: {int(y.sum())} absent, {int((1 - y).sum())} present")
        for i, name in enumerate(names):
            absent, present = x[y == 1, i], x[y == 0, i]
            cut = np.quantile(present, MAX_PRESENT_FLAGGED)
            print(f"  {name:18} AUC {auc(absent, present):.3f}  absent flagged {np.mean(absent < cut):.3f}")
        scale = (x - x.mean(0)) / x.std(0)
        fitted = flags_at_present_share(logistic(scale, y), scale, y, scale)
        print(
            f"  all, weighed on every set:   absent flagged {fitted[y == 1].mean():.3f}  "
            f"present {fitted[y == 0].mean():.3f}"
        )
        out = np.zeros(len(y), dtype=bool)
        for name in sorted(set(sets)):
            fit_on, left = sets != name, sets == name
            weights = logistic(scale[fit_on], y[fit_on])
            out[left] = flags_at_present_share(weights, scale[fit_on], y[fit_on], scale[left])
        print(
            f"  all, weighed on the others:  absent flagged {out[y == 1].mean():.3f}  "
            f"present {out[y == 0].mean():.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    got = sub.add_parser("collect")
    got.add_argument(
        "--set", required=True, help="gold, or set names (comma-separated) of core/evaluation/sets.py"
    )
    got.add_argument("--out", required=True)
    got.add_argument(
        "--absent",
        choices=["subject", "paper"],
        default="subject",
        help="the absent case removes the papers on the question's subject (default) or its paper only",
    )
    for name in ("choose", "score", "probe"):
        sub.add_parser(name).add_argument("features", nargs="+")
    args = parser.parse_args()
    if args.command == "collect":
        collect(args.set.split(","), Path(args.out), args.absent)
        return
    rows = [row for path in args.features for row in json.loads(Path(path).read_text(encoding="utf-8"))]
    {"choose": choose, "score": score, "probe": probe}[args.command](rows)


if __name__ == "__main__":
    main()
