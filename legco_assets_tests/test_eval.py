"""The retrieval eval: gold questions, the hit rule, metrics, the bars, the vector_index check."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import dagster as dg
import pytest

from legco_assets import cli
from legco_assets.core.evaluation import (
    BASELINE,
    BOUND_DEPTHS,
    GOLD_QUESTIONS,
    HELD_OUT,
    LLM_RECORDED_SETS,
    QUERY_RERANKINGS,
    QUERY_TRANSLATIONS,
    ROUND_2_BM25,
    EvalReport,
    EvalRun,
    Paper,
    QuestionResult,
    RecordedRerankings,
    add_question_anchors,
    answer_anchor,
    char_windows,
    check_document,
    chunk_fingerprint,
    collect_translated,
    format_bounds,
    holds_answer_end,
    load_gold_questions,
    load_rerankings,
    load_translations,
    normalise,
    pooled_bounds,
    prepare_eval,
    reading_bounds,
    recorded_baseline,
    recorded_reranker,
    score_ranking,
    summarise,
)
from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import (
    DEFAULT_FUSION,
    DEFAULT_MODE,
    PLAIN_RRF,
    QUESTION_CENTERING,
    Hit,
    Mode,
    fuse,
    script_of,
)
from legco_assets.core.settings import Strategy
from legco_assets.core.sources import DocumentIndex
from legco_assets.defs.assets import ALL_ASSETS, RETRIEVAL_CHECK
from legco_assets.defs.jobs import strategy_run_config
from legco_assets.defs.partitions import documents_partitions
from legco_assets.defs.resources import ChromaResource, LegcoSettings, LLMResource

from .factories import chunk_record

FIXTURE_PAPERS = Path(__file__).parent / "fixtures" / "pdfs"  # the papers of the gold set


@pytest.fixture(scope="module")
def eval_run(tmp_path_factory: pytest.TempPathFactory) -> EvalRun:
    """The fixture papers ingested with every strategy and every gold question ranked (once)."""
    return prepare_eval(tmp_path_factory.mktemp("eval"), GOLD_QUESTIONS, FIXTURE_PAPERS)


@pytest.fixture(scope="module")
def report(eval_run: EvalRun) -> EvalReport:
    return eval_run.report()


# -- the gold set ------------------------------------------------------------------------------
def test_gold_questions_are_many_bilingual_paraphrases_of_real_pairs() -> None:
    questions = load_gold_questions()
    assert len(questions) >= 60 and len({q.id for q in questions}) == len(questions)
    assert {q.lang for q in questions} == {"zh", "en"}
    for q in questions:
        pairs = {
            p["qa_id"]: p
            for p in json.loads((FIXTURE_PAPERS / q.document).with_suffix(".gold.json").read_text())["pairs"]
        }
        pair = pairs[q.qa_id]
        assert q.page == pair["page"], q.id
        assert normalise(q.question) not in normalise(pair["question"]) and normalise(
            pair["question"]
        ) not in normalise(q.question), q.id
    english_about_chinese = [q for q in questions if q.lang == "en" and q.document != "paper_l_faq.pdf"]
    chinese_about_english = [q for q in questions if q.lang == "zh" and q.document == "paper_l_faq.pdf"]
    assert len(english_about_chinese) >= 15 and len(chinese_about_english) >= 5


# -- the hit rule ------------------------------------------------------------------------------
def test_normalise_drops_whitespace_pipes_and_rules() -> None:
    assert normalise("| 一人住戶 | 81 620 |\n|---|---|\n完成。") == "一人住戶81620完成。"


def test_anchor_grows_until_it_is_unique_in_the_document() -> None:
    boilerplate = "我們會繼續聽取專業團體及地區人士的意見。"
    document = f"甲答案：工程進度良好。{boilerplate}\n乙答案：撥款已獲\n批准。{boilerplate}"
    assert answer_anchor(f"撥款已獲批准。{boilerplate}", boilerplate, document) == f"准。{boilerplate}"
    assert answer_anchor("甲答案：工程進度良好。", "工程進度良好。", document) == "甲答案：工程進度良好。", (
        "short answers are whole"
    )
    with pytest.raises(ValueError, match="not found exactly once"):
        answer_anchor("這句話不在文件裏面，所以找不到它的結尾部分。", "結尾部分。", document)


def test_a_question_can_name_the_passage_that_answers_it_within_a_long_reply(tmp_path: Path) -> None:
    """A long reply is split into parts; a question about one fact in it is judged by the end
    of the passage giving that fact, unless the eval is asked for pair ends."""
    reply = "局長：主席，(一)本年度共有3 200宗申請。(二)審批需時約六星期。(三)我們會繼續檢討計劃。"
    text = (
        f"1. 甲議員：主席，有關計劃，政府可否告知本會：申請數目為何？\n{reply}\n2. 乙議員：主席，另一問題。"
    )
    gold = tmp_path / "gold.json"
    question = {"document": "hansard.pdf", "qa_id": "1", "page": 1, "lang": "zh"}
    gold.write_text(
        json.dumps(
            {
                "questions": [
                    {
                        **question,
                        "id": "fact",
                        "question": "今年有多少人申請？",
                        "answer_end": "本年度共有3 200宗申請。",
                    },
                    {**question, "id": "pair", "question": "計劃會否檢討？"},
                ]
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    paper = Paper(
        tmp_path / "hansard.pdf",
        "hansard",
        "sha",
        text,
        {"1": answer_anchor("我們會繼續檢討計劃。", "我們會繼續檢討計劃。", text)},
    )
    fact, pair = questions = load_gold_questions(gold)
    add_question_anchors({"hansard.pdf": paper}, questions)
    assert paper.anchor(fact) == "本年度共有3200宗申請。" and paper.anchor(pair) == "我們會繼續檢討計劃。"
    part_one = chunk_record(
        "hansard:question:0", "1. 甲議員：主席，有關計劃…\n局長：主席，(一)本年度共有3 200宗申請。", "hansard"
    )
    assert holds_answer_end(part_one, "hansard", paper.anchor(fact)) and not holds_answer_end(
        part_one, "hansard", paper.anchor(pair)
    )
    assert [q.answer_end for q in load_gold_questions(gold, pair_ends=True)] == [None, None]


def test_char_windows_are_the_seed_baseline() -> None:
    spans = char_windows("x" * 2500)
    assert spans == [(0, 1000), (800, 1800), (1600, 2500)]
    assert char_windows("short") == [(0, 5)]


def _hit(chunk_id: str, document: str, text: str, rank: int) -> Hit:
    return Hit(chunk_record(chunk_id, text, document), rank, 1.0 / rank)


def test_scoring_counts_rank_and_characters_read_until_the_answer_end() -> None:
    hits = [
        _hit("a", "d", "x" * 100, 1),
        _hit("b", "other", "答案的結尾。", 2),
        _hit("c", "d", "前文\n答案的 結尾。", 3),
        _hit("e", "d", "答案的結尾。", 4),
    ]
    first, relevant, chars = score_ranking(hits, "d", "答案的結尾。", ideal=2)
    assert first == 3 and relevant == [False, False, True, True] and chars == 100 + 6 + 10
    miss = score_ranking(hits[:2], "d", "答案的結尾。", ideal=1)
    assert miss == (None, [False, False], 106), "a miss reads everything retrieved"
    result = QuestionResult("q", "question", "hybrid", "zh", False, first, relevant, 2, chars)
    assert result.ndcg5 == pytest.approx((1 / 2 + 1 / 2.321928) / (1 + 1 / 1.584963), rel=1e-4)
    rows = summarise([result, QuestionResult("q2", "question", "hybrid", "en", True, 1, [True], 1, 10)])
    assert rows[0].hit1 == 0.5 and rows[0].hit5 == 1.0 and rows[0].mrr == pytest.approx((1 / 3 + 1) / 2)
    assert rows[0].context_chars == pytest.approx((116 + 10) / 2)


# -- the bars, on the fixture papers -----------------------------------------------------------
def test_question_strategy_meets_the_bars(report: EvalReport) -> None:
    question, token = report.row("question", "hybrid"), report.row("token", "hybrid")
    assert question.questions >= 60
    assert question.hit5 >= 0.95 and question.hit1 >= 0.8, report.table()
    assert question.context_chars <= 0.5 * token.context_chars, report.table()
    assert question.mrr > report.row(BASELINE, "hybrid").mrr and question.mrr > token.mrr


def test_default_mode_and_fusion_are_the_best_measured(eval_run: EvalRun, report: EvalReport) -> None:
    by_mode = {m.value: report.row("question", m.value).mrr for m in Mode}
    assert max(by_mode, key=by_mode.get) == DEFAULT_MODE.value, by_mode
    plain = {r.strategy: r for r in eval_run.sweep({"plain": PLAIN_RRF})}
    for strategy in ("question", "token"):
        assert report.row(strategy, "hybrid").hit5 >= plain[strategy].hit5
        assert report.row(strategy, "hybrid").mrr >= plain[strategy].mrr
    assert (
        report.row("question", "hybrid", "cross-language").hit5
        > report.row("question", "vector", "cross-language").hit5
    )


def test_default_language_centering_is_the_best_measured_per_strategy(eval_run: EvalRun) -> None:
    """Question chunks gain from removing half the query-script mean (once above all on
    cross-language questions); token windows do not, so they keep none."""
    rows = eval_run.centering_sweep((0.0, 0.5, 1.0))
    for strategy in ("question", "token"):
        mrr = {r.mode: r.mrr for r in rows if r.strategy == strategy and r.subset == "all"}
        assert max(mrr, key=mrr.get).endswith("(default)"), mrr
    cross = {r.mode: r for r in rows if r.strategy == "question" and r.subset == "cross-language"}
    # +0.08 MRR until the third retrieval round gave BM25 the weight of both vector rankers (+0.04);
    # since the fourth round's margins +0.003 and Hit@5 1.0 against 0.96 (one question, which
    # Chroma's index build can move between ingests): on cross-language questions it no longer
    # gains measurably, and it must not cost
    assert cross["centering 0.5 (default)"].mrr >= cross["centering 0"].mrr - 0.01
    assert cross["centering 0.5 (default)"].hit5 >= cross["centering 0"].hit5
    assert eval_run.retriever.centering is None, "the sweep puts the per-strategy default back"


def test_question_ranker_centering_keeps_the_fixture_papers_answered(eval_run: EvalRun) -> None:
    """The question ranker's share (0.75) was chosen on the development sets pooled, where
    it ties 0.5 and beats no centering (the second retrieval round, docs/history/retrieval.md). Since the
    fusion's second round, the fixtures alone no longer prefer it: no centering finds one
    cross-language question more first. What holds: the fixture questions stay over the
    Hit@5 bar of 0.95 (all of them until the third retrieval round weighted BM25 up, 65 of 68 since),
    within a question of no centering at Hit@1; the sweep puts the default back."""
    rows = {
        (r.mode, r.strategy, r.subset): r
        for r in eval_run.centering_sweep((0.0, QUESTION_CENTERING), ranker="question")
    }
    default, none = f"centering {QUESTION_CENTERING:g} (default)", "centering 0"
    assert rows[(default, "question", "all")].hit5 >= 0.95
    assert (
        rows[(default, "question", "all")].hit1
        >= rows[(none, "question", "all")].hit1 - 1.5 / rows[(none, "question", "all")].questions
    )
    assert rows[(default, "token", "all")].mrr == rows[(none, "token", "all")].mrr, (
        "token windows have no questions"
    )
    assert eval_run.retriever.question_centering == QUESTION_CENTERING


def test_recorded_query_translations_find_the_cross_language_answers(eval_run: EvalRun) -> None:
    """Every gold question (fixtures and held-out sets) has an LLM translation recorded in the
    other language; fused in as a configured LLM's would be, they find more of the fixture
    questions asked across languages, and more first, than the questions alone."""
    translations = load_translations(QUERY_TRANSLATIONS)
    for gold in [GOLD_QUESTIONS, *(HELD_OUT[name] for name in LLM_RECORDED_SETS)]:
        for q in load_gold_questions(gold):
            assert script_of(translations[q.question]) != script_of(q.question), q.id
    translated = collect_translated(eval_run.retriever, eval_run.questions, ["question"], translations)
    assert len(translated) == len(eval_run.questions)
    alone = replace(eval_run, strategies=["question"]).report(modes=(Mode.hybrid,))
    fused = replace(eval_run, strategies=["question"], translated=translated).report(modes=(Mode.hybrid,))
    cross_alone, cross_fused = (r.row("question", "hybrid", "cross-language") for r in (alone, fused))
    assert cross_fused.hit1 > cross_alone.hit1 and cross_fused.mrr > cross_alone.mrr
    assert fused.row("question", "hybrid").mrr > alone.row("question", "hybrid").mrr


def test_recorded_rerankings_replay_on_the_chunks_the_model_was_shown(eval_run: EvalRun) -> None:
    """Every gold question has an LLM's order of its fused top chunks recorded (question and
    token strategies, with the recorded translations fused in, at da144ce). Token windows have
    not changed since: on the fixture papers the chunks shown then are exactly the fused top
    chunks now, and replaying the orders puts the answer first more often than the fusion
    alone. Question chunks have (Council exchanges, section paths as context lines): a named
    chunk whose text changed is never credited to the model (its fingerprint differs), so the
    replay is never better than what the model really judged; re-recording the question
    strategy's orders on the new chunks is left to a session with an LLM stand-in."""
    recorded = json.loads(QUERY_RERANKINGS.read_text(encoding="utf-8"))["rerankings"]
    for gold in [GOLD_QUESTIONS, *(HELD_OUT[name] for name in LLM_RECORDED_SETS)]:
        for q in load_gold_questions(gold):
            for strategy in ("question", "token"):
                entry = recorded[strategy][q.question]
                assert entry["ranking"] and set(entry["ranking"]) <= set(entry["shown"]), (q.id, strategy)
    translated = collect_translated(
        eval_run.retriever, eval_run.questions, ["question", "token"], load_translations(QUERY_TRANSLATIONS)
    )
    scope = eval_run.retriever.scope("token")
    # the fusion the orders were recorded under: the second retrieval round changed the weights
    # and added the dictionary's vote, so today's default shows the model other chunks
    recorded_under = replace(
        DEFAULT_FUSION, question_weight=2.0, narrative_weight=0.95, dictionary_weight=0.0, **ROUND_2_BM25
    )
    for q in eval_run.questions:
        key = (q.id, "token")
        shown = [
            h.id
            for h in fuse(q.question, eval_run.rankings[key], recorded_under, scope, translated[key])[:10]
        ]
        assert shown == recorded["token"][q.question]["shown"], key
    run = replace(eval_run, strategies=["question", "token"], translated=translated)
    fused = run.report(modes=(Mode.hybrid,), fusion=recorded_under)
    orders = load_rerankings(QUERY_RERANKINGS)
    named = [r for r in eval_run.retriever.scope("token").records if r.id in orders.chunks]
    assert named and all(chunk_fingerprint(r.text) == orders.chunks[r.id] for r in named)
    reranked = replace(run, reranker=recorded_reranker(orders)).report(
        modes=(Mode.hybrid,), fusion=recorded_under
    )
    assert reranked.row("token", "hybrid").hit1 > fused.row("token", "hybrid").hit1
    assert reranked.row("question", "hybrid").hit1 >= fused.row("question", "hybrid").hit1


