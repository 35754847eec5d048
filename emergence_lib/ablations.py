"""Figures 13–15 (App. B.3): Transformer ablations on single-location regression.

* Figure 13: depth vs width. Plateau vs d and T for every (layers, heads) in
  a small factorial grid; fit C·d^α·T^β·L^λ·H^η. The learning rate is not
  retuned per size, as in the paper.
* Figure 14: what the task gives away. Relevance feature + random position,
  feature + fixed position (drawn once per seed), no feature + fixed position.
  The fourth combination is unsolvable and refused by `configs.check_solvable`.
  "longer contexts" adds larger T at small d for all three (not in the paper).
  The fixed position is drawn once per seed, so the figure has more seeds.
* Figure 15: the optimizer. SGD against Adam on a 1-layer, 1-head model, with
  the learning rates chosen by a small search that the sweeps include.

All three share one grid of (d, T) per scale, and their 1-layer × 1-head Adam
runs are the same configs (so they are cached, and trained, once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from .configs import TransformerRegressionConfig
from .experiments import ScaledFigure
from .metrics import PowerLawFit, fit_power_law, mean_over_seeds
from .sweep import SweepResult
from .tasks import SingleLocationRegression

# The cpu scale keeps Figure 3's model (width 64, QK 16, Adam 1e-3) and a 3 × 3
# grid of (d, T), the least that fits two exponents with one value to spare per
# axis. The paper's grids for these figures are unknown (spec §10, items 11–12):
# "paper" uses Table 1's model and Figure 3's d and T.
ABLATION_SCALES: dict[str, dict[str, Any]] = {
    "smoke": {
        "model": {"d_model": 32, "d_qk": 8}, "adam_lr": 3e-3, "seeds": (0,), "max_steps": 2000,
        "d": (2, 4), "T": (8, 16), "layers": (1, 2), "heads": (1, 2),
        "sgd_lr": 0.1, "fig15_adam_lr": 3e-3, "sgd_max_steps": 3000, "search_point": (8, 4),
        "sgd_lrs": (0.03, 0.1), "adam_lrs": (3e-3,), "fig14_longer": {"T": (), "d": ()},
        "fig14_seeds": (0, 1), "fig13_seeds": (0,),
    },
    "cpu": {
        "model": {"d_model": 64, "d_qk": 16}, "adam_lr": 1e-3, "seeds": (0, 1), "max_steps": 20_000,
        # Figure 14 draws a fixed position per seed: more seeds there, to see the spread over positions.
        "fig14_seeds": (0, 1, 2, 3),
        # Figure 13's 81 points fit four exponents: one seed each keeps its 4-layer models within the budget.
        "fig13_seeds": (0,),
        "d": (8, 16, 32), "T": (16, 32, 64), "layers": (1, 2, 4), "heads": (1, 2, 4),
        # Figure 15's lrs: the fastest of each search at (T, d) = search_point (the chapter shows it and checks it);
        # SGD gets a budget long enough for its slower plateaus.
        "sgd_lr": 0.05, "fig15_adam_lr": 1e-2, "sgd_max_steps": 40_000, "search_point": (32, 8),
        "sgd_lrs": (0.01, 0.02, 0.03, 0.05, 0.1, 0.3), "adam_lrs": (3e-4, 1e-3, 3e-3, 1e-2),
        # Figure 14 at longer contexts: does a random position start to cost more as T grows?
        "fig14_longer": {"T": (128, 256), "d": (8, 16)},
    },
    "paper": {
        "model": {"d_model": 256, "d_qk": 64}, "adam_lr": 1e-4, "seeds": (0, 1, 2), "max_steps": 100_000,
        "d": (16, 32, 64, 128), "T": (32, 64, 128, 256), "layers": (1, 2, 4), "heads": (1, 2, 4, 8),
        "sgd_lr": 5e-3, "fig15_adam_lr": 1e-4, "sgd_max_steps": 400_000, "search_point": (64, 32),
        "sgd_lrs": (1e-3, 2e-3, 5e-3, 1e-2), "adam_lrs": (3e-5, 1e-4, 3e-4), "fig14_longer": {"T": (), "d": ()},
        "fig14_seeds": (0, 1, 2, 3, 4), "fig13_seeds": (0, 1, 2),
    },
}

# The three task variants of Figure 14: name → (random_position, relevance_feature).
TASK_VARIANTS: dict[str, tuple[bool, bool]] = {
    "feature + random position": (True, True),
    "feature + fixed position": (False, True),
    "no feature + fixed position": (False, False),
}

# Reported values, for labelled comparison only (never used in computation).
PAPER_ABLATIONS: dict[str, dict[str, float]] = {
    # Fig. 13; the d exponent prints as ".27" (spec §10 item 11): 1.27 inferred.
    "figure13": {"C": 1.03, "d": 1.27, "T": 0.70, "layers": 0.06, "heads": 0.16, "R2": 0.995},
    "figure14 feature + random position": {"C": 1.43, "d": 1.31, "T": 0.58, "R2": 0.998},
    "figure14 feature + fixed position": {"C": 4.20, "d": 1.22, "T": 0.29, "R2": 0.996},
    "figure14 no feature + fixed position": {"C": 4.61, "d": 1.21, "T": 0.30, "R2": 0.999},
    "figure15 sgd": {"C": 6.42, "d": 1.44, "T": 1.07, "R2": 0.997},
    "figure15 adam": {"C": 1.45, "d": 1.31, "T": 0.57, "R2": 0.998},
}


@dataclass(frozen=True)
class _Ablation(ScaledFigure):
    GRIDS: ClassVar[dict[str, dict[str, Any]]] = ABLATION_SCALES

    def _runs(self, T: int, d: int, seeds: tuple[int, ...] | None = None, **kw: Any) -> list[TransformerRegressionConfig]:
        g = self.grid
        base = dict(T=T, d=d, lr=g["adam_lr"], max_steps=g["max_steps"], n_layers=1, n_heads=1, **g["model"]) | kw
        return [TransformerRegressionConfig(seed=s, **base) for s in (g["seeds"] if seeds is None else seeds)]

    def _grid_runs(self, **kw: Any) -> list[TransformerRegressionConfig]:
        g = self.grid
        return [r for T in g["T"] for d in g["d"] for r in self._runs(T, d, **kw)]


@dataclass(frozen=True)
class Figure13(_Ablation):
    """Figure 13: plateau vs (d, T) for every (layers, heads) in the scale's factorial grid, Adam, fixed lr."""

    name: ClassVar[str] = "Figure 13"

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        return {"architectures": [
            r for L in g["layers"] for H in g["heads"] for r in self._grid_runs(n_layers=L, n_heads=H, seeds=g["fig13_seeds"])
        ]}


