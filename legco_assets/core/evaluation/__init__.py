"""Measure retrieval on gold questions: which strategy and mode finds the answer, how soon.

Why this exists: chunking by question is only worth its complexity if a reader finds the
answer sooner. The eval ingests the fixture papers itself (``pipeline.chunk_file`` for each
strategy, then ``vector_store.replace_document`` into a Chroma under a temp data dir, no
Dagster), adds the seed's baseline (1000-character windows, 200 overlap, over the same
cleaned text) and asks every gold question in every mode.

The modules, lowest first: :mod:`.sets` (the question sets and their files),
:mod:`.questions` (a gold question, a set's file read), :mod:`.hit_rule` (what counts as a
hit), :mod:`.papers` (the papers and their answer ends), :mod:`.baseline` (the seed's
windows), :mod:`.ingest` (chunking and storing the papers), :mod:`.metrics` (Hit@k, MRR,
nDCG@5, characters to the answer), :mod:`.report` (the table), :mod:`.recorded` (replayed LLM
translations and rerankings), :mod:`.scoring` (ranking and judging every question),
:mod:`.run` (one eval run: ``prepare_eval``, ``run_eval``), :mod:`.sweeps` (earlier rounds'
fusions, side by side), :mod:`.bounds` (what a perfect reranker would leave to read) and
:mod:`.stored_check` (the ``vector_index`` asset check, which needs nothing above
:mod:`.papers`).
"""

from __future__ import annotations

from .baseline import BASELINE, BASELINE_OVERLAP, BASELINE_SIZE, baseline_records, char_windows
from .bounds import BOUND_DEPTHS, ReadingBound, format_bounds, pooled_bounds, reading_bounds
from .hit_rule import MIN_ANCHOR, LooseEnd, answer_anchor, holds_answer_end, loose, normalise
from .ingest import ingest_papers, link_paper_counterparts
from .metrics import DEPTH, EvalRow, QuestionResult, score_ranking, summarise
from .papers import (
    Paper,
    add_question_anchors,
    gold_pairs_path,
    load_paper,
    load_papers,
    paper_from_pages,
    paper_language,
)
from .questions import GoldQuestion, load_gold_questions, script_language
from .recorded import (
    RecordedRerankings,
    chunk_fingerprint,
    load_rerankings,
    load_translations,
    recorded_reranker,
)
from .report import EvalReport, breakdown, format_table, pooled
from .run import EvalRun, prepare_eval, run_eval
from .scoring import Translated, collect_rankings, collect_translated, rank, score_all
from .sets import (
    BLIND_KINDS,
    BLIND_ROUNDS,
    CROSSLANG_DEV_QUESTIONS,
    CROSSLANG_HELD_OUT_QUESTIONS,
    DEV_SETS,
    GOLD_QUESTIONS,
    HELD_OUT,
    LLM_RECORDED_SETS,
    NARRATIVE_DEV_QUESTIONS,
    NARRATIVE_HELD_OUT_QUESTIONS,
    QUERY_RERANKINGS,
    QUERY_TRANSLATIONS,
    QUESTION_SETS,
    REAL_CORPUS,
    REAL_CORPUS_QUESTIONS,
    REAL_FDH_QUESTIONS,
    REAL_HANSARD_2012_ORAL_QUESTIONS,
    REAL_HANSARD_2015_QUESTIONS,
    REAL_HANSARD_2015_ZH_QUESTIONS,
    REAL_HANSARD_QUESTIONS,
    REAL_PAPERS,
    REPO,
    SET_KINDS,
    blind_round,
)
from .stored_check import DocumentCheck, check_document, check_stored_document, recorded_baseline
from .sweeps import QUESTION_SIDES, RANKS_ONLY, ROUND_2_BM25, ROUND_5, ROUND_FUSIONS, rounds_sweep

__all__ = [
    "BASELINE",
    "BASELINE_OVERLAP",
    "BASELINE_SIZE",
    "BLIND_KINDS",
    "BLIND_ROUNDS",
    "BOUND_DEPTHS",
    "CROSSLANG_DEV_QUESTIONS",
    "CROSSLANG_HELD_OUT_QUESTIONS",
    "DEPTH",
    "DEV_SETS",
    "DocumentCheck",
    "EvalReport",
    "EvalRow",
    "EvalRun",
    "GOLD_QUESTIONS",
    "GoldQuestion",
    "HELD_OUT",
    "ROUND_FUSIONS",
    "QUESTION_SIDES",
    "LLM_RECORDED_SETS",
    "LooseEnd",
    "MIN_ANCHOR",
    "NARRATIVE_DEV_QUESTIONS",
    "NARRATIVE_HELD_OUT_QUESTIONS",
    "Paper",
    "QUERY_RERANKINGS",
    "QUERY_TRANSLATIONS",
    "QUESTION_SETS",
    "QuestionResult",
    "RANKS_ONLY",
    "REAL_CORPUS",
    "REAL_CORPUS_QUESTIONS",
    "REAL_FDH_QUESTIONS",
    "REAL_HANSARD_2012_ORAL_QUESTIONS",
    "REAL_HANSARD_2015_QUESTIONS",
    "REAL_HANSARD_2015_ZH_QUESTIONS",
    "REAL_HANSARD_QUESTIONS",
    "REAL_PAPERS",
    "REPO",
    "ROUND_2_BM25",
    "ROUND_5",
    "ReadingBound",
    "RecordedRerankings",
    "SET_KINDS",
    "Translated",
    "add_question_anchors",
    "answer_anchor",
    "baseline_records",
    "blind_round",
    "breakdown",
    "char_windows",
    "check_document",
    "check_stored_document",
    "chunk_fingerprint",
    "collect_rankings",
    "collect_translated",
    "format_bounds",
    "format_table",
    "gold_pairs_path",
    "holds_answer_end",
    "ingest_papers",
    "rounds_sweep",
    "link_paper_counterparts",
    "load_gold_questions",
    "load_paper",
    "load_papers",
    "load_rerankings",
    "load_translations",
    "loose",
    "normalise",
    "paper_from_pages",
    "paper_language",
    "pooled",
    "pooled_bounds",
    "prepare_eval",
    "rank",
    "reading_bounds",
    "recorded_baseline",
    "recorded_reranker",
    "run_eval",
    "score_all",
    "score_ranking",
    "script_language",
    "summarise",
]
