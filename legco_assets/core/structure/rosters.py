"""Lists of names (an attendance list) are one narrative section, not headings.

Why: the Official Record opens with who attended (``MEMBERS PRESENT:`` / ``出席議員：``), one
name per line: ``THE HONOURABLE LEUNG YIU-CHUNG`` then ``DR THE HONOURABLE LAU WONG-FAT,
G.B.M., G.B.S., J.P.``. A name without honours is a short bare line before a longer one,
which is how a heading looks, so the members' names became section headings. What tells a
list is how it is made: the same form line after line, the varying name framed by the same
title words (``THE HONOURABLE …``) or the same ending (``…議員``), honours after a comma.
"""

from __future__ import annotations

from .. import markers

MIN_RUN = 3  # a list is at least three such lines in a row
MAX_NAME_WIDTH = 48  # display width of a name without its honours


def _name(line: str) -> str:
    return markers.ROSTER_HONOURS.sub("", line.strip())


def _shares_form(a: str, b: str) -> bool:
    """Two names of one list: the same Chinese ending (``議員``, ``局長``) or a title word in common."""
    if not a or not b:
        return False
    if markers.CJK_CHAR.match(a[-1]) and markers.CJK_CHAR.match(b[-1]):
        return a[-2:] == b[-2:]
    return bool(set(markers.ROSTER_WORD.findall(a)) & set(markers.ROSTER_WORD.findall(b)))


def _short(name: str) -> bool:
    width = sum(2 if markers.CJK_CHAR.match(ch) else 1 for ch in name)
    return 0 < width <= MAX_NAME_WIDTH and not markers.SENTENCE_END.search(name)


def in_name_list(lines: list[str], i: int) -> bool:
    """Line ``i`` is one of at least ``MIN_RUN`` consecutive lines (blank lines skipped) that
    are names of the same form as it."""
    name = _name(lines[i])
    if not _short(name):
        return False
    run = 1
    for step in (-1, 1):
        k = i + step
        while 0 <= k < len(lines) and run < MIN_RUN:
            if lines[k].strip():
                other = _name(lines[k])
                if not (_short(other) and _shares_form(name, other)):
                    break
                run += 1
            k += step
    return run >= MIN_RUN
