"""Stage 5, search: chunks embedded and stored in Chroma, and found again: BM25, vectors,
the question-side ranker, fusion, rerank, query translation and answering.

Code outside this package imports only the names below."""

from __future__ import annotations

from .answering import CONTEXT_TOKENS, answer_question, assemble_context, parse_answer
from .bm25_index import (
    Bm25Index,
    load_or_build,
    script_of,
    tokenize,
)
from .closeness import CLOSENESS, JUDGED, STRONG, judge
from .colloquial import COLLOQUIAL, lexical_query, written_form
from .embeddings import embedding_function
from .filters import SORTS, BadFilter, SearchFilters, newest_first, strategy_for
from .forgetting import Forgotten, Target, UnknownDocument, check_targets, forget
from .fusion import (
    DEFAULT_FUSION,
    DICTIONARY,
    FUSED,
    PLAIN_RRF,
    TRANSLATED,
    Fusion,
    Rankings,
    dictionary_votes,
    fuse,
    margins,
)
from .hits import (
    DEFAULT_MODE,
    Candidate,
    Hit,
    Mode,
    Scope,
    chunk_filter,
    distinct,
    ranked_hits,
)
from .links import in_language_of
from .query_translation import parse_translation, target_language, translation_messages
from .question_side import question_side
from .rerank import (
    DEPTH,
    PASSAGE_CHARS,
    RERANKED,
    Reranker,
    parse_ranking,
    reorder,
    rerank_hits,
    rerank_messages,
)
from .retrieval import (
    LANGUAGE_CENTERING,
    PLAIN_VECTOR,
    QUESTION_CENTERING,
    Retriever,
)
from .sections import Section, aggregate
from .segment_scope import paper_rows, segment_scope, served_scopes
from .segment_store import SegmentStore, embed_unique, follow_store, index_paper, index_store
from .segments import Segment, StaleSegment, forget_cached, open_segment, overlay_stamp
from .variants import variant_fold
from .vector_store import (
    COLLECTION,
    WriteResult,
    link_counterparts,
    open_client,
    open_collection,
    replace_document,
    stored_chunks,
    stored_vectors,
    stored_versions,
    versions_markdown,
    with_retries,
)

__all__ = [
    "CLOSENESS",
    "JUDGED",
    "STRONG",
    "judge",
    "SORTS",
    "BadFilter",
    "SearchFilters",
    "newest_first",
    "strategy_for",
    "Bm25Index",
    "COLLECTION",
    "COLLOQUIAL",
    "CONTEXT_TOKENS",
    "Candidate",
    "DEFAULT_FUSION",
    "DEFAULT_MODE",
    "DICTIONARY",
    "FUSED",
    "DEPTH",
    "Forgotten",
    "Fusion",
    "Hit",
    "LANGUAGE_CENTERING",
    "Mode",
    "PASSAGE_CHARS",
    "PLAIN_RRF",
    "PLAIN_VECTOR",
    "QUESTION_CENTERING",
    "RERANKED",
    "Rankings",
    "Reranker",
    "Retriever",
    "Scope",
    "Section",
    "Segment",
    "SegmentStore",
    "StaleSegment",
    "embed_unique",
    "follow_store",
    "forget_cached",
    "index_paper",
    "index_store",
    "open_segment",
    "overlay_stamp",
    "paper_rows",
    "segment_scope",
    "served_scopes",
    "TRANSLATED",
    "Target",
    "UnknownDocument",
    "WriteResult",
    "aggregate",
    "answer_question",
    "assemble_context",
    "check_targets",
    "chunk_filter",
    "dictionary_votes",
    "distinct",
    "embedding_function",
    "forget",
    "fuse",
    "in_language_of",
    "lexical_query",
    "margins",
    "link_counterparts",
    "load_or_build",
    "open_client",
    "open_collection",
    "parse_answer",
    "parse_ranking",
    "parse_translation",
    "question_side",
    "ranked_hits",
    "reorder",
    "replace_document",
    "rerank_hits",
    "rerank_messages",
    "script_of",
    "stored_chunks",
    "stored_vectors",
    "stored_versions",
    "target_language",
    "tokenize",
    "translation_messages",
    "variant_fold",
    "versions_markdown",
    "with_retries",
    "written_form",
]
