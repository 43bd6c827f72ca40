"""The LegCo Hansard feed against a local OData server: paging, filters, faults, state.

Everything goes through the real client code (httpx, tenacity) to 127.0.0.1; nothing reaches
the internet. Short timeouts and back-off keep the fault tests fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from legco_assets.core.settings import Settings
from legco_assets.core.sources import FeedError, legco_feed, parse_meeting_date, parse_types, poll

from .factories import FEED_TIMEOUT_S, feed_settings, pdf_bytes
from .odata_server import FEED_PATH, FakeHansardServer, Fault
from .runs import inbox_files


def feed_env(server_url: str, root: Path) -> dict[str, str]:
    return {
        **os.environ,
        "LEGCO_DATA_DIR": str(root / "data"),
        "LEGCO_INBOX": str(root / "data" / "inbox"),
        "LEGCO_FEED_URL": server_url,
        "LEGCO_FEED_TIMEOUT_S": str(FEED_TIMEOUT_S),
        "LEGCO_FEED_RETRIES": "2",
        "LEGCO_FEED_BACKOFF_S": "0.01",
    }


def run_feed(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", "feed", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


# -- each poll fetches exactly the new papers, through the command line -----------------------
def test_feed_polls_fetch_exactly_the_new_papers_across_pages(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    s = odata_server
    s.add_record("900", "2023-12-20", "Chinese", pdf_bytes("old"))
    zh = s.add_record("1001", "2024-01-10", "Chinese", pdf_bytes("1001"))
    s.add_record("1002", "2024-01-10", "English", pdf_bytes("1002"))
    s.add_record("1003", "2024-01-10", "Floor", pdf_bytes("1003"))
    s.add_record("1011", "2024-01-17", "Chinese", pdf_bytes("1011"))
    missing = s.add_record("1012", "2024-01-17", "English", None)  # 404
    s.fault(FEED_PATH, Fault.status(500))  # the feed's first answer is a 500, then it answers
    s.fault("/files/1011.pdf", Fault.status(503))  # and one paper's first answer too
    env = feed_env(s.base_url, tmp_path)

    first = run_feed(env, "--once", "--since", "2024-01-01")
    assert first.returncode == 1, first.stdout + first.stderr
    assert first.stderr.splitlines() == [f"legco-assets: error: {missing}: HTTP 404 Not Found"]
    assert inbox_files(tmp_path) == [
        "hansard-2024-01-10-en.pdf",
        "hansard-2024-01-10-zh.pdf",
        "hansard-2024-01-17-zh.pdf",
    ]
    inbox = tmp_path / "data" / "inbox"
    assert (inbox / "hansard-2024-01-10-zh.pdf").read_bytes() == pdf_bytes("1001")
    assert (inbox / "hansard-2024-01-17-zh.pdf").read_bytes() == pdf_bytes("1011")
    progress = [line for line in first.stdout.splitlines() if line.startswith("hansard-")]
    assert len(progress) == 3 and any(zh in line for line in progress)
    assert "fetched 3, failed 1" in first.stdout.splitlines()[-1]
    # paged: 4 matching records, 2 a page, after one 500: 1 + 2 requests, the second by nextLink
    assert s.hits[FEED_PATH] == 3 and "$skip" in s.feed_queries[-1]
    sent = s.feed_queries[1]["$filter"]
    assert (
        "MeetingDate ge datetime'2024-01-01" in sent
        and "HansardType eq 'Chinese'" in sent
        and "Floor" not in sent
    )
    assert s.hits["/files/1011.pdf"] == 2 and s.hits["/files/1003.pdf"] == 0 and s.hits["/files/900.pdf"] == 0

    # the missing file is not marked seen: the next poll asks again, and now it is there
    s.files["/files/1012.pdf"] = pdf_bytes("1012")
    second = run_feed(env, "--once")
    assert second.returncode == 0, second.stdout + second.stderr
    assert [line.split()[0] for line in second.stdout.splitlines()[:-1]] == ["hansard-2024-01-17-en.pdf"]
    assert s.hits["/files/1001.pdf"] == 1 and s.hits["/files/1012.pdf"] == 2

    third = run_feed(env, "--once")
    assert third.returncode == 0 and "fetched 0, failed 0" in third.stdout, third.stdout + third.stderr
    assert sum(n for path, n in s.hits.items() if path.startswith("/files/")) == 6, "nothing fetched twice"

    # a record published between two polls is fetched by the next one, and only it
    s.add_record("1021", "2024-01-24", "Chinese", pdf_bytes("1021"))
    fourth = run_feed(env, "--once")
    assert fourth.returncode == 0, fourth.stdout + fourth.stderr
    assert [line.split()[0] for line in fourth.stdout.splitlines()[:-1]] == ["hansard-2024-01-24-zh.pdf"]
    assert "hansard-2023-12-20-zh.pdf" not in inbox_files(tmp_path), "older than --since, never fetched"

    state = json.loads((tmp_path / "data" / "feed" / "state.json").read_text())
    assert (
        sorted(state["records"]) == ["1001", "1002", "1011", "1012", "1021"]
        and state["last_meeting_date"] == "2024-01-24"
    )
    assert (
        state["records"]["1001"]["source_url"] == zh
        and state["records"]["1001"]["meeting_date"] == "2024-01-10"
    )


def test_feed_exit_2_on_bad_arguments_unreachable_or_malformed_feed(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    env = feed_env(odata_server.base_url, tmp_path)
    bad_date = run_feed(env, "--once", "--since", "yesterday")
    assert bad_date.returncode == 2 and bad_date.stderr.startswith(
        "legco-assets: error: argument --since: not a date"
    )
    bad_type = run_feed(env, "--once", "--types", "Chinese,Klingon")
    assert bad_type.returncode == 2 and "unknown Hansard type Klingon" in bad_type.stderr
    bad_env = run_feed({**env, "LEGCO_FEED_SINCE": "last week"}, "--once")
    assert bad_env.returncode == 2 and bad_env.stderr.startswith(
        "legco-assets: error: invalid setting: LEGCO_FEED_SINCE='last week' (allowed: a date, YYYY-MM-DD)"
    )
    assert odata_server.hits[FEED_PATH] == 0, "bad arguments ask nothing"

    odata_server.fault(FEED_PATH, Fault.html())  # a portal's HTML page instead of OData JSON
    malformed = run_feed(env, "--once", "--since", "2024-01-01")
    assert (
        malformed.returncode == 2 and malformed.stderr.count("\n") == 1 and "not JSON" in malformed.stderr
    ), malformed.stderr

    odata_server.stop()  # nothing listens there any more
    unreachable = run_feed(env, "--once", "--since", "2024-01-01")
    assert unreachable.returncode == 2 and unreachable.stderr.count("\n") == 1, unreachable.stderr
    assert unreachable.stderr.startswith(
        f"legco-assets: error: feed {odata_server.base_url}/Hansard: cannot reach the server"
    )


# -- downloads: faults, temp files, concurrency --------------------------------------------
def test_an_html_page_and_a_slow_reply_are_refused_and_tried_again_next_poll(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    s = odata_server
    html = s.add_record("2001", "2024-02-01", "Chinese", pdf_bytes("2001"))
    slow = s.add_record("2002", "2024-02-01", "English", pdf_bytes("2002"))
    s.fault("/files/2001.pdf", Fault.html())
    s.fault("/files/2002.pdf", *[Fault.slow(FEED_TIMEOUT_S * 3)] * 3)  # past the timeout, every try
    settings = feed_settings(s, tmp_path)
    heard: list[object] = []
    result = poll(settings, since=date(2024, 1, 1), report=heard.append)
    reasons = {f.url: f.reason for f in result.failed}
    assert reasons[html] == "not a PDF (the reply does not start with %PDF-; it is text/html)"
    assert reasons[slow] == f"timed out after {FEED_TIMEOUT_S:g}s (3 tries)"
    assert s.hits["/files/2001.pdf"] == 1, "an HTML page is an answer, not a fault to retry"
    assert s.hits["/files/2002.pdf"] == 3 and len(heard) == 2
    assert inbox_files(tmp_path) == [], "no half file, no temporary file, no HTML page in the inbox"
    assert (
        not (settings.feed_dir / "state.json").exists()
        or json.loads((settings.feed_dir / "state.json").read_text())["records"] == {}
    )

    again = poll(settings)  # the faults are over: both are fetched by the next poll
    assert sorted(f.path.name for f in again.fetched) == [
        "hansard-2024-02-01-en.pdf",
        "hansard-2024-02-01-zh.pdf",
    ]
    assert not again.failed


def test_429_is_retried_and_a_retry_after_is_honoured_up_to_a_cap(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    odata_server.add_record("2101", "2024-02-08", "Chinese", pdf_bytes("2101"))
    odata_server.fault("/files/2101.pdf", Fault.status(429), Fault.status(502))
    result = poll(feed_settings(odata_server, tmp_path), since=date(2024, 2, 1))
    assert [f.record.hansard_id for f in result.fetched] == ["2101"] and odata_server.hits[
        "/files/2101.pdf"
    ] == 3

    from legco_assets.core.sources import downloads

    request = httpx.Request("GET", "http://127.0.0.1/x")
    asked = httpx.HTTPStatusError(
        "429", request=request, response=httpx.Response(429, headers={"Retry-After": "7"}, request=request)
    )
    assert downloads._retry_after(asked) == 7.0
    state = SimpleNamespace(attempt_number=1, outcome=SimpleNamespace(exception=lambda: asked))
    assert downloads._retrying(Settings(feed_backoff_s=0.5)).wait(state) == 7.0
    asked.response.headers["Retry-After"] = "3600"
    assert downloads._retrying(Settings()).wait(state) == downloads.MAX_WAIT_S


def test_at_most_two_downloads_at_once_and_a_limit(odata_server: FakeHansardServer, tmp_path: Path) -> None:
    for n in range(6):
        odata_server.add_record(str(3000 + n), f"2024-03-0{n + 1}", "Chinese", pdf_bytes(str(n)))
    settings = feed_settings(odata_server, tmp_path)
    limited = poll(settings, since=date(2024, 3, 1), limit=2)
    assert [f.record.hansard_id for f in sorted(limited.fetched, key=lambda f: f.record.hansard_id)] == [
        "3000",
        "3001",
    ]
    rest = poll(settings, since=date(2024, 3, 1))
    assert len(rest.fetched) == 4 and rest.already == 2
    assert odata_server.max_in_flight <= legco_feed.MAX_DOWNLOADS == 2


def test_same_bytes_are_never_put_in_the_inbox_twice(odata_server: FakeHansardServer, tmp_path: Path) -> None:
    s = odata_server
    s.add_record("4001", "2024-04-10", "Chinese", pdf_bytes("4001"))
    settings = feed_settings(s, tmp_path)
    poll(settings, since=date(2024, 4, 1))
    target = settings.inbox / "hansard-2024-04-10-zh.pdf"
    mtime = target.stat().st_mtime_ns

    # a poll killed after its rename, before its state: the next one finds the same bytes in
    # place; one killed mid-download left a temporary file, which the next poll clears
    (settings.feed_dir / "state.json").unlink()
    (settings.inbox / ".hansard-2024-04-10-zh.pdf.999.1.part").write_bytes(b"%PDF-1.7 half")
    recovered = poll(settings, since=date(2024, 4, 1))
    assert [f.written for f in recovered.fetched] == [False] and target.stat().st_mtime_ns == mtime
    assert inbox_files(tmp_path) == ["hansard-2024-04-10-zh.pdf"]

    # a new record id with the bytes of one already fetched brings no second file
    s.add_record("4002", "2024-04-11", "Chinese", pdf_bytes("4001"))
    twin = poll(settings)
    assert (
        twin.duplicates == 1 and not twin.fetched and inbox_files(tmp_path) == ["hansard-2024-04-10-zh.pdf"]
    )
    # two different papers of one type on one day keep both, the second named by its id
    s.add_record("4003", "2024-04-10", "Chinese", pdf_bytes("4003"))
    both = poll(settings)
    assert [f.path.name for f in both.fetched] == ["hansard-2024-04-10-zh-4003.pdf"]


def test_a_mirror_that_ignores_the_filter_is_filtered_here(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    """A static mirror answers every query with the same JSON: dates and types still hold."""
    s = odata_server
    s.add_record("5001", "2023-05-01", "Chinese", pdf_bytes("5001"))
    s.add_record("5002", "2024-05-01", "Floor", pdf_bytes("5002"))
    s.add_record("5003", "2024-05-01", "English", pdf_bytes("5003"))
    paging_only = s._feed_page
    s._feed_page = lambda query: paging_only({k: v for k, v in query.items() if k == "$skip"})  # type: ignore[method-assign]
    result = poll(feed_settings(s, tmp_path), since=date(2024, 1, 1))
    assert [f.record.hansard_id for f in result.fetched] == ["5003"]


def test_a_next_link_that_never_ends_is_a_feed_error(odata_server: FakeHansardServer, tmp_path: Path) -> None:
    odata_server.add_record("6001", "2024-06-01", "Chinese", pdf_bytes("6001"))
    odata_server._feed_page = lambda query: {"value": [], "odata.nextLink": "Hansard?$skip=0"}  # type: ignore[method-assign]
    with pytest.raises(FeedError, match="odata.nextLink loops"):
        poll(feed_settings(odata_server, tmp_path), since=date(2024, 1, 1))


def test_a_second_poll_at_the_same_time_waits_its_turn(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    settings = feed_settings(odata_server, tmp_path)
    with legco_feed._one_poll_at_a_time(settings):
        with pytest.raises(legco_feed.FeedBusy):
            poll(settings, since=date(2024, 1, 1))


# -- records ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("/Date(1704844800000)/", date(2024, 1, 10)),
        ("/Date(1704816000000+0800)/", date(2024, 1, 10)),  # 2024-01-09T16:00Z is the 10th in Hong Kong
        ("2024-01-10T00:00:00", date(2024, 1, 10)),
        ("2024-01-10T00:00:00Z", date(2024, 1, 10)),
    ],
)
def test_both_odata_date_forms(value: str, expected: date) -> None:
    assert parse_meeting_date(value) == expected


def test_types_and_records_are_checked() -> None:
    assert parse_types("english, chinese") == ("English", "Chinese")
    with pytest.raises(ValueError, match="valid: Chinese, English, Floor"):
        parse_types("Chinese,Minutes")
    with pytest.raises(ValueError, match="record without HansardFileURL"):
        legco_feed.parse_record(
            {"HansardID": 1, "MeetingDate": "2024-01-10T00:00:00", "HansardType": "Chinese"}
        )
    record = legco_feed.parse_record(
        {
            "HansardID": 7,
            "MeetingDate": "/Date(1704844800000)/",
            "HansardType": "English",
            "HansardFileURL": "u",
        }
    )
    assert record.base_name() == "hansard-2024-01-10-en.pdf"


def test_first_poll_without_since_looks_back_a_month_then_from_the_last_date() -> None:
    state = legco_feed.FeedState.__new__(legco_feed.FeedState)
    state.records, state.floor = {}, None
    settings = Settings()
    assert legco_feed.start_date(state, settings, None, today=date(2024, 3, 31)) == date(2024, 3, 1)
    assert legco_feed.start_date(state, settings.with_(feed_since="2024-01-01"), None) == date(2024, 1, 1)
    state.records = {"1": {"meeting_date": "2024-03-20"}}
    state.floor = "2024-01-01"
    assert legco_feed.start_date(state, settings, None) == date(2024, 1, 1), (
        "never before the earliest date asked for"
    )
    state.floor = "2020-01-01"
    assert legco_feed.start_date(state, settings, None) == date(2023, 3, 20)


def test_a_feed_that_is_not_odata_is_a_feed_error(odata_server: FakeHansardServer, tmp_path: Path) -> None:
    odata_server._feed_page = lambda query: {"error": "no such entity set"}  # type: ignore[method-assign]
    with pytest.raises(FeedError, match="not an OData reply"):
        poll(feed_settings(odata_server, tmp_path), since=date(2024, 1, 1))
