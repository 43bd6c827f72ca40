r"""The retrieval eval on the gold questions, with the bars, a fusion-weight sweep and baselines.

Same numbers as ``legco-assets eval``, plus:

* the fixture bars (question strategy, hybrid: Hit@5 ≥ 0.95, Hit@1 ≥ 0.8, and at most
  half the characters of context the token strategy needs), checked and printed;
* ``--sweep``: the hybrid mode under the fusion variants and shares of language centering
  compared in ``docs/history/retrieval.md``;
* ``--held-out NAME[,NAME…]``: questions about real papers (``../shared/corpus/real``, when
  present) that were not used to choose what they test, each ingested with the other real
  papers as distractors, and pooled when there are several (``all``: every set):
  ``faq`` (Labour Department FAQs; written after the fusion weights were chosen, but language
  centering was built after it had shown its cross-language misses), ``hansard-2012`` and
  ``hansard-2015`` (blind: written by someone who saw only the paper, after every setting
  of their time was fixed; the question ranker's centering was then chosen with them in the
  dev sets), ``fdh`` (blind, written after that choice: the figure for papers never tuned on),
  ``hansard-2012-oral`` (blind, written after ``fdh`` was scored: long oral and written
  replies split into parts; its questions name their own answer ends), ``hansard-2015-zh``
  (blind, written after that was scored: the Chinese parallel of ``hansard-2015``, a paper no
  eval had ingested, with the English one left out; four facts per reply);
* ``narrative`` and ``crosslang`` (blind, written by a helper who saw only the
  papers, scored once after every choice was frozen: the narrative papers, and questions in
  the other language about papers stored in one language only), with their development
  parts ``narrative-dev`` and ``crosslang-dev`` (``--held-out dev``), which were free for
  tuning; the run ends with a table of every set, its kind and language pairs, the pooled
  figures and the held-out targets (:data:`TARGETS`); ``--sweep-rounds`` adds the question-side and section variants
  measured on the same ingest; the second round's blind sets ``narrative-v2``,
  ``crosslang-v2`` and ``qa-v2`` (``--held-out v2``) and the third's ``narrative-v3``,
  ``crosslang-v3`` and ``qa-v3`` (``--held-out v3``), ``--held-out v4``, written blind
  while v3 was scored, the fourth round's ``--held-out v5`` and ``v6`` (written blind while
  v5 was scored), the fifth round's ``--held-out v7`` and ``v8``, and the sixth's ``v9``,
  each scored once (``scripts/retrieval_ceiling.py``: what the best of the four rankers,
  chosen per question, would find).
  Settings come from the environment as for ``ingest`` (``EMBEDDING_*`` picks the embedder;
  with ``LEGCO_DATA_DIR`` its embedding cache is kept between sets and runs), each set in a
  fresh Chroma of its own;
* ``--translations FILE`` / ``--rerankings FILE``: replay recorded LLM replies (query
  translations; orders of the fused top chunks), as with an LLM configured, and print each set
  with and without them on the same ingest;
* ``--bounds``: the characters to the answer a perfect reranker of the fused top 10, 20 and
  30 would leave (the shortest chunk holding the answer end first), and the floor (the
  shortest such chunk in the store), per strategy, with question / token: how much of the
  characters bar is chunk size rather than retrieval;
* ``--pair-ends``: judge every hit by the end of the pair's whole answer, ignoring the
  questions' own answer ends (how ``hansard-2012-oral`` was first scored);
* ``--record-baselines``: per paper and strategy, Hit@5 of the hybrid search restricted to
  that paper, written into the gold questions file; the ``vector_index`` asset check fails
  when a later run falls below it.

::

    .venv/bin/python scripts/eval_retrieval.py \
        [--held-out all|dev|faq,hansard-2012,hansard-2015,fdh,hansard-2012-oral,hansard-2015-zh,narrative,crosslang,narrative-dev,crosslang-dev,…|v2|v3|v4|v5|v6|v7|v8|v9] \
        [--sweep-rounds] [--translations F] [--rerankings F] [--bounds] [--pair-ends] [--sweep] \
        [--record-baselines] [--json]
"""  # noqa: E501 - the --held-out choices are one shell word: a break would split the argument

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
FIXTURE_PAPERS = (
    REPO / "legco_assets_tests" / "fixtures" / "pdfs"
)  # the gold set's papers (the tests' fixtures)

