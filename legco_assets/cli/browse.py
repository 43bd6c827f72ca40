"""Commands over what is stored in Chroma: ``documents``, ``chunks``, ``query``.

None of them imports Dagster: they read the collection directly, so they start fast and work
while ``dagster dev`` runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from legco_assets.core.records import join_path, split_path

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def _first_lines(text: str, lines: int = 2, width: int = 100) -> list[str]:
    """The first non-blank lines of a chunk, each cut to ``width`` characters."""
    found = [ln.strip() for ln in text.split("\n") if ln.strip()][:lines]
    return [ln[:width] + ("…" if len(ln) > width else "") for ln in found]


def _content_line(text: str, heading: str | None, path: str = "") -> str:
    """The first line that says something: chunks may start with their section path."""
    lines = _first_lines(text, 3, 200)
    skip = {(heading or "").strip(), path.strip()}
    return next((ln for ln in lines if ln not in skip), lines[0] if lines else "")


def _pages(meta: dict[str, Any]) -> str:
    start, end = meta.get("page_start"), meta.get("page_end")
    return f"p{start}" if end in (None, start) else f"p{start}-{end}"


# -- documents / chunks -----------------------------------------------------------------------
def cmd_documents(args: argparse.Namespace, settings: Settings) -> int:
    """Per document, strategy and version: latest flag and chunk counts."""
    from legco_assets.core.search import stored_versions

    rows = stored_versions(common.collection(settings))
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    if not rows:
        print("no documents stored yet (legco-assets ingest PATH …)", file=sys.stderr)
        return 0
    print(
        f"{'document':<34} {'strategy':<9} {'version':<13} {'latest':<6} {'chunks':>6}  "
        f"{'date':<10} {'kind':<15} file"
    )
    for r in rows:
        latest = "yes" if r["latest"] else "no"
        pair = f"  (counterpart: {r['counterpart_document_id']})" if r.get("counterpart_document_id") else ""
        number = f"  {r['paper_number']}" if r.get("paper_number") else ""
        print(
            f"{r['document_id']:<34} {r['strategy']:<9} {r['version']:<13} {latest:<6} "
            f"{r['chunks']:>6}  {r.get('date') or '-':<10} {r.get('kind') or '-':<15} "
            f"{r['filename']}{number}{pair}"
        )
    return 0


def cmd_chunks(args: argparse.Namespace, settings: Settings) -> int:
    """Per chunk of one document: question id and text, heading, pages, table flag."""
    from legco_assets.core.search import chunk_filter, stored_chunks

    where = chunk_filter(args.strategy, args.document, args.all_versions)
    found = sorted(
        stored_chunks(common.collection(settings), where),
        key=lambda c: (c.metadata.strategy_type, not c.metadata.is_latest_version, c.metadata.chunk_index),
    )
    if not found:
        return common.fail(
            f"no stored chunks for document {args.document!r}"
            + (f" and strategy {args.strategy.value}" if args.strategy else "")
        )
    for chunk in found:
        if args.json:
            print(json.dumps(chunk.to_json(), ensure_ascii=False))
            continue
        m = chunk.metadata.to_json()
        label = m.get("question_id") or m["section_type"]
        path = _path(m)
        shown = m.get("question_text") or _content_line(chunk.text, m.get("section_heading"), path)
        table = " [table]" if m.get("has_table") else ""
        where = path if len(path) <= 40 else "…" + path[-39:]
        print(f"{chunk.id:<40} {label:<14} {_pages(m):<8} {where:<40} {shown[:80]}{table}")
    return 0


# -- query ------------------------------------------------------------------------------------
SECTION_CHUNKS = 3  # chunks shown under each section by ``query --sections``


def _path(meta: dict[str, Any]) -> str:
    """The chunk's section path as a reader cites it (``A > B > C``)."""
    return join_path(split_path(meta.get("section_path")))


def _in_section(meta: dict[str, Any], text: str) -> bool:
    """``--section TEXT``: some heading on the chunk's path contains TEXT (any case)."""
    wanted = text.casefold()
    return any(wanted in heading.casefold() for heading in split_path(meta.get("section_path")))


