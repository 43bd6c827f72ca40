"""The fusion of the rankers' candidates into one order (hybrid mode): :func:`fuse`.

The rankings are fused by weighted reciprocal rank fusion (``weight / (k + rank)``, k = 60).
BM25's vote for a chunk is scaled by how much of the query the chunk matched (IDF-weighted
coverage, :meth:`.bm25_index.Bm25Index.coverage`): this routes by language without a
language detector, since an English query covers next to nothing of a Chinese chunk, and it
also silences BM25 when an English question about a Chinese paper matches stray words of an
English paper. Ranks alone forget how far a ranker's first candidate stands above the rest:
an exact match that BM25 scores far ahead of its field, or a paper question nearly identical
to the user's, votes no more than a near miss in first place. So each vote also counts by its
margin (the candidate's score as a z-score over its ranker's first :attr:`Fusion.margin_depth`,
above the mean only), at the same weights, blended with the reciprocal ranks at
:attr:`Fusion.margin_share` (the fourth retrieval round: :func:`margins`). Neither says
whether a chunk holds the whole question or repeats one rare word of it, so the share of the
query's words a chunk holds counts on its own too, at :attr:`Fusion.coverage_share` (the sixth
round: :func:`blend`). The weights were
chosen on the eval's development sets (:mod:`.evaluation`, ``docs/retrieval.md``) and then
scored once on blind sets written after the choice.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..records import ChunkRecord
from .bm25_index import script_of
from .filters import Where
from .hits import Candidate, Hit, Scope
from .links import inherit_counterparts
from .sections import lift

RRF_K = 60
# BM25 of the query's words in the other script, from the dictionary (:mod:`.dictionary_translation`)
DICTIONARY = "bm25-dictionary"
FUSED = ("vector", "question", "bm25", DICTIONARY)  # the rankers hybrid mode fuses


@dataclass(frozen=True)
class Fusion:
    """Weights of the reciprocal rank fusion (hybrid mode).

    A chunk's fused score is the sum over rankers of ``weight / (k + rank)``; BM25's weight
    is multiplied by ``coverage ** coverage_power`` (see the module docstring) and by
    ``cross_script_bm25_weight`` when the chunk is not in the query's script. ``depth``
    candidates are taken from each ranker before fusing."""

    # One line of why per field; how each value was chosen, and on which sets: docs/history/retrieval.md,
    # "Tuning history of the fusion weights".
    k: int = RRF_K
    vector_weight: float = 1.0
    question_weight: float = 1.0
    bm25_weight: float = 2.0  # BM25's exact matches equal the two embedding rankers' near misses together
    coverage_power: float = 0.5  # a chunk holding more of the query's words gets more of BM25's vote
    cross_script_bm25_weight: float = 1.0
    depth: int = 50
    translation_weight: float = 1.0  # the translated query's votes (with an LLM configured)
    counterpart_share: float = 0.0  # floor: share of the other-language counterpart's score (.links; 0: off)
    section_share: float = 0.0  # share of section-mates' decayed scores added (.sections.lift; 0: off)
    narrative_weight: float = (
        0.8  # under 1: a tie between a paper's question and a narrative chunk goes to it
    )
    dictionary_weight: float = 1.0  # BM25 of the query's dictionary rendering in the other script (0: off)
    dictionary_on_paired: bool = False  # no dictionary vote for papers stored in the query's own language too
    margin_share: float = 0.3  # share of the score from the votes' margins (:func:`margins`), not their ranks
    margin_depth: int = 20  # how many of a ranker's first candidates its margins are measured against
    coverage_share: float = 0.2  # share of the score from the query's words a chunk holds (:func:`blend`)
    # same-language evidence first (:func:`own_script_holds`): off, it cost held-out cross-language sets
    own_script_agreement: int = 0
    own_script_first: tuple[str, ...] = ()
    dictionary_yield: float = 1.0
    colloquial_reading: bool = (
        False  # Cantonese words for lexical rankers (:mod:`.colloquial`): off, same reason
    )

    def bm25_vote(self, candidate: Candidate, query_script: str, chunk_script: str) -> float:
        """The weight of BM25's vote for one chunk."""
        weight = self.bm25_weight * candidate.coverage**self.coverage_power
        return weight if query_script == chunk_script else weight * self.cross_script_bm25_weight


