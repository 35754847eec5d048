"""One small config per paper figure: a scale in, the runs out.

The figure-to-code map is one lookup: Figure 1 is `Figure1`, and so on. Each
figure config is validated on creation (before any compute), knows its grids
at the three scales, and expands into named lists of run configs (`sweeps`),
which `run` sends through `sweep.run_sweep` and the scale's cache.

Scales:
* ``smoke``: seconds, small grids, nothing cached (tests);
* ``cpu``: the default; a 2-core laptop in minutes; cached in ``data/``;
* ``paper``: the paper's grids (or denser where the paper's are unknown); cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Sequence

import numpy as np
import pandas as pd

from .cache import ResultCache
from .configs import (
    ConfigError,
    Scale,
    ToyFlowConfig,
    ToyFullGDConfig,
    ToySGDConfig,
    check_int,
    check_probability,
    check_scale,
    check_threshold,
)
from .metrics import PowerLawFit, add_cross_sample_predictor, fit_power_law, plateau_length
from .sweep import SweepResult, run_sweep
from .toy import escape_time, reduced_loss


def cache_for(scale: str, on_corrupt: str = "raise") -> ResultCache | None:
    """The cache a scale uses: none for smoke (always recomputed), ``data/`` otherwise."""
    check_scale(scale)
    return None if scale == "smoke" else ResultCache(on_corrupt=on_corrupt)  # type: ignore[arg-type]


def _grid(name: str, values: Sequence[int] | None, default: Sequence[int], minimum: int) -> tuple[int, ...]:
    values = default if values is None else values
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ConfigError(f"{name} must be a list of integers ≥ {minimum}, got {values!r}")
    out = tuple(check_int(f"{name} entry", v, minimum) for v in values)
    if len(out) == 0:
        raise ConfigError(f"{name} must not be empty")
    if len(set(out)) != len(out):
        raise ConfigError(f"{name} has repeated values: {out}")
    return tuple(sorted(out))


def _p_grid(name: str, values: Sequence[float] | None, default: Sequence[float]) -> tuple[float, ...]:
    values = default if values is None else values
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or len(values) == 0:  # type: ignore[arg-type]
        raise ConfigError(f"{name} must be a non-empty list of probabilities in [0, 1), got {values!r}")
    for v in values:
        try:
            check_probability(v)
        except ConfigError as exc:
            raise ConfigError(f"{name} entry: {exc}") from None
    return tuple(sorted(float(v) for v in values))


# Recording density (points per decade of time) of runs that only feed plateau
# lengths: the crossing is located by re-integration (`toy.refined_plateau_length`),
# so a sparse record loses no precision and keeps data/ small. Curves that are
# plotted use the default 200.
PLATEAU_PPD = 50


class FigureConfig:
    """Shared behaviour: every figure expands into named sweeps and runs them through its cache."""

    name: ClassVar[str]

    def sweeps(self) -> dict[str, list[Any]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def runs(self) -> list[Any]:
        """Every run the figure needs."""
        return [r for runs in self.sweeps().values() for r in runs]

    def run(self, progress: bool = True) -> dict[str, SweepResult]:
        """Results of every sweep, from the scale's cache where present."""
        cache = cache_for(self.scale)  # type: ignore[attr-defined]
        return {
            key: run_sweep(runs, cache, progress=progress, desc=f"{self.name} {key}")
            for key, runs in self.sweeps().items()
        }


# ---------------------------------------------------------------- Figure 1 --

# Panel (c) grids. The paper's T lines are read off its legend; its d grid is
# unknown (axis 1e1–1e2): cpu uses octaves 16–128, paper adds half-octaves.
FIGURE1_GRIDS: dict[str, dict[str, tuple[int, ...]]] = {
    "smoke": {"T": (64, 128, 256), "d": (4, 8, 16)},
    "cpu": {"T": (256, 512, 1024, 2048, 4096), "d": (16, 32, 64, 128)},
    "paper": {"T": (256, 512, 1024, 2048, 4096), "d": (16, 23, 32, 45, 64, 91, 128)},
}


