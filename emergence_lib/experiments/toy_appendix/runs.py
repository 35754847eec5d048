"""Figures 6–10 (paper App. A): the toy model's loss landscape, early and late dynamics, SGD against the
reduced flow, and the 3-D cross-sample reduced model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from ...configs import ToyFlowConfig, ToySGDConfig, check_int
from ...toy import escape_time, reduced_loss
from ..base import ScaledFigure, int_grid, normalise_grid, p_grid


@dataclass(frozen=True)
class NoGrid:
    """A figure whose runs are the same at every scale."""


NO_GRIDS = {scale: NoGrid() for scale in ("smoke", "cpu", "paper")}


@dataclass(frozen=True)
class Figure6(ScaledFigure):
    """Figure 6: the loss landscape L(w, Δa) (Eq. 12) at T = 256, d = 64, with the gradient-flow path."""

    name: ClassVar[str] = "Figure 6"
    GRIDS: ClassVar[dict[str, NoGrid]] = NO_GRIDS

    T: int = 256
    d: int = 64
    t_max: float = 20_000.0
    w_range: tuple[float, float] = (-1.0, 11.0)
    delta_a_range: tuple[float, float] = (-2.0, 14.0)
    resolution: int = 300

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        # Dense recording: the path crosses most of the plane during the short transition.
        return {"path": [ToyFlowConfig(T=self.T, d=self.d, t_max=self.t_max, points_per_decade=2000)]}

    def landscape(self) -> pd.DataFrame:
        """Tidy (w, delta_a, loss) on a regular grid: a closed form, nothing to cache."""
        w = np.linspace(*self.w_range, self.resolution)
        da = np.linspace(*self.delta_a_range, self.resolution)
        W, DA = np.meshgrid(w, da)
        return pd.DataFrame({"w": W.ravel(), "delta_a": DA.ravel(), "loss": reduced_loss(W, DA, self.T, self.d).ravel()})


@dataclass(frozen=True)
class Figure7Grid:
    d: int
    T_values: tuple[int, ...]

    def __post_init__(self) -> None:
        normalise_grid(self, d=check_int("d", self.d, 1), T_values=int_grid("T_values", self.T_values, 2))


FIGURE7_GRIDS = {"smoke": Figure7Grid(d=64, T_values=(64, 256)), "cpu": Figure7Grid(d=512, T_values=(256, 1024, 4096)),
                 "paper": Figure7Grid(d=512, T_values=(256, 512, 1024, 2048, 4096))}


@dataclass(frozen=True)
class Figure7(ScaledFigure):
    """Figure 7: early dynamics against the linearisation, d = 512, several T."""

    name: ClassVar[str] = "Figure 7"
    GRIDS: ClassVar[dict[str, Figure7Grid]] = FIGURE7_GRIDS
    OVERRIDES: ClassVar[tuple[str, ...]] = ("d", "T_values")

    d: int | None = None
    T_values: tuple[int, ...] | None = None

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        g = self.grid
        # Past the drop: 0.6 T_ε covers the plateau (T_ε overestimates it ~3–4×) and the transition.
        return {"curves": [ToyFlowConfig(T=T, d=g.d, t_max=float(f"{0.6 * float(escape_time(T, g.d)):.4g}"))
                           for T in g.T_values]}


@dataclass(frozen=True)
class Figure8(ScaledFigure):
    """Figure 8: late phase. w∞(α) for several T (d = 64); w vs its equilibrium and the Hessian along the flow (T = 512)."""

    name: ClassVar[str] = "Figure 8"
    GRIDS: ClassVar[dict[str, NoGrid]] = NO_GRIDS

    d: int = 64
    T_values: tuple[int, ...] = (64, 256, 1024, 4096)
    flow_T: int = 512
    t_max: float = 10_000.0

    def check(self) -> None:
        int_grid("T_values", self.T_values, 2)

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        return {"flow": [ToyFlowConfig(T=self.flow_T, d=self.d, t_max=self.t_max)]}


@dataclass(frozen=True)
class Figure9Grid:
    T: int
    d: int
    t_max: float
    seeds: tuple[int, ...]
    record_every: int


FIGURE9_GRIDS = {
    "smoke": Figure9Grid(T=32, d=32, t_max=600.0, seeds=(0, 1, 2), record_every=5),
    "cpu": Figure9Grid(T=128, d=128, t_max=3500.0, seeds=(0, 1, 2, 3, 4), record_every=10),
    "paper": Figure9Grid(T=256, d=256, t_max=8000.0, seeds=(0, 1, 2, 3, 4), record_every=20),
}


@dataclass(frozen=True)
class Figure9(ScaledFigure):
    """Figure 9: the reduced flow against SGD on sampled data (batch 32, lr 1).

    The paper's set-up draws W and W* with N(0, 1/d) entries; we also run SGD
    from W = 0 with unit-norm columns of W* (the theory's assumptions) to
    separate the effect of SGD noise from that of the initialisation.
    """

    name: ClassVar[str] = "Figure 9"
    GRIDS: ClassVar[dict[str, Figure9Grid]] = FIGURE9_GRIDS

    batch_size: int = 32
    lr: float = 1.0

    def sweeps(self) -> dict[str, list[Any]]:
        g = self.grid
        sgd = dict(T=g.T, d=g.d, batch_size=self.batch_size, lr=self.lr, t_max=g.t_max, record_every=g.record_every)
        return {
            "flow": [ToyFlowConfig(T=g.T, d=g.d, t_max=g.t_max)],
            "sgd (paper init)": [ToySGDConfig(seed=s, target="gaussian", init="gaussian", **sgd) for s in g.seeds],
            "sgd (theory init)": [ToySGDConfig(seed=s, target="unit_columns", init="zero", **sgd) for s in g.seeds],
        }


@dataclass(frozen=True)
class Figure10(ScaledFigure):
    """Figure 10: the 3-D cross-sample reduced model at T = 512, d = 64, for several p."""

    name: ClassVar[str] = "Figure 10"
    GRIDS: ClassVar[dict[str, NoGrid]] = NO_GRIDS

    T: int = 512
    d: int = 64
    p_values: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4)
    t_max: float = 10_000.0

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        # p = 0 runs the 2-D model, whose w covers all d columns (optimum √d);
        # compare it with the 3-D runs through alignments divided by their optima.
        return {"curves": [ToyFlowConfig(T=self.T, d=self.d, p=p, t_max=self.t_max)
                           for p in p_grid("p_values", self.p_values)]}