from legco_assets.core.evaluation import (  # noqa: E402
    BASELINE,
    BLIND_ROUNDS,
    DEV_SETS,
    GOLD_QUESTIONS,
    HELD_OUT,
    REAL_CORPUS,
    SET_KINDS,
    EvalReport,
    EvalRun,
    check_document,
    collect_rankings,
    format_bounds,
    format_table,
    load_rerankings,
    load_translations,
    pooled,
    pooled_bounds,
    prepare_eval,
    reading_bounds,
    rounds_sweep,
    script_language,
)
from legco_assets.core.search import (  # noqa: E402
    DEFAULT_FUSION,
    PLAIN_RRF,
    Fusion,
    Mode,
    Retriever,
    SegmentStore,
    fuse,
    index_store,
    script_of,
    served_scopes,
)
from legco_assets.core.search import DEPTH as RERANK_DEPTH  # noqa: E402
from legco_assets.core.settings import Settings  # noqa: E402

CENTERING_SWEEP = (0.0, 0.25, 0.5, 0.75, 1.0)
BARS = {"hit5": 0.95, "hit1": 0.80, "chars_ratio": 0.5}
SWEEP = {
    "plain RRF, BM25 + chunk vectors": PLAIN_RRF,
    "plain RRF, BM25 x0.5": Fusion(question_weight=0, coverage_power=0, bm25_weight=0.5),
    "plain RRF + script routing": Fusion(question_weight=0, coverage_power=0, cross_script_bm25_weight=0),
    "BM25 x coverage^2 + chunk vectors": Fusion(question_weight=0),
    "+ question vectors x1": Fusion(question_weight=1),
    "+ question vectors x2 (default)": DEFAULT_FUSION,
    "question x2, coverage^1": Fusion(coverage_power=1),
    "question x2, coverage^3": Fusion(coverage_power=3),
    "question x3": Fusion(question_weight=3),
    "question x2, chunk vectors x0.5": Fusion(vector_weight=0.5),
    "question x2, no coverage": Fusion(coverage_power=0),
}


def bar_lines(report: EvalReport) -> list[str]:
    """One line per bar: the figure, the bar and whether it is met."""
    question, token = report.row("question", "hybrid"), report.row("token", "hybrid")
    ratio = question.context_chars / token.context_chars if token.context_chars else float("inf")
    checks = [
        (f"question hybrid Hit@5 {question.hit5:.3f}", f">= {BARS['hit5']}", question.hit5 >= BARS["hit5"]),
        (f"question hybrid Hit@1 {question.hit1:.3f}", f">= {BARS['hit1']}", question.hit1 >= BARS["hit1"]),
        (
            f"chars to answer: question {question.context_chars:,.0f} / token "
            f"{token.context_chars:,.0f} = {ratio:.2f}",
            f"<= {BARS['chars_ratio']}",
            ratio <= BARS["chars_ratio"],
        ),
    ]
    return [f"{'met ' if ok else 'MISS'}  {what} (bar {bar})" for what, bar, ok in checks]


def record_baselines(run: EvalRun, gold_path: Path, strategies: list[str]) -> dict[str, dict[str, float]]:
    """Measure and store per-paper Hit@5 (hybrid, searching that paper only)."""
    baselines: dict[str, dict[str, float]] = {}
    for name, paper in run.papers.items():
        for strategy in strategies:
            outcome = check_document(run.retriever, paper, run.questions, strategy, None)
            # rounded down: a baseline rounded up (31/32 -> 0.9688) would fail the figure it records
            baselines.setdefault(name, {})[strategy] = math.floor(outcome.hit5 * 10000) / 10000
    data = json.loads(gold_path.read_text(encoding="utf-8"))
    data["baselines"] = baselines
    gold_path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return baselines


