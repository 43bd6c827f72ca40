"""The hit rule: a retrieved chunk is a hit when it is of the right document and holds the END
of the right answer.

The end is the tail of the gold answer text, compared with whitespace, table
pipes and Markdown rule lines removed (tables are rendered as Markdown in chunks but listed
cell by cell in the gold), at least the gold ``answer_last_line`` and at least
``MIN_ANCHOR`` characters, grown until it occurs exactly once in the document's text, so a
boilerplate last line ("完成。") cannot match another answer. A gold question may name its
own ``answer_end``: the closing words of the passage that answers it, for a long reply
(an oral question's reply with annex tables, split into parts) where the question asks for
one fact and the pair's end can sit in another part. The hit rule then looks for that end.
"""

from __future__ import annotations

import functools
import re

from ..read import normalise_chars
from ..records import ChunkRecord

MIN_ANCHOR = 20
_IGNORED = re.compile(r"-{3,}|[\s|]")


def normalise(text: str) -> str:
    """Text without whitespace, table pipes or Markdown rule lines (see module docstring)."""
    return _IGNORED.sub("", text)


def answer_anchor(answer_text: str, last_line: str, document_text: str) -> str:
    """The shortest normalised tail of the answer (≥ the last line, ≥ MIN_ANCHOR chars)
    that occurs exactly once in the normalised document text."""
    answer, doc = normalise(answer_text), normalise(document_text)
    size = min(len(answer), max(MIN_ANCHOR, len(normalise(last_line))))
    while size < len(answer) and doc.count(answer[-size:]) > 1:
        size += 1
    anchor = answer[-size:]
    if doc.count(anchor) != 1:
        raise ValueError(
            f"the end of the answer ({anchor[-40:]!r}) is not found exactly once in the document"
        )
    return anchor


class LooseEnd(str):
    """An answer end quoted by a blind set's writer: compared with whitespace *and*
    punctuation ignored, and case folded (:func:`loose`), since a quote typed from a rendered
    page rarely keeps every comma, full-width bracket or line break; it need not be unique in
    its paper (a passage may end the same way twice: either place answers)."""


_PUNCT = re.compile(r"[\W_]+")


@functools.lru_cache(maxsize=65536)
def loose(text: str) -> str:
    """``text`` with everything but letters and digits removed, case folded, its characters
    read as the pipeline reads them (:func:`..read.preprocess.normalise_chars`: the ``U+31D0``
    stroke some PDFs print for 一 as 一, a compatibility ideograph as its unified form). Why:
    a writer quotes the page as extracted (the 2012 Hansard prints 令 as U+F9A8), while the
    chunks hold it as read; compared code point by code point, 43 blind questions (41 about
    that Hansard) could never be found."""
    return _PUNCT.sub("", normalise_chars(text)).casefold()


def holds_answer_end(record: ChunkRecord, document_id: str, anchor: str) -> bool:
    """The hit rule: the right document, and the chunk holds the answer's end."""
    if record.document_id != document_id:
        return False
    if isinstance(anchor, LooseEnd):
        return anchor in loose(record.text)
    return anchor in normalise(record.text)