DEFAULT_FUSION = Fusion()
PLAIN_RRF = Fusion(
    question_weight=0.0, coverage_power=0.0, dictionary_weight=0.0, margin_share=0.0, coverage_share=0.0
)  # the textbook fusion, for comparison


Rankings = dict[str, list[Candidate]]
TRANSLATED = "translated "  # prefix of a ranker's name in ``Hit.ranks`` for the translated query


def fuse(
    query: str,
    rankings: Rankings,
    fusion: Fusion,
    scope: Scope | None = None,
    translated: tuple[str, Rankings] | None = None,
    document: Where = None,
) -> list[Hit]:
    """Weighted reciprocal rank fusion of the rankers' candidates, blended with their
    margins (:func:`margins`, ``fusion.margin_share``) and the chunks' coverage of the
    query's words (``fusion.coverage_share``: :func:`blend`), best first; with ``translated`` (the
    query in the other language and its rankings), its votes count too, times
    ``fusion.translation_weight``; with ``fusion.counterpart_share`` and a ``scope``, chunks
    inherit their counterparts' scores (:func:`.links.inherit_counterparts`; ``document``: the
    search's document filter, which an inherited chunk must pass too); with
    ``fusion.section_share``, chunks of one section lift each other (:func:`.sections.lift`)."""
    by_rank: dict[str, float] = defaultdict(float)
    by_margin: dict[str, float] = defaultdict(float)
    by_cover: dict[str, float] = defaultdict(float)
    records: dict[str, ChunkRecord] = {}
    ranks: dict[str, dict[str, int]] = defaultdict(dict)
    votes = [(query, rankings, 1.0, "")]
    if translated:
        votes.append((translated[0], translated[1], fusion.translation_weight, TRANSLATED))
    for text, lists, share, prefix in votes:
        query_script = script_of(text)
        held = own_script_holds(lists, fusion, query_script, scope)
        for ranker in FUSED:
            found = (
                lists.get(ranker, [])
                if ranker != DICTIONARY
                else dictionary_votes(lists.get(ranker, []), fusion, scope)
            )
            ahead = margins([cand.score for cand in found], fusion.margin_depth)
            yielded = fusion.dictionary_yield if ranker == DICTIONARY and held else 1.0
            for place, (cand, margin) in enumerate(zip(found, ahead), start=1):
                rank = cand.rank or place
                weight = share * yielded * vote_weight(fusion, ranker, cand, query_script, scope)
                by_rank[cand.id] += weight / (fusion.k + rank)
                by_margin[cand.id] += weight * margin
                if ranker in WORD_RANKERS:  # its share of the query's words: the best reading of them
                    by_cover[cand.id] = max(by_cover[cand.id], share * yielded * cand.coverage)
                records.setdefault(cand.id, cand.record)
                ranks[cand.id][prefix + ranker] = rank
    scores = blend(by_rank, by_margin, by_cover, fusion)
    if scope is not None and fusion.counterpart_share > 0:
        inherit_counterparts(scores, records, ranks, scope, fusion.counterpart_share, document)
    lift(scores, records, fusion.section_share)
    order = sorted(scores, key=lambda i: -scores[i])
    return [Hit(records[i], n, scores[i], ranks[i]) for n, i in enumerate(order, start=1)]


def vote_weight(
    fusion: Fusion, ranker: str, cand: Candidate, query_script: str, scope: Scope | None
) -> float:
    """The weight of one ranker's vote for one candidate: BM25's scaled by its coverage (and
    by ``cross_script_bm25_weight`` off the query's script), the dictionary's as BM25's of a
    rendering in the chunk's script, the question ranker's under a question's for a chunk
    with no question of its own."""
    if ranker == "bm25":
        chunk_script = scope.script(cand.id, cand.record.text) if scope else script_of(cand.record.text)
        return fusion.bm25_vote(cand, query_script, chunk_script)
    if ranker == DICTIONARY:
        return fusion.dictionary_weight * fusion.bm25_vote(cand, query_script, query_script)
    if ranker == "question":
        asked = bool(cand.record.metadata.question_text)
        return fusion.question_weight * (1.0 if asked else fusion.narrative_weight)
    return fusion.vector_weight


