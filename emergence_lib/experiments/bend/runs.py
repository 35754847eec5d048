"""The design of the shape claims on the paper's model (issue 61): which fresh-seed points each quantity reads.

The runs themselves are `table1_joint.runs.Figure3Fresh`'s (seeds 5 and 6 at the paper's Figure 3 points); this
module only names, for each quantity, the points it contrasts:

* the collapse: a run at (256, d, B) against a run at (256/B, d, 1), for d in {16, 32} and B in {2, 4, 8}, the six
  cells of the paper's B panel that the fresh grid holds; the toy theory says the plateau depends on T/B alone, and
  so does the paper's law, whose T and B exponents are equal (0.80 and -0.80);
* the bend: at B = 1, the local T exponent over the top of the grid (128 -> 256) minus the one over its bottom
  (32 -> 64; at d = 64, where the grid has no T = 64, 32 -> 128); one power law has no bend;
* the joint fit over the 16 points without (256, 64, 1), the costliest point, so that the paper's estimator is judged
  on fresh seeds before that point lands.
"""

from __future__ import annotations

import math

from ..table1_joint.runs import FRESH_GRIDS

T_TOP = 256
COLLAPSE_CELLS: tuple[tuple[int, int], ...] = tuple((d, B) for d in (16, 32) for B in (2, 4, 8))  # (d, B)
# Judged against 1 on a log scale: the collapse holds where the interval lies within [1/1.25, 1.25] = [0.8, 1.25].
COLLAPSE_BAND = 1.25
# Per d: (the bottom segment, the top segment) of lengths whose local T exponents the bend subtracts.
BEND_SEGMENTS: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {
    16: ((32, 64), (128, 256)), 32: ((32, 64), (128, 256)), 64: ((32, 128), (128, 256))}
JOINT16_POINTS: tuple[tuple[int, int, int], ...] = tuple(p for p in FRESH_GRIDS["paper_cpu"].points if p != (256, 64, 1))


def collapse_points(d: int, B: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The two points one collapse cell compares: (256, d, B) and (256/B, d, 1)."""
    return (T_TOP, d, B), (T_TOP // B, d, 1)


def bend_weights(d: int) -> dict[tuple[int, int, int], float]:
    """The bend at d as Σ wᵢ · (mean log plateau at point i): the top segment's log-slope minus the bottom's."""
    (a, b), (c, e) = BEND_SEGMENTS[d]
    w: dict[tuple[int, int, int], float] = {}
    for (lo, hi), sign in (((c, e), 1.0), ((a, b), -1.0)):
        scale = sign / math.log(hi / lo)
        w[(hi, d, 1)] = w.get((hi, d, 1), 0.0) + scale
        w[(lo, d, 1)] = w.get((lo, d, 1), 0.0) - scale
    return w


def shape_points() -> list[tuple[int, int, int]]:
    """Every point the collapse and the bend read, in the fresh grid's order."""
    used = {p for d, B in COLLAPSE_CELLS for p in collapse_points(d, B)} | {p for d in BEND_SEGMENTS for p in bend_weights(d)}
    return [p for p in FRESH_GRIDS["paper_cpu"].points if p in used]
