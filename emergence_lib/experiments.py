"""One small config per paper figure: a scale in, the list of runs out.

The figure-to-code map is one lookup: Figure 1 is `Figure1`, and so on. Each
figure config is validated on creation (before any compute), knows its grids
at the three scales, and expands into run configs that `sweep.run_sweep` runs.

Scales:
* ``smoke``: seconds, small grids, nothing cached (tests);
* ``cpu``: the default; a 2-core laptop in minutes; cached in ``data/``;
* ``paper``: the paper's grids (or denser where the paper's are unknown); cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .cache import ResultCache
from .configs import ConfigError, Scale, ToyFlowConfig, check_int, check_scale, check_threshold
from .sweep import SweepResult, run_sweep


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


# ---------------------------------------------------------------- Figure 1 --

# Panel (c) grids. The paper's T lines are read off its legend; its d grid is
# unknown (axis 1e1–1e2): cpu uses octaves 16–128, paper adds half-octaves.
FIGURE1_GRIDS: dict[str, dict[str, tuple[int, ...]]] = {
    "smoke": {"T": (64, 128, 256), "d": (4, 8, 16)},
    "cpu": {"T": (256, 512, 1024, 2048, 4096), "d": (16, 32, 64, 128)},
    "paper": {"T": (256, 512, 1024, 2048, 4096), "d": (16, 23, 32, 45, 64, 91, 128)},
}


@dataclass(frozen=True)
class Figure1:
    """Figure 1: reduced dynamics of the toy model, no repetition.

    (a) loss vs time, T = ``curve_T``, one line per ``curve_d_values``;
    (b) w and α vs time, T = ``curve_T``, d = ``mechanism_d``;
    (c) plateau length vs d, one line per T, with the fitted law and Eq. 6.
    """

    scale: Scale = "cpu"
    T_values: tuple[int, ...] | None = None  # panel (c) lines; None: the scale's grid
    d_values: tuple[int, ...] | None = None  # panel (c) x-axis; None: the scale's grid
    curve_T: int = 512
    curve_d_values: tuple[int, ...] = (16, 32, 64)
    mechanism_d: int = 64
    curve_t_max: float = 10_000.0
    threshold: float = 0.1
    grids: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)

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
        # Build every run config now, so any bad value fails here, before compute.
        self.curve_runs()
        self.plateau_runs()

    def curve_runs(self) -> list[ToyFlowConfig]:
        """Panels (a) and (b): full curves to ``curve_t_max``."""
        ds = sorted(set(self.curve_d_values) | {self.mechanism_d})
        return [ToyFlowConfig(T=self.curve_T, d=d, t_max=self.curve_t_max, threshold=self.threshold) for d in ds]

    def plateau_runs(self) -> list[ToyFlowConfig]:
        """Panel (c): run each (T, d) until the loss is well below the threshold."""
        return [
            ToyFlowConfig(T=T, d=d, threshold=self.threshold, stop_below=self.threshold / 2)
            for T in self.T_values  # type: ignore[union-attr]
            for d in self.d_values  # type: ignore[union-attr]
        ]

    def runs(self) -> list[ToyFlowConfig]:
        """Every run the figure needs (each figure config has this method)."""
        return self.curve_runs() + self.plateau_runs()

    def run(self, progress: bool = True) -> dict[str, SweepResult]:
        """Results for every panel, from the scale's cache where present."""
        cache = cache_for(self.scale)
        return {
            "curves": run_sweep(self.curve_runs(), cache, progress=progress, desc="Figure 1 curves"),
            "plateaus": run_sweep(self.plateau_runs(), cache, progress=progress, desc="Figure 1 plateaus"),
        }


# Reported values, for labelled comparison only (never used in computation).
PAPER = {
    "figure1": {"d": 0.49, "T": 0.99, "R2": 0.999},  # §2.2 text; Fig. 1c caption R² = 0.999
}


def figures() -> dict[str, Any]:
    """Figure name → figure config class (the command line and tests iterate over it)."""
    return {"figure1": Figure1}
