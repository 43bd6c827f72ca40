"""Render rows of cells as a GitHub-flavoured Markdown table (the one place that does)."""

from __future__ import annotations


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def to_markdown(header: list[str], rows: list[list[str]]) -> str:
    """Header row, separator, then body rows padded to the header's width."""
    width = max([len(header)] + [len(r) for r in rows]) if (header or rows) else 0
    head = [_cell(c) for c in header] + [""] * (width - len(header))
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] * width) + "|"]
    for row in rows:
        cells = [_cell(c) for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
