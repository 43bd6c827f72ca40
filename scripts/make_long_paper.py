"""Make an N-page LegCo-style paper by concatenating the fixture papers' pages.

Why: the benchmark needs papers of 10, 100 and 500 pages that look like what the pipeline
reads (Chinese and English Q&A, speaking notes, ruled tables, footers), not filler. The
committed fixture papers and the README samples are imported page by page with pypdfium2
(``PdfDocument.import_pages``), cycling through them in a fixed order, until N pages are
reached; the same N always gives the same page sequence.

``--table-light`` leaves out the table fixture (``paper_a_tables``: 38 tables on 18 pages)
and adds the outline fixtures (narrative under a three-level outline, no tables): what most
real papers look like, narrative and Q&A with a table now and then (about one page in five
has a table), where the default mix is table-dense (304 tables on 204 of 500 pages).

    python scripts/make_long_paper.py 500 /tmp/paper-500.pdf
    python scripts/make_long_paper.py 480 /tmp/paper-480-light.pdf --table-light
    python scripts/make_long_paper.py 480 /tmp/paper-480-platypus.pdf --platypus

``--platypus`` writes a paper of another producer instead: reportlab's platypus lays out
Chinese paragraphs with CJK word-wrap (short text runs, a few characters each: ~290 text
rectangles a page where the fixtures' producer writes a few dozen), numbered headings, and
a gridded table every few pages. The font is reportlab's built-in CID font ``STSong-Light``
(no file needed, glyphs not embedded: PDFium still extracts the Unicode text), or with
``--font PATH`` a TTF/TTC with CJK glyphs (e.g. wqy-microhei.ttc), embedded; ``--box-font``
embeds a generated TTF of box glyphs instead, for a machine with no CJK font installed.

    python scripts/make_long_paper.py 480 /tmp/paper-480-boxes.pdf --platypus --box-font
"""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = sorted((REPO / "legco_assets_tests" / "fixtures" / "pdfs").glob("paper_*.pdf")) + sorted(
    (REPO / "data" / "samples").glob("*.pdf")
)
TABLE_LIGHT_SOURCES = [p for p in SOURCES if "tables" not in p.stem] + sorted(
    (REPO / "legco_assets_tests" / "fixtures" / "outline").glob("*.pdf")
)


def make_long_paper(pages: int, target: Path, sources: list[Path] | None = None) -> Path:
    """Write an exactly ``pages``-page PDF to ``target`` built from ``sources``' pages."""
    import pypdfium2 as pdfium

    sources = sources or SOURCES
    if not sources:
        raise SystemExit("no source papers: run python -m legco_assets_tests.fixtures.generate_fixtures")
    opened = [pdfium.PdfDocument(str(path)) for path in sources]
    out = pdfium.PdfDocument.new()
    try:
        index = 0
        while len(out) < pages:
            source = opened[index % len(opened)]
            take = min(len(source), pages - len(out))
            out.import_pages(source, list(range(take)))
            index += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        out.save(str(target))
        assert len(out) == pages
        return target
    finally:
        out.close()
        for doc in opened:
            doc.close()


# the running text of the platypus paper: LegCo-style sentences, recombined by a fixed seed
_SENTENCES = [
    "政府當局表示，有關計劃的諮詢期已於上月結束，共收到超過三千份意見書。",
    "委員關注計劃對中小型企業的影響，並要求當局提供詳細的財務評估。",
    "當局回應時指出，擬議的措施將分階段推行，首階段預計於明年第二季完成。",
    "部分委員認為現行規管架構未能配合市場發展，建議當局盡快檢討相關條例。",
    "事務委員會亦討論了公共交通服務的票價調整機制，以及其對市民生活的影響。",
    "當局承諾會在下次會議前提交補充資料，說明各項開支的詳細分項及預計成效。",
    "有委員詢問當局會否考慮延長過渡期，讓受影響的從業員有足夠時間適應新安排。",
    "根據當局提供的數字，過去五年的申請宗數平均每年增加百分之八。",
    "委員普遍支持有關建議的大方向，但對執行細節仍有保留。",
    "秘書處已把委員的意見轉交當局考慮，並會適時向事務委員會匯報進展。",
]
_HEADINGS = ["背景", "諮詢結果", "委員的關注", "財務影響", "推行時間表", "未來路向"]
# what the paper prints besides them: section and paragraph numbers, the tables' cells
_PRINTED = "第節　項目二零三四年變動開支0123456789.%- "


