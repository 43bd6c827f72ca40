"""Put Markdown tables into chunk text in place of the cell-per-line text they came from.

Extracted text gives a table as one cell (or a few cells) per line. :func:`embed_tables`
finds that run of lines inside a text (a page's cleaned text, or a section that may span a
page break ``"\\n\\n"``) and replaces it with the table's Markdown. Matching ignores all
whitespace (thin spaces in ``11 991``, letter-spacing, line breaks inside a cell) and the
look-alike characters :func:`preprocess.normalise_chars` repairs, and is tried two ways:

1. the cells in reading order (header, then rows) as one contiguous run of characters;
2. a run of whole lines holding exactly the table's characters in any order (PDF text order
   inside a table is not always row by row).

A table that continues on the next page (``continues_from_previous`` on the later part,
same number of columns) is stitched: the first part is replaced by one Markdown table with
the header once, and the continuation's lines are removed. When the text holds only one of
the parts, that part gets its own Markdown, so nothing is lost or duplicated across chunks.

:func:`split_markdown_table` cuts an oversized table into pieces that each repeat the header.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import replace
from functools import cached_property, lru_cache

from ..markdown_tables import to_markdown
from ..read import normalise_chars, normalise_chars_aligned
from ..records import Page, Table
from ..tokens import count_tokens

_NON_BLANK_RUN = re.compile(r"\S+")
_MIN_TABLE_CHARS = 4  # a table with fewer non-blank characters is too ambiguous to place


def _squash(text: str) -> str:
    return "".join(normalise_chars(text).split())


def table_cells(table: Table, with_header: bool = True) -> list[str]:
    """The table's non-empty cells in reading order, whitespace removed."""
    cells = list(table.header) if with_header else []
    for row in table.rows:
        cells.extend(row)
    return [s for s in (_squash(c) for c in cells) if s]


# -- locating a table inside a text ------------------------------------------------------------
class TextIndex:
    """A text prepared for locating tables: its characters without whitespace (``chars``,
    for ``str.find``), and, built only when a table is found or the in-any-order match runs
    (most texts hold no table), where each run of kept characters starts in the text and
    each line's span and character counts. Build once, locate many tables."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._normal = normalise_chars_aligned(text)
        # str.split() drops exactly the characters str.isspace() is true for
        self.chars = "".join(self._normal.split())

    @cached_property
    def _runs(self) -> tuple[list[int], list[int]]:
        """Where each run of non-blank characters starts in ``chars`` and in ``text``: a
        table's place maps back run by run (a list per character cost the chunker more than
        finding the tables; ``\\S``, like ``str.split()``, follows ``str.isspace()``)."""
        in_chars: list[int] = []
        in_text: list[int] = []
        size = 0
        for run in _NON_BLANK_RUN.finditer(self._normal):
            in_chars.append(size)
            in_text.append(run.start())
            size += run.end() - run.start()
        return in_chars, in_text

    def offset(self, k: int) -> int:
        """Offset in ``text`` of ``chars[k]``."""
        in_chars, in_text = self._runs
        run = bisect_right(in_chars, k) - 1
        return in_text[run] + k - in_chars[run]

    @cached_property
    def counts(self) -> Counter[str]:
        """How often each squashed character occurs in the whole text (the lines' counts
        summed): a table needing more of some character than that is not in the text, and
        the in-any-order match need not walk its lines."""
        return Counter(_squash(self.text))

    @cached_property
    def lines(self) -> list[tuple[int, int, Counter[str], int]]:
        """Each line's start, end, squashed character counts and squashed size."""
        lines = []
        pos = 0
        for line in self.text.split("\n"):
            squashed = _squash(line)
            lines.append((pos, pos + len(line), Counter(squashed), len(squashed)))
            pos += len(line) + 1
        return lines

    def line_at(self, offset: int) -> int:
        lo, hi = 0, len(self.lines) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.lines[mid][0] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo


