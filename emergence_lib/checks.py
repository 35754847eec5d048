"""Checks shared by every config: one function per kind of field, each raising `ConfigError` with one line that
names the field and what is allowed (a papermill parameter, a command-line option or a stored record all pass
through them before any compute)."""

from __future__ import annotations

import numbers
from typing import Literal

from .toy import INITIAL_LOSS

Scale = Literal["smoke", "cpu", "paper_cpu", "paper"]
# paper_cpu: Table 1's settings exactly, on the cheap end of the paper's own grids (the figures that have it).
SCALES: tuple[Scale, ...] = ("smoke", "cpu", "paper_cpu", "paper")



class ConfigError(ValueError):
    """A parameter is out of its allowed range. The message names it and what is allowed."""


def check_scale(scale: str) -> str:
    if scale not in SCALES:
        raise ConfigError(f"scale must be one of {SCALES}, got {scale!r}")
    return scale


def check_int(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int ≥ ``minimum`` (and ≤ ``maximum``; numpy integers accepted; floats and bools refused)."""
    whole = int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None
    if whole is None or whole < minimum or (maximum is not None and whole > maximum):
        allowed = f"≥ {minimum}" if maximum is None else f"from {minimum} to {maximum:,}"
        raise ConfigError(f"{name} must be an integer {allowed}, got {value!r}")
    return whole


def check_burstiness(B: int, T: int) -> None:
    if not 1 <= B < T:
        raise ConfigError(
            f"B must satisfy 1 ≤ B < T (got B={B}, T={T}): the relevant token is repeated B times "
            "and at least one position must hold an irrelevant token"
        )


def check_probability(p: float) -> None:
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p < 1:
        raise ConfigError(
            f"p must lie in [0, 1), got {p!r}: it is the probability that the relevant token is the "
            "repeated token x̃ (p = 1 would leave nothing to learn but x̃)"
        )


def check_positive(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ConfigError(f"{name} must be a number > 0, got {value!r}")
    return float(value)


def check_solvable(random_position: bool, relevance_feature: bool) -> None:
    if random_position and not relevance_feature:
        raise ConfigError(
            "relevance_feature=False with random_position=True is unsolvable: nothing tells the model which "
            "token is relevant (neither its position nor a feature); the paper does not run it (Fig. 14)"
        )


def check_heads(d_model: int, n_heads: int) -> None:
    if d_model % n_heads:
        raise ConfigError(f"d_model (width) must be divisible by n_heads: got d_model={d_model}, n_heads={n_heads}")


def check_threshold(threshold: float, initial_loss: float = INITIAL_LOSS, name: str = "threshold") -> None:
    if not 0 < threshold < initial_loss:
        raise ConfigError(
            f"{name} must lie in (0, {initial_loss}) — between zero and the initial loss — got {threshold}"
        )


def check_choice(name: str, value: object, allowed: tuple) -> None:
    if value not in allowed:
        words = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ConfigError(f"{name} must be {words}, got {value!r}")
