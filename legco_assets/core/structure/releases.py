"""The Government's release of a Council question: who asked, who replied, and how.

Why: the Government publishes each Council question with its reply as a press release
(``LCQ5: Public rental housing`` / ``立法會五題：公共租住房屋``), the form most readers meet
them in. Its first line names the member, the official and whether the reply was written
(``Following is a question by the Hon Alice Mak and a written reply by the Secretary for
Transport and Housing, …`` / ``以下是…麥美娟議員的提問和運輸及房屋局局長張炳良的書面答覆：``);
the rules pair its ``Question:`` / ``Reply:`` labels, and this pass gives the pair the same
keys a Hansard's exchange carries (``asker``, ``answerer``, ``question_kind``).
"""

from __future__ import annotations

from .. import markers
from ..records import Section
from .council import MAIN, WRITTEN


def released_questions(sections: list[Section]) -> list[Section]:
    """``sections`` with each pair that follows a release's first line given its keys."""
    intro = None
    for section in sections:
        if section.type != "qa":
            intro = _intro(section.text) or intro
            continue
        if intro is not None and section.asker is None:
            section.asker, section.answerer, written = intro
            section.question_kind = WRITTEN if written else MAIN
        intro = None
    return sections


def _intro(text: str) -> tuple[str, str, bool] | None:
    """(asker, answerer, written) from a release's first line in ``text``, if there is one."""
    for line in text.split("\n"):
        m = markers.LCQ_INTRO.match(line.strip())
        if m and m["asker"]:
            return m["asker"].removeprefix("the "), m["answerer"], bool(m["written"])
        if m:
            return m["asker_zh"], m["answerer_zh"], bool(m["written_zh"])
    return None
