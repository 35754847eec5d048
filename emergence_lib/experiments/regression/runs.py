"""Figures 3, 11 and 12 (paper §2.4, App. B): a small Transformer on single-location regression."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import math

import numpy as np

from ...configs import TransformerRegressionConfig
from ...paper import PAPER, figure3_law
from ..base import ScaledFigure


@dataclass(frozen=True)
class Figure11Grid:
    T: int
    d: tuple[int, ...]
    seeds: tuple[int, ...]


@dataclass(frozen=True)
class TransformerGrid:
    """One scale of the regression experiments: the (T, d) grid of the left panel is every T crossed with every d;
    ``larger``, ``p_larger`` and ``bridge`` list (T, d) pairs."""

    model: dict[str, int]  # width: d_model and d_qk (the rest is Table 1's)
    lr: float  # Adam, every panel but the right one
    p_lrs: tuple[float, ...]  # the right panel's candidates (the chapter keeps the better per (p, d))
    seeds: tuple[int, ...]
    max_steps: int
    T: tuple[int, ...]  # left panel
    d: tuple[int, ...]
    T_B: int  # middle panel
    B: tuple[int, ...]
    T_p: int  # right panel
    p: tuple[float, ...]
    fig11: Figure11Grid
    larger: tuple[tuple[int, int], ...] = ()  # a few bigger (T, d): how the exponents move with size
    p_larger: tuple[tuple[int, int], ...] = ()  # p = 0 vs the largest p at bigger (T, d)
    readout_default: tuple[tuple[int, int], ...] = field(default=())  # nn.Linear's readout instead of zero
    bridge: tuple[tuple[int, int], ...] = ()  # (T, d) where the cpu scale's model is moved to Table 1's, a step at a time

    def describe(self) -> dict[str, Any]:
        """The set-up in a chapter's words (a column of its settings table)."""
        return {"width / QK dim": f"{self.model['d_model']} / {self.model['d_qk']}", "Adam lr": self.lr,
                "lr for p (best of)": self.p_lrs, "seeds": len(self.seeds), "max steps": self.max_steps,
                "T (left)": self.T, "d": self.d, "B (middle, at T)": f"{self.B} at T = {self.T_B}",
                "p (right, at T)": f"{self.p} at T = {self.T_p}", "larger points (T, d)": self.larger or "—"}


