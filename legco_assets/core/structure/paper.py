"""A paper's structure, the one step both ways of running the pipeline take (the
``document_structure`` asset and ``legco-assets chunk``): its sections found, their outline,
the question labels seen against the pairs made, and LegCo's question records matched (a
paper not from the feed has none: the match then says it did not run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..llm import LLMClient
from ..quality import Check
from ..records import DocumentText, Page, Section
from ..settings import Settings
from .annexes import AnnexReport, link_annexes
from .asked_headings import asked_headings
from .label_guard import LabelCoverage, label_coverage
from .llm_structure import StructureResult, resolve_structure
from .official_match import OfficialMatch, match_official_questions
from .outline import break_starts, outline_of
from .paper_facts import PaperProfile, read_paper_profile
from .recut import apply_outline


@dataclass
class StructureOutcome:
    """What the structure step found: the sections and how (``found``: rules or the LLM, why,
    what it cost), the outline of their paths, the label coverage and LegCo's records
    matched. :meth:`to_dict` is ``structure.json``. ``checks``: the paper's structure
    checks (warnings) where the structure stage ran them; ``legco-assets chunk`` checks the
    whole paper once it is chunked."""

    found: StructureResult
    outline: list[dict[str, Any]]
    labels: LabelCoverage
    official: OfficialMatch
    checks: list[Check] = field(default_factory=list)
    # when, what and for whom the paper is (:mod:`.paper_facts`), stamped on each of its chunks
    paper: PaperProfile = field(default_factory=PaperProfile)

    @property
    def sections(self) -> list[Section]:
        return self.found.sections

    @property
    def annexes(self) -> AnnexReport | None:
        """A Hansard's appendices and the exchanges they answer; None when it has none."""
        found = self.found.annexes
        if found is None or not (found.linked or found.unresolved_references or found.unlinked_appendices):
            return None
        return found

    def to_dict(self) -> dict[str, Any]:
        stored = {
            "sections": [s.to_dict() for s in self.sections],
            "outline": self.outline,
            "llm": self.found.metadata(),
            "labels": self.labels.to_dict(),
            "official_questions": self.official.to_dict(),
            "paper": self.paper.to_dict(),
        }
        if self.annexes is not None:
            stored["annexes"] = self.annexes.to_dict()
        return stored


def find_structure(pages: list[Page], settings: Settings, llm: LLMClient | None = None) -> StructureResult:
    """Rules first; the LLM (when configured) where the rules are unsure or with
    ``QA_STRUCTURE_MODE=llm``. ``.sections`` are the sections, the rest is how they were found
    (path, LLM calls/cached/tokens/seconds, dropped items, notes) for ``structure.json``.
    Every section then gets its heading path from the paper's outline (:mod:`outline`), and
    in a paper without labels, headings that ask become pairs (:mod:`asked_headings`)."""

    doc, refs = DocumentText.from_pages(pages), settings.qa_include_internal_refs
    result = resolve_structure(doc, llm, settings.structure_mode, refs)
    result.sections, _ = apply_outline(doc, result.sections, pages, refs)
    result.sections = asked_headings(doc, result.sections, break_starts(doc, pages), refs)
    result.sections, result.annexes = link_annexes(doc, result.sections)
    return result


def page_label_coverage(pages: list[Page], sections: list[Section]) -> LabelCoverage:
    """The question labels the pages show against the pairs made (:mod:`label_guard`)."""

    return label_coverage(DocumentText.from_pages(pages).text, sections)


def official_records(origin: dict[str, Any] | None) -> tuple[list[dict[str, Any]] | None, str]:
    """LegCo's question records kept with a paper the feed brought (None, and why, when there are none)."""
    if not origin:
        return None, "no official question records: the paper did not come from LegCo's feed"
    if "questions" not in origin:
        not_yet = "no official question records yet: the feed could not fetch them"
        return None, f"{not_yet} (it asks again next poll)"
    return list(origin["questions"]), ""


def paper_structure(
    pages: list[Page], settings: Settings, llm: LLMClient | None = None, origin: dict[str, Any] | None = None
) -> StructureOutcome:
    """The structure step: :func:`find_structure`, then the label coverage, then LegCo's
    records (from the paper's ``origin``, as ``source.json`` keeps it) matched, which marks
    the matched sections for their chunks."""
    found = find_structure(pages, settings, llm)
    labels = page_label_coverage(pages, found.sections)
    official = match_official_questions(found.sections, *official_records(origin))
    profile = read_paper_profile(pages, origin)
    return StructureOutcome(found, outline_of(found.sections), labels, official, paper=profile)
