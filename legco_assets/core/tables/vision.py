"""Read tables from page images with a vision LLM, validated against the page's own text.

Pages go through :meth:`LLMClient.complete` (cache key = sha256 of the page PNG + model +
:data:`PROMPT_VERSION`), up to ``settings.llm_max_concurrency`` at a time: pages are rendered
one by one on the calling thread (PDFium is not thread-safe) and each is submitted to a thread
pool as soon as it is rendered; the workers encode the PNG (the same bytes as
:func:`extract.render_page_png` at ``settings.image_dpi``) and make the call, so rendering,
encoding and calls overlap. Retries on 429/5xx/timeouts
are the ``openai`` client's. A reply replaces the geometric tables of its page only when it is
valid: at least one Markdown table with two or more columns and a body row, every cell of
which appears in the page's text layer (whitespace ignored). Anything else (a failed call, a
budget reached, no table, invented text) keeps the geometric result and adds a warning.
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from ..llm import LLMClient, LLMError
from ..markdown_tables import to_markdown
from ..read import normalise_chars
from ..records import Page, Table
from ..settings import Settings

KIND = "vision_tables"
PROMPT_VERSION = "vision-tables-v1"
NO_TABLES = "NO_TABLES"
SYSTEM_PROMPT = (
    "You transcribe tables from an image of one page of a Hong Kong Legislative Council paper "
    "into GitHub-flavoured Markdown.\n"
    "Rules:\n"
    "- Reply with Markdown tables only: no prose, no code fences, no headings, no notes.\n"
    "- One Markdown table per table on the page, in reading order, separated by a blank line.\n"
    "- The first row is the table's header. If the header has several rows, merge them into one "
    "row, joining the texts of each column with a space.\n"
    "- Copy every cell's text exactly as printed (Traditional Chinese stays Traditional; keep "
    "numbers such as 11 991 or 1,234.5 as one cell with their spacing and punctuation).\n"
    "- A cell spanning several rows or columns appears once, in its first row and column; the "
    "other cells it covers are empty.\n"
    "- Do not add, translate, summarise or compute anything.\n"
    f"- If the page has no table, reply exactly {NO_TABLES}."
)
USER_PROMPT = "Transcribe every table on this page as Markdown tables."

_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*$")
_SIGNIFICANT = re.compile(r"[0-9A-Za-z\u3400-\u9fff\uf900-\ufaff]")


@dataclass
class VisionOutcome:
    """Per page, the tables read from the image (only pages with a valid reply)."""

    tables: dict[int, list[Table]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    pages: int = 0
    counts: dict[str, int] = field(default_factory=dict)


def _split_row(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells = re.split(r"(?<!\\)\|", line)
    return [c.strip().replace("\\|", "|") for c in cells]


def parse_markdown_tables(reply: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every ``(header, rows)`` Markdown table in ``reply`` (a table needs a separator row)."""
    lines = [ln for ln in reply.replace("\r\n", "\n").split("\n") if not _FENCE.match(ln.strip())]
    tables: list[tuple[list[str], list[list[str]]]] = []
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if "|" in line and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1].strip()):
            header = _split_row(line)
            rows: list[list[str]] = []
            j = i + 2
            while j < len(lines) and lines[j].strip() and "|" in lines[j]:
                rows.append(_split_row(lines[j]))
                j += 1
            width = max([len(header)] + [len(r) for r in rows])
            header += [""] * (width - len(header))
            rows = [r + [""] * (width - len(r)) for r in rows]
            tables.append((header, rows))
            i = j
        else:
            i += 1
    return tables


def _squash(text: str) -> str:
    return "".join(normalise_chars(text).split())


def cell_in_text(cell: str, page_text: str) -> bool:
    """The cell's text occurs in the page text (``page_text`` already squashed), as a whole
    or word by word; cells with no letter, digit or ideograph (✓, —) always pass."""
    squashed = _squash(cell)
    if not squashed or not _SIGNIFICANT.search(squashed) or squashed in page_text:
        return True
    words = [_squash(w) for w in cell.split()]
    return len(words) > 1 and all(w in page_text for w in words if w)


def validate_reply(reply: str, page_text: str) -> tuple[list[tuple[list[str], list[list[str]]]], str | None]:
    """``(tables, None)`` for a usable reply, else ``([], reason)``."""
    if reply.strip() == NO_TABLES:
        return [], "the model saw no table"
    tables = parse_markdown_tables(reply)
    if not tables:
        return [], "the reply holds no Markdown table"
    squashed = _squash(page_text)
    for header, rows in tables:
        if len(header) < 2 or not rows:
            return [], "a table in the reply has fewer than 2 columns or no rows"
        missing = [c for c in [*header, *(c for r in rows for c in r)] if not cell_in_text(c, squashed)]
        if missing:
            return [], f"{len(missing)} cell(s) not in the page text (e.g. {missing[0][:40]!r})"
    return tables, None


