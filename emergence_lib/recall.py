"""Figures 4, 5, 16 and 17 (paper §3, App. C): in-context associative recall.

* Figure 4: accuracy and loss over training for several n_pairs; emergence
  time vs vocabulary size per n_pairs, the learning rate picked per
  configuration from the scale's candidates (as the paper did), and the fit
  C·n_tokens^α·n_pairs^β.
* Figure 5: in-context (B) and cross-sample (p) repetition in training,
  evaluated on test data without repetition; runs go their full budget so that
  overfitting (and any late recovery) shows.
* Figure 16: the same runs read on their training distribution.
* Figure 17: the induction-head attention weights per layer and head over training.

Emergence threshold: the paper's 5% test accuracy works at its vocabularies
(chance 1/256) but not at small ones, where a model that answers with *some*
value of the context already scores about 1/n_pairs during the plateau. The
cpu scale uses 50% (the middle of the jump); the chapters also read 5% and
2/n_pairs off the recorded curves and say which number uses which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .configs import TransformerRecallConfig
from .experiments import ScaledFigure
from .metrics import NOT_REACHED, PowerLawFit, first_crossing, fit_power_law, mean_over_seeds
from .sweep import SweepResult

RECALL_SCALES: dict[str, dict[str, Any]] = {
    "smoke": {
        "model": {"d_model": 32, "d_qk": 8, "n_layers": 2, "n_heads": 2}, "lrs": (3e-3,), "seeds": (0,),
        "lr_probe": {"lr": 1e-2, "points": ((8, 2),)},
        "threshold": 0.5, "max_steps": 1500, "eval_size": 128,
        "n_tokens": (8, 12), "n_pairs": (2, 3),
        "fig5": {"n_tokens": 8, "n_pairs": 4, "B": (1, 2), "p": (0.0, 0.4), "lr": 3e-3, "steps": 600},
        "no_ln_lrs": (3e-3,),
        "placement": {"n_tokens": 8, "n_pairs": (3,), "seeds": (0,), "lr": 3e-3, "max_steps": 300},
    },
    "cpu": {
        "model": {"d_model": 64, "d_qk": 16, "n_layers": 4, "n_heads": 4}, "lrs": (3e-4, 1e-3), "seeds": (0, 1),
        # A third, larger candidate, tried on the smallest vocabulary only: it is no faster at N_pairs = 4 and never
        # reaches 50% within 20k steps at N_pairs = 6, so the grid does not pay 20k steps per point for it.
        "lr_probe": {"lr": 3e-3, "points": ((16, 4), (16, 6))},
        "threshold": 0.5, "max_steps": 20_000, "eval_size": 256,
        "n_tokens": (16, 32, 64), "n_pairs": (4, 6, 8),
        "fig5": {"n_tokens": 32, "n_pairs": 8, "B": (1, 2, 4), "p": (0.0, 0.2, 0.4, 0.8), "lr": 1e-3, "steps": 8000},
        # Figure 4 without LayerNorm: lr 1e-3 only, the faster candidate at all nine points with pre-LN.
        "no_ln_lrs": (1e-3,),
        # Where copying and selection form: Figure 5's model and lr, 3 seeds; max_steps as Figure 4's grid so
        # that its pre-LN runs at 8 pairs are shared.
        "placement": {"n_tokens": 32, "n_pairs": (4, 8, 12), "seeds": (0, 1, 2), "lr": 1e-3, "max_steps": 20_000},
    },
    "paper": {
        "model": {"d_model": 256, "d_qk": 64, "n_layers": 4, "n_heads": 4}, "lrs": (1e-5, 3e-5, 1e-4), "seeds": (0, 1, 2),
        "lr_probe": {"lr": 3e-4, "points": ()},
        "threshold": 0.05, "max_steps": 200_000, "eval_size": 512,
        "n_tokens": (32, 64, 128, 256), "n_pairs": (8, 16, 32, 64),
        "fig5": {"n_tokens": 256, "n_pairs": 32, "B": (1, 2, 4, 8), "p": (0.0, 0.2, 0.4, 0.8), "lr": 1e-4, "steps": 150_000},
        "no_ln_lrs": (1e-5, 3e-5, 1e-4),
        "placement": {"n_tokens": 256, "n_pairs": (8, 16, 32), "seeds": (0, 1, 2), "lr": 1e-4, "max_steps": 200_000},
    },
}

# Reported values, for labelled comparison only (never used in computation).
PAPER_RECALL: dict[str, Any] = {
    "figure4": {"C": 0.55, "N_tokens": 0.79, "N_pairs": 2.25, "R2": 0.982},  # steps to 5% test accuracy
    "figure5_speedup": {"B": 4.0, "p": 2.0},  # "~4×" in-context, "~2×" cross-sample (§3.3)
    "figure17_layers": {"value_to_key": 3, "query_to_value": 4},  # copying in layer 3, selection in layer 4 (of 4)
}


@dataclass(frozen=True)
class _Recall(ScaledFigure):
    GRIDS: ClassVar[dict[str, dict[str, Any]]] = RECALL_SCALES

    def _runs(self, **kw: Any) -> list[TransformerRecallConfig]:
        g = self.grid
        base = dict(threshold=g["threshold"], max_steps=g["max_steps"], eval_size=g["eval_size"], **g["model"]) | kw
        return [TransformerRecallConfig(seed=s, **base) for s in g["seeds"]]


@dataclass(frozen=True)
class Figure4(_Recall):
    """Figure 4: no repetition; every (n_tokens, n_pairs) with n_pairs < n_tokens, at every candidate lr.

    "lr_probe": a larger lr at a few points only, to show the candidates bracket the best (it is too large).
    """

    name: ClassVar[str] = "Figure 4"

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        g = self.grid
        probe = g["lr_probe"]
        return {
            "grid": [
                r for lr in g["lrs"] for V in g["n_tokens"] for N in g["n_pairs"] if N < V
                for r in self._runs(n_tokens=V, n_pairs=N, lr=lr)
            ],
            "lr_probe": [r for V, N in probe["points"] for r in self._runs(n_tokens=V, n_pairs=N, lr=probe["lr"])],
            # Table 1's reading (no LayerNorm), for the refit of the law beside the text's (pre-LN) one.
            "grid_no_ln": [
                r for lr in g["no_ln_lrs"] for V in g["n_tokens"] for N in g["n_pairs"] if N < V
                for r in self._runs(n_tokens=V, n_pairs=N, lr=lr, layer_norm="none")
            ],
        }


@dataclass(frozen=True)
class Figure5(_Recall):
    """Figure 5 (and 16): repetition in training, full-length runs; emergence measured on test data."""

    name: ClassVar[str] = "Figure 5"

    def _common(self) -> dict[str, Any]:
        f = self.grid["fig5"]
        return dict(n_tokens=f["n_tokens"], n_pairs=f["n_pairs"], lr=f["lr"], max_steps=f["steps"], stop_factor=None)

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        f, common = self.grid["fig5"], self._common()
        no_ln = dict(common, layer_norm="none")
        return {
            "B": [r for B in f["B"] for r in self._runs(B=B, **common)],
            "p": [r for p in f["p"] for r in self._runs(p=p, **common)],
            # Table 1's reading (no LayerNorm): the same settings, for the speed-ups under both readings.
            "B_no_ln": [r for B in f["B"] for r in self._runs(B=B, **no_ln)],
            "p_no_ln": [r for p in f["p"] for r in self._runs(p=p, **no_ln)],
        }


@dataclass(frozen=True)
class Figure16(Figure5):
    """Figure 16: Figure 5's runs, read on their training distribution (no runs of its own)."""

    name: ClassVar[str] = "Figure 16"


