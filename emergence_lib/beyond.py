"""Beyond the paper (1): steering emergence with a data-diversity schedule (`schedules`).

The paper proposes, and never runs, repeating data while a model is stuck and
switching to diverse data once the pattern has formed. `Steering` runs it on
the three tasks:

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

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .configs import ToyFlowConfig, TransformerRecallConfig, TransformerRegressionConfig
from .experiments import TRANSFORMER_SCALES, ScaledFigure
from .metrics import first_crossing, plateau_length
from .recall import RECALL_SCALES
from .schedules import DiversitySchedule
from .sweep import SweepResult

# Schedules per task and scale, as spec strings (`schedules.DiversitySchedule.parse`). "constant" with the
# heavy level is constant repetition; the baseline without repetition is listed on its own.
STEERING_SCALES: dict[str, dict[str, Any]] = {
    "smoke": {
        "toy": {"T": 32, "d": 32, "p": 0.6, "taus": (10.0, 30.0, 60.0), "half_lives": (30.0,), "alpha_levels": (0.2,),
                "t_max": 1000.0},
        "recall": {"B": 2, "p": 0.0, "seeds": (0,), "steps": 300, "schedules": ("constant", "step:100", "annealed:100",
                                                                                "triggered:attn_query_to_value>=0.15")},
        "recall_p": {"B": 1, "p": 0.4, "seeds": (0,), "steps": 300, "schedules": ("constant", "triggered:attn_query_to_value>=0.15")},
        "regression": {"T": 16, "d": 8, "p": 0.4, "lr": 3e-3, "max_steps": 300, "seeds": (0,),
                       "schedules": ("constant", "step:50", "annealed:50", "triggered:attn_relevant>=0.2")},
    },
    "cpu": {
        # T, d where the 3-D flow's repetition gain is large (f(p, d) = √(p²d + (1−p)²) ≈ 4.5 at p = 0.6).
        "toy": {"T": 256, "d": 64, "p": 0.6,
                "taus": tuple(float(f"{v:.3g}") for v in np.geomspace(100, 2000, 25)),
                "half_lives": tuple(float(f"{v:.3g}") for v in np.geomspace(100, 3200, 11)),
                "alpha_levels": (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.6), "t_max": 10_000.0},
        # Figure 5's model and budget. τ = 500 and the half-life 500 lie before B = 4's emergence on test data
        # (≈1200 steps, cached); the trigger 0.2 on the query → value attention is about twice its plateau value.
        "recall": {"B": 4, "p": 0.0, "seeds": (0, 1, 2), "schedules": ("constant", "step:500", "annealed:500",
                                                                       "triggered:attn_query_to_value>=0.2")},
        # Cross-sample repetition p = 0.8, which slows emergence on test data at this scale (Figure 5, cached): does
        # switching it off rescue it? τ = 1500 lies before emergence without repetition (≈1700 steps).
        "recall_p": {"B": 1, "p": 0.8, "seeds": (0, 1, 2), "schedules": ("constant", "step:1500",
                                                                         "triggered:attn_query_to_value>=0.2")},
        # Figure 3's (T, d) = (32, 64), where p = 0.4 halved the plateau (cached): τ and the half-life 200 lie
        # before p = 0.4's plateau (≈340 steps).
        "regression": {"T": 32, "d": 64, "p": 0.4, "lr": 3e-3, "max_steps": 3000, "seeds": (0, 1, 2),
                       "schedules": ("constant", "step:200", "annealed:200", "triggered:attn_relevant>=0.2")},
    },
    "paper": {
        "toy": {"T": 1024, "d": 128, "p": 0.6,
                "taus": tuple(float(f"{v:.3g}") for v in np.geomspace(500, 20_000, 41)),
                "half_lives": tuple(float(f"{v:.3g}") for v in np.geomspace(500, 20_000, 21)),
                "alpha_levels": (0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.6), "t_max": 100_000.0},
        "recall": {"B": 8, "p": 0.0, "seeds": (0, 1, 2), "schedules": ("constant", "step:5000", "annealed:5000",
                                                                       "triggered:attn_query_to_value>=0.2")},
        "recall_p": {"B": 1, "p": 0.8, "seeds": (0, 1, 2), "schedules": ("constant", "step:15000",
                                                                         "triggered:attn_query_to_value>=0.2")},
        "regression": {"T": 256, "d": 64, "p": 0.4, "lr": 1e-4, "max_steps": 50_000, "seeds": (0, 1, 2),
                       "schedules": ("constant", "step:2000", "annealed:2000", "triggered:attn_relevant>=0.2")},
    },
}


@dataclass(frozen=True)
class Steering(ScaledFigure):
    """Data-diversity schedules on the toy flow, associative recall and regression (see the module docstring)."""

    name: ClassVar[str] = "Steering emergence"
    GRIDS: ClassVar[dict[str, dict[str, Any]]] = STEERING_SCALES

    def toy_runs(self) -> list[ToyFlowConfig]:
        g = self.grid["toy"]
        base = dict(T=g["T"], d=g["d"], t_max=g["t_max"])
        specs = (["constant"] + [f"step:{tau:g}" for tau in g["taus"]] + [f"annealed:{h:g}" for h in g["half_lives"]]
                 + [f"triggered:alpha>={a:g}" for a in g["alpha_levels"]])
        return [ToyFlowConfig(p=0.0, **base)] + [ToyFlowConfig(p=g["p"], schedule=s, **base) for s in specs]

    def recall_runs(self, family: str = "recall") -> list[TransformerRecallConfig]:
        """``family`` "recall" (in-context repetition B) or "recall_p" (cross-sample p), with the no-repetition runs."""
        g, r = self.grid[family], RECALL_SCALES[self.scale]
        f = r["fig5"]
        base = dict(n_tokens=f["n_tokens"], n_pairs=f["n_pairs"], lr=f["lr"], max_steps=g.get("steps", f["steps"]),
                    stop_factor=None, threshold=r["threshold"], eval_size=r["eval_size"], **r["model"])
        # Seed by seed (a cut-short sweep has whole seeds); the first run of each is Figure 5's B = 1 (no repetition).
        return [c for s in g["seeds"] for c in [TransformerRecallConfig(seed=s, **base)] + [
            TransformerRecallConfig(B=g["B"], p=g["p"], schedule=spec, seed=s, **base) for spec in g["schedules"]]]

    def regression_runs(self) -> list[TransformerRegressionConfig]:
        g, t = self.grid["regression"], TRANSFORMER_SCALES[self.scale]
        base = dict(T=g["T"], d=g["d"], lr=g["lr"], max_steps=g["max_steps"], stop_factor=None, threshold=0.4,
                    plateau_on="no_repetition", record_attention=True, **t["model"])
        return [c for s in g["seeds"] for c in [TransformerRegressionConfig(seed=s, **base)] + [
            TransformerRegressionConfig(p=g["p"], schedule=spec, seed=s, **base) for spec in g["schedules"]]]

    def sweeps(self) -> dict[str, list[Any]]:
        return {"toy": self.toy_runs(), "regression": self.regression_runs(), "recall": self.recall_runs(),
                "recall_p": self.recall_runs("recall_p")}


# ------------------------------------------------------------------ analysis --


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
