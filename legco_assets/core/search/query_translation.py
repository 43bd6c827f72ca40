"""A search query in the papers' other language, from the configured LLM.

Why: LegCo papers come in Traditional Chinese and English, and users ask in either. BM25
cannot cross languages, and the multilingual embedding puts a question nearer the papers of
its own language, so questions in the other language than the paper's are the weakest part
of the eval (``docs/retrieval.md``). With an LLM configured, hybrid search also runs the query
translated into the other language and fuses both (:func:`.fusion.fuse`). Without an LLM,
or when the call fails or says nothing usable, the query is searched alone: translation never
makes a search fail, and a repeated query costs no call (the LLM client's cache).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..llm import LLMClient, LLMError, unfenced
from .bm25_index import script_of

TRANSLATE_PROMPT_VERSION = "translate-v1"
TIMEOUT_S = 10.0  # a search waits at most this long for its translation (per attempt)
LANGUAGES = {"zh": "Traditional Chinese as used in Hong Kong official documents", "en": "English"}
SYSTEM = (
    "You translate search queries about Hong Kong Legislative Council and Hong Kong Government "
    "papers between Traditional Chinese and English. Translate faithfully, as a user would type "
    "the query; keep numbers, names and years; use the official names of Hong Kong bodies, "
    "ordinances and schemes. Add nothing. Reply with one JSON object and nothing else: "
    '{"translation": "..."}'
)

Translator = Callable[[str], "str | None"]


def target_language(query: str) -> str:
    """The other language: English for a query in Chinese script, Chinese otherwise."""
    return "en" if script_of(query) == "zh" else "zh"


def translation_messages(query: str) -> list[dict[str, str]]:
    """The chat messages that ask for ``query`` in its other language."""
    target = LANGUAGES[target_language(query)]
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Translate into {target}:\n{query}"},
    ]


def parse_translation(reply: str, query: str) -> str | None:
    """The translation in ``reply``: the JSON object's ``translation``, a JSON string, or a
    plain one-line reply; None when it is empty, the query itself, or not in the target
    language's script."""
    text = unfenced(reply)
    try:
        value: Any = json.loads(text)
        text = (
            value.get("translation", "")
            if isinstance(value, dict)
            else value
            if isinstance(value, str)
            else ""
        )
    except json.JSONDecodeError:
        text = text if "\n" not in text else ""
    text = str(text).strip()
    if not text or text == query.strip() or (script_of(text) == "zh") != (target_language(query) == "zh"):
        return None
    return text


def translate_query(llm: LLMClient, query: str) -> str | None:
    """``query`` in the other language, or None (no usable reply, or the call failed)."""
    try:
        # no response_format: not every OpenAI-compatible server takes it, and a plain line is read too
        messages = translation_messages(query)
        reply = llm.complete(
            "translate", TRANSLATE_PROMPT_VERSION, messages, {"query": query}, max_tokens=400
        )
    except LLMError:
        return None
    return parse_translation(reply, query)


def translator(llm: LLMClient | None) -> Translator | None:
    """A translator over ``llm`` with a search's patience (short timeout, one retry), or None."""
    if llm is None:
        return None
    quick = llm.for_search(TIMEOUT_S)
    return lambda query: translate_query(quick, query)