@dataclass(frozen=True)
class Figure1(FigureConfig):
    """Figure 1: reduced dynamics of the toy model, no repetition.

    (a) loss vs time, T = ``curve_T``, one line per ``curve_d_values``;
    (b) w and α vs time, T = ``curve_T``, d = ``mechanism_d``;
    (c) plateau length vs d, one line per T, with the fitted law and Eq. 6.
    """

    name: ClassVar[str] = "Figure 1"

    scale: Scale = "cpu"
    T_values: tuple[int, ...] | None = None  # panel (c) lines; None: the scale's grid
    d_values: tuple[int, ...] | None = None  # panel (c) x-axis; None: the scale's grid
    curve_T: int = 512
    curve_d_values: tuple[int, ...] = (16, 32, 64)
    mechanism_d: int = 64
    curve_t_max: float = 10_000.0
    threshold: float = 0.1

    def __post_init__(self) -> None:
        check_scale(self.scale)
        default = FIGURE1_GRIDS[self.scale]
        object.__setattr__(self, "T_values", _grid("T_values", self.T_values, default["T"], 2))
        object.__setattr__(self, "d_values", _grid("d_values", self.d_values, default["d"], 1))
        object.__setattr__(self, "curve_d_values", _grid("curve_d_values", self.curve_d_values, (), 1))
        check_int("curve_T", self.curve_T, 2)
        check_int("mechanism_d", self.mechanism_d, 1)
        check_threshold(self.threshold)
        if not self.curve_t_max > 0:
            raise ConfigError(f"curve_t_max must be > 0, got {self.curve_t_max}")
        self.runs()  # build every run config now, so any bad value fails here, before compute

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        ds = sorted(set(self.curve_d_values) | {self.mechanism_d})
        curves = [ToyFlowConfig(T=self.curve_T, d=d, t_max=self.curve_t_max, threshold=self.threshold) for d in ds]
        plateaus = [
            ToyFlowConfig(T=T, d=d, threshold=self.threshold, stop_below=self.threshold / 2, points_per_decade=PLATEAU_PPD)
            for T in self.T_values  # type: ignore[union-attr]
            for d in self.d_values  # type: ignore[union-attr]
        ]
        return {"curves": curves, "plateaus": plateaus}


# ---------------------------------------------------------------- Figure 2 --

FIGURE2_GRIDS: dict[str, dict[str, Any]] = {
    "smoke": {"T": 256, "d": (4, 8, 16), "B": (1, 2, 4), "p": (0.0, 0.2, 0.4), "inset_T": 128, "inset_d": 16},
    "cpu": {"T": 4096, "d": (16, 32, 64, 128), "B": (1, 2, 4, 8, 16), "p": (0.0, 0.1, 0.2, 0.4),
            "inset_T": 512, "inset_d": 64},
    "paper": {"T": 4096, "d": (16, 23, 32, 45, 64, 91, 128), "B": (1, 2, 4, 8, 16), "p": (0.0, 0.1, 0.2, 0.4),
              "inset_T": 512, "inset_d": 64},
}


