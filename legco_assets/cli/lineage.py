"""``legco-assets lineage DOC|CHUNK_ID``: the provenance chain of one paper or one chunk.

From the file (path, sha256, where it came from: the inbox or the LegCo feed's URL and meeting
date; its other-language counterpart) through each stage's latest materialisation of that
paper (when, run id, code version, data version, config, extractor, rules or LLM structure
with model and prompt version, LLM calls made and served from cache, counts, and which
materialisations of the same paper it read) to the chunk ids stored in Chroma; for one chunk
id, that chunk's ancestry instead: the stages of its strategy, its pages, section path and
excerpt. A legend line says what ``code`` and ``data`` are. It reads the Dagster instance the
CLI and the UI share (``DAGSTER_HOME``) and the embedded Chroma.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings, Strategy

# what each stage's line shows from its metadata, when present
FACTS = {
    "source_document": ["filename", "kind", "pages", "language", "version", "size_bytes"],
    "page_text": ["extractor", "pages", "characters"],
    "page_images": ["images", "dpi", "all_pages"],
    "page_tables": ["tables", "methods", "calls", "cached", "tokens_in", "seconds"],
    "document_structure": [
        "found_by",
        "llm_reason",
        "llm_model",
        "prompt_version",
        "calls",
        "cached",
        "failures",
        "sections",
        "qa_pairs",
    ],
    "chunks": ["chunks", "max_tokens", "config"],
    "vector_index": ["collection", "ids_written", "stale_ids_deleted", "previous_version_chunks_archived"],
    "chunk_excerpts": [
        "excerpt_kind",
        "excerpts",
        "written",
        "reused_unchanged",
        "characters_located",
        "folder",
    ],
}
ORIGIN = [
    "path",
    "sha256",
    "source_url",
    "meeting_date",
    "hansard_type",
    "hansard_id",
    "counterpart_document_id",
    "counterpart_candidate",
]
LEGEND = (
    "legend: code N = the stage's code version (raised when its logic changes; "
    "an older one is stale in the UI); "
    "data X = the data version, a hash of what the stage wrote for this paper "
    "(first 12 hex digits; it changes exactly when the output does)"
)
CHUNK_FACTS = [
    "page_start",
    "page_end",
    "section_path",
    "section_type",
    "question_id",
    "chunk_index",
    "token_count",
    "content_sha256",
    "chunk_file_path",
]


def parse_target(target: str) -> tuple[str, Strategy | None, int | None]:
    """(document id, strategy, chunk index) of ``DOC`` or ``DOC:STRATEGY:INDEX`` (an archived
    version's ``DOC@sha8:…`` names its document too). A middle part that is no strategy
    leaves the strategy unset: no chunk has that id, which the lookup of the id says."""
    from legco_assets.core.settings import Strategy

    parts = target.rsplit(":", 2)
    if len(parts) == 3 and parts[2].isdigit():
        named = parts[1] in common.STRATEGY_CHOICES
        return parts[0].split("@", 1)[0], Strategy(parts[1]) if named else None, int(parts[2])
    return target, None, None


def stored_ids(settings: Settings, document_id: str, strategies: list[Strategy]) -> dict[str, list[str]]:
    """The latest chunk ids of the paper in Chroma, per strategy (by its value), in chunk order."""
    from legco_assets.core.search import chunk_filter, open_collection, stored_chunks

    collection = open_collection(settings)
    out = {}
    for strategy in strategies:
        where = chunk_filter(strategy, document_id)
        chunks = sorted(stored_chunks(collection, where), key=lambda c: c.metadata.chunk_index)
        out[strategy.value] = [c.id for c in chunks]
    return out


def chunk_record(settings: Settings, chunk_id: str) -> dict[str, Any] | None:
    from legco_assets.core.search import open_collection, with_retries

    got = with_retries(lambda: open_collection(settings).get(ids=[chunk_id], include=["metadatas"]))
    return {"id": chunk_id, "metadata": got["metadatas"][0]} if got["ids"] else None


def _fmt(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def print_chain(chain: Any, ids: dict[str, list[str]], chunk: dict[str, Any] | None) -> None:
    """The paper's chain; for one chunk (``chunk`` given) that chunk's own ancestry in place
    of the paper's chunk ids: the stages of its strategy, its pages, section path, excerpt."""
    from legco_assets.core.records import join_path

    source = chain.source
    print(f"paper {chain.document_id}")
    if source is not None:
        for key in ORIGIN:
            if source.metadata.get(key):
                print(f"  {key:<24} {source.metadata[key]}")
        if not source.metadata.get("source_url"):
            print(f"  {'origin':<24} inbox / CLI (no feed record)")
    print(LEGEND)
    for m in chain.stages:
        label = m.asset + (f" [{m.strategy}]" if m.strategy and m.asset != "source_document" else "")
        print(
            f"{label:<26} {m.when}  run {m.run_id[:8]}  code {m.code_version}  "
            f"data {(m.data_version or '')[:12]}"
        )
        facts = [f"{k}={_fmt(m.metadata[k])}" for k in FACTS.get(m.asset, []) if k in m.metadata]
        if facts:
            print("    " + "  ".join(facts))
        for read in m.metadata.get("upstream_materializations") or []:
            other = "" if read["partition"] == chain.document_id else f"  (OTHER PAPER {read['partition']})"
            print(
                f"    read {read['asset']:<20} run {read['run_id'][:8]}  {read['time']}  "
                f"data {(read.get('data_version') or '')[:12]}{other}"
            )
    if chunk is not None:
        meta = chunk["metadata"]
        print(
            f"chunk {chunk['id']}: pages {meta.get('page_start')}–{meta.get('page_end')}  "
            f"excerpt {chunk.get('excerpt_url') or '(none)'}"
        )
        path = meta.get("section_path")
        print(
            "    section path: "
            f"{join_path(path) if isinstance(path, list) else path or '(before the first heading)'}"
        )
        facts = [
            f"{k}={meta[k]}"
            for k in ("section_type", "question_id", "token_count")
            if meta.get(k) not in (None, "")
        ]
        print("    " + "  ".join(facts))
        return
    for strategy, chunk_ids in ids.items():
        shown = ", ".join(chunk_ids[:3]) + (f", … {chunk_ids[-1]}" if len(chunk_ids) > 3 else "")
        print(f"chunks in Chroma [{strategy}]: {len(chunk_ids)}  {shown}")


def chunk_json(chain: Any, chunk: dict[str, Any]) -> dict[str, Any]:
    """One chunk's ancestry as JSON: each stage of its strategy with the facts lineage shows
    and what it read (no previews), and the chunk's own pages, section path and excerpt;
    not the paper's other chunk ids."""
    stages = []
    for m in chain.stages:
        full = m.to_json()
        keep = set(FACTS.get(m.asset, [])) | {"strategy", "upstream_materializations"}
        stages.append({**full, "metadata": {k: v for k, v in m.metadata.items() if k in keep}})
    meta = chunk["metadata"]
    return {
        "document_id": chain.document_id,
        "legend": LEGEND,
        "stages": stages,
        "chunk": {
            "id": chunk["id"],
            **{k: meta[k] for k in CHUNK_FACTS if k in meta},
            "excerpt_url": chunk.get("excerpt_url"),
        },
    }


def cmd_lineage(args: argparse.Namespace, settings: Settings) -> int:
    from legco_assets.core.settings import Strategy
    from legco_assets.defs.instance import dagster_instance
    from legco_assets.defs.lineage import document_chain

    document_id, strategy, index = parse_target(args.target)
    strategy = args.strategy or strategy
    chain = document_chain(dagster_instance(settings), document_id, strategy)
    if not chain.stages:
        return common.fail(f"{document_id}: no materialisation of this paper in the Dagster instance")
    chunk = chunk_record(settings, args.target) if index is not None else None
    if index is not None and chunk is None:
        return common.fail(f"{args.target}: no such chunk in Chroma")
    if chunk is not None:  # what its link opens: its own excerpt, as query and the API link it
        chunk["excerpt_url"] = common.excerpt_link(chunk["metadata"], settings)
    ids = (
        {}
        if chunk is not None
        else stored_ids(settings, document_id, [strategy] if strategy else list(Strategy))
    )
    if args.json:
        out = (
            chunk_json(chain, chunk)
            if chunk is not None
            else {**chain.to_json(), "legend": LEGEND, "chunk_ids": ids}
        )
        print(json.dumps(out, ensure_ascii=False))
    else:
        print_chain(chain, ids, chunk)
    return 0


def add_command(sub: Any) -> None:
    lineage = sub.add_parser(
        "lineage", help="provenance of one paper or chunk: file, each stage's run and config, chunk ids"
    )
    lineage.add_argument("target", help="document id (partition key) or chunk id <doc>:<strategy>:<index>")
    lineage.add_argument(
        "--strategy",
        choices=common.STRATEGY_CHOICES,
        action=common.AsStrategy,
        help="only this strategy's chunks, index and excerpts",
    )
    lineage.add_argument("--json", action="store_true", help="the chain as one JSON object")
    lineage.set_defaults(func=cmd_lineage)