def test_a_replay_skips_a_named_chunk_whose_text_changed() -> None:
    """A chunk id is a position in its paper; after a chunking change it names other text,
    which the model never judged, so the replay leaves it where the fusion put it."""
    orders = RecordedRerankings({"q": ["d:question:2", "d:question:1"]})
    orders.chunks = {"d:question:2": chunk_fingerprint("the reply the model read")}
    records = [chunk_record("d:question:1", "a"), chunk_record("d:question:2", "another supplementary")]
    assert recorded_reranker(orders)("q", records) == [0]
    records[1].text = "the reply the model read"
    assert recorded_reranker(orders)("q", records) == [1, 0]


def test_a_perfect_reranker_reads_no_more_than_the_fused_order(eval_run: EvalRun, report: EvalReport) -> None:
    """The bounds behind ``eval_retrieval.py --bounds``: putting the shortest answer-holding
    chunk of the fused top 10 first never reads more than the fused order does, reads exactly
    as much on a miss, and reads no less than the shortest answer-holding chunk stored."""
    bounds = reading_bounds(eval_run)
    fused = {(r.question_id, r.strategy): r for r in report.results if r.mode == "hybrid"}
    for strategy, bound in bounds.items():
        assert len(bound.floor) == len(eval_run.questions) and set(bound.at_depth) == set(BOUND_DEPTHS)
        for i, q in enumerate(eval_run.questions):
            measured, perfect = fused[(q.id, strategy)], [bound.at_depth[d][i] for d in BOUND_DEPTHS]
            if measured.first_hit is None:
                assert perfect[0] == measured.context_chars, "a miss reads the same ten chunks"
                continue
            assert bound.floor[i] <= perfect[0] <= measured.context_chars
            assert perfect == sorted(perfect, reverse=True), "a deeper perfect reranker reads no more"
    for strategy in ("question", "token"):  # neither finds every answer first without an LLM
        assert sum(bounds[strategy].at_depth[10]) < sum(
            r.context_chars for k, r in fused.items() if k[1] == strategy
        )
    twice = pooled_bounds([bounds, bounds])
    assert twice["token"].floor == bounds["token"].floor * 2
    table = format_bounds(bounds, report)
    assert "| question / token |" in table and table.count("\n") == 2 + len(bounds)


