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
    """(T slope of ``a``) − (T slope of ``b``), each fitted to its point means with one intercept per d
    (`fixed_effect_fit`, the registered slopes' own model), with a 95% t interval from the two fits' residuals
    (Welch–Satterthwaite degrees of freedom): what a misfit of either law adds to the seeds' spread, which
    `slope_difference_interval` counts alone; and the two fits' lack-of-fit p (``p_a``, ``p_b``)."""
    from ...metrics import t_quantile_975
    from ..table1.read import fixed_effect_fit

    fa, fb = (fixed_effect_fit(s, points, "T", "d") for s in (a, b))
    out = {"ours": math.nan, "low": math.nan, "high": math.nan, "p_a": fa["p"], "p_b": fb["p"]}
    if not all(np.isfinite(f["low"]) for f in (fa, fb)):
        return out
    sa, sb = ((f["high"] - f["low"]) / (2 * t_quantile_975(f["df"])) for f in (fa, fb))
    if sa == 0 and sb == 0:
        return out | {"ours": fa["ours"] - fb["ours"], "low": fa["ours"] - fb["ours"], "high": fa["ours"] - fb["ours"]}
    df = (sa ** 2 + sb ** 2) ** 2 / (sa ** 4 / fa["df"] + sb ** 4 / fb["df"])
    est, half = float(fa["ours"] - fb["ours"]), t_quantile_975(df) * math.hypot(sa, sb)
    return out | {"ours": est, "low": est - half, "high": est + half}


def architecture_logs(summary: pd.DataFrame, T: int, d: int, layers: int, heads: int) -> np.ndarray:
    """The log plateaus of the seeds that reached the threshold at (T, d) with ``layers`` layers of ``heads`` heads."""
    if not len(summary):
        return np.array([])
    sel = summary[(summary["T"] == T) & (summary["d"] == d) & (summary["n_layers"] == layers)
                  & (summary["n_heads"] == heads)]
    v = sel["plateau_length"].to_numpy(float)
    return np.log(v[np.isfinite(v)])


def architecture_fit(summary: pd.DataFrame, points: list[tuple[int, int, int, int]], min_seeds: int = 2) -> pd.DataFrame:
    """Figure 13's exponents at Table 1's width: the least-squares fit of the points' mean log plateau on log H and
    log L with one intercept per (T, d), over ``points`` (T, d, L, H). Each coefficient, and heads − layers, is a
    linear contrast of the point means: its registered 95% interval is Welch's, from each point's seeds
    (`contrast_interval`); beside it, the interval from the fit's residuals and the lack-of-fit F test of the law on
    the seeds. Where the test rejects (p < 0.05), the residuals' interval is recorded if it is the wider (a Welch
    interval counts the seeds alone, not a misfit). One row per quantity; nan where too few points have seeds."""
    from ...metrics import t_quantile_975
    from ..table1.read import design_lack_of_fit

    cols = ["quantity", "ours", "welch_low", "welch_high", "resid_low", "resid_high", "df", "F", "p", "low", "high",
            "recorded", "points"]
    usable = [(p, g) for p in points if len(g := architecture_logs(summary, *p)) >= min_seeds]
    cells = sorted({(T, d) for (T, d, _, _), _ in usable})
    m, k = len(usable), len(cells) + 2
    if m <= k or len({p[3] for p, _ in usable}) < 2 or len({p[2] for p, _ in usable}) < 2:
        return pd.DataFrame(columns=cols)

    def row(p: tuple[int, int, int, int]) -> list[float]:
        return [float((p[0], p[1]) == c) for c in cells] + [math.log(p[3]), math.log(p[2])]

    X = np.array([row(p) for p, _ in usable])
    if np.linalg.matrix_rank(X) < k:  # H or L varies only across (T, d): no slope to read
        return pd.DataFrame(columns=cols)
    y = np.array([g.mean() for _, g in usable])
    hat = np.linalg.inv(X.T @ X) @ X.T  # coefficient j = hat[j] · point means
    beta = hat @ y
    df = m - k
    s2 = float(((y - X @ beta) ** 2).sum()) / df
    F, p_value = design_lack_of_fit([row(p) for p, _ in usable], [g for _, g in usable])
    out = []
    for name, w in (("heads", hat[-2]), ("layers", hat[-1]), ("heads − layers", hat[-2] - hat[-1])):
        est, wl, wh = contrast_interval([g for _, g in usable], list(w))
        h = t_quantile_975(df) * math.sqrt(s2 * float(w @ w))
        rl, rh = est - h, est + h
        wider = bool(np.isfinite(p_value) and p_value < 0.05 and rh - rl >= wh - wl)
        out.append({"quantity": name, "ours": est, "welch_low": wl, "welch_high": wh, "resid_low": rl,
                    "resid_high": rh, "df": df, "F": F, "p": p_value, "low": rl if wider else wl,
                    "high": rh if wider else wh, "recorded": "residuals: the law misfits" if wider else "Welch",
                    "points": m})
    return pd.DataFrame(out, columns=cols)
