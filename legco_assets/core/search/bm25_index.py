"""BM25 over stored chunks, persisted so a query never re-tokenises the corpus.

Why its own tokeniser: LegCo papers are mostly Traditional Chinese, which has no spaces, and
we have no word segmenter offline. Character bigrams (plus the single character of a
one-character run) match Chinese words of any length without a dictionary; English, numbers
and romanised names inside Chinese text are lower-cased words. The same function tokenises
chunks and queries, so a query's terms always line up with the index.

Why a cache keyed by content: building the index means tokenising every chunk (seconds for
10,000 chunks), while a query must take milliseconds. :func:`load_or_build` keys the index
by a fingerprint of the chunk ids and the sha256 of their texts, so it is rebuilt exactly
when the stored chunks change and loaded from ``data/cache/bm25/`` otherwise.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..records import ChunkRecord
from .variants import variant_fold

TOKENIZER_VERSION = "bm25-v3"  # part of the fingerprint: a tokeniser change invalidates caches
KEEP_PER_NAME = 2  # cached index generations kept per scope (older ones are removed)

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31c0-\u31ef"
_TOKEN = re.compile(rf"[{_HAN}]+|[0-9]+(?:[,.][0-9]+)*|[A-Za-z]+(?:'[A-Za-z]+)?")
_LATIN = re.compile(r"[A-Za-z]")
_HAN_CHAR = re.compile(f"[{_HAN}]")
STOPWORDS_EN = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how if in into is it its "
    "may might must no not of on or our shall should such that the their then there these they this those to "
    "under was we were what when where which while who whom why will with would you your".split()
)


def _stem(word: str) -> str:
    """A very light English stemmer: plural and -ing/-ed endings only.

    Paraphrased questions say "inspection" where the paper says "inspections"; anything more
    aggressive than this merges unrelated words in short texts."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Chinese as character bigrams, English as lower-cased, lightly stemmed words.

    NFKC first, so full-width letters and digits (common in Chinese text and typed queries)
    read as ASCII and compatibility ideographs as their unified forms; then variant
    characters fold to one form (:func:`.variants.variant_fold`: ``侍産假`` and ``侍產假``
    are one word to the index and its queries)."""
    tokens: list[str] = []
    for match in _TOKEN.finditer(variant_fold(unicodedata.normalize("NFKC", text))):
        run = match.group()
        if _HAN_CHAR.match(run):
            tokens.extend(run if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
        elif run[0].isdigit():
            tokens.append(run.replace(",", ""))
        else:
            word = run.lower()
            if word not in STOPWORDS_EN:
                tokens.append(_stem(word))
    return tokens


def script_of(text: str) -> str:
    """``zh`` when the text is mostly Chinese, else ``en``.

    Used to route fusion: BM25 cannot match an English query against Chinese text. A Chinese
    character carries about as much as a 4-letter English word, so Chinese wins when it has
    at least a quarter as many characters as the text has Latin letters."""
    han = len(_HAN_CHAR.findall(text))
    latin = len(_LATIN.findall(text))
    return "zh" if han and han * 4 >= latin else "en"


def fingerprint(chunks: Iterable[ChunkRecord]) -> str:
    """sha256 over the sorted (id, sha256(text)) pairs and the tokeniser version."""
    digest = hashlib.sha256(TOKENIZER_VERSION.encode())
    for chunk_id, text_hash in sorted(
        (c.id, hashlib.sha256(c.text.encode("utf-8")).hexdigest()) for c in chunks
    ):
        digest.update(f"{chunk_id}\x00{text_hash}\n".encode())
    return digest.hexdigest()


@dataclass
class Bm25Index:
    """A bm25s model over a fixed list of chunk ids (row i of the model is ``ids[i]``)."""

    ids: list[str]
    scripts: list[str]
    model: Any  # bm25s.BM25, or None for an empty corpus
    key: str = ""

    @classmethod
    def build(cls, chunks: Sequence[ChunkRecord], key: str = "") -> Bm25Index:
        """Tokenise and index ``chunks`` (by their ``id`` and ``text``)."""
        import bm25s

        model = None
        if chunks:
            model = bm25s.BM25()
            model.index([tokenize(c.text) for c in chunks], show_progress=False)
        return cls([c.id for c in chunks], [script_of(c.text) for c in chunks], model, key)

    @property
    def vocabulary(self) -> dict[str, int]:
        """The indexed tokens (token -> id; empty for an empty corpus)."""
        return self.model.vocab_dict if self.model is not None else {}

    def known_tokens(self, tokens: set[str]) -> set[str]:
        """Those of ``tokens`` the index holds (asked at once: a segmented index answers a
        batch in one pass over its segments)."""
        return {t for t in tokens if t in self.vocabulary}

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every indexed chunk for ``query`` (zeros when no term matches)."""
        if self.model is None:
            return np.zeros(0, dtype=np.float32)
        ids = self.model.get_tokens_ids(tokenize(query))
        if not ids:
            return np.zeros(len(self.ids), dtype=np.float32)
        return np.asarray(self.model.get_scores(ids), dtype=np.float32)

    def coverage(self, query: str) -> np.ndarray:
        """Per chunk, the share of the query's IDF mass that the chunk contains.

        Why: BM25 ranks *something* first for any query, even one whose words the corpus
        barely has (an English question about a Chinese paper matches "government" in an
        English paper). Coverage says how much of the query a chunk actually matched; a word
        absent from the corpus counts with the highest IDF, so it lowers every chunk's
        coverage. Fusion scales BM25's vote by it."""
        if self.model is None:
            return np.zeros(0, dtype=np.float32)
        terms = list(dict.fromkeys(tokenize(query)))
        covered = np.zeros(len(self.ids), dtype=np.float64)
        data = self.model.scores
        indptr = np.append(data["indptr"], len(data["indices"]))
        total = 0.0
        for term in terms:
            tid = self.model.vocab_dict.get(term)
            if tid is None:  # absent from the corpus: counts against every chunk
                total += _idf(len(self.ids), 0)
                continue
            rows = data["indices"][indptr[tid] : indptr[tid + 1]]
            weight = _idf(len(self.ids), len(rows))
            total += weight
            covered[rows] += weight
        return (covered / total).astype(np.float32) if total else covered.astype(np.float32)

    def top(
        self, query: str, n: int, mask: np.ndarray | None = None, reading: str = ""
    ) -> list[tuple[int, float, float]]:
        """Row position, score and coverage of the best ``n`` chunks with a positive score,
        among the rows where ``mask`` is true. With ``reading`` (another wording of the query:
        a colloquial question's written form, :mod:`.colloquial`), both are scored together
        and a chunk's coverage is that of the reading it holds more of."""
        scores = self.scores(f"{query}\n{reading}" if reading else query)
        if mask is not None and len(scores):
            scores = np.where(mask, scores, 0.0)
        n = min(n, int(np.count_nonzero(scores > 0)))
        if n <= 0:
            return []
        best = np.argpartition(-scores, n - 1)[:n]
        best = best[np.argsort(-scores[best], kind="stable")]
        coverage = self.coverage(query)
        if reading:
            coverage = np.maximum(coverage, self.coverage(reading))
        return [(int(i), float(scores[i]), float(coverage[i])) for i in best]

    # -- persistence -----------------------------------------------------------------------
    def save(self, folder: Path) -> None:
        """Write the model and the row → id table into ``folder`` (replaced atomically)."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder.parent))
        try:
            if self.model is not None:
                self.model.save(str(staging / "model"), show_progress=False)
            (staging / "rows.json").write_text(
                json.dumps({"key": self.key, "ids": self.ids, "scripts": self.scripts}, ensure_ascii=False),
                encoding="utf-8",
            )
            shutil.rmtree(folder, ignore_errors=True)
            try:
                staging.rename(folder)
            except OSError:
                # another process saved the same content-keyed index first: keep theirs
                if not (folder / "rows.json").exists():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path) -> Bm25Index:
        import bm25s

        rows = json.loads((folder / "rows.json").read_text(encoding="utf-8"))
        model = (
            bm25s.BM25.load(str(folder / "model"), show_progress=False)
            if (folder / "model").exists()
            else None
        )
        return cls(rows["ids"], rows["scripts"], model, rows.get("key", ""))


def _idf(documents: int, frequency: int) -> float:
    """BM25's (Lucene) inverse document frequency."""
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