@dataclass(frozen=True)
class Figure2(FigureConfig):
    """Figure 2: in-context (B) and cross-sample (p) repetition in the toy model, T fixed.

    In-context: the test loss has the same B (the toy model cannot generalise to
    B = 1). Cross-sample: the test loss has no repetition (p = 0). The insets
    (loss vs time for B ∈ {1, 2} and p ∈ {0, 0.2}) use T = ``inset_T``,
    d = ``inset_d``: the paper does not state them, and its 0–10k time axis
    rules out T = 4096.
    """

    name: ClassVar[str] = "Figure 2"

    scale: Scale = "cpu"
    T: int | None = None
    d_values: tuple[int, ...] | None = None
    B_values: tuple[int, ...] | None = None
    p_values: tuple[float, ...] | None = None
    inset_T: int | None = None
    inset_d: int | None = None
    inset_t_max: float = 10_000.0
    threshold: float = 0.1

    def __post_init__(self) -> None:
        check_scale(self.scale)
        g = FIGURE2_GRIDS[self.scale]
        object.__setattr__(self, "T", check_int("T", g["T"] if self.T is None else self.T, 2))
        object.__setattr__(self, "d_values", _grid("d_values", self.d_values, g["d"], 1))
        object.__setattr__(self, "B_values", _grid("B_values", self.B_values, g["B"], 1))
        object.__setattr__(self, "p_values", _p_grid("p_values", self.p_values, g["p"]))
        object.__setattr__(self, "inset_T", check_int("inset_T", g["inset_T"] if self.inset_T is None else self.inset_T, 3))
        object.__setattr__(self, "inset_d", check_int("inset_d", g["inset_d"] if self.inset_d is None else self.inset_d, 1))
        check_threshold(self.threshold)
        self.runs()

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        stop = dict(threshold=self.threshold, stop_below=self.threshold / 2, points_per_decade=PLATEAU_PPD)
        inset = dict(T=self.inset_T, d=self.inset_d, t_max=self.inset_t_max, threshold=self.threshold)
        return {
            "in_context": [ToyFlowConfig(T=self.T, d=d, B=B, **stop) for B in self.B_values for d in self.d_values],  # type: ignore[arg-type, union-attr]
            "cross_sample": [ToyFlowConfig(T=self.T, d=d, p=p, **stop) for p in self.p_values for d in self.d_values],  # type: ignore[arg-type, union-attr]
            "in_context_inset": [ToyFlowConfig(B=B, **inset) for B in (1, 2)],  # type: ignore[arg-type]
            "cross_sample_inset": [ToyFlowConfig(p=p, **inset) for p in (0.0, 0.2)],  # type: ignore[arg-type]
        }


