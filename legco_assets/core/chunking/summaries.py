"""A summary of each chunk, one or two sentences in its paper's language, written by the
configured LLM when ``QA_CHUNK_SUMMARIES`` is on: what a result list shows a reader before the
passage itself. It is metadata only, never indexed, so retrieval is the same with or without it.

Each reply is cached by the chunk's text (:meth:`..llm.LLMClient.complete`, as the vision
results are), so a paper chunked again, or a chunk that did not change in a new version, costs
no call. A failed call leaves that chunk without a summary: a summary never costs a paper."""

from __future__ import annotations

import hashlib

from ..llm import LLMClient, LLMError
from ..read import detect_language
from ..records import ChunkRecord

PROMPT_VERSION = "chunk-summary-1"
MAX_CHARS = 400  # a reply longer than this is no summary of one or two sentences: cut at a sentence
SYSTEM = {
    "zh": "你為香港立法會文件的段落寫摘要。用繁體中文寫一至兩句，只說段落本身的內容，不加評論。",
    "en": "You summarise passages of Hong Kong Legislative Council papers. Write one or two sentences "
    "in English saying what the passage itself says, without comment.",
}


def summary_of(text: str, llm: LLMClient) -> str | None:
    """One or two sentences on ``text`` in its script's language; None when the call fails or
    the reply is empty."""
    language = "zh" if detect_language(text) == "zh-Hant" else "en"
    messages = [{"role": "system", "content": SYSTEM[language]}, {"role": "user", "content": text}]
    try:
        reply = llm.complete(
            "chunk_summary",
            PROMPT_VERSION,
            messages,
            cache_payload=hashlib.sha256(text.encode("utf-8")).hexdigest(),
            max_tokens=200,
        )
    except LLMError:  # a failed call or a spent budget
        return None
    summary = " ".join(reply.split())
    if len(summary) > MAX_CHARS:
        cut = max(summary.rfind(mark, 0, MAX_CHARS) for mark in ("。", ". ", "！", "？"))
        summary = summary[: cut + 1] if cut > 0 else summary[:MAX_CHARS]
    return summary or None


def summarise(records: list[ChunkRecord], llm: LLMClient | None) -> list[ChunkRecord]:
    """The records, each with its ``summary`` when ``llm`` is given (else as they are)."""
    if llm is None:
        return records
    for record in records:
        record.metadata.summary = summary_of(record.text, llm)
    return records
