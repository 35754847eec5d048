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

import os
from dataclasses import dataclass
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
    TransformerRegressionConfig,
    check_int,
    check_probability,
    check_scale,
    check_threshold,
)
from .metrics import PowerLawFit, add_cross_sample_predictor, fit_power_law, mean_over_seeds, plateau_length
from .sweep import SweepResult, run_sweep
from .toy import escape_time, reduced_loss


SMOKE_CACHE_ENV = "EMERGENCE_SMOKE_CACHE"


def cache_for(scale: str, on_corrupt: str = "raise") -> ResultCache | None:
    """The cache a scale uses: ``data/`` for cpu and paper; none for smoke (always recomputed), unless
    ``$EMERGENCE_SMOKE_CACHE`` names a scratch folder, where the test command lets the smoke chapters share runs
    (never ``data/``)."""
    check_scale(scale)
    if scale == "smoke":
        scratch = os.environ.get(SMOKE_CACHE_ENV)
        return ResultCache(scratch, on_corrupt=on_corrupt) if scratch else None  # type: ignore[arg-type]
    return ResultCache(on_corrupt=on_corrupt)  # type: ignore[arg-type]


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

    def run(self, progress: bool = True, device: str = "cpu") -> dict[str, SweepResult]:
        """Results of every sweep, from the scale's cache where present; missing runs train on ``device``."""
        cache = cache_for(self.scale)  # type: ignore[attr-defined]
        # Smoke runs take milliseconds: starting a process pool (and torch in each worker) would cost more.
        executor = "serial" if self.scale == "smoke" else "local"  # type: ignore[attr-defined]
        return {
            key: run_sweep(runs, cache, progress=progress, desc=f"{self.name} {key}", device=device, executor=executor)
            for key, runs in self.sweeps().items()
        }


@dataclass(frozen=True)
class ScaledFigure(FigureConfig):
    """A figure whose grids are one row per scale of a table (``GRIDS[scale]``, read as ``self.grid``).

    Every run config is built, and so validated, on creation: bad input fails before any compute.
    """

    GRIDS: ClassVar[dict[str, dict[str, Any]]]

    scale: Scale = "cpu"

    def __post_init__(self) -> None:
        check_scale(self.scale)
        self.runs()

    @property
    def grid(self) -> dict[str, Any]:
        return self.GRIDS[self.scale]


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
class Figure9(ScaledFigure):
    """Figure 9: the reduced flow against SGD on sampled data (batch 32, lr 1).

    The paper's set-up draws W and W* with N(0, 1/d) entries; we also run SGD
    from W = 0 with unit-norm columns of W* (the theory's assumptions) to
    separate the effect of SGD noise from that of the initialisation.
    """

    name: ClassVar[str] = "Figure 9"
    GRIDS: ClassVar[dict[str, dict[str, Any]]] = FIGURE9_GRIDS

    batch_size: int = 32
    lr: float = 1.0

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


# ------------------------------------------------- Figures 3, 11, 12 --

# Scales of the Transformer experiments. "paper" is Table 1; "cpu" is ours
# (see chapters/03_transformer.ipynb for why): a 4× narrower model (width 64,
# QK 16), a 10× larger learning rate, 2 seeds, and T, d grids 4–8× smaller.
TRANSFORMER_SCALES: dict[str, dict[str, Any]] = {
    "smoke": {"model": {"d_model": 32, "d_qk": 8}, "lr": 3e-3, "p_lrs": (3e-3,), "seeds": (0,), "max_steps": 3000,
              "T": (8, 16), "d": (2, 4), "T_B": 16, "B": (1, 2), "T_p": 16, "p": (0.0, 0.4), "larger": (),
              "p_larger": (), "fig11": {"T": 16, "d": (4,), "seeds": (0, 1)}, "readout_default": ((16, 4),)},
    "cpu": {"model": {"d_model": 64, "d_qk": 16}, "lr": 1e-3, "p_lrs": (1e-3, 3e-3), "seeds": (0, 1), "max_steps": 20_000,
            "T": (16, 32, 64, 128), "d": (4, 8, 16, 32), "T_B": 64, "B": (1, 2, 4, 8), "T_p": 32, "p": (0.0, 0.1, 0.2, 0.4),
            "larger": ((32, 64), (64, 64)), "p_larger": ((32, 64), (32, 128), (64, 32)),
            "fig11": {"T": 64, "d": (8, 16), "seeds": (0, 1, 2, 3, 4)},
            "readout_default": ((32, 8), (64, 16), (32, 32))},
    "paper": {"model": {"d_model": 256, "d_qk": 64}, "lr": 1e-4, "p_lrs": (1e-4, 3e-4), "seeds": (0, 1, 2, 3, 4),
              "max_steps": 50_000, "T": (32, 64, 128, 256), "d": (16, 32, 64, 128), "T_B": 256, "B": (1, 2, 4, 8, 16),
              "T_p": 256, "p": (0.0, 0.1, 0.2, 0.4), "larger": (), "p_larger": (), "fig11": {"T": 128, "d": (16, 32, 64), "seeds": (0, 1, 2, 3, 4)},
              "readout_default": ((64, 32), (128, 64))},
}


