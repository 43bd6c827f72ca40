"""Tiny English PDFs built on the fly (fpdf2 core fonts: no font file needed).

For behaviour that needs a particular byte-level shape (encryption, truncation, page
count); the LegCo-shaped papers are the committed fixtures in ``fixtures/pdfs``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF


def make_pdf(path: Path, pages: list[list[str]], footer: str | None = "E-{n}") -> Path:
    """One text line per entry; ``footer`` (with ``{n}``) and a date line on every page."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))  # reproducible bytes
    pdf.set_font("Helvetica", size=11)
    pdf.set_auto_page_break(False)
    for n, lines in enumerate(pages, start=1):
        pdf.add_page()
        y = 20
        for line in lines:
            pdf.text(20, y, line)
            y += 6
        if footer:
            pdf.text(100, 280, footer.format(n=n))
            pdf.text(95, 286, "2025-05-15")
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


def encrypt_pdf(source: Path, target: Path, user_password: str) -> Path:
    """AES-256 encrypted copy (pypdf + cryptography)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(str(source)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="AES-256")
    with target.open("wb") as handle:
        writer.write(handle)
    return target


def make_leaflet(path: Path, title: str, lines: list[tuple[str, bool]]) -> Path:
    """A one-page leaflet as a word processor sets it: a 16-point bold title, then each
    ``(text, bold)`` paragraph at 11 points, wrapped, with a small gap after it."""
    pdf = FPDF(format="A4")
    pdf.set_creation_date(datetime(2025, 5, 15, tzinfo=UTC))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.multi_cell(0, 9, title, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    for text, bold in lines:
        pdf.set_font("Helvetica", "B" if bold else "", 11)
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path