@dataclass(frozen=True)
class Figure17(Figure5):
    """Figure 17: induction-head attention over training: Figure 5's runs without repetition (as in the paper)."""

    name: ClassVar[str] = "Figure 17"

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        return {"attention": self._runs(**self._common()), "placement": self.placement_runs()}

    def placement_runs(self) -> list[TransformerRecallConfig]:
        """Every set-up of PLACEMENT_SETUPS × n_pairs, seed by seed (so that a cut-short sweep has whole seeds)."""
        g = self.grid["placement"]
        base = dict(threshold=self.grid["threshold"], eval_size=self.grid["eval_size"], **self.grid["model"])
        base |= dict(n_tokens=g["n_tokens"], lr=g["lr"], max_steps=g["max_steps"])
        return [
            TransformerRecallConfig(seed=seed, n_pairs=N, layer_norm=ln, embedding=emb, **base)
            for seed in g["seeds"] for ln, emb in PLACEMENT_SETUPS for N in g["n_pairs"]
        ]


# (layer_norm, embedding): the text's reading (pre- or post-LN) and Table 1's (no LN) with the lookup embedding,
# and no LN with nn.Linear's small initialisation. Pre- and post-LN with the linear embedding are left out (budget).
PLACEMENT_SETUPS: tuple[tuple[str, str], ...] = (("pre", "lookup"), ("post", "lookup"), ("none", "lookup"), ("none", "linear"))