@dataclass(frozen=True)
class Figure14(_Ablation):
    """Figure 14: the three solvable task variants, 1 layer × 1 head (spec §5: inferred from the fits)."""

    name: ClassVar[str] = "Figure 14"

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        longer = self.grid["fig14_longer"]
        seeds = self.grid["fig14_seeds"]
        out = {
            name: self._grid_runs(random_position=rand, relevance_feature=feat, seeds=seeds)
            for name, (rand, feat) in TASK_VARIANTS.items()
        }
        out["longer contexts"] = [
            r for rand, feat in TASK_VARIANTS.values() for T in longer["T"] for d in longer["d"]
            for r in self._runs(T, d, random_position=rand, relevance_feature=feat, seeds=seeds)
        ]
        return out


@dataclass(frozen=True)
class Figure15(_Ablation):
    """Figure 15: SGD vs Adam, 1 layer × 1 head.

    "search": every candidate lr of each optimizer at one (T, d) point (the
    scale's ``search_point``); "sgd" and "adam": the grid at the scale's chosen
    lrs (the paper's 5e-3 and 1e-4 at paper scale). At cpu scale the chosen lr
    of each is the fastest of its search, which the chapter checks.
    """

    name: ClassVar[str] = "Figure 15"

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        T, d = g["search_point"]
        sgd = dict(optimizer="sgd", max_steps=g["sgd_max_steps"])
        return {
            "search": [r for lr in g["sgd_lrs"] for r in self._runs(T, d, lr=lr, **sgd)]
            + [r for lr in g["adam_lrs"] for r in self._runs(T, d, lr=lr)],
            "sgd": self._grid_runs(lr=g["sgd_lr"], **sgd),
            "adam": self._grid_runs(lr=g["fig15_adam_lr"]),
        }


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
