"""Chunks that respect tables: no cut inside a row, a continuing chunk repeats the
header, pages are the pages a chunk's characters are printed on; on a generated table over
five pages and on every real paper at hand, both strategies."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from legco_assets.core.chunking import token_windows
from legco_assets.core.chunking.token_chunking import table_windows
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.read import clean_pages, extract_document, normalise_chars, read_source
from legco_assets.core.records import ChunkRecord, Table
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.tables import embed_tables
from legco_assets.core.tokens import count_tokens

from .conftest import CORPUS, FIXTURES

SEPARATOR = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")
LONG_TABLE_PDF = FIXTURES / "long_table_zh.pdf"
HEADER = ["編號", "工程項目", "核准預算（千元）", "進度"]


def _squash(text: str) -> str:
    return "".join(normalise_chars(text).split())


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.split("\n") if ln.strip()]


def cut_rows(record: ChunkRecord) -> list[str]:
    """Lines of the chunk that are part of a table row: a row's head without its end or
    its end without its head. A chunk may hold one only when it is a piece of a row longer
    than the limit: then its table lines are the header and that piece alone."""
    lines = _lines(record.text)
    cut = [ln for ln in lines if ln.startswith("|") != ln.endswith("|")]
    table_lines = [ln for ln in lines if ln.startswith("|") or ln.endswith("|")]
    if len(cut) == 1 and len(table_lines) <= 3:
        return []  # the header and a piece of one long row
    return cut


def headless(record: ChunkRecord) -> list[str]:
    """The chunk's first table row when its table does not start with a header row and
    separator (a chunk that continues a table without repeating the header)."""
    lines = _lines(record.text)
    rows = [n for n, ln in enumerate(lines) if ln.startswith("|")]
    if not rows:
        return []
    first = rows[0]
    if first + 1 < len(lines) and SEPARATOR.match(lines[first + 1]):
        return []
    return [lines[first]]


def _pieces(text: str) -> list[str]:
    """What of a chunk to look for on a page: the ends of its text lines and of its cells
    (repeated context, the path line and a table's header, is on its own pages)."""
    out = []
    lines = _lines(text)
    for n, line in enumerate(lines):
        if SEPARATOR.match(line) or n + 1 < len(lines) and SEPARATOR.match(lines[n + 1]):
            continue
        parts = line.strip("|").split(" | ") if line.startswith("|") else [line]
        shortest = 5 if line.startswith("|") else 3  # a cell of digits is anywhere; a cover's 勞工處 is not
        for part in (_squash(p) for p in parts):
            if len(part) >= shortest:
                out += [part[:12], part[-12:]]
    return out


def empty_pages(record: ChunkRecord, pages: list[str]) -> list[int]:
    """Pages (with text) in the chunk's range that carry none of its characters."""
    meta = record.metadata
    pieces = _pieces(record.text)
    return [
        n
        for n in range(meta.page_start, meta.page_end + 1)
        if pages[n - 1] and not any(p in pages[n - 1] for p in pieces)
    ]


@cache
def page_texts(path: Path) -> list[str]:
    return [_squash(p.cleaned) for p in clean_pages(extract_document(read_source(path)).pages)]


def chunks_of(path: Path, strategy: Strategy, settings: Settings) -> list[ChunkRecord]:
    return chunk_paper(path, strategy, settings, use_llm=False, check=False).records


def assert_table_honest(path: Path, records: list[ChunkRecord], limit: int) -> None:
    pages = page_texts(path)
    for r in records:
        assert r.metadata.token_count <= limit, r.id
        assert not cut_rows(r), (r.id, cut_rows(r)[:2])
        assert not headless(r), (r.id, headless(r))
        if path.suffix.lower() == ".pdf":
            assert not empty_pages(r, pages), (
                r.id,
                r.metadata.page_start,
                r.metadata.page_end,
                empty_pages(r, pages),
            )


def _numbers(record: ChunkRecord) -> set[int]:
    """The numbers of the generated table's rows in a chunk (``| 12. | … |``)."""
    return {int(m) for m in re.findall(r"^\| (\d+)\. \|", record.text, re.MULTILINE)}


# -- a generated table over five pages ------------------------------------------------------------
@pytest.fixture(scope="module")
def long_table() -> tuple[Path, dict]:
    """The committed fixture (``generate_fixtures --only T``) and the page of each row as laid
    out: committed, so the suite needs no CJK font."""
    return LONG_TABLE_PDF, json.loads(LONG_TABLE_PDF.with_suffix(".json").read_text(encoding="utf-8"))


# the question strategy's pieces; token windows' table_rows is off by default (it cost held-out
# questions, see token_chunking.py), and test_token_windows_keep_their_size_and_repeat_the_header
# checks the windows with it on
@pytest.mark.parametrize("strategy", [Strategy.question])
def test_a_table_over_five_pages_is_cut_between_rows_with_its_header(
    long_table: tuple[Path, dict], strategy: Strategy
) -> None:
    path, gold = long_table
    assert len({f["page"] for f in gold["fragments"]}) >= 3
    settings = Settings().with_(chunk_size=300, chunk_overlap=60)
    records = chunks_of(path, strategy, settings)
    assert_table_honest(path, records, 300)
    tabled = [r for r in records if "| 編號 | 工程項目 |" in r.text]
    assert len(tabled) >= 10  # the table is cut into many chunks, every one led by its header
    assert set().union(*(_numbers(r) for r in tabled)) == set(range(1, 91))  # no row lost
    for r in tabled:  # each chunk's pages are its rows' pages, from the layout
        numbers = _numbers(r)
        printed = {
            f["page"] for f in gold["fragments"] for row in f["rows"] if int(row[0].rstrip(".")) in numbers
        }
        assert (r.metadata.page_start, r.metadata.page_end) == (min(printed), max(printed)), r.id


def test_token_windows_keep_their_size_and_repeat_the_header() -> None:
    rows = [[f"{n}.", f"項目{n}", f"{n * 1234:,}", "說明" * (2 + n % 5)] for n in range(80)]
    rows[40][3] = "很長的說明" * 300  # a row longer than a whole window
    text = "前言。" * 60 + "\n\n" + to_markdown(HEADER, rows) + "\n\n" + "結語。" * 60
    header = to_markdown(HEADER, [])
    windows = table_windows(text, 200, 40)
    assert [(s, e) for s, e, _ in windows] == token_windows(text, 200, 40)
    long_row = [(s, e) for s, e, h in windows if "很長的說明" in text[s:e] or "| 40. |" in text[s:e]]
    assert len(long_row) >= 3
    for start, end, head in windows:
        body = text[start:end]
        assert count_tokens(f"{head}\n{body}" if head else body) <= 200
        if head:
            assert head == header
        if (start, end) in long_row:
            continue
        inside = [ln for ln in _lines(body) if ln.startswith("|") != ln.endswith("|")]
        assert not inside, inside
    plain = "這是一句話。" * 400  # no table: the windows are the windows they were
    assert all(not h for *_, h in table_windows(plain, 200, 40))


def test_a_continued_part_found_far_away_is_not_stitched_onto_the_first() -> None:
    """The same rows printed again pages later (a supplement's table) stay where they are,
    with the table's header, instead of joining the first part."""
    first = Table(1, HEADER, [["1.", "甲", "100", "完成"], ["2.", "乙", "200", "完成"]], "", "geometric")
    later = Table(
        2, HEADER, [["3.", "丙", "300", "延誤"], ["4.", "丁", "400", "完成"]], "", "geometric", None, True
    )
    first.markdown, later.markdown = to_markdown(HEADER, first.rows), to_markdown(HEADER, later.rows)
    cells = lambda t: "\n".join(c for row in [t.header, *t.rows] for c in row)  # noqa: E731
    prose = "\n".join(f"第{n}段：政府會繼續監察各項工程的進度，並適時向委員會匯報。" for n in range(30))
    far, _ = embed_tables(
        f"{cells(first)}\n\n{prose}\n\n" + "\n".join(c for r in later.rows for c in r), [first, later]
    )
    assert far.index("| 3. | 丙 |") > far.index("第29段")  # in its place, after the prose
    assert far.count("| 編號 | 工程項目 |") == 2
    near, _ = embed_tables(
        f"{cells(first)}\n\n" + "\n".join(c for r in later.rows for c in r), [first, later]
    )
    assert near.count("| 編號 | 工程項目 |") == 1 and "| 2. | 乙 | 200 | 完成 |\n| 3. | 丙 |" in near


# -- every real paper at hand ---------------------------------------------------------------------------
def real_papers() -> list[Path]:
    if not CORPUS.exists():
        return []
    suffixes = {".pdf", ".html", ".htm"}
    return sorted(p for p in CORPUS.rglob("*") if p.suffix.lower() in suffixes and "scanned" not in p.name)


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.exists(), reason="real corpus not present")
@pytest.mark.parametrize("paper", real_papers(), ids=lambda p: p.name)
def test_every_real_paper_cuts_tables_between_rows_on_honest_pages(paper: Path) -> None:
    settings = Settings()  # the question strategy (token windows: see the test above)
    assert_table_honest(paper, chunks_of(paper, Strategy.question, settings), settings.qa_max_chunk_tokens)