@lru_cache(maxsize=8)
def text_index(text: str) -> TextIndex:
    """A text's index, kept for the few texts searched in a row: linking a table across a
    page break searches the earlier page's text, then the later one's, which is the earlier
    page of the next link."""
    return TextIndex(text)


def _line_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen ``[start, end)`` to whole lines when only whitespace lies beside it."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        line_start = start
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[end:line_end].strip():
        line_end = end
    return line_start, line_end


def _find_sequence(index: TextIndex, needle: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    pos = index.chars.find(needle)
    while pos >= 0:
        start = index.offset(pos)
        end = index.offset(pos + len(needle) - 1) + 1
        span = _line_bounds(index.text, start, end)
        if not _overlaps(span, taken):
            return span
        pos = index.chars.find(needle, pos + 1)
    return None


def _find_anagram(index: TextIndex, needle: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    """A run of whole lines holding exactly the needle's characters, in any order (PDF text
    may read a row's wrapped cells line by line across the row)."""
    target = Counter(needle)
    if not _within(target, index.counts):
        return None
    lines = index.lines
    for i, (start, _, first, size) in enumerate(lines):
        if not size or not _within(first, target):
            continue
        remaining = target.copy()
        total = 0
        for j in range(i, len(lines)):
            counts, size_j = lines[j][2], lines[j][3]
            if not _within(counts, remaining):
                break
            remaining -= counts
            total += size_j
            if total == len(needle):
                span = (start, lines[j][1])
                if not _overlaps(span, taken):
                    return span
                break
    return None


def _absorb_header(index: TextIndex, span: tuple[int, int], header: list[str]) -> tuple[int, int] | None:
    """Extend a span found for the body rows back over the header's lines: whole lines made
    only of header characters (a header cell spanning columns is repeated in ``header`` but
    printed once). None when no header line is there."""
    budget = Counter("".join(_squash(c) for c in header))
    if not budget or index.text[index.lines[index.line_at(span[0])][0] : span[0]].strip():
        return None
    line = index.line_at(span[0]) - 1
    start = None
    while line >= 0:
        begin, _, counts, size = index.lines[line]
        if size:
            if not _within(counts, budget):
                break
            budget -= counts
            start = begin
        line -= 1
    return (start, span[1]) if start is not None else None


def _within(part: Counter[str], whole: Counter[str]) -> bool:
    """``part <= whole`` for counts of characters (all positive): only ``part``'s characters
    are looked up, where ``Counter.__le__`` walks every character of ``whole`` too (a
    section's whole text, on each table it places)."""
    get = whole.get
    return all(get(ch, 0) >= n for ch, n in part.items())


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in taken)


def locate_table(
    text: str | TextIndex, table: Table, taken: list[tuple[int, int]] | None = None
) -> tuple[int, int] | None:
    """Char span of ``table``'s raw text inside ``text`` (whole lines where possible), or
    None. Tried in order: header and rows as one run (in reading order, then in any order);
    the rows, extended back over the header's lines; for a continuation part, the rows
    alone (a page need not repeat the header)."""
    index = text if isinstance(text, TextIndex) else text_index(text)
    taken = taken or []
    needle = "".join(table_cells(table))
    if len(needle) >= _MIN_TABLE_CHARS:
        span = _find_sequence(index, needle, taken) or _find_anagram(index, needle, taken)
        if span:
            return span
    body = "".join(table_cells(table, with_header=False))
    if len(body) < _MIN_TABLE_CHARS:
        return None
    span = _find_sequence(index, body, taken) or _find_anagram(index, body, taken)
    if span is None:
        return None
    widened = _absorb_header(index, span, table.header)
    if widened and not _overlaps(widened, taken):
        return widened
    return span if table.continues_from_previous else None


# -- stitching parts that continue across pages -----------------------------------------------
def table_chains(tables: list[Table]) -> list[list[Table]]:
    """Group tables into chains: a part with ``continues_from_previous`` on the page after
    the previous part (same number of columns) joins that part's chain."""
    ordered = sorted(range(len(tables)), key=lambda i: (tables[i].page, (tables[i].bbox or [0, 0])[1], i))
    chains: list[list[Table]] = []
    last_on_page: dict[int, list[Table]] = {}
    for i in ordered:
        table = tables[i]
        previous = last_on_page.get(table.page - 1)
        if (
            table.continues_from_previous
            and previous
            and previous[-1].page == table.page - 1
            and previous[-1].width == table.width
        ):
            previous.append(table)
            chain = previous
        else:
            chain = [table]
            chains.append(chain)
        last_on_page[table.page] = chain
    return chains


def _same_header(a: list[str], b: list[str]) -> bool:
    return [_squash(c) for c in a] == [_squash(c) for c in b]


def stitch(chain: list[Table]) -> Table:
    """One table from the parts of a chain: the first part's header once, then every row
    (a continuation's repeated header row is dropped)."""
    first = chain[0]
    rows = [list(r) for r in first.rows]
    for part in chain[1:]:
        part_rows = [list(r) for r in part.rows]
        if part_rows and _same_header(part_rows[0], first.header):
            part_rows = part_rows[1:]
        if not _same_header(part.header, first.header) and any(_squash(c) for c in part.header):
            part_rows.insert(0, list(part.header))
        rows.extend(part_rows)
    return replace(first, rows=rows, markdown=to_markdown(first.header, rows))


# -- replacing ---------------------------------------------------------------------------------
def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Replace non-overlapping spans: a table gets a blank line either side, a removed
    continuation leaves one paragraph break; the rest of the text is kept as it was."""
    return _apply_placed(text, edits)[0]


def _apply_placed(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, dict[int, int]]:
    """:func:`_apply`, and where each edit's new text starts in the result (by the edit's
    start in ``text``)."""
    out = ""
    pos = 0
    pending_break = False
    placed: dict[int, int] = {}

    def emit(segment: str) -> None:
        nonlocal out, pending_break
        if pending_break:
            segment = segment.lstrip()
            if not segment:
                return
            out = out.rstrip() + ("\n\n" if out.strip() else "")
            pending_break = False
        out += segment

    for start, end, new in sorted(edits):
        emit(text[pos:start])
        if new:
            out = out.rstrip()
            out += "\n\n" if out else ""
            placed[start] = len(out)
            out += new
        pending_break = True
        pos = end
    emit(text[pos:])
    return out, placed


def _plan(text: str, tables: list[Table]) -> tuple[list[tuple[int, int, str]], int]:
    edits: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    embedded = 0
    text_index = TextIndex(text)
    for chain in table_chains(tables):
        spans = []
        for part in chain:
            span = locate_table(text_index, part, taken)
            if span:
                taken.append(span)
            spans.append(span)
        found = [(part, span) for part, span in zip(chain, spans) if span]
        if not found:
            continue
        # consecutive found parts are stitched; a gap (a part outside this text) breaks the run,
        # and so does a part found anywhere but right after the one before it
        runs: list[list[tuple[Table, tuple[int, int]]]] = []
        previous_index = None
        for index, (part, span) in enumerate(zip(chain, spans)):
            if span is None:
                previous_index = None
                continue
            if (
                previous_index is not None
                and previous_index == index - 1
                and _follows(text, runs[-1][-1][1], span, chain[0].header)
            ):
                runs[-1].append((part, span))
            else:
                runs.append([(part, span)])
            previous_index = index
        for run in runs:
            parts = [p for p, _ in run]
            if parts[0] is chain[0]:
                markdown = stitch(parts).markdown if len(parts) > 1 else parts[0].markdown
            else:
                # a continuation without its first part: give it the chain's header
                head = stitch([chain[0], *parts])
                markdown = to_markdown(head.header, head.rows[len(chain[0].rows) :])
            first_span = run[0][1]
            edits.append((first_span[0], first_span[1], markdown))
            for _, span in run[1:]:
                edits.append((span[0], span[1], ""))
            embedded += 1
    return edits, embedded


GAP_CHARS = 40  # text a page break may leave between a table's parts: a "continued" line, a page number


def _follows(text: str, before: tuple[int, int], span: tuple[int, int], header: list[str]) -> bool:
    """Whether the part at ``span`` goes on right after the part at ``before``: only a page
    break (and a short line such as ``（續）`` or a page number, or the ``header`` printed again
    on the later page, a cell a line) between them. A part whose
    rows are found pages later (the same rows printed again in a supplement) is not
    stitched there: it keeps its place, with the table's header."""
    if before[1] > span[0]:
        return False
    between = text[before[1] : span[0]].strip()
    if len(between) <= GAP_CHARS and "\n" not in between:
        return True
    return _within(Counter(_squash(between)), Counter(_squash("".join(header))))  # the header printed again


