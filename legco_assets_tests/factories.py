"""Builders the test modules share: papers, settings and chunk records.

Why here and not in a test module: a test module imports only from helpers like this one,
never from another test module, so each test file can be read, moved or deleted alone.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING

from legco_assets.core.records import Chunk, ChunkMetadata, ChunkRecord
from legco_assets.core.settings import Settings

from .pdf_factory import make_pdf

if TYPE_CHECKING:  # conftest.py loads it as a plugin, so that its asserts are rewritten
    from .odata_server import FakeHansardServer

# -- papers -----------------------------------------------------------------------------------
_FIXED_WORDS = "drainage capacity resettlement compensation licence vehicle allowance elderly safety site inspection budget".split()
_SEEDED_WORDS = (
    "drainage capacity resettlement compensation licence vehicle allowance elderly safety site "
    "inspection budget housing transport hospital school harbour tunnel subsidy"
).split()


def fixed_english_paper(path: Path, pages: int = 14) -> Path:
    """An English paper of ``pages`` pages (38 ragged lines each) whose text is the same on
    every call: a fixed seed, so chunk counts and ids can be compared across runs."""
    rng = random.Random(7)
    body = []
    for _ in range(pages):
        lines = []
        for _ in range(38):
            words = [rng.choice(_FIXED_WORDS) for _ in range(rng.randint(8, 12))]
            lines.append(" ".join(words) + rng.choice([".", ",", ";", ""]))
        body.append(lines)
    return make_pdf(path, body)


def english_paper(path: Path, seed: str, pages: int = 3) -> Path:
    """A readable English paper whose text (and so sha256) depends on ``seed``."""
    rng = random.Random(seed)
    body = [
        [" ".join(rng.choice(_SEEDED_WORDS) for _ in range(10)) + "." for _ in range(30)]
        for _ in range(pages)
    ]
    body[0].insert(3, f"This paper concerns the {seed} scheme.")
    return make_pdf(path, body)


def pdf_bytes(tag: str) -> bytes:
    """Enough of a PDF for the feed (it checks the %PDF- signature and hashes the bytes)."""
    return f"%PDF-1.7\n% Hansard {tag}\n".encode() + tag.encode() * 2000 + b"\n%%EOF\n"


# -- settings ---------------------------------------------------------------------------------
# short, so the fault tests that wait it out stay fast, yet long enough that a local server's
# answer on a loaded 2-core machine never passes it (at 0.5 s one did, once in a full run, and
# a fault test read a timeout where it had scripted an HTTP 500)
FEED_TIMEOUT_S = 1.5


def feed_settings(server: FakeHansardServer, root: Path, **changes: object) -> Settings:
    """Settings that poll ``server`` with short timeouts and back-off (fault tests stay fast)."""
    data = root / "data"
    base = Settings(
        data_dir=data,
        inbox=data / "inbox",
        feed_url=server.base_url,
        feed_timeout_s=FEED_TIMEOUT_S,
        feed_retries=2,
        feed_backoff_s=0.01,
    )
    return base.with_(**changes)


# -- chunk records ----------------------------------------------------------------------------
ZH_PAIRS = [
    ("A1", "排水隧道的設計容量是否足夠？", "渠務署營運四條雨水排放隧道，總長度約二十一公里。"),
    ("A2", "全港仍有多少個水浸黑點？", "截至2025年4月，全港仍有五個水浸黑點，預計2028年前全部完成改善。"),
    (
        "A3",
        "受影響寮屋住戶可獲甚麼補償？",
        "合資格住戶可入住公共租住房屋或領取特惠津貼，一人住戶為81 620元。",
    ),
]
EN_PAIRS = [
    (
        "Q1",
        "What are the monthly rates of the Old Age Allowance?",
        "The Old Age Allowance is $1,675 a month from 1 February 2025.",
    ),
    (
        "Q2",
        "What penalties apply to unlicensed care homes?",
        "Operating a home without a licence carries a fine of $1,000,000 and 3 years.",
    ),
]


def question_records(
    document_id: str,
    pairs: list[tuple[str, str, str]],
    sha: str,
    strategy: str = "question",
    section_path: list[str] | None = None,
) -> list[ChunkRecord]:
    """One question-answer chunk record per (id, question, answer) of ``pairs``, on page
    ``i + 1``, from ``<document_id>.pdf``."""
    chunks = [
        Chunk(
            document_id,
            strategy,
            i,
            f"{qa} {q}\n{a}",
            i + 1,
            i + 1,
            "qa",
            40,
            question_id=qa,
            question_index=i,
            question_text=q,
            section_path=list(section_path or []),
        )
        for i, (qa, q, a) in enumerate(pairs)
    ]
    return [c.to_record(f"{document_id}.pdf", sha) for c in chunks]


def chunk_record(
    chunk_id: str, text: str = "", document_id: str = "d", page_number: int = 1, **metadata: object
) -> ChunkRecord:
    """A hand-made chunk record: the metadata keys a test names, the others at their defaults."""
    return ChunkRecord(chunk_id, document_id, text, page_number, ChunkMetadata(**metadata))  # type: ignore[arg-type]


def doc_records(texts: list[str], sha: str, strategy: str = "question") -> list[dict]:
    """The records of document ``doc``, one chunk per text (all on page 1)."""
    chunks = [
        Chunk(
            "doc",
            strategy,
            i,
            t,
            1,
            1,
            "qa",
            10,
            question_id=f"A{i + 1}",
            question_index=i,
            question_text=t[:10],
        )
        for i, t in enumerate(texts)
    ]
    return [c.to_record("doc.pdf", sha) for c in chunks]
