"""One record of LegCo's Hansard feed: its id, meeting date, type (the feed's spelling:
``Chinese``, ``English``, ``Floor``) and PDF URL, read from the feed's OData JSON.

Why apart: the feed (:mod:`.legco_feed`) lists and fetches these records, and a meeting's
official questions (:mod:`.official_questions`) are asked for by one; both import it from
here, so the feed imports the official questions and never the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from .documents import slug
from .odata import parse_meeting_date

TYPE_SUFFIX = {"Chinese": "zh", "English": "en", "Floor": "floor"}


@dataclass(frozen=True)
class FeedRecord:
    hansard_id: str
    meeting_date: date
    hansard_type: str
    url: str

    def base_name(self) -> str:
        """``hansard-2024-01-10-zh.pdf``: says what it is and pairs with ``-en``."""
        return (
            f"hansard-{self.meeting_date.isoformat()}-"
            f"{TYPE_SUFFIX.get(self.hansard_type, slug(self.hansard_type))}.pdf"
        )

    def origin(self) -> dict[str, str]:
        return {
            "source_url": self.url,
            "meeting_date": self.meeting_date.isoformat(),
            "hansard_type": self.hansard_type,
            "hansard_id": self.hansard_id,
        }


def parse_record(raw: Any) -> FeedRecord:
    if not isinstance(raw, dict):
        raise ValueError("a record is not an object")
    missing = [
        k for k in ("HansardID", "MeetingDate", "HansardType", "HansardFileURL") if raw.get(k) in (None, "")
    ]
    if missing:
        raise ValueError(f"record without {', '.join(missing)}")
    return FeedRecord(
        str(raw["HansardID"]),
        parse_meeting_date(raw["MeetingDate"]),
        str(raw["HansardType"]),
        str(raw["HansardFileURL"]).strip(),
    )


def parse_types(text: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``Chinese,English`` → the feed's spelling; ValueError naming the valid ones."""
    parts = [p.strip() for p in (text.split(",") if isinstance(text, str) else text) if p.strip()]
    known = {k.lower(): k for k in TYPE_SUFFIX}
    bad = [p for p in parts if p.lower() not in known]
    if bad or not parts:
        raise ValueError(
            f"unknown Hansard type {', '.join(bad) or '(none)'} (valid: {', '.join(TYPE_SUFFIX)})"
        )
    return tuple(dict.fromkeys(known[p.lower()] for p in parts))
