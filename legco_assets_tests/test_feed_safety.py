"""A feed that cannot be turned against us: only allowed hosts, http(s) only, redirects kept
inside them, and a download cut off as soon as it passes the size cap, leaving nothing.

The records point at the local OData server under another name (``localhost`` instead of
``127.0.0.1``: the same server, so its request counter shows whether a refused URL was ever
requested) or at another scheme.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from legco_assets.core.settings import DEFAULT_FEED_ALLOWED_HOSTS, Settings
from legco_assets.core.sources import poll
from legco_assets.core.sources.downloads import HostPolicy

from .factories import feed_settings, pdf_bytes
from .odata_server import FakeHansardServer, Fault
from .runs import inbox_files

SINCE = date(2024, 1, 1)


def _elsewhere(server: FakeHansardServer, path: str) -> str:
    """The same server under a host name the policy does not allow."""
    return server.root.replace("127.0.0.1", "localhost") + path


def test_a_record_pointing_at_another_host_is_refused_and_never_requested(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    odata_server.add_record("1001", "2024-01-10", "Chinese", pdf_bytes("good"))
    odata_server.add_file("evil.pdf", pdf_bytes("evil"))
    odata_server.add_record("1002", "2024-01-10", "English", None, name="missing.pdf")
    odata_server.records[-1]["HansardFileURL"] = _elsewhere(odata_server, "/files/evil.pdf")
    odata_server.add_record("1003", "2024-01-11", "Chinese", None, name="ftp.pdf")
    odata_server.records[-1]["HansardFileURL"] = "file:///etc/passwd"
    result = poll(feed_settings(odata_server, tmp_path), since=SINCE)
    assert [f.record.hansard_id for f in result.fetched] == ["1001"]
    reasons = {f.url: f.reason for f in result.failed}
    assert (
        "is not the feed's host nor in LEGCO_FEED_ALLOWED_HOSTS"
        in reasons[_elsewhere(odata_server, "/files/evil.pdf")]
    )
    assert reasons["file:///etc/passwd"].startswith("refused: only http(s) URLs are fetched, not file")
    assert odata_server.hits["/files/evil.pdf"] == 0, "a refused URL is never requested"
    assert inbox_files(tmp_path) == ["hansard-2024-01-10-zh.pdf"]


def test_an_allowed_host_is_fetched(odata_server: FakeHansardServer, tmp_path: Path) -> None:
    odata_server.add_file("mirror.pdf", pdf_bytes("mirror"))
    odata_server.add_record("1001", "2024-01-10", "Chinese", None, name="unused.pdf")
    odata_server.records[-1]["HansardFileURL"] = _elsewhere(odata_server, "/files/mirror.pdf")
    port = odata_server.root.rsplit(":", 1)[1]
    result = poll(
        feed_settings(odata_server, tmp_path, feed_allowed_hosts=(f"localhost:{port}",)), since=SINCE
    )
    assert [f.path.name for f in result.fetched] == ["hansard-2024-01-10-zh.pdf"] and not result.failed


def test_a_redirect_off_the_allowed_hosts_is_not_followed(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    odata_server.add_file("evil.pdf", pdf_bytes("evil"))
    odata_server.add_record("1001", "2024-01-10", "Chinese", pdf_bytes("paper"), name="paper.pdf")
    odata_server.fault("/files/paper.pdf", Fault.redirect(_elsewhere(odata_server, "/files/evil.pdf")))
    odata_server.add_record("1002", "2024-01-10", "English", pdf_bytes("en"), name="en.pdf")
    odata_server.fault("/files/en.pdf", Fault.redirect(f"{odata_server.root}/files/moved.pdf"))
    odata_server.add_file("moved.pdf", pdf_bytes("moved"))
    result = poll(feed_settings(odata_server, tmp_path), since=SINCE)
    assert [f.record.hansard_id for f in result.fetched] == ["1002"], (
        "a redirect within the feed's host is followed"
    )
    assert [f.record.hansard_id for f in result.failed] == [
        "1001"
    ] and "refused: host localhost" in result.failed[0].reason
    assert odata_server.hits["/files/evil.pdf"] == 0 and odata_server.hits["/files/moved.pdf"] == 1
    assert inbox_files(tmp_path) == ["hansard-2024-01-10-en.pdf"]


def test_an_oversize_reply_is_cut_off_and_leaves_nothing_in_the_inbox(
    odata_server: FakeHansardServer, tmp_path: Path
) -> None:
    big = pdf_bytes("big") + b"0" * (4 * 1024 * 1024)
    odata_server.add_record(
        "1001", "2024-01-10", "Chinese", big, name="declared.pdf"
    )  # with a Content-Length
    odata_server.add_record("1002", "2024-01-10", "English", None, name="streamed.pdf")
    odata_server.add_file("streamed.pdf", big, stream=True)  # no length: counted as it comes
    result = poll(feed_settings(odata_server, tmp_path, max_file_mb=0.25), since=SINCE)
    assert result.fetched == []
    reasons = {f.record.hansard_id: f.reason for f in result.failed}
    assert reasons["1001"].startswith("larger than LEGCO_MAX_FILE_MB (0.25 MB): the server declares")
    assert reasons["1002"].startswith("larger than LEGCO_MAX_FILE_MB (0.25 MB): stopped after")
    assert odata_server.hits["/files/streamed.pdf"] == 1, (
        "a file too large is not tried again in the same poll"
    )
    assert odata_server.bytes_sent["/files/streamed.pdf"] < len(big) // 2, "the download stopped early"
    assert inbox_files(tmp_path) == [], "no file, hidden or not, is left behind"


def test_the_policy_defaults_to_the_feed_host_and_legco_file_hosts() -> None:
    policy = HostPolicy.of(Settings())
    assert (
        policy.refusal("https://www.legco.gov.hk/yr12-13/chinese/counmtg/hansard/cm1121-translate-c.pdf")
        is None
    )
    assert policy.refusal("https://app.legco.gov.hk/OpenData/HansardDB/Hansard") is None
    assert policy.refusal("https://legco.gov.hk.evil.example/x.pdf") is not None
    assert policy.refusal("https://www.legco.gov.hk:8443/x.pdf") is not None, (
        "a bare host allows the default ports only"
    )
    assert policy.refusal("http://169.254.169.254/latest/meta-data") is not None
    assert Settings.from_env({}).feed_allowed_hosts == DEFAULT_FEED_ALLOWED_HOSTS
    assert Settings.from_env(
        {"LEGCO_FEED_ALLOWED_HOSTS": "files.example.org, *.cdn.example"}
    ).feed_allowed_hosts == ("files.example.org", "*.cdn.example")
    assert Settings.from_env({}).download_max_bytes == 200 * 1024 * 1024
    assert Settings.from_env({"LEGCO_MAX_FILE_MB": "5"}).download_max_bytes == 5 * 1024 * 1024
