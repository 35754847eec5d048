"""Figures 13–15 (App. B.3): Transformer ablations on single-location regression.

* Figure 13: depth vs width. Plateau vs d and T for every (layers, heads) in a small factorial grid; fit
  C·d^α·T^β·L^λ·H^η. The learning rate is not retuned per size, as in the paper. Heads split the width
  (d_model fixed, head width d_model / n_heads).
* Figure 14: what the task gives away. Relevance feature + random position, feature + fixed position (drawn
  once per seed), no feature + fixed position. The fourth combination is unsolvable and refused by
  `configs.check_solvable`. "longer contexts" adds larger T at small d for all three (not in the paper).
* Figure 15: the optimizer. SGD against Adam on a 1-layer, 1-head model, with the learning rates chosen by a
  small search that the sweeps include.

All three share one grid of (d, T) per scale, and their 1-layer × 1-head Adam runs are the same configs (so
they are cached, and trained, once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...configs import TransformerRegressionConfig
from ..base import ScaledFigure


@dataclass(frozen=True)
class Figure14Grid:
    seeds: tuple[int, ...]  # the fixed position is drawn once per seed: more seeds, to see the spread over positions
    longer_T: tuple[int, ...] = ()  # "longer contexts": does a random position start to cost more as T grows?
    longer_d: tuple[int, ...] = ()


@dataclass(frozen=True)
class Figure15Grid:
    """SGD against Adam: each optimiser's lr search at ``search_point`` (T, d) and the lrs the grid uses."""

    sgd_lr: float
    adam_lr: float
    sgd_max_steps: int  # SGD's plateaus are slower
    search_point: tuple[int, int]
    sgd_lrs: tuple[float, ...]
    adam_lrs: tuple[float, ...]


@dataclass(frozen=True)
class AblationGrid:
    model: dict[str, int]
    adam_lr: float
    seeds: tuple[int, ...]
    max_steps: int
    d: tuple[int, ...]
    T: tuple[int, ...]
    layers: tuple[int, ...]
    heads: tuple[int, ...]
    fig13_seeds: tuple[int, ...]
    fig14: Figure14Grid
    fig15: Figure15Grid


# The cpu scale keeps Figure 3's model (width 64, QK 16, Adam 1e-3) and a 3 × 3 grid of (d, T), the least that
# fits two exponents with one value to spare per axis. The paper's grids for these figures are unknown (spec §10,
# items 11–12): "paper" uses Table 1's model and Figure 3's d and T.
ABLATION_GRIDS = {
    "smoke": AblationGrid(
        model={"d_model": 32, "d_qk": 8}, adam_lr=3e-3, seeds=(0,), max_steps=2000, d=(2, 4), T=(8, 16),
        layers=(1, 2), heads=(1, 2), fig13_seeds=(0,), fig14=Figure14Grid(seeds=(0, 1)),
        fig15=Figure15Grid(sgd_lr=0.1, adam_lr=3e-3, sgd_max_steps=3000, search_point=(8, 4), sgd_lrs=(0.03, 0.1),
                           adam_lrs=(3e-3,)),
    ),
    "cpu": AblationGrid(
        model={"d_model": 64, "d_qk": 16}, adam_lr=1e-3, seeds=(0, 1), max_steps=20_000, d=(8, 16, 32), T=(16, 32, 64),
        layers=(1, 2, 4), heads=(1, 2, 4),
        # Figure 13's 81 points fit four exponents: one seed each keeps its 4-layer models within the budget.
        fig13_seeds=(0,),
        fig14=Figure14Grid(seeds=(0, 1, 2, 3), longer_T=(128, 256), longer_d=(8, 16)),
        # The fastest of each search at (T, d) = search_point (the chapter shows it and checks it).
        fig15=Figure15Grid(sgd_lr=0.05, adam_lr=1e-2, sgd_max_steps=40_000, search_point=(32, 8),
                           sgd_lrs=(0.01, 0.02, 0.03, 0.05, 0.1, 0.3), adam_lrs=(3e-4, 1e-3, 3e-3, 1e-2)),
    ),
    "paper": AblationGrid(
        model={"d_model": 256, "d_qk": 64}, adam_lr=1e-4, seeds=(0, 1, 2), max_steps=100_000, d=(16, 32, 64, 128),
        T=(32, 64, 128, 256), layers=(1, 2, 4), heads=(1, 2, 4, 8), fig13_seeds=(0, 1, 2),
        fig14=Figure14Grid(seeds=(0, 1, 2, 3, 4)),
        fig15=Figure15Grid(sgd_lr=5e-3, adam_lr=1e-4, sgd_max_steps=400_000, search_point=(64, 32),
                           sgd_lrs=(1e-3, 2e-3, 5e-3, 1e-2), adam_lrs=(3e-5, 1e-4, 3e-4)),
    ),
}

