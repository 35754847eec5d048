"""Readers of sweep results: the tables the chapters show, from `sweep.SweepResult`s (seed means, fits,
crossings re-read off the recorded curves, attention placement). No computation of runs happens here."""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from .figures.regression import TransformerGrid
from .metrics import NOT_REACHED, PowerLawFit, add_cross_sample_predictor, first_crossing, fit_power_law, mean_over_seeds, plateau_length
from .sweep import SweepResult
from .tasks import SingleLocationRegression


def plateaus_from_curves(result: SweepResult, column: str, threshold: float, time: str = "t") -> pd.DataFrame:
    """The sweep's summary with plateau_length re-read from another recorded loss ``column``.

    E.g. the training-distribution loss of runs whose plateau was measured
    without repetition. Runs that never reach ``threshold`` in that column
    get NOT_REACHED. Missing values in ``column`` fall back to ``loss``/the
    no-repetition loss (runs where the two distributions coincide).
    """
    summary = result.summary.copy()
    fallback = "loss" if "loss" in result.curves else "loss_no_repetition"
    values = []
    for key in summary["run"]:
        curve = result.curves[result.curves["run"] == key]
        loss = curve[column].fillna(curve[fallback]) if column in curve else curve[fallback]
        values.append(plateau_length(curve[time], loss, threshold))
    summary["plateau_length"] = values
    summary["reached"] = np.isfinite(summary["plateau_length"])
    return summary


def cross_sample_fit(summary: pd.DataFrame, T_label: float | None = None) -> PowerLawFit:
    """Fit C·(√d·T/f(p, d))^γ (Fig. 2 right; the paper's constraint 2α = β = −γ).

    ``T_label`` replaces the runs' T in the predictor (to test a mislabelled T).
    """
    data = summary if T_label is None else summary.assign(T=T_label)
    return fit_power_law(add_cross_sample_predictor(data), ["x"])


def constant_investigation(
    candidates: dict[str, SweepResult], baseline: SweepResult, paper_constant: float
) -> pd.DataFrame:
    """One row per candidate explanation of the Fig. 2 (right) constant.

    Columns: the fitted C and γ with R², C relative to the paper's, and the
    median (and range) of the ratio of each run's plateau to the baseline run with the same (d, p).
    """
    base = baseline.summary.set_index(["d", "p"])["plateau_length"]
    T0 = int(baseline.summary["T"].iloc[0])

    def row(name: str, summary: pd.DataFrame, note: str, T_label: float | None = None) -> dict[str, Any]:
        fit = cross_sample_fit(summary, T_label)
        ratio = summary["plateau_length"].to_numpy() / base.loc[list(zip(summary["d"], summary["p"]))].to_numpy()
        return {"candidate": name, "C": fit.constant, "γ": fit.exponents["x"], "R²": fit.r2,
                "C / paper": fit.constant / paper_constant, "plateau / baseline (median)": float(np.median(ratio)),
                "(min)": float(ratio.min()), "(max)": float(ratio.max()),
                "runs": fit.n, "note": note}

    rows = [row("baseline: reduced 3-D flow", baseline.summary, f"|x̃| = 1, threshold 0.1, T = {T0}, time = steps × lr")]
    # The same runs, with the plateau read off the training loss (with repetition) instead of the test loss.
    train = plateaus_from_curves(baseline, "train_loss", 0.1)
    rows.append(row("training loss instead of test loss", train[train["reached"]], "same runs"))
    for name, res in candidates.items():
        summ = res.summary
        if name.startswith("T = "):
            rows.append(row(name, summ, "fitted with its own T"))
            rows.append(row(f"{name}, plotted as T = {T0}", summ, "a mislabelled T", T_label=T0))
        elif name.startswith("full model"):
            rows.append(row(name, summ, "sub-grid of d; lr 1; W = 0, a = 0 at start"))
        else:
            rows.append(row(name, summ, "whole grid"))
    steps = baseline.summary.assign(plateau_length=baseline.summary["plateau_length"] / 0.5)
    rows.append(row("time counted in steps at lr = 0.5", steps, "derived from the baseline: plateau / 0.5"))
    return pd.DataFrame(rows).set_index("candidate")


def figure3_tables(results: dict[str, SweepResult], grid: TransformerGrid) -> dict[str, pd.DataFrame]:
    """Seed-averaged tables of Figure 3: "T" (left), "B" (middle), "joint" (both, for the fit), "larger",
    and the right panel at the better lr per (p, d) (as the paper chose), read on data without repetition
    ("p") and on the training distribution ("p_train"); "p_all"/"p_train_all" keep every lr."""
    T_tab = mean_over_seeds(results["T"].summary, ["T", "d", "B"])
    B_rows = results["B"].summary
    B_tab = mean_over_seeds(pd.concat([results["T"].summary[results["T"].summary["T"] == grid.T_B], B_rows]), ["T", "d", "B"])
    joint = pd.concat([T_tab, B_tab[B_tab["B"] > 1]], ignore_index=True)
    larger = mean_over_seeds(results["larger"].summary, ["T", "d", "B"]) if len(results["larger"].summary) else T_tab.iloc[:0]
    out = {"T": T_tab, "B": B_tab, "joint": joint, "larger": larger}
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


