"""Readers of the recall screen (`runs.UnsaidRecall`): each reading's in-context speed-up, paired by seed, and its
ratio to the book's reading's (Welch interval of the log difference)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...stats import paired_seed_interval
from ...sweep import SweepResult
from ..recall_table1.read import crossing_table
from ..table1.read import contrast_interval
from .runs import RECALL_READINGS, UnsaidRecallGrid

NAN = float("nan")


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
