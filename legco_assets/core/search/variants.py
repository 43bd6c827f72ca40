"""Variant characters folded to one form, for search only: :func:`variant_fold`.

Why: Hong Kong government text mixes variant forms of one character (a Labour Department
FAQ prints ``侍産假`` with 産 U+7523 throughout, where readers type ``侍產假`` with 產
U+7522; ``爲``/``為``, ``衞``/``衛``, ``綫``/``線``, ``着``/``著``, ``裏``/``裡``,
``峯``/``峰``). To BM25's character bigrams these are different words, so a question in
the other form does not find the page. Index text and query text pass through
the same folding (:func:`.bm25_index.tokenize` folds), as do the dictionary's look-ups and
the query the embedder sees; stored chunks keep the characters the paper prints.

The variant classes are ``yitizi``'s (Project NK2028's variant sets per character); a class
is too wide to fold whole (``里``, a unit of length, shares one with ``裏``; ``箸``,
chopsticks, with ``着``), so a character is folded only when it is *a form of another word,
with no meaning of its own*, as CC-CEDICT (the dictionary search already ships) says:

* a character whose every CC-CEDICT entry as a traditional headword begins "variant of Y"
  (also "old", "Japanese" … variant) for one Y, folds to Y (``産``→``產``, ``爲``→``為``,
  ``衞``→``衛``, ``綫``→``線``, ``裏``→``裡``, ``峯``→``峰``);
* a character CC-CEDICT never uses as a traditional headword, but writes as the simplified
  form of exactly one traditional headword Y, folds to Y (``着``→``著``; simplified ``产``→``產``;
  ``冲``, the simplified form of both ``沖`` and ``衝``, stays);
* a character CC-CEDICT does not know at all folds to the one traditional headword among
  its yitizi variants, when there is exactly one (``吿``→``告``);

and in every case only when yitizi lists Y among its variants. ``里`` and ``箸`` have
meanings of their own in CC-CEDICT (a unit and a neighbourhood; chopsticks), so they stay.
The canonical form is therefore CC-CEDICT's traditional headword, the form its glosses and
:mod:`.dictionary_translation` use.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import lru_cache

import yitizi

from .cedict import entries

# "variant of 為|为[wei2]", "old variant of 峰[feng1]", "Japanese variant of 產|产"
_VARIANT_OF = re.compile(r"^(?:(?:old|Japanese|archaic|ancient|obscure|Korean) )?variant of ([^|\[/ ]+)")


@lru_cache(maxsize=1)
def fold_table() -> dict[int, str]:
    """Code point → canonical character, for ``str.translate`` (see the module docstring)."""
    first_glosses: dict[str, list[str]] = defaultdict(list)  # traditional single characters
    simplified_of: dict[str, set[str]] = defaultdict(set)
    for entry in entries():
        if len(entry.traditional) != 1:
            continue
        first_glosses[entry.traditional].append(entry.glosses[0] if entry.glosses else "")
        if entry.simplified != entry.traditional:
            simplified_of[entry.simplified].add(entry.traditional)
    fold: dict[str, str] = {}
    for char, glosses in first_glosses.items():
        targets = {m.group(1) for m in map(_VARIANT_OF.match, glosses) if m}
        if len(targets) == 1 and all(_VARIANT_OF.match(g) for g in glosses):
            target = targets.pop()
            if len(target) == 1 and target != char and target in yitizi.get(char):
                fold[char] = target
    for char, traditional in simplified_of.items():
        if char in first_glosses:
            continue  # a traditional character in its own right (里, 后, 干 …)
        targets = {fold.get(t, t) for t in traditional if t in yitizi.get(char)}
        if len(targets) == 1:
            fold[char] = targets.pop()
    known = set(first_glosses) | set(simplified_of)
    for char in set(yitizi.yitizi_data) - known:
        targets = {fold.get(v, v) for v in yitizi.get(char) if v in first_glosses}
        if len(targets) == 1:
            fold[char] = targets.pop()
    return {ord(char): _settle(char, fold) for char in fold}


def _settle(char: str, fold: dict[str, str]) -> str:
    """Follow a chain of folds to its end (a variant of a variant), stopping at a cycle."""
    seen = {char}
    while fold.get(char, char) not in seen:
        char = fold[char]
        seen.add(char)
    return char


def variant_fold(text: str) -> str:
    """``text`` with every variant character in its canonical form (same length, so offsets
    into the text stay valid)."""
    return text.translate(fold_table())


@lru_cache(maxsize=1)
def variant_classes() -> dict[str, tuple[str, ...]]:
    """Canonical character → every character that folds to it, itself first."""
    classes: dict[str, list[str]] = defaultdict(list)
    for code, canonical in fold_table().items():
        classes[canonical].append(chr(code))
    return {canonical: (canonical, *members) for canonical, members in classes.items()}


def printed_forms(texts: Iterable[str]) -> dict[int, str]:
    """A ``str.translate`` table that writes every variant character in the form ``texts``
    print most (the canonical one on a tie or when they print none of the class).

    Why, beside :func:`variant_fold`: the embedder must see one query for either form of a
    character (or the two forms find different chunks), but the canonical form is CC-CEDICT's
    (``雇``, ``裡``) where Hong Kong papers print ``僱``, ``裏``: a multilingual encoder reads
    the papers' own form as they were embedded, so the query is written in it."""
    return forms_of(variant_counts(texts))


def variant_counts(texts: Iterable[str]) -> Counter[str]:
    """How often ``texts`` print each character that has a variant (what
    :func:`printed_forms` weighs; counts of several sets of texts add up)."""
    counts = Counter("".join(texts))
    members = variant_members()
    return Counter({c: n for c, n in counts.items() if c in members})


@lru_cache(maxsize=1)
def variant_members() -> frozenset[str]:
    """Every character of a variant class."""
    return frozenset(c for members in variant_classes().values() for c in members)


def forms_of(counts: Counter[str]) -> dict[int, str]:
    """:func:`printed_forms` from the counts of :func:`variant_counts`."""
    table: dict[int, str] = {}
    for canonical, members in variant_classes().items():
        best = max(members, key=lambda c: (counts[c], c == canonical))
        table.update({ord(c): best for c in members if c != best})
    return table
