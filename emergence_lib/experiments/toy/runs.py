"""Figures 1 and 2 (paper §2.1–2.3): the toy model's reduced dynamics, without and with repetition, and the
Figure 2 (right) constant's candidate explanations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...configs import ConfigError, ToyFlowConfig, ToyFullGDConfig, check_int, check_threshold
from ...toy import escape_time
from ..base import GRID_MAXIMUM, PLATEAU_PPD, ScaledFigure, int_grid, normalise_grid, p_grid


@dataclass(frozen=True)
class Figure1Grid:
    """Panel (c): one line per T, d on the x-axis."""

    T_values: tuple[int, ...]
    d_values: tuple[int, ...]

    def __post_init__(self) -> None:
        normalise_grid(self, T_values=int_grid("T_values", self.T_values, 2, at_least=2),
                       d_values=int_grid("d_values", self.d_values, 1, at_least=2))


# The paper's T lines are read off its legend; its d grid is unknown (axis 1e1–1e2): cpu uses octaves 16–128,
# paper adds half-octaves.
FIGURE1_GRIDS = {
    "smoke": Figure1Grid(T_values=(64, 128, 256), d_values=(4, 8, 16)),
    "cpu": Figure1Grid(T_values=(256, 512, 1024, 2048, 4096), d_values=(16, 32, 64, 128)),
    "paper": Figure1Grid(T_values=(256, 512, 1024, 2048, 4096), d_values=(16, 23, 32, 45, 64, 91, 128)),
}


@dataclass(frozen=True)
class Figure1(ScaledFigure):
    """Figure 1: reduced dynamics of the toy model, no repetition.

    (a) loss vs time, T = ``curve_T``, one line per ``curve_d_values``;
    (b) w and α vs time, T = ``curve_T``, d = ``mechanism_d``;
    (c) plateau length vs d, one line per T (``T_values``, None: the scale's), with the fitted law and Eq. 6.
    """

    name: ClassVar[str] = "Figure 1"
    GRIDS: ClassVar[dict[str, Figure1Grid]] = FIGURE1_GRIDS
    OVERRIDES: ClassVar[tuple[str, ...]] = ("T_values", "d_values")

    T_values: tuple[int, ...] | None = None
    d_values: tuple[int, ...] | None = None
    curve_T: int = 512
    curve_d_values: tuple[int, ...] = (16, 32, 64)
    mechanism_d: int = 64
    curve_t_max: float = 10_000.0
    threshold: float = 0.1

    def check(self) -> None:
        int_grid("curve_d_values", self.curve_d_values, 1)
        check_int("curve_T", self.curve_T, 2, GRID_MAXIMUM["T"])
        check_int("mechanism_d", self.mechanism_d, 1, GRID_MAXIMUM["d"])
        check_threshold(self.threshold)
        if not self.curve_t_max > 0:
            raise ConfigError(f"curve_t_max must be > 0, got {self.curve_t_max}")

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        g = self.grid
        ds = sorted(set(self.curve_d_values) | {self.mechanism_d})
        curves = [ToyFlowConfig(T=self.curve_T, d=d, t_max=self.curve_t_max, threshold=self.threshold) for d in ds]
        plateaus = [
            ToyFlowConfig(T=T, d=d, threshold=self.threshold, stop_below=self.threshold / 2, points_per_decade=PLATEAU_PPD)
            for T in g.T_values for d in g.d_values
        ]
        return {"curves": curves, "plateaus": plateaus}


@dataclass(frozen=True)
class Figure2Grid:
    T: int
    d_values: tuple[int, ...]
    B_values: tuple[int, ...]
    p_values: tuple[float, ...]
    inset_T: int
    inset_d: int

    def __post_init__(self) -> None:
        normalise_grid(self, T=check_int("T", self.T, 2, GRID_MAXIMUM["T"]),
                       d_values=int_grid("d_values", self.d_values, 1, at_least=2),
                       B_values=int_grid("B_values", self.B_values, 1, at_least=2), p_values=p_grid("p_values", self.p_values),
                       inset_T=check_int("inset_T", self.inset_T, 3, GRID_MAXIMUM["T"]),
                       inset_d=check_int("inset_d", self.inset_d, 1, GRID_MAXIMUM["d"]))


FIGURE2_GRIDS = {
    "smoke": Figure2Grid(T=256, d_values=(4, 8, 16), B_values=(1, 2, 4), p_values=(0.0, 0.2, 0.4), inset_T=128, inset_d=16),
    "cpu": Figure2Grid(T=4096, d_values=(16, 32, 64, 128), B_values=(1, 2, 4, 8, 16), p_values=(0.0, 0.1, 0.2, 0.4),
                       inset_T=512, inset_d=64),
    "paper": Figure2Grid(T=4096, d_values=(16, 23, 32, 45, 64, 91, 128), B_values=(1, 2, 4, 8, 16),
                         p_values=(0.0, 0.1, 0.2, 0.4), inset_T=512, inset_d=64),
}


@dataclass(frozen=True)
class Figure2(ScaledFigure):
    """Figure 2: in-context (B) and cross-sample (p) repetition in the toy model, T fixed.

    In-context: the test loss has the same B (the toy model cannot generalise to
    B = 1). Cross-sample: the test loss has no repetition (p = 0). The insets
    (loss vs time for B ∈ {1, 2} and p ∈ {0, 0.2}) use T = ``inset_T``,
    d = ``inset_d``: the paper does not state them, and its 0–10k time axis
    rules out T = 4096.
    """

    name: ClassVar[str] = "Figure 2"
    GRIDS: ClassVar[dict[str, Figure2Grid]] = FIGURE2_GRIDS
    OVERRIDES: ClassVar[tuple[str, ...]] = ("T", "d_values", "B_values", "p_values", "inset_T", "inset_d")

    T: int | None = None
    d_values: tuple[int, ...] | None = None
    B_values: tuple[int, ...] | None = None
    p_values: tuple[float, ...] | None = None
    inset_T: int | None = None
    inset_d: int | None = None
    inset_t_max: float = 10_000.0
    threshold: float = 0.1

    def check(self) -> None:
        check_threshold(self.threshold)

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        g = self.grid
        stop: dict[str, Any] = dict(threshold=self.threshold, stop_below=self.threshold / 2, points_per_decade=PLATEAU_PPD)
        inset: dict[str, Any] = dict(T=g.inset_T, d=g.inset_d, t_max=self.inset_t_max, threshold=self.threshold)
        return {
            "in_context": [ToyFlowConfig(T=g.T, d=d, B=B, **stop) for B in g.B_values for d in g.d_values],
            "cross_sample": [ToyFlowConfig(T=g.T, d=d, p=p, **stop) for p in g.p_values for d in g.d_values],
            "in_context_inset": [ToyFlowConfig(B=B, **inset) for B in (1, 2)],
            "cross_sample_inset": [ToyFlowConfig(p=p, **inset) for p in (0.0, 0.2)],
        }


@dataclass(frozen=True)
class Figure2Constant(ScaledFigure):
    """The Figure 2 (right) constant: which change to the set-up would give the paper's 2.15?

    Each sweep is one candidate explanation, fitted with the same law
    C·(√d·T/f(p, d))^γ. Reduced-flow candidates use the figure's whole grid;
    full-model candidates (expensive at T = 4096) use a sub-grid.
    """

    name: ClassVar[str] = "Figure 2 constant"
    GRIDS: ClassVar[dict[str, Figure2Grid]] = FIGURE2_GRIDS

    thresholds: tuple[float, ...] = (0.05, 0.2)
    x_tilde_norms: tuple[float, ...] = (0.5, 2.0)
    long_T_factor: int = 2
    full_p_values: tuple[float, ...] = (0.0, 0.2, 0.4)
    full_seeds: tuple[int, ...] = (0, 1, 2)

    def check(self) -> None:
        for t in self.thresholds:
            check_threshold(t)
        check_int("long_T_factor", self.long_T_factor, 2)
        p_grid("full_p_values", self.full_p_values)

    @property
    def figure(self) -> Figure2:
        return Figure2(scale=self.scale)

    def sweeps(self) -> dict[str, list[Any]]:
        fig = self.figure
        T, ds, ps = fig.grid.T, fig.grid.d_values, fig.grid.p_values
        full_ds = (ds[0], ds[len(ds) // 2])

        def flows(**kw: Any) -> list[ToyFlowConfig]:
            base = dict(T=T, threshold=fig.threshold, stop_below=fig.threshold / 2, points_per_decade=PLATEAU_PPD) | kw
            return [ToyFlowConfig(d=d, p=p, **base) for p in ps for d in ds]

        t_full = 2.0 * float(escape_time(T, max(full_ds)))  # T_ε overestimates ~3×: ample
        out: dict[str, list[Any]] = {}
        for thr in self.thresholds:
            out[f"threshold {thr:g}"] = flows(threshold=thr, stop_below=min(thr, fig.threshold) / 2)
        for c in self.x_tilde_norms:
            out[f"|x̃| = {c:g}"] = flows(x_tilde_norm=c)
        out[f"T = {self.long_T_factor * T}"] = flows(T=self.long_T_factor * T)
        out["full model (Eq. 2, GD)"] = [
            ToyFullGDConfig(T=T, d=d, p=p, lr=1.0, t_max=t_full) for p in self.full_p_values for d in full_ds
        ]
        out["full model, W* ~ N(0, 1/d)"] = [
            ToyFullGDConfig(T=T, d=d, p=p, lr=1.0, t_max=t_full, target="gaussian", seed=s)
            for s in self.full_seeds for p in self.full_p_values for d in full_ds
        ]
        return out
