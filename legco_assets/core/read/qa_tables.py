"""FAQs set as a table: a question and its answer a row. Decided on the cells' text, so an
HTML page's ``<table>`` and a Word document's table are read one way.

Why: such a table read as a data grid becomes one Markdown table, and its questions never
become pairs; read as rows of a question and its answer, each row is a pair, and a row with
one short cell names the questions below it (a category).
"""

from __future__ import annotations

from .. import markers

CATEGORY_CHARS = 80  # a table row's lone cell this short names the questions below it
LABEL_CELL_WIDTH = 16  # display width of a cell that is a label (問1., Q1., 答 :) beside its text


def asks_and_answers(rows: list[list[str]]) -> bool:
    """Rows (each its cells' text) whose rows each hold a question (ending ``?``/``？``) and
    its answer beside it: at least two such rows, and every row but a header one of them or
    a row naming the category of the questions below it."""
    asking = [row_asks(row) for row in rows]
    return sum(asking) >= 2 and all(a or row_title(row) for a, row in zip(asking[1:], rows[1:]))


def row_title(row: list[str]) -> str | None:
    """The title a row gives the rows below it: its one filled cell, short, not a question."""
    filled = [t for t in row if t]
    if len(filled) == 1 and len(filled[0]) <= CATEGORY_CHARS and not markers.QUESTION_END.search(filled[0]):
        return filled[0]
    return None


def row_asks(row: list[str]) -> bool:
    """The row's first cell with words (a label cell before it, ``1.``, aside) is a question,
    and a later cell holds text."""
    filled = [t for t in row if t and not label_cell(t)]
    return len(filled) >= 2 and bool(markers.QUESTION_END.search(filled[0]))


def label_cell(text: str) -> bool:
    """A cell that is only a label (``問1.``, ``Q1.``, ``答``, ``1.``, ``(a)``): short, no sentence."""
    width = len(text) + markers.cjk_count(text)
    return (
        width <= LABEL_CELL_WIDTH
        and not markers.SENTENCE_END.search(text.rstrip(".．:：︰"))
        and not text.startswith("|")
    )
