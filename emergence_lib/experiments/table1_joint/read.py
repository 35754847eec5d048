"""Readers of the fresh seeds (`runs.Figure3Fresh`) and the first seeds at the same points: the joint fit's rows."""

from __future__ import annotations

import pandas as pd

from ...configs import Scale
from ...paper import PAPER
from ..table1.read import point_mean_fit, seeds_done, stored_summaries
from ..bend.runs import JOINT16_POINTS
from .runs import FRESH_GRIDS, Figure3Fresh

POINTS = list(FRESH_GRIDS["paper_cpu"].points)
POINTS16 = list(JOINT16_POINTS)  # without the costliest point, (256, 64, 1) (claims.bend: table1.joint.fresh16)
SHORT = [p for p in POINTS if p[0] <= 128 and p[2] == 1]  # the points a laptop reaches first (T <= 128, B = 1)


def fresh_summary(scale: Scale = "paper_cpu") -> tuple[pd.DataFrame, int, int]:
    """The fresh seeds' stored runs, and (runs stored, runs registered)."""
    results, have, need = Figure3Fresh(scale=scale).cached()
    frames = [r.summary for r in results.values() if len(r.summary)]
    return (pd.concat(frames) if frames else pd.DataFrame(columns=["T", "d", "B", "plateau_length"])), have, need


def first_summary() -> pd.DataFrame:
    """The first seeds (0-2) stored at the same points (Figure 3 on Table 1's model and its cheap end)."""
    summary = stored_summaries()[0]
    return summary[summary["seed"].isin((0, 1, 2))]


def stored_at(summary: pd.DataFrame, points: list[tuple[int, int, int]]) -> int:
    """Runs stored at ``points``, over all their seeds."""
    return sum(seeds_done(summary, *p) for p in points)


def fit_rows(summary: pd.DataFrame, points: list[tuple[int, int, int]], predictors: tuple[str, ...], label: str) -> list[dict]:
    """The paper's estimator: one least-squares fit to the points' mean log plateaus (a point enters with its crossed
    seeds' mean), its exponents with 95% t intervals on the fit's residual degrees of freedom."""
    fit = point_mean_fit(summary, points, predictors, min_seeds=1).set_index("quantity")
    return [{"seeds": label, "exponent": q, "ours": fit.loc[q, "ours"], "low": fit.loc[q, "low"],
             "high": fit.loc[q, "high"], "paper": PAPER["figure3"][q], "points": int(fit.loc[q, "points"])}
            for q in predictors]



