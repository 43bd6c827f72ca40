"""Who speaks in each chunk: the members and officials whose speeches a chunk holds.

Why: an exchange names its asker and answerer, but most of a Council record is debate (a
motion, a bill's readings), where a member speaks for pages and a chunk holds part of one
speech or several. A reader who asks what one member said needs those chunks too. A speech
opens a line with its speaker's label (:func:`.council.speaker_turns`, the record's own
typography) and runs until the next label, so a chunk holds the speakers whose labels open
its lines, and the one still speaking where it starts, when it starts with that speech's
text rather than a label: the speaker of the last turn before its start (a token window's
text is the paper's, so the turns of the windows before it place that exactly), or for
other chunks the last speaker of the chunk before it in the same section. An exchange's
chunk always opens with its own labels, so nothing is carried into one. The President's
lines (``主席：``, ``PRESIDENT:``) chair the meeting and name nobody here; a President's turn
ends the speech before it. The names stay as printed (``梁家傑議員``, ``MR ALAN LEONG``); the
speaker filter compares them in their normal form.
"""

from __future__ import annotations

from ..records import ChunkRecord, join_path
from .council import Turn, speaker_turns

CHAIR = "president"


def name_speakers(records: list[ChunkRecord]) -> list[ChunkRecord]:
    """Each record's ``speakers`` (printed names, each once, in order of speaking; absent
    when nobody speaks in it). ``records`` are one strategy's chunks of one paper in order."""
    run = _Run()
    path: list[str] | None = None
    end: int | None = None  # where the previous chunk ends in the paper's text
    for record in records:
        meta = record.metadata
        # a new section is a new item of business, unless the chunk runs on from the last
        # one (token windows overlap, whichever section they start in)
        runs_on = end is not None and meta.char_start is not None and meta.char_start <= end
        if meta.section_path != path and not runs_on:
            run = _Run()
        path, end = meta.section_path, meta.char_end
        turns = speaker_turns(record.text, 0, len(record.text))
        exact = meta.char_start is not None and meta.char_end == meta.char_start + len(record.text)
        speaking = run.speaking_at(meta.char_start) if exact and runs_on else run.last
        first = turns[0].start if turns else len(record.text)
        # an exchange's chunk opens with its own labels (and a context line), never mid-speech
        carried = speaking and meta.section_type != "qa" and _speech_before(record, first)
        names = [speaking] if carried else []
        names += [t.speaker for t in turns if t.role != CHAIR]
        meta.speakers = list(dict.fromkeys(names)) or None
        for turn in turns:
            run.opens(meta.char_start + turn.start if exact else None, _who(turn))
    return records


class _Run:
    """The turns of a run of chunks, for who is speaking where a chunk starts: where each
    turn opens in the paper's text (when the chunk's text is the paper's, as a token
    window's is), and the last one; overlapping windows hold the same turn twice."""

    def __init__(self) -> None:
        self.last: str | None = None  # who spoke last, in the chunks so far
        self._at: dict[int, str | None] = {}
        self._before: str | None = None  # who spoke before the earliest turn kept

    def opens(self, at: int | None, who: str | None) -> None:
        self.last = who
        if at is not None:
            self._at[at] = who

    def speaking_at(self, start: int) -> str | None:
        """Who speaks at ``start``: the last turn opened before it; turns before it are not
        needed again (the chunks come in order)."""
        earlier = [at for at in self._at if at < start]
        if earlier:
            self._before = self._at[max(earlier)]
            self._at = {at: who for at, who in self._at.items() if at >= start}
        return self._before


def _who(turn: Turn) -> str | None:
    """The speaker a turn names: None for the chair, whose turn ends the speech before it."""
    return None if turn.role == CHAIR else turn.speaker


def _speech_before(record: ChunkRecord, first_turn: int) -> bool:
    """Whether the text before the chunk's first turn holds speech, not only the section
    path that a chunk's first line repeats."""
    lead = record.text[:first_turn].strip()
    if not lead:
        return False
    heading, _, rest = lead.partition("\n")
    repeated = {join_path(record.metadata.section_path), record.metadata.section_heading or ""}
    return bool(rest.strip()) or heading.strip() not in repeated
