"""What search indexes of a chunk (search/indexed_text.py): its text, less a table header the
paper has already shown. A chunk that continues a table reads with its header (issue 51: the
question strategy's pieces, token windows in their table-aware form, off by default); BM25
and the chunk vectors read each header once per paper, in both strategies."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.records import ChunkRecord
from legco_assets.core.search import Bm25Index, indexed_text, indexed_texts, open_collection, replace_document
from legco_assets.core.search.bm25_index import fingerprint
from legco_assets.core.settings import Settings, Strategy
from legco_assets_tests.fixtures.generate_fixtures import long_table_paper

from .factories import table_aware_token_windows

HEADER_ROW = re.compile(r"^\| 編號 \|.*\|$", re.MULTILINE)
DATA_ROW = re.compile(r"^\| \d+\. \|.*\|$", re.MULTILINE)


@pytest.fixture(scope="module")
def long_table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long-table") / "long_table.pdf"
    long_table_paper(path)
    return path


@pytest.fixture(autouse=True)
def _the_form_it_was_built_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Token windows that repeat their header, and the rule on (both off by default)."""
    table_aware_token_windows(monkeypatch)
    monkeypatch.setattr(indexed_text, "HEADERS_ONCE", True)


def test_off_every_chunk_is_indexed_as_its_text(long_table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = records_of(long_table, Strategy.question)
    on = fingerprint(records)
    monkeypatch.setattr(indexed_text, "HEADERS_ONCE", False)
    assert indexed_texts(records) == [r.text for r in records]
    assert fingerprint(records) != on  # an index built under the other setting is not reused


def records_of(path: Path, strategy: Strategy) -> list[ChunkRecord]:
    return chunk_paper(path, strategy, Settings(), use_llm=False, check=False).records


@pytest.mark.parametrize("strategy", list(Strategy))
def test_a_table_header_is_indexed_once_and_every_row_still_is(long_table: Path, strategy: Strategy) -> None:
    records = records_of(long_table, strategy)
    texts = indexed_texts(records)
    shown = sum(len(HEADER_ROW.findall(r.text)) for r in records)
    assert shown >= 3  # the chunks that continue the table read with its header
    assert sum(len(HEADER_ROW.findall(t)) for t in texts) == 1
    for record, text in zip(records, texts, strict=True):
        assert DATA_ROW.findall(record.text) == DATA_ROW.findall(text), record.id
        if not HEADER_ROW.search(record.text):
            assert text == record.text, record.id


def test_the_order_given_does_not_matter_only_the_papers_order(long_table: Path) -> None:
    records = records_of(long_table, Strategy.token)
    texts = dict(zip([r.id for r in records], indexed_texts(records), strict=True))
    backwards = list(reversed(records))
    assert dict(zip([r.id for r in backwards], indexed_texts(backwards), strict=True)) == texts
    first = next(r for r in records if HEADER_ROW.search(r.text))
    assert HEADER_ROW.search(texts[first.id])  # the chunk that first shows it indexes it


def test_the_store_keeps_the_text_and_embeds_what_is_indexed(long_table: Path, settings: Settings) -> None:
    records = records_of(long_table, Strategy.token)
    collection = open_collection(settings)
    replace_document(collection, records, records[0].document_id, "token", records[0].metadata.content_sha256)
    stored = collection.get(ids=[r.id for r in records], include=["documents", "embeddings"])
    by_id = dict(zip(stored["ids"], zip(stored["documents"], stored["embeddings"], strict=True), strict=True))
    embed = collection._embedding_function
    continuing = [(r, t) for r, t in zip(records, indexed_texts(records), strict=True) if t != r.text]
    assert continuing
    for record, text in continuing:
        document, vector = by_id[record.id]
        assert document == record.text  # what a reader gets back, header included
        assert np.allclose(vector, embed([text])[0])
        assert not np.allclose(vector, embed([record.text])[0])


def test_bm25_counts_a_header_word_in_one_chunk(long_table: Path) -> None:
    records = records_of(long_table, Strategy.token)
    index = Bm25Index.build(records)
    header_only = "編號"  # printed in the header row alone
    assert sum(header_only in r.text for r in records) >= 3
    assert int(np.count_nonzero(index.scores(header_only) > 0)) == 1
