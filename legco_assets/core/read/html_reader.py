"""Read an HTML page (a Hansard, an agenda, a department's FAQ) as one page of text.

Why a reader of its own: LegCo publishes its Official Records and agendas as HTML, and
government departments publish their FAQs only as HTML. The strategies read lines, so the
page becomes lines the way a person reads it:

* the charset comes from the page (byte-order mark, then ``<meta charset>`` /
  ``http-equiv``), else UTF-8 if the bytes are UTF-8, else a detector; Big5 pages are read
  as Big5-HKSCS (its superset: Hong Kong characters such as 㗎 are not in Big5);
* ``<head>``, scripts, styles, comments, form fields, navigation (``<nav>``, breadcrumbs, menus,
  skip links, ``role=navigation``), footers and "back to top" links never reach the text;
* every block element starts a line (an accordion's ``<button>`` holding a question too),
  inline elements run on (``<strong>201</strong>
  <strong>5</strong>`` is ``2015``); ``h1``-``h6`` are lines of their own and are listed with
  their level (:attr:`HtmlPage.headings`), for heading detection, as is a question an FAQ
  sets apart without a heading tag (a ``<dt>``, an accordion's ``<summary>`` or ``<button>``, a
  bold line or an element whose class names it a question, ending ``?``);
* a table of questions and answers (a question ending ``?`` and its answer in each row) is
  read row by row, each question a heading hint; any other table is either layout or data.
  Layout tables (a label cell beside a text cell, nested tables, one column) are read as
  text: a short label cell runs on into the cell beside it,
  so ``| 問1. | 每年須給予…？ |`` is the line ``問1. 每年須給予…？`` and the question markers see
  it. Data tables (a grid of short cells) become Markdown table lines in place, so they
  stay inside the answer they belong to and the chunkers keep them whole;
* where a list, box or table that held questions and answers closes, the next line is a
  break (:attr:`HtmlPage.breaks`): the answer before it ends there, and what follows (an
  enquiry note, related links) is not more answer;
* a press release's sign-off (``Ends/…``, ``完``, the time issued, ``NNNN``) and the page's
  links below it are dropped.

A page that has no text, is not text at all, or is a server's error page is a
:class:`DocumentError` with the reason, like any other bad input.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .. import markers
from ..errors import DocumentError
from ..markdown_tables import to_markdown
from ..records import Table
from .headings import ASKING_LEVEL, asked_apart, labelled
from .qa_tables import asks_and_answers, label_cell, row_asks, row_title

# elements whose content is never text of the paper
_DROPPED_TAGS = frozenset(
    {
        "head",
        "script",
        "style",
        "noscript",
        "template",
        "nav",
        "footer",
        "select",
        "option",
        "iframe",
        "svg",
        "canvas",
        "object",
        "embed",
        "map",
        "input",
        "textarea",
    }
)
_NAV_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "menu", "menubar"})
# class/id names of navigation and page furniture in government and LegCo page templates
# (``leftnav``, ``navbar``, ``topMenu``, ``breadcrumb``, ``skiplink``, ``footer``)
_NAV_PART = re.compile(
    r"^(?:[a-z]*nav|navbar|navigation|[a-z]*menu|breadcrumbs?|skip|skiplink|sitemap|footer|copyright"
    r"|pagehead(?:er)?|pageno|pagenum(?:ber)?|runninghead)$"  # a printed page's running head and number
)
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "aside",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "li",
        "dl",
        "dt",
        "dd",
        "table",
        "tr",
        "caption",
        "figure",
        "figcaption",
        "address",
        "center",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "body",
        "html",
        "details",
        "summary",
        "fieldset",
        "legend",
        "form",
        "button",
    }
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_ASKING_TAGS = frozenset({"dt", "summary", "button"})  # hold an FAQ's question when it ends with "?"
# blocks whose end ends the answer inside them (an FAQ's list, item, box or accordion)
_QA_BLOCKS = frozenset(
    {"ol", "ul", "li", "dl", "dd", "div", "section", "article", "details", "table", "form"}
)
_QUESTION_NAMES = frozenset(
    {"question", "q", "faqq", "faqquestion", "qn"}
)  # class/id parts that name a question
_SPACES = re.compile(r"[ \t\r\n\f\u00a0\u2000-\u200b\u200d\u202f\u205f\ufeff]+")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
# what a declared charset is read as: supersets, so no character of the page is lost
_CHARSET_SUPERSETS = {
    "big5": "big5hkscs",
    "big5-hkscs": "big5hkscs",
    "cp950": "big5hkscs",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
    "ascii": "utf-8",
    "us-ascii": "utf-8",
}
MIN_TEXT_CHARS = 50  # fewer non-blank characters of text: not a paper
ERROR_PAGE_CHARS = 1500  # an error page says little beyond its error


@dataclass
class HtmlPage:
    """A page's text as lines, the headings among them and its data tables."""

    text: str
    headings: list[dict[str, Any]] = field(default_factory=list)  # {"line", "level", "text"}
    tables: list[Table] = field(default_factory=list)
    title: str = ""
    encoding: str = "utf-8"
    # lines that open what follows a block of questions and answers (its list, table or box
    # has closed): the answer before such a line ends there, whatever the line says
    breaks: list[str] = field(default_factory=list)


