"""Real headings and a section path on every chunk.

Measured against each paper's own table of contents: a numbered paragraph (fixtures) or a
page (the shared-corpus guides) must sit in a chunk whose ``section_path`` ends with the
heading the contents list gives it; numbered paragraphs and list items never name a chunk.
"""

from __future__ import annotations

import bisect
import io
import json
import re
import statistics
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from legco_assets.core.pipeline import chunk_file
from legco_assets.core.read import read_source, text_pages
from legco_assets.core.records import DocumentText, split_path
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.structure import find_structure, key, outline_markdown, outline_of, toc_entries

from .conftest import CORPUS

OUTLINE_DIR = Path(__file__).resolve().parent / "fixtures" / "outline"
FIXTURES = ["outline_budget_zh", "outline_policy_en"]
NUMBERED = re.compile(r"^\d{1,3}\s*[.．]\s")
LIST_ITEM = re.compile(r"^\s*[(（]\s*(?:[一二三四五六七八九十]{1,3}|[a-z]|[ivx]{1,5}|\d{1,2})\s*[)）]")
SHARE = 0.95


def _gold(name: str) -> dict:
    return json.loads((OUTLINE_DIR / f"{name}.json").read_text(encoding="utf-8"))


def _chunks(path: Path, strategy: Strategy = Strategy.question) -> list[dict]:
    return chunk_file(path, strategy, Settings(), use_llm=False)


def _chunk_of_paragraph(records: list[dict], number: int) -> dict | None:
    """The chunk holding the start of numbered paragraph ``number`` (its ``N. `` line)."""
    marker = re.compile(rf"(?m)^{number}\s*[.．]\s")
    return next((r for r in records if marker.search(r["text"])), None)


@pytest.mark.parametrize("name", FIXTURES)
def test_numbered_paragraphs_sit_under_the_heading_their_contents_list_gives(name: str) -> None:
    gold = _gold(name)
    records = _chunks(OUTLINE_DIR / f"{name}.pdf")
    ends = full = 0
    for para in gold["paragraphs"]:
        chunk = _chunk_of_paragraph(records, para["number"])
        assert chunk is not None, f"paragraph {para['number']} is in no chunk"
        path = chunk["metadata"]["section_path"]
        ends += bool(path) and key(path[-1]) == key(para["heading"])
        full += [key(h) for h in path] == [key(h) for h in para["path"]]
    total = len(gold["paragraphs"])
    assert total >= 40
    assert ends / total >= SHARE, f"{ends}/{total} paragraphs under their contents heading"
    assert full / total >= SHARE, f"{full}/{total} paragraphs with the contents list's whole path"


@pytest.mark.parametrize("name", FIXTURES)
def test_no_chunk_is_named_after_a_numbered_paragraph_or_a_list_item(name: str) -> None:
    for strategy in (Strategy.question, Strategy.token):
        for record in _chunks(OUTLINE_DIR / f"{name}.pdf", strategy):
            meta = record["metadata"]
            for heading in meta["section_path"]:
                assert not NUMBERED.match(heading) and not LIST_ITEM.match(heading), (strategy, heading)
            assert meta.get("section_heading") == (meta["section_path"][-1] if meta["section_path"] else None)


@pytest.mark.parametrize("name", FIXTURES)
def test_narrative_chunks_start_with_their_path_and_never_cross_a_heading(name: str) -> None:
    gold = _gold(name)
    records = _chunks(OUTLINE_DIR / f"{name}.pdf")
    headings = {h["heading"] for h in gold["toc"]}
    for record in records:
        path = record["metadata"]["section_path"]
        lines = record["text"].split("\n")
        if path:
            assert lines[0] == " > ".join(path), "the context line is the path, on one line"
        body = "\n".join(lines[1:] if path else lines)
        later = [h for h in headings if h not in path and re.search(rf"(?m)^{re.escape(h)}$", body)]
        assert not later, f"chunk crosses into {later}"


