"""Answering a question from the retrieved chunks (``legco-assets answer``): the adaptive
context, the prompt, and the model's reply parsed.

Why adaptive: most questions are answered by their own Q&A chunk, so the model first sees
the fewest chunks and gets more only while it says they are not enough
(:func:`answer_question`); the chunks come from the retriever (:mod:`.retrieval`), each
with its appendix or the exchange it answers (:mod:`.links`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..llm import unfenced
from ..records import ChunkRecord
from ..settings import Strategy
from ..tokens import count_tokens, encoding
from .hits import DEFAULT_MODE, Hit, Mode
from .links import in_language_of, with_linked
from .retrieval import Retriever

ANSWER_PROMPT_VERSION = "answer-v1"
K_START, K_MAX, K_STEP = 2, 6, 2
CONTEXT_TOKENS = 3000
ANSWER_SYSTEM = (
    "You answer questions about Hong Kong Legislative Council papers using ONLY the numbered "
    "context passages. Never use outside knowledge. Reply with one JSON object and nothing else.\n"
    'If the passages contain the answer: {"sufficient": true, "answer": "...", "citations": '
    '[{"document_id": "...", "page": 3, "question_id": "A1"}]} citing every passage you used '
    "(its document, page and question id when it has one).\n"
    'If they do not: {"sufficient": false}.\n'
    "Answer in the language of the question."
)


@dataclass
class ContextBlock:
    """One retrieved chunk as it goes into the prompt (possibly cut to fit the budget)."""

    hit: Hit
    text: str
    tokens: int
    truncated: bool

    def citation(self) -> dict[str, Any]:
        """Where this passage is: document, page and question id (when it has one)."""
        cite: dict[str, Any] = {
            "document_id": self.hit.record.document_id,
            "page": self.hit.record.page_number,
        }
        if self.hit.metadata.question_id:
            cite["question_id"] = self.hit.metadata.question_id
        return cite

    def header(self, number: int) -> str:
        cite = self.citation()
        parts = [f"document: {cite['document_id']}", f"page: {cite['page']}"]
        if "question_id" in cite:
            parts.append(f"question: {cite['question_id']}")
        meta = self.hit.metadata
        if meta.answers_question_id:  # a Hansard appendix: say which exchange it answers
            label = "appendix" if meta.annex is None else meta.annex
            parts.append(f"{label} answering question: {meta.answers_question_id}")
        return f"[{number}] " + " | ".join(parts)


def assemble_context(hits: list[Hit], budget_tokens: int) -> list[ContextBlock]:
    """The hits, best first, as long as they fit ``budget_tokens``; the first one that does
    not fit is cut to the room left (a partial answer beats none), and assembly stops."""
    blocks: list[ContextBlock] = []
    left = budget_tokens
    for hit in hits:
        needed = count_tokens(hit.text)
        if needed <= left:
            blocks.append(ContextBlock(hit, hit.text, needed, False))
            left -= needed
            continue
        if left > 0:
            cut = encoding().decode(encoding().encode(hit.text, disallowed_special=())[:left])
            blocks.append(ContextBlock(hit, cut, left, True))
        break
    return blocks


def render_context(blocks: list[ContextBlock]) -> str:
    return "\n\n".join(f"{b.header(n)}\n{b.text}" for n, b in enumerate(blocks, start=1))


def answer_messages(question: str, blocks: list[ContextBlock]) -> list[dict[str, str]]:
    """The chat messages sent to the model for one round."""
    user = f"Context passages:\n\n{render_context(blocks)}\n\nQuestion: {question}"
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}]


def parse_answer(reply: str) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """(sufficient, answer, citations) from the model's reply.

    The reply should be the JSON object the prompt asks for (code fences tolerated); a model
    that ignores the format still gets through: a reply starting with ``INSUFFICIENT`` or
    ``{"sufficient": false`` means not enough context, any other text is the answer."""
    text = unfenced(reply)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        if not data.get("sufficient", bool(data.get("answer"))):
            return False, None, []
        cites = [c for c in data.get("citations") or [] if isinstance(c, dict)]
        return True, str(data.get("answer") or "").strip() or None, cites
    if text.upper().startswith("INSUFFICIENT"):
        return False, None, []
    return True, text, []


@dataclass
class AnswerRound:
    """One call to the model: how many chunks it saw and what it said."""

    k: int
    chunk_ids: list[str]
    context_tokens: int
    sufficient: bool


@dataclass
class Answer:
    """The outcome of :func:`answer_question`.

    Without an LLM, ``answer`` is None, ``rounds`` is empty and ``messages`` is what would
    have been sent for the first round."""

    question: str
    answer: str | None
    citations: list[dict[str, Any]]
    sufficient: bool
    rounds: list[AnswerRound]
    blocks: list[ContextBlock]
    messages: list[dict[str, str]]

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "sufficient": self.sufficient,
            "citations": self.citations,
            "k": len(self.blocks),
            "rounds": [vars(r) for r in self.rounds],
            "context": [
                {**b.citation(), "id": b.hit.id, "tokens": b.tokens, "truncated": b.truncated}
                for b in self.blocks
            ],
        }


def answer_question(
    retriever: Retriever,
    question: str,
    llm: Any | None,
    strategy: Strategy,
    mode: Mode = DEFAULT_MODE,
    document: str | None = None,
    budget_tokens: int = CONTEXT_TOKENS,
    k_start: int = K_START,
    k_max: int = K_MAX,
    k_step: int = K_STEP,
    shown: Callable[[ChunkRecord], ChunkRecord] | None = None,
) -> Answer:
    """Answer from the fewest chunks that suffice: start with ``k_start`` chunks and give
    the model ``k_step`` more (up to ``k_max``) while it says the context is insufficient.

    Why adaptive: most questions are answered by their own Q&A chunk, and every extra chunk
    costs tokens and invites the model to mix answers up; only when the first chunks miss
    is more context worth its cost. One search at ``k_max`` serves every round (the fused
    order does not depend on k). ``llm`` is an :class:`.llm.LLMClient` or None. ``shown``:
    each context chunk as the model may read it (the search service withholds internal
    notes), applied after ranking."""
    hits = retriever.search(question, k=k_max, strategy=strategy, mode=mode, document=document)
    if document is None:  # a search in one document keeps to it
        hits = in_language_of(question, hits)
    linked = any(h.metadata.annex_ids or h.metadata.answers_question_id for h in hits)
    scope = retriever.scope(strategy) if linked else None  # an exchange's appendix comes with it, and back
    k = min(k_start, k_max, max(len(hits), 1))
    rounds: list[AnswerRound] = []
    while True:
        picked = with_linked(hits[:k], scope) if scope is not None else hits[:k]
        if shown is not None:
            picked = [replace(h, record=shown(h.record)) for h in picked]
        blocks = assemble_context(picked, budget_tokens)
        messages = answer_messages(question, blocks)
        if llm is None or not blocks:  # nothing to ask about: no call
            return Answer(question, None, [], False, rounds, blocks, messages)
        sufficient, text, cites = _ask(llm, question, blocks, messages)
        rounds.append(AnswerRound(k, [b.hit.id for b in blocks], sum(b.tokens for b in blocks), sufficient))
        budget_left = len(blocks) == len(picked) and not (blocks and blocks[-1].truncated)
        if sufficient or not budget_left or k >= min(k_max, len(hits)):
            return Answer(question, text, cites, sufficient, rounds, blocks, messages)
        k = min(k + k_step, k_max, len(hits))


def _ask(
    llm: Any, question: str, blocks: list[ContextBlock], messages: list[dict[str, str]]
) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """One model call, cached by the question and the exact context it saw."""
    context_hash = hashlib.sha256(render_context(blocks).encode("utf-8")).hexdigest()
    reply = llm.complete(
        "answer", ANSWER_PROMPT_VERSION, messages, {"question": question, "context": context_hash}
    )
    return parse_answer(reply)