def embed_tables(text: str, tables: list[Table]) -> tuple[str, int]:
    """Replace each table's raw text in ``text`` by its Markdown (stitching continued parts).

    Returns the new text and how many tables were embedded (a stitched table counts once).
    Tables whose text is not in ``text`` are ignored, so callers may pass every table of the
    document.
    """
    if not tables or not text:
        return text, 0
    edits, embedded = _plan(text, tables)
    if not edits:
        return text, 0
    return _apply(text, edits), embedded


def embed_tables_in_pages(pages: list[Page], tables: list[Table]) -> list[Page]:
    """Pages with ``cleaned`` holding Markdown tables (for the token strategy).

    A table continued on the next page is stitched onto the page where it starts, and its
    continuation lines are removed from the later page.
    """
    return weave_pages(pages, tables)[0]


def weave_pages(
    pages: list[Page], tables: list[Table]
) -> tuple[list[Page], dict[int, list[tuple[int, int, int]]]]:
    """:func:`embed_tables_in_pages`, and by page number the spans of its ``cleaned`` that
    are printed on another page, ``(start, end, page)``: a stitched table's rows from a
    later page (``DocumentText.from_pages`` takes them, so a chunk that holds only those
    rows starts on the page they are printed on, not the one the table starts on)."""
    woven, elsewhere, _ = weave_pages_placed(pages, tables)
    return woven, elsewhere


