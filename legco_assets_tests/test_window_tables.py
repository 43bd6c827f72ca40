"""Token windows name the typed tables they overlap (``table_ids``) and carry the first one's
header (``table_header``) beside their text, never in it: on the generated table over five
pages and on two fixture papers with tables, the windows' text is the joined text's span as
before, a window in a table's rows has the header only in its metadata, and a window of
prose has neither key."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from legco_assets.core.chunking import TokenChunkingStrategy
from legco_assets.core.chunking.table_rows import find_tables as markdown_tables
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.read import clean_pages, extract_document, read_source
from legco_assets.core.records import Chunk, ChunkRecord, DocumentText, Page, Table
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources.documents import slug
from legco_assets.core.tables import TypedTable, find_tables, typed_tables, weave_pages

from .conftest import FIXTURES

LONG_TABLE = FIXTURES / "long_table_zh.pdf"
PAPER_A = FIXTURES / "paper_a_tables.pdf"
PAPER_L = FIXTURES / "paper_l_faq.pdf"  # an FAQ: ten tables among many answers in prose


@dataclass(frozen=True)
class Paper:
    """A fixture paper read as the pipeline reads it: its cleaned pages, the tables found,
    the typed tables ``page_tables`` would write, and the joined text the windows cut."""

    document_id: str
    pages: list[Page]
    tables: list[Table]
    typed: list[TypedTable]
    doc: DocumentText


@cache
def paper(path: Path) -> Paper:
    source = read_source(path)
    pages = clean_pages(extract_document(source).pages)
    tables = find_tables(source.data, pages, Settings()).tables
    document_id = slug(path)
    doc = DocumentText.from_pages(*weave_pages(pages, tables))  # the text the windows always cut
    return Paper(document_id, pages, tables, typed_tables(document_id, tables, pages), doc)


def windows(p: Paper, size: int, overlap: int) -> list[Chunk]:
    return TokenChunkingStrategy(size, overlap).chunk(p.document_id, p.pages, None, p.tables)


def header_of(table: TypedTable) -> str:
    """The typed table's header row and separator as the chunks print them."""
    names = [" ".join(dict.fromkeys(c for c in column.header if c)) for column in table.columns]
    return to_markdown(names, [])


def test_a_window_in_a_tables_rows_names_it_and_holds_its_header_only_in_metadata() -> None:
    p = paper(LONG_TABLE)
    (table,) = p.typed
    header = header_of(table)
    (block,) = markdown_tables(p.doc.text)
    assert p.doc.text[block.start :].startswith(header)
    chunks = windows(p, 300, 60)
    for c in chunks:  # the text is the joined text's span, as it was: nothing added
        assert c.text == p.doc.text[c.char_start : c.char_end], c.id
        overlaps = block.start < c.char_end and c.char_start < block.end
        assert c.table_ids == ([table.id] if overlaps else None), c.id
        assert c.table_header == (header if overlaps else None), c.id
    assert chunks[0].table_ids == ["long-table-zh:table:1"] and header in chunks[0].text
    # every later window starts in the rows: the header is in none of their texts, only
    # beside them, and put before the text it makes the rows a table again
    in_rows = [c for c in chunks if c.char_start > block.start]
    assert len(in_rows) >= 10
    for c in in_rows:
        assert header.split("\n")[0] not in c.text and not c.text.startswith("| 編號")
        assert c.table_header is not None and (c.table_header + "\n" + c.text).startswith(header)