def test_baseline_chunks_are_character_windows_of_the_cleaned_text(eval_run: EvalRun) -> None:
    scope = eval_run.retriever.scope(BASELINE)
    by_doc: dict[str, list[ChunkRecord]] = {}
    for record in scope.records:
        by_doc.setdefault(record.document_id, []).append(record)
    for document_id, records in by_doc.items():
        records.sort(key=lambda r: r.metadata.chunk_index)
        paper = next(p for p in eval_run.papers.values() if p.document_id == document_id)
        assert all(len(r.text) <= 1000 for r in records)
        assert "".join(r.text[:800] for r in records[:-1]) + records[-1].text == paper.text


def test_recorded_baselines_hold_and_a_drop_fails_the_check(eval_run: EvalRun) -> None:
    for name, paper in eval_run.papers.items():
        for strategy in ("question", "token"):
            baseline = recorded_baseline(name, strategy)
            assert baseline is not None, f"no baseline recorded for {name} {strategy}"
            outcome = check_document(eval_run.retriever, paper, eval_run.questions, strategy, baseline)
            assert outcome.passed, (name, strategy, outcome)
    paper = eval_run.papers["paper_b_speaking_notes.pdf"]
    failing = check_document(eval_run.retriever, paper, eval_run.questions, "token", baseline=1.01)
    assert not failing.passed and failing.questions == 6