def read_html(path: object, data: bytes) -> HtmlPage:
    """The page's text, or a DocumentError saying why the file is not a readable page."""
    text, encoding = decode_html(path, data)
    import lxml.etree
    import lxml.html

    parser = lxml.html.HTMLParser()
    try:
        root = lxml.html.document_fromstring(_without_xml_declaration(text), parser=parser)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise DocumentError(path, _too_deep(parser) or "empty HTML page (no text)") from exc
    if _too_deep(parser):
        raise DocumentError(path, _too_deep(parser))
    title = _title(root)
    try:
        page = _Reader().read(root)
    finally:
        _read_cell.cache_clear()  # the page's cells (and its tree) are not kept
    page.title, page.encoding = title, encoding
    _questions_of_an_faq(page)
    _require_content(path, page)
    return page


# -- bytes to text ------------------------------------------------------------------------------
def decode_html(path: object, data: bytes) -> tuple[str, str]:
    """Text and the encoding it was read with; binary content is a DocumentError."""
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom) :].decode(name, errors="replace"), name
    if _binary(data):
        raise DocumentError(path, "not an HTML page (binary content)")
    declared = _declared_charset(data)
    if declared:
        return data.decode(declared, errors="replace"), declared
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data[:200_000]).best()
    name = (_superset(best.encoding) if best else None) or "utf-8"
    return data.decode(name, errors="replace"), name


def _binary(data: bytes) -> bool:
    """NUL bytes or many control characters in the first 4 KB: an image, archive or PDF."""
    head = data[:4096]
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls > len(head) * 0.02


def _declared_charset(data: bytes) -> str | None:
    """The ``<meta>`` charset of the first 4 KB (where the HTML standard says to look), if
    Python knows it."""
    match = _META_CHARSET.search(data[:4096])
    if not match:
        return None
    return _superset(match.group(1).decode("ascii", errors="ignore"))


def _superset(name: str) -> str | None:
    name = name.strip().lower()
    name = _CHARSET_SUPERSETS.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _without_xml_declaration(text: str) -> str:
    """lxml refuses a str that declares its own encoding (``<?xml … encoding=…?>``)."""
    stripped = text.lstrip()
    if stripped.startswith("<?xml"):
        end = stripped.find("?>")
        return stripped[end + 2 :] if end >= 0 else stripped
    return text


