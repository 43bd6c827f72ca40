"""Find a chunk's characters in the source they were read from.

A chunk's text is not a slice of the PDF's text: cleaning dropped page furniture and joined
letter-spaced Chinese, tables became Markdown, a narrative chunk starts with its heading path
and a later part of a long answer repeats the question. What survives all of that is the
order of the paper's own visible characters. So both sides are reduced to their *significant*
characters (look-alike code points mapped as the reader maps them, whitespace and Markdown
table syntax dropped), and the chunk's are found in the source's in order: an 8-character
seed is searched for forward from where the last one ended, within the chunk's pages, then
extended as far as both agree. A seed that is not there (a synthetic line) is skipped one
character at a time; a long one may be found anywhere (a repeated question on an earlier page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..markers import MARKDOWN_TABLE_RULE
from ..read import normalise_chars_aligned

SEED = 8  # characters: long enough to be unambiguous in a paper, short enough to survive edits
FAR_SEED = 16  # a match outside the chunk's pages must be at least this long
CELL_SEED = 4  # the second pass: a table cell (``20,037``, ``受僱日數``) is short
LEAD_SEED = 6  # the second pass: a missed run this long may be found anywhere (``5.郭家麒議員``)
# not content: NUL, PDFium's soft-hyphen marks, BOM, zero-width space, and the cell bar of a
# Markdown table (a chunk's tables are Markdown, a PDF's are not)
IGNORED = {"\x00", "\x02", "\ufffe", "\ufeff", "\u200b", "|"}


# a run of content characters (``\s``, like ``str.isspace``, is whitespace)
_SIGNIFICANT_RUN = re.compile("[^\\s" + "".join(re.escape(ch) for ch in sorted(IGNORED)) + "]+")


def significant(text: str) -> tuple[str, list[int]]:
    """The characters of ``text`` that carry content, normalised, with each one's offset in
    ``text`` (whitespace and soft-hyphen marks go; look-alike code points map as the reader
    maps them, one char to one char). Read run by run: a paper's text is read whole for
    every strategy's excerpts, and a test per character was most of it."""
    text = normalise_chars_aligned(text)
    runs = [(run.start(), run.end()) for run in _SIGNIFICANT_RUN.finditer(text)]
    offsets = [i for start, end in runs for i in range(start, end)]
    return "".join(text[start:end] for start, end in runs), offsets


def table_free(text: str) -> str:
    """A chunk's text with Markdown table syntax gone, cells kept in reading order: the
    separator rows, the ``|`` between cells and the ``\\|`` escapes of the renderer."""
    text = MARKDOWN_TABLE_RULE.sub("", text)
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = re.split(r"(?<!\\)\|", stripped[1:-1])
            line = " ".join(cell.replace("\\|", "|").strip() for cell in cells)
        lines.append(line)
    return "\n".join(lines)


@dataclass
class Alignment:
    """Where the needle's characters were found: ``spans`` are [start, end) in the haystack,
    ``matched`` how many needle characters they hold, out of ``total``."""

    spans: list[tuple[int, int]] = field(default_factory=list)
    found: list[tuple[int, int]] = field(default_factory=list)  # the same runs, as [start, end) of the needle
    matched: int = 0
    total: int = 0

    @property
    def ratio(self) -> float:
        return self.matched / self.total if self.total else 1.0

    def positions(self) -> list[int]:
        return [i for start, end in self.spans for i in range(start, end)]


def align(needle: str, hay: str, start: int = 0, end: int | None = None) -> Alignment:
    """Find ``needle``'s characters in ``hay`` in order, preferring ``hay[start:end]`` (the
    chunk's pages); see the module docstring. A second pass looks again for what the first
    left, out of order: a table's cells that Markdown lists row by row while the page's text
    runs column by column (within the window, seeds of 2 to 4 characters), a repeated lead such as
    ``11. 郭偉強議員：`` (anywhere, when at least ``LEAD_SEED`` long)."""
    end = len(hay) if end is None else end
    result = Alignment(total=len(needle))
    missed = _greedy(needle, 0, len(needle), hay, start, end, SEED, FAR_SEED, result)
    for lo, hi in missed:
        run = hi - lo
        seed = max(2, min(CELL_SEED, run))
        _greedy(needle, lo, hi, hay, start, end, seed, LEAD_SEED if run >= LEAD_SEED else None, result)
    return result


def _greedy(
    needle: str,
    lo: int,
    hi: int,
    hay: str,
    start: int,
    end: int,
    seed: int,
    far_seed: int | None,
    result: Alignment,
) -> list[tuple[int, int]]:
    """One pass over ``needle[lo:hi]``; adds what it finds to ``result`` and returns the
    runs of the needle it could not find."""
    missed: list[tuple[int, int]] = []
    cursor, i = start, lo
    while i < hi:
        pos = hay.find(needle[i : i + seed], cursor, end) if hi - i >= seed else -1
        if pos < 0 and cursor > start and hi - i >= seed:  # out of order: a table read the other way
            pos = hay.find(needle[i : i + seed], start, cursor)
        if pos < 0 and far_seed and hi - i >= far_seed:
            pos = hay.find(needle[i : i + far_seed])
        if pos < 0:
            if missed and missed[-1][1] == i:
                missed[-1] = (missed[-1][0], i + 1)
            else:
                missed.append((i, i + 1))
            i += 1
            continue
        length = min(_common_length(needle, i, hay, pos), hi - i)
        result.spans.append((pos, pos + length))
        result.found.append((i, i + length))
        result.matched += length
        i += length
        if start <= pos < end:
            cursor = pos + length
    return missed


def _common_length(a: str, i: int, b: str, j: int) -> int:
    """How many characters ``a[i:]`` and ``b[j:]`` share from the start (doubling probes,
    so a long run costs a few slice comparisons, not a Python loop per character)."""
    limit = min(len(a) - i, len(b) - j)
    step, length = 64, 0
    while length < limit:
        probe = min(step, limit - length)
        if a[i + length : i + length + probe] == b[j + length : j + length + probe]:
            length += probe
            step *= 2
            continue
        if probe == 1:
            break
        step = max(1, probe // 2)
    return length