@dataclass(frozen=True)
class Figure3(ScaledFigure):
    """Figure 3: a 2-layer, 4-head Transformer (no LayerNorm) on single-location regression.

    Left: plateau vs d per T (B = 1). Middle: plateau vs d per B at T = T_B,
    measured on data with the same B. Right: plateau vs d per p at T = T_p,
    threshold 0.4, on data without repetition, for two learning rates (the
    chapter keeps the better one per (p, d), as the paper did). "larger":
    a few bigger (T, d) points to see how the fitted exponents move with size;
    "p_larger": p = 0 vs the largest p at bigger (T, d), to see whether
    cross-sample repetition starts to help.
    """

    name: ClassVar[str] = "Figure 3"
    GRIDS: ClassVar[dict[str, dict[str, Any]]] = TRANSFORMER_SCALES

    def _runs(self, T: int, d: int, **kw: Any) -> list[TransformerRegressionConfig]:
        g = self.grid
        base = dict(T=T, d=d, lr=g["lr"], max_steps=g["max_steps"], **g["model"]) | kw
        return [TransformerRegressionConfig(seed=s, **base) for s in g["seeds"]]

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        p_runs = dict(threshold=0.4, plateau_on="no_repetition", stop_factor=2.5)
        return {
            "T": [r for T in g["T"] for d in g["d"] for r in self._runs(T, d)],
            "B": [r for B in g["B"] if B > 1 for d in g["d"] for r in self._runs(g["T_B"], d, B=B)],
            "p": [r for lr in g["p_lrs"] for p in g["p"] for d in g["d"] for r in self._runs(g["T_p"], d, p=p, lr=lr, **p_runs)],
            "larger": [r for T, d in g["larger"] for r in self._runs(T, d)],
            # Does cross-sample repetition start to help at larger d or T? (p = 0 vs the largest p, the larger lr)
            "p_larger": [
                r for T, d in g["p_larger"] for p in (0.0, max(g["p"])) for r in self._runs(T, d, p=p, lr=max(g["p_lrs"]), **p_runs)
            ],
            # The same runs as "T" at a few points, but with nn.Linear's default readout: what starting at loss ½ changes.
            "readout_default": [r for T, d in g["readout_default"] for r in self._runs(T, d, readout_init="default")],
        }


