"""Chapter B1 (beyond the paper): the runs of `Steering`, data-diversity schedules (`schedules`) on the toy
flow, associative recall (in-context B and cross-sample p) and regression; the analysis is in `read`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...configs import ToyFlowConfig, TransformerRecallConfig, TransformerRegressionConfig
from ..base import ScaledFigure
from ..recall.runs import RECALL_GRIDS
from ..regression.runs import TRANSFORMER_GRIDS


def _geom(start: float, stop: float, n: int) -> tuple[float, ...]:
    return tuple(float(f"{v:.3g}") for v in np.geomspace(start, stop, n))


@dataclass(frozen=True)
class ToySteering:
    """The 3-D flow at (T, d, p): a step at each τ, annealing at each half-life, a trigger at each α level."""

    T: int
    d: int
    p: float
    taus: tuple[float, ...]
    half_lives: tuple[float, ...]
    alpha_levels: tuple[float, ...]
    t_max: float


@dataclass(frozen=True)
class TransformerSteering:
    """Schedules (spec strings, `schedules.DiversitySchedule.parse`) from repetition (B, p), and their seeds.
    Regression sets its own task and budget; recall uses Figure 5's (``steps`` None: Figure 5's budget)."""

    B: int
    p: float
    seeds: tuple[int, ...]
    schedules: tuple[str, ...]
    steps: int | None = None
    T: int = 0
    d: int = 0
    lr: float = 0.0


@dataclass(frozen=True)
class ConstantRepetition:
    """The constant repetitions a schedule is compared with, at the schedules' own budget and seeds (the best of
    them is the baseline to beat): in-context B and cross-sample p for recall, p for regression."""

    recall_B: tuple[int, ...]
    recall_p: tuple[float, ...]
    regression_p: tuple[float, ...]


@dataclass(frozen=True)
class SteeringGrid:
    toy: ToySteering
    recall: TransformerSteering  # in-context repetition B
    recall_p: TransformerSteering  # cross-sample repetition p
    regression: TransformerSteering
    constants: ConstantRepetition = ConstantRepetition((), (), ())


STEERING_GRIDS = {
    "smoke": SteeringGrid(
        toy=ToySteering(T=32, d=32, p=0.6, taus=(10.0, 30.0, 60.0), half_lives=(30.0,), alpha_levels=(0.2,), t_max=1000.0),
        recall=TransformerSteering(B=2, p=0.0, seeds=(0,), steps=300, schedules=(
            "constant", "step:100", "annealed:100", "triggered:trigger_attn_query_to_value>=0.15")),
        recall_p=TransformerSteering(B=1, p=0.4, seeds=(0,), steps=300, schedules=("constant", "triggered:trigger_attn_query_to_value>=0.15")),
        regression=TransformerSteering(T=16, d=8, B=1, p=0.4, lr=3e-3, steps=300, seeds=(0,), schedules=(
            "constant", "step:50", "annealed:50", "triggered:trigger_attn_relevant>=0.2")),
        constants=ConstantRepetition(recall_B=(2,), recall_p=(0.4,), regression_p=(0.4,)),  # shared: no new smoke run
    ),
    "cpu": SteeringGrid(
        # T, d where the 3-D flow's repetition gain is large (f(p, d) = √(p²d + (1−p)²) ≈ 4.5 at p = 0.6).
        toy=ToySteering(T=256, d=64, p=0.6, taus=_geom(100, 2000, 25), half_lives=_geom(100, 3200, 11),
                        alpha_levels=(0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.6), t_max=10_000.0),
        # Figure 5's model and budget. τ = 500 and the half-life 500 lie before B = 4's emergence on test data
        # (≈1200 steps, cached); the trigger 0.2 on the query → value attention is about twice its plateau value.
        recall=TransformerSteering(B=4, p=0.0, seeds=(0, 1, 2), schedules=(
            "constant", "step:500", "annealed:500", "triggered:trigger_attn_query_to_value>=0.2")),
        # Cross-sample repetition p = 0.8, which slows emergence on test data at this scale (Figure 5, cached): does
        # switching it off rescue it? τ = 1500 lies before emergence without repetition (≈1700 steps).
        recall_p=TransformerSteering(B=1, p=0.8, seeds=(0, 1, 2), schedules=(
            "constant", "step:1500", "triggered:trigger_attn_query_to_value>=0.2")),
        # Figure 3's (T, d) = (32, 64), where p = 0.4 halved the plateau (cached): τ and the half-life 200 lie
        # before p = 0.4's plateau (≈340 steps).
        regression=TransformerSteering(T=32, d=64, B=1, p=0.4, lr=3e-3, steps=3000, seeds=(0, 1, 2), schedules=(
            "constant", "step:200", "annealed:200", "triggered:trigger_attn_relevant>=0.2")),
        # The best constant to beat, at the same budget and seeds: Figure 5's B and p (its seeds 0-1 are shared), and
        # the paper's p grid for regression.
        constants=ConstantRepetition(recall_B=(2, 4), recall_p=(0.2, 0.4, 0.8), regression_p=(0.1, 0.2, 0.4)),
    ),
    "paper": SteeringGrid(
        toy=ToySteering(T=1024, d=128, p=0.6, taus=_geom(500, 20_000, 41), half_lives=_geom(500, 20_000, 21),
                        alpha_levels=(0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.6), t_max=100_000.0),
        recall=TransformerSteering(B=8, p=0.0, seeds=(0, 1, 2), schedules=(
            "constant", "step:5000", "annealed:5000", "triggered:trigger_attn_query_to_value>=0.2")),
        recall_p=TransformerSteering(B=1, p=0.8, seeds=(0, 1, 2), schedules=(
            "constant", "step:15000", "triggered:trigger_attn_query_to_value>=0.2")),
        regression=TransformerSteering(T=256, d=64, B=1, p=0.4, lr=1e-4, steps=50_000, seeds=(0, 1, 2), schedules=(
            "constant", "step:2000", "annealed:2000", "triggered:trigger_attn_relevant>=0.2")),
        constants=ConstantRepetition(recall_B=(2, 4, 8), recall_p=(0.2, 0.4, 0.8), regression_p=(0.1, 0.2, 0.4)),
    ),
}


@dataclass(frozen=True)
class Steering(ScaledFigure):
    """Data-diversity schedules on the toy flow, associative recall and regression (see the module docstring)."""

    name: ClassVar[str] = "Steering emergence"
    GRIDS: ClassVar[dict[str, SteeringGrid]] = STEERING_GRIDS

    def toy_runs(self) -> list[ToyFlowConfig]:
        g = self.grid.toy
        base = dict(T=g.T, d=g.d, t_max=g.t_max)
        specs = (["constant"] + [f"step:{tau:g}" for tau in g.taus] + [f"annealed:{h:g}" for h in g.half_lives]
                 + [f"triggered:alpha>={a:g}" for a in g.alpha_levels])
        return [ToyFlowConfig(p=0.0, **base)] + [ToyFlowConfig(p=g.p, schedule=s, **base) for s in specs]

    def recall_runs(self, family: str = "recall") -> list[TransformerRecallConfig]:
        """``family`` "recall" (in-context repetition B) or "recall_p" (cross-sample p), with the no-repetition runs."""
        g, r = getattr(self.grid, family), RECALL_GRIDS[self.scale]
        f = r.fig5
        base: dict[str, Any] = dict(n_tokens=f.n_tokens, n_pairs=f.n_pairs, lr=f.lr, max_steps=g.steps or f.steps,
                                    stop_factor=None, threshold=r.threshold, eval_size=r.eval_size, **r.model)
        # Seed by seed (a cut-short sweep has whole seeds); the first run of each is Figure 5's B = 1 (no repetition).
        return [c for s in g.seeds for c in [TransformerRecallConfig(seed=s, **base)] + [
            TransformerRecallConfig(B=g.B, p=g.p, schedule=spec, seed=s, **base) for spec in g.schedules]]

    def regression_runs(self) -> list[TransformerRegressionConfig]:
        g = self.grid.regression
        base = dict(T=g.T, d=g.d, lr=g.lr, max_steps=g.steps, stop_factor=None, threshold=0.4,
                    plateau_on="no_repetition", record_attention=True, **TRANSFORMER_GRIDS[self.scale].model)
        return [c for s in g.seeds for c in [TransformerRegressionConfig(seed=s, **base)] + [
            TransformerRegressionConfig(p=g.p, schedule=spec, seed=s, **base) for spec in g.schedules]]

    def constant_runs(self) -> dict[str, list[Any]]:
        """Constant repetition at the schedules' budget and seeds (`ConstantRepetition`), no repetition included,
        seed by seed: the baselines a schedule must beat. Runs shared with the schedules' own are stored once."""
        k = self.grid.constants
        recall = [c for c in self.recall_runs() if c.schedule == "constant" and c.B == 1 and c.p == 0]
        regression = [c for c in self.regression_runs() if c.schedule == "constant" and c.p == 0]
        changes: list[dict[str, Any]] = [{}, *({"B": B} for B in k.recall_B), *({"p": p} for p in k.recall_p)]
        return {
            "recall_constants": [dataclasses.replace(c, **change) for c in recall for change in changes],
            "regression_constants": [dataclasses.replace(c, p=p) for c in regression for p in (0.0, *k.regression_p)],
        }

    def sweeps(self) -> dict[str, list[Any]]:
        return {"toy": self.toy_runs(), "regression": self.regression_runs(), "recall": self.recall_runs(),
                "recall_p": self.recall_runs("recall_p"), **self.constant_runs()}