def _print_hit(hit: Any, settings: Settings) -> None:
    m = hit.metadata.to_json()
    label = m.get("question_id") or m.get("section_type", "")
    via = " · ".join(f"{name} {rank}" for name, rank in hit.ranks.items())
    where = hit.record.document_id + (f"  {m['date']}" if m.get("date") else "")
    print(f"#{hit.rank:<2} {hit.score:.4f}  {where}  {_pages(m)}  {label}  ({via})  {hit.id}")
    if _path(m):
        print(f"    § {_path(m)}")
    for line in _first_lines(hit.text):
        print(f"    {line}")
    if m.get("chunk_file_path"):
        print(f"    excerpt: {common.excerpt_link(m, settings)}")
    if hit.counterpart is not None:  # the other language's version of the same chunk
        other = hit.counterpart
        print(f"    ↔ {other.id}  {_pages(other.metadata.to_json())}")
        for line in _first_lines(other.text, 1):
            print(f"      {line}")
    for linked in hit.links:  # the appendix an exchange points to, or the exchange an appendix answers
        lm = linked.metadata.to_json()
        what = f"appendix {lm['annex']}" if lm.get("annex") else f"answers {lm.get('question_id', '')}"
        print(f"    ⤷ {what}  {linked.id}  {_pages(lm)}")


def _print_sections(sections: list[Any], k: int, chunks: int, as_json: bool) -> None:
    """``query --sections``: the best ``k`` sections, each with its ``chunks`` best hits."""
    for rank, section in enumerate(sections[:k], start=1):
        if as_json:
            print(json.dumps({"rank": rank, **section.to_json(chunks)}, ensure_ascii=False))
            continue
        print(f"#{rank:<2} {section.score:.4f}  {section.document_id}  § {join_path(section.path)}")
        for hit in section.hits[:chunks]:
            m = hit.metadata.to_json()
            first = next(iter(_first_lines(hit.text, 1)), "")
            print(f"    {hit.score:.4f}  {_pages(m)}  {hit.id}  {first}")


def cmd_query(args: argparse.Namespace, settings: Settings) -> int:
    """Ranked chunks for a text, as lines for a person or chunk records with ``--json``."""
    from legco_assets.core.search import (
        DEFAULT_MODE,
        RERANKED,
        BadFilter,
        Mode,
        Retriever,
        SearchFilters,
        newest_first,
        strategy_for,
    )

    try:
        filters = SearchFilters.of(args.document, args.date_from, args.date_to, args.kind, args.speaker)
        strategy = strategy_for(args.strategy, settings.default_strategy, args.speaker)
    except BadFilter as exc:
        return common.fail(str(exc))
    retriever = Retriever.open(settings, translate=not args.no_translate, rerank=not args.no_rerank)
    problem = common.empty_scope_message(retriever, strategy, args.all_versions)
    if problem:
        return common.fail(problem)
    mode = args.mode or DEFAULT_MODE
    if args.sections:
        from legco_assets.core.search import aggregate

        # sections need more chunks than k: rank deeply, then group and keep k sections
        hits = retriever.search(
            args.text, max(args.k * 10, 50), strategy, mode, None, args.all_versions, filters
        )
        if args.section:
            hits = [hit for hit in hits if _in_section(hit.metadata.to_json(), args.section)]
        if not hits:
            print("no matching chunks", file=sys.stderr)
        _print_sections(aggregate(hits), args.k, SECTION_CHUNKS, args.json)
        return 0
    if args.section:
        # filter a deeper ranking, then keep k: hits outside the section must not use up k
        hits = retriever.search(
            args.text, max(args.k * 10, 50), strategy, mode, None, args.all_versions, filters
        )
        hits = [hit for hit in hits if _in_section(hit.metadata.to_json(), args.section)][: args.k]
        for rank, hit in enumerate(hits, start=1):
            hit.rank = rank
    else:
        hits = retriever.search(args.text, args.k, strategy, mode, None, args.all_versions, filters)
    if args.sort == "date":
        hits = newest_first(hits)
    if retriever.translator and mode is Mode.hybrid:
        translation = retriever.translation(args.text)  # asked once: the search already did
        said = f"also searched as: {translation}" if translation else "not translated (no usable LLM reply)"
        print(said, file=sys.stderr)
    if retriever.reranker and mode is Mode.hybrid and hits:
        named = any(RERANKED in hit.ranks for hit in hits)
        print("re-ordered by the LLM" if named else "fused order (no usable LLM reranking)", file=sys.stderr)
    if not hits:
        print("no matching chunks", file=sys.stderr)
    for hit in hits:
        if args.json:
            print(json.dumps(hit.to_json(), ensure_ascii=False))
        else:
            _print_hit(hit, settings)
    return 0


