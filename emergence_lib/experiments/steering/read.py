"""Beyond the paper (1): steering emergence with a data-diversity schedule (`schedules`).

The paper proposes, and never runs, repeating data while a model is stuck and
switching to diverse data once the pattern has formed. `Steering` runs it on
the three tasks (its runs: `runs.Steering`; this module reads them):

* toy model: the 3-D cross-sample reduction (App. A.4) with p(t) = p·r(t):
  a scan of the step time τ and of the annealing half-life, and a trigger on
  the attention α;
* associative recall: heavy in-context repetition (B = 4 at the cpu grid,
  where Figure 5 found it the fastest of the B's it speeds up without
  cross-sample help) switched off by each schedule, against constant B = 1 and
  constant B = 4, full-length runs on Figure 5's model and budget;
* single-location regression: cross-sample repetition p switched off, on the
  (T, d) where Figure 3's cpu runs found p helping most.

Each schedule's numbers (step τ, half-life, trigger level) are fixed here,
before the runs, from the constant-repetition runs of Figures 3 and 5 that
were already cached (the chapter says which).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...metrics import first_crossing, plateau_length
from ...schedules import DiversitySchedule
from ...sweep import SweepResult

def schedule_label(spec: str, repeated: bool) -> str:
    """A table's name for a run's schedule: "no repetition", "constant repetition", or the schedule's kind."""
    if not repeated:
        return "no repetition"
    kind = DiversitySchedule.parse(spec).kind
    return "constant repetition" if kind == "constant" else kind


def _schedule_columns(row: pd.Series) -> dict[str, Any]:
    s = DiversitySchedule.parse(row["schedule"])
    repeated = bool(row["B"] > 1 or row["p"] > 0)
    return {"schedule": schedule_label(row["schedule"], repeated), "setting": s.label if repeated else "—",
            "parameter": s.at if s.kind in ("step", "annealed") else (s.level if s.kind == "triggered" else np.nan)}


def toy_schedule_table(result: SweepResult) -> pd.DataFrame:
    """One row per toy flow: schedule, its parameter (τ, half-life or α level), plateau on test loss, switch
    time, and the final test loss."""
    rows = []
    for _, r in result.summary.iterrows():
        rows.append({**_schedule_columns(r), "plateau": r["plateau_length"],
                     "switched off at": r.get("switched_at", np.nan), "final test loss": r["final_loss"]})
    return pd.DataFrame(rows)


def best_switch(toy: pd.DataFrame, kind: str) -> pd.Series:
    """The row of ``kind`` ("step", "annealed", "triggered") with the shortest plateau."""
    rows = toy[toy["schedule"] == kind]
    return rows.loc[rows["plateau"].idxmin()]


def recall_schedule_table(result: SweepResult, level: float) -> pd.DataFrame:
    """Per recall run: schedule, seed, steps to ``level`` test accuracy, best and final test accuracy, the
    overfitting dip (best − final), and when repetition switched off."""
    rows = []
    for r, g in result.per_run():
        acc = g["accuracy_test"].to_numpy()
        rows.append({**_schedule_columns(r), "seed": int(r["seed"]),
                     "emergence step": first_crossing(g["step"].to_numpy(), acc, level, direction="up"),
                     "best test accuracy": float(acc.max()), "final test accuracy": float(acc[-1]),
                     "dip": float(acc.max() - acc[-1]), "switched off at": r.get("switched_at", np.nan)})
    return pd.DataFrame(rows)


def regression_schedule_table(result: SweepResult, threshold: float) -> pd.DataFrame:
    """Per regression run: schedule, seed, plateau on data without repetition, best and final test loss, the
    overfitting rise (final − best), and when repetition switched off."""
    rows = []
    for r, g in result.per_run():
        loss = g["loss_no_repetition"].to_numpy()
        rows.append({**_schedule_columns(r), "seed": int(r["seed"]),
                     "plateau": plateau_length(g["step"].to_numpy(), loss, threshold),
                     "best test loss": float(loss.min()), "final test loss": float(loss[-1]),
                     "rise": float(loss[-1] - loss.min()), "switched off at": r.get("switched_at", np.nan)})
    return pd.DataFrame(rows)


def schedule_means(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Seed means (and standard deviations, "± …") of ``columns`` per schedule, in the table's order."""
    order = list(dict.fromkeys(table["schedule"]))
    g = table.groupby("schedule", sort=False)
    out = g[columns].mean()
    for c in columns:
        out[f"± {c}"] = g[c].std()
    out["seeds"] = g.size()
    return out.loc[order].reset_index()


def training_accuracy_trigger(result: SweepResult, B: int, level: float) -> pd.DataFrame:
    """Per run with in-context repetition ``B``: the first step at which training-distribution accuracy reaches
    ``level`` (where a trigger on it would fire) and the test accuracy then."""
    rows = []
    for r, g in result.per_run():
        if int(r["B"]) != B or r["p"] > 0:
            continue
        step = first_crossing(g["step"].to_numpy(), g["accuracy_train_distribution"].to_numpy(), level, direction="up")
        test = float(np.interp(step, g["step"], g["accuracy_test"])) if np.isfinite(step) else np.nan
        rows.append({"seed": int(r["seed"]), "step": step, "test accuracy then": test})
    return pd.DataFrame(rows)


def constant_repetition_table(result: SweepResult, measure: str, level: float) -> pd.DataFrame:
    """Per constant-repetition run: its B, p, seed, ``measure`` and final value, read as `recall_schedule_table`
    (``measure`` "emergence step": steps to ``level`` test accuracy) or `regression_schedule_table` ("plateau": steps
    to loss ``level`` without repetition) read the schedules' runs."""
    recall = measure == "emergence step"
    table = recall_schedule_table(result, level) if recall else regression_schedule_table(result, level)
    runs = [r for r, _ in result.per_run()]  # the same order the table was read in
    table["B"], table["p"] = [int(r["B"]) for r in runs], [float(r["p"]) for r in runs]
    final = "final test accuracy" if recall else "final test loss"
    return table[["B", "p", "seed", measure, final]].sort_values(["B", "p", "seed"]).reset_index(drop=True)


def best_constant(constants: pd.DataFrame, measure: str) -> tuple[tuple[int, float], pd.DataFrame]:
    """The constant (B, p) with the smallest seed mean of ``measure`` (a run that never emerged counts as never:
    its setting cannot be the best), and that setting's runs. Chosen on the same seeds it is compared on, which
    favours the baseline: a schedule that beats it beats it with that handicap."""
    means = constants.groupby(["B", "p"])[measure].mean()  # a never-reached run (inf) makes its setting's mean inf
    B, p = means.idxmin()
    return (int(B), float(p)), constants[(constants["B"] == B) & (constants["p"] == p)]


def paired_by_seed(ours: pd.DataFrame, baseline: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    """``column`` of two tables with a ``seed`` column, on the seeds both have, in seed order."""
    a, b = ours.set_index("seed")[column], baseline.set_index("seed")[column]
    seeds = sorted(set(a.index) & set(b.index))
    return a.loc[seeds].to_numpy(dtype=float), b.loc[seeds].to_numpy(dtype=float)