def own_script_holds(rankings: Rankings, fusion: Fusion, query_script: str, scope: Scope | None) -> bool:
    """Whether the query's own script has a strong candidate: a chunk in it that BM25 and a
    vector ranker both place within their first ``fusion.own_script_agreement``, or, for a
    query in one of ``fusion.own_script_first``'s scripts, BM25's first candidate. Why: the
    dictionary's rendering is a bag of candidate words in the other script, and its votes for
    a chunk there can outvote a same-script chunk that BM25 and the vectors rank high (a
    Chinese question about a Chinese FAQ page answered first by an English FAQ of another
    paper); where the question's own script answers, its evidence comes first."""

    def own(cand: Candidate) -> bool:
        return (
            scope.script(cand.id, cand.record.text) if scope else script_of(cand.record.text)
        ) == query_script

    bm25 = rankings.get("bm25", [])
    if bm25 and query_script in fusion.own_script_first and own(bm25[0]):
        return True
    depth = fusion.own_script_agreement
    lexical = {c.id for c in bm25[:depth] if own(c)}
    semantic = {c.id for ranker in ("vector", "question") for c in rankings.get(ranker, [])[:depth]}
    return bool(lexical & semantic)


def dictionary_votes(found: list[Candidate], fusion: Fusion, scope: Scope | None) -> list[Candidate]:
    """The dictionary's candidates that vote: only chunks of papers with no version in the
    query's language stored (``scope.paired``), unless ``fusion.dictionary_on_paired``. Why:
    the dictionary is the route to a paper published in the other language only; where the
    query's own version is stored, BM25 and the vectors reach it directly, and the word-bag
    rendering mostly drags in the other version's near misses (on the development sets of
    the fifth retrieval round, Q&A and narrative Hit@1 rose, cross-language did not fall)."""
    if fusion.dictionary_on_paired or scope is None or not scope.paired:
        return found
    return [c for c in found if c.record.document_id not in scope.paired]


MARGIN_FIELD = 3  # a ranker needs at least this many candidates for one to stand out


def margins(scores: list[float], depth: int) -> list[float]:
    """How far each candidate's score stands above its ranker's field: the z-score over the
    first ``depth`` candidates, 0 at or below their mean. Why: reciprocal ranks give the
    first place the same vote whether it wins by a mile or by a hair; the margin lets a
    ranker that is sure (an exact BM25 match, a paper question that is the user's own) be
    heard over near misses, on any ranker's scale (cosine, BM25) alike."""
    if len(scores) < MARGIN_FIELD:
        return [0.0] * len(scores)
    field_ = np.asarray(scores[:depth], dtype=float)
    spread = float(field_.std())
    if spread <= 0.0:
        return [0.0] * len(scores)
    mean = float(field_.mean())
    return [max((s - mean) / spread, 0.0) for s in scores]


WORD_RANKERS = (
    "bm25",
    DICTIONARY,
)  # the rankers that match the query's words (their candidates carry a coverage)


def blend(
    by_rank: dict[str, float], by_margin: dict[str, float], by_cover: dict[str, float], fusion: Fusion
) -> dict[str, float]:
    """The fused scores: the reciprocal-rank and margin sums and the word coverages, each
    scaled to its best, mixed at ``fusion.margin_share`` of margin and
    ``fusion.coverage_share`` of coverage (both 0: the reciprocal-rank sums as they are).

    Why coverage counts on its own: BM25's rank and margin say a chunk matched the query's
    rarest words best, not that it holds *all* of them; a chunk holding every word of a
    paraphrased question is the answer more often than one repeating one of them (the
    sixth retrieval round: Hit@1 0.618 → 0.638 on the development sets, 0.640 → 0.655 on a blind set
    scored once; docs/history/retrieval.md)."""
    margin, cover = fusion.margin_share, fusion.coverage_share
    if margin <= 0.0 and cover <= 0.0:
        return dict(by_rank)
    top_rank = max(by_rank.values(), default=0.0) or 1.0
    top_margin = max(by_margin.values(), default=0.0) or 1.0
    top_cover = max(by_cover.values(), default=0.0) or 1.0
    return {
        i: (1.0 - margin - cover) * by_rank[i] / top_rank
        + margin * by_margin.get(i, 0.0) / top_margin
        + cover * by_cover.get(i, 0.0) / top_cover
        for i in by_rank
    }
