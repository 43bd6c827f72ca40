"""Short narrative sections under one heading, joined into one chunk's worth.

Why: guides and handbooks cut their text under many small headings. Half the sections of the
Labour Department's Chinese Employment Ordinance guide are under 180 characters: a heading
and a sentence or two. Chunked one by one, each is a weak retrieval unit (too little text to
match a question's words) and a weak context (the answer's neighbours, which explain it, are
in other chunks). Token windows, which cross headings freely, found more narrative answers
than one chunk per heading did. Joining consecutive short sections that share a
parent heading, up to a budget, keeps the chunk inside the paper's own structure (its
section path is the shared parent; the sub-headings stay in its text) and gives each chunk
enough to stand on. unstructured's ``chunk_by_title`` does the same
(``combine_text_under_n_chars``).

Off by default (``SECTION_JOIN_TOKENS=0``): measured on the retrieval development sets at 300,
500 and 1,000 tokens, it found no more answers than one chunk per heading (a joined chunk
wins some questions by its neighbours' words and loses as many where a small section had
matched exactly; docs/history/retrieval.md). It is there for readers who want longer contexts.

Only narrative sections join (and heading-only lines between them); Q&A pairs, speaking
notes, tables and appendices keep their own chunks. A section that fills the budget alone
is left as it is, so long sections are cut into windows exactly as before.
"""

from __future__ import annotations

from dataclasses import replace

from ..records import DocumentText, Section
from ..structure import rule_path
from ..tokens import count_tokens

JOINABLE = {"narrative", "heading_only"}


def join_short_sections(sections: list[Section], doc: DocumentText, budget: int) -> list[Section]:
    """``sections`` with each run of consecutive short narrative sections under one parent
    heading joined into one section of at most ``budget`` tokens (``budget`` 0: unchanged)."""
    if budget <= 0:
        return sections
    out: list[Section] = []
    run: list[Section] = []
    used = 0
    for section in sections:
        size = _joinable_size(section, doc, budget)
        if (
            run
            and size is not None
            and used + size <= budget
            and _follows(run[-1], section)
            and _shared_path(run + [section])
        ):
            run.append(section)
            used += size
            continue
        out.extend(_joined(run, doc))
        run, used = ([section], size) if size is not None else ([], 0)
        if not run:
            out.append(section)
    out.extend(_joined(run, doc))
    return out


def _joinable_size(section: Section, doc: DocumentText, budget: int) -> int | None:
    """The section's tokens when it may join others (narrative with a span in ``doc``, under
    the budget), else None."""
    if section.type not in JOINABLE or not 0 <= section.char_start < section.char_end <= len(doc.text):
        return None
    size = count_tokens(doc.text[section.char_start : section.char_end])
    return size if size < budget else None


def _follows(before: Section, after: Section) -> bool:
    return after.char_start >= before.char_end


def _shared_path(run: list[Section]) -> list[str]:
    """The headings every section of ``run`` sits under (outermost first; empty: none)."""
    paths = [rule_path(s) for s in run]
    shared: list[str] = []
    for level in zip(*paths):
        if any(h != level[0] for h in level):
            break
        shared.append(level[0])
    return shared


def _joined(run: list[Section], doc: DocumentText) -> list[Section]:
    """One section for a run of two or more holding narrative; the run as it is otherwise.
    Heading-only lines at the run's end stay out: they head what follows."""
    tail: list[Section] = []
    while run and run[-1].type == "heading_only":
        tail.insert(0, run.pop())
    if len(run) < 2 or not any(s.type == "narrative" for s in run):
        return run + tail
    path = _shared_path(run)
    first, last = run[0], run[-1]
    return [
        replace(
            first,
            type="narrative",
            heading=path[-1],
            start_page=min(s.start_page for s in run),
            end_page=max(s.end_page for s in run),
            char_end=last.char_end,
            text=doc.text[first.char_start : last.char_end],
            has_table=any(s.has_table for s in run),
            level=len(path),
            path=path,
            extra={},
        )
    ] + tail
