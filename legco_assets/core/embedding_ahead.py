"""Embedding a batch of papers ahead of their runs, in a process of its own.

Why: in ``legco-assets ingest`` the embedder is most of the time, and everything else (Chroma's
writes, which hold the GIL, Dagster's runs, the search index's segment, excerpts) runs on one
core after it, paper by paper. A second process that reads, chunks and embeds the papers in
the order the runs take them fills the shared vector cache while the runs do the rest; each
run's ``vector_index`` waits for its paper's vectors (:func:`wait_for`) and finds them cached.
The two processes share the cores instead of taking turns with them.

Nothing depends on it but speed: the process computes the same chunk texts as the runs do
(:func:`.pipeline.chunk_paper_with` with the same settings, no LLM), and whatever it did not embed
(a paper it could not read, a text that came out otherwise) the run embeds itself, as without
it. It is used only when the chunks need no LLM (with one, they would be asked of it twice).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .settings import Settings, Strategy

if TYPE_CHECKING:
    from multiprocessing.queues import Queue

WAIT_STEP_S = 0.5  # how often a waiting run looks whether the process has died
_running: EmbeddingAhead | None = None


def embed_papers(
    settings: Settings,
    papers: Sequence[tuple[str, str]],
    strategies: Sequence[str],
    done: Queue[tuple[str, str]],
) -> None:
    """The process's whole life: each paper read once, its chunks with each strategy and their
    question sides into the vector cache, in order; ``(document id, strategy)`` put on ``done``
    after each (a paper it could not read too: its runs say why)."""
    from .pipeline import chunk_paper_with
    from .search import embedding_function, question_side

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the command's to act on: it ends this process
    parent = os.getppid()

    try:
        embed = embedding_function(settings)
    except ValueError:  # a bad EMBEDDING_MODEL: each run's vector_index says so, as a step failure
        return
    for document_id, path in papers:
        if os.getppid() != parent:  # the command is gone (killed): nobody waits for these vectors
            return
        try:  # read once, chunked with each strategy
            chunked = chunk_paper_with(
                path, [Strategy(s) for s in strategies], settings, use_llm=False, check=False
            )
        except Exception:  # noqa: BLE001 - the runs read the paper themselves and say why it failed
            chunked = {}
        for strategy in strategies:
            paper = chunked.get(Strategy(strategy))
            try:
                if paper is not None:
                    embed([r.text for r in paper.records])
                    sides = [question_side(r) for r in paper.records if r.metadata.question_text]
                    if sides:
                        embed(list(dict.fromkeys(sides)))
            except Exception:  # noqa: BLE001 - an embedder's failure: the run meets it and reports it
                pass
            done.put((document_id, strategy))


class EmbeddingAhead:
    """The process embedding ``papers`` ((document id, path), in the runs' order) with each of
    ``strategies``, and what it has finished."""

    def __init__(
        self, settings: Settings, papers: Sequence[tuple[str, Path]], strategies: Sequence[Strategy]
    ):
        context = multiprocessing.get_context("spawn")  # a fork would copy Dagster's threads and locks
        self._done: Queue[tuple[str, str]] = context.Queue()
        self._planned = {(d, s.value) for d, _ in papers for s in strategies}
        self._finished: set[tuple[str, str]] = set()
        self._process = context.Process(
            target=embed_papers,
            args=(settings, [(d, str(p)) for d, p in papers], [s.value for s in strategies], self._done),
            name="legco-embedding-ahead",
            daemon=True,  # never outlives the command
        )
        self._process.start()

    def wait(self, document_id: str, strategy: Strategy) -> None:
        """Return once the process has finished the paper's strategy, or has died; at once for
        a paper it was not given."""
        item = (document_id, strategy.value)
        while item in self._planned and item not in self._finished:
            try:
                self._finished.add(self._done.get(timeout=WAIT_STEP_S))
            except queue.Empty:
                if not self._process.is_alive():
                    return

    def close(self) -> None:
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()
        self._done.close()


@contextmanager
def embedding_ahead(
    settings: Settings, papers: Sequence[tuple[str, Path]], strategies: Sequence[Strategy]
) -> Iterator[EmbeddingAhead | None]:
    """Embed ``papers`` ahead of their runs in this block (none when the chunks need an LLM,
    or there is nothing to embed)."""
    global _running
    if settings.llm_enabled or not papers or _running is not None:
        yield None
        return
    _running = EmbeddingAhead(settings, papers, strategies)
    try:
        yield _running
    finally:
        _running.close()
        _running = None


def wait_for(document_id: str, strategy: Strategy) -> None:
    """Before a paper's vectors are asked of the embedder: wait for the process embedding them
    ahead, if one runs in this process's command and was given this paper."""
    if _running is not None:
        _running.wait(document_id, strategy)
