"""Readers of Figures 1 and 2 (the toy model): tidy tables from sweep results."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...metrics import PowerLawFit, add_cross_sample_predictor, fit_power_law, plateau_length
from ...sweep import SweepResult



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
