"""LegCo's own list of the questions put at a meeting, fetched with each Hansard.

Why: a Hansard's question chunks come from our rules; a format we have not seen would lose
questions in silence. The Hansard database publishes, per meeting, a ``Questions`` entity
(records with ``MeetingDate``, ``QuestionType`` (``Oral``/``Written``), ``Subject``,
``Speaker``, ``SpeakerID``, ``RundownID``, ``HansardID``, ``HansardType``,
``HansardFileURL``), so every Hansard the feed brings can be checked against it
(:mod:`structure.official_match`).

They are asked for with the same client, paging, retries and host policy as the Hansard
records (``{feed}/Questions?$filter=MeetingDate eq datetime'…' and HansardType eq '…'``),
filtered here too (a static mirror answers every query alike), and kept with the paper's
origin in ``feed/state.json`` (so ``source_document`` stores them in ``source.json``).
When one meeting has several Hansards of one language, the records naming this paper
(its ``HansardID`` or file URL) are kept; when none names it, all of that day and language.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..settings import Settings
from .feed_records import FeedRecord
from .odata import odata_values, parse_meeting_date

QUESTIONS_ENTITY = "Questions"
MAX_PAGES = 100
NUMBER_KEYS = ("QuestionNumber", "QuestionNo")  # not in the published shape; used when a mirror has one


@dataclass(frozen=True)
class OfficialQuestion:
    """One record of LegCo's ``Questions`` entity, as stored with the paper."""

    question_type: str  # Oral | Written
    subject: str
    speaker: str
    speaker_id: int | str | None
    rundown_id: int | str | None
    number: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OfficialQuestion:
        return cls(
            **{
                k: data.get(k)
                for k in ("question_type", "subject", "speaker", "speaker_id", "rundown_id", "number")
            }
        )


def questions_query(record: FeedRecord) -> dict[str, str]:
    day = record.meeting_date.isoformat()
    return {
        "$format": "json",
        "$filter": f"MeetingDate eq datetime'{day}T00:00:00' and HansardType eq '{record.hansard_type}'",
    }


def _of_paper(raw: dict[str, Any], record: FeedRecord) -> bool:
    return (
        str(raw.get("HansardID", "")) == record.hansard_id
        or str(raw.get("HansardFileURL", "")).strip() == record.url
    )


def _parse(raw: dict[str, Any]) -> OfficialQuestion:
    number = next((str(raw[k]).strip() for k in NUMBER_KEYS if raw.get(k) not in (None, "")), None)
    return OfficialQuestion(
        str(raw.get("QuestionType") or "").strip(),
        " ".join(str(raw.get("Subject") or "").split()),
        " ".join(str(raw.get("Speaker") or "").split()),
        raw.get("SpeakerID"),
        raw.get("RundownID"),
        number,
    )


def fetch_questions(client: Any, settings: Settings, record: FeedRecord) -> list[OfficialQuestion]:
    """The meeting's question records for this paper; DownloadError when they cannot be had."""
    rows = odata_values(
        client, f"{settings.feed_url}/{QUESTIONS_ENTITY}", settings, questions_query(record), MAX_PAGES
    )
    same_day = []
    for raw in rows:
        try:
            day = parse_meeting_date(raw.get("MeetingDate"))
        except ValueError:
            continue
        if day == record.meeting_date and str(raw.get("HansardType")) == record.hansard_type:
            same_day.append(raw)
    mine = [raw for raw in same_day if _of_paper(raw, record)]
    return [_parse(raw) for raw in (mine or same_day)]
