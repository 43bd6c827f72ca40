"""The question strategy: one chunk per Q&A pair, narrative by heading, notes by bullet.

Chunks are built from the sections :mod:`structure` found (or an LLM produced):

* ``qa`` -- marker line(s) and question, then the whole answer. A pair over ``max_tokens`` is
  cut on paragraph, then line, then sentence boundaries; every piece starts with the
  question again and carries the pair's metadata plus ``part``/``parts``.
* ``narrative`` / ``table`` -- paragraph-bounded windows of ``chunk_size`` tokens, each
  starting with its section path on one line (``A > B > C``); a section never runs past a
  heading, so neither does a chunk.
* ``speaking_notes`` -- one chunk per top-level bullet, its sub-bullets included, prefixed
  with the heading.
* ``toc`` / ``heading_only`` -- no chunk.

A document without pairs falls back to its sections (``Chunk.fallback = "sections"``) or,
when it has no headings at all, to plain token windows (``"token"``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .. import markers
from ..forked import run_shared
from ..records import Chunk, DocumentText, Page, PageTables, Section, Table, join_path
from ..settings import Strategy
from ..structure import (
    SUPPLEMENTARY,
    WRITTEN,
    context_line,
    drop_internal_refs,
    join_pages,
    looks_tabular,
    question_lead,
    reply_parts,
    rule_path,
)
from ..tokens import count_tokens, encoding
from .boundaries import BOUNDARY_PATTERNS, LINE_FIRST_PATTERNS
from .internal_notes import mark_internal_notes
from .short_sections import join_short_sections
from .token_chunking import TokenChunkingStrategy, table_windows, with_paths

CHUNKED_TYPES = {"qa", "narrative", "table", "speaking_notes"}
MIN_BODY_TOKENS = 64  # below this a heading prefix is dropped rather than starve the body
SEPARATOR_SLACK = 400  # chars a piece may grow by in the document (page breaks, notes dropped)
# sections holding fewer characters are chunked in this process alone: a fork and its
# pickled chunks cost more than half of their chunking saves
SHARED_MIN_CHARS = 100_000


@dataclass
class _PageFinder:
    """Pages and characters of the successive pieces of one section.

    A piece's first and last lines are searched for in the document, moving forward from the
    previous piece, so each chunk reports the pages and the span of ``DocumentText.text`` it
    really covers (a long narrative section covers many pages; a speaking-notes bullet is one
    line of its section). Its Markdown table rows are not in the document's text (it holds the
    tables cell by cell): each row's page is the page of the table part it was read from
    (``row_pages``), so a piece of table rows claims the pages they are printed on, not the
    whole section's. When neither can be found the piece gets the section's pages and span.
    """

    doc: DocumentText
    section: Section
    valid: bool
    cursor: int = 0
    row_pages: dict[str, int] = field(default_factory=dict)  # a table row's key -> its page

    def __post_init__(self) -> None:
        self.cursor = self.section.char_start

    def locate(self, body: str) -> tuple[int, int, int, int]:
        """(page_start, page_end, char_start, char_end) of ``body``: its text lines'
        (:meth:`_text_span`) and its table rows' pages together."""
        whole = (
            self.section.start_page,
            self.section.end_page,
            self.section.char_start,
            self.section.char_end,
        )
        found = self._text_span(body)
        rows = [page for key in _row_keys(body) if (page := self.row_pages.get(key))]
        if not rows:
            return found or whole
        if found is None:
            return min(rows), max(rows), whole[2], whole[3]
        return min(found[0], *rows), max(found[1], *rows), found[2], found[3]

    def _text_span(self, body: str) -> tuple[int, int, int, int] | None:
        """Pages and span of ``body``'s text lines, found by its first and last lines long
        enough to be unambiguous (not a bare ``1`` cell; any line when none is), then widened
        to its short first and last lines (a bullet such as ``⚫ 框架包括：``); None when
        they cannot be found."""
        lines = [ln.strip() for ln in body.split("\n") if ln.strip() and not ln.lstrip().startswith("|")]
        long = [ln for ln in lines if len(ln) >= 8] or lines
        if not self.valid or not long:
            return None
        text, limit = self.doc.text, self.section.char_end
        head, tail = long[0][:120], long[-1][-120:]
        anchor = text.find(head, self.cursor, limit)
        if anchor < 0:
            return None
        first = text.rfind(lines[0][:120], self.cursor, anchor + len(head))
        start = first if first >= 0 else anchor
        window_end = min(limit, anchor + len(body) + SEPARATOR_SLACK)
        last = text.rfind(tail, anchor, window_end)
        end = last + len(tail) if last >= 0 else min(limit, anchor + len(body))
        short_tail = text.find(lines[-1][-120:], end, window_end) if lines[-1] is not long[-1] else -1
        end = short_tail + len(lines[-1][-120:]) if short_tail >= 0 else end
        self.cursor = anchor + 1
        return self.doc.page_at(start), self.doc.page_at(max(start, last)), start, end