@pytest.mark.parametrize("name", FIXTURES)
def test_outline_records_levels_and_parents_and_titles_are_joined(name: str) -> None:
    gold = _gold(name)
    path = OUTLINE_DIR / f"{name}.pdf"
    _, pages = text_pages(read_source(path))
    sections = find_structure(pages, Settings()).sections
    found = {key(e["heading"]): e for e in outline_of(sections)}
    parents: list[str] = []
    for entry in gold["toc"]:
        parents = parents[: entry["level"] - 1] + [entry["heading"]]
        got = found.get(key(entry["heading"]))
        assert got is not None, f"{entry['heading']} is not in the outline"
        assert got["level"] == entry["level"]
        want_parent = parents[-2] if len(parents) > 1 else None
        assert (got["parent"] and key(got["parent"])) == (want_parent and key(want_parent))
    # a chapter label on its own line and its title are one heading (``Chapter 2`` / ``Liability for …``)
    assert not any(
        re.fullmatch(r"(?:Chapter \d+|第[一二三四五六七八九十]+章)", e["heading"])
        for e in outline_of(sections)
    )
    markdown = outline_markdown(outline_of(sections))
    assert (
        markdown.splitlines()[0].startswith("- ")
        and "\n  - " in markdown
        and "\n    - " in markdown
        and "(p. " in markdown
    )


@pytest.mark.parametrize("name", FIXTURES)
def test_token_windows_carry_the_path_of_the_section_where_they_start(name: str) -> None:
    gold = _gold(name)
    pdf = OUTLINE_DIR / f"{name}.pdf"
    _, pages = text_pages(read_source(pdf))
    doc = DocumentText.from_pages(pages)
    body_from = doc.text.index("\n" + gold["paragraphs"][0]["path"][0])  # after the contents page
    starts: list[tuple[int, list[str]]] = []
    for entry in gold["toc"]:  # where each heading is printed (its first line), with its path
        m = re.compile(rf"(?m)^{re.escape(entry['lines'][0])}$").search(
            doc.text, starts[-1][0] + 1 if starts else body_from
        )
        assert m, entry["heading"]
        starts.append((m.start(), entry["path"]))
    offsets = [offset for offset, _ in starts]
    records = _chunks(pdf, Strategy.token)
    assert len(records) >= 3 and all("section_path" in r["metadata"] for r in records)
    checked = 0
    for record in records:
        k = bisect.bisect_right(offsets, record["metadata"]["char_start"]) - 1
        if k < 0:
            assert record["metadata"]["section_path"] == []
            continue
        assert [key(h) for h in record["metadata"]["section_path"]] == [key(h) for h in starts[k][1]]
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("name", ["table_headers_en", "table_headers_zh"])
def test_a_bold_table_header_row_is_never_a_heading(name: str) -> None:
    """A table's header row set in the titles' bold, its cells on one line with wide gaps or
    wrapped within their columns side by side (``generate_table_heading_fixtures``): the
    outline holds the section titles only, and no chunk is named after a row."""
    gold = _gold(name)
    _, pages = text_pages(read_source(OUTLINE_DIR / f"{name}.pdf"))
    sections = find_structure(pages, Settings()).sections
    headings = list(dict.fromkeys(h for s in sections for h in s.path))
    assert headings == gold["headings"]
    cells = {key(c) for c in gold["header_cells"]}
    for record in _chunks(OUTLINE_DIR / f"{name}.pdf") + _chunks(OUTLINE_DIR / f"{name}.pdf", Strategy.token):
        path = split_path(record["metadata"]["section_path"])
        assert not any(key(c) in key(h) for h in path for c in cells), path