def crossing_steps(result: SweepResult, level: float | dict[int, float], on: str = "test") -> pd.DataFrame:
    """Per run: the first step at which accuracy on ``on`` data reaches ``level``, read off the recorded curve.

    ``level`` is a number, or a map n_pairs → level (e.g. 2/n_pairs). NOT_REACHED if never.
    """
    levels = level if isinstance(level, dict) else {}
    # The default matters only when ``level`` is a number (a map holds a level for every n_pairs): cast for the type.
    out = result.crossings(f"accuracy_{on}", lambda row: levels.get(int(row["n_pairs"]), cast(float, level)),
                           into="emergence_step", direction="up")
    # "reached" stays the run's own (at its config's threshold), not this level's.
    return out.assign(reached=result.summary["reached"]) if "reached" in result.summary else out.drop(columns="reached")


def repetition_table(results: dict[str, SweepResult], threshold: float) -> pd.DataFrame:
    """Figure 5's overfitting measures, seed means per (sweep, B, p), from sweeps trained with repetition.

    ``results`` maps a sweep name ("B", "p") to its runs. Per run: the steps to ``threshold`` on the training
    distribution and on test data, test accuracy when the training distribution reaches it, the best, final test
    and final training-distribution accuracies; then the *generalisation lag* (test steps / training steps).
    """
    rows = []
    for sweep, res in results.items():
        for run_id, g in res.curves.groupby("run"):
            meta = res.summary[res.summary["run"] == run_id].iloc[0]
            train = SweepResult.training_distribution(g, "accuracy")  # no repetition: one distribution
            t_train = first_crossing(g["step"], train, threshold, direction="up")
            rows.append({"sweep": sweep, "B": meta["B"], "p": meta["p"], "seed": meta["seed"],
                         "steps to threshold, training distribution": t_train,
                         "test accuracy then": np.interp(t_train, g["step"], g["accuracy_test"]) if np.isfinite(t_train) else np.nan,
                         "steps to threshold, test": meta["emergence_step"],
                         "best test accuracy": g["accuracy_test"].max(), "final test accuracy": g["accuracy_test"].iloc[-1],
                         "final training-distribution accuracy": train.iloc[-1]})
    table = pd.DataFrame(rows).groupby(["sweep", "B", "p"]).mean(numeric_only=True).drop(columns="seed")
    table["generalisation lag"] = table["steps to threshold, test"] / table["steps to threshold, training distribution"]
    return table


