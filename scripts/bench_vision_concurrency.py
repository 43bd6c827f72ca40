"""Bar (c): 40 table pages through the vision path with 1 s simulated latency per call.

Builds a 40-page paper with one ruled table per page (fpdf2), starts the local
OpenAI-compatible test server (``legco_assets_tests.llm_server``, in a child process, as a
remote endpoint would be) with ``--latency`` seconds per call and a reply that is the page's
correct Markdown, and times ``find_tables`` with ``LLM_MAX_CONCURRENCY`` calls in flight
(render, PNG encoding and the calls overlap). Then runs it again on the warm cache (0 calls).

    .venv/bin/python scripts/bench_vision_concurrency.py [--pages 40] [--latency 1.0] [--concurrency 8]

Prints the wall time; sequential calls alone would take pages x latency.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fpdf import FPDF  # noqa: E402

from legco_assets.core.llm import LLMClient  # noqa: E402
from legco_assets.core.read import (  # noqa: E402
    clean_pages,  # noqa: E402
    extract_document,
    read_source,
    render_page_png,
)
from legco_assets.core.tables import find_tables, geometric_tables  # noqa: E402
from legco_assets_tests.llm_server import FakeLLMServer, message_images  # noqa: E402


def build_paper(path: Path, pages: int) -> Path:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    widths = [70, 180, 110, 110]
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.text(60, 60, f"Reply to question A{n}: the figures requested are set out below.")
        rows = [["Code", "Project", "Approved budget", "2025-26 estimate"]]
        rows += [
            [
                f"P{n}-{r}",
                f"Facility improvement {r}",
                f"{(n * 37 + r * 11) % 900 + 100} {r:03d}",
                f"{r * 17 + n} 500",
            ]
            for r in range(1, 16)
        ]
        y = 80
        xs = [60]
        for w in widths:
            xs.append(xs[-1] + w)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                pdf.text(xs[c] + 3, y + r * 18 + 12, text)
        for r in range(len(rows) + 1):
            pdf.line(xs[0], y + r * 18, xs[-1], y + r * 18)
        for x in xs:
            pdf.line(x, y, x, y + len(rows) * 18)
        pdf.text(60, y + len(rows) * 18 + 20, "The figures are provisional.")
        pdf.text(280, 820, f"E-{n}")
    pdf.output(str(path))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = read_source(build_paper(Path(tmp) / "paper.pdf", args.pages))
        pages = clean_pages(extract_document(source).pages)
        geometric = geometric_tables(source.data)
        replies = {
            hashlib.sha256(render_page_png(source.data, n, 150)).hexdigest(): "\n\n".join(
                t.markdown for t in tables
            )
            for n, tables in geometric.items()
        }
        # the server runs in its own process, as a remote endpoint would: its JSON and
        # base64 work must not compete with find_tables for this process's GIL
        ctx = multiprocessing.get_context("spawn")
        to_server, from_server = ctx.Queue(), ctx.Queue()
        process = ctx.Process(target=serve, args=(replies, args.latency, to_server, from_server), daemon=True)
        process.start()
        base_url = from_server.get(timeout=60)
        try:
            from legco_assets.core.settings import Settings

            settings = Settings(
                data_dir=Path(tmp) / "data",
                llm_base_url=base_url,
                llm_model_name=FakeLLMServer.model,
                llm_api_key="bench",
                qa_vision_enabled=True,
                llm_max_concurrency=args.concurrency,
            )
            started = time.perf_counter()
            result = find_tables(source.data, pages, settings, LLMClient.from_settings(settings))
            cold = time.perf_counter() - started
            started = time.perf_counter()
            again = find_tables(source.data, pages, settings, LLMClient.from_settings(settings))
            warm = time.perf_counter() - started
        finally:
            to_server.put("stop")
            calls, max_in_flight = from_server.get(timeout=60)
            process.join(timeout=10)
        print(
            f"table pages: {len(geometric)}  latency per call: {args.latency:.1f} s  "
            f"concurrency: {args.concurrency}"
        )
        print(
            f"cold run: {cold:.2f} s wall, {result.stats.get('llm_calls', 0)} calls, "
            f"max in flight {max_in_flight}, {result.stats.get('vision_replaced', 0)} pages replaced "
            f"by vision, {len(result.warnings)} warnings "
            f"(sequential calls alone would take {len(geometric) * args.latency:.0f} s)"
        )
        print(
            f"cached re-run: {warm:.2f} s wall, "
            f"{again.stats.get('llm_calls', 0)} calls, {again.stats.get('llm_cached', 0)} cached; "
            f"server counted {calls} calls in all"
        )
        print(f"BAR (c) 40 table pages < 8 s: {'PASS' if cold < 8 else 'FAIL'} ({cold:.2f} s)")


def serve(replies: dict[str, str], latency: float, inbox, outbox) -> None:
    """The test server in a child process: answers each page image with its Markdown."""
    with FakeLLMServer(latency=latency) as server:
        server.responder = lambda messages: replies[hashlib.sha256(message_images(messages)[0]).hexdigest()]
        outbox.put(server.base_url)
        inbox.get()
        outbox.put((server.calls["chat"], server.max_in_flight))


if __name__ == "__main__":
    main()
