"""Run configs: one frozen dataclass per kind of run, validated on creation.

A run config holds *everything* that determines a run's result, so that its
hash (see `cache.run_key`) is a safe cache key. Figure-level configs, which
expand a scale into a list of run configs, live in `experiments`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import ClassVar, Literal

from .toy import INITIAL_LOSS, escape_time

Scale = Literal["smoke", "cpu", "paper"]
SCALES: tuple[str, ...] = ("smoke", "cpu", "paper")


class ConfigError(ValueError):
    """A parameter is out of its allowed range. The message names it and what is allowed."""


def check_scale(scale: str) -> str:
    if scale not in SCALES:
        raise ConfigError(f"scale must be one of {SCALES}, got {scale!r}")
    return scale


def check_int(name: str, value: object, minimum: int) -> int:
    """``value`` as an int ≥ ``minimum`` (numpy integers accepted; floats and bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ConfigError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def check_burstiness(B: int, T: int) -> None:
    if not 1 <= B < T:
        raise ConfigError(
            f"B must satisfy 1 ≤ B < T (got B={B}, T={T}): the relevant token is repeated B times "
            "and at least one position must hold an irrelevant token"
        )


def check_threshold(threshold: float, initial_loss: float = INITIAL_LOSS, name: str = "threshold") -> None:
    if not 0 < threshold < initial_loss:
        raise ConfigError(
            f"{name} must lie in (0, {initial_loss}) — between zero and the initial loss — got {threshold}"
        )


@dataclass(frozen=True)
class ToyFlowConfig:
    """One run of the reduced gradient flow on (w, Δa) (paper Eqs. 12–14).

    Time is physical time (steps × lr). ``t_max=None`` means "long enough":
    20× the linearised escape time T_ε(0.8), which itself overestimates the
    plateau about 3×. With ``stop_below`` set, the run stops at the first
    recording point whose loss is below it (saves time in plateau sweeps).
    """

    kind: ClassVar[str] = "toy_reduced_flow"

    T: int
    d: int
    B: int = 1
    logits: Literal["gap", "per_position"] = "gap"
    threshold: float = 0.1
    t_max: float | None = None
    stop_below: float | None = None
    points_per_decade: int = 200

    def __post_init__(self) -> None:
        object.__setattr__(self, "T", check_int("T", self.T, 2))
        object.__setattr__(self, "d", check_int("d", self.d, 1))
        object.__setattr__(self, "B", check_int("B", self.B, 1))
        check_burstiness(self.B, self.T)
        if self.logits not in ("gap", "per_position"):
            raise ConfigError(f"logits must be 'gap' or 'per_position', got {self.logits!r}")
        check_threshold(self.threshold)
        if self.stop_below is not None:
            check_threshold(self.stop_below, name="stop_below")
        if self.t_max is None:
            auto = 20.0 * float(escape_time(self.T, self.d, self.B))
            object.__setattr__(self, "t_max", float(f"{auto:.6g}"))
        elif not self.t_max > 0:
            raise ConfigError(f"t_max must be > 0 (physical time), got {self.t_max}")
        object.__setattr__(self, "t_max", float(self.t_max))
        check_int("points_per_decade", self.points_per_decade, 10)
