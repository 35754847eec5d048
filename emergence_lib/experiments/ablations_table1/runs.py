"""Figures 14 and 15 (App. B.3) on Table 1's width: `AblationsMeasured`, registry name ``ablations_measured``,
scales smoke and paper_cpu. Registered (``claims``, ``table1.ablations.*``) in a commit before any of its runs.

The model is the paper's 1-layer, 1-head ablation model at Table 1's width (256, QK 64), no LayerNorm, batch 32,
plateau at loss 0.1; Adam at 10⁻⁴ and SGD at 5·10⁻³, the learning rates the paper states for Figure 15. Runs stop at
1.2× their crossing (these claims read the crossing, not the tail).

* Figure 14: its three solvable position/feature set-ups (the fourth, no feature with a random position, cannot be
  solved and stays out) at T ∈ {32, 64, 128} × d ∈ {16, 32, 64}, 3 seeds: about 150k steps by the paper's laws.
* Figure 15: SGD at (T, d) ∈ {(32, 16), (64, 16), (128, 16), (32, 32)}, 3 seeds (about 435k steps by the paper's
  SGD law); Adam's runs are Figure 14's random-position runs (the same configs). Left out, by the same law: SGD at
  (64, 32) (81k steps a seed), at d = 64 or at (128, 32) (over 130k steps a seed): several CPU-hours each.
* Figure 13 (added later, registered before its runs): the Figure 3 model's depth and heads at Table 1's width,
  heads H ∈ {1, 2, 4, 8} at 2 layers and layers L ∈ {1, 2, 4} at 4 heads, at (T, d) ∈ {(32, 16), (64, 32)}, 3 seeds
  (36 configs: (L, H) = (2, 4) is in both). The paper's grid for this figure is unknown; a head's QK dimension stays
  64 and its value width is 256 / H, as in the laptop's Figure 13. About 2-3 CPU-hours by the Figure 3 law.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...configs import TransformerRegressionConfig
from ..ablations.runs import TASK_VARIANTS
from ..base import ScaledFigure


@dataclass(frozen=True)
class AblationsMeasuredGrid:
    model: dict[str, int]
    adam_lr: float
    sgd_lr: float
    seeds: tuple[int, ...]
    max_steps: int
    sgd_max_steps: int
    stop_factor: float
    T: tuple[int, ...]  # Figure 14's grid
    d: tuple[int, ...]
    sgd_points: tuple[tuple[int, int], ...]  # Figure 15's SGD (T, d)
    arch_points: tuple[tuple[int, int], ...] = ()  # Figure 13's (T, d)
    heads: tuple[int, ...] = ()  # Figure 13: heads at `arch_layers` layers
    arch_layers: int = 2
    layers: tuple[int, ...] = ()  # Figure 13: layers at `arch_heads` heads
    arch_heads: int = 4

    def describe(self) -> dict[str, Any]:
        return {"model": f"1 × 1, width {self.model['d_model']}, QK {self.model['d_qk']}",
                "Adam / SGD lr": f"{self.adam_lr:g} / {self.sgd_lr:g}", "seeds": len(self.seeds),
                "Figure 14 (T × d)": f"{self.T} × {self.d}", "Figure 15 SGD (T, d)": str(self.sgd_points),
                "Figure 13 (T, d)": str(self.arch_points),
                "Figure 13 heads / layers": f"H {self.heads} at L = {self.arch_layers}; L {self.layers} at H = {self.arch_heads}",
                "stop at": f"{self.stop_factor}× the crossing"}


ABLATIONS_MEASURED_GRIDS = {
    "smoke": AblationsMeasuredGrid(model={"d_model": 32, "d_qk": 8}, adam_lr=3e-3, sgd_lr=0.1, seeds=(0, 1),
                                   max_steps=2000, sgd_max_steps=3000, stop_factor=1.2, T=(8, 16), d=(2, 4),
                                   sgd_points=((8, 2), (16, 2)), arch_points=((8, 2), (16, 4)), heads=(1, 2),
                                   layers=(1, 2), arch_heads=2),
    "paper_cpu": AblationsMeasuredGrid(model={"d_model": 256, "d_qk": 64}, adam_lr=1e-4, sgd_lr=5e-3, seeds=(0, 1, 2),
                                       max_steps=50_000, sgd_max_steps=150_000, stop_factor=1.2, T=(32, 64, 128),
                                       d=(16, 32, 64), sgd_points=((32, 16), (64, 16), (128, 16), (32, 32)),
                                       arch_points=((32, 16), (64, 32)), heads=(1, 2, 4, 8), layers=(1, 2, 4)),
}


@dataclass(frozen=True)
class AblationsMeasured(ScaledFigure):
    """Figures 14 and 15 on Table 1's width: one sweep per set-up ("feature + random position", …, "sgd")."""

    name: ClassVar[str] = "Figures 14, 15 (Table 1's width)"
    GRIDS: ClassVar[dict[str, AblationsMeasuredGrid]] = ABLATIONS_MEASURED_GRIDS

    def _run(self, T: int, d: int, seed: int, **kw: Any) -> TransformerRegressionConfig:
        g = self.grid
        base = dict(T=T, d=d, lr=g.adam_lr, max_steps=g.max_steps, stop_factor=g.stop_factor, n_layers=1, n_heads=1,
                    **g.model) | kw
        return TransformerRegressionConfig(seed=seed, **base)

    def sweeps(self) -> dict[str, list[TransformerRegressionConfig]]:
        g = self.grid
        out = {name: [self._run(T, d, s, random_position=rand, relevance_feature=feat)
                      for T in g.T for d in g.d for s in g.seeds]
               for name, (rand, feat) in TASK_VARIANTS.items()}
        out["sgd"] = [self._run(T, d, s, optimizer="sgd", lr=g.sgd_lr, max_steps=g.sgd_max_steps)
                      for T, d in g.sgd_points for s in g.seeds]
        # Figure 13 on the Figure 3 task (a random position marked by the feature, the runs' defaults).
        out["figure13 heads"] = [self._run(T, d, s, n_layers=g.arch_layers, n_heads=H)
                                 for T, d in g.arch_points for H in g.heads for s in g.seeds]
        out["figure13 layers"] = [self._run(T, d, s, n_layers=L, n_heads=g.arch_heads)
                                  for T, d in g.arch_points for L in g.layers for s in g.seeds]
        return out