def ask_page(llm: LLMClient, png: bytes) -> str:
    """One page image through the cached client; raises :class:`LLMError` on failure."""
    return llm.ask_image(KIND, PROMPT_VERSION, SYSTEM_PROMPT, USER_PROMPT, png)


def _rendered_pages(
    pdf_bytes: bytes, numbers: Iterable[int], dpi: int, outcome: VisionOutcome
) -> Iterator[tuple[int, Any]]:
    """Page images (PIL), rendered on this thread: PDFium is not thread-safe. The PNG
    encoding, the slow part, happens in the workers (Pillow releases the GIL there)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        for number in numbers:
            try:
                page = pdf[number - 1]
                image = page.render(scale=dpi / 72).to_pil().copy()
                page.close()
            except Exception as exc:  # a page PDFium cannot render keeps its geometric tables
                outcome.warnings.append(
                    f"page {number}: cannot render the page image ({type(exc).__name__}); "
                    "kept geometric tables"
                )
                outcome.counts["vision_failed"] += 1
                continue
            yield number, image
    finally:
        pdf.close()


def page_png(image: Any) -> bytes:
    """The PNG bytes :func:`extract.render_page_png` gives for the same page and DPI."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _encode_and_ask(llm: LLMClient, image: Any) -> str:
    return ask_page(llm, page_png(image))


def read_tables_from_images(
    pdf_bytes: bytes,
    pages: list[Page],
    page_numbers: Iterable[int],
    settings: Settings,
    llm: LLMClient,
    geometric: dict[int, list[Table]] | None = None,
) -> VisionOutcome:
    """Ask the vision model about ``page_numbers`` (may be a lazy iterator: each page is
    rendered and sent as soon as it is yielded); see the module docstring. ``geometric`` (read
    once all pages are sent) gives a vision table the bbox of the geometric table it replaces
    when both found the same number of tables on the page."""
    text_of = {p.number: p.raw or p.cleaned for p in pages}
    geometric = {} if geometric is None else geometric  # filled lazily by the caller
    outcome = VisionOutcome(
        counts={"vision_replaced": 0, "vision_failed": 0, "vision_invalid": 0, "vision_no_table": 0}
    )
    # twice as many threads as call slots: while ``llm_max_concurrency`` threads wait on
    # replies (LLMClient's semaphore), the others encode the next pages' PNGs
    workers = 2 * max(1, settings.llm_max_concurrency)
    futures: dict[Future[str], int] = {}
    # rendered pages waiting for a thread stay few (a page image is ~6 MB at 150 DPI)
    backlog = threading.BoundedSemaphore(workers + 2)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="vision") as pool:
        for number, image in _rendered_pages(pdf_bytes, page_numbers, settings.image_dpi, outcome):
            backlog.acquire()
            future = pool.submit(_encode_and_ask, llm, image)
            future.add_done_callback(lambda _: backlog.release())
            futures[future] = number
        outcome.pages = len(futures)
        for future in as_completed(futures):
            number = futures[future]
            try:
                reply = future.result()
            except LLMError as exc:
                outcome.counts["vision_failed"] += 1
                outcome.warnings.append(f"page {number}: vision LLM failed ({exc}); kept geometric tables")
                continue
            tables, reason = validate_reply(reply, text_of.get(number, ""))
            if reason is not None:
                key = "vision_no_table" if reply.strip() == NO_TABLES else "vision_invalid"
                outcome.counts[key] += 1
                outcome.warnings.append(
                    f"page {number}: vision reply not used ({reason}); kept geometric tables"
                )
                continue
            boxes = [t.bbox for t in geometric.get(number, [])]
            outcome.tables[number] = [
                Table(
                    page=number,
                    header=header,
                    rows=rows,
                    markdown=to_markdown(header, rows),
                    method="vision",
                    bbox=boxes[i] if len(boxes) == len(tables) else None,
                )
                for i, (header, rows) in enumerate(tables)
            ]
            outcome.counts["vision_replaced"] += 1
    outcome.warnings.sort(
        key=lambda w: int(w.split()[1].rstrip(":")) if w.split()[1].rstrip(":").isdigit() else 0
    )
    return outcome