def test_docx_heading_styles_and_markdown_headings_make_the_path(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Support for Enterprises", level=1)
    document.add_heading("SMEs", level=2)
    document.add_paragraph("10. The loan guarantee schemes are extended for another year. " * 5)
    document.add_paragraph("(a) relief on profits tax for the year.")
    document.add_heading("Housing", level=1)
    document.add_paragraph("11. Public housing production will rise in the coming five years. " * 5)
    path = tmp_path / "speech.docx"
    document.save(path)
    paths = {tuple(r["metadata"]["section_path"]) for r in _chunks(path)}
    assert ("Support for Enterprises", "SMEs") in paths and ("Housing",) in paths
    md = tmp_path / "speech.md"
    md.write_text(
        "# Budget\n\n## Supporting enterprises\n\n### SMEs\n\n"
        + "12. The Government will extend the schemes for small and medium enterprises this year. " * 4
        + "\n\n## Housing\n\n13. Public housing production will rise over the coming five years in every district.\n",
        encoding="utf-8",
    )
    records = _chunks(md)
    paths = [r["metadata"]["section_path"] for r in records]
    assert ["# Budget", "## Supporting enterprises", "### SMEs"] in paths and [
        "# Budget",
        "## Housing",
    ] in paths


def _appendices_pdf(path: Path, continued: str) -> Path:
    """Two appendices set as a budget's media sheets are: a bold 16-point title at the top
    of each page, the first appendix's second page headed ``Appendix 1`` + ``continued``."""
    from datetime import UTC, datetime

    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    body = "The estimated expenditure on TOPIC will rise by six per cent in the coming year. " * 6
    for title, topic in (
        ("Appendix 1 Education", "schools"),
        (f"Appendix 1 {continued}", "universities"),
        ("Appendix 2 Housing", "public housing"),
    ):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.multi_cell(0, 9, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        for _ in range(8):
            pdf.multi_cell(0, 6, body.replace("TOPIC", topic), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    pdf.output(str(path))
    return path


@pytest.mark.parametrize("continued", ["(Cont'd)", "(continued)", "(cont.)"])
@pytest.mark.parametrize("strategy", [Strategy.question, Strategy.token])
def test_a_continued_heading_atop_a_page_carries_on_its_section(
    tmp_path: Path, continued: str, strategy: Strategy
) -> None:
    """``Appendix 1 (Cont'd)`` repeats the heading of the section that goes on over the
    page; it opens no section of its own, so the page's chunks sit under ``Appendix 1
    Education`` (a search by that section finds them)."""
    records = _chunks(_appendices_pdf(tmp_path / "sheets.pdf", continued), strategy)
    headed = {r["metadata"]["section_path"][-1] for r in records}
    assert headed == {"Appendix 1 Education", "Appendix 2 Housing"}
    if strategy is Strategy.question:  # a token window is headed where it starts, and may run on
        for topic, section in (
            ("universities", "Appendix 1 Education"),
            ("public housing", "Appendix 2 Housing"),
        ):
            assert {r["metadata"]["section_path"][-1] for r in records if topic in r["text"]} == {section}


def test_a_continuation_mark_is_read_as_papers_print_it() -> None:
    """Word processors turn ``'`` into ``’``; Chinese papers print ``（續）`` or ``—續``."""
    from legco_assets.core import markers

    for line in (
        "Appendix 1 (Cont’d)",
        "Appendix 1 (Cont'd)",
        "附錄一（續）",
        "附件二 — 續",
        "Annex A (continued)",
    ):
        assert markers.CONTINUED.search(line), line
    for line in ("Appendix 1 Education", "Continued support for SMEs", "繼續推行計劃"):
        assert not markers.CONTINUED.search(line), line


def _guide_pdf(path: Path, jitter: float) -> Path:
    """A labour guide's chapters, each with bold 12-point subsections and the recurring
    ``Offences and Penalties``; in the second chapter that title is set ``jitter`` points
    larger (a scaled text matrix), as a real guide prints it."""
    from datetime import UTC, datetime

    from fpdf import FPDF

    chapters = {
        "Chapter 1 Wages": ["Payment of Wages", "Offences and Penalties"],
        "Chapter 2 Sickness Allowance": ["Eligibility", "Offences and Penalties", "Sick Leave Records"],
        "Chapter 3 Maternity Protection": ["Maternity Leave", "Offences and Penalties"],
    }
    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    for chapter, subsections in chapters.items():
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.multi_cell(0, 9, chapter, new_x="LMARGIN", new_y="NEXT")
        for title in subsections:
            larger = jitter if chapter.startswith("Chapter 2") and title.startswith("Offences") else 0.0
            pdf.set_font("Helvetica", "B", 12 + larger)
            pdf.multi_cell(0, 7, title, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", "", 11)
            words = title.lower()
            pdf.multi_cell(
                0, 6, f"An employer must keep {words} for every employee as the law requires. " * 4
            )
            pdf.ln(3)
    pdf.output(str(path))
    return path


@pytest.mark.parametrize("jitter", [0.0, 0.48])
def test_a_recurring_title_set_a_hair_larger_stays_a_sibling(tmp_path: Path, jitter: float) -> None:
    """The same subsection title a half point larger once is the same level: the
    subsections after it are its siblings, not its children."""
    records = _chunks(_guide_pdf(tmp_path / "guide.pdf", jitter))
    paths = {tuple(r["metadata"]["section_path"]) for r in records}
    assert ("Chapter 2 Sickness Allowance", "Sick Leave Records") in paths
    assert ("Chapter 2 Sickness Allowance", "Offences and Penalties") in paths
    assert not any(len(path) > 2 for path in paths), paths


@pytest.mark.parametrize("unit", ["($ billion)", "(HK$ million)", "(in thousands)"])
def test_a_tables_title_over_its_unit_line_is_a_heading(tmp_path: Path, unit: str) -> None:
    """A financial table's title sits over the line that opens with its unit (``($ billion)
    2019-20 …``); the unit's lower-case word does not make the title a run-on list item."""
    from datetime import UTC, datetime

    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    for title, lines in (
        ("(1) Introduction", ["The Budget sets out the Government's spending plans for the year. " * 3] * 4),
        (
            "(2) Medium Range Forecast",
            [f"{unit} 2019-20 2020-21 2021-22", "Operating Deficit (118.0) (183.0) (48.5)"]
            + ["Fiscal reserves at 31 March 1,133.1 994.0 977.2"] * 3,
        ),
    ):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.multi_cell(0, 9, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        for line in lines:
            pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "forecast.pdf"
    pdf.output(str(path))
    paths = {tuple(r["metadata"]["section_path"]) for r in _chunks(path) if "Operating Deficit" in r["text"]}
    assert paths == {("(2) Medium Range Forecast",)}


def _typeset(path: Path, pages: list[list[tuple[int, str]]]) -> Path:
    """A PDF whose pages hold ``(size, title)`` lines in bold, each over a paragraph of body
    text (size 0: the paragraph alone)."""
    from datetime import UTC, datetime

    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    for lines in pages:
        pdf.add_page()
        for size, title in lines:
            if size:
                pdf.set_font("Helvetica", "B", size)
                pdf.multi_cell(0, 7, title, new_x="LMARGIN", new_y="NEXT")
            pdf.set_font("Helvetica", "", 11)
            words = title.lower() or "these matters"
            pdf.multi_cell(0, 6, f"The Ordinance provides for {words} as this guide explains in turn. " * 3)
            pdf.ln(3)
    pdf.output(str(path))
    return path


def test_titles_in_capitals_head_the_titles_in_their_type_that_follow(tmp_path: Path) -> None:
    """A guide sets its parts in capitals in the same bold type as the subsections under
    them (``STATUTORY HOLIDAYS`` over ``Holiday Pay``); the capitals are the higher level,
    so each ``Offences and Penalties`` is told apart by its part."""
    guide = _typeset(
        tmp_path / "guide.pdf",
        [
            [
                (16, "Chapter 4 Rest Days, Holidays and Leave"),
                (0, ""),
                (12, "REST DAY"),
                (12, "Rest Day Pay"),
            ],
            [(12, "Offences and Penalties"), (12, "STATUTORY HOLIDAYS"), (12, "Holiday Pay")],
            [(12, "Offences and Penalties"), (12, "Work on Statutory Holidays")],
            [(16, "Chapter 5 Sickness Allowance"), (12, "Eligibility"), (12, "Sickness Allowance")],
        ],
    )
    paths = {tuple(r["metadata"]["section_path"]) for r in _chunks(guide)}
    chapter = "Chapter 4 Rest Days, Holidays and Leave"
    assert (chapter, "REST DAY", "Offences and Penalties") in paths
    assert (chapter, "STATUTORY HOLIDAYS", "Offences and Penalties") in paths
    assert (chapter, "STATUTORY HOLIDAYS", "Work on Statutory Holidays") in paths


def test_an_annex_ranks_with_the_sections_in_capitals_and_one_line_in_capitals_changes_nothing(
    tmp_path: Path,
) -> None:
    """A panel paper's sections in capitals (``PURPOSE`` … ``ADVICE SOUGHT``) head the
    subsections in their type, but its ``Annex`` is a part of the paper, not the last
    section's child; in another paper a single line in capitals is no level."""
    paper = _typeset(
        tmp_path / "paper.pdf",
        [
            [(12, "PURPOSE"), (12, "BACKGROUND"), (12, "Demand for Housing")],
            [(12, "ADVICE SOUGHT"), (12, "Members' Views")],
            [(12, "Annex A Light Public Housing Projects")],
        ],
    )
    paths = {tuple(r["metadata"]["section_path"]) for r in _chunks(paper)}
    assert ("BACKGROUND", "Demand for Housing") in paths
    assert ("ADVICE SOUGHT", "Members' Views") in paths
    assert ("Annex A Light Public Housing Projects",) in paths
    lone = _typeset(
        tmp_path / "lone.pdf",
        [[(12, "Payment of Wages"), (12, "MPF SCHEME")], [(12, "Deductions from Wages"), (12, "Records")]],
    )
    assert {len(r["metadata"]["section_path"]) for r in _chunks(lone)} == {1}


def test_a_notes_heading_heads_nothing_after_the_note(tmp_path: Path) -> None:
    """A guide prints ``IMPORTANT NOTE`` over a boxed aside in a larger type than its
    subsections; the subsections after the note go on under the section it interrupted."""
    guide = _typeset(
        tmp_path / "guide.pdf",
        [
            [(18, "Chapter 5 Amount of Compensation"), (14, "Non-fatal Cases"), (12, "Temporary Incapacity")],
            [(13, "IMPORTANT NOTE"), (12, "Medical Expenses"), (12, "Note: Surcharge"), (12, "Prostheses")],
            [(18, "Chapter 6 Calculation of Earnings"), (14, "Average Earnings"), (12, "Wages")],
        ],
    )
    paths = {tuple(r["metadata"]["section_path"]) for r in _chunks(guide)}
    above = ("Chapter 5 Amount of Compensation", "Non-fatal Cases")
    assert (*above, "IMPORTANT NOTE") in paths
    assert (*above, "Medical Expenses") in paths
    assert (*above, "Prostheses") in paths
    assert not any("IMPORTANT NOTE" in path[:-1] or "Note: Surcharge" in path[:-1] for path in paths), paths


def _parts_guide_pdf(path: Path) -> Path:
    """A guide in two parts whose contents list prints each part with its first chapter on
    one line (``Part I Chapter 1 Wages ........ 2``), as the Labour Department's guides do;
    in the body the part's bare label is its largest type."""
    from datetime import UTC, datetime

    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 9, "Table of Contents", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    contents = [
        ("Introduction", 2),
        ("Part I Chapter 1 Wages", 3),
        ("Chapter 2 Rest Days", 4),
        ("Chapter 3 Annual Leave", 5),
        ("Part II Chapter 4 Appeals", 6),
        ("Chapter 5 Claims", 7),
    ]
    for title, page in contents:
        pdf.multi_cell(0, 7, f"{title} {'.' * (70 - len(title))} {page}", new_x="LMARGIN", new_y="NEXT")
    body = {
        "Introduction": None,
        "Chapter 1 Wages": "Part I",
        "Chapter 2 Rest Days": None,
        "Chapter 3 Annual Leave": None,
        "Chapter 4 Appeals": "Part II",
        "Chapter 5 Claims": None,
    }
    for title, part in body.items():
        pdf.add_page()
        if part:
            pdf.set_font("Helvetica", "B", 20)
            pdf.multi_cell(0, 11, part, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "B", 16 if title == "Introduction" else 14)
        pdf.multi_cell(0, 9, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        words = title.split(" ", 2)[-1].lower()
        for _ in range(3):
            pdf.multi_cell(0, 6, f"This chapter explains the rules on {words} for every employee. " * 5)
            pdf.ln(2)
    pdf.output(str(path))
    return path


def test_a_part_the_contents_list_with_its_first_chapter_heads_its_chapters(tmp_path: Path) -> None:
    """``Part I`` is listed where the contents print it before its first chapter; it heads
    its chapters, beside the introduction, not under it."""
    records = _chunks(_parts_guide_pdf(tmp_path / "guide.pdf"))
    paths = {tuple(r["metadata"]["section_path"]) for r in records if r["metadata"]["section_path"]}
    assert ("Introduction",) in paths
    assert ("Part I", "Chapter 2 Rest Days") in paths and ("Part II", "Chapter 5 Claims") in paths
    assert not any(path[0] == "Introduction" and len(path) > 1 for path in paths), paths


def test_chunks_view_and_query_section_filter_show_the_path(env_data_dir: Path) -> None:
    from legco_assets import cli
    from legco_assets.core.records import Chunk
    from legco_assets.core.search import open_collection, replace_document

    collection = open_collection(Settings.from_env())
    chunks = [
        Chunk(
            "budget",
            "question",
            0,
            "Budget > Supporting enterprises > SMEs\nLoan guarantee schemes for SMEs are extended.",
            3,
            3,
            "narrative",
            12,
            section_heading="SMEs",
            section_path=["Budget", "Supporting enterprises", "SMEs"],
        ),
        Chunk(
            "budget",
            "question",
            1,
            "Budget > Housing\nPublic housing production for SMEs staff quarters rises.",
            5,
            5,
            "narrative",
            12,
            section_heading="Housing",
            section_path=["Budget", "Housing"],
        ),
    ]
    replace_document(collection, [c.to_record("budget.pdf", "s") for c in chunks], "budget", "question", "s")

    def run(*args: str) -> tuple[int, str]:
        out = io.StringIO()
        with redirect_stdout(out):
            code = cli.main(list(args))
        return code, out.getvalue()

    code, out = run("chunks", "budget", "--strategy", "question")
    assert code == 0 and "Budget > Supporting enterprises > SMEs" in out and "Budget > Housing" in out
    code, out = run(
        "query", "SMEs", "--strategy", "question", "--mode", "bm25", "--json", "--no-translate", "--no-rerank"
    )
    hits = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and {h["id"] for h in hits} == {"budget:question:0", "budget:question:1"}
    assert all(isinstance(h["metadata"]["section_path"], list) for h in hits)
    code, out = run(
        "query",
        "SMEs",
        "--strategy",
        "question",
        "--mode",
        "bm25",
        "--json",
        "--section",
        "housing",
        "--no-translate",
        "--no-rerank",
    )
    hits = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [h["id"] for h in hits] == ["budget:question:1"] and hits[0]["rank"] == 1
    code, out = run(
        "query", "SMEs", "--strategy", "question", "--mode", "bm25", "--no-translate", "--no-rerank"
    )
    assert "§ Budget > Supporting enterprises > SMEs" in out


# -- the shared corpus: real guides with a contents list (skipped when absent) ------------------
GUIDES = ["hkgov/ld_EO_concise_guide_en.pdf", "hkgov/ld_EO_concise_guide_tc.pdf"]


def _printed_offset(pages: list) -> int:
    """PDF page minus printed page number (the number is the first line of each page)."""
    found = []
    for page in pages:
        lines = [ln.strip() for ln in page.raw.split("\n") if ln.strip()]
        if lines and re.fullmatch(r"\d{1,3}", lines[0]):
            found.append(page.number - int(lines[0]))
    return statistics.mode(found)


def page_share(path: Path) -> tuple[int, int]:
    """Pages whose chunks' deepest listed heading is the one the contents list gives the page."""
    records = _chunks(path)
    _, pages = text_pages(read_source(path))
    entries = [e for e in toc_entries(find_structure(pages, Settings()).sections) if e.first]
    listed = {key(e.title) for e in entries}
    offset = _printed_offset(pages)
    good = total = 0
    for number in range(entries[0].first + offset, len(pages) + 1):
        expected = [e for e in entries if e.first <= number - offset][-1]
        here = [r for r in records if r["metadata"]["page_start"] == number] or [
            r for r in records if r["metadata"]["page_start"] <= number <= r["metadata"]["page_end"]
        ][:1]
        if not here:
            continue
        total += 1
        good += all(
            [key(h) for h in r["metadata"]["section_path"] if key(h) in listed][-1:] == [key(expected.title)]
            for r in here
        )
    return good, total


@pytest.mark.parametrize("name", GUIDES)
def test_real_guides_pages_sit_under_their_contents_heading(name: str) -> None:
    path = CORPUS / name
    if not path.exists():
        pytest.skip("shared corpus not available")
    good, total = page_share(path)
    assert total >= 50 and good / total >= SHARE, f"{good}/{total} pages"


def _runs_on(heading: str, text: str) -> bool:
    """Whether a labelled heading is really the start of a paragraph: where the paper prints
    it (its lines), the next line carries on mid-sentence (its first letter is lower case,
    and it is not a table's ``($ billion)`` unit line)."""
    from legco_assets.core.markers import UNIT_NOTE
    from legco_assets.core.read import starts_lower

    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    want = key(heading)
    for n, line in enumerate(lines):
        if not want.startswith(key(line)) or not key(line):
            continue
        seen, k = key(line), n
        while seen != want and k + 1 < len(lines) and want.startswith(seen + key(lines[k + 1])):
            k += 1
            seen += key(lines[k])
        if (
            seen == want
            and k + 1 < len(lines)
            and starts_lower(lines[k + 1])
            and not UNIT_NOTE.match(lines[k + 1])
        ):
            return True
    return False


@pytest.mark.parametrize(
    "name", GUIDES + ["hkgov/budget_2020-21_media_sheets_en.pdf", "hkgov/ld_ECO_guide_with_FAQ_en.pdf"]
)
def test_real_papers_name_no_chunk_after_a_numbered_paragraph_or_list_item(name: str) -> None:
    """A numbered title (``(1) Introduction``, ``1. Direct Payment by Employer``) may name a
    section; a numbered paragraph or list item whose prose runs on may not."""
    path = CORPUS / name
    if not path.exists():
        pytest.skip("shared corpus not available")
    records = _chunks(path)
    _, pages = text_pages(read_source(path))
    text = DocumentText.from_pages(pages).text
    assert records
    labelled = set()
    for record in records:
        path_ = record["metadata"]["section_path"]
        assert isinstance(path_, list) and split_path(" > ".join(path_)) == path_
        labelled |= {h for h in path_ if NUMBERED.match(h) or LIST_ITEM.match(h)}
    for heading in labelled:
        assert not re.search(r"[，。；]", heading) and not _runs_on(heading, text), heading


@pytest.mark.parametrize("paper", ["paper_e_qa", "paper_l_faq"])
def test_qa_chunks_keep_their_topic_heading_under_the_papers_parts(paper: str) -> None:
    """Q&A chunks: the topic heading above the question is the path's last element, under
    the part the paper's fixed title opens (``備用問答``)."""
    from .conftest import fixture_pdf

    gold = json.loads(
        (fixture_pdf(f"{paper}.pdf").with_suffix("").with_suffix(".gold.json")).read_text(encoding="utf-8")
    )
    topics = {p["qa_id"]: p["heading"] for p in gold["pairs"]}
    records = [r for r in _chunks(fixture_pdf(f"{paper}.pdf")) if r["metadata"]["section_type"] == "qa"]
    assert {r["metadata"]["question_id"] for r in records} == set(topics)
    for record in records:
        meta = record["metadata"]
        path = meta["section_path"]
        want = topics[meta["question_id"]]
        if want:
            assert path and key(path[-1]) == key(want) and meta["section_heading"] == path[-1], (
                meta["question_id"],
                path,
            )
        if paper == "paper_e_qa":
            assert path[0] == "備用問答", path
