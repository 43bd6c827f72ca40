"""Does a narrative chunk's vector find its answer better with its neighbours' words in it?

    .venv/bin/python scripts/narrative_vector_context.py --prev 200 --next 0
    .venv/bin/python scripts/narrative_vector_context.py --sets narrative-v2,narrative-v3

On the blind narrative sets, token windows find the answer first more often than the question
strategy's narrative chunks, and the chunk-vector ranker alone shows most of the gap. One
cause proposed was context: a section's chunk is small and embeds without the text around
it. This script embeds each question-strategy narrative chunk with the last ``--prev`` tokens
of the chunk before it and the first ``--next`` tokens of the chunk after it (same paper),
keeps every other chunk as stored, and scores the chunk-vector ranker alone (cosine over every
chunk of the real corpus, plain and with the search's language centering of 0.5) against the
token windows on the same questions. A development measurement (docs/history/retrieval.md): it
changes nothing stored. Needs ``../shared/corpus/real``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from legco_assets.core import evaluation as E  # noqa: E402
from legco_assets.core.pipeline import chunk_file  # noqa: E402
from legco_assets.core.records import ChunkRecord  # noqa: E402
from legco_assets.core.search import embedding_function, script_of  # noqa: E402
from legco_assets.core.settings import Settings, Strategy  # noqa: E402
from legco_assets.core.tokens import encoding  # noqa: E402

NARRATIVE_DEV = "narrative,narrative-dev,narrative-v2,narrative-v3,narrative-v4,narrative-v5,narrative-v6"
CENTERING = 0.5  # the hybrid chunk-vector ranker's share for question chunks


def unit(vectors: list) -> np.ndarray:
    v = np.array(vectors, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def with_context(records: list[ChunkRecord], before: int, after: int) -> list[str]:
    """Each narrative chunk's text with its neighbours' edge tokens; others as stored."""
    enc = encoding()
    texts = []
    for i, record in enumerate(records):
        if record.metadata.section_type not in ("narrative", "speaking_notes") or not (before or after):
            texts.append(record.text)
            continue
        same = lambda j: 0 <= j < len(records) and records[j].document_id == record.document_id  # noqa: E731, B023 - called in this iteration only
        head = enc.decode(enc.encode(records[i - 1].text)[-before:]) if before and same(i - 1) else ""
        tail = enc.decode(enc.encode(records[i + 1].text)[:after]) if after and same(i + 1) else ""
        texts.append("\n".join(t for t in (head, record.text, tail) if t))
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default=NARRATIVE_DEV)
    parser.add_argument("--prev", type=int, default=200, help="tokens of the chunk before")
    parser.add_argument("--next", type=int, default=0, help="tokens of the chunk after")
    args = parser.parse_args()
    if not E.REAL_CORPUS.is_dir():
        sys.exit(f"needs the real corpus at {E.REAL_CORPUS}")
    settings = Settings(data_dir=Path(tempfile.mkdtemp(prefix="narrative-context-")))
    papers = {name: E.load_paper(E.REAL_CORPUS / name, {}) for name in E.REAL_PAPERS}
    questions = [
        (name, q)
        for name in args.sets.split(",")
        for q in E.load_gold_questions(E.HELD_OUT.get(name) or E.DEV_SETS[name])
    ]
    E.add_question_anchors(papers, [q for _, q in questions])
    embed = embedding_function(settings)
    asked = unit(embed([q.question for _, q in questions]))
    for strategy in ("question", "token"):
        chunked = [
            r
            for p in papers.values()
            for r in chunk_file(p.path, Strategy.parse(strategy), settings, use_llm=False)
        ]
        records = [ChunkRecord.from_json(r) for r in chunked]
        variants = {"as stored": [r.text for r in records]}
        if strategy == "question":
            variants[f"+{args.prev} before, +{args.next} after"] = with_context(records, args.prev, args.next)
        scripts = np.array([script_of(r.text) for r in records])
        for label, texts in variants.items():
            vectors = unit([v for i in range(0, len(texts), 64) for v in embed(texts[i : i + 64])])
            means = {s: vectors[scripts == s].mean(0) for s in set(scripts)}
            for share in (0.0, CENTERING) if strategy == "question" else (0.0,):
                hit1 = hit5 = 0
                for (_, q), v in zip(questions, asked):
                    top = np.argsort(-(vectors @ (v - share * means.get(script_of(q.question), 0))))[:5]
                    paper = papers[q.document]
                    hits = [E.holds_answer_end(records[j], paper.document_id, paper.anchor(q)) for j in top]
                    hit1 += hits[0]
                    hit5 += any(hits)
                n = len(questions)
                print(
                    f"{strategy:8s} {label:28s} centering {share:.1f}: Hit@1 {hit1 / n:.3f}  "
                    f"Hit@5 {hit5 / n:.3f}  (n={n})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
