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


# ---- The d = 16 screen: per seed, then over seeds (seeds are the units: each seed's four lengths give its bend and
# its T exponent, and a reading is paired with the book's on the same seed).
MIN_SEEDS = 3  # a reading's quantities need this many seeds crossed at every length (of 4)


def seed_logs(summary: pd.DataFrame, d: int, Ts: tuple[int, ...]) -> pd.DataFrame:
    """Log plateau per seed (rows) and length (columns) at d, B = 1; nan where a run is not stored or did not cross."""
    rows = summary[(summary["d"] == d) & (summary["B"] == 1) & summary["T"].isin(Ts)]
    logs = rows.assign(log=np.log(rows["plateau_length"].astype(float))).pivot_table(
        index="seed", columns="T", values="log", aggfunc="first")
    logs = logs.reindex(columns=list(Ts))
    return logs.where(np.isfinite(logs))


def per_seed(logs: pd.DataFrame) -> pd.DataFrame:
    """Each seed's bend (the log-slope from its two longest lengths minus the one from its two shortest) and T
    exponent (the least-squares slope of log plateau on log T over every length); nan where a length is missing."""
    Ts = np.array(logs.columns, float)
    x = np.log(Ts) - np.log(Ts).mean()
    y = logs.to_numpy(float)
    slope = (y * x).sum(axis=1) / (x * x).sum()
    bend = (y[:, -1] - y[:, -2]) / math.log(Ts[-1] / Ts[-2]) - (y[:, 1] - y[:, 0]) / math.log(Ts[1] / Ts[0])
    return pd.DataFrame({"bend": bend, "T_exponent": slope}, index=logs.index)


def over_seeds(values: pd.Series) -> dict:
    """The mean over the seeds where ``values`` is defined, with a 95% t interval (n - 1 degrees of freedom); nan
    with fewer than `MIN_SEEDS`. ``left_out``: the seeds it could not read."""
    v = values.dropna()
    out = {"ours": NAN, "low": NAN, "high": NAN, "seeds": len(v), "left_out": sorted(set(values.index) - set(v.index))}
    if len(v) < MIN_SEEDS:
        return out
    m, h = float(v.mean()), t_quantile_975(len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return out | {"ours": m, "low": m - h, "high": m + h}


def screen_quantities(reading: pd.DataFrame, book: pd.DataFrame) -> dict[str, dict]:
    """A reading's registered quantities from its and the book's per-seed tables (`per_seed`): its own bend and T
    exponent, the bend it removes (the book's minus its own, paired by seed) and the change of its T exponent."""
    both = reading.join(book, rsuffix="_book", how="left")
    return {"bend": over_seeds(reading["bend"]), "T_exponent": over_seeds(reading["T_exponent"]),
            "straightens": over_seeds(both["bend_book"] - both["bend"]),
            "T_moves": over_seeds(both["T_exponent"] - both["T_exponent_book"])}
