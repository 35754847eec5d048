"""Readers of Table 1's model where the paper measured (`runs.Figure3Measured`), and of the cheap end's runs
(`regression.runs.Figure3` at paper_cpu) where a claim reads both.

The law may misfit (a lack-of-fit F test rejects it on the cheap end: `lack_of_fit`), so seeds are never counted as
independent points of it. A point is its seeds' mean log plateau, with a t interval over them; an exponent is a
linear contrast of point means (the least-squares slope through them, `measured_slope`), with a Welch–Satterthwaite
interval from each point's own seed variance (`contrast_interval`).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pandas as pd

from ...metrics import lack_of_fit_test, t_quantile_975
from ..regression import read as regression_read
from ...report import and_list
from ..regression.runs import Figure3, law, point_key
from .runs import Figure3Measured

CHEAP_POINTS = [(T, d, 1) for T in (32, 64) for d in (16, 32)]  # the cheap end's points some claims read too
# A cheap-end point no claim here reads: d = 64's short end, shown beside once all its seeds are stored, so that the
# figure and the local exponents follow d = 64 from T = 32 (described, not judged; never a hollow marker).
SHOWN_BESIDE = [(32, 64, 1)]
# The pairs of lengths each d's local T exponent reads: neighbours where the grid has them (d = 64 has no T = 64 or 192).
T_PAIRS = {16: [(32, 64), (64, 128), (128, 192), (192, 256)], 32: [(32, 64), (64, 128), (128, 192), (192, 256)],
           64: [(32, 128), (128, 256)]}
# The points run "as the budget allows": registered (7594059, before any run) as "3 seeds listed; its claims read
# whatever seeds have finished, at least 2 for an interval". Such a point is judged once that many of its seeds have
# crossed (or all are stored), and again as more come in; every other point only once all its seeds are stored.
AS_BUDGET_ALLOWS = {(256, 64, 1): 2}
# Each exponent claim: the points it needs complete, the points it takes when they have ≥ 2 seeds (the points run as
# the budget allows), the axis of its slope and the fixed effect (`measured_slope`).
EXPONENTS = {
    "d_exponent_T256": ([(256, 16, 1), (256, 32, 1)], [(256, 64, 1)], "d", None),
    "d_exponent_T128": ([(128, d, 1) for d in (16, 32, 64)], [], "d", None),
    "T_exponent": ([(T, d, 1) for d in (16, 32) for T in (32, 64, 128, 192, 256)], [], "T", "d"),
    "B_exponent_T256": ([(256, d, B) for d in (16, 32) for B in (1, 2, 4, 8)], [], "B", "d"),
}
GROWS_POINTS = [(256, 16, 1), (256, 32, 1), (32, 16, 1), (32, 32, 1)]



def contrast_interval(groups: list[np.ndarray], weights: list[float]) -> tuple[float, float, float]:
    """Σ wᵢ · mean(gᵢ) over groups of values (the seeds' log plateaus of one point each), with its 95%
    Welch–Satterthwaite t interval from each group's own variance: (estimate, low, high); nan bounds when a group
    with a non-zero weight has fewer than 2 values. Each point counts once, whatever its seeds: seeds are repeated
    measurements of a point, not points of the law."""
    used = [(np.asarray(g, float), w) for g, w in zip(groups, weights) if w != 0]
    m = float(sum(w * g.mean() for g, w in used))
    if any(len(g) < 2 for g, _ in used):
        return m, float("nan"), float("nan")
    v = [w * w * g.var(ddof=1) / len(g) for g, w in used]
    se = math.sqrt(sum(v))
    if se == 0:
        return m, m, m
    df = sum(v) ** 2 / sum(vi ** 2 / (len(g) - 1) for vi, (g, _) in zip(v, used) if vi > 0)
    h = t_quantile_975(df) * se
    return m, m - h, m + h


def slope_weights(x: Sequence[float], within: Sequence[object]) -> list[float]:
    """The weights that make Σ wᵢ yᵢ the least-squares slope of y on x with one intercept per ``within`` group
    (a fixed effect): wᵢ = (xᵢ − x̄ of its group) / Σ (xⱼ − x̄ of j's group)²."""
    xs = np.asarray(x, float)
    groups = np.asarray([str(g) for g in within])
    centred = xs - np.array([xs[groups == g].mean() for g in groups])
    sxx = float((centred ** 2).sum())
    if sxx == 0:
        raise ValueError("the slope needs two distinct x values within some group")
    return list(centred / sxx)


def _reached_logs(summary: pd.DataFrame, T: int, d: int, B: int) -> np.ndarray:
    if not len(summary):
        return np.array([])
    runs = summary[(summary["T"] == T) & (summary["d"] == d) & (summary["B"] == B)]
    v = runs["plateau_length"].to_numpy(float)
    return np.log(v[np.isfinite(v)])


def measured_slope(summary: pd.DataFrame, points: list[tuple[int, int, int]], along: str, within: str | None,
                   min_seeds: int = 2) -> dict:
    """The exponent of ``along`` ("T", "d" or "B") over ``points``: the least-squares slope of the points' mean log
    plateau on log ``along`` (one intercept per value of ``within``, or one in all), as a contrast of point means with
    its Welch interval (`contrast_interval`). Only the points with at least ``min_seeds`` seeds that reached the
    threshold enter; with fewer than two usable x values in every group the slope is nan."""
    axis = {"T": 0, "d": 1, "B": 2}
    usable = [(p, _reached_logs(summary, *p)) for p in points]
    usable = [(p, g) for p, g in usable if len(g) >= min_seeds]
    row = {"ours": float("nan"), "low": float("nan"), "high": float("nan"), "points": len(usable),
           "of": len(points), "used": ", ".join(f"({T}, {d}, {B})" for (T, d, B), _ in usable)}
    if len(usable) < 2:
        return row
    x = [math.log(p[axis[along]]) for p, _ in usable]
    groups_of = [p[axis[within]] if within else 0 for p, _ in usable]
    try:
        w = slope_weights(x, groups_of)
    except ValueError:
        return row
    est, lo, hi = contrast_interval([g for _, g in usable], w)
    return row | {"ours": est, "low": lo, "high": hi}


def local_d_exponent(summary: pd.DataFrame, T: int, d_low: int = 16, d_high: int = 32) -> dict:
    """log2-slope of the plateau from d_low to d_high at T (B = 1), with its Welch interval over seeds."""
    a, b = _reached_logs(summary, T, d_high, 1), _reached_logs(summary, T, d_low, 1)
    scale = 1 / math.log(d_high / d_low)
    if not (len(a) and len(b)):
        return {"T": T, "ours": float("nan"), "low": float("nan"), "high": float("nan"), "seeds": (len(b), len(a))}
    est, lo, hi = contrast_interval([a, b], [scale, -scale])
    return {"T": T, "ours": est, "low": lo, "high": hi, "seeds": (len(b), len(a))}


def local_exponent_difference(summary: pd.DataFrame, T_high: int, T_low: int) -> tuple[float, float, float]:
    """The local d exponent (16 → 32) at T_high minus the same at T_low, with its Welch interval."""
    s = 1 / math.log(2)
    groups = [_reached_logs(summary, T_high, 32, 1), _reached_logs(summary, T_high, 16, 1),
              _reached_logs(summary, T_low, 32, 1), _reached_logs(summary, T_low, 16, 1)]
    if not all(len(g) for g in groups):
        return float("nan"), float("nan"), float("nan")
    return contrast_interval(groups, [s, -s, -s, s])


def d_curvature(summary: pd.DataFrame, T: int, ds: tuple[int, int, int] = (16, 32, 64)) -> tuple[float, float, float]:
    """The local d exponent from ds[1] to ds[2] minus the one from ds[0] to ds[1] at T (B = 1, doublings), with its
    Welch interval: zero where one power of d fits the three points, positive where the plateau bends upward."""
    s = 1 / math.log(2)
    groups = [_reached_logs(summary, T, d, 1) for d in ds]
    if not all(len(g) for g in groups) or ds[1] != 2 * ds[0] or ds[2] != 2 * ds[1]:
        return float("nan"), float("nan"), float("nan")
    return contrast_interval(groups, [s, -2 * s, s])


def lack_of_fit(summary: pd.DataFrame, points: list[tuple[int, int, int]], predictors: tuple[str, ...]) -> dict:
    """`metrics.lack_of_fit_test` on every reached seed at ``points`` (T, d, B), each point one group: F, its
    degrees of freedom and p; a small p says the seeds are not independent points of the law (use point means).
    ``predictors`` must name every coordinate the points vary in, so that a group is a point."""
    varying = {q for i, q in enumerate(("T", "d", "B")) if len({pt[i] for pt in points}) > 1}
    if not varying <= set(predictors):
        raise ValueError(f"the points vary in {sorted(varying - set(predictors))}, which the law {predictors} leaves out")
    runs = pd.DataFrame([{"T": pt[0], "d": pt[1], "B": pt[2], "plateau_length": float(v)}
                         for pt in points for v in np.exp(_reached_logs(summary, *pt))],
                        columns=["T", "d", "B", "plateau_length"])
    out = lack_of_fit_test(runs, predictors, "plateau_length")
    return {**out, "df_lack": int(out["df_lack"]), "df_pure": int(out["df_pure"])}


def point_mean_fit(summary: pd.DataFrame, points: list[tuple[int, int, int]], predictors: tuple[str, ...],
                   min_seeds: int = 2) -> pd.DataFrame:
    """The power law in ``predictors`` fitted by least squares to the points' mean log plateaus, each point once,
    with 95% t intervals from the fit's own residuals on n points − k − 1 degrees of freedom: a lack of fit widens
    them, as it should, where a fit pooled over seeds counts the seeds as points and reads the misfit as noise."""
    from ...metrics import fit_power_law

    axis = {"T": 0, "d": 1, "B": 2}
    rows = [{"T": p[0], "d": p[1], "B": p[2], "plateau_length": math.exp(float(g.mean()))}
            for p, g in ((p, _reached_logs(summary, *p)) for p in points) if len(g) >= min_seeds]
    cols = ["quantity", "ours", "low", "high", "points", "df"]
    if len(rows) <= len(predictors) + 1:
        return pd.DataFrame(columns=cols)
    fit = fit_power_law(pd.DataFrame(rows), list(predictors))
    df = fit.n - len(predictors) - 1
    t = t_quantile_975(df)
    assert set(predictors) <= set(axis)
    return pd.DataFrame([{"quantity": q, "ours": fit.exponents[q], "low": fit.exponents[q] - t * fit.stderr[q],
                          "high": fit.exponents[q] + t * fit.stderr[q], "points": fit.n, "df": df} for q in predictors],
                        columns=cols)


def local_T_exponent(summary: pd.DataFrame, d: int, T_low: int, T_high: int) -> dict:
    """The slope of the log plateau from T_low to T_high at d (B = 1), with its Welch interval over seeds: how fast
    the plateau grows with T between two neighbouring lengths (the law says 0.80 everywhere)."""
    a, b = _reached_logs(summary, T_high, d, 1), _reached_logs(summary, T_low, d, 1)
    row = {"d": d, "T": f"{T_low} → {T_high}", "ours": float("nan"), "low": float("nan"), "high": float("nan"),
           "seeds": (len(b), len(a))}
    if not (len(a) and len(b)):
        return row
    scale = 1 / math.log(T_high / T_low)
    est, lo, hi = contrast_interval([a, b], [scale, -scale])
    return row | {"ours": est, "low": lo, "high": hi}


def respecting_the_misfit(amended: bool | str, row: dict, summary: pd.DataFrame, usable: list[tuple[int, int, int]],
                          along: str, within: str | None) -> dict:
    """An exponent claim amended after its data (``amended``: its `claims.Claim.amended`): `take_the_wider` with the
    same slope fitted to the point means (`fixed_effect_fit`: one intercept per ``within`` value, the residual
    degrees of freedom). A slope without a ``within`` axis, or with no interval, keeps its registered reading; every
    slope with an interval carries the lack-of-fit test of its law (F and p: nan where the points leave no degree of
    freedom for it), printed beside it whether or not it moves the verdict."""
    if not np.isfinite(row["low"]):
        return take_the_wider("", row, {"p": float("nan"), "F": float("nan")})
    fit = fixed_effect_fit(summary, usable, along, within)
    return take_the_wider(amended if within is not None else "", row, fit)


def take_the_wider(amended: bool | str, row: dict, fit: dict) -> dict:
    """Where an amended claim's law misfits its points (``fit``'s lack-of-fit p < 0.05), the interval of the fit to
    the point means (``fit``: ours, low, high, df, p) replaces the registered Welch one in ``row``, which counts the
    seeds alone; never a narrower one. The row keeps both readings ("registered", and "recorded": the verdict's)."""
    row = row | {"registered": f"{row['ours']:.2f} [{row['low']:.2f}, {row['high']:.2f}]",
                 "recorded": "Welch (registered)", "lack_of_fit_F": fit.get("F", float("nan")), "lack_of_fit_p": fit["p"]}
    if (amended and np.isfinite(fit["p"]) and fit["p"] < 0.05 and np.isfinite(row["low"])
            and np.isfinite(fit["low"]) and fit["high"] - fit["low"] >= row["high"] - row["low"]):
        return row | {k: float(fit[k]) for k in ("ours", "low", "high")} | {
            "recorded": f"point means ({int(fit['df'])} df): the law misfits"}
    return row


def fixed_effect_fit(summary: pd.DataFrame, points: list[tuple[int, int, int]], along: str, within: str | None,
                     min_seeds: int = 2) -> dict:
    """`measured_slope`'s slope (one intercept per value of ``within``) fitted by least squares to the same point
    means, with a 95% t interval from the fit's own residuals (points − intercepts − 1 degrees of freedom), and the
    lack-of-fit F test of that same model on the seeds (their scatter about each point's mean is pure error). The
    estimate equals `measured_slope`'s; only the interval differs: it counts a misfit, which Welch's leaves out."""
    axis = {"T": 0, "d": 1, "B": 2}
    usable = [(p, g) for p in points if len(g := _reached_logs(summary, *p)) >= min_seeds]
    levels = sorted({p[axis[within]] if within else 0 for p, _ in usable})
    out = {"ours": math.nan, "low": math.nan, "high": math.nan, "df": math.nan, "F": math.nan, "p": math.nan}
    m, k = len(usable), len(levels) + 1

    def row(p: tuple[int, int, int]) -> list[float]:
        return [float((p[axis[within]] if within else 0) == v) for v in levels] + [math.log(p[axis[along]])]

    if m <= k:
        return out
    X = np.array([row(p) for p, _ in usable])
    if np.linalg.matrix_rank(X) < k:
        return out
    y = np.array([g.mean() for _, g in usable])
    beta = np.linalg.lstsq(X, y, rcond=None)[0]
    df = m - k
    s2 = float(((y - X @ beta) ** 2).sum()) / df
    h = t_quantile_975(df) * math.sqrt(s2 * float(np.linalg.inv(X.T @ X)[-1, -1]))
    F, p_value = design_lack_of_fit([row(p) for p, _ in usable], [g for _, g in usable])
    return {"ours": float(beta[-1]), "low": float(beta[-1] - h), "high": float(beta[-1] + h), "df": float(df),
            "F": F, "p": p_value}


def design_lack_of_fit(rows: list[list[float]], groups: list[np.ndarray]) -> tuple[float, float]:
    """The lack-of-fit F test of the linear model with design ``rows`` (one per point) on the seeds ``groups``: F on
    (points − parameters, seeds − points) and its p; nan where there is no pure error or no lack to test."""
    from ...metrics import f_survival

    Xs = np.array([r for r, g in zip(rows, groups) for _ in g])
    ys = np.concatenate(groups)
    m, n, k = len(groups), len(ys), Xs.shape[1]
    ss_res = float(((ys - Xs @ np.linalg.lstsq(Xs, ys, rcond=None)[0]) ** 2).sum())
    ss_pure = float(sum(((g - g.mean()) ** 2).sum() for g in groups))
    if n <= m or m <= k or ss_pure <= 0:
        return math.nan, math.nan
    F = max(ss_res - ss_pure, 0.0) / (m - k) / (ss_pure / (n - m))
    return float(F), float(f_survival(F, m - k, n - m))


# ---- the stored runs of both Table 1 figures, for `show.measured`

def seeds_done(summary: pd.DataFrame, T: int, d: int, B: int, reached_only: bool = False) -> int:
    """Stored seeds at (T, d, B); with ``reached_only``, those that crossed the threshold."""
    if reached_only:
        return len(_reached_logs(summary, T, d, B))
    if not len(summary):
        return 0
    return int(((summary["T"] == T) & (summary["d"] == d) & (summary["B"] == B)).sum())


def stored_summaries() -> tuple[pd.DataFrame, dict[tuple[int, int, int], int], int, int]:
    """Every stored B = 1 / B-panel run of both Table 1 figures (the new points and the cheap end), the seeds each
    point needs, and (runs stored, runs registered) of the new points."""
    figure = Figure3Measured(scale="paper_cpu")
    results, have, need = figure.cached()
    cheap, _, _ = Figure3(scale="paper_cpu").cached()
    frames = [r.summary for r in results.values() if len(r.summary)]
    frames += [cheap[k].summary for k in ("T", "B", "larger") if len(cheap[k].summary)]
    cols = ["T", "d", "B", "seed", "plateau_length", "seconds", "run"]
    summary = pd.concat(frames).drop_duplicates("run") if frames else pd.DataFrame(columns=cols)
    seeds = {(T, d, B): len(s) for T, d, B, s in figure.grid.points}
    seeds |= {p: len(Figure3(scale="paper_cpu").grid.seeds) for p in CHEAP_POINTS + SHOWN_BESIDE}
    return summary, seeds, have, need


def seeds_so_far(p: tuple[int, int, int], done: int, registered: int) -> str:
    so_far = f"{done} of {registered} seeds"
    return so_far + (f" stored; judged once {AS_BUDGET_ALLOWS[p]} have crossed" if p in AS_BUDGET_ALLOWS else "")


def in_progress(p: tuple[int, int, int]) -> str:
    """The seeds of point ``p`` whose runs are checkpointed, not stored yet: "seed 0 at step 6,224, ..." (their
    `checkpoints.progress`); "none" where no seed of it is."""
    from ...cache import run_key
    from ...checkpoints import progress, resume_folder
    from ..base import cache_for

    cache = cache_for("paper_cpu")
    runs = Figure3Measured(scale="paper_cpu").sweeps()[point_key(*p)]
    if cache is None:
        return "none"
    steps = [(r.seed, info) for r in runs if not cache.path(r).exists()
             and (info := progress(resume_folder(cache.root), run_key(r), r)) is not None]
    return ", ".join(f"seed {seed} at step {info['step']:,}" for seed, info in steps) or "none"


def only_points(summary: pd.DataFrame, points: list[tuple[int, int, int]]) -> pd.DataFrame:
    if not len(summary):
        return summary
    keep = [(T, d, B) in set(points) for T, d, B in zip(summary["T"], summary["d"], summary["B"])]
    return summary[keep]


def all_points(summary: pd.DataFrame, complete: list[tuple[int, int, int]]) -> pd.DataFrame:
    ordered = sorted(complete)
    return regression_read.point_table(only_points(summary, ordered), ordered)


def local_exponents(summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The local d exponent per T, over each doubling of d (16 → 32 at every length, a row even where not stored;
    32 → 64 where both points are), and the local T exponent per d over `T_PAIRS` (d = 64's rows only where stored):
    described, not judged. As for the registered claims, an interval needs 2 crossed seeds at each end: with fewer
    the row shows nan, never one seed's value (a seed that never crossed is not in any estimate)."""
    def with_interval(row: dict) -> dict:
        return row if np.isfinite(row["low"]) else row | {"ours": float("nan")}

    lengths = (32, 64, 128, 192, 256)
    local = pd.DataFrame([with_interval({"T": T, "d": f"{lo} → {hi}"} | local_d_exponent(summary, T, lo, hi))
                          for lo, hi in ((16, 32), (32, 64)) for T in lengths])
    local = local[(local["d"] == "16 → 32") | np.isfinite(local["ours"].astype(float))].reset_index(drop=True)
    local_T = pd.DataFrame([with_interval(local_T_exponent(summary, d, lo, hi))
                            for d, pairs in T_PAIRS.items() for lo, hi in pairs])
    local_T = local_T[(local_T["d"] != 64) | np.isfinite(local_T["ours"].astype(float))].reset_index(drop=True)
    return local, local_T


def never_crossed(summary: pd.DataFrame, points: list[tuple[int, int, int]]) -> pd.DataFrame:
    """The stored seeds of ``points`` that ran to their end without reaching the threshold (plateau ∞; a diverged run,
    NaN, says nothing of its plateau and is not one). Each one's plateau is longer than the steps it ran, so ``bound``
    = steps run / the paper's law is a lower bound on its ratio to the law. Such a seed enters no estimate
    (registered: an interval needs crossed seeds), which biases its point's mean down: described, not judged."""
    cols = ["T", "d", "B", "seed", "steps_run", "law", "bound"]
    runs = only_points(summary, points)
    if not len(runs):
        return pd.DataFrame(columns=cols)
    runs = runs[np.isinf(runs["plateau_length"].astype(float))]
    rows = [{"T": r.T, "d": r.d, "B": r.B, "seed": r.seed, "steps_run": int(r.steps_run), "law": law(r.T, r.d, r.B),
             "bound": r.steps_run / law(r.T, r.d, r.B)} for r in runs.itertuples()]
    return pd.DataFrame(rows, columns=cols).sort_values(["T", "d", "B", "seed"]).reset_index(drop=True)


def budget_phrase(p: tuple[int, int, int], registered: int, stored: int, crossed: int, never: pd.DataFrame) -> str:
    """Where the point ``p``, run as the budget allows, stands in the d exponent at T = 256: in it (2 seeds crossed),
    waiting for crossed seeds, or (every seed stored, fewer crossed) never to enter; then its seeds that never crossed,
    with their lower bounds on the law (one bound for all where they ran as long). "" once it is in with every stored
    seed crossed."""
    mine = never[(never["T"] == p[0]) & (never["d"] == p[1]) & (never["B"] == p[2])]
    if crossed >= 2:
        head = f"d = {p[1]} is in, from its {crossed} crossed seeds, a mean biased low" if len(mine) else ""
    elif stored >= registered:
        head = (f"d = {p[1]} enters no exponent: all {registered} of its seeds are stored and "
                f"{'none' if crossed == 0 else 'only 1'} crossed")
    else:
        head = f"d = {p[1]} enters once 2 of its {registered} seeds have crossed, {crossed} so far"
    if not len(mine):
        return head
    law_steps = f"the law's {mine['law'].iloc[0]:,.0f}"
    if mine["steps_run"].nunique() == 1:
        many = len(mine) > 1
        return (f"{head}; seed{'s' * many} {and_list([str(s) for s in mine['seed']])} never crossed in "
                f"{mine['steps_run'].iloc[0]:,} steps, a plateau over {mine['bound'].iloc[0]:.2f}× {law_steps}"
                + " each" * many)
    each = and_list([f"seed {r.seed} in {r.steps_run:,} steps ({r.bound:.2f}×)" for r in mine.itertuples()])
    return f"{head}; never crossed: {each}, plateaus over these multiples of {law_steps}"
