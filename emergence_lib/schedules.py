"""Data-diversity schedules: how much of a run's repetition is switched on at each step.

The paper ends by proposing what it never tests: repetition speeds emergence up
but overfits, so repeat while the model is stuck and switch to diverse data once
the pattern has formed. A schedule says, at every step, which fraction r ∈ [0, 1]
of the run's repetition is on: the run's B and p are its *heavy* levels, and a
step trains with

    B(t) = 1 + round((B − 1)·r(t)),    p(t) = p·r(t).

* ``constant``: r = 1 (every run before this module);
* ``step``: r = 1 before step τ (``at``), 0 from τ on;
* ``triggered``: r = 1 until a recorded training signal crosses a level, 0 from then on;
* ``annealed``: r = 2^(−t/h), h (``at``) the half-life.

A run config holds its schedule as a short string (``"step:1000"``,
``"triggered:accuracy_train_distribution>=0.5"``, ``"annealed:500"``), so that
it enters the cache key and the tables as one readable value;
`DiversitySchedule.parse` turns it into this typed object and validates it.
Times are in the run's own unit: steps for training, physical time for the toy flows.
`ScheduleState` is a schedule during training: per ensemble member, the B and p of each step and when a trigger fired.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np

ScheduleKind = Literal["constant", "step", "triggered", "annealed"]
SCHEDULE_KINDS: tuple[str, ...] = ("constant", "step", "triggered", "annealed")

_TRIGGER = re.compile(r"^(?P<signal>[A-Za-z_][A-Za-z0-9_]*)(?P<op>>=|<=)(?P<level>[-+0-9.eE]+)$")


class ScheduleError(ValueError):
    """A schedule spec that cannot be read; the message says what is allowed."""


@dataclass(frozen=True)
class DiversitySchedule:
    """r(t), the fraction of the run's repetition switched on at time t (see the module docstring)."""

    kind: ScheduleKind = "constant"
    at: float | None = None  # step: the switch time τ; annealed: the half-life h
    signal: str | None = None  # triggered: the recorded quantity watched (e.g. "accuracy_train_distribution")
    direction: Literal["up", "down"] | None = None  # triggered: fire when the signal rises to (up) / falls to (down) the level
    level: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in SCHEDULE_KINDS:
            raise ScheduleError(f"schedule kind must be one of {SCHEDULE_KINDS}, got {self.kind!r}")
        if self.kind in ("step", "annealed"):
            if self.at is None or not (isinstance(self.at, (int, float)) and math.isfinite(self.at) and self.at > 0):
                raise ScheduleError(f"a {self.kind} schedule needs a time > 0 ({'τ' if self.kind == 'step' else 'half-life'}), got {self.at!r}")
        if self.kind == "triggered":
            if not self.signal or self.direction not in ("up", "down") or self.level is None or not math.isfinite(self.level):
                raise ScheduleError("a triggered schedule needs a signal, a direction ('up' or 'down') and a finite level")

    # --- constructors -------------------------------------------------------------------------
    @classmethod
    def constant(cls) -> "DiversitySchedule":
        return cls()

    @classmethod
    def step(cls, at: float) -> "DiversitySchedule":
        return cls("step", at=float(at))

    @classmethod
    def annealed(cls, half_life: float) -> "DiversitySchedule":
        return cls("annealed", at=float(half_life))

    @classmethod
    def triggered(cls, signal: str, level: float, direction: Literal["up", "down"] = "up") -> "DiversitySchedule":
        return cls("triggered", signal=signal, direction=direction, level=float(level))

    @classmethod
    def parse(cls, spec: str) -> "DiversitySchedule":
        """The schedule a spec string names: ``constant``, ``step:τ``, ``annealed:h``, ``triggered:signal>=level``
        (or ``<=``)."""
        if not isinstance(spec, str):
            raise ScheduleError(f"schedule must be a string such as 'constant', 'step:1000', 'annealed:500' or "
                                f"'triggered:accuracy_train_distribution>=0.5', got {spec!r}")
        kind, _, arg = spec.partition(":")
        if kind == "constant" and not arg:
            return cls()
        if kind in ("step", "annealed"):
            try:
                value = float(arg)
            except ValueError:
                raise ScheduleError(f"schedule {spec!r}: {kind} takes a number, e.g. '{kind}:1000'") from None
            return cls(cast(ScheduleKind, kind), at=value)
        if kind == "triggered":
            m = _TRIGGER.match(arg.replace(" ", ""))
            if not m:
                raise ScheduleError(f"schedule {spec!r}: triggered takes 'signal>=level' or 'signal<=level'")
            return cls.triggered(m["signal"], float(m["level"]), "up" if m["op"] == ">=" else "down")
        raise ScheduleError(f"schedule {spec!r}: the kind must be one of {SCHEDULE_KINDS} "
                            "('constant', 'step:τ', 'annealed:h', 'triggered:signal>=level')")

    @property
    def spec(self) -> str:
        """The string a config stores (round-trips through `parse`)."""
        if self.kind == "constant":
            return "constant"
        if self.kind in ("step", "annealed"):
            return f"{self.kind}:{self.at:g}"
        return f"triggered:{self.signal}{'>=' if self.direction == 'up' else '<='}{self.level:g}"

    @property
    def label(self) -> str:
        """For tables and legends."""
        if self.kind == "constant":
            return "constant"
        if self.kind == "step":
            return f"step at {self.at:g}"
        if self.kind == "annealed":
            return f"annealed, half-life {self.at:g}"
        return f"triggered: {self.signal} {'≥' if self.direction == 'up' else '≤'} {self.level:g}"

    # --- evaluation ---------------------------------------------------------------------------
    def fraction(self, t: float, triggered: bool = False) -> float:
        """r(t); ``triggered`` says whether a triggered schedule's signal has crossed its level by then."""
        if self.kind == "constant":
            return 1.0
        if self.kind == "step":
            assert self.at is not None  # __post_init__: a step schedule has its time
            return 1.0 if t < self.at else 0.0
        if self.kind == "annealed":
            assert self.at is not None  # __post_init__: an annealed schedule has its half-life
            return float(2.0 ** (-t / self.at))
        return 0.0 if triggered else 1.0

    def fires(self, value: float) -> bool:
        """Whether a triggered schedule's signal ``value`` has crossed its level (NaN never fires)."""
        if self.kind != "triggered" or not math.isfinite(value):
            return False
        assert self.level is not None  # __post_init__: a triggered schedule has its level
        return value >= self.level if self.direction == "up" else value <= self.level