def translations(args: argparse.Namespace) -> dict[str, str] | None:
    """The recorded query translations to fuse in, when ``--translations`` names a file."""
    return load_translations(Path(args.translations)) if args.translations else None


def rerankings(args: argparse.Namespace) -> dict[str, list[str]] | None:
    """The recorded LLM orders of the fused top chunks, when ``--rerankings`` names a file."""
    return load_rerankings(Path(args.rerankings)) if args.rerankings else None


def replay_fidelity(run: EvalRun, path: Path) -> str:
    """Per strategy, for how many questions the fused top chunks now are exactly those the
    model was shown when its order was recorded (the rest are replayed on what is shown now:
    its named chunks first where they are still there)."""
    recorded = json.loads(path.read_text(encoding="utf-8"))["rerankings"]
    counts = []
    for strategy in [s for s in run.strategies if s in recorded]:
        scope = run.retriever.scope(strategy)
        same = 0
        for q in run.questions:
            key = (q.id, strategy)
            hits = fuse(q.question, run.rankings[key], run.retriever.fusion, scope, run.translated.get(key))
            same += [h.id for h in hits[:RERANK_DEPTH]] == recorded[strategy].get(q.question, {}).get("shown")
        counts.append(f"{strategy} {same} of {len(run.questions)}")
    return "rerankings replayed on exactly the chunks the model was shown: " + ", ".join(counts)


def without_llm(run: EvalRun) -> EvalReport:
    """The same run's hybrid figures without the recorded LLM replies."""
    return replace(run, translated={}, reranker=None).report(modes=(Mode.hybrid,))


def print_report(report: EvalReport, strategies: list[str]) -> None:
    print(report.table())
    if {"question", "token"} <= set(strategies):
        print("\n" + "\n".join(bar_lines(report)))


def eval_settings(root: Path, name: str, args: argparse.Namespace) -> Settings:
    """The settings one set is ingested and searched with: the environment's (``EMBEDDING_*``
    picks the embedder, as for ``ingest``; ``--embedding-model`` overrides it), with a fresh
    embedded Chroma of its own under ``root`` (never a configured Chroma server or the data
    dir's own store). The data dir is ``LEGCO_DATA_DIR`` when set, so its embedding cache serves
    every set and every later run with the same embedder; else ``root``."""
    settings = Settings.from_env()
    if not os.environ.get("LEGCO_DATA_DIR"):
        settings = settings.with_(data_dir=root, inbox=root / "inbox")
    if args.embedding_model:
        settings = settings.with_(embedding_model=args.embedding_model)
    return settings.with_(chroma_path=root / name / "chroma", chroma_host=None)


def held_out_names(spec: str) -> list[str]:
    """The sets ``--held-out`` names: ``all``, ``dev``, a round (``v9``) or a comma list."""
    groups = {
        "all": list(HELD_OUT),
        "dev": list(DEV_SETS),
        **{version: list(sets) for version, sets in BLIND_ROUNDS.items()},
    }
    names = groups.get(spec) or [n.strip() for n in spec.split(",")]
    unknown = [n for n in names if n not in HELD_OUT and n not in DEV_SETS]
    if unknown:
        raise ValueError(f"unknown set(s): {', '.join(unknown)} (known: {', '.join([*HELD_OUT, *DEV_SETS])})")
    return names


def set_path(name: str) -> Path:
    return HELD_OUT.get(name) or DEV_SETS[name]


def language_pairs(run: EvalRun) -> str:
    """The set's questions by (question language → paper language), e.g. ``en→en 20, zh→en 10``."""
    pairs = Counter(
        f"{script_language(q.lang)}→{script_of(run.papers[q.document].text)}" for q in run.questions
    )
    return ", ".join(f"{pair} {n}" for pair, n in sorted(pairs.items()))