def add_command(sub: Any) -> None:
    """Register ``documents``, ``chunks`` and ``query`` on the ``legco-assets`` sub-parser (defaults
    that live in the core are resolved when a command runs, so building the parser imports
    nothing heavy)."""
    docs = sub.add_parser("documents", help="stored documents: strategies, versions, chunk counts")
    docs.add_argument("--json", action="store_true", help="one JSON object per document/strategy/version")
    docs.set_defaults(func=cmd_documents)

    chunks = sub.add_parser("chunks", help="stored chunks of one document")
    chunks.add_argument("document", help="document id (partition key)")
    chunks.add_argument("--strategy", choices=common.STRATEGY_CHOICES, action=common.AsStrategy)
    chunks.add_argument("--all-versions", action="store_true", help="include archived versions")
    chunks.add_argument("--json", action="store_true", help="one stored chunk per line")
    chunks.set_defaults(func=cmd_chunks)

    query = sub.add_parser("query", help="hybrid search over the stored chunks")
    query.add_argument("text")
    query.add_argument("-k", type=int, default=5, help="how many chunks (default 5)")
    query.add_argument(
        "--strategy",
        choices=common.STRATEGY_CHOICES,
        action=common.AsStrategy,
        help=common.STRATEGY_DEFAULT,
    )
    query.add_argument(
        "--mode",
        choices=common.MODES,
        action=common.AsMode,
        help="default: the mode the eval shows best (hybrid)",
    )
    query.add_argument(
        "--section", metavar="TEXT", help="keep hits whose section path has a heading containing TEXT"
    )
    query.add_argument(
        "--sections",
        action="store_true",
        help="rank headed sections (their chunks scoring together) and show each with its "
        f"{SECTION_CHUNKS} best chunks; -k counts sections",
    )
    query.add_argument("--document", help="only this document id")
    query.add_argument(
        "--date-from", metavar="DATE", help="only papers dated on or after DATE (YYYY, YYYY-MM or YYYY-MM-DD)"
    )
    query.add_argument(
        "--date-to", metavar="DATE", help="only papers dated on or before DATE (a partial date: all of it)"
    )
    query.add_argument(
        "--kind",
        action="append",
        metavar="KIND",
        help="only papers of this kind (repeat, or comma-separated): hansard, council_question, "
        "committee_paper, agenda, speech, guide, faq, submission, other",
    )
    query.add_argument(
        "--speaker",
        metavar="NAME",
        help="only passages where NAME speaks: exchanges and debate speeches (any printed form)",
    )
    query.add_argument(
        "--sort", choices=("relevance", "date"), default="relevance", help="date: newest paper first"
    )
    query.add_argument("--all-versions", action="store_true", help="also search archived versions")
    query.add_argument("--json", action="store_true", help="chunk records with rank and score, one per line")
    query.add_argument(
        "--no-translate",
        action="store_true",
        help="with an LLM configured, do not also search the query in the other language",
    )
    query.add_argument(
        "--no-rerank",
        action="store_true",
        help="with an LLM configured, keep the fused order (no model re-ordering)",
    )
    query.set_defaults(func=cmd_query)
