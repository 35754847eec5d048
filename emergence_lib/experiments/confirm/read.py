"""Readers of the fresh-seed confirmations (`runs.Confirm`): Figure 5's paired speed-ups and the Figure 3 law on point
means, each from these seeds alone."""

from __future__ import annotations

import math

import pandas as pd

from ...metrics import lack_of_fit_test, paired_seed_interval
from ...sweep import SweepResult
from ..table1.read import point_mean_fit


def figure5_speedup(result: SweepResult, by: str) -> dict:
    """Steps to the threshold with no repetition over steps at the one level of ``by`` ("B" or "p") in the sweep,
    paired by seed: geometric mean with its 95% t interval (nan bounds unless every seed's pair crossed)."""
    s = result.summary
    if not len(s):
        return {"ours": math.nan, "low": math.nan, "high": math.nan, "seeds": 0}
    none = s[(s["B"] == 1) & (s["p"] == 0)].set_index("seed")["emergence_step"]
    level = s[(s["B"] > 1)] if by == "B" else s[(s["p"] > 0)]
    level = level.set_index("seed")["emergence_step"]
    seeds = sorted(set(none.index) & set(level.index))
    m, lo, hi = paired_seed_interval(level[seeds].to_numpy(float), none[seeds].to_numpy(float))
    return {"ours": m, "low": lo, "high": hi, "seeds": len(seeds)}


def figure3_law(result: SweepResult) -> pd.DataFrame:
    """The joint law fitted to the points' mean log plateaus (each point once; `table1.read.point_mean_fit`)."""
    s = result.summary
    if not len(s):
        return pd.DataFrame(columns=["quantity", "ours", "low", "high", "points", "df"])
    points = sorted({(int(T), int(d), int(B)) for T, d, B in zip(s["T"], s["d"], s["B"])})
    return point_mean_fit(s, points, ("d", "T", "B"))


def figure3_lack_of_fit(result: SweepResult) -> dict:
    """The lack-of-fit F test of the same law on every fresh seed (each (T, d, B) point one group): printed beside the
    point-mean fit, whose intervals do not count seeds as points whatever it says."""
    return lack_of_fit_test(result.summary, ["d", "T", "B"], "plateau_length")