def weave_pages_placed(
    pages: list[Page], tables: list[Table]
) -> tuple[list[Page], dict[int, list[tuple[int, int, int]]], dict[int, list[tuple[int, int, int]]]]:
    """:func:`weave_pages`, and by page number where each Markdown table lies in the woven
    ``cleaned``, ``(start, end, number)``: ``number`` is its chain's place in
    :func:`table_chains` from 1, the number :func:`.typed.typed_tables` gives the same table,
    so a window over those characters can name the typed table it holds without matching
    its text (a window that starts in the rows holds no header to match)."""
    by_number = {p.number: p for p in pages}
    edits: dict[int, list[tuple[int, int, str]]] = {p.number: [] for p in pages}
    rows_of: dict[tuple[int, int], list[tuple[int, int, int]]] = {}  # (page, edit start) -> row spans
    number_of: dict[tuple[int, int], int] = {}  # (page, edit start) -> the table's chain number
    taken: dict[int, list[tuple[int, int]]] = {p.number: [] for p in pages}
    indexes: dict[int, TextIndex] = {}
    for number, chain in enumerate(table_chains(tables), start=1):
        located = []
        for part in chain:
            page = by_number.get(part.page)
            if page is not None and part.page not in indexes:
                indexes[part.page] = TextIndex(page.cleaned)
            span = locate_table(indexes[part.page], part, taken[part.page]) if page else None
            if span:
                taken[part.page].append(span)
            located.append((part, span))
        index = 0
        while index < len(located):
            part, span = located[index]
            if span is None:
                index += 1
                continue
            run = [(part, span)]
            while index + len(run) < len(located) and located[index + len(run)][1] is not None:
                run.append(located[index + len(run)])
            parts = [p for p, _ in run]
            if index == 0:
                markdown = stitch(parts).markdown if len(parts) > 1 else parts[0].markdown
                head: list[Table] = []
            else:
                whole = stitch([chain[0], *parts])
                markdown = to_markdown(whole.header, whole.rows[len(chain[0].rows) :])
                head = [chain[0]]
            skip = len(chain[0].rows) if head else 0
            counts = [len(stitch([*head, *parts[: k + 1]]).rows) - skip for k in range(len(parts))]
            edits[parts[0].page].append((span[0], span[1], markdown))
            rows_of[(parts[0].page, span[0])] = _rows_printed_elsewhere(markdown, parts, counts)
            number_of[(parts[0].page, span[0])] = number
            for later, later_span in run[1:]:
                edits[later.page].append((later_span[0], later_span[1], ""))
            index += len(run)
    out: list[Page] = []
    elsewhere: dict[int, list[tuple[int, int, int]]] = {}
    places: dict[int, list[tuple[int, int, int]]] = {}
    for page in pages:
        page_edits = edits[page.number]
        if not page_edits:
            out.append(Page(number=page.number, raw=page.raw, cleaned=page.cleaned))
            continue
        woven, placed = _apply_placed(page.cleaned, page_edits)
        lead = len(woven) - len(woven.lstrip())
        length = {start: len(new) for start, _, new in page_edits}
        for start, at in placed.items():
            for s, e, printed in rows_of.get((page.number, start), []):
                elsewhere.setdefault(page.number, []).append((at + s - lead, at + e - lead, printed))
            number = number_of[(page.number, start)]
            places.setdefault(page.number, []).append((at - lead, at + length[start] - lead, number))
        out.append(Page(number=page.number, raw=page.raw, cleaned=woven.strip()))
    return out, elsewhere, {n: sorted(spans) for n, spans in places.items()}


