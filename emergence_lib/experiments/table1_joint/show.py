"""What chapter 03 shows of the joint fit: the registered claims judged where their runs are stored, and a table."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from ... import claims
from ..context import Context
from . import read
from .runs import FRESH_GRIDS


def joint_fits(ctx: Context) -> SimpleNamespace:
    """Judge the registered joint fits whose runs are stored; the others say how many runs they wait for."""
    if ctx.scale == "smoke":
        return SimpleNamespace(table=pd.DataFrame(), checked=[])
    fresh, _, _ = read.fresh_summary()
    n = len(FRESH_GRIDS["paper_cpu"].seeds)
    rows: list[dict] = []
    checked = []
    for r in read.fit_rows(read.first_summary(), read.POINTS, ("d", "T", "B"), "seeds 0-2 (estimator chosen after their data)"):
        rows.append(r)
        checked.append(claims.record(f"table1.joint.first_seeds.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                     interval=(r["low"], r["high"])))
    done = read.stored_at(fresh, read.SHORT)
    if done < n * len(read.SHORT):
        for q in ("d", "T"):
            claims.record_not_run(f"table1.joint.fresh_short.{q}_exponent", f"not run yet ({done} of {n * len(read.SHORT)} runs)")
    else:
        for r in read.fit_rows(fresh, read.SHORT, ("d", "T"), "seeds 5-6, T ≤ 128 (fresh)"):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh_short.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
    done = read.stored_at(fresh, read.POINTS)
    if done < n * len(read.POINTS):
        for q in ("d", "T", "B"):
            claims.record_not_run(f"table1.joint.fresh.{q}_exponent", f"not run yet ({done} of {n * len(read.POINTS)} runs)")
    else:
        for r in read.fit_rows(fresh, read.POINTS, ("d", "T", "B"), "seeds 5-6 (fresh)"):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
    return SimpleNamespace(table=pd.DataFrame(rows), checked=checked)