def load_or_build(cache_dir: Path | None, name: str, chunks: Sequence[ChunkRecord]) -> tuple[Bm25Index, bool]:
    """The index of ``chunks`` from ``cache_dir/<name>-<fingerprint>``, built and saved
    when absent. Returns the index and whether it was built now."""
    key = fingerprint(chunks)
    if cache_dir is None:
        return Bm25Index.build(chunks, key), True
    folder = cache_dir / f"{_safe(name)}-{key[:20]}"
    if (folder / "rows.json").exists():
        try:
            index = Bm25Index.load(folder)
            if index.key == key and len(index.ids) == len(chunks):
                return index, False
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is rebuilt below
    index = Bm25Index.build(chunks, key)
    index.save(folder)
    _prune(cache_dir, _safe(name), keep=folder)
    return index, True


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _prune(cache_dir: Path, name: str, keep: Path) -> None:
    """Remove older generations of ``name`` so the cache does not grow with every ingest."""
    generation = re.compile(re.escape(name) + r"-[0-9a-f]{20}")
    siblings = sorted(
        (p for p in cache_dir.iterdir() if p.is_dir() and p != keep and generation.fullmatch(p.name)),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for old in siblings[KEEP_PER_NAME - 1 :]:
        shutil.rmtree(old, ignore_errors=True)
