"""A line's character boxes as the few rectangles a highlight or a redaction box draws: one
module that both the excerpt cut (:mod:`.pdf`) and the redaction (:mod:`.redact`) read."""

from __future__ import annotations


def line_quads(boxes: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Consecutive character boxes merged into one rectangle per run on a line: a box joins
    the current run when it overlaps it vertically by half its height and starts not far
    left of (or too far right of) the run's end."""
    quads: list[list[float]] = []
    for left, top, right, bottom in boxes:
        if quads:
            q = quads[-1]
            height = max(top - bottom, 1.0)
            overlap = min(top, q[1]) - max(bottom, q[3])
            if (
                overlap >= 0.5 * min(height, q[1] - q[3] or 1.0)
                and q[2] - height <= left <= q[2] + 3 * height
            ):
                q[1], q[2], q[3] = max(q[1], top), max(q[2], right), min(q[3], bottom)
                continue
        quads.append([left, top, right, bottom])
    return [(q[0], q[1], q[2], q[3]) for q in quads]
