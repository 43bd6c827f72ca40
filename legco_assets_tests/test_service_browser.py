"""The search page in a real browser: headless Chromium types a question in
Chinese and one in English into ``/``, reads the results (title, section path, pages, the
passage with the query's words marked) and clicks a result's excerpt link, which opens the
chunk's own excerpt (a PDF for a PDF paper). Screenshots go to a temporary folder; set
``LEGCO_SCREENSHOTS=docs/screenshots`` to refresh ``docs/screenshots/search-page.png``.
Run alone with ``pytest -m browser``."""

from __future__ import annotations

import shutil
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from legco_assets.core.excerpts import highlight_pages

from .conftest import store_settings
from .servers import SearchService, screenshots_dir, search_service

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


@pytest.fixture(scope="module")
def service(served_store: Path) -> Iterator[SearchService]:
    with search_service(store_settings(served_store)) as running:
        yield running


def assert_opened_excerpt_is_the_chunks(content_type: str, body: bytes, chunk: dict) -> None:
    """What the clicked excerpt must be: a PDF of only the chunk's pages (within its span),
    every page carrying its highlight, and no other chunk's highlight."""
    assert content_type == "application/pdf" and body.startswith(b"%PDF")
    pages = highlight_pages(body)
    assert list(pages) == [chunk["id"]], list(pages)  # only this chunk's highlight
    assert pages[chunk["id"]] == set(range(1, len(pages[chunk["id"]]) + 1))  # on every page cut
    span = chunk["metadata"]["page_end"] - chunk["metadata"]["page_start"] + 1
    assert len(pages[chunk["id"]]) <= span


def test_search_page_in_chinese_and_english_and_open_an_excerpt(
    service: SearchService, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    shots = screenshots_dir(tmp_path / "screenshots")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        page.goto(service.base + "/")
        assert "papers stored" in page.locator("#results").inner_text()

        page.fill("#q", "水浸黑點")
        page.select_option("#strategy", "question")
        page.click("#go")
        page.wait_for_selector(".hit")
        first = page.locator(".hit").first
        assert first.locator(".title").inner_text().endswith("立法會發展事務委員會")
        assert first.locator("mark").first.inner_text() == "水浸黑點"
        assert "p. 1" in first.locator(".pages").inner_text()
        page.screenshot(path=str(shots / "search-page.png"), full_page=False)

        page.fill("#speaker", "陳大文議員")  # nobody speaks in these papers: the filter holds
        page.click("#go")
        page.wait_for_selector("#results .note")
        assert "No passage matches" in page.locator("#results").inner_text()
        assert page.locator("#speaker").input_value() == "陳大文議員"
        page.fill("#speaker", "")

        page.fill("#q", "Can recipients in Guangdong keep the allowance?")
        page.select_option("#language", "en")
        page.click("#go")
        page.wait_for_selector(".hit")
        english = page.locator(".hit").first
        assert "LC Paper No." in english.locator(".title").inner_text()
        marked = {m.lower() for m in english.locator("mark").all_inner_texts()}
        assert {"guangdong", "allowance"} & marked, marked
        link = english.locator("a.excerpt")
        href = link.get_attribute("href") or ""
        assert href.startswith("/excerpt/sample-en-qa:question:"), href
        chunk_id = urllib.parse.unquote(href.removeprefix("/excerpt/"))
        with (
            page.context.expect_page() as opened,
            page.context.expect_event("response", lambda r: "/excerpt/" in r.url) as answered,
        ):
            link.click()  # the link opens a new tab
        reply = answered.value
        assert reply.status == 200
        tab = opened.value
        tab.wait_for_load_state()
        assert tab.evaluate("document.contentType") == "application/pdf"  # the browser's PDF viewer
        # the viewer is handed the bytes; the same URL fetched again gives them to the test
        again = page.context.request.get(reply.url)
        chunk = page.context.request.get(f"{service.base}/api/chunks/{urllib.parse.quote(chunk_id)}").json()
        assert_opened_excerpt_is_the_chunks(again.headers["content-type"], again.body(), chunk)
        tab.wait_for_timeout(2000)
        tab.screenshot(path=str(shots / "search-excerpt.png"))
        browser.close()