@pytest.mark.parametrize(("path", "tables", "prose_windows"), [(PAPER_A, 24, 1), (PAPER_L, 10, 50)])
def test_windows_of_prose_carry_no_table_and_each_window_names_the_tables_it_overlaps(
    path: Path, tables: int, prose_windows: int
) -> None:
    p = paper(path)
    assert len(p.typed) == tables
    headers = {t.id: header_of(t) for t in p.typed}
    # where each Markdown table lies in the joined text, and which typed table it is, by its
    # header and its first row as printed (not by the weave's own record of where it put it)
    blocks = []
    for block in markdown_tables(p.doc.text):
        lines = p.doc.text[block.start : block.end].split("\n")
        match = [
            t.id
            for t in p.typed
            if headers[t.id] == "\n".join(lines[:2])
            and to_markdown([], [t.rows[0]]).split("\n")[2] == lines[2]
        ]
        assert len(match) == 1, lines[:3]
        blocks.append((block.start, block.end, match[0], "\n".join(lines[:2])))
    assert {b[2] for b in blocks} == set(headers)
    chunks = windows(p, 200, 40)
    prose = named = 0
    for c in chunks:
        assert c.text == p.doc.text[c.char_start : c.char_end], c.id
        held = [b for b in blocks if b[0] < c.char_end and c.char_start < b[1]]
        if not held:
            assert c.table_ids is None and c.table_header is None, c.id
            prose += 1
            continue
        assert c.table_ids == list(dict.fromkeys(b[2] for b in held)), c.id
        assert c.table_header == held[0][3] == headers[c.table_ids[0]]
        named += 1
    assert prose >= prose_windows and named >= tables


def test_a_table_over_a_page_break_is_one_id_in_every_window_over_it() -> None:
    p = paper(PAPER_A)
    assert p.typed[0].pages == [1, 2]
    first = [c for c in windows(p, 100, 20) if c.table_ids and "paper-a-tables:table:1" in c.table_ids]
    assert len(first) >= 3 and {c.page_start for c in first} >= {1, 2}
    assert all(c.table_header == header_of(p.typed[0]) for c in first if c.table_ids[0] == p.typed[0].id)


def test_the_windows_texts_and_spans_are_those_of_the_plain_windows() -> None:
    """Naming the tables changes no window: the same texts and spans as the windows cut
    without any table named (``chunk_text`` on the same joined text)."""
    p = paper(PAPER_A)
    strategy = TokenChunkingStrategy(200, 40)
    named = strategy.chunk(p.document_id, p.pages, None, p.tables)
    plain = strategy.chunk_text(p.document_id, p.doc)
    spans = lambda chunks: [(c.text, c.char_start, c.char_end) for c in chunks]  # noqa: E731
    assert spans(named) == spans(plain)
    assert all(c.table_ids is None for c in plain) and any(c.table_ids for c in named)


@pytest.fixture(scope="module")
def long_table_records() -> list[ChunkRecord]:
    settings = Settings().with_(chunk_size=300, chunk_overlap=60)
    return chunk_paper(LONG_TABLE, Strategy.token, settings, use_llm=False, check=False).records


def test_the_record_and_chroma_keep_the_table_ids_and_header(long_table_records: list[ChunkRecord]) -> None:
    record = long_table_records[3]
    meta = record.to_json()["metadata"]
    assert meta["table_ids"] == ["long-table-zh:table:1"]
    assert meta["table_header"].startswith("| 編號 | 工程項目 |") and meta["table_header"] not in record.text
    stored = record.to_chroma()
    assert stored["table_ids"] == "long-table-zh:table:1" and stored["table_header"] == meta["table_header"]
    assert all(isinstance(v, (str, int, float, bool)) for v in stored.values())
    back = ChunkRecord.from_chroma(record.id, record.text, stored)
    assert back.metadata.table_ids == ["long-table-zh:table:1"]
    assert back.metadata.table_header == meta["table_header"]
    assert back.to_json() == record.to_json()
    ids = ["a:table:1", "a:table:2"]
    two = ChunkRecord.of({**record.to_json(), "metadata": {**meta, "table_ids": ids}})
    assert two.to_chroma()["table_ids"] == "a:table:1 a:table:2"
    assert ChunkRecord.from_chroma(two.id, two.text, two.to_chroma()).metadata.table_ids == ids


def test_a_paper_without_tables_has_no_table_keys() -> None:
    pages = [Page(number=1, raw="", cleaned="這是一句話。" * 300)]
    chunks = TokenChunkingStrategy(100, 20).chunk("plain", pages, None, [])
    assert len(chunks) > 3
    assert all(c.table_ids is None and c.table_header is None for c in chunks)
    assert all("table_ids" not in c.to_record("plain.txt", "0" * 64).to_json()["metadata"] for c in chunks)
