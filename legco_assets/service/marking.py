"""The query's words marked in a passage, for the search page: English words (and their
plural/-ing/-ed forms), numbers, and Chinese by the characters the query shares with it.

Why bigrams for Chinese: the index reads Chinese as character pairs (no word segmenter
offline), so a passage matched a Chinese query by the pairs they share; marking those pairs
(and a one-character query's character) shows the reader what matched, as BM25 saw it."""

from __future__ import annotations

import html
import re
import unicodedata

from legco_assets.core.search import variant_fold

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_RUN = re.compile(f"[{_HAN}]+")
_WORD = re.compile(r"[A-Za-z]+|[0-9]+(?:[,.][0-9]+)*")
STOP = frozenset(
    "a an and are as at be by do does for from how in is it of on or the to was what when where".split()
    + "which who why with".split()
)


def query_terms(query: str) -> list[str]:
    """What to look for in a passage: Chinese character pairs (or a lone character) and
    English words or numbers, longest first, folded as the index folds them."""
    query = variant_fold(unicodedata.normalize("NFKC", query))
    terms: set[str] = set()
    for run in _HAN_RUN.findall(query):
        terms.update([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    for word in _WORD.findall(query):
        lowered = word.lower()
        if lowered not in STOP and len(lowered) > 1:
            terms.add(_stem(lowered))
    return sorted(terms, key=len, reverse=True)


def _stem(word: str) -> str:
    for ending in ("ies", "ing", "ed", "es", "s"):
        if len(word) > len(ending) + 2 and word.endswith(ending):
            return word[: -len(ending)]
    return word


def spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Merged (start, end) spans of ``text`` where a term is found (English words whole,
    with any ending; numbers whole; case and variant characters ignored)."""
    folded = variant_fold(text).lower()
    found: list[tuple[int, int]] = []
    for term in terms:
        if _HAN_RUN.fullmatch(term):
            pattern = re.escape(term)
        elif term[0].isdigit():  # a number whole: the 20 of 2019-20 is not in 2020 or 1 200
            pattern = rf"(?<![a-z0-9]){re.escape(term)}(?![0-9])"
        else:
            pattern = rf"(?<![a-z0-9]){re.escape(term)}[a-z]*"
        found += [(m.start(), m.end()) for m in re.finditer(pattern, folded)]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def marked_html(text: str, query: str) -> str:
    """``text`` HTML-escaped with each span the query matches in ``<mark>``."""
    if len(variant_fold(text)) != len(text):  # folding changed the length: mark nothing rather than wrongly
        return html.escape(text)
    out, at = [], 0
    for start, end in spans(text, query_terms(query)):
        out += [html.escape(text[at:start]), "<mark>", html.escape(text[start:end]), "</mark>"]
        at = end
    out.append(html.escape(text[at:]))
    return "".join(out)
