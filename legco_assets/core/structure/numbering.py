"""Numbers that count a paper's paragraphs or sections, not its questions.

Why: a paper without labels may number its questions bare (``1 新規定如何操作？``,
``3. How do I apply?``), and the rules read such a line as a question. A speech numbers its
paragraphs the same way and asks now and then (``6. How can we make sure that …?`` between
``5. The Government will …`` and ``7. …``); a guide numbers its sections, some of which ask
(``1. Who is a part-time worker?``, ``3. Entitlements at a glance``). Read as questions,
such a paragraph took the rest of the speech as its answer. The difference is in the run of
numbers: an FAQ's numbers ask at (nearly) every step, while a speech's or a guide's mostly
do not. A list inside an answer restarts at 1; where its numbers meet the questions' (``1.``
``2.`` just before question ``3.``), the run goes through the questions, which ask.
"""

from __future__ import annotations

from .. import markers

MIN_RUN = 3  # numbered lines in a run, at least, before it can be a paper's paragraphs
WRAP_LINES = 5  # a numbered question ends with its question mark within this many lines


def paragraph_numbers(lines: list[str]) -> set[int]:
    """Indices of the numbered lines that ask but number paragraphs or sections.

    Each numbered line that asks belongs to a run of its numbering style (``5.``, ``5、``,
    ``5)``, a bare ``5``): the line numbered one less before it, and the one numbered one
    more after it, and so on both ways, taking the nearest line that asks where there is
    one (so an answer's list, ``1.`` ``2.`` before question ``3.``, is passed over for
    questions ``1.`` and ``2.``). A run of at least :data:`MIN_RUN` lines of which more than
    half do not ask numbers paragraphs; its lines that ask are a speaker's questions or a
    section's title, not an FAQ's questions."""
    by_number: dict[tuple[str, int], list[tuple[int, bool]]] = {}
    asking: list[tuple[str, int, int]] = []
    for k, line in enumerate(lines):
        m = markers.NUMBERED_QUESTION.match(line)
        if m and m["text"]:
            style, number, asks = (
                line[len(m["num"]) : m.start("text")].strip(),
                int(m["num"]),
                _asks(lines, k),
            )
            by_number.setdefault((style, number), []).append((k, asks))
            if asks:
                asking.append((style, number, k))
    found: set[int] = set()
    for style, number, k in asking:
        run = _run(by_number, style, number, k)
        if len(run) >= MIN_RUN and sum(not asks for asks in run) * 2 > len(run):
            found.add(k)
    return found


def _run(
    by_number: dict[tuple[str, int], list[tuple[int, bool]]], style: str, number: int, k: int
) -> list[bool]:
    """Whether each line of the run through line ``k`` (numbered ``number``) asks."""
    run = [True]
    for step in (-1, 1):
        at, n = k, number
        while True:
            found = [
                e for e in by_number.get((style, n + step), []) if (e[0] < at if step < 0 else e[0] > at)
            ]
            if not found:
                break
            pick = [e for e in found if e[1]] or found  # the nearest line that asks, else the nearest
            at = max(pick)[0] if step < 0 else min(pick)[0]
            run.append(dict(found)[at])
            n += step
    return run


def _asks(lines: list[str], k: int) -> bool:
    """The numbered line ``k`` ends with a question mark, on its line or on a line it wraps
    onto before a sentence ends."""
    for j in range(k, min(len(lines), k + WRAP_LINES)):
        if markers.QUESTION_END.search(lines[j]):
            return True
        if (
            markers.SENTENCE_END.search(lines[j])
            or not lines[j]
            or (j > k and markers.NUMBERED_QUESTION.match(lines[j]))
        ):
            return False
    return False
