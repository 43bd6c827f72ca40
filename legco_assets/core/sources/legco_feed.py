"""LegCo's Hansard open data as a source: ask for new records, download their PDFs into
the inbox, remember what was fetched.

The feed is OData v3 JSON (``{base}/Hansard?$format=json&$filter=…`` answers ``value`` and,
while more pages remain, ``odata.nextLink``). The filter is sent to the server *and* applied
here, so a mirror that serves a static JSON file works the same.

What was fetched lives in ``<data dir>/feed/state.json`` (written atomically after each
paper, so a killed poll loses nothing): per ``HansardID`` its file, sha256, URL, meeting date
and type. A record is asked for again only if it is not there (a failed download is never
recorded, so the next poll tries it again) or its URL changed; the same bytes are never put
into the inbox twice. ``source_document`` reads the record back by sha256 (:func:`origin_of`)
so lineage shows where a paper came from.

Which dates a poll asks for: ``--since`` when given; otherwise from the last meeting date
seen minus :data:`LOOKBACK_DAYS` (LegCo publishes the English translation of a Hansard
months after the Chinese one, so a record can appear late for an old meeting) but never
before the earliest date ever asked for; on the very first poll, ``LEGCO_FEED_SINCE`` or
:data:`FIRST_POLL_DAYS` back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ..settings import Settings
from ..storage import StorePath, write_whole
from ..store_lock import LockBusy, held
from . import downloads
from .documents import slug
from .feed_records import FeedRecord, parse_record, parse_types
from .odata import odata_values
from .official_questions import fetch_questions

LOOKBACK_DAYS = 366
FIRST_POLL_DAYS = 30
MAX_DOWNLOADS = 2  # at once: a public server, and papers are megabytes
# a poll's lock in an object store is taken over after this long (its holder died): longer
# than any poll runs (a poll holds it throughout, and a local poll holds a file lock instead)
POLL_LOCK_STALE_S = 3600.0
MAX_PAGES = 1000  # of the feed, to stop a mirror whose nextLink never ends


class FeedError(Exception):
    """The feed as a whole is unusable (unreachable, not OData JSON); one line."""


class FeedBusy(FeedError):
    """Another poll holds the state (the CLI and the sensor at once): try again later."""


@dataclass(frozen=True)
class Fetched:
    record: FeedRecord
    path: StorePath
    sha256: str
    size: int
    written: bool  # False: the inbox already held these bytes (a poll killed after its rename)


@dataclass(frozen=True)
class Failed:
    url: str
    reason: str
    record: FeedRecord | None = None

    def line(self) -> str:
        return f"legco-assets: error: {self.url}: {self.reason}"


@dataclass
class PollResult:
    since: date
    until: date | None
    records: int = 0  # matching records in the feed
    already: int = 0  # of those, fetched by an earlier poll
    fetched: list[Fetched] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)
    duplicates: int = 0  # new ids whose bytes an earlier record already brought


# -- records ----------------------------------------------------------------------------------
def odata_query(since: date, until: date | None, types: tuple[str, ...]) -> dict[str, str]:
    where = [f"MeetingDate ge datetime'{since.isoformat()}T00:00:00'"]
    if until:
        where.append(f"MeetingDate le datetime'{until.isoformat()}T23:59:59'")
    where.append("(" + " or ".join(f"HansardType eq '{t}'" for t in types) + ")")
    return {"$format": "json", "$filter": " and ".join(where), "$orderby": "MeetingDate asc"}


def list_records(
    client: Any, settings: Settings, since: date, until: date | None, types: tuple[str, ...]
) -> tuple[list[FeedRecord], list[Failed]]:
    """Every matching record across pages (oldest first), and the records that could not be
    read; FeedError when a page cannot be had or is not an OData reply."""
    url = f"{settings.feed_url}/Hansard"
    records: dict[str, FeedRecord] = {}
    bad: list[Failed] = []
    try:
        rows = odata_values(client, url, settings, odata_query(since, until, types), MAX_PAGES)
    except downloads.DownloadError as exc:
        raise FeedError(f"{url}: {exc}") from None
    for raw in rows:
        try:
            record = parse_record(raw)
        except ValueError as exc:
            where = (
                raw.get("HansardFileURL") or f"HansardID {raw.get('HansardID')}"
                if isinstance(raw, dict)
                else url
            )
            bad.append(Failed(str(where), str(exc)))
            continue
        if (
            record.hansard_type in types
            and since <= record.meeting_date
            and (until is None or record.meeting_date <= until)
        ):
            records[record.hansard_id] = record
    return sorted(records.values(), key=lambda r: (r.meeting_date, r.hansard_type, r.hansard_id)), bad


# -- state ------------------------------------------------------------------------------------
class FeedState:
    """``feed/state.json``: the records fetched, the last meeting date and the earliest date
    asked for. Saved whole, atomically, after every paper."""

    def __init__(self, settings: Settings):
        self.path = settings.feed_dir / "state.json"
        data = json.loads(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
        self.records: dict[str, dict[str, Any]] = data.get("records", {})
        self.floor: str | None = data.get("floor")

    @property
    def last_meeting_date(self) -> date | None:
        dates = [r["meeting_date"] for r in self.records.values()]
        return date.fromisoformat(max(dates)) if dates else None

    def is_fetched(self, record: FeedRecord) -> bool:
        known = self.records.get(record.hansard_id)
        return bool(known) and known["source_url"] == record.url

    def file_owner(self, name: str) -> str | None:
        return next((i for i, r in self.records.items() if r.get("file") == name), None)

    def sha_owner(self, sha256: str) -> str | None:
        return next((i for i, r in self.records.items() if r.get("sha256") == sha256), None)

    def add(
        self,
        record: FeedRecord,
        name: str,
        sha256: str,
        size: int,
        duplicate_of: str | None = None,
        questions: list[dict[str, Any]] | None = None,
    ) -> None:
        entry = {
            **record.origin(),
            "file": name,
            "sha256": sha256,
            "size_bytes": size,
            "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if duplicate_of:
            entry["duplicate_of"] = duplicate_of
        if questions is not None:  # absent: not fetched yet (the next poll asks again)
            entry["questions"] = questions
        self.records[record.hansard_id] = entry
        self.save()

    def without_questions(self, records: list[FeedRecord]) -> list[FeedRecord]:
        """Fetched papers whose question records could not be had when they were fetched."""
        return [
            r
            for r in records
            if self.is_fetched(r)
            and "questions" not in self.records[r.hansard_id]
            and not self.records[r.hansard_id].get("duplicate_of")
        ]

    def set_questions(self, record: FeedRecord, questions: list[dict[str, Any]]) -> None:
        self.records[record.hansard_id]["questions"] = questions
        self.save()

    def save(self) -> None:
        data = {
            "floor": self.floor,
            "last_meeting_date": str(self.last_meeting_date or ""),
            "records": self.records,
        }
        write_whole(self.path, json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True))

    def summary(self) -> dict[str, Any]:
        """What the sensor keeps as its cursor: the last meeting date and the ids seen."""
        return {"last_meeting_date": str(self.last_meeting_date or ""), "seen": sorted(self.records)}


def origin_of(settings: Settings, sha256: str) -> dict[str, Any] | None:
    """Where a file with these bytes came from, when the feed brought it, with the meeting's
    official question records (``questions``) when they were fetched."""
    path = settings.feed_dir / "state.json"
    if not path.exists():
        return None
    records = json.loads(path.read_text(encoding="utf-8")).get("records", {})
    for entry in records.values():
        if entry.get("sha256") == sha256:
            origin: dict[str, Any] = {
                k: entry[k] for k in ("source_url", "meeting_date", "hansard_type", "hansard_id")
            }
            owner = records.get(entry.get("duplicate_of") or "", entry)
            if "questions" in owner:
                origin["questions"] = owner["questions"]
            return origin
    return None


@contextmanager
def _one_poll_at_a_time(settings: Settings) -> Iterator[None]:
    """The CLI and the sensor share the state: two polls at once would fetch twice."""
    lock = settings.feed_dir / "poll.lock"
    try:
        with held(lock, stale_after_s=POLL_LOCK_STALE_S, wait=False):
            yield
    except LockBusy:
        raise FeedBusy(f"another feed poll is running (lock {lock})") from None


# -- the poll ---------------------------------------------------------------------------------
def start_date(state: FeedState, settings: Settings, since: date | None, today: date | None = None) -> date:
    if since:
        return since
    last = state.last_meeting_date
    if last is None and state.floor:  # asked before, nothing fetched yet: ask the same again
        return date.fromisoformat(state.floor)
    if last is None:
        return (
            date.fromisoformat(settings.feed_since)
            if settings.feed_since
            else (today or date.today()) - timedelta(days=FIRST_POLL_DAYS)
        )
    start = last - timedelta(days=LOOKBACK_DAYS)
    return max(start, date.fromisoformat(state.floor)) if state.floor else start


def _names(todo: list[FeedRecord], state: FeedState) -> dict[str, str]:
    """File name per record: the readable one unless another record already holds it (two
    papers of one type on one day), then with the HansardID."""
    names: dict[str, str] = {}
    taken = {r["file"]: i for i, r in state.records.items() if r.get("file") and not r.get("duplicate_of")}
    for record in todo:
        name = record.base_name()
        owner = taken.get(name)
        if owner is not None and owner != record.hansard_id:
            name = name.removesuffix(".pdf") + f"-{slug(record.hansard_id)}.pdf"
        taken[name] = record.hansard_id
        names[record.hansard_id] = name
    return names


def poll(
    settings: Settings,
    since: date | None = None,
    until: date | None = None,
    types: tuple[str, ...] | None = None,
    limit: int | None = None,
    report: Callable[[Fetched | Failed], None] = lambda _: None,
) -> PollResult:
    """One poll: list the new records, download at most :data:`MAX_DOWNLOADS` at once into
    the inbox, record each success. ``report`` hears of every paper as it finishes."""
    types = types or parse_types(settings.feed_types)
    with _one_poll_at_a_time(settings), downloads.http_client(settings) as client:
        downloads.clear_partial(settings.inbox)
        state = FeedState(settings)
        first = start_date(state, settings, since)
        if since and (state.floor is None or since.isoformat() < state.floor):
            state.floor = since.isoformat()
        elif state.floor is None:
            state.floor = first.isoformat()
        result = PollResult(first, until)
        records, bad = list_records(client, settings, first, until, types)
        result.records = len(records)
        todo = [r for r in records if not state.is_fetched(r)]
        result.already = len(records) - len(todo)
        todo = todo[:limit] if limit is not None else todo
        policy = downloads.HostPolicy.of(settings)
        for record in todo:  # a URL outside the policy is refused here, never requested
            why = policy.refusal(record.url)
            if why:
                bad.append(Failed(record.url, why, record))
        todo = [r for r in todo if policy.refusal(r.url) is None]
        names = _names(todo, state)
        for failure in bad:
            result.failed.append(failure)
            report(failure)
        for record in state.without_questions(records):  # fetched before, its question records not yet
            failed = _questions(client, settings, state, record)
            if failed:
                result.failed.append(failed)
                report(failed)
        with ThreadPoolExecutor(max_workers=MAX_DOWNLOADS, thread_name_prefix="legco-feed") as pool:
            futures = {
                pool.submit(_fetch, client, r, settings.inbox / names[r.hansard_id], settings): r
                for r in todo
            }
            for future in as_completed(futures):
                record = futures[future]
                outcome = _settle(future, record, names[record.hansard_id], state, settings, result)
                if outcome is not None:
                    report(outcome)
                if isinstance(
                    outcome, Fetched
                ):  # the meeting's own list of its questions, kept with the paper
                    failed = _keep_questions(future.result()[1], settings, state, record)
                    if failed:
                        result.failed.append(failed)
                        report(failed)
        state.save()
    return result


def _settle(
    future: Any, record: FeedRecord, name: str, state: FeedState, settings: Settings, result: PollResult
) -> Fetched | Failed | None:
    """Put one finished download in place and record it (in the calling thread, so the
    state is changed by one thread only); None for bytes another record already brought."""
    try:
        download: downloads.Download = future.result()[0]
    except (downloads.DownloadError, OSError) as exc:
        failed = Failed(record.url, str(exc), record)
        result.failed.append(failed)
        return failed
    twin = state.sha_owner(download.sha256)
    if twin is not None and twin != record.hansard_id:
        downloads.discard(download)
        state.add(record, state.records[twin]["file"], download.sha256, download.size, duplicate_of=twin)
        result.duplicates += 1
        return None
    target = settings.inbox / name
    written = downloads.commit(download, target)
    state.add(record, name, download.sha256, download.size)
    fetched = Fetched(record, target, download.sha256, download.size, written)
    result.fetched.append(fetched)
    return fetched


def _fetch(
    client: Any, record: FeedRecord, target: StorePath, settings: Settings
) -> tuple[downloads.Download, list[dict[str, Any]] | str]:
    """One worker's job: the paper, then its meeting's official question records (or why
    they could not be had), so that no more than :data:`MAX_DOWNLOADS` requests run at once."""
    download = downloads.download_pdf(client, record.url, target, settings)
    return download, _question_records(client, settings, record)


def _question_records(client: Any, settings: Settings, record: FeedRecord) -> list[dict[str, Any]] | str:
    try:
        return [q.to_dict() for q in fetch_questions(client, settings, record)]
    except downloads.DownloadError as exc:
        return str(exc)


def _keep_questions(
    questions: list[dict[str, Any]] | str, settings: Settings, state: FeedState, record: FeedRecord
) -> Failed | None:
    """Store a fetched paper's question records; a failure is reported (the paper stays
    fetched, and the next poll asks for its records again)."""
    if isinstance(questions, str):
        return Failed(
            f"{settings.feed_url}/Questions",
            f"official question records of HansardID {record.hansard_id}: {questions}",
            record,
        )
    state.set_questions(record, questions)
    return None


def _questions(client: Any, settings: Settings, state: FeedState, record: FeedRecord) -> Failed | None:
    return _keep_questions(_question_records(client, settings, record), settings, state, record)
