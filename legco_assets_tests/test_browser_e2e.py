"""End to end in a real browser: dagster dev, the inbox sensor, and the chunks asset page.

Starts ``dagster dev`` on 127.0.0.1 with a temporary ``DAGSTER_HOME`` and data dir, drops a
paper into the inbox, waits for the sensor's run (token strategy) and for the question
strategy's run that ``strategy_chain_sensor`` requests after it, through Dagster's GraphQL
API, then drives
Debian's headless Chromium (Playwright's Python package with ``executable_path``) to the
``chunks`` page of that partition, checks the metadata preview shows the question ids and
clicks a chunk's excerpt link, which ``make ui``'s ``legco-assets serve`` (started here too, its
URL as ``EXCERPTS_BASE_URL``) answers with the chunk's own excerpt: its pages, only its highlight.
Screenshots go to a temporary folder, or to ``LEGCO_SCREENSHOTS`` (``make screenshots``:
``docs/screenshots/``, which the README and the docs pages embed; ``servers.screenshots_dir``). Run alone with
``pytest -m browser``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from legco_assets.core.excerpts import highlight_pages

from .conftest import REPO, fixture_pdf
from .servers import screenshots_dir

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _graphql(base: str, query: str) -> dict:
    request = urllib.request.Request(
        f"{base}/graphql",
        data=json.dumps({"query": query}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)


def _wait(predicate, timeout: float, what: str, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except OSError:
            pass
        time.sleep(2)
    raise AssertionError(f"timed out waiting for {what}; dagster dev log tail:\n{log.read_text()[-3000:]}")


@pytest.fixture
def dagster_dev(tmp_path: Path):
    """``dagster dev`` in its own process group, killed whole at the end."""
    port = _free_port()
    data = tmp_path / "data"
    serve_port = _free_port()
    (data / "inbox").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    env = {
        **os.environ,
        "DAGSTER_HOME": str(tmp_path / "home"),
        "LEGCO_DATA_DIR": str(data),
        "LEGCO_INBOX": str(data / "inbox"),
        "EXCERPTS_BASE_URL": f"http://127.0.0.1:{serve_port}/",
    }
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "CHROMA_HOST", "EMBEDDING_BASE_URL"):
        env.pop(name, None)
    excerpts = subprocess.Popen(  # make ui's search server, which answers the excerpt links
        [sys.executable, "-m", "legco_assets.cli", "serve", "--port", str(serve_port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    log = tmp_path / "dagster-dev.log"
    dagster = Path(sys.executable).with_name("dagster")
    with log.open("w") as out:
        process = subprocess.Popen(
            [str(dagster), "dev", "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(
            lambda: urllib.request.urlopen(f"{base}/server_info", timeout=5).status == 200,
            180,
            "the webserver",
            log,
        )
        _wait(
            lambda: (
                urllib.request.urlopen(f"http://127.0.0.1:{serve_port}/api/documents", timeout=5).status
                == 200
            ),
            120,
            "legco-assets serve",
            log,
        )
        yield base, data / "inbox", log
    finally:
        os.killpg(excerpts.pid, signal.SIGTERM)
        excerpts.wait(timeout=30)
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _finished_run(base: str, sensor: str) -> dict | None:
    """The latest run ``sensor`` requested, once it has ended."""
    runs = _graphql(base, "{ runsOrError { ... on Runs { results { runId status tags { key value } } } } }")
    results = runs["data"]["runsOrError"]["results"]
    mine = [r for r in results if {"key": "dagster/sensor_name", "value": sensor} in r["tags"]]
    return mine[0] if mine and mine[0]["status"] in {"SUCCESS", "FAILURE", "CANCELED"} else None


def _dismiss_popups(page) -> None:
    """The UI greets a new browser profile with a newsletter dialog, shortly after load."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.get_by_role("button", name="Skip").first.click(timeout=10_000)
    except PlaywrightTimeout:
        pass