# ------------------------------------------------------------------ analysis --


def crossing_steps(result: SweepResult, level: float | dict[int, float], on: str = "test") -> pd.DataFrame:
    """Per run: the first step at which accuracy on ``on`` data reaches ``level``, read off the recorded curve.

    ``level`` is a number, or a map n_pairs → level (e.g. 2/n_pairs). NOT_REACHED if never.
    """
    rows = []
    column = f"accuracy_{on}"
    for run_id, curve in result.curves.groupby("run", sort=False):
        meta = result.summary.loc[result.summary["run"] == run_id].iloc[0]
        lvl = level[int(meta["n_pairs"])] if isinstance(level, dict) else level
        t = first_crossing(curve["step"].to_numpy(), curve[column].to_numpy(), lvl, direction="up")
        rows.append({**meta.to_dict(), "emergence_step": t, "level": lvl})
    return pd.DataFrame(rows)


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
            has_train = "accuracy_train_distribution" in g and g["accuracy_train_distribution"].notna().all()
            train = g["accuracy_train_distribution"] if has_train else g["accuracy_test"]  # no repetition: one distribution
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


def _attention_columns(columns) -> list[tuple[str, str, int, int]]:
    """(column, kind, layer, head) for every recorded attention column ``attn_<kind>_L<layer>H<head>``."""
    out = []
    for column in columns:
        if column.startswith("attn_"):
            kind, lh = column.removeprefix("attn_").rsplit("_L", 1)
            layer, head = (int(v) for v in lh.split("H"))
            out.append((column, kind, layer, head))
    return out


def attention_summary(result: SweepResult) -> pd.DataFrame:
    """Tidy attention table: one row per (run, step, kind, layer, head) with the weight."""
    rows = []
    for run_id, curve in result.curves.groupby("run", sort=False):
        seed = int(result.summary.loc[result.summary["run"] == run_id, "seed"].iloc[0])
        for column, kind, layer, head in _attention_columns(curve.columns):
            rows.append(pd.DataFrame({"run": run_id, "seed": seed, "step": curve["step"].to_numpy(), "kind": kind,
                                      "layer": layer, "head": head, "weight": curve[column].to_numpy()}))
    return pd.concat(rows, ignore_index=True)


SETUP_COLUMNS = ["layer_norm", "embedding", "n_pairs"]


def _run_setups(result: SweepResult) -> pd.DataFrame:
    """One row per run: its id, set-up, seed and emergence step."""
    return result.summary[["run", *SETUP_COLUMNS, "seed", "emergence_step"]].drop_duplicates("run")


def final_attention(result: SweepResult) -> pd.DataFrame:
    """Per run, kind, layer and head: the attention weight at the run's last evaluation, with the run's set-up."""
    rows = []
    for run_id, curve in result.curves.groupby("run", sort=False):
        last = curve.iloc[-1]
        rows += [{"run": run_id, "kind": kind, "layer": layer, "head": head, "weight": float(last[column])}
                 for column, kind, layer, head in _attention_columns(curve.columns)]
    return pd.DataFrame(rows).merge(_run_setups(result), on="run")


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