def test_eval_command_prints_one_table(tmp_path: Path) -> None:
    data = json.loads(GOLD_QUESTIONS.read_text(encoding="utf-8"))
    small = tmp_path / "gold.json"
    small.write_text(
        json.dumps(
            {"questions": [q for q in data["questions"] if q["document"] == "paper_b_speaking_notes.pdf"]}
        )
    )
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli.main(
            [
                "eval",
                "--gold",
                str(small),
                "--papers",
                str(FIXTURE_PAPERS),
                "--strategies",
                "token,baseline",
                "--modes",
                "bm25,vector",
            ]
        )
    lines = out.getvalue().splitlines()
    assert code == 0 and lines[0].startswith("| strategy | mode | subset |")
    rows = [line.split("|")[1:4] for line in lines[2:]]
    assert [" token ", " bm25 ", " all "] in rows and [" baseline ", " vector ", " all "] in rows


# -- the asset check on vector_index -----------------------------------------------------------
def test_vector_index_evaluates_a_paper_with_gold_and_shows_stored_versions(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(FIXTURE_PAPERS / "paper_b_speaking_notes.pdf")
    resources = {
        "legco": LegcoSettings(data_dir=str(data), inbox=str(data / "inbox")),
        "llm": LLMResource(),
        "chroma": ChromaResource(),
    }
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(documents_partitions.name, [key])
        result = dg.materialize(
            ALL_ASSETS,
            partition_key=key,
            instance=instance,
            resources=resources,
            run_config=strategy_run_config(Strategy.question),
        )
    assert result.success
    [check] = [c for c in result.get_asset_check_evaluations() if c.check_name == RETRIEVAL_CHECK]
    assert check.passed and check.metadata["evaluated"].value is True
    assert (
        check.metadata["questions"].value == 6
        and check.metadata["hit_at_5"].value >= check.metadata["baseline"].value
    )
    mat = next(
        m for m in result.get_asset_materialization_events() if m.asset_key == dg.AssetKey("vector_index")
    )
    table = mat.materialization.metadata["stored_versions"].value
    assert f"| {key} | question |" in table and "| yes |" in table
