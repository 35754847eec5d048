"""Table 1's own settings on this CPU: the ``paper_cpu`` scale of Figure 3, judged point by point.

The paper fits one law, 0.76·d^1.29·T^0.80·B^−0.80 (R² = 0.995), to its whole Figure 3 grid (left and middle
panels). The ``paper_cpu`` scale trains the paper's own model (Table 1) at the cheapest of the paper's points
and a few of its own. Three readings, each with a 95% interval:

* per point: our plateau over the paper's law at that point (`point_table`). The law is a fit, not an exact
  prediction: one point scatters about it by the residual σ that its R² implies (`law_residual_sd`), which the
  verdict adds to our interval (`claims.IntervalRule`);
* the exponents fitted on the subset (`exponent_table`: OLS on every seed's plateau, t intervals);
* the direction of cross-sample repetition (`cross_sample_table`: seed intervals on log ratios).

And the bridge (`bridge_table`): the cpu scale's model moved to Table 1's one setting at a time.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .figures.paper import PAPER
from .figures.regression import BRIDGE_STEPS, TRANSFORMER_GRIDS, TransformerGrid
from .metrics import fit_power_law, t_quantile_975

LAW = PAPER["figure3"]
Z = 1.96


def law(T: float, d: float, B: float = 1) -> float:
    """The paper's Figure 3 law at (T, d, B), in steps."""
    return float(LAW["C"] * d ** LAW["d"] * T ** LAW["T"] * B ** LAW["B"])


def paper_points(grid: TransformerGrid = TRANSFORMER_GRIDS["paper"]) -> list[tuple[int, int, int]]:
    """The (T, d, B) points of the paper's Figure 3 left and middle panels, the ones its law was fitted to."""
    return [(T, d, 1) for T in grid.T for d in grid.d] + [(grid.T_B, d, B) for B in grid.B if B > 1 for d in grid.d]


def our_points(grid: TransformerGrid = TRANSFORMER_GRIDS["paper_cpu"]) -> list[tuple[int, int, int]]:
    """The (T, d, B) points the paper_cpu scale runs at B = 1 and in the middle panel, in the registry's order."""
    points = [(T, d, 1) for T in grid.T for d in grid.d] + [(T, d, 1) for T, d in grid.larger]
    return points + [(grid.T_B, d, B) for B in grid.B if B > 1 for d in grid.d]


def point_key(T: int, d: int, B: int) -> str:
    return f"T{T}_d{d}_B{B}"


def law_residual_sd(r2: float = LAW["R2"], n_params: int = 4) -> float:
    """σ of one point about the paper's law, in log space, from the law's R².

    R² = 1 − SS_res/SS_tot and, for least squares, SS_tot = SS_law + SS_res, so SS_res = (1 − R²)/R² × SS_law,
    where SS_law is the spread the law itself spans over the points it was fitted to (`paper_points`), which
    the law determines. Divided by the residual degrees of freedom (n − 4 parameters). At R² = 0.995 on the
    paper's 32 points this is about 0.09: one point lies within about ±20% of the law (1.96σ)."""
    logs = np.log([law(T, d, B) for T, d, B in paper_points()])
    ss_law = float(np.sum((logs - logs.mean()) ** 2))
    return math.sqrt((1 - r2) / r2 * ss_law / (len(logs) - n_params))


