"""Every official question of a meeting matched to a question the rules found.

LegCo's ``Questions`` records (fetched with the Hansard, :mod:`sources.official_questions`)
list the oral and written questions put at the meeting. Each is matched to a question
section (a main oral question or a written one, never a supplementary): by its number when
the record has one, else by its subject (the topic heading the Hansard prints above the
question) and its asker, else by its asker alone when that member asked only one question of
that kind. What is left on either side names the problem: an official question we did not
find (a Hansard format the rules do not know), or a question we made that LegCo does not
list (a split or a false pair). Matched sections carry the record's ``official_subject``,
``speaker_id`` and ``rundown_id`` into their chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..quality import Check
from ..records import Section
from .annexes import same_member
from .council import MAIN, WRITTEN
from .outline import key

CHECK_NAME = "questions_match_open_data"
KIND_OF_TYPE = {"oral": MAIN, "written": WRITTEN}
MIN_SUBJECT_KEY = 4  # a subject shorter than this is compared whole, never as a part


@dataclass
class OfficialMatch:
    """The outcome; ``evaluated`` False when the paper has no records (``reason`` says why)."""

    evaluated: bool
    reason: str = ""
    official: int = 0
    matched: list[dict[str, Any]] = field(default_factory=list)  # {question_id, subject, how}
    unmatched: list[str] = field(default_factory=list)  # subjects of official questions not found
    extra: list[str] = field(default_factory=list)  # question ids LegCo does not list

    @property
    def passed(self) -> bool:
        return not self.evaluated or (not self.unmatched and not self.extra)

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluated": self.evaluated,
            "reason": self.reason,
            "official": self.official,
            "matched": self.matched,
            "unmatched": self.unmatched,
            "extra": self.extra,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OfficialMatch:
        return cls(
            **{k: data[k] for k in ("evaluated", "reason", "official", "matched", "unmatched", "extra")}
        )

    def check(self) -> Check:
        """The WARN check on ``document_structure`` (counts and unmatched subjects in its details)."""
        if not self.evaluated:
            return Check(
                CHECK_NAME, True, f"skipped: {self.reason}", {"evaluated": False, "reason": self.reason}
            )
        parts = [f"{len(self.matched)} of {self.official} official questions matched"]
        if self.unmatched:
            parts.append("not found: " + "; ".join(self.unmatched[:5]))
        if self.extra:
            parts.append("not in LegCo's records: " + ", ".join(self.extra[:10]))
        details = {
            "evaluated": True,
            "official": self.official,
            "matched": len(self.matched),
            "unmatched": len(self.unmatched),
            "extra": len(self.extra),
            "unmatched_subjects": self.unmatched[:50],
            "extra_question_ids": self.extra[:50],
        }
        return Check(CHECK_NAME, self.passed, "; ".join(parts), details)


def _questions(sections: list[Section]) -> list[Section]:
    """The question sections an official record can stand for: main oral and written ones."""
    return [
        s
        for s in sections
        if s.type == "qa" and not s.parent_question_id and s.question_kind in (None, MAIN, WRITTEN)
    ]


def _kind_fits(record: dict[str, Any], section: Section) -> bool:
    wanted = KIND_OF_TYPE.get(str(record.get("question_type") or "").lower())
    return wanted is None or section.question_kind is None or section.question_kind == wanted


def _subject_fits(subject: str, section: Section) -> bool:
    wanted = key(subject)
    headings = [key(h) for h in (section.heading, *section.path) if h]
    if not wanted:
        return False
    return any(
        h == wanted or (min(len(h), len(wanted)) >= MIN_SUBJECT_KEY and (wanted in h or h in wanted))
        for h in headings
    )


def _find(record: dict[str, Any], open_: list[Section], asker_only: bool) -> tuple[Section, str] | None:
    """The open section a record stands for: by number, else subject and asker; on the
    second pass (``asker_only``) by asker when only one open question of its kind is theirs."""
    fitting = [s for s in open_ if _kind_fits(record, s)]
    speaker, subject = record.get("speaker"), str(record.get("subject") or "")
    if asker_only:
        by_asker = [s for s in fitting if same_member(s.asker, speaker)]
        return (by_asker[0], "asker") if len(by_asker) == 1 else None
    number = str(record.get("number") or "").strip()
    if number:
        by_number = [s for s in fitting if s.qa_id == number]
        if by_number:
            return by_number[0], "number"
    by_subject = [s for s in fitting if _subject_fits(subject, s)]
    both = [s for s in by_subject if not s.asker or not speaker or same_member(s.asker, speaker)]
    return (both[0], "subject and asker") if both else None


def match_official_questions(
    sections: list[Section], records: list[dict[str, Any]] | None, reason_if_none: str = ""
) -> OfficialMatch:
    """Match LegCo's records to the paper's questions and mark the matched sections
    (``extra``: ``official_subject``, ``speaker_id``, ``rundown_id``). ``records`` None: not
    from the feed (or not fetched yet); empty: the service lists no question for the meeting."""
    if records is None:
        return OfficialMatch(
            False, reason_if_none or "no official question records: the paper did not come from LegCo's feed"
        )
    if not records:
        return OfficialMatch(False, "LegCo's open data lists no questions for this meeting")
    result = OfficialMatch(True, official=len(records))
    open_ = _questions(sections)
    left = list(records)
    for asker_only in (
        False,
        True,
    ):  # every record by number or subject first: asker alone never takes another's question
        for record in list(left):
            found = _find(record, open_, asker_only)
            if found is None:
                continue
            section, how = found
            open_.remove(section)
            left.remove(record)
            official = {
                "official_subject": record.get("subject"),
                "speaker_id": record.get("speaker_id"),
                "rundown_id": record.get("rundown_id"),
            }
            section.extra.update({k: v for k, v in official.items() if v not in (None, "")})
            result.matched.append(
                {"question_id": section.qa_id, "subject": record.get("subject"), "how": how}
            )
    result.unmatched = [
        f"{r.get('question_type', '')} {r.get('subject', '')} ({r.get('speaker', '')})".strip() for r in left
    ]
    result.extra = [s.qa_id or "" for s in open_]
    result.matched.sort(key=lambda m: [s.qa_id for s in sections].index(m["question_id"]))
    return result
