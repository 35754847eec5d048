"""Readers of Figures 14 and 15 at Table 1's width (`runs.AblationsMeasured`): a point's seeds as log plateaus, and
the Welch interval of a difference of two slopes through point means (`table1.read` holds the slopes themselves)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..table1.read import contrast_interval, slope_weights


def plateau_logs(summary: pd.DataFrame, T: int, d: int) -> np.ndarray:
    """The log plateaus of the seeds that reached the threshold at (T, d)."""
    if not len(summary):
        return np.array([])
    v = summary[(summary["T"] == T) & (summary["d"] == d)]["plateau_length"].to_numpy(float)
    return np.log(v[np.isfinite(v)])


def slope_difference_interval(a: pd.DataFrame, b: pd.DataFrame, points: list[tuple[int, int, int]]) -> dict:
    """The Welch interval of (T slope of ``a``) − (T slope of ``b``), both through the same points' means."""
    ga, gb = [plateau_logs(a, T, d) for T, d, _ in points], [plateau_logs(b, T, d) for T, d, _ in points]
    if any(len(x) < 2 for x in ga + gb):
        return {"low": math.nan, "high": math.nan}
    w = slope_weights([math.log(T) for T, _, _ in points], [d for _, d, _ in points])
    _, low, high = contrast_interval(ga + gb, list(w) + [-x for x in w])
    return {"low": low, "high": high}


def point_mean_slope_difference(a: pd.DataFrame, b: pd.DataFrame, points: list[tuple[int, int, int]]) -> dict:
    """(T slope of ``a``) − (T slope of ``b``), each from the least-squares fit of the power law in d and T to its
    point means, with a 95% t interval from the two fits' residuals (Welch–Satterthwaite degrees of freedom): what a
    misfit of either law adds to the seeds' spread, which `slope_difference_interval` counts alone."""
    from ...metrics import t_quantile_975
    from ..table1.read import point_mean_fit

    fits = [point_mean_fit(s, points, ("d", "T")) for s in (a, b)]
    if any(not len(f) for f in fits):
        return {"ours": math.nan, "low": math.nan, "high": math.nan}
    ta, tb = (f[f["quantity"] == "T"].iloc[0] for f in fits)
    sa, sb = ((r["high"] - r["low"]) / (2 * t_quantile_975(r["df"])) for r in (ta, tb))
    df = (sa ** 2 + sb ** 2) ** 2 / (sa ** 4 / ta["df"] + sb ** 4 / tb["df"])
    est, half = float(ta["ours"] - tb["ours"]), t_quantile_975(df) * math.hypot(sa, sb)
    return {"ours": est, "low": est - half, "high": est + half}