def _t_interval(logs: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high) of log values, a 95% t interval over seeds (nan bounds with one seed)."""
    m = float(np.mean(logs))
    if len(logs) < 2:
        return m, float("nan"), float("nan")
    h = float(t_quantile_975(len(logs) - 1) * np.std(logs, ddof=1) / math.sqrt(len(logs)))
    return m, m - h, m + h


def point_table(summary: pd.DataFrame, points: list[tuple[int, int, int]] | None = None) -> pd.DataFrame:
    """Per (T, d, B): seeds run, the geometric mean plateau over seeds with its 95% interval, the paper's law,
    and our plateau over the law with its interval. ``summary``: the runs' summary rows (B = 1 and the middle
    panel, p = 0, the base lr). A seed that did not reach the threshold makes the point's values lower bounds:
    it is kept out of the mean and counted in ``not_reached``."""
    points = points if points is not None else our_points()
    paper_set = set(paper_points())
    rows = []
    for T, d, B in points:
        runs = summary[(summary["T"] == T) & (summary["d"] == d) & (summary["B"] == B)]
        ok = runs[np.isfinite(runs["plateau_length"].astype(float))]
        row = {"T": T, "d": d, "B": B, "in paper's grid": (T, d, B) in paper_set, "seeds": len(runs),
               "not_reached": len(runs) - len(ok), "law": law(T, d, B)}
        if len(ok):
            m, lo, hi = _t_interval(np.log(ok["plateau_length"].to_numpy(float)))
            row |= {"plateau": math.exp(m), "ratio": math.exp(m) / row["law"], "ratio_low": math.exp(lo) / row["law"],
                    "ratio_high": math.exp(hi) / row["law"], "minutes": float(runs["seconds"].sum() / 60)}
        rows.append(row)
    cols = ["T", "d", "B", "in paper's grid", "seeds", "not_reached", "plateau", "law", "ratio", "ratio_low",
            "ratio_high", "minutes"]
    return pd.DataFrame(rows).reindex(columns=cols)


def exponent_table(summary: pd.DataFrame, min_points: int = 5) -> pd.DataFrame:
    """The law C·d^α·T^β·B^γ fitted by OLS on every seed's plateau (B = 1 and the middle panel), with 95% t
    intervals, beside the paper's. Empty when fewer than ``min_points`` distinct (T, d, B) points are complete,
    or when an axis has a single value (its exponent is then left out)."""
    ok = summary[np.isfinite(summary["plateau_length"].astype(float))]
    n_points = len(ok.groupby(["T", "d", "B"]))
    predictors = [p for p in ("d", "T", "B") if ok[p].nunique() > 1]
    cols = ["quantity", "ours", "low", "high", "paper", "points", "runs"]
    if n_points < min_points or not predictors or len(ok) <= len(predictors) + 1:
        return pd.DataFrame(columns=cols)
    fit = fit_power_law(ok, predictors)
    t = t_quantile_975(fit.n - len(predictors) - 1)
    rows = [{"quantity": p, "ours": fit.exponents[p], "low": fit.exponents[p] - t * fit.stderr[p],
             "high": fit.exponents[p] + t * fit.stderr[p], "paper": LAW[p], "points": n_points, "runs": fit.n}
            for p in predictors]
    rows.append({"quantity": "C", "ours": fit.constant, "low": fit.constant * math.exp(-t * fit.log_constant_stderr),
                 "high": fit.constant * math.exp(t * fit.log_constant_stderr), "paper": LAW["C"],
                 "points": n_points, "runs": fit.n})
    rows.append({"quantity": "R2", "ours": fit.r2, "low": float("nan"), "high": float("nan"), "paper": LAW["R2"],
                 "points": n_points, "runs": fit.n})
    return pd.DataFrame(rows, columns=cols)


def log_contrast_interval(groups: list[np.ndarray], signs: list[int]) -> tuple[float, float, float]:
    """exp(Σ sign · mean log group) with its 95% Welch–Satterthwaite interval: (ratio, low, high).
    [a, b] with signs [1, −1] is the ratio a/b; nan bounds when a group has fewer than 2 seeds."""
    logs = [np.log(np.asarray(g, float)) for g in groups]
    m = float(sum(s * lg.mean() for s, lg in zip(signs, logs)))
    if any(len(lg) < 2 for lg in logs):
        return math.exp(m), float("nan"), float("nan")
    v = [lg.var(ddof=1) / len(lg) for lg in logs]
    se = math.sqrt(sum(v))
    if se == 0:
        return math.exp(m), math.exp(m), math.exp(m)
    df = sum(v) ** 2 / sum(vi ** 2 / (len(lg) - 1) for vi, lg in zip(v, logs))
    h = t_quantile_975(df) * se
    return math.exp(m), math.exp(m - h), math.exp(m + h)


def cross_sample_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per d at the right panel's T: plateau (loss 0.4, data without repetition) at p = 0 over the same at the
    largest p, each p at its better learning rate (the shorter geometric mean, as the paper keeps the better lr per
    point), with a 95% interval over seeds; and the largest d's speed-up over the smallest d's (row d = "ratio")."""
    p_top = summary["p"].max()
    groups: dict[tuple[int, float], np.ndarray] = {}
    for (d, p), g in summary.groupby(["d", "p"]):
        by_lr = {lr: r["plateau_length"].to_numpy(float) for lr, r in g.groupby("lr")}
        finite = {lr: v for lr, v in by_lr.items() if len(v) and np.isfinite(v).all()}
        if finite:
            groups[(d, p)] = min(finite.values(), key=lambda v: float(np.mean(np.log(v))))
    rows = []
    ds = sorted({d for d, p in groups if (d, 0.0) in groups and (d, p_top) in groups})
    for d in ds:
        r, lo, hi = log_contrast_interval([groups[(d, 0.0)], groups[(d, p_top)]], [1, -1])
        rows.append({"d": d, "p": p_top, "speed-up": r, "low": lo, "high": hi})
    if len(ds) >= 2:
        a, b = ds[-1], ds[0]
        r, lo, hi = log_contrast_interval([groups[(a, 0.0)], groups[(a, p_top)], groups[(b, 0.0)], groups[(b, p_top)]],
                                          [1, -1, -1, 1])
        rows.append({"d": f"d = {a} over d = {b}", "p": p_top, "speed-up": r, "low": lo, "high": hi})
    return pd.DataFrame(rows, columns=["d", "p", "speed-up", "low", "high"])