def _rows_printed_elsewhere(
    markdown: str, parts: list[Table], counts: list[int]
) -> list[tuple[int, int, int]]:
    """Spans of ``markdown`` (header, separator, then one line per row) holding the rows of
    ``parts`` after the first, with the page each is printed on; ``counts[k]`` is how many
    rows the parts up to ``k`` make."""
    line_starts = [0]
    for line in markdown.split("\n"):
        line_starts.append(line_starts[-1] + len(line) + 1)
    spans = []
    for k in range(1, len(parts)):
        first_row, end_row = counts[k - 1], counts[k]
        if end_row > first_row and parts[k].page != parts[0].page:
            spans.append((line_starts[2 + first_row], line_starts[2 + end_row] - 1, parts[k].page))
    return spans


# -- splitting an oversized table ---------------------------------------------------------------
def split_markdown_table(markdown: str, max_tokens: int) -> list[str]:
    """The table whole when it fits in ``max_tokens``; otherwise pieces of whole rows, each
    starting with the header row and separator. A single row longer than the limit becomes
    a piece of its own (rows are never cut)."""
    markdown = markdown.strip("\n")
    if count_tokens(markdown) <= max_tokens:
        return [markdown]
    lines = markdown.split("\n")
    if len(lines) < 3:
        return [markdown]
    head = lines[:2]
    head_tokens = count_tokens("\n".join(head) + "\n")
    pieces: list[list[str]] = []
    current: list[str] = []
    used = head_tokens
    for row in lines[2:]:
        cost = count_tokens(row + "\n")
        if current and used + cost > max_tokens:
            pieces.append(current)
            current, used = [], head_tokens
        current.append(row)
        used += cost
    if current:
        pieces.append(current)
    # token counts of joined lines may differ slightly from the sum: move rows to fix that
    out: list[str] = []
    i = 0
    while i < len(pieces):
        rows = pieces[i]
        while len(rows) > 1 and count_tokens("\n".join(head + rows)) > max_tokens:
            moved = rows.pop()
            if i + 1 < len(pieces):
                pieces[i + 1].insert(0, moved)
            else:
                pieces.append([moved])
        out.append("\n".join(head + rows))
        i += 1
    return out
