"""``legco-assets forget DOC [DOC ...]``: remove papers from everything the pipeline keeps, as
the ``forget_document`` job does from the UI (one code path: ``defs.forget.forget_all``): the
partition of the Dagster instance, the artifacts and excerpts under the data dir, the chunks
in Chroma (and so the keyword index), the BM25 cache and the document index's entry.
``DOC@<sha256 prefix>`` forgets one past version only. A line is printed per item removed;
a name nothing is stored under stops the command before anything is removed.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from . import common

if TYPE_CHECKING:  # annotations only: building the parser imports no core module
    from legco_assets.core.settings import Settings


def cmd_forget(args: argparse.Namespace, settings: Settings) -> int:
    from legco_assets.core.search import UnknownDocument, open_collection
    from legco_assets.defs.forget import forget_all
    from legco_assets.defs.instance import dagster_instance

    instance = dagster_instance(settings)
    try:
        done = forget_all(settings, open_collection(settings), instance, args.documents, print)
    except UnknownDocument as exc:
        return common.fail(str(exc))
    print(f"forgot {len(done)} document(s); a running legco-assets serve drops them within seconds")
    return 0


def add_command(sub: Any) -> None:
    forget = sub.add_parser(
        "forget",
        help="remove papers: partition, artifacts, excerpts, Chroma chunks, keyword index, index entry",
    )
    forget.add_argument(
        "documents",
        nargs="+",
        metavar="DOC",
        help="a document id, or DOC@<8+ hex digits> for one past version",
    )
    forget.set_defaults(func=cmd_forget)
