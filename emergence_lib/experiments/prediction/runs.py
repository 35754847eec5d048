"""Chapter B2: held-out configurations for `read.predict_emergence`, fixed before any was run, inside the fitted
grids (but off their points) and one step outside each."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...configs import ToyFullGDConfig
from ..base import ScaledFigure
from ..recall.runs import RECALL_GRIDS, Figure4
from ..regression.runs import TRANSFORMER_GRIDS, Figure3


@dataclass(frozen=True)
class HeldOutGrid:
    toy: tuple[tuple[int, int, float], ...]  # (T, d, p); full GD with W* ~ N(0, 1/d)
    regression: tuple[tuple[int, int], ...]  # (T, d)
    recall: tuple[tuple[int, int], ...]  # (n_tokens, n_pairs)
    recall_lr: float
    one_seed: tuple[tuple[int, int], ...] = ()  # regression points run with one seed only
    max_steps: int | None = None  # None: the figures' budgets


# Chosen before any was run, inside the fitted grids (but off their points) and one step outside each.
HELD_OUT = {
    "smoke": HeldOutGrid(toy=((48, 6, 0.0),), regression=((12, 3),), recall=((10, 3),), recall_lr=3e-3, max_steps=300),
    "cpu": HeldOutGrid(
        toy=((384, 24, 0.0), (768, 48, 0.2), (1536, 12, 0.4)),
        regression=((24, 12), (48, 6), (48, 24), (96, 12), (128, 48)),  # Figure 3's grid is 16–128 × 4–32
        # One seed only: seed 0 of (128, 48) never left its plateau in 20k steps (44 CPU-minutes); a second seed would
        # cost as much again, more than the session that ran it had left.
        one_seed=((128, 48),),
        recall=((24, 5), (48, 7), (64, 10)),  # Figure 4's is 16–64 × 4–8
        recall_lr=1e-3,
    ),
    "paper": HeldOutGrid(toy=((384, 24, 0.0), (768, 48, 0.2), (1536, 12, 0.4)), regression=((48, 24), (96, 48), (192, 96)),
                         recall=((48, 12), (96, 24), (192, 48)), recall_lr=1e-4),
}


@dataclass(frozen=True)
class Prediction(ScaledFigure):
    """Held-out runs for `read.predict_emergence` (they also record attention, for the early warning)."""

    name: ClassVar[str] = "When will it emerge?"
    GRIDS: ClassVar[dict[str, HeldOutGrid]] = HELD_OUT

    def sweeps(self) -> dict[str, list[Any]]:
        g = self.grid
        reg = Figure3(scale=self.scale).sweeps()["T"][0]
        rec = [r for r in Figure4(scale=self.scale).sweeps()["grid"] if r.lr == g.recall_lr][0]
        seeds = TRANSFORMER_GRIDS[self.scale].seeds
        budget = {"max_steps": g.max_steps} if g.max_steps else {}  # smoke: seconds, not minutes
        return {
            "toy": [ToyFullGDConfig(T=T, d=d, p=p, lr=1.0, t_max=8.0 * np.sqrt(d) * T, target="gaussian")
                    for T, d, p in g.toy],
            # The same with unit-norm columns of W*, where the reduction is exact: what the Gaussian target costs.
            "toy_unit_columns": [ToyFullGDConfig(T=T, d=d, p=p, lr=1.0, t_max=8.0 * np.sqrt(d) * T) for T, d, p in g.toy],
            "regression": [dataclasses.replace(reg, T=T, d=d, seed=s, record_attention=True, **budget)
                           for s in seeds for T, d in g.regression if s == seeds[0] or (T, d) not in g.one_seed],
            "recall": [dataclasses.replace(rec, n_tokens=V, n_pairs=N, seed=s, **budget)
                       for s in RECALL_GRIDS[self.scale].seeds for V, N in g.recall],
        }