def repetition_at(B: int, p: float, r: float) -> tuple[int, float]:
    """(B(t), p(t)) for heavy levels (B, p) and the fraction r switched on."""
    return 1 + int(round((B - 1) * r)), p * r


def check_schedule(spec: str, signals: tuple[str, ...] | None = None) -> DiversitySchedule:
    """Parse ``spec``; a triggered schedule must watch one of ``signals`` (what the run records)."""
    schedule = DiversitySchedule.parse(spec)
    if schedule.kind == "triggered" and signals is not None and schedule.signal not in signals:
        raise ScheduleError(f"schedule {spec!r}: the signal must be one of {signals} (what this run records)")
    return schedule


class ScheduleState:
    """A run's data-diversity schedule (`schedules`), per ensemble member: the B and p of each training step,
    and when repetition switched off. A constant schedule passes no overrides, so a run samples as it always did."""

    def __init__(self, spec: str, B: int, p: float, E: int):
        self.schedule = DiversitySchedule.parse(spec)
        self.B, self.p = B, p
        self.fired_at = np.full(E, np.nan)  # triggered: the evaluation step at which the signal crossed its level

    @property
    def active(self) -> bool:
        return self.schedule.kind != "constant"

    def observe(self, step: int, signals: dict[str, np.ndarray]) -> None:
        """At an evaluation: a triggered schedule fires for the members whose signal crossed its level."""
        if self.schedule.kind != "triggered":
            return
        assert self.schedule.signal is not None  # a triggered schedule has its signal
        for e, value in enumerate(signals[self.schedule.signal]):
            if np.isnan(self.fired_at[e]) and self.schedule.fires(float(value)):
                self.fired_at[e] = step

    def fractions(self, step: int) -> np.ndarray:
        """r per member for the training step ``step`` (a trigger that fired at the evaluation of this step applies)."""
        return np.array([self.schedule.fraction(step, triggered=bool(f <= step)) if np.isfinite(f)
                         else self.schedule.fraction(step) for f in self.fired_at])

    def overrides(self, step: int) -> list[dict] | None:
        """Per member {B, p} for a training step, or None under a constant schedule."""
        if not self.active:
            return None
        return [dict(zip(("B", "p"), repetition_at(self.B, self.p, r))) for r in self.fractions(step)]

    def switched_at(self, e: int) -> float:
        """When member ``e``'s repetition switched off: τ (step), the firing step (triggered), NaN otherwise."""
        if self.schedule.kind == "step":
            assert self.schedule.at is not None  # a step schedule has its time
            return float(self.schedule.at)
        return float(self.fired_at[e])
