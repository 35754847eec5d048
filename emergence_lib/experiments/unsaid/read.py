"""Readers of the unsaid-choices screen (`runs.Unsaid`): each reading's T exponent, and its difference from the
reading it is compared with, as contrasts of the lengths' mean log plateaus with Welch intervals (seeds are repeated
measurements of a length, never points of a law)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...stats import paired_seed_interval
from ...sweep import SweepResult
from ..recall_table1.read import crossing_table
from ..table1.read import contrast_interval
from .runs import READINGS, RECALL_READINGS, UnsaidGrid, UnsaidRecallGrid

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
        row |= {f"exponent_{k}": v for k, v in exponent(results, grid, [key], [1]).items()}
        if key != "book" and baseline_of(key) in results:
            row |= {f"moves_{k}": v for k, v in exponent(results, grid, [key, baseline_of(key)], [1, -1]).items()}
        rows.append(row)
    return pd.DataFrame(rows)


def complete(results: dict[str, SweepResult], grid: UnsaidGrid, key: str) -> bool:
    """Whether every seed of the reading is stored at both lengths."""
    r = results.get(key)
    return r is not None and len(r.summary) == len(grid.seeds) * len(grid.T)


def recall_log_speedups(result: SweepResult, grid: UnsaidRecallGrid) -> np.ndarray:
    """Per seed, log(steps to the threshold at the lower B / at the higher B) on test data: nan where a seed has not
    crossed at both (or is not stored at both)."""
    table = crossing_table(result)
    col = f"steps to {grid.threshold:.0%}"
    lo, hi = (table[table["B"] == B].set_index("seed")[col] for B in grid.B)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.array([math.log(lo[s] / hi[s]) if s in lo.index and s in hi.index else NAN for s in grid.seeds])


def recall_screen(results: dict[str, SweepResult], grid: UnsaidRecallGrid) -> pd.DataFrame:
    """One row per recall reading (nan where nothing is measured yet): the geometric-mean steps at each B over its crossed seeds, its
    in-context speed-up (paired by seed, 95% t interval; undefined unless every seed crossed at both B) and, except
    the book's, that speed-up over the book's (Welch 95% interval of the log difference)."""
    names = {k: what for k, what, _ in RECALL_READINGS}
    col = f"steps to {grid.threshold:.0%}"
    book = recall_log_speedups(results["book"], grid) if "book" in results else None
    rows = []
    for key in grid.readings:  # every reading, with nothing measured where none of its runs is stored yet
        r = results.get(key)
        row: dict[str, object] = {"reading": key, "what": names[key]}
        if r is None or not len(r.summary):
            rows.append(row | {f"{k}_B{B}": 0 for B in grid.B for k in ("stored", "crossed")})
            continue
        table = crossing_table(r)
        for B in grid.B:
            steps = table[table["B"] == B][col].to_numpy(float)
            row[f"stored_B{B}"], row[f"crossed_B{B}"] = len(steps), int(np.isfinite(steps).sum())
            row[f"steps_B{B}"] = float(np.exp(np.log(steps[np.isfinite(steps)]).mean())) if np.isfinite(steps).any() else NAN
        x = recall_log_speedups(r, grid)
        # Undefined unless every seed crossed at both B: the mean of those that did would be biased (the claim's text).
        m, low, high = paired_seed_interval(np.exp(-x), np.ones_like(x)) if np.isfinite(x).all() else (NAN, NAN, NAN)
        row |= {"speedup_ours": m, "speedup_low": low, "speedup_high": high}
        if key != "book" and book is not None and np.isfinite(x).all() and np.isfinite(book).all():
            est, lo, hi = contrast_interval([x, book], [1, -1])
            row |= {"moves_ours": math.exp(est), "moves_low": math.exp(lo), "moves_high": math.exp(hi)}
        rows.append(row)
    columns = ["reading", "what", *(f"{k}_B{B}" for B in grid.B for k in ("stored", "crossed", "steps")),
               *(f"{q}_{k}" for q in ("speedup", "moves") for k in ("ours", "low", "high"))]
    return pd.DataFrame(rows).reindex(columns=columns)


def recall_complete(results: dict[str, SweepResult], grid: UnsaidRecallGrid, key: str) -> bool:
    r = results.get(key)
    return r is not None and len(r.summary) == len(grid.seeds) * len(grid.B)