# The three task variants of Figure 14: name → (random_position, relevance_feature).
TASK_VARIANTS: dict[str, tuple[bool, bool]] = {
    "feature + random position": (True, True),
    "feature + fixed position": (False, True),
    "no feature + fixed position": (False, False),
}


@dataclass(frozen=True)
class AblationFigure(ScaledFigure):
    GRIDS: ClassVar[dict[str, AblationGrid]] = ABLATION_GRIDS

    def _runs(self, T: int, d: int, seeds: tuple[int, ...] | None = None, **kw: Any) -> list[TransformerRegressionConfig]:
        g = self.grid
        base = dict(T=T, d=d, lr=g.adam_lr, max_steps=g.max_steps, n_layers=1, n_heads=1, **g.model) | kw
        return [TransformerRegressionConfig(seed=s, **base) for s in (g.seeds if seeds is None else seeds)]

    def _grid_runs(self, **kw: Any) -> list[TransformerRegressionConfig]:
        return [r for T in self.grid.T for d in self.grid.d for r in self._runs(T, d, **kw)]


@dataclass(frozen=True)
class Figure13(AblationFigure):
    """Figure 13: plateau vs (d, T) for every (layers, heads) in the scale's factorial grid, Adam, fixed lr."""

    name: ClassVar[str] = "Figure 13"

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        return {"architectures": [r for L in g.layers for H in g.heads
                                  for r in self._grid_runs(n_layers=L, n_heads=H, seeds=g.fig13_seeds)]}


@dataclass(frozen=True)
class Figure14(AblationFigure):
    """Figure 14: the three solvable task variants, 1 layer × 1 head (spec §5: inferred from the fits)."""

    name: ClassVar[str] = "Figure 14"

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        f = self.grid.fig14
        out = {name: self._grid_runs(random_position=rand, relevance_feature=feat, seeds=f.seeds)
               for name, (rand, feat) in TASK_VARIANTS.items()}
        out["longer contexts"] = [
            r for rand, feat in TASK_VARIANTS.values() for T in f.longer_T for d in f.longer_d
            for r in self._runs(T, d, random_position=rand, relevance_feature=feat, seeds=f.seeds)
        ]
        return out


@dataclass(frozen=True)
class Figure15(AblationFigure):
    """Figure 15: SGD vs Adam, 1 layer × 1 head.

    "search": every candidate lr of each optimizer at one (T, d) point (the scale's ``search_point``); "sgd"
    and "adam": the grid at the scale's chosen lrs (the paper's 5e-3 and 1e-4 at paper scale). At cpu scale
    the chosen lr of each is the fastest of its search, which the chapter checks.
    """

    name: ClassVar[str] = "Figure 15"

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        f = self.grid.fig15
        T, d = f.search_point
        sgd = dict(optimizer="sgd", max_steps=f.sgd_max_steps)
        return {
            "search": [r for lr in f.sgd_lrs for r in self._runs(T, d, lr=lr, **sgd)]
            + [r for lr in f.adam_lrs for r in self._runs(T, d, lr=lr)],
            "sgd": self._grid_runs(lr=f.sgd_lr, **sgd),
            "adam": self._grid_runs(lr=f.adam_lr),
        }
