"""``legco-assets answer QUESTION``: an answer from the stored chunks, with citations; without
an LLM configured, the prompt that would be sent.

It does not import Dagster: it reads the collection directly, so it starts fast and works
while ``dagster dev`` runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def _excerpt_of(cite: dict[str, Any], blocks: list[Any], settings: Settings) -> str | None:
    """The excerpt URL of the context passage a citation names (document, page, question)."""
    for block in blocks:
        mine = block.citation()
        if mine["document_id"] == cite.get("document_id") and all(
            cite.get(key) in (None, mine.get(key)) for key in ("page", "question_id")
        ):
            return common.excerpt_link(block.hit.metadata.to_json(), settings)
    return None


def _print_answer(result: Any, settings: Settings) -> None:
    print(
        result.answer
        if result.sufficient and result.answer
        else "The retrieved papers do not answer this question."
    )
    if result.citations:
        print("\nSources:")
        for cite in result.citations:
            extra = f" {cite['question_id']}" if cite.get("question_id") else ""
            excerpt = _excerpt_of(cite, result.blocks, settings)
            print(
                f"  - {cite.get('document_id')} p.{cite.get('page')}{extra}"
                + (f"  excerpt: {excerpt}" if excerpt else "")
            )
    calls = len(result.rounds)
    tokens = result.rounds[-1].context_tokens if result.rounds else 0
    print(
        f"\n(context: {len(result.blocks)} chunks, {tokens} tokens; "
        f"{calls} model call{'s' if calls != 1 else ''})",
        file=sys.stderr,
    )


def cmd_answer(args: argparse.Namespace, settings: Settings) -> int:
    """Answer from retrieved chunks with citations; without an LLM, show the prompt."""
    from legco_assets.core.llm import LLMClient, LLMError
    from legco_assets.core.search import CONTEXT_TOKENS, DEFAULT_MODE, Retriever, answer_question

    strategy = args.strategy or settings.default_strategy
    retriever = Retriever.open(settings, translate=not args.no_translate, rerank=not args.no_rerank)
    problem = common.empty_scope_message(retriever, strategy, False)
    if problem:
        return common.fail(problem)
    llm = LLMClient.from_settings(settings)
    llm = llm.unbudgeted() if llm else None  # the budgets are per ingested document
    try:
        result = answer_question(
            retriever,
            args.question,
            llm,
            strategy,
            args.mode or DEFAULT_MODE,
            args.document,
            args.budget or CONTEXT_TOKENS,
        )
    except LLMError as exc:
        return common.fail(str(exc))
    if llm is None:
        print(
            "no LLM configured (set LLM_BASE_URL and LLM_MODEL_NAME); the context that would be sent:",
            file=sys.stderr,
        )
        for message in result.messages:
            print(f"--- {message['role']} ---\n{message['content']}\n")
        for number, block in enumerate(result.blocks, start=1):
            print(
                f"[{number}] excerpt: "
                f"{common.excerpt_link(block.hit.metadata.to_json(), settings) or '(none)'}"
            )
        return 0
    if args.json:
        data = result.to_json()
        for entry, block in zip(data["context"], result.blocks):
            entry["chunk_file_path"] = block.hit.metadata.chunk_file_path
            entry["excerpt_url"] = common.excerpt_link(block.hit.metadata.to_json(), settings)
        print(json.dumps(data, ensure_ascii=False))
    else:
        _print_answer(result, settings)
    return 0


def add_command(sub: Any) -> None:
    answer = sub.add_parser("answer", help="answer a question from the stored chunks, with citations")
    answer.add_argument("question")
    answer.add_argument(
        "--strategy",
        choices=common.STRATEGY_CHOICES,
        action=common.AsStrategy,
        help=common.STRATEGY_DEFAULT,
    )
    answer.add_argument("--mode", choices=common.MODES, action=common.AsMode, help="default: hybrid")
    answer.add_argument("--document", help="only this document id")
    answer.add_argument("--budget", type=int, help="context tokens (default 3000)")
    answer.add_argument("--json", action="store_true")
    answer.add_argument(
        "--no-translate", action="store_true", help="do not also search the question in the other language"
    )
    answer.add_argument(
        "--no-rerank", action="store_true", help="keep the fused order of the chunks (no model re-ordering)"
    )
    answer.set_defaults(func=cmd_answer)