@dataclass(frozen=True)
class Figure2Constant(FigureConfig):
    """The Figure 2 (right) constant: which change to the set-up would give the paper's 2.15?

    Each sweep is one candidate explanation, fitted with the same law
    C·(√d·T/f(p, d))^γ. Reduced-flow candidates use the figure's whole grid;
    full-model candidates (expensive at T = 4096) use a sub-grid.
    """

    name: ClassVar[str] = "Figure 2 constant"

    scale: Scale = "cpu"
    thresholds: tuple[float, ...] = (0.05, 0.2)
    x_tilde_norms: tuple[float, ...] = (0.5, 2.0)
    long_T_factor: int = 2
    full_p_values: tuple[float, ...] = (0.0, 0.2, 0.4)
    full_seeds: tuple[int, ...] = (0, 1, 2)

    def __post_init__(self) -> None:
        check_scale(self.scale)
        for t in self.thresholds:
            check_threshold(t)
        check_int("long_T_factor", self.long_T_factor, 2)
        _p_grid("full_p_values", self.full_p_values, ())
        self.runs()

    @property
    def figure(self) -> Figure2:
        return Figure2(scale=self.scale)

    def sweeps(self) -> dict[str, list[Any]]:
        fig = self.figure
        T, ds, ps = fig.T, fig.d_values, fig.p_values
        full_ds = (ds[0], ds[len(ds) // 2])  # type: ignore[index]

        def flows(**kw: Any) -> list[ToyFlowConfig]:
            base = dict(T=T, threshold=fig.threshold, stop_below=fig.threshold / 2, points_per_decade=PLATEAU_PPD) | kw
            return [ToyFlowConfig(d=d, p=p, **base) for p in ps for d in ds]  # type: ignore[union-attr]

        t_full = 2.0 * float(escape_time(T, max(full_ds)))  # T_ε overestimates ~3×: ample
        out: dict[str, list[Any]] = {}
        for thr in self.thresholds:
            out[f"threshold {thr:g}"] = flows(threshold=thr, stop_below=min(thr, fig.threshold) / 2)
        for c in self.x_tilde_norms:
            out[f"|x̃| = {c:g}"] = flows(x_tilde_norm=c)
        out[f"T = {self.long_T_factor * T}"] = flows(T=self.long_T_factor * T)  # type: ignore[operator]
        out["full model (Eq. 2, GD)"] = [
            ToyFullGDConfig(T=T, d=d, p=p, lr=1.0, t_max=t_full) for p in self.full_p_values for d in full_ds  # type: ignore[arg-type]
        ]
        out["full model, W* ~ N(0, 1/d)"] = [
            ToyFullGDConfig(T=T, d=d, p=p, lr=1.0, t_max=t_full, target="gaussian", seed=s)  # type: ignore[arg-type]
            for s in self.full_seeds
            for p in self.full_p_values
            for d in full_ds
        ]
        return out


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
    train = baseline.summary.copy()
    for i, key in enumerate(train["run"]):
        curve = baseline.curves[baseline.curves["run"] == key]
        train.loc[i, "plateau_length"] = plateau_length(curve["t"], curve["train_loss"].fillna(curve["loss"]), 0.1)
    rows.append(row("training loss instead of test loss", train[np.isfinite(train["plateau_length"])], "same runs"))
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


# ------------------------------------------------------- Figures 6, 7, 8 --


@dataclass(frozen=True)
class Figure6(FigureConfig):
    """Figure 6: the loss landscape L(w, Δa) (Eq. 12) at T = 256, d = 64, with the gradient-flow path."""

    name: ClassVar[str] = "Figure 6"

    scale: Scale = "cpu"
    T: int = 256
    d: int = 64
    t_max: float = 20_000.0
    w_range: tuple[float, float] = (-1.0, 11.0)
    delta_a_range: tuple[float, float] = (-2.0, 14.0)
    resolution: int = 300

    def __post_init__(self) -> None:
        check_scale(self.scale)
        self.runs()

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        # Dense recording: the path crosses most of the plane during the short transition.
        return {"path": [ToyFlowConfig(T=self.T, d=self.d, t_max=self.t_max, points_per_decade=2000)]}

    def landscape(self) -> pd.DataFrame:
        """Tidy (w, delta_a, loss) on a regular grid: a closed form, nothing to cache."""
        w = np.linspace(*self.w_range, self.resolution)
        da = np.linspace(*self.delta_a_range, self.resolution)
        W, DA = np.meshgrid(w, da)
        return pd.DataFrame({"w": W.ravel(), "delta_a": DA.ravel(), "loss": reduced_loss(W, DA, self.T, self.d).ravel()})


FIGURE7_GRIDS = {"smoke": {"d": 64, "T": (64, 256)}, "cpu": {"d": 512, "T": (256, 1024, 4096)},
                 "paper": {"d": 512, "T": (256, 512, 1024, 2048, 4096)}}


@dataclass(frozen=True)
class Figure7(FigureConfig):
    """Figure 7: early dynamics against the linearisation, d = 512, several T."""

    name: ClassVar[str] = "Figure 7"

    scale: Scale = "cpu"
    d: int | None = None
    T_values: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        check_scale(self.scale)
        g = FIGURE7_GRIDS[self.scale]
        object.__setattr__(self, "d", check_int("d", g["d"] if self.d is None else self.d, 1))
        object.__setattr__(self, "T_values", _grid("T_values", self.T_values, g["T"], 2))
        self.runs()

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        # Past the drop: 0.6 T_ε covers the plateau (T_ε overestimates it ~3–4×) and the transition.
        return {
            "curves": [
                ToyFlowConfig(T=T, d=self.d, t_max=float(f"{0.6 * float(escape_time(T, self.d)):.4g}"))  # type: ignore[arg-type]
                for T in self.T_values  # type: ignore[union-attr]
            ]
        }


@dataclass(frozen=True)
class Figure8(FigureConfig):
    """Figure 8: late phase. w∞(α) for several T (d = 64); w vs its equilibrium and the Hessian along the flow (T = 512)."""

    name: ClassVar[str] = "Figure 8"

    scale: Scale = "cpu"
    d: int = 64
    T_values: tuple[int, ...] = (64, 256, 1024, 4096)
    flow_T: int = 512
    t_max: float = 10_000.0

    def __post_init__(self) -> None:
        check_scale(self.scale)
        _grid("T_values", self.T_values, (), 2)
        self.runs()

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        return {"flow": [ToyFlowConfig(T=self.flow_T, d=self.d, t_max=self.t_max)]}


# ------------------------------------------------------- Figures 9, 10 --

FIGURE9_GRIDS = {
    "smoke": {"T": 32, "d": 32, "t_max": 600.0, "seeds": (0, 1, 2), "record_every": 5},
    "cpu": {"T": 128, "d": 128, "t_max": 3500.0, "seeds": (0, 1, 2, 3, 4), "record_every": 10},
    "paper": {"T": 256, "d": 256, "t_max": 8000.0, "seeds": (0, 1, 2, 3, 4), "record_every": 20},
}


@dataclass(frozen=True)
class Figure9(FigureConfig):
    """Figure 9: the reduced flow against SGD on sampled data (batch 32, lr 1).

    The paper's set-up draws W and W* with N(0, 1/d) entries; we also run SGD
    from W = 0 with unit-norm columns of W* (the theory's assumptions) to
    separate the effect of SGD noise from that of the initialisation.
    """

    name: ClassVar[str] = "Figure 9"

    scale: Scale = "cpu"
    batch_size: int = 32
    lr: float = 1.0

    def __post_init__(self) -> None:
        check_scale(self.scale)
        self.runs()

    @property
    def grid(self) -> dict[str, Any]:
        return FIGURE9_GRIDS[self.scale]

    def sweeps(self) -> dict[str, list[Any]]:
        g = self.grid
        sgd = dict(T=g["T"], d=g["d"], batch_size=self.batch_size, lr=self.lr, t_max=g["t_max"], record_every=g["record_every"])
        return {
            "flow": [ToyFlowConfig(T=g["T"], d=g["d"], t_max=g["t_max"])],
            "sgd (paper init)": [ToySGDConfig(seed=s, target="gaussian", init="gaussian", **sgd) for s in g["seeds"]],
            "sgd (theory init)": [ToySGDConfig(seed=s, target="unit_columns", init="zero", **sgd) for s in g["seeds"]],
        }


@dataclass(frozen=True)
class Figure10(FigureConfig):
    """Figure 10: the 3-D cross-sample reduced model at T = 512, d = 64, for several p."""

    name: ClassVar[str] = "Figure 10"

    scale: Scale = "cpu"
    T: int = 512
    d: int = 64
    p_values: tuple[float, ...] = (0.0, 0.1, 0.2, 0.4)
    t_max: float = 10_000.0

    def __post_init__(self) -> None:
        check_scale(self.scale)
        object.__setattr__(self, "p_values", _p_grid("p_values", self.p_values, ()))
        self.runs()

    def sweeps(self) -> dict[str, list[ToyFlowConfig]]:
        # p = 0 runs the 2-D model, whose w covers all d columns (optimum √d);
        # compare it with the 3-D runs through alignments divided by their optima.
        return {"curves": [ToyFlowConfig(T=self.T, d=self.d, p=p, t_max=self.t_max) for p in self.p_values]}  # type: ignore[union-attr]


# Reported values, for labelled comparison only (never used in computation).
PAPER = {
    "figure1": {"d": 0.49, "T": 0.99, "R2": 0.999},  # §2.2 text; Fig. 1c caption R² = 0.999
    "figure2_in_context": {"C": 1.51, "d": 0.49, "T_over_B": 0.99, "R2": 0.999},  # 1.51·T^0.99·B^−0.99·d^0.49
    "figure2_cross_sample": {"C": 2.15, "x": 1.02, "R2": 0.992},  # 2.15·(√d·T/f(p,d))^1.02
}


def figures() -> dict[str, type[FigureConfig]]:
    """Figure name → figure config class (the command line and tests iterate over it)."""
    return {
        "figure1": Figure1,
        "figure2": Figure2,
        "figure2_constant": Figure2Constant,
        "figure6": Figure6,
        "figure7": Figure7,
        "figure8": Figure8,
        "figure9": Figure9,
        "figure10": Figure10,
    }