def _row_key(cells: list[str]) -> str:
    """A table row's characters, whitespace and cell bars left out (as a Markdown row reads)."""
    return "".join("".join(cells).split()).replace("|", "").replace("\\", "")


def _row_keys(body: str) -> list[str]:
    """The keys of the Markdown data rows of ``body`` (not a header row, not a separator)."""
    lines = [ln.strip() for ln in body.split("\n")]
    keys = []
    for n, line in enumerate(lines):
        if not line.startswith("|") or markers.MARKDOWN_TABLE_RULE.match(line):
            continue
        if n + 1 < len(lines) and markers.MARKDOWN_TABLE_RULE.match(lines[n + 1]):
            continue  # a header row: a piece that goes on with the table repeats it
        keys.append(_row_key([line]))
    return keys


def _row_pages(tables: list[Table]) -> dict[str, int]:
    """Each row of ``tables`` by its key, with the page it is printed on (the first, when
    the same row is printed on more than one)."""
    pages: dict[str, int] = {}
    for table in sorted(tables, key=lambda t: t.page):
        for row in table.rows:
            pages.setdefault(_row_key(row), table.page)
    return pages


@dataclass(frozen=True)
class QuestionChunkingStrategy:
    """Chunks by question (a :class:`.Chunker`); see the module docstring for the rules."""

    max_tokens: int = 3000
    chunk_size: int = 1000
    chunk_overlap: int = 200
    include_internal_refs: bool = True
    join_tokens: int = 0  # short narrative sections joined up to this (:mod:`.short_sections`)
    name: str = Strategy.question.value
    # the sections of the pages when none are given (None: none, so token windows)
    find_sections: Callable[[list[Page]], list[Section]] | None = field(default=None, compare=False)

    def chunk(
        self,
        document_id: str,
        pages: list[Page],
        sections: list[Section] | None,
        tables: list[Table] | PageTables | None = None,
    ) -> list[Chunk]:
        """:meth:`chunk_text` of the pages joined (tables are embedded section by section, as
        far as read: ``PageTables`` may still be reading the later pages)."""
        if sections is None:
            sections = self.find_sections(pages) if self.find_sections is not None else []
        doc = DocumentText.from_pages(pages)
        return mark_internal_notes(self.chunk_text(document_id, doc, sections, tables), doc)

    def chunk_text(
        self,
        document_id: str,
        doc: DocumentText,
        sections: list[Section],
        tables: list[Table] | PageTables | None = None,
    ) -> list[Chunk]:
        """Chunks of ``doc`` in document order; ``Chunk.index`` is the position in the list.
        A section is chunked once the tables up to its last page are known (``PageTables``:
        the later pages may still be being read)."""
        tables = PageTables.of(tables)
        sections = join_short_sections(sections, doc, self.join_tokens)
        if not any(s.type == "qa" for s in sections):
            return self._fallback(document_id, doc, sections, tables)
        jobs: list[tuple[Section, Callable[[], list[Chunk]]]] = []
        question_index = 0
        for section in sections:
            if section.type == "qa":
                jobs.append(
                    (section, partial(self._qa_chunks, document_id, doc, section, question_index, tables))
                )
                question_index += 1
            elif section.type == "annex":
                jobs.append((section, partial(self._annex_chunks, document_id, doc, section, tables)))
            elif section.type in CHUNKED_TYPES:
                jobs.append((section, partial(self._section_chunks, document_id, doc, section, tables)))
        return link_annex_chunks(_numbered(_run_sections(jobs, tables)))

    # -- text of a section -------------------------------------------------------------------
    def _tidy(self, doc: DocumentText, start: int, end: int) -> str:
        text = join_pages(doc, start, end)
        return text if self.include_internal_refs else drop_internal_refs(text)

    def _spans_ok(self, doc: DocumentText, section: Section) -> bool:
        """Sections from the rules index ``doc``; ones from elsewhere may not."""
        return 0 <= section.char_start < section.char_end <= len(doc.text)

    def _section_text(self, doc: DocumentText, section: Section) -> str:
        if self._spans_ok(doc, section):
            return self._tidy(doc, section.char_start, section.char_end)
        return section.text if self.include_internal_refs else drop_internal_refs(section.text)

    def _qa_parts(self, doc: DocumentText, section: Section) -> tuple[str, str]:
        """(marker line(s) + question, answer) as they read in the paper."""
        start = section.answer_start
        if (
            self._spans_ok(doc, section)
            and start is not None
            and section.char_start < start <= section.char_end
        ):
            return self._tidy(doc, section.char_start, start), self._tidy(doc, start, section.char_end)
        text = self._section_text(doc, section)
        answer = section.answer or ""
        if answer and text.endswith(answer):
            return text[: len(text) - len(answer)].strip(), answer
        return text, ""

    # -- pairs ---------------------------------------------------------------------------------
    def _qa_chunks(
        self, document_id: str, doc: DocumentText, section: Section, question_index: int, tables: PageTables
    ) -> list[Chunk]:
        head, body = self._qa_parts(doc, section)
        if section.question_kind == SUPPLEMENTARY:
            context = context_line(section.heading, section.parent_question_id, head + body)
            head = f"{context}\n{head}"
        own_tables = _section_tables(section, tables)
        body, embedded = _embed(body, own_tables)
        has_table = section.has_table or embedded > 0 or bool(markers.MARKDOWN_TABLE_RULE.search(body))
        pieces = self._written_pieces(head, body, section) if section.question_kind == WRITTEN else []
        pieces = pieces or [(section.question or head, text, None) for text in self._qa_pieces(head, body)]
        chunks = []
        for part, (question, text, _own) in enumerate(pieces, start=1):
            chunk = _make_chunk(document_id, self.name, text, section, "qa", has_table)
            chunk.question_id = section.qa_id
            chunk.question_index = question_index
            chunk.question_text = question
            if len(pieces) > 1:
                chunk.part, chunk.parts = part, len(pieces)
            _set_council_keys(chunk, section)
            chunks.append(chunk)
        if len(pieces) > 1:
            self._piece_pages(doc, section, head, chunks, pieces, _row_pages(own_tables))
        return chunks

    def _piece_pages(
        self,
        doc: DocumentText,
        section: Section,
        head: str,
        chunks: list[Chunk],
        pieces: list[tuple[str, str, str | None]],
        row_pages: dict[str, int],
    ) -> None:
        """Pages of a pair cut into pieces: each starts on the page where the question it
        repeats starts (the part of the question for a written reply's part, else the whole
        question) and ends where its own reply text ends, so a question printed on one page
        and answered on the next is pointed at, and every page of the pair is covered. A
        piece whose own text starts two or more pages after the question starts where its
        own text does: the pages between carry none of it (the earlier pieces hold them)."""
        spans_ok = self._spans_ok(doc, section)
        finder = _PageFinder(doc, section, spans_ok, row_pages=row_pages)
        reply_starts: list[int | None] = []
        for chunk, (question, text, own) in zip(chunks, pieces):
            body = (
                own if own is not None else (text[len(head) + 1 :] if text.startswith(head + "\n") else text)
            )
            own_first, page_end, char_start, char_end = finder.locate(body)
            found = spans_ok and (char_start != section.char_start or own_first != section.start_page)
            reply_starts.append(own_first if found else None)
            asked = self._question_page(doc, section, question if own is not None else None)
            chunk.page_start = (
                own_first if found and len(reply_starts) > 1 and own_first > asked + 1 else asked
            )
            chunk.page_end = max(chunk.page_start, page_end)
            if own is not None:
                chunk.char_start, chunk.char_end = char_start, char_end
                chunk.has_table = chunk.has_table and _tabular(own)
        chunks[-1].page_end = max(chunks[-1].page_end, section.end_page)
        for before, after_start in zip(chunks, reply_starts[1:]):
            if after_start is not None:  # a page between two pieces' replies is the earlier one's
                before.page_end = max(before.page_end, after_start - 1)

    def _question_page(self, doc: DocumentText, section: Section, asked: str | None) -> int:
        """The page where ``asked`` (a part of the question) is printed, searched between the
        question's start and its reply; the question's first page when it is the whole one
        or cannot be found."""
        if not asked or not self._spans_ok(doc, section) or section.answer_start is None:
            return section.start_page
        first = next((ln.strip() for ln in asked.split("\n") if len(ln.strip()) >= 4), "")
        found = doc.text.find(first[:60], section.char_start, section.answer_start) if first else -1
        return doc.page_at(found) if found >= 0 else section.start_page

    def _qa_pieces(self, head: str, body: str) -> list[str]:
        """The pair whole, or cut so that every piece repeats the question and fits."""
        whole = f"{head}\n{body}" if body else head
        if count_tokens(whole) <= self.max_tokens:
            return [whole]
        head = _truncate(head, self.max_tokens // 2)
        budget = self.max_tokens - count_tokens(head) - 2
        body = _split_big_tables(body, budget)
        return _prefixed_windows(head, body, budget, self.max_tokens, 0, LINE_FIRST_PATTERNS)

    def _written_pieces(self, head: str, body: str, section: Section) -> list[tuple[str, str, str | None]]:
        """A written Council reply over ``max_tokens`` cut at its own parts (``(一)``, ``(1)``…),
        each piece led by the asker's label and the part of the question it answers (the
        whole question when the reply does not say which); a part still too long is cut by
        size. Empty when the pair fits or the reply has no parts: the plain rule applies (as
        it does to an oral main reply, whose pieces all repeat the whole question).
        Each item: (question shown, chunk text, the piece's own text to locate it)."""
        whole = f"{head}\n{body}" if body else head
        if count_tokens(whole) <= self.max_tokens:
            return []
        parts = reply_parts(head, body)
        if not parts:
            return []
        lead = question_lead(head)
        pieces: list[tuple[str, str, str | None]] = []
        for asked, reply in parts:
            part_head = f"{lead}{asked}" if asked else head
            question = asked or section.question or head
            for text in self._qa_pieces(part_head, reply):
                own = text[len(part_head) + 1 :] if text.startswith(part_head + "\n") else text
                pieces.append((question, text, own))
        return pieces

    def _annex_chunks(
        self, document_id: str, doc: DocumentText, section: Section, tables: PageTables
    ) -> list[Chunk]:
        """A Hansard appendix chunked like a written reply: its context line (which question,
        subject and asker it answers), label and title lead every piece; tables as Markdown."""
        head = "\n".join(
            h for h in (section.extra.get("context"), section.extra.get("annex"), section.heading) if h
        )
        own_tables = _section_tables(section, tables)
        body, embedded = _embed(
            self._tidy(doc, section.answer_start, section.char_end) if section.answer_start else "",
            own_tables,
        )
        has_table = section.has_table or embedded > 0 or bool(markers.MARKDOWN_TABLE_RULE.search(body))
        pieces = self._qa_pieces(head, body)
        finder = (
            _PageFinder(doc, section, self._spans_ok(doc, section), row_pages=_row_pages(own_tables))
            if len(pieces) > 1
            else None
        )
        chunks = []
        for part, text in enumerate(pieces, start=1):
            chunk = _make_chunk(document_id, self.name, text, section, "annex", has_table)
            chunk.question_text = section.heading
            if len(pieces) > 1:
                chunk.part, chunk.parts = part, len(pieces)
                own = text[len(head) + 1 :] if text.startswith(head + "\n") else text
                chunk.page_start, chunk.page_end, chunk.char_start, chunk.char_end = finder.locate(own)  # type: ignore[union-attr]
            chunk.annex = section.extra.get("annex") or None
            chunk.answers_question_id = section.extra.get("answers_question_id") or None
            chunks.append(chunk)
        return _cover_section_pages(chunks, section)

    # -- narrative, tables, speaking notes -----------------------------------------------------------
    def _section_chunks(
        self,
        document_id: str,
        doc: DocumentText,
        section: Section,
        tables: PageTables,
        fallback: str | None = None,
    ) -> list[Chunk]:
        own_tables = _section_tables(section, tables)
        text, embedded = _embed(self._section_text(doc, section), own_tables)
        has_table = section.has_table or embedded > 0 or bool(markers.MARKDOWN_TABLE_RULE.search(text))
        prefix = _heading_prefix(section)
        body = _strip_heading(text, section.heading)
        units = _bullet_units(body) if section.type == "speaking_notes" else [body]
        finder = _PageFinder(doc, section, self._spans_ok(doc, section), row_pages=_row_pages(own_tables))
        chunks = []
        for unit in (u for u in units if u.strip()):
            for piece in self._windows(prefix, unit):
                own = piece[len(prefix) + 1 :] if prefix and piece.startswith(prefix + "\n") else piece
                chunk = _make_chunk(
                    document_id, self.name, piece, section, section.type, has_table and _tabular(own)
                )
                chunk.page_start, chunk.page_end, chunk.char_start, chunk.char_end = finder.locate(own)
                chunk.fallback = fallback or None
                chunks.append(chunk)
        return _cover_section_pages(chunks, section)

    def _windows(self, prefix: str, body: str) -> list[str]:
        """``prefix`` + pieces of ``body`` of at most ``chunk_size`` tokens, cut at paragraphs."""
        whole = f"{prefix}\n{body}" if prefix else body
        if count_tokens(whole) <= self.chunk_size:
            return [whole]
        budget = self.chunk_size - count_tokens(prefix) - 2 if prefix else self.chunk_size
        if budget < MIN_BODY_TOKENS:
            prefix, budget = "", self.chunk_size
        overlap = min(self.chunk_overlap, budget // 2)
        body = _split_big_tables(body, budget)
        return _prefixed_windows(prefix, body, budget, self.chunk_size, overlap, BOUNDARY_PATTERNS)

    # -- documents without pairs -------------------------------------------------------------
    def _fallback(
        self, document_id: str, doc: DocumentText, sections: list[Section], tables: PageTables
    ) -> list[Chunk]:
        """Sections when the paper has headings; token windows when it has none."""
        structured = any(s.heading for s in sections if s.type in CHUNKED_TYPES | {"toc"})
        if structured:
            jobs: list[tuple[Section, Callable[[], list[Chunk]]]] = [
                (s, partial(self._section_chunks, document_id, doc, s, tables, fallback="sections"))
                for s in sections
                if s.type in CHUNKED_TYPES
            ]
            return _numbered(_run_sections(jobs, tables))
        return self._token_fallback(document_id, doc, tables, sections)

    def _token_fallback(
        self, document_id: str, doc: DocumentText, tables: PageTables, sections: list[Section]
    ) -> list[Chunk]:
        if tables.all():
            doc = _embedded_doc(doc, tables.all())
        overlap = min(self.chunk_overlap, self.chunk_size - 1)
        chunks = TokenChunkingStrategy(self.chunk_size, overlap, self.name, table_rows=True).chunk_text(
            document_id, doc
        )
        for chunk in chunks:
            chunk.section_type = "narrative"
            chunk.fallback = "token"
        return with_paths(chunks, doc, sections)


# -- helpers ------------------------------------------------------------------------------------
def _run_sections(jobs: list[tuple[Section, Callable[[], list[Chunk]]]], tables: PageTables) -> list[Chunk]:
    """The chunks of each section in order, the sections shared with a forked copy of this
    process when the text is long enough (:func:`.forked.run_shared`: the sections are
    independent, and the same chunks come back either way). The tables are all read first
    then: the table workers' threads would rule the fork out, and the chunking they let
    begin early is done faster on two cores."""
    work = sum(len(s.text) for s, _ in jobs)
    if work >= SHARED_MIN_CHARS:
        tables.all()
    parts = run_shared([job for _, job in jobs], work, SHARED_MIN_CHARS)
    return [chunk for part in parts for chunk in part]


def _numbered(chunks: list[Chunk]) -> list[Chunk]:
    for index, chunk in enumerate(chunks):
        chunk.index = index
    return chunks


def _make_chunk(
    document_id: str, strategy: str, text: str, section: Section, section_type: str, has_table: bool
) -> Chunk:
    path = rule_path(section)
    return Chunk(
        document_id=document_id,
        strategy=strategy,
        index=0,
        text=text,
        page_start=section.start_page,
        page_end=section.end_page,
        section_type=section_type,
        token_count=count_tokens(text),
        has_table=has_table,
        section_heading=path[-1] if path else None,
        char_start=section.char_start,
        char_end=section.char_end,
        section_path=path,
    )


OFFICIAL_KEYS = ("official_subject", "speaker_id", "rundown_id")  # LegCo's own record of the question


def _set_council_keys(chunk: Chunk, section: Section) -> None:
    """A Council exchange's keys on its chunk (None, so absent from the record, elsewhere or
    when empty); the appendices it points to (``annexes``, labels) become ``annex_ids`` in
    :func:`link_annex_chunks`."""
    chunk.question_kind = section.question_kind or None
    chunk.parent_question_id = section.parent_question_id or None
    chunk.asker = section.asker or None
    chunk.answerer = section.answerer or None
    chunk.official_subject, chunk.speaker_id, chunk.rundown_id = (
        _given(section.extra.get(k)) for k in OFFICIAL_KEYS
    )
    chunk.annex_labels = list(section.extra.get("annexes") or [])


def _given(value: Any) -> Any:
    """None for a missing or empty value (a key absent from the record, never empty)."""
    return None if value == "" else value


def link_annex_chunks(chunks: list[Chunk]) -> list[Chunk]:
    """The exchange's ``annexes`` labels turned into ``annex_ids``, the ids of its appendices'
    chunks (known only once the chunks are numbered)."""
    by_label: dict[str, list[str]] = {}
    for chunk in chunks:
        if chunk.section_type == "annex" and chunk.answers_question_id:
            by_label.setdefault(chunk.annex or "", []).append(chunk.id)
    for chunk in chunks:
        ids = [i for label in chunk.annex_labels for i in by_label.get(label, [])]
        chunk.annex_ids = ids or None
    return chunks


def _cover_section_pages(chunks: list[Chunk], section: Section) -> list[Chunk]:
    """Make a section's pieces cover all its pages: the first starts where the section
    starts, the last ends where it ends, and a page between two pieces (where the found lines
    were Markdown or a rewritten note) belongs to the piece before it."""
    if not chunks:
        return chunks
    chunks[0].page_start = section.start_page
    chunks[-1].page_end = max(chunks[-1].page_end, section.end_page)
    for before, after in zip(chunks, chunks[1:]):
        before.page_end = max(before.page_end, after.page_start - 1)
    return chunks


def _tabular(text: str) -> bool:
    """Whether one piece of a section holds (part of) its table."""
    return bool(markers.MARKDOWN_TABLE_RULE.search(text)) or looks_tabular(text)


def _section_tables(section: Section, tables: PageTables) -> list[Table]:
    return [t for t in tables.upto(section.end_page) if section.start_page <= t.page <= section.end_page]


def _embed(text: str, tables: list[Table]) -> tuple[str, int]:
    """Markdown in place of the tables' cell-per-line text (the table stage's own function)."""
    if not tables:
        return text, 0
    from ..tables import embed_tables

    return embed_tables(text, tables)


def _embedded_doc(doc: DocumentText, tables: list[Table]) -> DocumentText:
    """The document with every page's tables embedded, for token windows."""
    from ..records import Page
    from ..tables import weave_pages

    ends = doc.page_starts[1:] + [len(doc.text) + len(doc.separator)]
    pages = [
        Page(number=n + 1, raw="", cleaned=doc.text[start : end - len(doc.separator)])
        for n, (start, end) in enumerate(zip(doc.page_starts, ends))
    ]
    return DocumentText.from_pages(*weave_pages(pages, tables))


def _split_big_tables(text: str, budget: int) -> str:
    """Markdown tables longer than ``budget`` cut into header-repeating pieces, one per
    paragraph, so that a window boundary falls between pieces and every piece reads alone."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        end = k
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        if end - k >= 3 and markers.MARKDOWN_TABLE_RULE.match(lines[k + 1].strip()):
            from ..tables import split_markdown_table

            out.append("\n\n".join(split_markdown_table("\n".join(lines[k:end]), budget)))
            k = end
        else:
            out.append(lines[k])
            k += 1
    return "\n".join(out)


def _truncate(text: str, max_tokens: int) -> str:
    """``text`` cut to ``max_tokens`` (a question longer than half a chunk is rare)."""
    tokens = encoding().encode(text, disallowed_special=())
    if len(tokens) <= max_tokens:
        return text
    return encoding().decode(tokens[: max_tokens - 1]).rstrip("\ufffd") + "…"


def _prefixed_windows(
    prefix: str, body: str, budget: int, limit: int, overlap: int, patterns: tuple
) -> list[str]:
    """Windows of ``body`` with ``prefix`` in front, shrinking the budget until each fits.

    A slice's token count can differ from its count inside the whole text, so each piece is
    checked; a piece over ``limit`` shrinks the budget by a tenth and the cut is redone.
    """
    while True:
        spans = table_windows(body, max(1, budget), min(overlap, max(0, budget - 1)), patterns)
        pieces = [_with_header(header, body[a:b].strip()) for a, b, header in spans]
        pieces = [f"{prefix}\n{p}" if prefix else p for p in pieces if p]
        if all(count_tokens(p) <= limit for p in pieces) or budget <= 1:
            return pieces
        budget = int(budget * 0.9)


def _with_header(header: str, piece: str) -> str:
    """A piece that continues a table led by the table's header again (none for a blank piece)."""
    return f"{header}\n{piece}" if header and piece else piece


def _heading_prefix(section: Section) -> str:
    """The context line of narrative and notes chunks: the section path on one line
    (``A > B > C``), so a chunk read alone says where in the paper it is."""
    return join_path(rule_path(section))


def _strip_heading(text: str, heading: str | None) -> str:
    """``text`` without its leading heading line(s), which the prefix repeats."""
    if not heading:
        return text
    target = "".join(heading.split())
    seen = ""
    lines = text.split("\n")
    for n, line in enumerate(lines[:4]):
        seen += "".join(line.split())
        if seen == target:
            return "\n".join(lines[n + 1 :]).strip()
        if not target.startswith(seen):
            break
    return text


def _bullet_units(text: str) -> list[str]:
    """Speaking notes split into top-level bullets, each with its sub-bullets.

    A bullet that ends with a colon opens a sub-list; the sub-list's glyph (``➢``, ``•``,
    ``i.``) keeps its items under the parent until a bullet with another glyph appears.
    Text before the first bullet is a unit of its own.
    """
    units: list[list[str]] = [[]]
    parent_glyph: str | None = None
    child_glyph: str | None = None
    opens_list = False
    for line in text.split("\n"):
        m = markers.BULLET.match(line)
        glyph = _glyph_kind(m["glyph"]) if m else None
        if glyph and child_glyph is None and opens_list and glyph != parent_glyph:
            child_glyph = glyph
        if glyph is None or glyph == child_glyph:
            units[-1].append(line)
        else:
            parent_glyph, child_glyph = glyph, None
            units.append([line])
        opens_list = bool(markers.CLAUSE_END.search(line)) and child_glyph is None
    return ["\n".join(u).strip() for u in units if "".join(u).strip()]


def _glyph_kind(glyph: str) -> str:
    """``i.``, ``ii.``, ``(iii)`` are one kind of bullet."""
    stripped = glyph.strip("().")
    return "roman" if stripped and set(stripped) <= set("ivx") else glyph
