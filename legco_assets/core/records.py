"""The records that flow between stages, as plain dataclasses with JSON round-trips.

Every stage writes one of these to the data dir and the next stage reads it back, so a
Dagster asset can re-run from stored upstream results without re-parsing the PDF.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar


def _from_dict(cls: type, data: dict[str, Any]) -> Any:
    """Build a dataclass from a dict, ignoring keys a newer/older version added."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class Page:
    """One page's text: ``raw`` as extracted, ``cleaned`` without footers/headers.

    ``headings``: the headings the source marks up as such (HTML ``h1``-``h6``), in order,
    each ``{"line": index in raw.split("\\n"), "level": 1-6, "text": the line}``; each is a
    line of its own in the text. Empty for sources without marked-up headings (PDF)."""

    number: int  # 1-based
    raw: str
    cleaned: str = ""
    # heading hints the reader saw on this page, outermost level 1: ``[line text, level]``
    # (PDF typography, DOCX heading styles, HTML h1-h6, Markdown #); :mod:`outline` uses them
    headings: list[list[Any]] = field(default_factory=list)
    # lines that open what follows a block of questions and answers (HTML: its list, table or
    # box closed before them): the answer before such a line ends there (:mod:`outline`)
    breaks: list[str] = field(default_factory=list)
    # the PDF page's text layer maps its glyphs to no characters (read.unreadable_text): its
    # text is left out, as a scanned page's, and a vision model transcribes it when configured
    unreadable: bool = False
    # characters of the PDF's text layer a reader cannot see (printed off the page's crop box,
    # or invisibly), left out of ``raw`` (read.visible_text)
    off_page_chars: int = 0


@dataclass
class ExtractedDocument:
    """The text layer of a document and which extractor produced it."""

    path: str
    kind: str  # pdf | docx | txt | md | html
    extractor: str  # pypdfium2 | pypdf | python-docx | text | lxml
    pages: list[Page]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExtractedDocument:
        pages = [_from_dict(Page, p) for p in data["pages"]]
        return cls(path=data["path"], kind=data["kind"], extractor=data["extractor"], pages=pages)


@dataclass
class DocumentText:
    """Cleaned pages joined into one string, with the offset where each page starts.

    Structure detection and chunking work on this one string; ``page_at`` maps any char
    offset back to its 1-based page number. ``elsewhere`` lists ``(start, end, page)`` spans
    of the string printed on another page than the one they are joined under: the rows of a
    table continued on the next page, stitched onto the page where the table starts
    (``tables.weave_pages``), are still on the next page in the paper.
    """

    text: str
    page_starts: list[int]
    separator: str = "\n\n"
    elsewhere: list[tuple[int, int, int]] = field(default_factory=list)

    @classmethod
    def from_pages(
        cls, pages: list[Page], elsewhere: dict[int, list[tuple[int, int, int]]] | None = None
    ) -> DocumentText:
        """``elsewhere``: by page number, spans of that page's ``cleaned`` printed on another
        page (``(start, end, page)``)."""
        parts: list[str] = []
        starts: list[int] = []
        moved: list[tuple[int, int, int]] = []
        pos = 0
        for i, page in enumerate(pages):
            if i:
                parts.append("\n\n")
                pos += 2
            starts.append(pos)
            moved.extend((pos + s, pos + e, p) for s, e, p in (elsewhere or {}).get(page.number, []))
            parts.append(page.cleaned)
            pos += len(page.cleaned)
        return cls(text="".join(parts), page_starts=starts, elsewhere=sorted(moved))

    def page_at(self, offset: int) -> int:
        """1-based page of the character at ``offset``."""
        if self.elsewhere:
            k = bisect.bisect_right(self.elsewhere, (offset, float("inf"), 0)) - 1
            if k >= 0 and self.elsewhere[k][0] <= offset < self.elsewhere[k][1]:
                return self.elsewhere[k][2]
        return max(1, bisect.bisect_right(self.page_starts, offset))

    def span_pages(self, start: int, end: int) -> tuple[int, int]:
        """First and last page holding non-blank text of ``text[start:end]`` (the lowest and
        highest page any of its characters is printed on)."""
        segment = self.text[start:end]
        lead = len(segment) - len(segment.lstrip())
        trail = len(segment) - len(segment.rstrip())
        first = start + lead
        last = max(first, end - trail - 1)
        if not self.elsewhere:
            return self.page_at(first), self.page_at(last)
        cuts = {first, last + 1} | {s for s in self.page_starts if first < s <= last}
        cuts |= {x for s, e, _ in self.elsewhere for x in (s, e) if first < x <= last}
        bounds = sorted(cuts)
        pages = [self.page_at(a) for a, b in zip(bounds, bounds[1:]) if self.text[a:b].strip()]
        return (min(pages), max(pages)) if pages else (self.page_at(first), self.page_at(last))


