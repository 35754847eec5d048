"""Readers of Figures 4, 5, 16 and 17 (associative recall): tidy tables from sweep results."""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from ...metrics import NOT_REACHED, PowerLawFit, first_crossing, fit_power_law, mean_over_seeds
from ...sweep import SweepResult



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
