"""What chapter 03 shows of the shape of Figure 3's law on fresh seeds: the registered collapse, bend and 16-point
joint fit (`claims.bend`), each judged once its runs are stored and otherwise named as not run yet."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from ... import claims
from ..context import Context
from ..table1_joint import read as joint_read
from ..table1_joint.show import needs
from . import read
from .runs import BEND_SEGMENTS, COLLAPSE_CELLS, JOINT16_POINTS, bend_weights, collapse_points

SEEDS = 2  # the fresh seeds 5 and 6


def shape(ctx: Context) -> SimpleNamespace:
    """Judge the collapse, the bend per d and the fit without (256, 64) where their fresh runs are stored."""
    if ctx.scale == "smoke":
        return SimpleNamespace(checked=[], cells=pd.DataFrame(), bends=pd.DataFrame(), fit=pd.DataFrame(),
                               summary=pd.DataFrame())
    fresh = joint_read.fresh_summary()[0]
    checked = []
    cells = [p for d, B in COLLAPSE_CELLS for p in collapse_points(d, B)]
    if read.complete(fresh, cells, SEEDS):
        c = read.collapse(fresh)
        checked.append(claims.record("table1.collapse.T_over_B", c["ours"], "paper_cpu", interval=(c["low"], c["high"])))
    else:
        claims.record_not_run("table1.collapse.T_over_B", needs(fresh, cells, SEEDS))
    bends = []
    for d in BEND_SEGMENTS:
        points = list(bend_weights(d))
        if read.complete(fresh, points, SEEDS):
            b = read.bend(fresh, d)
            bends.append(b)
            checked.append(claims.record(f"table1.bend.d{d}", b["ours"], "paper_cpu", interval=(b["low"], b["high"])))
        else:
            claims.record_not_run(f"table1.bend.d{d}", needs(fresh, points, SEEDS))
    fit = []
    if read.complete(fresh, JOINT16_POINTS, SEEDS):
        fit = joint_read.fit_rows(fresh, list(JOINT16_POINTS), ("d", "T", "B"), "seeds 5-6, without (256, 64)")
        for r in fit:
            checked.append(claims.record(f"table1.joint.fresh16.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
    else:
        for q in ("d", "T", "B"):
            claims.record_not_run(f"table1.joint.fresh16.{q}_exponent", needs(fresh, list(JOINT16_POINTS), SEEDS))
    return SimpleNamespace(checked=checked, cells=read.collapse_cells(fresh), bends=pd.DataFrame(bends),
                           fit=pd.DataFrame(fit), summary=fresh)