@dataclass
class Table:
    """A table found on a page, as rows of cells and as Markdown."""

    page: int
    header: list[str]
    rows: list[list[str]]
    markdown: str
    method: str  # geometric | heuristic | vision
    bbox: list[float] | None = None  # x0, top, x1, bottom in PDF points
    continues_from_previous: bool = False
    # the header rows as printed when there are several (``header`` joins them per column);
    # None for a one-row header, and then absent from tables.json
    header_levels: list[list[str]] | None = None

    @property
    def width(self) -> int:
        """Columns: the widest of the header and the rows (parts of one table across a page
        break must have the same width)."""
        return max([len(self.header)] + [len(r) for r in self.rows])

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if self.header_levels is None:
            del data["header_levels"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        return _from_dict(cls, data)


class PageTables:
    """A document's tables, page by page in page order, read only as far as asked.

    Why: ``chunk_file`` gets a long PDF's tables from worker processes that read the pages
    front to back; handed over this way, the question chunker can chunk the first sections
    while the last pages are still being read, instead of after all of them. ``source``
    yields ``(page number, tables on it)`` for every page in order (empty lists included,
    so that the end of a page is known without waiting for the next table).
    """

    def __init__(self, source: Iterable[tuple[int, list[Table]]]) -> None:
        self._source = iter(source)
        self._read: list[Table] = []
        self._through = 0  # every page up to this one has been read
        self._done = False

    @classmethod
    def of(cls, tables: Iterable[Table] | PageTables | None) -> PageTables:
        """Tables already at hand (any order), or a PageTables as it is."""
        if isinstance(tables, PageTables):
            return tables
        by_page: dict[int, list[Table]] = {}
        for table in tables or []:
            by_page.setdefault(table.page, []).append(table)
        return cls(sorted(by_page.items(), key=lambda item: item[0]))

    def upto(self, page: int) -> list[Table]:
        """Every table on pages up to ``page``, in page order."""
        while not self._done and self._through < page:
            try:
                number, tables = next(self._source)
            except StopIteration:
                self._done = True
                break
            self._read.extend(tables)
            self._through = number
        return self._read

    def all(self) -> list[Table]:
        """Every table of the document (reads the rest)."""
        for number, tables in self._source:
            self._read.extend(tables)
            self._through = number
        self._done = True
        return self._read


@dataclass
class Section:
    """One unit of document structure; the question strategy chunks these.

    ``char_start``/``char_end`` index :attr:`DocumentText.text`; ``answer_start`` is where the
    answer begins inside that span (None when the section is not a pair).
    """

    type: str  # qa | narrative | speaking_notes | table | toc | heading_only
    heading: str | None
    parent_topic: str | None
    start_page: int
    end_page: int
    char_start: int
    char_end: int
    text: str
    qa_id: str | None = None
    question: str | None = None
    answer: str | None = None
    answer_start: int | None = None
    has_table: bool = False
    source: str = "rules"  # rules | llm
    # Council proceedings only (see core/structure/council.py): main | supplementary | written, the
    # main question's qa_id on a supplementary, and the speakers' labels as printed
    question_kind: str | None = None
    parent_question_id: str | None = None
    asker: str | None = None
    answerer: str | None = None
    level: int | None = None  # depth of ``heading`` in the outline (1 = outermost); None: no heading
    path: list[str] = field(default_factory=list)  # headings above and including this one, outermost first
    # links found after the rules (absent keys when none): on a Council exchange ``annexes``
    # (appendix labels it points to) and LegCo's own record of the question (``official_subject``,
    # ``speaker_id``, ``rundown_id``); on an ``annex`` section its ``annex`` label,
    # ``answers_question_id`` and ``context`` line (core/structure/annexes.py, official_match.py)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.extra:  # structure.json of papers without links reads as before
            del data["extra"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Section:
        return _from_dict(cls, data)


# a section path (:attr:`Section.path`, :attr:`Chunk.section_path`) as one string, for stores
# that keep scalars only
PATH_SEPARATOR = " > "


def join_path(path: list[str]) -> str:
    return PATH_SEPARATOR.join(path)


def split_path(value: str | list[str] | None) -> list[str]:
    """A path stored as ``A > B`` (Chroma) back to a list; a list stays a list."""
    if not value:
        return []
    if isinstance(value, list):
        return value
    return [part for part in value.split(PATH_SEPARATOR) if part]


# The chunk record's version: a constant of the code, not a key of each record, so the JSON
# form stays the one docs/design.md#chunk-record describes; it changes when a key changes meaning or goes.
RECORD_VERSION = 1


@dataclass
class ChunkMetadata:
    """A chunk record's ``metadata`` (docs/design.md#chunk-record): every key it may carry, named.

    The field order is the JSON order: the keys every chunk has, then the Q&A and span keys,
    the Council, LegCo-record, appendix and fallback keys the question chunker sets, and last
    the keys later stages add (the excerpt link, then the other language's chunk in Chroma).
    :meth:`to_json` leaves a key out when it is None: Q&A-only keys are absent, not empty,
    on other chunks."""

    # defaults only so that a partial record (an older store, a test's hand-made one) reads
    strategy_type: str = ""
    section_type: str = ""
    has_table: bool = False
    page_start: int = 1
    page_end: int = 1
    chunk_index: int = 0
    token_count: int = 0
    filename: str = ""
    content_sha256: str = ""
    is_latest_version: bool = True
    section_path: list[str] = field(default_factory=list)  # outermost heading first, on every chunk
    question_id: str | None = None
    question_index: int | None = None
    question_text: str | None = None
    section_heading: str | None = None  # the last element of ``section_path``
    part: int | None = None  # a pair or section cut into pieces: this piece of ``parts``
    parts: int | None = None
    char_start: int | None = None  # the span of the document's joined text the chunk covers
    char_end: int | None = None
    # Council proceedings: main | supplementary | written; the main question's id on a
    # supplementary (ids like ``1-S2``); the speakers' labels as printed
    question_kind: str | None = None
    parent_question_id: str | None = None
    asker: str | None = None
    answerer: str | None = None
    # the speakers' names in the form matched across papers (titles and honours off, case
    # folded: core/structure/paper_facts.speaker_key); ``asker``/``answerer`` keep the printed form
    asker_name: str | None = None
    answerer_name: str | None = None
    # everyone but the chair who speaks in the chunk, as printed, in order of speaking: a
    # debate's speeches too, and the speech still going on where the chunk starts
    # (core/structure/speakers.py); absent when nobody does
    speakers: list[str] | None = None
    # LegCo's own record of the question, fetched with the paper
    official_subject: str | None = None
    speaker_id: int | str | None = None
    rundown_id: int | str | None = None
    annex_ids: list[str] | None = None  # on an exchange: the chunk ids of the appendices it points to
    annex: str | None = None  # on an appendix's chunks: its label, and the exchange it answers
    answers_question_id: str | None = None
    fallback: str | None = None  # question strategy on a paper without pairs: sections | token
    # the paper's (core/structure/paper_facts.py), on each of its chunks: its date at the
    # precision printed (2013-01-09, 2026-04, 2019), day | month | year, its kind, its LC Paper number
    date: str | None = None
    date_precision: str | None = None
    kind: str | None = None
    paper_number: str | None = None
    summary: str | None = None  # an LLM's sentences, with QA_CHUNK_SUMMARIES (chunking/summaries.py)
    # internal notes (``[Internal reference…]``) in the text: ``[start, end)`` of each, and True;
    # absent on a chunk without one (core/chunking/internal_notes.py)
    internal_spans: list[list[int]] | None = None
    has_internal_refs: bool | None = None
    # the typed tables (``<document_id>:table:<n>``) a token window overlaps, and the first
    # one's header row and separator as printed: context beside the text, never in it
    # (core/chunking/window_tables.py); absent on a window without a table
    table_ids: list[str] | None = None
    table_header: str | None = None
    chunk_file_path: str | None = None  # its own excerpt's URL path (excerpt/<id>) below EXCERPTS_BASE_URL
    counterpart_document_id: str | None = None  # the other language's version, when stored
    counterpart_id: str | None = None  # its chunk that matches this one

    # always in the JSON, even when None (a record read from an older store may lack one)
    REQUIRED: ClassVar[tuple[str, ...]] = (
        "strategy_type",
        "section_type",
        "has_table",
        "page_start",
        "page_end",
        "chunk_index",
        "token_count",
        "filename",
        "content_sha256",
        "is_latest_version",
        "section_path",
    )
    # lists of chunk and table ids, which Chroma stores joined with a space (an id holds none)
    ID_LISTS: ClassVar[tuple[str, ...]] = ("annex_ids", "table_ids")
    ID_LIST_SEPARATOR: ClassVar[str] = " "
    # lists of spans and of names (which may hold spaces), which Chroma stores as a JSON string
    # (``[[12, 80]]``, ``["MR ALAN LEONG"]``)
    JSON_LISTS: ClassVar[tuple[str, ...]] = ("internal_spans", "speakers")

    def to_json(self) -> dict[str, Any]:
        """The JSON form: required keys always, the others only when set, in the fields'
        order (their names listed once: a long paper's thousand records asked for them each)."""
        required = self.REQUIRED
        out: dict[str, Any] = {}
        for name in _METADATA_FIELDS:
            value = getattr(self, name)
            if value is not None or name in required:
                out[name] = list(value) if isinstance(value, list) else value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChunkMetadata:
        """Read back; a key this version does not know (an older or newer store) is ignored."""
        return _from_dict(cls, dict(data))

    def to_chroma(self) -> dict[str, Any]:
        """Chroma stores scalars only: ``section_path`` joined with :data:`PATH_SEPARATOR`, the
        id lists with a space."""
        return self.scalars(self.to_json())

    @classmethod
    def scalars(cls, meta: Mapping[str, Any]) -> dict[str, Any]:
        """Metadata in its JSON form (or as read from Chroma and changed) as Chroma takes it."""
        out = dict(meta)
        if isinstance(out.get("section_path"), list):
            out["section_path"] = join_path(out["section_path"])
        for key in cls.ID_LISTS:
            if isinstance(out.get(key), list):
                out[key] = cls.ID_LIST_SEPARATOR.join(out[key])
        for key in cls.JSON_LISTS:
            if isinstance(out.get(key), list):
                out[key] = json.dumps(out[key])
        return out

    @classmethod
    def chroma_json(cls, meta: Mapping[str, Any]) -> dict[str, Any]:
        """Chroma's scalars back as the JSON form has them (lists again); other keys kept."""
        out = dict(meta)
        if "section_path" in out:
            out["section_path"] = split_path(out["section_path"])
        for key in cls.ID_LISTS:
            if isinstance(out.get(key), str):
                out[key] = out[key].split(cls.ID_LIST_SEPARATOR)
        for key in cls.JSON_LISTS:
            if isinstance(out.get(key), str):
                out[key] = json.loads(out[key])
        return out


@dataclass
class ChunkRecord:
    """The chunk record (docs/design.md#chunk-record): what ``legco-assets chunk`` prints, ``chunks-*.jsonl``
    holds and Chroma stores (with :meth:`to_chroma`), typed. Version :data:`RECORD_VERSION`."""

    id: str  # <document_id>:<strategy>:<index>
    document_id: str
    text: str
    page_number: int  # the page the chunk starts on
    metadata: ChunkMetadata

    VERSION: ClassVar[int] = RECORD_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "document_id": self.document_id,
            "text": self.text,
            "page_number": self.page_number,
            "metadata": self.metadata.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ChunkRecord:
        meta = ChunkMetadata.from_json(data.get("metadata") or {})
        return cls(
            data["id"],
            data.get("document_id", ""),
            data["text"],
            data.get("page_number", meta.page_start),
            meta,
        )

    @classmethod
    def of(cls, record: ChunkRecord | Mapping[str, Any]) -> ChunkRecord:
        """A record as it is, or read from its JSON form (a ``chunks-*.jsonl`` line)."""
        return record if isinstance(record, ChunkRecord) else cls.from_json(record)

    def to_chroma(self) -> dict[str, Any]:
        """The metadata Chroma stores for this chunk: scalars, with the record's
        ``document_id`` and ``page_number`` (filters and the way back)."""
        return {**self.metadata.to_chroma(), "document_id": self.document_id, "page_number": self.page_number}

    @classmethod
    def from_chroma(cls, chunk_id: str, text: str, metadata: Mapping[str, Any]) -> ChunkRecord:
        """Chroma's (id, document, metadata) back into the record."""
        meta = ChunkMetadata.chroma_json(metadata)
        page = metadata.get("page_number", metadata.get("page_start"))
        return cls(chunk_id, str(metadata.get("document_id")), text, page, ChunkMetadata.from_json(meta))  # type: ignore[arg-type]


@dataclass
class Chunk:
    """A retrieval unit; :meth:`to_record` gives its chunk record (docs/design.md#chunk-record)."""

    document_id: str
    strategy: str
    index: int
    text: str
    page_start: int
    page_end: int
    section_type: str
    token_count: int
    has_table: bool = False
    question_id: str | None = None
    question_index: int | None = None
    question_text: str | None = None
    section_heading: str | None = None
    part: int | None = None
    parts: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    section_path: list[str] = field(default_factory=list)
    # Council exchanges, LegCo's record of the question, appendices, fallbacks: as in
    # :class:`ChunkMetadata`, None where they do not apply
    question_kind: str | None = None
    parent_question_id: str | None = None
    asker: str | None = None
    answerer: str | None = None
    official_subject: str | None = None
    speaker_id: int | str | None = None
    rundown_id: int | str | None = None
    annex_ids: list[str] | None = None
    annex: str | None = None
    answers_question_id: str | None = None
    fallback: str | None = None
    internal_spans: list[list[int]] | None = None
    has_internal_refs: bool | None = None
    table_ids: list[str] | None = None
    table_header: str | None = None
    # the appendix labels an exchange points to, until the chunks are numbered and they
    # become ``annex_ids`` (not part of the record)
    annex_labels: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.document_id}:{self.strategy}:{self.index}"

    def metadata(self, filename: str, content_sha256: str, is_latest_version: bool = True) -> ChunkMetadata:
        """The record's metadata: scalars, and ``section_path`` as a list (outermost heading
        first, on every chunk; :mod:`vector_store` joins it for Chroma, which stores scalars
        only); Q&A keys are absent, not empty, elsewhere."""
        return ChunkMetadata(
            strategy_type=self.strategy,
            section_type=self.section_type,
            has_table=self.has_table,
            page_start=self.page_start,
            page_end=self.page_end,
            chunk_index=self.index,
            token_count=self.token_count,
            filename=filename,
            content_sha256=content_sha256,
            is_latest_version=is_latest_version,
            section_path=list(self.section_path),
            **{name: getattr(self, name) for name in _SAME_NAMED},
        )

    def to_record(self, filename: str, content_sha256: str, is_latest_version: bool = True) -> ChunkRecord:
        return ChunkRecord(
            id=self.id,
            document_id=self.document_id,
            text=self.text,
            page_number=self.page_start,
            metadata=self.metadata(filename, content_sha256, is_latest_version),
        )


_METADATA_FIELDS = tuple(f.name for f in fields(ChunkMetadata))
# the optional metadata keys a chunk carries under the same name (the required ones are set by hand)
_SAME_NAMED = [
    f.name
    for f in fields(ChunkMetadata)
    if f.name in {c.name for c in fields(Chunk)} - set(ChunkMetadata.REQUIRED)
]