# "paper" is Table 1; "cpu" is ours (see chapters/03_transformer.ipynb for why): a 4× narrower model (width 64,
# QK 16), a 10× larger learning rate, 2 seeds, and T, d grids 4–8× smaller.
TRANSFORMER_GRIDS = {
    "smoke": TransformerGrid(model={"d_model": 32, "d_qk": 8}, lr=3e-3, p_lrs=(3e-3,), seeds=(0,), max_steps=3000,
                             T=(8, 16), d=(2, 4), T_B=16, B=(1, 2), T_p=16, p=(0.0, 0.4),
                             fig11=Figure11Grid(T=16, d=(4,), seeds=(0, 1)), readout_default=((16, 4),)),
    "cpu": TransformerGrid(model={"d_model": 64, "d_qk": 16}, lr=1e-3, p_lrs=(1e-3, 3e-3), seeds=(0, 1), max_steps=20_000,
                           T=(16, 32, 64, 128), d=(4, 8, 16, 32), T_B=64, B=(1, 2, 4, 8), T_p=32, p=(0.0, 0.1, 0.2, 0.4),
                           fig11=Figure11Grid(T=64, d=(8, 16), seeds=(0, 1, 2, 3, 4)),
                           larger=((32, 64), (64, 64)), p_larger=((32, 64), (32, 128), (64, 32)),
                           readout_default=((32, 8), (64, 16), (32, 32))),
    # Table 1 exactly (width 256, QK 64, Adam 1e-4, batch 32, thresholds 0.1 / 0.4, both of the paper's lrs for p,
    # 50k steps), on the cheapest of the paper's own points, 3 seeds (the paper: 5). Sized by `estimate` (a timing of
    # each shape, width 256, one thread: 0.33 / 0.47 s a step at T = 32 / 64, d = 16, times the steps the paper's law
    # predicts; measured / estimated was 0.8-1.3 on the runs done without another job on the machine): the scale
    # below is about 7.5 CPU-hours in all, the bridge's narrower models included. Kept: d ∈ {16, 32} at
    # T ∈ {32, 64} (every panel); d = 64 at T = 32 ("larger": a fifth (T, d) point, so that the fit of two
    # exponents and a constant keeps two degrees of freedom; ~15 CPU-minutes a seed); B ≤ 4 at T = 64; p ∈ {0, 0.4}
    # at T = 32. Left out: (128, 16) (~34 CPU-minutes a seed: it would take the scale past 8 CPU-hours), (64, 64)
    # (~33), T ≥ 128 at d ≥ 32 (≥ 1 CPU-hour a seed), and T_B = T_p = 256, where the paper's middle and right
    # panels sit (hours a run).
    "paper_cpu": TransformerGrid(model={"d_model": 256, "d_qk": 64}, lr=1e-4, p_lrs=(1e-4, 3e-4), seeds=(0, 1, 2),
                                 max_steps=50_000, T=(32, 64), d=(16, 32), T_B=64, B=(1, 2, 4), T_p=32, p=(0.0, 0.4),
                                 fig11=Figure11Grid(T=32, d=(16,), seeds=(0, 1, 2)), larger=((32, 64),),
                                 bridge=((32, 16), (32, 32), (64, 16))),
    "paper": TransformerGrid(model={"d_model": 256, "d_qk": 64}, lr=1e-4, p_lrs=(1e-4, 3e-4), seeds=(0, 1, 2, 3, 4),
                             max_steps=50_000, T=(32, 64, 128, 256), d=(16, 32, 64, 128), T_B=256, B=(1, 2, 4, 8, 16),
                             T_p=256, p=(0.0, 0.1, 0.2, 0.4), fig11=Figure11Grid(T=128, d=(16, 32, 64), seeds=(0, 1, 2, 3, 4)),
                             readout_default=((64, 32), (128, 64))),
}

# From the cpu scale's model to Table 1's, one setting at a time (width and QK dim together, then the learning
# rate): which substitution moves the plateau. The last step is Table 1 itself.
BRIDGE_STEPS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("cpu scale: width 64, lr 10⁻³", {"d_model": 64, "d_qk": 16, "lr": 1e-3}),
    ("width 128, lr 10⁻³", {"d_model": 128, "d_qk": 32, "lr": 1e-3}),
    ("width 256, lr 10⁻³", {"d_model": 256, "d_qk": 64, "lr": 1e-3}),
    ("Table 1: width 256, lr 10⁻⁴", {"d_model": 256, "d_qk": 64, "lr": 1e-4}),
)

# Right panel: plateau at loss 0.4 read on data without repetition; runs stop at 2.5× it.
P_RUNS: dict[str, Any] = dict(threshold=0.4, plateau_on="no_repetition", stop_factor=2.5)


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
    GRIDS: ClassVar[dict[str, TransformerGrid]] = TRANSFORMER_GRIDS

    def _runs(self, T: int, d: int, **kw: Any) -> list[TransformerRegressionConfig]:
        g = self.grid
        base = dict(T=T, d=d, lr=g.lr, max_steps=g.max_steps, **g.model) | kw
        return [TransformerRegressionConfig(seed=s, **base) for s in g.seeds]

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        return {
            "T": [r for T in g.T for d in g.d for r in self._runs(T, d)],
            "B": [r for B in g.B if B > 1 for d in g.d for r in self._runs(g.T_B, d, B=B)],
            "p": [r for lr in g.p_lrs for p in g.p for d in g.d for r in self._runs(g.T_p, d, p=p, lr=lr, **P_RUNS)],
            "larger": [r for T, d in g.larger for r in self._runs(T, d)],
            # Does cross-sample repetition start to help at larger d or T? (p = 0 vs the largest p, the larger lr)
            "p_larger": [r for T, d in g.p_larger for p in (0.0, max(g.p))
                         for r in self._runs(T, d, p=p, lr=max(g.p_lrs), **P_RUNS)],
            # The same runs as "T" at a few points, but with nn.Linear's default readout: what starting at loss ½ changes.
            "readout_default": [r for T, d in g.readout_default for r in self._runs(T, d, readout_init="default")],
            # The cpu scale's substitutions undone one at a time (`BRIDGE_STEPS`), at the paper_cpu scale only.
            "bridge": [r for T, d in g.bridge for _, step in BRIDGE_STEPS for r in self._runs(T, d, **step)],
        }


