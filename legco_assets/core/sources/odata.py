"""OData v3 JSON as LegCo's open-data feed speaks it: every record of a query, page by
page (``value``, and ``odata.nextLink`` while more pages remain), and its two forms of a date.

Why apart: the Hansard records (:mod:`.legco_feed`) and a meeting's official questions
(:mod:`.official_questions`) are both OData queries; both take their paging and dates from
here, so the feed imports the official questions and never the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from ..settings import Settings
from .downloads import DownloadError, get_json

if TYPE_CHECKING:  # imported where a request is made (see downloads)
    import httpx

_MS_DATE = re.compile(r"^/Date\((-?\d+)([+-]\d{4})?\)/$")


def odata_values(
    client: httpx.Client, url: str, settings: Settings, params: Mapping[str, str] | None, max_pages: int
) -> list[Any]:
    """Every record of an OData v3 JSON query, following ``odata.nextLink`` (absolute or
    relative to the feed) page by page; DownloadError when a page cannot be had, is not an
    OData reply or the links loop."""
    values: list[Any] = []
    visited: set[str] = set()
    next_url: str | None = url
    while next_url:
        if next_url in visited or len(visited) >= max_pages:
            raise DownloadError(f"odata.nextLink loops ({next_url})")
        visited.add(next_url)
        page = get_json(client, next_url, settings, params)
        if not isinstance(page, dict) or not isinstance(page.get("value"), list):
            raise DownloadError("not an OData reply (no 'value' list)")
        values.extend(page["value"])
        link = page.get("odata.nextLink") or page.get("@odata.nextLink")
        next_url, params = (urljoin(f"{settings.feed_url}/", link), None) if link else (None, None)
    return values


def parse_meeting_date(value: Any) -> date:
    """OData v3 JSON dates: ``/Date(1704844800000)/`` (ms since the epoch, UTC, optional
    ``+0800`` offset) or ISO ``2024-01-10T00:00:00``."""
    text = str(value).strip()
    match = _MS_DATE.match(text)
    if match:
        moment = datetime.fromtimestamp(int(match.group(1)) / 1000, tz=UTC)
        if match.group(2):
            sign = 1 if match.group(2)[0] == "+" else -1
            moment += sign * timedelta(hours=int(match.group(2)[1:3]), minutes=int(match.group(2)[3:]))
        return moment.date()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        raise ValueError(f"unreadable MeetingDate {text!r}") from None