def summary_table(
    names: list[str], reports: list[EvalReport], pairs: list[str], strategies: list[str]
) -> str:
    """One line per set: kind, language pairs, question and token windows (hybrid, no LLM)."""
    rows = [
        "| set | kind | languages (question→paper) | n | question Hit@1 | Hit@5 | MRR | "
        "token Hit@1 | Hit@5 | MRR |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    shown = list(zip(names, reports, pairs))
    if len(reports) > 1:
        shown.append(("pooled", pooled(reports), ""))
        if any(r.cross_language for report in reports for r in report.results):
            shown.append(("pooled, cross-language", pooled(reports), "cross"))
    for name, report, pair in shown:
        subset = "cross-language" if pair == "cross" else "all"
        q = report.row("question", "hybrid", subset)
        t = report.row("token", "hybrid", subset) if "token" in strategies else None
        token = f"{t.hit1:.3f} | {t.hit5:.3f} | {t.mrr:.3f}" if t else "– | – | –"
        kind = SET_KINDS.get(name, "")
        rows.append(
            f"| {name} | {kind} | {'' if pair == 'cross' else pair} | {q.questions} | "
            f"{q.hit1:.3f} | {q.hit5:.3f} | {q.mrr:.3f} | {token} |"
        )
    return "\n".join(rows)


TARGETS = {"hit1": 0.75, "hit5": 0.92, "cross_hit5": 0.8}  # pooled over the held-out sets, no LLM


def target_lines(names: list[str], reports: list[EvalReport]) -> list[str]:
    """The held-out targets: pooled question Hit@1 and Hit@5, question ≥ token windows on every
    narrative set (Hit@1 and Hit@5), cross-language Hit@5."""
    report = pooled(reports)
    q = report.row("question", "hybrid")
    checks = [
        (f"pooled question Hit@1 {q.hit1:.3f}", f">= {TARGETS['hit1']}", q.hit1 >= TARGETS["hit1"]),
        (f"pooled question Hit@5 {q.hit5:.3f}", f">= {TARGETS['hit5']}", q.hit5 >= TARGETS["hit5"]),
    ]
    if any(r.cross_language for r in report.results):
        cross = report.row("question", "hybrid", "cross-language")
        checks.append(
            (
                f"pooled cross-language question Hit@5 {cross.hit5:.3f}",
                f">= {TARGETS['cross_hit5']}",
                cross.hit5 >= TARGETS["cross_hit5"],
            )
        )
    for name, r in zip(names, reports):
        if SET_KINDS.get(name) == "narrative" and "token" in r.strategies:
            a, b = r.row("question", "hybrid"), r.row("token", "hybrid")
            checks.append(
                (
                    f"{name}: question {a.hit1:.3f} / {a.hit5:.3f} against token {b.hit1:.3f} / {b.hit5:.3f}",
                    "question >= token",
                    a.hit1 >= b.hit1 and a.hit5 >= b.hit5,
                )
            )
    return [f"{'met ' if ok else 'MISS'}  {what} (target {bar})" for what, bar, ok in checks]


def served(run: EvalRun, settings: Settings) -> EvalRun:
    """The same run ranked as a server ranks it: the ingest's chunks written into the search
    index's segments and searched from them (core/search/segment_scope.py), the rankings
    collected again on the same questions."""
    store = SegmentStore.of(settings)
    index_store(store, run.retriever.collection, run.retriever.embedder)
    retriever = Retriever.open(settings, translate=False, rerank=False, store=False)
    retriever.follow_store = False
    for strategy, scope in served_scopes(store).items():
        retriever._scopes[(strategy, False)] = scope
    rankings = collect_rankings(retriever, run.questions, run.papers, run.strategies)
    return replace(run, retriever=retriever, rankings=rankings)


def held_out(names: list[str], strategies: list[str], args: argparse.Namespace) -> int:
    """Each named real-paper set in its own Chroma, then all of them pooled."""
    reports, alone, bounds, pairs = [], [], [], []
    stored_reports: list[EvalReport] = []
    with tempfile.TemporaryDirectory(prefix="legco-eval-") as tmp:
        root = Path(args.work_dir) if args.work_dir else Path(tmp)
        for name in names:
            settings = eval_settings(root, name, args)
            if not args.json:
                print(
                    f"## {name} ({set_path(name).name}; {SET_KINDS.get(name, '?')}; "
                    f"embedder {settings.embedding_base_url or settings.embedding_model})\n"
                )
            run = prepare_eval(
                root / name,
                set_path(name),
                REAL_CORPUS,
                strategies,
                settings,
                args.pair_ends,
                translations(args),
                rerankings(args),
            )
            if args.served:  # the store's figures first, then the server's on the same ingest
                stored_reports.append(run.report())
                run = served(run, settings)
            reports.append(run.report())
            alone.append(without_llm(run))
            pairs.append(language_pairs(run))
            fidelity = replay_fidelity(run, Path(args.rerankings)) if args.rerankings else None
            bounds.append(reading_bounds(run) if args.bounds else {})
            if not args.json:
                print(f"questions (question language → paper language): {pairs[-1]}\n")
                print_report(reports[-1], strategies)
                print(f"\n{fidelity}" if fidelity else "")
                print(f"\n{format_bounds(bounds[-1], reports[-1])}\n" if args.bounds else "")
                if args.sweep_rounds:
                    print("\nQuestion sides and section lifting (hybrid):\n")
                    print(format_table(rounds_sweep(run)) + "\n")
            sys.stdout.flush()
    report = pooled(reports) if len(reports) > 1 else reports[0]
    if args.json:
        print(
            json.dumps(
                {name: r.to_json() for name, r in zip(names + ["pooled"], reports + [report])},
                ensure_ascii=False,
            )
        )
        return 0
    if args.served:
        print("## every set, hybrid, no LLM, searched as the command line does (Chroma)\n")
        print(summary_table(names, stored_reports, pairs, strategies) + "\n")
        print("## every set, hybrid, no LLM, searched as the server does (the index's segments)\n")
    else:
        print("## every set, hybrid, no LLM\n")
    print(summary_table(names, reports, pairs, strategies))
    if "question" in strategies:
        print("\n" + "\n".join(target_lines(names, reports)))
    if len(reports) > 1:
        print(f"\n## pooled: {', '.join(names)}\n")
        print_report(report, strategies)
        if args.bounds:
            print(f"\n{format_bounds(pooled_bounds(bounds), report)}")
    if args.translations or args.rerankings:
        print("\n## the same runs, hybrid, with and without the recorded LLM replies\n")
        print(llm_table(names, reports, alone, strategies))
    return 0


def llm_table(
    names: list[str], with_llm: list[EvalReport], alone: list[EvalReport], strategies: list[str]
) -> str:
    """Hit@1 / Hit@5 / MRR and chars to answer of hybrid search with the recorded LLM replies
    and without, per set, strategy and subset, and pooled: a paired comparison on the same
    ingest."""
    rows = [
        "| set | strategy | subset | n | with: Hit@1 | Hit@5 | MRR | chars | "
        "without: Hit@1 | Hit@5 | MRR | chars |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    pairs = list(zip(names, with_llm, alone))
    if len(pairs) > 1:
        pairs.append(("pooled", pooled(with_llm), pooled(alone)))
    for name, with_, without in pairs:
        for strategy in strategies:
            for subset in ("all", "same-language", "cross-language"):
                a, b = with_.row(strategy, "hybrid", subset), without.row(strategy, "hybrid", subset)
                rows.append(
                    f"| {name} | {strategy} | {subset} | {a.questions} | {a.hit1:.3f} "
                    f"| {a.hit5:.3f} | {a.mrr:.3f} "
                    f"| {a.context_chars:,.0f} | {b.hit1:.3f} "
                    f"| {b.hit5:.3f} | {b.mrr:.3f} | {b.context_chars:,.0f} |"
                )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gold", default=str(GOLD_QUESTIONS))
    parser.add_argument(
        "--papers", default=str(FIXTURE_PAPERS), help="folder the gold file's paper names are relative to"
    )
    parser.add_argument(
        "--held-out",
        help=f"comma-separated real-paper sets, all (every held-out set: {', '.join(HELD_OUT)}) "
        f"or dev (the development sets: {', '.join(DEV_SETS)})",
    )
    parser.add_argument("--strategies", default=f"question,token,{BASELINE}")
    parser.add_argument("--work-dir", help="keep the eval's data dir (default: a temp dir)")
    parser.add_argument(
        "--embedding-model",
        help="use-multilingual | multilingual-e5-small (default: EMBEDDING_MODEL, as for ingest)",
    )
    parser.add_argument(
        "--pair-ends",
        action="store_true",
        help="judge every hit by the end of the whole pair's answer, not a question's own answer end",
    )
    parser.add_argument("--sweep", action="store_true", help="also compare fusion weights (hybrid mode)")
    parser.add_argument(
        "--sweep-rounds",
        action="store_true",
        help="also compare question sides (Q&A chunks only / every chunk) and section lifting",
    )
    parser.add_argument(
        "--record-baselines", action="store_true", help="write per-paper Hit@5 into the gold file"
    )
    parser.add_argument(
        "--translations",
        help='JSON file of recorded LLM query translations ({"translations": {question: translation}}): '
        "hybrid search also runs each question in the other language, as with an LLM configured",
    )
    parser.add_argument(
        "--rerankings",
        help="JSON file of recorded LLM rerankings "
        '({"rerankings": {question: {"shown": [ids], "ranking": [ids]}}}): '
        "the fused top chunks are re-ordered as the model did, as with an LLM configured",
    )
    parser.add_argument(
        "--bounds",
        action="store_true",
        help="also print the characters to the answer a perfect reranker of the fused top 10/20/30 would "
        "leave, and the floor (shortest chunk holding the answer)",
    )
    parser.add_argument(
        "--served",
        action="store_true",
        help="with --held-out: also rank each set as the server does (the search index's segments)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.held_out and (args.record_baselines or args.sweep):
        parser.error("baselines and sweeps are run on the fixture papers only")
    if (
        args.record_baselines
        and (args.embedding_model or Settings.from_env().embedding_model) != Settings().embedding_model
    ):
        parser.error("baselines are recorded with the default embedding model only")

    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    if args.held_out:
        try:
            return held_out(held_out_names(args.held_out), strategies, args)
        except ValueError as exc:
            parser.error(str(exc))
    with tempfile.TemporaryDirectory(prefix="legco-eval-") as tmp:
        work = Path(args.work_dir or tmp)
        settings = eval_settings(work, "fixtures", args)
        run = prepare_eval(
            work,
            Path(args.gold),
            Path(args.papers),
            strategies,
            settings,
            args.pair_ends,
            translations(args),
            rerankings(args),
        )
        report = run.report()
        if args.json:
            print(json.dumps(report.to_json(), ensure_ascii=False))
            return 0
        print_report(report, strategies)
        if args.rerankings:
            print("\n" + replay_fidelity(run, Path(args.rerankings)))
        if args.translations or args.rerankings:
            print("\n## hybrid, with and without the recorded LLM replies\n")
            print(llm_table(["fixtures"], [report], [without_llm(run)], strategies))
        if args.bounds:
            print("\n" + format_bounds(reading_bounds(run), report))
        if args.sweep:
            print("\nFusion weights (hybrid mode, all questions):\n")
            print(format_table(run.sweep(SWEEP)))
            print("\nLanguage centering of the chunk-vector query (hybrid mode):\n")
            print(format_table(run.centering_sweep(CENTERING_SWEEP)))
            print("\nLanguage centering of the question-vector query (hybrid mode):\n")
            print(format_table(run.centering_sweep(CENTERING_SWEEP, ranker="question")))
        if args.sweep_rounds:
            print("\nQuestion sides and section lifting (hybrid mode):\n")
            print(format_table(rounds_sweep(run)))
        if args.record_baselines:
            recorded = record_baselines(run, Path(args.gold), [s for s in strategies if s != BASELINE])
            print(f"\nrecorded baselines in {args.gold}: {json.dumps(recorded)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
