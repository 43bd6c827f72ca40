"""Where text may be cut: the best boundary before a limit.

Order of preference: paragraph break, sentence end (。！？.!?), clause (，；,;、), any
whitespace; a hard cut at a character boundary only when none exists. Python strings index
code points, so a cut can never fall inside a multi-byte character.
"""

from __future__ import annotations

import re

# each pattern matches the text that ends a unit; the cut goes after the match
BOUNDARY_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n\s*\n\s*"),
    re.compile(r"[。！？!?]+[」』”’）)]*\s*|[.](?=\s)\s*"),
    re.compile(r"[，；、,;：:]\s*"),
    re.compile(r"\s+"),
)


LINE_FIRST_PATTERNS: tuple[re.Pattern[str], ...] = (
    BOUNDARY_PATTERNS[0],
    re.compile(r"\n\s*"),
    *BOUNDARY_PATTERNS[1:],
)
"""For Q&A pieces: paragraph, then line, then sentence (a line is a list item or a row)."""


def best_cut(
    text: str, start: int, limit: int, min_end: int, patterns: tuple[re.Pattern[str], ...] = BOUNDARY_PATTERNS
) -> int:
    """Largest cut position in ``(min_end, limit]`` at the best available boundary kind."""
    if limit >= len(text):
        return len(text)
    window = text[start:limit]
    offset = min_end - start
    for pattern in patterns:
        ends = [m.end() for m in pattern.finditer(window) if m.end() > offset]
        if ends:
            return start + ends[-1]
    return limit


def snap_start(text: str, position: int, low: int, high: int) -> int:
    """Move a window start to just after a nearby boundary in ``[low, high]`` (finer last)."""
    for pattern in BOUNDARY_PATTERNS:
        ends = [m.end() for m in pattern.finditer(text, low, high)]
        if ends:
            return min(ends, key=lambda e: abs(e - position))
    return position
