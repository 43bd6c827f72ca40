"""Stage 2, structure: the paper's sections found in its text. Rules for Q&A labels and
topic headings, the paper's outline (section paths), Council proceedings as speaker
turns, the label guard that reports questions left unpaired, and the LLM fallback.

Code outside this package imports only the names below."""

from __future__ import annotations

from .annexes import AnnexReport, link_annexes, same_member
from .asked_headings import asked_headings
from .contents_lines import contents_only_pages, contents_spans
from .council import SUPPLEMENTARY, WRITTEN, context_line, printed_questions, question_lead, reply_parts
from .label_guard import LabelCoverage, label_coverage, question_labels
from .llm_structure import (
    PLAIN_JSON_INSTRUCTIONS,
    PROMPT_VERSION,
    StructureReplyError,
    StructureResult,
    llm_reason,
    looks_like_qa,
    needle,
    normalise,
    page_windows,
    parse_items,
    resolve_structure,
)
from .official_match import CHECK_NAME as OFFICIAL_CHECK
from .official_match import OfficialMatch, match_official_questions
from .outline import (
    break_starts,
    key,
    outline_markdown,
    outline_of,
    path_at,
    path_starts,
    rule_path,
)
from .paper import StructureOutcome, find_structure, official_records, page_label_coverage, paper_structure
from .paper_facts import (
    DATE_PATTERN,
    KINDS,
    PaperKind,
    PaperProfile,
    date_check,
    date_span,
    read_paper_profile,
    speaker_key,
    speaker_matches,
    stamp,
)
from .recut import apply_outline
from .rules import detect_structure
from .summary import structure_summary, unchunked_pages
from .tabular import looks_tabular
from .text import display_width, drop_internal_refs, internal_note_spans, join_pages
from .toc import toc_entries

__all__ = [
    "DATE_PATTERN",
    "KINDS",
    "PaperKind",
    "PaperProfile",
    "date_check",
    "date_span",
    "read_paper_profile",
    "speaker_key",
    "speaker_matches",
    "stamp",
    "contents_only_pages",
    "contents_spans",
    "AnnexReport",
    "link_annexes",
    "same_member",
    "OFFICIAL_CHECK",
    "OfficialMatch",
    "match_official_questions",
    "SUPPLEMENTARY",
    "WRITTEN",
    "context_line",
    "printed_questions",
    "question_lead",
    "reply_parts",
    "LabelCoverage",
    "PLAIN_JSON_INSTRUCTIONS",
    "PROMPT_VERSION",
    "StructureReplyError",
    "StructureOutcome",
    "StructureResult",
    "apply_outline",
    "asked_headings",
    "break_starts",
    "detect_structure",
    "display_width",
    "drop_internal_refs",
    "internal_note_spans",
    "find_structure",
    "join_pages",
    "key",
    "label_coverage",
    "llm_reason",
    "looks_like_qa",
    "looks_tabular",
    "needle",
    "normalise",
    "official_records",
    "outline_markdown",
    "outline_of",
    "page_label_coverage",
    "page_windows",
    "paper_structure",
    "parse_items",
    "path_at",
    "path_starts",
    "question_labels",
    "resolve_structure",
    "rule_path",
    "structure_summary",
    "toc_entries",
    "unchunked_pages",
]