# -- the tree to lines ----------------------------------------------------------------------------
def _clean(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _questions_of_an_faq(page: HtmlPage) -> None:
    """On a page titled as an FAQ that labels nothing and sets no question apart, each line
    that asks is a question set apart: the page's blocks are its lines, so such a line is a
    paragraph of its own (``<p>How do I apply?</p><p>You may …</p>``, a ``<span>`` above
    its answer's ``<div>``). Only under such a title: elsewhere a paragraph that asks is a
    speaker's question."""
    lines = page.text.split("\n")
    titled = markers.FAQ_TITLE.match(page.title) or any(
        markers.FAQ_TITLE.match(h["text"]) for h in page.headings[:2]
    )
    if (
        not titled
        or any(h["level"] == ASKING_LEVEL for h in page.headings)
        or any(labelled(line) for line in lines)
    ):
        return
    hinted = {h["line"] for h in page.headings}
    page.headings = sorted(
        page.headings
        + [
            {"line": n, "level": ASKING_LEVEL, "text": line}
            for n, line in enumerate(lines)
            if n not in hinted and asked_apart(line)
        ],
        key=lambda h: h["line"],
    )


def _title(root: Any) -> str:
    found = root.find(".//title")
    return _clean(found.text_content()) if found is not None else ""


def _dropped(el: Any) -> bool:
    """Markup that is not the paper: see the module docstring."""
    tag = el.tag if isinstance(el.tag, str) else ""
    if not tag:  # comments, processing instructions
        return True
    tag = tag.lower()
    if tag in _DROPPED_TAGS:
        return True
    if (el.get("role") or "").lower() in _NAV_ROLES or el.get("aria-hidden") == "true":
        return True
    names = " ".join(filter(None, (el.get("class"), el.get("id")))).split()
    if any(_NAV_PART.match(part) for name in names for part in re.split(r"[-_]", name.lower())):
        return True
    if tag == "a" and markers.BACK_TO_TOP.match(_clean(el.text_content())):
        return True
    if (
        tag == "a"
        and (el.get("href") or "").startswith("#")
        and markers.SKIP_LINK.match(_clean(el.text_content()))
    ):
        return True  # a skip link jumps within the page: furniture, whatever its class
    return False


class _Reader:
    """Walks the tree once, writing lines; tables are judged and read on the way."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []
        self.headings: list[dict[str, Any]] = []
        self.tables: list[Table] = []
        self.bold = 0  # depth of <b>/<strong> being read
        self.plain = False  # the current line has text outside bold
        self.in_heading = False
        self.breaks: list[int] = []  # line indices that follow the end of a block of questions

    def read(self, root: Any) -> HtmlPage:
        body = root.find("body")
        self._walk(body if body is not None else root)
        self._break()
        lines = _without_sign_off(self.lines)
        # a break before a table set apart by a blank line (:meth:`_grid`) opens at its header
        breaks = [lines[n] or lines[n + 1] for n in sorted(set(self.breaks)) if n < len(lines)]
        return HtmlPage("\n".join(lines), self.headings, self.tables, breaks=breaks)

    # line assembly
    def _break(self) -> None:
        line = _clean("".join(self.current))
        bold, self.current, self.plain = not self.plain, [], False
        if line and not markers.BACK_TO_TOP.match(line) and not markers.SKIP_LINK.match(line):
            self.lines.append(line)
            if bold and not self.in_heading:
                self._asked(len(self.lines) - 1)  # a line all in bold that asks

    def _text(self, text: str | None) -> None:
        if text:
            self.current.append(text)
            self.plain = self.plain or (self.bold == 0 and not text.isspace())

    # the walk
    def _walk(self, el: Any) -> None:
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if tag == "br":
            self._break()
        elif tag == "table":
            self._break()
            before, hinted = len(self.lines), len(self.headings)
            self._table(el)
            if self._asks_within(before, hinted):
                self.breaks.append(len(self.lines))
        elif tag in _HEADINGS:
            self._break()
            before, self.in_heading = len(self.lines), True
            self._children(el)  # a block inside (an accordion's <button>) may end the line early
            self._break()
            self.in_heading = False
            for line in range(before, len(self.lines)):
                self.headings.append({"line": line, "level": _HEADINGS[tag], "text": self.lines[line]})
        elif tag == "pre":
            self._break()
            for line in el.text_content().split("\n"):
                self.current.append(line)
                self._break()
        elif tag in _BLOCK_TAGS:
            self._break()
            before, hinted = len(self.lines), len(self.headings)
            self._children(el)
            self._break()
            if tag in _ASKING_TAGS or _named_question(el) or _toggles(el):
                self._asked(before)
            if tag in _QA_BLOCKS and self._asks_within(before, hinted):
                self.breaks.append(len(self.lines))
        elif tag in ("b", "strong"):
            self.bold += 1
            self._children(el)
            self.bold -= 1
        else:  # inline
            self._children(el)

    def _asks_within(self, line: int, hint: int) -> bool:
        """The lines from ``line`` on hold a question: a heading hint that asks, or a label."""
        return any(markers.QUESTION_END.search(h["text"]) for h in self.headings[hint:]) or any(
            labelled(text) for text in self.lines[line:]
        )

    def _asked(self, line: int) -> None:
        """A question set apart as an FAQ sets it (a ``<dt>``, an accordion's ``<summary>`` or
        ``<button>``, a line all in bold): one line ending with a question mark is a heading
        hint of the lowest level, so the outline cuts the page there (:mod:`asked_headings`)."""
        taken = any(h["line"] == line for h in self.headings[-2:])
        text = self.lines[line] if len(self.lines) == line + 1 else ""
        if asked_apart(text) and not taken:
            self.headings.append({"line": line, "level": ASKING_LEVEL, "text": self.lines[line]})

    def _children(self, el: Any) -> None:
        self._text(el.text)
        for child in el:
            if not _dropped(child):
                self._walk(child)
            self._text(child.tail)

    # tables
    def _table(self, table: Any) -> None:
        rows = _rows(table)
        if asks_and_answers([_row_texts(row) for row in rows]):
            self._asked_rows(rows)
            return
        if not _is_data_table(table, rows):
            for row in rows:
                self._layout_row(row)
            return
        caption = table.find("caption")
        if caption is not None and _clean(caption.text_content()):
            self.lines.append(_clean(caption.text_content()))
        run: list[list[Any]] = []
        for row in rows:
            heading = _heading_row(row)
            if heading is None:
                run.append(row)
                continue
            self._grid(run)
            self.lines.append(heading)
            run = []
        self._grid(run)

    def _asked_rows(self, rows: list[list[Any]]) -> None:
        """An FAQ set as a table, a question and its answer a row: each row read as lines,
        its question (the row's first line) a heading hint, a category row a heading hint a
        level up that ends the answer above it; the header row is dropped."""
        for n, row in enumerate(rows):
            title = row_title(_row_texts(row))
            if n == 0 and not row_asks(_row_texts(row)) and not title:
                continue  # ``Question | Answer``
            before = len(self.lines)
            self._layout_row(row)
            if len(self.lines) > before and (title or markers.QUESTION_END.search(self.lines[before])):
                level = ASKING_LEVEL - 1 if title else ASKING_LEVEL  # a category above its questions
                self.headings.append({"line": before, "level": level, "text": self.lines[before]})
            if title:
                self.breaks.append(before)  # the answer above ends before its category row

    def _grid(self, rows: list[list[Any]]) -> None:
        """Rows of a data table as one Markdown table (a single row is read as a line)."""
        if len(rows) < 2:
            for row in rows:
                self._layout_row(row)
            return
        header, body = _grid([[text for c in row for text in _spanned(c)] for row in rows])
        markdown = to_markdown(header, body)
        if self.lines and self.lines[-1].startswith("|"):
            # a table right after another (``</table><table>``) is kept apart by a blank line,
            # as Markdown needs: else its header and separator read as rows of the one above
            self.lines.append("")
        self.lines.extend(markdown.split("\n"))
        self.tables.append(Table(page=1, header=header, rows=body, markdown=markdown, method="html"))

    def _layout_row(self, cells: list[Any]) -> None:
        """Cells read in order; a short label cell runs on into the next cell's first line."""
        label = ""
        for n, cell in enumerate(cells):
            read = _read_cell(cell)
            lines, headings = list(read.lines), read.headings
            self.tables.extend(read.tables)
            if not lines:
                continue
            if label and not lines[0].startswith("|"):
                lines = [f"{label} {lines[0]}"] + lines[1:]
                headings = tuple(
                    h for h in headings if h["line"] or h["level"] != ASKING_LEVEL
                )  # ``問1.`` | question
            elif label:
                self.lines.append(label)
            elif len(lines) == 1 and label_cell(lines[0]) and n + 1 < len(cells):
                label = lines[0]
                continue
            label = ""
            offset = len(self.lines)
            self.headings.extend({**h, "line": h["line"] + offset} for h in headings)
            self.breaks.extend(b + offset for b in read.breaks)
            self.lines.extend(lines)
        if label:
            self.lines.append(label)

    def _walk_cell(self, cell: Any) -> None:
        self._children(cell)
        self._break()


def _without_sign_off(lines: list[str]) -> list[str]:
    """A press release's lines without its sign-off (``Ends/Wednesday, July 9, 2014`` /
    ``完``), the date, time and ``NNNN`` the news system prints after it, and the page's
    links below them: the last answer of a Council question's release otherwise ends in
    them. The sign-off is the last ``Ends/…`` / ``完`` line that such a line follows (or that
    ends the page)."""
    for n in range(len(lines) - 1, -1, -1):
        if markers.PRESS_RELEASE_END.match(lines[n]):
            if n + 1 == len(lines) or markers.PRESS_RELEASE_TRAILER.match(lines[n + 1]):
                return lines[:n]
    return lines


def _rows(table: Any) -> list[list[Any]]:
    """The table's own rows (not a nested table's), each as its own cells."""
    rows = []
    for tr in table.iter("tr"):
        if _owner_table(tr) is table:
            rows.append(
                [
                    c
                    for c in tr
                    if isinstance(c.tag, str) and c.tag.lower() in ("td", "th") and not _dropped(c)
                ]
            )
    return [r for r in rows if r]


def _toggles(el: Any) -> bool:
    """The block opens and closes what follows, as an accordion's header does: it, or the
    one element it holds, carries ``aria-expanded``, ``aria-controls``, ``role="button"``
    or a ``collapse`` toggle (``data-toggle`` / ``data-bs-toggle``)."""
    children = [c for c in el if isinstance(c.tag, str)]
    held = children[0] if len(children) == 1 and not (el.text or "").strip() else None
    return any(_toggle_attributes(node) for node in (el, held) if node is not None)


def _toggle_attributes(el: Any) -> bool:
    return (
        el.get("aria-expanded") is not None
        or el.get("aria-controls") is not None
        or (el.get("role") or "").lower() == "button"
        or "collapse" in ((el.get("data-toggle") or "") + (el.get("data-bs-toggle") or "")).lower()
    )


def _named_question(el: Any) -> bool:
    """The page's markup names the element a question (``class="question"``,
    ``faq-question``, ``q``): set apart by a style sheet, not by bold or a label."""
    names = " ".join(filter(None, (el.get("class"), el.get("id")))).lower().split()
    return any(part in _QUESTION_NAMES for name in names for part in re.split(r"[-_]", name))


def _row_texts(row: list[Any]) -> list[str]:
    """Each cell of a row as the one line it reads as."""
    return [_clean(_cell_text(c)) for c in row]


def _heading_row(row: list[Any]) -> str | None:
    """A row that is the paper's next heading, not data: one filled cell, all in bold, that
    reads as a numbered heading (``II. Questions``, ``Part 2 …``). A Council agenda's item
    headings sit in the rows of its layout grid this way."""
    texts = [_clean(_cell_text(c)) for c in row]
    filled = [(cell, text) for cell, text in zip(row, texts) if text]
    if len(filled) != 1:
        return None
    cell, text = filled[0]
    if not (markers.TOPIC_HEADING.match(text) or markers.CHAPTER_HEADING.match(text)) or not _all_bold(cell):
        return None
    return text


def _all_bold(cell: Any) -> bool:
    """Every piece of the cell's text is inside ``<b>``/``<strong>`` (or a ``<th>``)."""
    if cell.tag.lower() == "th":
        return True
    for node in cell.xpath(".//text()"):
        if not node.strip():
            continue
        holder = (
            node.getparent().getparent() if node.is_tail else node.getparent()
        )  # a tail is its element's parent's text
        if holder is None or not holder.xpath("ancestor-or-self::*[self::b or self::strong]"):
            return False
    return True


def _owner_table(el: Any) -> Any:
    parent = el.getparent()
    while parent is not None and parent.tag != "table":
        parent = parent.getparent()
    return parent


def _cell_text(cell: Any) -> str:
    """A data cell as one line, read like the rest of the page (dropped markup stays out)."""
    return " ".join(_read_cell(cell).lines)


@dataclass(frozen=True)
class _CellRead:
    """What one table cell reads as on its own: its lines, heading hints, tables and breaks
    (line numbers within the cell)."""

    lines: tuple[str, ...]
    headings: tuple[dict[str, Any], ...]
    tables: tuple[Table, ...]
    breaks: tuple[int, ...]


@cache
def _read_cell(cell: Any) -> _CellRead:
    """A cell read once per page, however often it is asked for. Why: a table's rows are
    judged by their cells' text (a data grid? questions beside answers? a heading row?)
    before they are read, so a cell is read at least twice, and a layout table in a cell of
    another is judged and read within each reading of that cell: read afresh, a page nested
    n tables deep costs 2^n readings of its innermost text (a page of old site furniture in
    twenty nested tables: minutes). A pure function of the cell; :func:`read_html` clears
    the cache once the page is read."""
    reader = _Reader()
    reader._walk_cell(cell)
    return _CellRead(tuple(reader.lines), tuple(reader.headings), tuple(reader.tables), tuple(reader.breaks))


def _is_data_table(table: Any, rows: list[list[Any]]) -> bool:
    """A grid of short cells (a header row above rows of figures or terms), not markup
    that lays out labels beside text: no nested table, at least two rows and two columns,
    no cell holding paragraphs, and no row that reads as a question or answer label."""
    if len(rows) < 2 or max(len(r) for r in rows) < 2:
        return False
    if any(_owner_table(t) is table for t in table.iter("table") if t is not table):
        return False
    texts = [[_clean(_cell_text(c)) for c in row] for row in rows]
    for row, cells in zip(texts, rows):
        joined = " ".join(t for t in row if t)
        if labelled(joined):
            return False
        if any(len(c.findall(".//p")) > 1 or len(t) > 400 for c, t in zip(cells, row)):
            return False
    filled = [t for row in texts for t in row if t]
    return len(filled) >= 4


def _spanned(cell: Any) -> list[str]:
    """A cell's text, then an empty cell for each further column it spans."""
    try:
        span = max(1, min(int(cell.get("colspan") or 1), 50))
    except ValueError:
        span = 1
    return [_clean(_cell_text(cell))] + [""] * (span - 1)


def _grid(cells: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """Header and body, with empty rows dropped."""
    rows = [row for row in cells if any(row)]
    return rows[0], rows[1:]


# -- is this a paper at all? ----------------------------------------------------------------------
def _too_deep(parser: Any) -> str | None:
    """Why the page cannot be read whole, when libxml2 stopped at its depth limit: it drops
    what is nested over 255 elements deep (generated markup, not a paper's), and reading the
    rest would lose that text without a word, or call a page with text empty."""
    if any("Excessive depth" in error.message for error in parser.error_log):
        return "HTML nested over 255 elements deep: the parser drops the text below that depth"
    return None


def _require_content(path: object, page: HtmlPage) -> None:
    chars = len("".join(page.text.split()))
    if chars == 0:
        raise DocumentError(path, "empty HTML page (no text)")
    headline = next((h["text"] for h in page.headings), "")
    for claim in (page.title, headline, page.text.split("\n", 1)[0]):
        if claim and markers.ERROR_PAGE.search(claim) and chars < ERROR_PAGE_CHARS:
            raise DocumentError(path, f"an error page, not a paper ({claim[:80]})")
    if chars < MIN_TEXT_CHARS:
        raise DocumentError(path, f"no text content in the HTML page ({chars} characters)")
