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
