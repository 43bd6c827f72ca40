"""The filters of a search beside its strategy: one document, a date range, the papers' kinds
and a speaker. Applied inside ranking, on every ranker alike (BM25 and the question side
by a mask over the scope's rows, Chroma by the allowed chunk ids), so that a search for ``k``
hits gives ``k`` when ``k`` chunks pass: filtering a ranking after the fact would leave fewer.

A date filter compares spans: a paper dated ``2013-01`` covers all of January 2013 and passes
``date_from=2013-01-15``; a paper without a date passes no date filter. ``speaker`` matches the
asker or answerer of a Council exchange and everyone who speaks in a chunk (a debate's
speeches: :mod:`..structure.speakers`) on their names in one form
(:func:`..structure.paper_facts.speaker_key`), so ``Hon Jeffrey Lam`` finds ``MR JEFFREY LAM``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

import numpy as np

from ..records import ChunkRecord
from ..settings import Strategy
from ..structure import KINDS, date_span, speaker_key, speaker_matches

if TYPE_CHECKING:
    from .hits import Hit, Scope

SORTS = ("relevance", "date")


class BadFilter(ValueError):
    """A filter the search will not run: a malformed date, a range that ends before it
    starts, an unknown kind (one line, for a 4xx or the CLI's error)."""


def strategy_for(named: Strategy | None, default: Strategy, speaker: str | None) -> Strategy:
    """The strategy a search reads: the one named, else the default; a speaker asked for
    without a strategy reads the question chunks, whatever the default, since what a member
    asked and was answered is one chunk there (token windows name their speakers too)."""
    if named is not None or not (speaker or "").strip():
        return named or default
    return Strategy.question


@dataclass(frozen=True)
class SearchFilters:
    """What a search keeps besides its strategy; an empty one keeps everything.

    ``date_from``/``date_to``: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` (a partial date is its
    whole span); ``kinds``: any of :data:`..structure.paper_facts.KINDS`."""

    document: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    kinds: tuple[str, ...] = ()
    speaker: str | None = None
    _span: tuple[date, date] = field(default=(date.min, date.max), init=False, repr=False, compare=False)

    @classmethod
    def of(
        cls,
        document: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        kinds: Iterable[str] | str | None = None,
        speaker: str | None = None,
    ) -> SearchFilters:
        """Filters from a request's values (blank ones ignored; ``kinds`` a list or
        ``hansard,faq``), checked: :class:`BadFilter` names the first bad one."""
        given = [kinds] if isinstance(kinds, str) else list(kinds or ())
        parts = [p.strip().lower() for value in given for p in (value or "").split(",")]
        named = tuple(dict.fromkeys(p for p in parts if p))
        unknown = [k for k in named if k not in KINDS]
        if unknown:
            raise BadFilter(f"unknown kind {unknown[0]!r} (one of {', '.join(KINDS)})")
        made = cls(
            document or None,
            (date_from or "").strip() or None,
            (date_to or "").strip() or None,
            named,
            (speaker or "").strip() or None,
        )
        start = made._bound(made.date_from, "date_from")[0] if made.date_from else date.min
        end = made._bound(made.date_to, "date_to")[1] if made.date_to else date.max
        if start > end:
            raise BadFilter(f"date_from {made.date_from} is after date_to {made.date_to}")
        object.__setattr__(made, "_span", (start, end))
        return made

    @staticmethod
    def _bound(value: str, name: str) -> tuple[date, date]:
        try:
            return date_span(value)
        except ValueError:
            raise BadFilter(f"{name} must be YYYY, YYYY-MM or YYYY-MM-DD, not {value!r}") from None

    @property
    def dated(self) -> bool:
        return bool(self.date_from or self.date_to)

    @property
    def active(self) -> bool:
        """Whether anything is filtered."""
        return bool(self.document or self.dated or self.kinds or self.speaker)

    def admits(self, record: ChunkRecord) -> bool:
        """Whether ``record`` passes every filter."""
        meta = record.metadata
        if self.document and record.document_id != self.document:
            return False
        if not self.admits_paper(meta.date, meta.kind):
            return False
        if self.speaker:
            asker = meta.asker_name or speaker_key(meta.asker)
            answerer = meta.answerer_name or speaker_key(meta.answerer)
            speakers = (speaker_key(name) for name in meta.speakers or ())
            if not speaker_matches(self.speaker, asker, answerer, *speakers):
                return False
        return True

    def admits_paper(self, dated: str | None, kind: str | None) -> bool:
        """Whether a paper of this date and kind passes the date range and the kinds."""
        if self.kinds and kind not in self.kinds:
            return False
        if self.dated:
            if not dated:
                return False
            try:
                first, last = date_span(dated)
            except ValueError:
                return False
            if last < self._span[0] or first > self._span[1]:
                return False
        return True

    def mask(self, scope: Scope) -> np.ndarray:
        """The scope's rows that pass, computed once per scope and filters, from its columns
        (:class:`.hits.RowFacts`): each distinct paper (date, kind) and speaker pair is judged once."""
        found = scope.masks.get(self)
        if found is None:
            if len(scope.masks) >= 64:
                scope.masks.clear()
            found = np.ones(len(scope.documents), dtype=bool)
            if self.document:
                found &= scope.documents == self.document
            facts = scope.facts
            if self.dated or self.kinds:
                found &= _judged(self.admits_paper, facts.dates, facts.kinds)
            if self.speaker:
                speaker = self.speaker
                found &= _judged(
                    lambda a, b, c: speaker_matches(speaker, a, b, *(c or ())),
                    facts.askers,
                    facts.answerers,
                    facts.speakers,
                )
            scope.masks[self] = found
        return found


def _judged(test: Callable[..., bool], *columns: np.ndarray) -> np.ndarray:
    """``test`` of each row's values, asked once per distinct combination."""
    verdicts: dict[tuple[Any, ...], bool] = {}
    out = np.empty(len(columns[0]), dtype=bool)
    for row, values in enumerate(zip(*columns)):
        verdict = verdicts.get(values)
        if verdict is None:
            verdict = verdicts[values] = test(*values)
        out[row] = verdict
    return out


# what a ranker is told to keep: a document id, the filters, or everything
Where = str | SearchFilters | None


def as_filters(document: Where) -> SearchFilters | None:
    """A ranker's ``document`` argument as filters: a document id, the filters, or None."""
    if document is None or isinstance(document, SearchFilters):
        return document if document is None or document.active else None
    return SearchFilters(document=document)


def row_mask(scope: Scope, document: Where) -> np.ndarray | None:
    """The rows a ranker may return (None: every row)."""
    filters = as_filters(document)
    return None if filters is None else filters.mask(scope)


def admits(record: ChunkRecord, document: Where) -> bool:
    filters = as_filters(document)
    return filters is None or filters.admits(record)


def newest_first(hits: list[Hit]) -> list[Hit]:
    """``sort=date``: the hits newest paper first (a month counts from its first day), undated
    ones last, each date's hits in their ranked order; ``rank`` stays the relevance rank."""

    def start(hit: Hit) -> date:
        try:
            return date_span(hit.metadata.date or "")[0]
        except ValueError:
            return date.min

    return sorted(hits, key=start, reverse=True)
