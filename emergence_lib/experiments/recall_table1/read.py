"""Readers of Figures 4, 5, 16 and 17 on Table 1's recall model (`runs.RecallMeasured`): tidy tables from stored
runs, each claim's number with a 95% interval that respects the design.

As for Figure 3 on Table 1's model (`table1.read`), seeds are repeated measurements of a point, not points of a law
that may misfit: a point is its seeds' mean log steps with a t interval over them; an exponent is the least-squares
slope through point means (`table1.read.slope_weights`) with a Welch–Satterthwaite interval from each point's own
seed variance (`table1.read.contrast_interval`). Figure 5's speed-ups are paired by seed (a seed's runs share
their initialisation and data stream).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from ...metrics import first_crossing, paired_seed_interval, t_quantile_975, wilson_interval
from ...paper import PAPER
from ...sweep import SweepResult
from ..recall.read import placement_table
from ..table1.read import contrast_interval, slope_weights

LEVELS = {"5%": 0.05, "50%": 0.5}  # the paper's threshold, and the middle of the jump


def recall_law(n_tokens: float, n_pairs: float) -> float:
    """Figure 4's law, in steps to the paper's 5% (0.55 · N_tokens^0.79 · N_pairs^2.25, at the paper's lr 1e-4)."""
    law = PAPER["figure4"]
    return float(law["C"] * n_tokens ** law["N_tokens"] * n_pairs ** law["N_pairs"])


def geometric_mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """exp of the mean log of ``values`` with its 95% t interval over them (nan bounds with fewer than 2)."""
    x = np.log(np.asarray(values, float))
    m = float(x.mean())
    if len(x) < 2:
        return math.exp(m), math.nan, math.nan
    half = t_quantile_975(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def crossing_table(result: SweepResult) -> pd.DataFrame:
    """One row per run: its set-up (N_tokens, N_pairs, lr, layer_norm, B, p, seed) and the first step at which its
    test accuracy reaches each of `LEVELS` (nan if never), read off the recorded curve."""
    cols = ["run", "n_tokens", "n_pairs", "lr", "layer_norm", "B", "p", "seed"]
    if result.summary.empty:
        return pd.DataFrame(columns=cols + [f"steps to {k}" for k in LEVELS])
    rows = []
    for row, curve in result.per_run():
        out = {c: row[c] for c in cols}
        for name, level in LEVELS.items():
            out[f"steps to {name}"] = first_crossing(curve["step"], curve["accuracy_test"], level, direction="up")
        rows.append(out)
    return pd.DataFrame(rows, columns=cols + [f"steps to {k}" for k in LEVELS])


def _logs(table: pd.DataFrame, level: str, **where: object) -> np.ndarray:
    sel = table
    for k, v in where.items():
        sel = sel[np.isclose(sel[k], v)] if isinstance(v, float) else sel[sel[k] == v]
    v = sel[f"steps to {level}"].to_numpy(float)
    return np.log(v[np.isfinite(v) & (v > 0)])


def _all_crossed(table: pd.DataFrame, level: str, **where: object) -> bool:
    """Whether the runs matching ``where`` exist and every one crossed ``level`` after the first evaluation."""
    sel = table
    for k, v in where.items():
        sel = sel[np.isclose(sel[k], v)] if isinstance(v, float) else sel[sel[k] == v]
    v = sel[f"steps to {level}"].to_numpy(float)
    return len(v) > 0 and bool((np.isfinite(v) & (v > 0)).all())


def point_table(table: pd.DataFrame, points: list[tuple[int, int]], seeds: int) -> pd.DataFrame:
    """Per (N_tokens, N_pairs): seeds stored, geometric-mean steps to 5% and 50% (of the seeds that crossed), the
    paper's law and the ratio of steps to 5% over it with its 95% t interval over seeds. ``complete``: every seed is
    stored; the ratio is nan where one of them never crossed (or crossed at the first evaluation): a censored seed
    is never dropped, so such a point is judged inconclusive."""
    rows = []
    for V, N in points:
        here = table[(table["n_tokens"] == V) & (table["n_pairs"] == N)]
        row: dict[str, object] = {"N_tokens": V, "N_pairs": N, "seeds": f"{len(here)} of {seeds}"}
        for level in LEVELS:
            logs = _logs(here, level)
            row[f"steps to {level}"] = float(np.exp(logs.mean())) if len(logs) else np.nan
        law = recall_law(V, N)
        v = here["steps to 5%"].to_numpy(float)
        complete = len(here) == seeds  # every seed stored: judged (a seed that never crossed: no interval)
        crossed = bool((np.isfinite(v) & (v > 0)).all())
        ratio = geometric_mean_interval(v / law) if complete and crossed else (np.nan, np.nan, np.nan)
        row |= {"law (5%)": law, "ratio": ratio[0], "ratio_low": ratio[1], "ratio_high": ratio[2], "complete": complete}
        rows.append(row)
    return pd.DataFrame(rows)


def exponent(table: pd.DataFrame, points: list[tuple[int, int]], along: str, level: str, min_seeds: int = 2) -> dict:
    """The exponent of ``along`` ("n_tokens" or "n_pairs") at ``level``: the least-squares slope of the points' mean
    log steps on log ``along``, one intercept per value of the other axis, as a contrast of point means with its
    Welch interval. Points with fewer than ``min_seeds`` crossed seeds are left out."""
    other = "n_pairs" if along == "n_tokens" else "n_tokens"
    usable = []
    for V, N in points:
        logs = _logs(table, level, n_tokens=V, n_pairs=N)
        if len(logs) >= min_seeds:
            usable.append(({"n_tokens": V, "n_pairs": N}, logs))
    row = {"ours": math.nan, "low": math.nan, "high": math.nan, "points": len(usable), "of": len(points)}
    try:
        w = slope_weights([math.log(p[along]) for p, _ in usable], [p[other] for p, _ in usable])
    except ValueError:
        return row
    est, lo, hi = contrast_interval([g for _, g in usable], w)
    return row | {"ours": est, "low": lo, "high": hi}


def mean_log_ratio(table: pd.DataFrame, points: list[tuple[int, int]], level: str, num: dict, den: dict) -> dict:
    """The mean over ``points`` of (mean log steps under ``num``) − (mean log steps under ``den``), as a ratio of
    steps with its Welch interval: how much slower ``num`` is than ``den``, each point counted once. nan if any run
    at a point never crossed: a censored seed would bias the ratio if dropped."""
    groups, weights = [], []
    for V, N in points:
        if not (_all_crossed(table, level, n_tokens=V, n_pairs=N, **num)
                and _all_crossed(table, level, n_tokens=V, n_pairs=N, **den)):
            return {"ours": math.nan, "low": math.nan, "high": math.nan}  # a censored seed is never dropped
        a, b = _logs(table, level, n_tokens=V, n_pairs=N, **num), _logs(table, level, n_tokens=V, n_pairs=N, **den)
        groups += [a, b]
        weights += [1 / len(points), -1 / len(points)]
    est, lo, hi = contrast_interval(groups, weights)
    return {"ours": math.exp(est), "low": math.exp(lo), "high": math.exp(hi)}


def paired_speedup(table: pd.DataFrame, by: str, level: str = "50%") -> dict:
    """Steps at the lowest ``by`` (B = 1 or p = 0) over steps at its largest, per seed, geometric mean over seeds
    with a 95% t interval (paired: a seed's runs share initialisation and data). nan unless every seed crossed."""
    low, high = table[by].min(), table[by].max()
    a = table[table[by] == low].set_index("seed")[f"steps to {level}"]
    b = table[table[by] == high].set_index("seed")[f"steps to {level}"]
    seeds = sorted(set(a.index) & set(b.index))
    m, lo, hi = paired_seed_interval(b[seeds].to_numpy(float), a[seeds].to_numpy(float))
    return {"ours": m, "low": lo, "high": hi, "seeds": len(seeds), "at": high}


NO_REPETITION = {"B": 1, "p": 0.0}


def repetition_steps(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Figure 5's every setting, not only the extremes the claims pair: per B (``tables["B"]``) and per p
    (``tables["p"]``), the stored seeds, how many reached 50%, the geometric-mean steps to 5% and to 50% over those
    that reached each, and the speed-up at 50% over no repetition (B = 1, p = 0): the geometric mean over the seeds
    both settings stored and reached 50% of their ratio, paired by seed like the registered claims; nan where no seed
    pairs (no baseline stored, or a setting that did not reach 50%). Described, not judged."""
    cols = ["repetition", "value", "seeds", "reached 50%", "steps to 5%", "steps to 50%", "speed-up at 50%"]

    def geo(v: pd.Series) -> float:
        v = v.astype(float)[lambda x: np.isfinite(x)]
        return geometric_mean_interval(v.to_numpy())[0] if len(v) else float("nan")

    rows = []
    for by, t in tables.items():
        if not len(t):
            continue
        base = t[t[by] == NO_REPETITION[by]].set_index("seed")["steps to 50%"].astype(float)
        for value, g in t.groupby(by):
            steps = g.set_index("seed")["steps to 50%"].astype(float)
            common = [s for s in steps.index if s in base.index]  # a pair that did not reach 50% is left out
            rows.append({"repetition": by, "value": value, "seeds": len(g),
                         "reached 50%": int(np.isfinite(steps).sum()), "steps to 5%": geo(g["steps to 5%"]),
                         "steps to 50%": geo(g["steps to 50%"]),
                         "speed-up at 50%": paired_seed_interval(steps[common], base[common])[0]
                         if common else float("nan")})
    return pd.DataFrame(rows, columns=cols)


def placement_shares(result: SweepResult) -> pd.DataFrame:
    """Per LayerNorm set-up: emerged runs, and the share whose selection (query → value) peaks in layer 4 and whose
    copying (value → key) peaks in layer 3, each with its Wilson 95% interval."""
    cols = ["layer_norm", "runs", "emerged", "pattern", "layer", "count", "share", "low", "high"]
    if result.summary.empty:
        return pd.DataFrame(columns=cols)
    t = placement_table(result)
    rows = []
    for ln, g in t.groupby("layer_norm"):
        emerged = g[np.isfinite(g["emergence_step"])]
        for pattern, layer in (("select", 4), ("copy", 3)):
            k = int((emerged[f"{pattern}_layer"] == layer).sum())
            share, lo, hi = wilson_interval(k, len(emerged))
            rows.append({"layer_norm": ln, "runs": len(g), "emerged": len(emerged), "pattern": pattern, "layer": layer,
                         "count": k, "share": share, "low": lo, "high": hi})
    return pd.DataFrame(rows, columns=cols)


def placement_layers(result: SweepResult) -> pd.DataFrame:
    """Where each emerged run's circuit forms: per LayerNorm set-up and N_pairs, how many runs select (query → value)
    and copy (value → key) in each layer (1 to the deepest seen, at least 4), the paper's layers (4 and 3) beside the
    others, with the median weight in the chosen layer and in the runner-up layer (close medians: a near tie).
    Described, not judged."""
    cols = ["layer_norm", "n_pairs", "pattern", "layer 1", "layer 2", "layer 3", "layer 4", "emerged"]
    if result.summary.empty:
        return pd.DataFrame(columns=cols + ["median weight", "median runner-up"])
    t = placement_table(result)
    t = t[np.isfinite(t["emergence_step"].astype(float))]
    layers = range(1, max([4, *t["select_layer"].astype(int), *t["copy_layer"].astype(int)]) + 1)
    cols = cols[:3] + [f"layer {k}" for k in layers] + cols[-1:]
    rows = []
    for (ln, pairs), g in t.groupby(["layer_norm", "n_pairs"]):
        for pattern in ("select", "copy"):
            counts = g[f"{pattern}_layer"].value_counts()
            rows.append({"layer_norm": ln, "n_pairs": int(pairs), "pattern": pattern,
                         **{f"layer {k}": int(counts.get(k, 0)) for k in layers}, "emerged": len(g),
                         "median weight": float(g[f"{pattern}_weight"].median()),
                         "median runner-up": float(g[f"{pattern}_runner_up"].median())})
    return pd.DataFrame(rows, columns=cols + ["median weight", "median runner-up"])


def overfitting_lag(result: SweepResult, level: float = 0.5) -> dict:
    """Figure 5's overfitting at the largest B: steps to ``level`` on test data over steps to it on the training
    distribution, per seed, geometric mean with a t interval (nan unless every seed crossed on both)."""
    lags = []
    top = result.summary["B"].max()
    for row, curve in result.per_run():
        if row["B"] != top:
            continue
        train = SweepResult.training_distribution(curve, "accuracy")
        t_train = first_crossing(curve["step"], train, level, direction="up")
        t_test = first_crossing(curve["step"], curve["accuracy_test"], level, direction="up")
        lags.append(t_test / t_train)
    lags_a = np.array(lags, float)
    if len(lags_a) < 2 or not np.isfinite(lags_a).all():
        return {"ours": math.nan, "low": math.nan, "high": math.nan}
    m, lo, hi = geometric_mean_interval(lags_a)
    return {"ours": m, "low": lo, "high": hi}


def training_distribution_speedups(results: dict[str, SweepResult], level: float = 0.5) -> dict:
    """Figure 16: over every repetition level, the paired speed-up on the training distribution (steps at no
    repetition over steps at that level, geometric mean over seeds) whose 95% t interval reaches lowest: "only
    speeds up" must hold at every level, so the weakest interval is the one judged."""
    worst: dict[str, Any] = {"ours": math.nan, "low": math.nan, "high": math.nan, "level": ""}
    for by, res in results.items():
        steps: dict[tuple[float, int], float] = {}
        for row, curve in res.per_run():
            train = SweepResult.training_distribution(curve, "accuracy")
            steps[(float(row[by]), int(row["seed"]))] = first_crossing(curve["step"], train, level, direction="up")
        if not steps:
            return worst | {"level": "not run"}
        base = min(k[0] for k in steps)
        for lvl in sorted({k[0] for k in steps} - {base}):
            seeds = [s for (v, s) in steps if v == lvl and (base, s) in steps]
            m, lo, hi = paired_seed_interval([steps[(lvl, s)] for s in seeds], [steps[(base, s)] for s in seeds])
            if not (len(seeds) >= 2 and math.isfinite(lo)):
                return worst | {"level": f"{by} = {lvl:g}: incomplete"}
            if not lo >= worst["low"]:  # nan-safe: the first level, then any with a lower interval end
                worst = {"ours": m, "low": lo, "high": hi, "level": f"{by} = {lvl:g}"}
    return worst


def laptop_comparison(t1_runs: pd.DataFrame, seeds: int, laptop: pd.DataFrame) -> pd.DataFrame:
    """At each (N_tokens, N_pairs) where both models reached 50% test accuracy in every stored seed: Table 1's steps
    to 50% (``t1_runs``: `crossing_table` rows of its pre-LN, lr 1e-4 runs; the geometric mean over its stored seeds,
    of ``seeds`` registered) beside the laptop model's (``laptop``: Figure 4's cpu summary; the geometric mean over
    the seeds of its fastest learning rate, the chapter's choice by `recall.read.best_lr_table`, at its 50%
    threshold), and Table 1's over the laptop's. A point where a seed of either model never crossed is left out: a
    censored run never enters a mean."""
    from ..recall.read import best_lr_table

    cols = ["N_tokens", "N_pairs", "Table 1 seeds", "Table 1: steps to 50%", "laptop lr", "laptop: steps to 50%",
            "Table 1 / laptop"]
    if not len(t1_runs) or not len(laptop):
        return pd.DataFrame(columns=cols)
    _, best = best_lr_table(laptop)
    rows = []
    for (V, N), here in t1_runs.groupby(["n_tokens", "n_pairs"]):
        at = best[(best["n_tokens"] == V) & (best["n_pairs"] == N)]
        ours = here["steps to 50%"].to_numpy(float)
        if not len(at) or not (np.isfinite(ours) & (ours > 0)).all():
            continue
        lr = float(at["lr"].iloc[0])
        runs = laptop[(laptop["n_tokens"] == V) & (laptop["n_pairs"] == N) & np.isclose(laptop["lr"], lr)]
        v = runs["emergence_step"].to_numpy(float)
        if not (len(v) and (np.isfinite(v) & (v > 0)).all()):
            continue
        t1, lap = float(np.exp(np.log(ours).mean())), float(np.exp(np.log(v).mean()))
        rows.append({"N_tokens": int(V), "N_pairs": int(N), "Table 1 seeds": f"{len(ours)} of {seeds}",
                     "Table 1: steps to 50%": t1, "laptop lr": lr, "laptop: steps to 50%": lap,
                     "Table 1 / laptop": t1 / lap})
    return pd.DataFrame(rows, columns=cols)


def exponent_on_point_means(table: pd.DataFrame, points: list[tuple[int, int]], along: str, level: str,
                            min_seeds: int = 2) -> dict:
    """`exponent`'s slope (one intercept per value of the other axis) fitted by least squares to the point means,
    with a 95% t interval from the fit's own residuals (points − intercepts − 1 degrees of freedom), and the
    lack-of-fit F test of that law on the seeds (their scatter about each point's mean is pure error): where the law
    misfits, this interval counts the misfit that `exponent`'s Welch interval, from the seeds alone, leaves out."""
    from ..table1.read import design_lack_of_fit

    other = "n_pairs" if along == "n_tokens" else "n_tokens"
    usable = [({"n_tokens": V, "n_pairs": N}, g) for V, N in points
              if len(g := _logs(table, level, n_tokens=V, n_pairs=N)) >= min_seeds]
    levels = sorted({p[other] for p, _ in usable})
    out = {"ours": math.nan, "low": math.nan, "high": math.nan, "df": math.nan, "F": math.nan, "p": math.nan}
    m, k = len(usable), len(levels) + 1
    if m <= k:
        return out

    def row(p: dict) -> list[float]:
        return [float(p[other] == v) for v in levels] + [math.log(p[along])]

    X = np.array([row(p) for p, _ in usable])
    y = np.array([g.mean() for _, g in usable])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    df = m - k
    s2 = float(((y - X @ beta) ** 2).sum()) / df
    se = math.sqrt(s2 * np.linalg.inv(X.T @ X)[-1, -1])
    h = t_quantile_975(df) * se
    F, p_value = design_lack_of_fit([row(p) for p, _ in usable], [g for _, g in usable])
    return {"ours": float(beta[-1]), "low": float(beta[-1] - h), "high": float(beta[-1] + h), "df": float(df),
            "F": float(F), "p": float(p_value)}
