"""Claims registered in a commit with no data (issue 61): the shape of Figure 3's law on the paper's model, judged on
the fresh seeds 5 and 6 (`table1_joint.runs.Figure3Fresh`), the design in `experiments.bend.runs`.

The first seeds (0-2) showed both shapes before this registration (issue 61's tables: ratios 0.87-1.02, local T
exponents 0.78 -> 1.46 at d = 16), so these claims are judged on seeds that were not run at T = 256 when they were
written. The fresh seeds' points at T <= 128 were stored before it (the fit up to T = 128 read them), and one run of
the B panel, (256, 16, 8) seed 5: the registration module labels each claim "partly after its data" for that reason.

* The collapse: the plateau depends on T/B alone. The toy theory says so, and so does the paper's law (its T and B
  exponents are equal); a null of no collapse is the paper's B exponent 0 or a T exponent 0.
* The bend: the local T exponent at the top of the grid minus the one at its bottom. One power law, the paper's and
  the toy theory's alike, says 0.
* The paper's estimator over the 16 fresh points without (256, 64, 1), judged before that point lands; the 17-point
  fit (`claims.unsaid`, table1.joint.fresh.*) is judged when it does.
"""

from __future__ import annotations

import math

from ..experiments.bend import runs as bend
from ..experiments.regression.runs import point_key
from .rules import EXPONENT_WIDTH, Claim, IntervalRule, _c
from .unsaid import JOINT_RULE

FRESH = "seeds 5 and 6 only (a seed that has not crossed enters no mean)"


def _reads(points) -> tuple[str, ...]:
    return tuple(f"figure3_fresh:{point_key(*p)}" for p in points)


def _shape_claims() -> tuple[Claim, ...]:
    cells = ", ".join(f"({bend.T_TOP}, {d}, {B}) / ({bend.T_TOP // B}, {d}, 1)" for d, B in bend.COLLAPSE_CELLS)
    band = bend.COLLAPSE_BAND
    out = [_c("table1.collapse.T_over_B", "3", "03_transformer",
              "The plateau depends on T/B alone: a run at (T, d, B) plateaus where a run at (T/B, d, 1) does (the toy "
              "theory; the paper's law too, its T and B exponents being equal)",
              "1: T/B alone (the law's T and B exponents are 0.80 and −0.80)", None,
              f"per cell, the mean log plateau at (T, d, B) minus the one at (T/B, d, 1), {FRESH}, for the "
              f"{len(bend.COLLAPSE_CELLS)} cells {cells}; the geometric mean of the cells' ratios with a 95% t "
              f"interval over the cells ({len(bend.COLLAPSE_CELLS) - 1} degrees of freedom: the cells, not the seeds, "
              "are the units, so a ratio that varies between cells widens it); judged once every cell's points hold "
              f"both seeds; it collapses if that interval lies within [{1 / band:.2f}, {band:.2f}]",
              IntervalRule(within=math.log(band), log=True), expected=None, scale="paper_cpu",
              reads=_reads(p for d, B in bend.COLLAPSE_CELLS for p in bend.collapse_points(d, B)))]
    for d, ((a, b), (c, e)) in bend.BEND_SEGMENTS.items():
        out.append(_c(f"table1.bend.d{d}", "3", "03_transformer",
                      f"The plateau's T dependence bends upward at d = {d}: the local T exponent from {c} to {e} "
                      f"exceeds the one from {a} to {b} (B = 1)",
                      "0: one power law (the paper's law and the toy theory alike)", None,
                      f"the log-slope of the mean log plateau from T = {c} to {e} minus the one from {a} to {b}, at "
                      f"d = {d}, B = 1, {FRESH}: a contrast of point means with its Welch–Satterthwaite 95% t interval "
                      "from each point's own seeds (as the book's local exponents); judged once its points hold both "
                      "seeds; it bends upward if that interval lies above 0",
                      IntervalRule(above=0.0), expected=None, scale="paper_cpu", reads=_reads(bend.bend_weights(d))))
    n = len(bend.JOINT16_POINTS)
    for k, name in (("d", "$d$"), ("T", "$T$"), ("B", "$B$")):
        value, text = f"figure3.{k}", f"{_paper(k)}"
        out.append(_c(f"table1.joint.fresh16.{k}_exponent", "3", "03_transformer",
                      f"Figure 3 as the paper measured it, on the paper's model: the exponent of {name} in one joint "
                      f"fit over the paper's grid without (256, 64) (fresh seeds)", text, value,
                      f"{JOINT_RULE}; the {n} points of the paper's grid that the paper's model ran, without "
                      "(256, 64, 1), seeds 5 and 6 only; judged once every point's two seeds are stored",
                      IntervalRule(max_width=EXPONENT_WIDTH), expected=None, scale="paper_cpu",
                      reads=_reads(bend.JOINT16_POINTS)))
    return tuple(out)


def _paper(k: str) -> str:
    from ..paper import PAPER

    return f"{PAPER['figure3'][k]:.2f}".replace("-", "−")


SHAPE_CLAIMS = _shape_claims()
