"""The best rows of a matrix of unit vectors for a query vector: what the chunk-vector and
question-side rankers ask of a scope.

Why two passes over a server's index: scanning every float32 vector of an archive reads 2 KiB
per chunk per ranker (a million chunks: two gigabytes per search, about 85 ms each on a
2-core machine, bound by memory). A segment also stores its vectors in int8, each row scaled to
its largest component (:func:`quantized`), a quarter of the bytes; every search scans those
(``simsimd``'s integer dot product, exact over the integers) and rescores the best
:func:`candidates` of them from the float32 rows. The int8 scores differ from the float32 ones
by well under a hundredth, and many times more rows are rescored than a ranker keeps, so the
rows and their scores are those the float32 scan gives (``test_segments.py`` compares them);
only the float32 reads are fewer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import simsimd

CANDIDATES_MIN = 512  # rows rescored at least, whatever a ranker keeps
CANDIDATES_PER_KEPT = 8  # and this many per row a ranker keeps


def quantized(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``matrix``'s rows in int8, each scaled so its largest component is ±127, and each row's
    scale (the float32 row ≈ scale × the int8 row)."""
    if matrix.size == 0:
        return np.zeros(matrix.shape, dtype=np.int8), np.zeros(len(matrix), dtype=np.float32)
    largest = np.abs(matrix).max(axis=1)
    scale = np.where(largest > 0, largest / 127.0, 1.0).astype(np.float32)
    return np.round(matrix / scale[:, None]).astype(np.int8), scale


def candidates(kept: int) -> int:
    return max(CANDIDATES_MIN, CANDIDATES_PER_KEPT * kept)


def _unit(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float32)
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def _ordered(rows: np.ndarray, sims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Best first, ties in row order (what a stable sort of the whole scan gives)."""
    order = np.lexsort((rows, -sims))
    return rows[order], sims[order]


def _best_of(scores: np.ndarray, n: int, keep: np.ndarray | None, groups: np.ndarray | None) -> np.ndarray:
    """The rows of ``scores``' best ``n`` among ``keep``, per value of ``groups`` when given."""
    allowed = np.ones(len(scores), dtype=bool) if keep is None else keep.astype(bool)
    chosen = []
    for group in [None] if groups is None else np.unique(groups):
        mine = np.flatnonzero(allowed if group is None else allowed & (groups == group))
        if len(mine) > n:  # the n best, ties at the last place broken by row as a stable sort does
            least = scores[mine][np.argpartition(-scores[mine], n - 1)[n - 1]]
            mine = mine[scores[mine] >= least]
            mine = mine[np.lexsort((mine, -scores[mine]))[:n]]
        chosen.append(mine)
    return np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)


class ExactRows:
    """A matrix held in memory, scanned whole (a scope built from Chroma's store)."""

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix

    def __len__(self) -> int:
        return len(self.matrix)

    def best(
        self, vector: np.ndarray, n: int, keep: np.ndarray | None = None, groups: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows and cosine similarities of the best ``n`` rows among ``keep`` (per value of
        ``groups`` when given: each group's best ``n``), best first."""
        if not len(self.matrix) or n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        sims = self.matrix @ _unit(vector)
        rows = _best_of(sims, n, keep, groups)
        return _ordered(rows, sims[rows])


class SegmentRows:
    """Several segments' matrices as one, never copied together: each segment's float32 rows
    and their int8 form (see the module docstring), all memory-mapped."""

    def __init__(
        self, exact: Sequence[np.ndarray], small: Sequence[np.ndarray], scales: Sequence[np.ndarray]
    ):
        self.exact, self.small, self.scales = list(exact), list(small), list(scales)
        sizes = [len(part) for part in self.exact]
        self.starts = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.starts[1:])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def approximate(self, vector: np.ndarray) -> np.ndarray:
        """Every row's similarity to ``vector`` from the int8 rows (up to one factor per query)."""
        largest = float(np.abs(vector).max()) if len(vector) else 0.0
        query = np.round(vector * (127.0 / largest if largest else 1.0)).astype(np.int8)[None]
        parts = [
            np.asarray(simsimd.cdist(query, small, metric="dot"), dtype=np.float32)[0] * scale
            for small, scale in zip(self.small, self.scales)
            if len(small)
        ]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The float32 rows ``rows`` (sorted), read from their segments."""
        at = np.searchsorted(self.starts, rows, side="right") - 1
        parts = []
        for segment in np.unique(at):
            mine = rows[at == segment] - self.starts[segment]
            parts.append(np.asarray(self.exact[segment][mine]))
        return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)

    def best(
        self, vector: np.ndarray, n: int, keep: np.ndarray | None = None, groups: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`ExactRows.best`: the int8 scan's best :func:`candidates` (per group)
        rescored in float32."""
        if not len(self) or n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        unit = _unit(vector)
        rows = _best_of(self.approximate(unit), candidates(n), keep, groups)
        sims = self.rows(rows) @ unit if len(rows) else np.zeros(0, dtype=np.float32)
        chosen = _best_of(sims, n, None, None if groups is None else groups[rows])
        return _ordered(rows[chosen], sims[chosen])
