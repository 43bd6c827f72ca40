"""What search indexes of a chunk: its text, less a table header the paper has already shown.

Why: a chunk that continues a Markdown table starts with the table's header row and
separator again (issue 51, as docling's HybridChunker does), so that it reads alone and a
reader knows what the columns are. Indexed, that repeated line is noise: every continuing
chunk of a long table shares it, BM25 counts its words once more per chunk, and the chunk
vector leans towards the header and away from the rows. On the development sets (109
questions), token windows that repeat their header found the answer first by the chunk
vector 40 times with the header indexed and 42 with it left out (docs/retrieval.md).

So, with :data:`HEADERS_ONCE`, the chunk ``text`` keeps the header (what a user reads, its
``token_count`` counts it), and BM25 and the chunk embeddings read each table header once
per paper: a header row with its separator that an earlier chunk of the same paper and
strategy (or an earlier place in the same chunk) already holds is left out of what they
index. One rule for both strategies, found from the text alone: the token strategy's
continuing windows, the question strategy's table pieces and token fallback all repeat a
header the same way.

It is off: it was built with token windows that repeat their header (``TokenChunkingStrategy(
table_rows=True, skip_contents=True)``), chosen with them on the development sets, and
scored with them once on every held-out set, where the token windows still lost first places
(10 pooled; the question strategy's figures held: 980 / 1,283 against 981 / 1,284). Off,
every chunk is indexed as its text, as before; a switch for the next round on that form.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from ..records import ChunkRecord

_SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")
HEADERS_ONCE = False  # True: a table header a paper already showed is not indexed again


def index_version() -> str:
    """What the rule adds to the BM25 fingerprint (an index built under the other setting is
    another index)."""
    return "+headers-once" if HEADERS_ONCE else ""


def indexed_texts(records: Sequence[ChunkRecord]) -> list[str]:
    """For each record (in the given order), the text BM25 and the embeddings read. Records
    are taken per paper, strategy and version in chunk order, so "already shown" means shown
    by an earlier chunk of the same paper. Each text as it is when :data:`HEADERS_ONCE` is off."""
    if not HEADERS_ONCE:
        return [r.text for r in records]
    papers: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for n, record in enumerate(records):
        meta = record.metadata
        papers[(record.document_id, meta.strategy_type, meta.content_sha256)].append(n)
    out = [r.text for r in records]
    for members in papers.values():
        seen: set[str] = set()
        for n in sorted(members, key=lambda k: records[k].metadata.chunk_index):
            out[n] = without_shown_headers(records[n].text, seen)
    return out


def without_shown_headers(text: str, seen: set[str]) -> str:
    """``text`` without the table headers (header row and separator) whose row is in
    ``seen``; the headers it shows are added to ``seen``. A text without ``|`` is returned
    as it is."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    kept: list[str] = []
    k = 0
    while k < len(lines):
        row = lines[k].strip()
        is_header = (
            row.startswith("|")
            and k + 1 < len(lines)
            and _SEPARATOR.match(lines[k + 1].strip()) is not None
            and (k == 0 or not lines[k - 1].lstrip().startswith("|"))
        )
        if is_header:
            if row in seen:
                k += 2
                continue
            seen.add(row)
        kept.append(lines[k])
        k += 1
    return "\n".join(kept)