@dataclass(frozen=True)
class Figure11(ScaledFigure):
    """Figure 11: learning curves of several seeds (each its own relevant positions and W*)."""

    name: ClassVar[str] = "Figure 11"
    GRIDS: ClassVar[dict[str, TransformerGrid]] = TRANSFORMER_GRIDS

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        f = g.fig11
        return {"curves": [
            TransformerRegressionConfig(T=f.T, d=d, lr=g.lr, max_steps=g.max_steps, seed=s, stop_factor=3.0, **g.model)
            for d in f.d for s in f.seeds
        ]}


@dataclass(frozen=True)
class Figure12(ScaledFigure):
    """Figure 12: under cross-sample repetition, the loss on the training distribution and on data without
    repetition: Figure 3's right-panel runs at its base learning rate (no runs of its own)."""

    name: ClassVar[str] = "Figure 12"
    GRIDS: ClassVar[dict[str, TransformerGrid]] = TRANSFORMER_GRIDS

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        return {"p": [r for r in Figure3(scale=self.scale).sweeps()["p"] if r.lr == self.grid.lr]}


LAW = PAPER["figure3"]
law = figure3_law  # the paper's Figure 3 law at (T, d, B), in steps


def paper_points(grid: TransformerGrid = TRANSFORMER_GRIDS["paper"]) -> list[tuple[int, int, int]]:
    """The (T, d, B) points of the paper's Figure 3 left and middle panels, the ones its law was fitted to."""
    return [(T, d, 1) for T in grid.T for d in grid.d] + [(grid.T_B, d, B) for B in grid.B if B > 1 for d in grid.d]


def our_points(grid: TransformerGrid = TRANSFORMER_GRIDS["paper_cpu"]) -> list[tuple[int, int, int]]:
    """The (T, d, B) points the paper_cpu scale runs at B = 1 and in the middle panel, in the registry's order."""
    points = [(T, d, 1) for T in grid.T for d in grid.d] + [(T, d, 1) for T, d in grid.larger]
    return points + [(grid.T_B, d, B) for B in grid.B if B > 1 for d in grid.d]


def point_key(T: int, d: int, B: int) -> str:
    return f"T{T}_d{d}_B{B}"


def law_residual_sd(r2: float = LAW["R2"], n_params: int = 4) -> float:
    """σ of one point about the paper's law, in log space, from the law's R².

    R² = 1 − SS_res/SS_tot and, for least squares, SS_tot = SS_law + SS_res, so SS_res = (1 − R²)/R² × SS_law,
    where SS_law is the spread the law itself spans over the points it was fitted to (`paper_points`), which
    the law determines. Divided by the residual degrees of freedom (n − 4 parameters). At R² = 0.995 on the
    paper's 32 points this is about 0.09: one point lies within about ±20% of the law (1.96σ)."""
    logs = np.log([law(T, d, B) for T, d, B in paper_points()])
    ss_law = float(np.sum((logs - logs.mean()) ** 2))
    return math.sqrt((1 - r2) / r2 * ss_law / (len(logs) - n_params))
