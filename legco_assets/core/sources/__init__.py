"""Where papers come from and how they are known: the inbox, LegCo's open-data feed and
its downloads, the document index (id ↔ file), and the counterpart (other-language)
version of a paper. Sits beside ``read``: it reads files only to name and vet them.

Code outside this package imports only the names below."""

from __future__ import annotations

from .counterparts import (
    NO_COUNTERPART,
    by_hand,
    confirm,
    counterpart_changes,
    profile_of,
    proposed_partner,
    read_sidecar,
)
from .documents import Claim, DocumentIndex, file_sha256, slug
from .feed_records import parse_types
from .inbox import folder_files, scan_inbox, skip_reason
from .legco_feed import (
    Failed,
    FeedBusy,
    FeedError,
    FeedState,
    origin_of,
    poll,
)
from .odata import parse_meeting_date
from .pairing import (
    CounterpartOutcome,
    counterpart_candidate,
    counterpart_metadata,
    counterpart_question_counts,
    document_profile,
    pair_counterpart,
)

__all__ = [
    "Claim",
    "CounterpartOutcome",
    "DocumentIndex",
    "Failed",
    "FeedBusy",
    "FeedError",
    "FeedState",
    "NO_COUNTERPART",
    "by_hand",
    "confirm",
    "counterpart_candidate",
    "counterpart_changes",
    "counterpart_metadata",
    "counterpart_question_counts",
    "document_profile",
    "file_sha256",
    "folder_files",
    "origin_of",
    "pair_counterpart",
    "parse_meeting_date",
    "parse_types",
    "poll",
    "profile_of",
    "proposed_partner",
    "read_sidecar",
    "scan_inbox",
    "skip_reason",
    "slug",
]