def bridge_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Per (T, d) and bridge step (`figures.regression.BRIDGE_STEPS`): the geometric mean plateau over seeds with
    its 95% interval, and its ratio to the cpu scale's model at the same point."""
    rows = []
    for (T, d), g in summary.groupby(["T", "d"]):
        base = None
        for label, step in BRIDGE_STEPS:
            runs = g[(g["d_model"] == step["d_model"]) & np.isclose(g["lr"], step["lr"])]
            ok = runs[np.isfinite(runs["plateau_length"])]
            if not len(ok):
                continue
            m, lo, hi = _t_interval(np.log(ok["plateau_length"].to_numpy(float)))
            base = m if base is None and step is BRIDGE_STEPS[0][1] else base
            rows.append({"T": T, "d": d, "setting": label, "seeds": len(ok), "plateau": math.exp(m),
                         "low": math.exp(lo), "high": math.exp(hi),
                         "× cpu model": math.exp(m - base) if base is not None else float("nan"),
                         "paper's law": law(T, d)})
    return pd.DataFrame(rows, columns=["T", "d", "setting", "seeds", "plateau", "low", "high", "× cpu model", "paper's law"])


def bridge_exponents(summary: pd.DataFrame) -> pd.DataFrame:
    """Per bridge setting: the local exponents the bridge's three points give, d's from (T, d) = (32, 16) → (32, 32)
    and T's from (32, 16) → (64, 16), each a log-ratio over ln 2 with its 95% Welch interval over seeds."""
    rows = []
    for label, step in BRIDGE_STEPS:
        runs = summary[(summary["d_model"] == step["d_model"]) & np.isclose(summary["lr"], step["lr"])]

        def seeds(T: int, d: int) -> np.ndarray:
            v = runs[(runs["T"] == T) & (runs["d"] == d)]["plateau_length"].to_numpy(float)
            return v[np.isfinite(v)]

        row: dict = {"setting": label}
        for name, (a, b) in (("d", ((32, 32), (32, 16))), ("T", ((64, 16), (32, 16)))):
            ga, gb = seeds(*a), seeds(*b)
            if len(ga) and len(gb):
                r, lo, hi = log_contrast_interval([ga, gb], [1, -1])
                row |= {f"{name} exponent": math.log2(r), f"{name} low": math.log2(lo) if lo == lo else lo,
                        f"{name} high": math.log2(hi) if hi == hi else hi}
        rows.append(row)
    cols = ["setting", "d exponent", "d low", "d high", "T exponent", "T low", "T high"]
    return pd.DataFrame(rows).reindex(columns=cols)