def make_box_font(target: Path) -> Path:
    """Write a TrueType font to ``target`` whose glyphs are plain boxes, one for each
    character the platypus paper prints. Why: the paper set in a TTF is embedded as a word
    processor embeds its font (a subset with its ToUnicode map), which PDFium reads far
    faster than the built-in ``STSong-Light``, so the text-only process is quick and our own
    per-object work shows in the ratio; no CJK font need be installed to make it."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    chars = sorted(set("".join(_SENTENCES) + "".join(_HEADINGS) + _PRINTED))
    names = {c: f"uni{ord(c):04X}" for c in chars}
    widths = {".notdef": 1000} | {names[c]: 1000 if ord(c) > 0x2000 else 550 for c in chars}
    glyphs = {}
    for name, width in widths.items():
        pen = TTGlyphPen(None)
        if name not in (names[" "], names["\u3000"]):  # the spaces draw nothing
            pen.moveTo((60, -60))
            pen.lineTo((60, 760))
            pen.lineTo((width - 60, 760))
            pen.lineTo((width - 60, -60))
            pen.closePath()
        glyphs[name] = pen.glyph()
    font = FontBuilder(1000, isTTF=True)
    font.setupGlyphOrder(list(widths))
    font.setupCharacterMap({ord(c): name for c, name in names.items()})
    font.setupGlyf(glyphs)
    font.setupHorizontalMetrics({name: (width, 60) for name, width in widths.items()})
    font.setupHorizontalHeader(ascent=880, descent=-120)
    font.setupNameTable({"familyName": "Legco Bench Boxes", "styleName": "Regular"})
    font.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120)
    font.setupPost()
    target.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(target))
    return target


def make_platypus_paper(pages: int, target: Path, font: Path | None = None) -> Path:
    """Write an about ``pages``-page PDF to ``target`` with reportlab's platypus: numbered
    sections of Chinese paragraphs (``wordWrap='CJK'``) and a gridded table every few pages,
    the same content for the same ``pages`` (fixed seed, ``invariant`` PDF)."""
    import random

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    if font:
        pdfmetrics.registerFont(TTFont("CJK", str(font)))
        name = "CJK"
    else:
        pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        name = "STSong-Light"
    body = ParagraphStyle(
        "body", fontName=name, fontSize=11, leading=17, wordWrap="CJK", spaceAfter=6, alignment=4
    )  # alignment 4: justified
    heading = ParagraphStyle("heading", parent=body, fontSize=15, leading=22, spaceBefore=8, spaceAfter=8)
    rng = random.Random(pages)
    story: list[object] = []
    # a section (18 paragraphs of ~3 lines at 11 pt, a table) fills ~1.75 pages
    for section in range(1, pages * 4 // 7 + 1):
        story.append(Paragraph(f"第{section}節　{_HEADINGS[section % len(_HEADINGS)]}", heading))
        for n in range(1, 19):
            text = "".join(rng.choice(_SENTENCES) for _ in range(rng.randint(2, 4)))
            story.append(Paragraph(f"{section}.{n}　{text}", body))
        rows = [["項目", "二零二三年", "二零二四年", "變動"]] + [
            [f"開支項目{k}", f"{rng.randint(100, 999)}", f"{rng.randint(100, 999)}", f"{rng.randint(-9, 9)}%"]
            for k in range(1, 6)
        ]
        table = Table(rows)
        table.setStyle(
            TableStyle(
                [
                    ("FONTNAME", (0, 0), (-1, -1), name),
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ]
            )
        )
        story += [Spacer(1, 6), table, Spacer(1, 6)]
    target.parent.mkdir(parents=True, exist_ok=True)
    SimpleDocTemplate(str(target), pagesize=A4, invariant=1, title="事務委員會文件").build(story)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pages", type=int, help="number of pages of the result")
    parser.add_argument("target", type=Path, help="where to write the PDF")
    parser.add_argument(
        "--table-light",
        action="store_true",
        help="narrative and Q&A with few tables (no table fixture, plus the outline fixtures)",
    )
    parser.add_argument(
        "--platypus",
        action="store_true",
        help="another producer: reportlab platypus, Chinese (CJK word-wrap), a gridded table every few pages",
    )
    parser.add_argument(
        "--font", type=Path, help="with --platypus: a TTF/TTC with CJK glyphs instead of STSong-Light"
    )
    parser.add_argument(
        "--box-font",
        action="store_true",
        help="with --platypus: embed a generated TTF of box glyphs (TARGET.ttf beside the paper)",
    )
    args = parser.parse_args()
    if args.platypus:
        font = make_box_font(args.target.with_suffix(".ttf")) if args.box_font else args.font
        path = make_platypus_paper(args.pages, args.target, font)
        print(f"{path}: about {args.pages} pages, {path.stat().st_size:,} bytes (reportlab platypus)")
        return
    sources = TABLE_LIGHT_SOURCES if args.table_light else SOURCES
    path = make_long_paper(args.pages, args.target, sources)
    print(f"{path}: {args.pages} pages, {path.stat().st_size:,} bytes from {len(sources)} source papers")


if __name__ == "__main__":
    main()