def best_lr_table(summary: pd.DataFrame, value: str = "emergence_step") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seed means per (n_tokens, n_pairs, lr), and the fastest lr per (n_tokens, n_pairs) (the paper's choice)."""
    every = mean_over_seeds(summary, ["n_tokens", "n_pairs", "lr"], value=value)
    best = every.sort_values(value).groupby(["n_tokens", "n_pairs"], as_index=False).first()
    return every, best.sort_values(["n_pairs", "n_tokens"]).reset_index(drop=True)


def figure4_fit(best: pd.DataFrame, value: str = "emergence_step") -> tuple[pd.DataFrame, PowerLawFit]:
    """C·N_tokens^α·N_pairs^β on the best-lr seed means (rows that never emerged are refused by the fit).

    Returns the table with the paper's column names (N_tokens, N_pairs) and the fit.
    """
    table = best.rename(columns={"n_tokens": "N_tokens", "n_pairs": "N_pairs"})
    return table, fit_power_law(table, ["N_tokens", "N_pairs"], target=value)


def speedups(table: pd.DataFrame, by: str, value: str = "emergence_step") -> pd.DataFrame:
    """Emergence speed-up of each repetition level against none (B = 1 or p = 0), from seed means."""
    means = mean_over_seeds(table, [by], value=value)
    base = float(means.loc[means[by] == means[by].min(), value].iloc[0])
    means["speedup"] = base / means[value]
    return means


def attention_summary(result: SweepResult) -> pd.DataFrame:
    """Tidy attention table: one row per (run, step, kind, layer, head) with the weight (`SweepResult.attention`)."""
    return result.attention()[["run", "seed", "step", "kind", "layer", "head", "weight"]]


SETUP_COLUMNS = ["layer_norm", "embedding", "n_pairs"]


def _run_setups(result: SweepResult) -> pd.DataFrame:
    """One row per run: its id, set-up, seed and emergence step."""
    return result.summary[["run", *SETUP_COLUMNS, "seed", "emergence_step"]].drop_duplicates("run")


def final_attention(result: SweepResult) -> pd.DataFrame:
    """Per run, kind, layer and head: the attention weight at the run's last evaluation, with the run's set-up."""
    tidy = result.attention()
    last = tidy[tidy["step"] == tidy.groupby("run")["step"].transform("max")]
    return last[["run", "kind", "layer", "head", "weight"]].reset_index(drop=True).merge(_run_setups(result), on="run")


def placement_table(result: SweepResult) -> pd.DataFrame:
    """Per run: the layer that carries copying (value → key) and the one that carries selection (query → value)
    at the end, heads averaged, with that layer's weight and the runner-up layer's."""
    per_layer = final_attention(result).groupby(["run", "kind", "layer"], as_index=False)["weight"].mean()
    rows = []
    for (run_id, kind), g in per_layer.groupby(["run", "kind"]):
        g = g.sort_values("weight", ascending=False)
        name = {"value_to_key": "copy", "query_to_value": "select"}[kind]
        rows.append({"run": run_id, "pattern": name, "layer": int(g["layer"].iloc[0]), "weight": g["weight"].iloc[0],
                     "runner_up": g["weight"].iloc[1] if len(g) > 1 else np.nan})
    wide = pd.DataFrame(rows).pivot(index="run", columns="pattern", values=["layer", "weight", "runner_up"])
    wide.columns = [f"{pattern}_{what}" for what, pattern in wide.columns]
    out = _run_setups(result).merge(wide.reset_index(), on="run")
    for pattern in ("copy", "select"):
        out[f"{pattern}_layer"] = out[f"{pattern}_layer"].astype(int)
    return out.sort_values([*SETUP_COLUMNS, "seed"]).reset_index(drop=True)


def placement_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per set-up and n_pairs: the layer most seeds put each pattern in, how many seeds agree, and emergence.

    Runs that never reached the threshold are counted but do not vote (their attention has not formed).
    """
    rows = []
    for keys, g in table.groupby(SETUP_COLUMNS, sort=False):
        emerged = g[np.isfinite(g["emergence_step"])]
        row = dict(zip(SETUP_COLUMNS, keys), seeds=len(g), emerged=len(emerged),
                   emergence_step=float(emerged["emergence_step"].median()) if len(emerged) else NOT_REACHED)
        for pattern in ("copy", "select"):
            counts = emerged[f"{pattern}_layer"].value_counts()
            row[f"{pattern}_layer"] = int(counts.index[0]) if len(counts) else -1
            row[f"{pattern}_agree"] = int(counts.iloc[0]) if len(counts) else 0
            row[f"{pattern}_weight"] = float(emerged[f"{pattern}_weight"].mean()) if len(emerged) else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def rise_step(steps: np.ndarray, values: np.ndarray, fraction: float = 0.5) -> float:
    """First step at which ``values`` cover ``fraction`` of the way from their initial to their maximum value."""
    start, top = float(values[0]), float(np.max(values))
    if top <= start:
        return NOT_REACHED
    return first_crossing(steps, (values - start) / (top - start), fraction, direction="up")


def seed_means(result: SweepResult, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """Seed-averaged plateau table of a sweep, grouped by (d, T) and ``extra`` columns."""
    return mean_over_seeds(result.summary, ["d", "T", *extra])


def figure13_fit(results: dict[str, SweepResult]) -> tuple[pd.DataFrame, PowerLawFit]:
    """Seed means per (layers, heads, d, T) and the joint fit C·d^α·T^β·layers^λ·heads^η."""
    table = seed_means(results["architectures"], ("n_layers", "n_heads")).rename(columns={"n_layers": "layers", "n_heads": "heads"})
    return table, fit_power_law(table, ["d", "T", "layers", "heads"])


def search_table(result: SweepResult) -> pd.DataFrame:
    """Figure 15's lr search: mean plateau per (optimizer, lr), fastest first within each optimizer."""
    table = mean_over_seeds(result.summary, ["optimizer", "lr"])
    return table.sort_values(["optimizer", "plateau_length"]).reset_index(drop=True)


def fixed_position_spread(result: SweepResult) -> pd.DataFrame:
    """Per run of a fixed-position variant: the position its seed drew, its plateau, and that over the seed mean.

    With sinusoidal positions the plateau can depend on where the fixed position falls; each seed draws
    its own (uniform over the T positions), and the figure averages over seeds.
    """
    s = result.summary
    positions = [
        SingleLocationRegression(int(r.T), int(r.d), random_position=False, relevance_feature=bool(r.relevance_feature),
                                 task_seed=int(r.seed)).fixed_position
        for r in s.itertuples()
    ]
    out = s[["d", "T", "seed", "plateau_length"]].assign(position=positions)
    out["plateau / seed mean"] = out["plateau_length"] / out.groupby(["d", "T"])["plateau_length"].transform("mean")
    return out.sort_values(["d", "T", "seed"]).reset_index(drop=True)
