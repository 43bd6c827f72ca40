"""Read-only commands over what is stored in Chroma: ``documents`` and ``chunks``."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any


def _collection() -> Any:
    from legco_assets.core.settings import Settings
    from legco_assets.core.vector_store import open_collection

    return open_collection(Settings.from_env())


def cmd_documents(args: argparse.Namespace) -> int:
    """Per document: strategies, versions (sha256 prefix), latest flag and chunk counts."""
    from legco_assets.core.vector_store import stored_chunks

    groups: dict[tuple, int] = defaultdict(int)
    for chunk in stored_chunks(_collection()):
        m = chunk["metadata"]
        groups[(m["document_id"], m["strategy_type"], m["content_sha256"][:12], bool(m["is_latest_version"]), m["filename"])] += 1
    rows = [
        {"document_id": d, "strategy": s, "version": v, "latest": latest, "filename": f, "chunks": n}
        for (d, s, v, latest, f), n in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], not kv[0][3]))
    ]
    if args.json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    print(f"{'document':<34} {'strategy':<9} {'version':<13} {'latest':<6} {'chunks':>6}  file")
    for r in rows:
        print(f"{r['document_id']:<34} {r['strategy']:<9} {r['version']:<13} {'yes' if r['latest'] else 'no':<6} {r['chunks']:>6}  {r['filename']}")
    return 0


def cmd_chunks(args: argparse.Namespace) -> int:
    """Per chunk of one document: question id and text, heading, pages, table flag."""
    from legco_assets.core.vector_store import stored_chunks

    where: dict[str, Any] = {"$and": [{"document_id": args.document}, {"is_latest_version": True}]}
    if args.strategy:
        where["$and"].append({"strategy_type": args.strategy})
    found = sorted(stored_chunks(_collection(), where), key=lambda c: (c["metadata"]["strategy_type"], c["metadata"]["chunk_index"]))
    if not found:
        print(f"legco-assets: error: no stored chunks for document {args.document!r}")
        return 1
    for chunk in found:
        m = chunk["metadata"]
        if args.json:
            print(json.dumps(chunk, ensure_ascii=False))
            continue
        pages = f"p{m['page_start']}" + (f"-{m['page_end']}" if m["page_end"] != m["page_start"] else "")
        label = m.get("question_id") or m["section_type"]
        first = next((ln.strip() for ln in chunk["text"].split("\n") if ln.strip()), "")[:70]
        table = " [table]" if m.get("has_table") else ""
        print(f"{chunk['id']:<40} {label:<14} {pages:<8} {(m.get('section_heading') or '')[:24]:<24} {first}{table}")
    return 0


def add_commands(sub: Any) -> None:
    docs = sub.add_parser("documents", help="stored documents: strategies, versions, chunk counts")
    docs.add_argument("--json", action="store_true")
    docs.set_defaults(func=cmd_documents)

    chunks = sub.add_parser("chunks", help="stored chunks of one document")
    chunks.add_argument("document", help="document id (partition key)")
    chunks.add_argument("--strategy", choices=["token", "question"])
    chunks.add_argument("--json", action="store_true")
    chunks.set_defaults(func=cmd_chunks)