def figure3_tables(results: dict[str, SweepResult], grid: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Seed-averaged tables of Figure 3: "T" (left), "B" (middle), "joint" (both, for the fit), "larger",
    and the right panel at the better lr per (p, d) (as the paper chose), read on data without repetition
    ("p") and on the training distribution ("p_train"); "p_all"/"p_train_all" keep every lr."""
    T_tab = mean_over_seeds(results["T"].summary, ["T", "d", "B"])
    B_rows = results["B"].summary
    B_tab = mean_over_seeds(pd.concat([results["T"].summary[results["T"].summary["T"] == grid["T_B"]], B_rows]), ["T", "d", "B"])
    joint = pd.concat([T_tab, B_tab[B_tab["B"] > 1]], ignore_index=True)
    larger = mean_over_seeds(results["larger"].summary, ["T", "d", "B"]) if len(results["larger"].summary) else T_tab.iloc[:0]
    out = {"T": T_tab, "B": B_tab, "joint": joint, "larger": larger}
    # Right panel, read two ways: on data without repetition (the runs' own measure) and on the training distribution.
    p_train = plateaus_from_curves(results["p"], "loss_train_distribution", 0.4, time="step")
    for name, summary in [("p", results["p"].summary), ("p_train", p_train)]:
        every_lr = mean_over_seeds(summary, ["p", "d", "lr"])
        best = every_lr.sort_values("plateau_length").groupby(["p", "d"], as_index=False).first().sort_values(["p", "d"])
        out[f"{name}_all"], out[name] = every_lr, best.reset_index(drop=True)
    return out


def t_over_b_table(T_table: pd.DataFrame, B_table: pd.DataFrame) -> pd.DataFrame:
    """Does the plateau depend on T/B alone (the toy model's law)? Each B > 1 point beside the B = 1 run at T/B.

    Rows: the (d, B) points of the middle panel whose T/B is one of the left panel's T; columns the two
    seed-mean plateaus and their ratio (1 if only T/B matters).
    """
    left = T_table[T_table["B"] == 1].set_index(["T", "d"])["plateau_length"]
    rows = []
    for r in B_table[B_table["B"] > 1].itertuples():
        T_eff = int(r.T) // int(r.B)
        if int(r.T) % int(r.B) == 0 and (T_eff, r.d) in left.index:
            same = float(left[(T_eff, r.d)])
            rows.append({"d": r.d, "B": r.B, "T": r.T, "T/B": T_eff, "plateau (T, B)": r.plateau_length,
                         "plateau (T/B, B = 1)": same, "ratio": r.plateau_length / same})
    return pd.DataFrame(rows)


def readout_table(results: dict[str, SweepResult]) -> pd.DataFrame:
    """Figure 3's zero-initialised readout against nn.Linear's default, at the "readout_default" points (seed means)."""
    default = results["readout_default"].summary
    zero = results["T"].summary.merge(default[["T", "d", "seed"]], on=["T", "d", "seed"])
    both = pd.concat([zero, default])
    table = both.groupby(["T", "d", "readout_init"]).agg(plateau=("plateau_length", "mean"), initial_loss=("initial_loss", "mean"))
    wide = table.unstack("readout_init")
    wide.columns = [f"{what} ({init})" for what, init in wide.columns]
    wide["plateau default / zero"] = wide["plateau (default)"] / wide["plateau (zero)"]
    return wide.reset_index()


def exponent_drift(joint: pd.DataFrame, larger: pd.DataFrame) -> pd.DataFrame:
    """How the fitted d and T exponents move with the size of the grid (B = 1 runs).

    Fits the lower and the upper halves of the d and T ranges separately, the
    whole grid, and the whole grid with the larger points added.
    """
    base = joint[joint["B"] == 1]
    ds, Ts = sorted(int(v) for v in base["d"].unique()), sorted(int(v) for v in base["T"].unique())
    lo_d, hi_d = ds[: (len(ds) + 1) // 2], ds[len(ds) // 2 :]
    lo_T, hi_T = Ts[: (len(Ts) + 1) // 2], Ts[len(Ts) // 2 :]
    subsets = {
        f"small d {lo_d}, small T {lo_T}": base[base["d"].isin(lo_d) & base["T"].isin(lo_T)],
        f"large d {hi_d}, large T {hi_T}": base[base["d"].isin(hi_d) & base["T"].isin(hi_T)],
        "whole grid": base,
    }
    if len(larger):
        subsets["whole grid + larger points"] = pd.concat([base, larger], ignore_index=True)
        hi = pd.concat([base[base["d"].isin(hi_d) & base["T"].isin(hi_T)], larger], ignore_index=True)
        subsets["large half + larger points"] = hi
    rows = []
    for name, sub in subsets.items():
        sub = sub[np.isfinite(sub["plateau_length"])]
        if len(sub) <= 3:
            continue
        fit = fit_power_law(sub, ["d", "T"])
        rows.append({"grid": name, "runs": fit.n, "α (d)": fit.exponents["d"], "± α": fit.stderr["d"],
                     "β (T)": fit.exponents["T"], "± β": fit.stderr["T"], "R²": fit.r2})
    return pd.DataFrame(rows).set_index("grid")


@dataclass(frozen=True)
class Figure11(ScaledFigure):
    """Figure 11: learning curves of several seeds (each its own relevant positions and W*)."""

    name: ClassVar[str] = "Figure 11"
    GRIDS: ClassVar[dict[str, dict[str, Any]]] = TRANSFORMER_SCALES

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        f = g["fig11"]
        return {
            "curves": [
                TransformerRegressionConfig(T=f["T"], d=d, lr=g["lr"], max_steps=g["max_steps"], seed=s, stop_factor=3.0, **g["model"])
                for d in f["d"]
                for s in f["seeds"]
            ]
        }


# Reported values, for labelled comparison only (never used in computation).
PAPER = {
    "figure1": {"d": 0.49, "T": 0.99, "R2": 0.999},  # §2.2 text; Fig. 1c caption R² = 0.999
    "figure2_in_context": {"C": 1.51, "d": 0.49, "T_over_B": 0.99, "R2": 0.999},  # 1.51·T^0.99·B^−0.99·d^0.49
    "figure2_cross_sample": {"C": 2.15, "x": 1.02, "R2": 0.992},  # 2.15·(√d·T/f(p,d))^1.02
    "figure3": {"C": 0.76, "d": 1.29, "T": 0.80, "B": -0.80, "R2": 0.995},  # 0.76·d^1.29·T^0.80·B^−0.80
}


def figures() -> dict[str, type[FigureConfig]]:
    """Figure name → figure config class (the command line and tests iterate over it)."""
    from .ablations import Figure13, Figure14, Figure15  # they build on this module
    from .beyond import Steering
    from .prediction import Prediction
    from .recall import Figure4, Figure5, Figure16, Figure17

    return {
        "figure1": Figure1,
        "figure2": Figure2,
        "figure2_constant": Figure2Constant,
        "figure6": Figure6,
        "figure7": Figure7,
        "figure8": Figure8,
        "figure9": Figure9,
        "figure10": Figure10,
        "figure3": Figure3,
        "figure4": Figure4,
        "figure5": Figure5,
        "figure11": Figure11,
        "figure13": Figure13,
        "figure14": Figure14,
        "figure15": Figure15,
        "figure16": Figure16,
        "figure17": Figure17,
        "steering": Steering,
        "prediction": Prediction,
    }
