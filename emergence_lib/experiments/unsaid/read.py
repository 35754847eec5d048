"""Readers of the unsaid-choices screen (`runs.Unsaid`): each reading's T exponent, and its difference from the
reading it is compared with, as contrasts of the lengths' mean log plateaus with Welch intervals (seeds are repeated
measurements of a length, never points of a law)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...metrics import descent_share
from ...sweep import SweepResult
from ..table1.read import contrast_interval
from .runs import READINGS, UnsaidGrid

NAN = float("nan")


def crossed_logs(result: SweepResult, T: int) -> np.ndarray:
    """The log plateaus of the seeds at length T that crossed the threshold."""
    s = result.summary
    if not len(s):
        return np.array([])
    v = s[s["T"] == T]["plateau_length"].to_numpy(float)
    return np.log(v[np.isfinite(v)])


def baseline_of(key: str) -> str:
    """The reading each one is compared with: float32 for the precision, the book's in bfloat16 for the others."""
    return "book" if key == "bfloat16" else "bfloat16"


def exponent(results: dict[str, SweepResult], grid: UnsaidGrid, keys: list[str], signs: list[int]) -> dict:
    """Σ sign × (the T exponent of each reading): one reading's slope (signs [1]) or a difference ([1, −1]), with
    its Welch interval; nan where a length has fewer than 2 crossed seeds."""
    lo, hi = grid.T
    scale = 1 / math.log(hi / lo)
    groups, weights = [], []
    for key, sign in zip(keys, signs):
        for T, w in ((hi, scale), (lo, -scale)):
            groups.append(crossed_logs(results[key], T))
            weights.append(sign * w)
    if any(len(g) < 2 for g in groups):
        return {"ours": NAN, "low": NAN, "high": NAN}
    est, low, high = contrast_interval(groups, weights)
    return {"ours": est, "low": low, "high": high}


def screen(results: dict[str, SweepResult], grid: UnsaidGrid) -> pd.DataFrame:
    """One row per reading run so far: its T exponent and, except the book's, its difference from its baseline,
    with the seeds stored and crossed at each length and the plateau's geometric mean there."""
    names = {k: what for k, what, _ in READINGS}
    rows = []
    for key in grid.readings:
        r = results.get(key)
        if r is None or not len(r.summary):
            continue
        row: dict[str, object] = {"reading": key, "what": names[key]}
        for T in grid.T:
            logs = crossed_logs(r, T)
            row[f"stored_T{T}"] = int((r.summary["T"] == T).sum())
            row[f"crossed_T{T}"] = len(logs)
            row[f"plateau_T{T}"] = float(np.exp(logs.mean())) if len(logs) else NAN
        row[f"descent_T{grid.T[-1]}"] = descent_median(r, grid.T[-1])
        row |= {f"exponent_{k}": v for k, v in exponent(results, grid, [key], [1]).items()}
        if key != "book" and baseline_of(key) in results:
            row |= {f"moves_{k}": v for k, v in exponent(results, grid, [key, baseline_of(key)], [1, -1]).items()}
        rows.append(row)
    return pd.DataFrame(rows)


def descent_median(result: SweepResult, T: int) -> float:
    """The median over a reading's crossed seeds at length T of the share of the measured plateau spent in the descent
    (`metrics.descent_share`): over `metrics.NO_PLATEAU_SHARE`, the reading removes the plateau; nan with none."""
    shares = [descent_share(curve["step"].to_numpy(float), curve["loss_no_repetition"].to_numpy(float),
                            float(row["plateau_length"]))
              for row, curve in result.per_run() if row["T"] == T and "loss_no_repetition" in curve]
    shares = [v for v in shares if np.isfinite(v)]
    return float(np.median(shares)) if shares else NAN


def complete(results: dict[str, SweepResult], grid: UnsaidGrid, key: str) -> bool:
    """Whether every seed of the reading is stored at both lengths."""
    r = results.get(key)
    return r is not None and len(r.summary) == len(grid.seeds) * len(grid.T)
