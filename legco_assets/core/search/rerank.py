"""The fused top chunks re-ordered by the configured LLM, which reads them against the query.

Why: the rankers score a chunk by how near its words and vectors are to the query, so a
pair on the same subject (the next FAQ item, another reply about foreign domestic helpers,
the other part of a long reply) often outranks the one that holds the fact asked for; that is
most of the rank-1 misses in the eval (``docs/retrieval.md``). A model that reads the query
and the first :data:`PASSAGE_CHARS` characters of each of the :data:`DEPTH` best chunks can
tell them apart. With an LLM configured, hybrid search asks it once per query and puts the
passages it names first, in its order; the others follow in fused order. Without an LLM, or
when the call fails or the reply names no passage, the fused order stands: reranking never
makes a search fail, and a repeated query over the same chunks costs no call (the client's
cache).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..llm import LLMClient, LLMError, unfenced
from ..records import ChunkRecord
from .hits import Hit

RERANK_PROMPT_VERSION = "rerank-v1"
DEPTH = 10  # fused chunks the model reads
PASSAGE_CHARS = 1000  # characters of each chunk it reads
TIMEOUT_S = 30.0  # a search waits at most this long for the order (per attempt)
SYSTEM = (
    "You rank passages from Hong Kong Legislative Council and Hong Kong Government papers by how "
    "well each answers a search query. The query may be in English or Chinese, and a passage in "
    "the other language can answer it. A passage answers the query when it holds the facts asked "
    "for, not when it is merely on the same subject. Reply with one JSON object and nothing else: "
    '{"ranking": [passage numbers, the best answer first]}; list the passages that answer the '
    "query or part of it, and leave out the others."
)


def passage(number: int, record: ChunkRecord) -> str:
    """One chunk as the model reads it: number, document, page, then the start of its text."""
    text = record.text
    cut = text[:PASSAGE_CHARS] + (" …" if len(text) > PASSAGE_CHARS else "")
    return f"[{number}] {record.document_id}, page {record.page_number}\n{cut}"


def rerank_messages(query: str, records: Sequence[ChunkRecord]) -> list[dict[str, str]]:
    """The chat messages that ask for the order of ``records`` (numbered from 1) for ``query``."""
    passages = "\n\n".join(passage(n, r) for n, r in enumerate(records, start=1))
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Query: {query}\n\nPassages:\n\n{passages}"},
    ]


def parse_ranking(reply: str, count: int) -> list[int] | None:
    """The 0-based passage indices the reply names, best first (repeats and numbers outside
    1..``count`` dropped); None when the reply is not such a JSON object or names none."""
    try:
        value: Any = json.loads(unfenced(reply))
    except json.JSONDecodeError:
        return None
    numbers = value.get("ranking") if isinstance(value, dict) else value
    if not isinstance(numbers, list):
        return None
    picked = [int(n) - 1 for n in numbers if isinstance(n, (int, str)) and str(n).strip().isdigit()]
    order = list(dict.fromkeys(i for i in picked if 0 <= i < count))
    return order or None


def reorder(items: Sequence[Any], order: Sequence[int]) -> list[Any]:
    """``items`` with those at ``order`` (distinct indices into ``items``) first, in that
    order, and the rest after, as they were."""
    chosen = set(order)
    return [items[i] for i in order] + [item for i, item in enumerate(items) if i not in chosen]


def rerank_order(llm: LLMClient, query: str, records: Sequence[ChunkRecord]) -> list[int] | None:
    """The model's order of ``records`` for ``query`` as 0-based indices, or None (no usable
    reply, or the call failed)."""
    if not records:
        return None
    try:
        payload = {"query": query, "chunks": [[r.id, r.text[:PASSAGE_CHARS]] for r in records]}
        reply = llm.complete(
            "rerank", RERANK_PROMPT_VERSION, rerank_messages(query, records), payload, max_tokens=200
        )
    except LLMError:
        return None
    return parse_ranking(reply, len(records))


def reranker(llm: LLMClient | None) -> Callable[[str, Sequence[ChunkRecord]], list[int] | None] | None:
    """A reranker over ``llm`` with a search's patience (bounded timeout, one retry), or None
    (the :data:`Reranker` the retriever calls)."""
    if llm is None:
        return None
    quick = llm.for_search(TIMEOUT_S)
    return lambda query, records: rerank_order(quick, query, records)


# -- the model's order applied to the fused hits -----------------------------------------------
Reranker = Callable[
    [str, list[ChunkRecord]], "list[int] | None"
]  # (query, records) -> their order, best first
RERANKED = "reranked"  # the model's place for a chunk in ``Hit.ranks`` (:func:`rerank_hits`)


def rerank_hits(query: str, hits: list[Hit], reranker: Reranker | None) -> list[Hit]:
    """``hits`` with the first :data:`DEPTH` in the reranker's order (those it names
    first, their place in ``Hit.ranks`` as ``reranked``; the rest after them in fused order),
    renumbered; unchanged without a reranker or a usable reply."""
    top = hits[:DEPTH]
    named = reranker(query, [h.record for h in top]) if reranker and top else None
    order = [i for i in dict.fromkeys(named or []) if 0 <= i < len(top)]
    if not order:
        return hits
    place = {index: n for n, index in enumerate(order, start=1)}
    marked = [
        Hit(
            h.record,
            h.rank,
            h.score,
            {**h.ranks, RERANKED: place[i]} if i in place else h.ranks,
            h.counterpart,
        )
        for i, h in enumerate(top)
    ]
    moved = reorder(marked, order) + hits[DEPTH:]
    return [Hit(h.record, n, h.score, h.ranks, h.counterpart) for n, h in enumerate(moved, start=1)]
