"""The shape quantities of Figure 3's law from a table of plateaus (columns T, d, B, plateau_length; a seed that has
not crossed has an infinite plateau and enters no mean): the collapse on T/B, the bend, and their per-point inputs.
Pure functions of the table, so a test can hand them plateaus with a known answer."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...metrics import t_quantile_975
from ..table1.read import _reached_logs, contrast_interval, seeds_done
from .runs import BEND_SEGMENTS, COLLAPSE_CELLS, bend_weights, collapse_points

NAN = float("nan")


def complete(summary: pd.DataFrame, points, n_seeds: int) -> bool:
    """Whether every point holds ``n_seeds`` stored runs (crossed or not)."""
    return all(seeds_done(summary, *p) >= n_seeds for p in points)


def collapse_cells(summary: pd.DataFrame) -> pd.DataFrame:
    """Per cell (d, B): the ratio of the geometric-mean plateau at (256, d, B) to that at (256/B, d, 1), with its
    Welch interval over the two points' seeds (a diagnostic per cell; the claim pools the cells)."""
    rows = []
    for d, B in COLLAPSE_CELLS:
        top, bottom = collapse_points(d, B)
        groups = [_reached_logs(summary, *top), _reached_logs(summary, *bottom)]
        est, lo, hi = contrast_interval(groups, [1.0, -1.0]) if all(len(g) for g in groups) else (NAN, NAN, NAN)
        rows.append({"d": d, "B": B, "T/B": top[0] // B, "plateau": math.exp(groups[0].mean()) if len(groups[0]) else NAN,
                     "plateau at T/B": math.exp(groups[1].mean()) if len(groups[1]) else NAN,
                     "ratio": math.exp(est), "low": math.exp(lo), "high": math.exp(hi)})
    return pd.DataFrame(rows)


def collapse(summary: pd.DataFrame) -> dict:
    """The registered collapse: the geometric mean of the cells' ratios, with a 95% t interval over the cells (their
    log ratios; len - 1 degrees of freedom). A cell with no crossed seed at either point leaves it undefined."""
    logs = np.log(collapse_cells(summary)["ratio"].to_numpy(float))
    if not np.isfinite(logs).all() or len(logs) < 2:
        return {"ours": NAN, "low": NAN, "high": NAN, "cells": len(logs)}
    m, se = float(logs.mean()), float(logs.std(ddof=1) / math.sqrt(len(logs)))
    h = t_quantile_975(len(logs) - 1) * se
    return {"ours": math.exp(m), "low": math.exp(m - h), "high": math.exp(m + h), "cells": len(logs)}


def bend(summary: pd.DataFrame, d: int) -> dict:
    """The registered bend at d: the top segment's local T exponent minus the bottom's (`runs.BEND_SEGMENTS`), a
    contrast of point means with its Welch–Satterthwaite interval; nan where a point has no crossed seed."""
    w = bend_weights(d)
    groups = [_reached_logs(summary, *p) for p in w]
    (a, b), (c, e) = BEND_SEGMENTS[d]
    row = {"d": d, "bottom": f"{a} → {b}", "top": f"{c} → {e}", "ours": NAN, "low": NAN, "high": NAN}
    if not all(len(g) for g in groups):
        return row
    est, lo, hi = contrast_interval(groups, list(w.values()))
    return row | {"ours": est, "low": lo, "high": hi}


def local_exponents(summary: pd.DataFrame, d: int) -> list[dict]:
    """The local T exponents (B = 1) between the neighbouring lengths the fresh grid holds at d, with Welch intervals:
    what the figure of the bend draws, each at the geometric middle of its segment."""
    Ts = sorted({int(T) for T in summary[(summary["d"] == d) & (summary["B"] == 1)]["T"]})
    out = []
    for lo_T, hi_T in zip(Ts, Ts[1:]):
        groups = [_reached_logs(summary, hi_T, d, 1), _reached_logs(summary, lo_T, d, 1)]
        if not all(len(g) for g in groups):
            continue
        s = 1 / math.log(hi_T / lo_T)
        est, lo, hi = contrast_interval(groups, [s, -s])
        out.append({"d": d, "T": f"{lo_T} → {hi_T}", "T_mid": math.sqrt(lo_T * hi_T), "ours": est, "low": lo, "high": hi})
    return out