def test_sensor_run_shows_question_ids_on_the_chunks_page(dagster_dev, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    base, inbox, log = dagster_dev
    gold = json.loads(fixture_pdf("paper_b_speaking_notes.gold.json").read_text(encoding="utf-8"))
    shutil.copy(fixture_pdf("paper_b_speaking_notes.pdf"), inbox / "LegCo 問答 paper B.pdf")
    run = _wait(lambda: _finished_run(base, "inbox_sensor"), 420, "the sensor's run", log)
    tags = {t["key"]: t["value"] for t in run["tags"]}
    assert run["status"] == "SUCCESS", f"run {run['runId']} ended {run['status']}:\n{log.read_text()[-3000:]}"
    assert tags["dagster/partition"] == "legco-問答-paper-b" and tags["legco/strategy"] == "token"
    # LEGCO_SENSOR_STRATEGIES (token,question): strategy_chain_sensor runs the question strategy next
    chained = _wait(
        lambda: _finished_run(base, "strategy_chain_sensor"), 420, "the question strategy's run", log
    )
    chained_tags = {t["key"]: t["value"] for t in chained["tags"]}
    assert chained["status"] == "SUCCESS", (
        f"run {chained['runId']} ended {chained['status']}:\n{log.read_text()[-3000:]}"
    )
    assert (
        chained_tags["dagster/partition"] == tags["dagster/partition"]
        and chained_tags["legco/strategy"] == "question"
    )

    shots = screenshots_dir(tmp_path / "screenshots")
    key = urllib.parse.quote(tags["dagster/partition"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{base}/assets/vector_index?view=lineage&lineageScope=upstream&lineageDepth=6")
        page.get_by_text("document_structure").first.wait_for(timeout=60_000)
        _dismiss_popups(page)
        page.wait_for_timeout(1500)
        page.screenshot(path=str(shots / "asset-graph.png"))
        _a_check_not_run_is_not_executed(page, base, shots)
        _the_strategy_is_on_each_result(page, base, key, shots)

        page.goto(f"{base}/assets/chunks?view=partitions&partition={key}")
        page.get_by_text("preview").first.wait_for(timeout=60_000)
        _dismiss_popups(page)
        # the UI shows Markdown of 1,000 characters or more behind "[Show Markdown]" (a dialog);
        # the preview, with its excerpt links, is that long
        page.locator("tr", has_text="preview").get_by_text("[Show Markdown]").first.click()
        page.get_by_role("dialog").get_by_text(gold["pairs"][0]["qa_id"], exact=True).first.wait_for(
            timeout=30_000
        )
        for pair in gold["pairs"]:
            assert page.get_by_role("dialog").get_by_text(pair["qa_id"], exact=True).count() >= 1, pair[
                "qa_id"
            ]
        links = page.get_by_role("dialog").locator("a[href*='/excerpt/']")
        assert links.count() >= len(gold["pairs"]), "each chunk's excerpt link"
        page.get_by_text(gold["pairs"][-1]["qa_id"], exact=True).first.scroll_into_view_if_needed()
        page.wait_for_timeout(1000)
        page.screenshot(path=str(shots / "chunks-partition.png"))

        # the last chunk's excerpt: an http link (the UI blanks file:// ones) to the chunk's own
        # excerpt, which legco-assets serve cuts: its pages, only its highlight
        link = links.last
        href = link.get_attribute("href") or ""
        assert href.startswith("http://127.0.0.1:") and "/excerpt/" in href and ":question:" in href, href
        with (
            page.context.expect_page() as opened,
            page.context.expect_event("response", lambda r: "/excerpt/" in r.url) as answered,
        ):
            link.click(modifiers=["Shift"])  # a new window, whatever target the UI gives the link
        reply = answered.value
        assert reply.status == 200
        pdf = opened.value
        pdf.wait_for_load_state()
        # the PDF viewer's document (Playwright shows no headers of a response it hands to it)
        assert pdf.url == href and pdf.evaluate("document.contentType") == "application/pdf", (pdf.url, href)
        pdf.set_viewport_size({"width": 1200, "height": 900})
        pdf.wait_for_timeout(3000)
        pdf.screenshot(path=str(shots / "excerpt_link.png"))
        chunk_id = urllib.parse.unquote(href.rsplit("/excerpt/", 1)[1])
        assert list(highlight_pages(page.context.request.get(href).body())) == [chunk_id]
        browser.close()


def _status(page, label: str):
    """The check's Partitions tab filter with this label (``Skipped (1)``), exactly."""
    return page.locator("label", has_text=re.compile(rf"^{re.escape(label)}$"))


def _a_check_not_run_is_not_executed(page, base: str, shots: Path) -> None:
    """Paper B has no LegCo records, so questions_match_open_data could not run: its
    Partitions tab counts the paper under Skipped, not under Failed nor Passed, and its
    execution history says Skipped."""
    page.goto(f"{base}/assets/document_structure?view=checks&checkDetail=questions_match_open_data")
    page.get_by_text("questions_match_open_data").first.wait_for(timeout=60_000)
    _dismiss_popups(page)
    page.get_by_role("tab", name="Partitions").last.click()
    _status(page, "Skipped (1)").first.wait_for(timeout=60_000)
    for label in ("Failed (0)", "Execution Failed (0)", "Passed (0)"):
        assert _status(page, label).count() == 1, f"{label} on the check's Partitions tab"
    page.wait_for_timeout(1000)
    page.screenshot(path=str(shots / "check-not-executed.png"))
    page.get_by_role("tab", name="Execution history").click()
    history = page.locator("table")
    history.get_by_text("Skipped", exact=True).first.wait_for(timeout=60_000)
    assert history.get_by_text("Failed", exact=True).count() == 0
    assert history.get_by_text("Passed", exact=True).count() == 0


def _the_strategy_is_on_each_result(page, base: str, key: str, shots: Path) -> None:
    """The latest chunks materialisation (question, chained after token) names its
    strategy and shows the token strategy's state too; each chunk check result names its
    strategy in the check's execution history."""
    page.goto(f"{base}/assets/chunks?view=partitions&partition={key}")
    page.get_by_text("strategies").first.wait_for(timeout=60_000)
    _dismiss_popups(page)
    strategy = page.locator("tr").filter(has=page.locator("td", has_text=re.compile(r"^\s*strategy\s*$")))
    assert "question" in strategy.first.inner_text(), "strategy: question in the materialisation's metadata"
    both = page.locator("tr", has_text="strategies").first
    assert "token" in both.inner_text() and "question (this run)" in both.inner_text()
    page.goto(f"{base}/assets/chunks?view=checks&checkDetail=no_empty_chunk")
    page.get_by_text("no_empty_chunk").first.wait_for(timeout=60_000)
    page.get_by_role("tab", name="Execution history").click()
    for name in ("question", "token"):
        page.get_by_text(f"{name}: 0 empty chunk(s)").first.wait_for(timeout=60_000)
    page.wait_for_timeout(1000)
    page.screenshot(path=str(shots / "check-strategy.png"))


def test_a_check_result_shows_its_paper(dagster_dev, tmp_path: Path) -> None:
    """Checks are partitioned as their assets, so a check's result names the
    paper it belongs to. A paper that leaks a page label into a chunk is ingested through the
    CLI into the instance the UI reads; its ``no_footer_leaked`` warning, opened from the
    check's page (its execution history), shows its partition."""
    from playwright.sync_api import sync_playwright

    from .pdf_factory import make_pdf

    base, inbox, log = dagster_dev
    data = inbox.parent
    page_lines = [
        "Opening paragraph of the paper, with enough words to be real text.",
        "E-3",
        "Closing paragraph of the page.",
    ]
    paper = make_pdf(data.parent / "papers" / "leaky paper.pdf", [page_lines, page_lines], footer=None)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(data.parent / "home"),
        "LEGCO_DATA_DIR": str(data),
        "LEGCO_INBOX": str(inbox),
    }
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "CHROMA_HOST", "EMBEDDING_BASE_URL"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", "ingest", str(paper), "--strategy", "token"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "legco-assets: warning: " in done.stderr and "no_footer_leaked" in done.stderr, done.stderr

    shots = screenshots_dir(tmp_path / "screenshots")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(f"{base}/assets/chunks?view=checks&checkDetail=no_footer_leaked")
        page.get_by_text("no_footer_leaked").first.wait_for(timeout=60_000)
        _dismiss_popups(page)
        page.get_by_role("tab", name="Execution history").click()
        row = page.locator("tr", has_text="leaky-paper")
        row.first.wait_for(timeout=60_000)
        assert row.first.is_visible(), "the result names its paper (its partition), not 'Partition —'"
        page.wait_for_timeout(1000)
        page.screenshot(path=str(shots / "check_partition.png"))
        browser.close()
