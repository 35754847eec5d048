"""Readers of Figures 3, 11 and 12 (single-location regression): tidy tables from sweep results (seed
means, fits, crossings re-read off the recorded curves). No run is computed here.

Table 1's own settings (the ``paper_cpu`` scale of Figure 3) are read point by point, each with a 95% interval:

* per point: our plateau over the paper's law at that point (`point_table`). The law is a fit, not an exact
  prediction: one point scatters about it by the residual σ that its R² implies (`runs.law_residual_sd`), which
  the verdict adds to our interval (`claims.IntervalRule`);
* the exponents fitted on the subset (`exponent_table`: OLS on every seed's plateau, t intervals);
* the direction of cross-sample repetition (`cross_sample_table`: seed intervals on log ratios);
* the bridge (`bridge_table`): the cpu scale's model moved to Table 1's one setting at a time.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

import math

from ...metrics import fit_power_law, t_quantile_975, mean_over_seeds
from ...sweep import SweepResult
from .runs import BRIDGE_STEPS, LAW, TransformerGrid, law, our_points, paper_points


def figure3_tables(results: dict[str, SweepResult], grid: TransformerGrid) -> dict[str, pd.DataFrame]:
    """Seed-averaged tables of Figure 3: "T" (left), "B" (middle), "joint" (both, for the fit), "larger",
    and the right panel at the better lr per (p, d) (as the paper chose), read on data without repetition
    ("p") and on the training distribution ("p_train"); "p_all"/"p_train_all" keep every lr."""
    T_tab = mean_over_seeds(results["T"].summary, ["T", "d", "B"])
    B_rows = results["B"].summary
    B_tab = mean_over_seeds(pd.concat([results["T"].summary[results["T"].summary["T"] == grid.T_B], B_rows]), ["T", "d", "B"])
    joint = pd.concat([T_tab, B_tab[B_tab["B"] > 1]], ignore_index=True)
    seeds = pd.concat([results["T"].summary, B_rows[B_rows["B"] > 1]], ignore_index=True)
    larger = mean_over_seeds(results["larger"].summary, ["T", "d", "B"]) if len(results["larger"].summary) else T_tab.iloc[:0]
    out = {"T": T_tab, "B": B_tab, "joint": joint, "larger": larger, "joint_seeds": seeds}
    # Right panel, read two ways: on data without repetition (the runs' own measure) and on the training distribution.
    p_train = results["p"].crossings("train_distribution_loss", 0.4, into="plateau_length", log=True)
    for name, summary in [("p", results["p"].summary), ("p_train", p_train)]:
        every_lr = mean_over_seeds(summary, ["p", "d", "lr"])
        best = every_lr.sort_values("plateau_length").groupby(["p", "d"], as_index=False).first().sort_values(["p", "d"])
        out[f"{name}_all"], out[name] = every_lr, best.reset_index(drop=True)
    return out


def t_over_b_table(T_table: pd.DataFrame, B_table: pd.DataFrame) -> pd.DataFrame:
    """Does the plateau depend on T/B alone (the toy model's law)? Each B > 1 point beside the B = 1 run at T/B.

    Rows: the (d, B) points of the middle panel whose T/B is one of the left panel's T; columns the two
    seed-mean plateaus and their ratio (1 if only T/B matters).
    """
    left = T_table[T_table["B"] == 1].set_index(["T", "d"])["plateau_length"]
    rows = []
    for r in B_table[B_table["B"] > 1].itertuples():
        T_eff = int(r.T) // int(r.B)
        if int(r.T) % int(r.B) == 0 and (T_eff, r.d) in left.index:
            same = float(left[(T_eff, r.d)])
            rows.append({"d": r.d, "B": r.B, "T": r.T, "T/B": T_eff, "plateau (T, B)": r.plateau_length,
                         "plateau (T/B, B = 1)": same, "ratio": r.plateau_length / same})
    return pd.DataFrame(rows)


def readout_table(results: dict[str, SweepResult]) -> pd.DataFrame:
    """Figure 3's zero-initialised readout against nn.Linear's default, at the "readout_default" points (seed means)."""
    default = results["readout_default"].summary
    zero = results["T"].summary.merge(default[["T", "d", "seed"]], on=["T", "d", "seed"])
    both = pd.concat([zero, default])
    table = both.groupby(["T", "d", "readout_init"]).agg(plateau=("plateau_length", "mean"), initial_loss=("initial_loss", "mean"))
    wide = table.unstack("readout_init")
    wide.columns = [f"{what} ({init})" for what, init in wide.columns]
    wide["plateau default / zero"] = wide["plateau (default)"] / wide["plateau (zero)"]
    return wide.reset_index()


def exponent_drift(joint: pd.DataFrame, larger: pd.DataFrame) -> pd.DataFrame:
    """How the fitted d and T exponents move with the size of the grid (B = 1 runs).

    Fits the lower and the upper halves of the d and T ranges separately, the
    whole grid, and the whole grid with the larger points added.
    """
    base = joint[joint["B"] == 1]
    ds, Ts = sorted(int(v) for v in base["d"].unique()), sorted(int(v) for v in base["T"].unique())
    lo_d, hi_d = ds[: (len(ds) + 1) // 2], ds[len(ds) // 2 :]
    lo_T, hi_T = Ts[: (len(Ts) + 1) // 2], Ts[len(Ts) // 2 :]
    subsets = {
        f"small d {lo_d}, small T {lo_T}": base[base["d"].isin(lo_d) & base["T"].isin(lo_T)],
        f"large d {hi_d}, large T {hi_T}": base[base["d"].isin(hi_d) & base["T"].isin(hi_T)],
        "whole grid": base,
    }
    if len(larger):
        subsets["whole grid + larger points"] = pd.concat([base, larger], ignore_index=True)
        hi = pd.concat([base[base["d"].isin(hi_d) & base["T"].isin(hi_T)], larger], ignore_index=True)
        subsets["large half + larger points"] = hi
    rows = []
    for name, sub in subsets.items():
        sub = sub[np.isfinite(sub["plateau_length"])]
        if len(sub) <= 3:
            continue
        fit = fit_power_law(sub, ["d", "T"])
        rows.append({"grid": name, "runs": fit.n, "α (d)": fit.exponents["d"], "± α": fit.stderr["d"],
                     "β (T)": fit.exponents["T"], "± β": fit.stderr["T"], "R²": fit.r2})
    return pd.DataFrame(rows).set_index("grid")


# Table 1's own settings (the paper_cpu scale).
Z = 1.96


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
    """Per (T, d) and bridge step (`runs.BRIDGE_STEPS`): the geometric mean plateau over seeds with
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

