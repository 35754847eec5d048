"""Chapter B3 (beyond the paper): a 2026 follow-up's claims, tested on this paper's tasks.

"Emergent Capabilities Arise Randomly from Learning Sparse Attention Patterns" (2026) makes six claims the book's
tasks can test. `FollowUp` holds the runs of each, per scale:

* ``entropy``: attention entropy per head over training (regression 1×1, 1×4, 2×4; recall, its 4-layer model);
* ``bias``: an attention-bias intervention, s × (ground-truth mask) on the readout's logits, first or all layers;
* ``heads``: more heads under two protocols, fixed total width (heads split it; the follow-up's) and fixed head
  dimension (the width grows with the heads);
* ``depth``: read from Figure 13's runs (no runs of its own at cpu scale: the same 1, 2, 4 layers);
* ``mixer``: an MLP-Mixer on Figure 14's three task variants (positional to content-marked), beside Figure 14's
  1×1 Transformer runs on the same grid and budget;
* ``randomness``: ≥ 10 seeds at two configurations per task, and the toy model under SGD; ``sources`` splits the
  spread into what the initialisation and what the data (target map, batches) contribute.

Regression runs use Figure 13's model and optimiser at each scale (`ablations.ABLATION_GRIDS`); recall uses
Figure 4's (`recall.RECALL_GRIDS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ...configs import ToySGDConfig, TransformerRecallConfig, TransformerRegressionConfig
from ..ablations.runs import ABLATION_GRIDS, TASK_VARIANTS, Figure14
from ..base import ScaledFigure
from ..recall.runs import RECALL_GRIDS


@dataclass(frozen=True)
class FollowUpGrid:
    point: tuple[int, int]  # (T, d) of the regression entropy and bias runs
    entropy_models: tuple[tuple[int, int], ...]  # (layers, heads)
    entropy_seeds: tuple[int, ...]
    recall_point: tuple[int, int]  # (n_tokens, n_pairs) of the recall entropy and bias runs
    recall_lr: float
    bias_s: tuple[float, ...]  # the 1×1 scan (first = all layers)
    bias_s_layers: tuple[float, ...]  # the multi-layer models, first vs all layers
    bias_seeds: tuple[int, ...]
    bias_max_steps: int  # the 1×1 scan
    deep_bias_max_steps: int  # the 2×4 model (about 3× its plateau at s = 0: enough to see the weights learn, or not)
    recall_bias_max_steps: int
    heads: tuple[int, ...]
    heads_points: tuple[tuple[int, int], ...]  # (T, d): distinct T and d, so that the fit separates them from H
    heads_seeds: tuple[int, ...]
    width: int  # fixed total width (the follow-up's protocol): head dim = width / H
    head_dim: int  # fixed head dimension: width = head_dim × H
    mixer_seeds: tuple[int, ...]
    random_points: tuple[tuple[int, int], ...]  # regression (T, d), 1×1
    random_recall_points: tuple[tuple[int, int], ...]  # (n_tokens, n_pairs)
    random_seeds: tuple[int, ...]
    toy_points: tuple[tuple[int, int, float], ...]  # (T, d, t_max) of toy SGD
    stop_factor: float = 2.5  # past the crossing, so that the entropy has settled too
    mixer_max_steps: int | None = None  # None: Figure 14's budget (smoke: shorter, the content task needs long)


FOLLOWUP_GRIDS = {
    "smoke": FollowUpGrid(
        point=(16, 4), entropy_models=((1, 1), (2, 2)), entropy_seeds=(0,), recall_point=(8, 2), recall_lr=3e-3,
        bias_s=(0.0, 2.0), bias_s_layers=(2.0,), bias_seeds=(0,), bias_max_steps=300, deep_bias_max_steps=300, recall_bias_max_steps=200,
        heads=(1, 2), heads_points=((8, 2), (16, 4), (8, 4)), heads_seeds=(0,), width=32, head_dim=16,
        mixer_seeds=(0,), random_points=((16, 4),), random_recall_points=((8, 2),), random_seeds=(0, 1, 2),
        toy_points=((16, 16, 300.0),), mixer_max_steps=500,
    ),
    "cpu": FollowUpGrid(
        point=(64, 16), entropy_models=((1, 1), (1, 4), (2, 4)), entropy_seeds=(0, 1, 2), recall_point=(32, 6),
        recall_lr=1e-3, bias_s=(0.0, 0.5, 1.0, 2.0, 4.0, 8.0), bias_s_layers=(1.0, 4.0), bias_seeds=(0, 1),
        bias_max_steps=4000, deep_bias_max_steps=1500, recall_bias_max_steps=2500,
        heads=(1, 2, 4, 8), heads_points=((32, 8), (32, 16), (64, 8), (64, 16)), heads_seeds=(0, 1), width=64,
        head_dim=32, mixer_seeds=(0, 1), random_points=((32, 16), (64, 16)), random_recall_points=((16, 4), (32, 6)),
        random_seeds=tuple(range(12)), toy_points=((64, 64, 1500.0), (128, 128, 3500.0)),
    ),
    # The follow-up's hidden size (D = 128, H = 8: head dim 16) for the heads protocols; Table 1's models elsewhere.
    "paper": FollowUpGrid(
        point=(128, 64), entropy_models=((1, 1), (1, 4), (2, 4)), entropy_seeds=(0, 1, 2), recall_point=(128, 16),
        recall_lr=1e-4, bias_s=(0.0, 0.5, 1.0, 2.0, 4.0, 8.0), bias_s_layers=(1.0, 4.0), bias_seeds=(0, 1, 2),
        bias_max_steps=40_000, deep_bias_max_steps=20_000, recall_bias_max_steps=100_000,
        heads=(1, 2, 4, 8), heads_points=((64, 16), (64, 32), (128, 16), (128, 32)), heads_seeds=(0, 1, 2), width=128,
        head_dim=16, mixer_seeds=(0, 1, 2), random_points=((64, 32), (128, 32)),
        random_recall_points=((64, 8), (128, 16)), random_seeds=tuple(range(20)),
        toy_points=((128, 128, 3500.0), (256, 256, 8000.0)),
    ),
}

# The heads protocols (`FollowUp.head_architecture` gives each one's width and QK dim for H heads).
HEAD_PROTOCOLS = ("fixed total width", "fixed head dim")


@dataclass(frozen=True)
class FollowUp(ScaledFigure):
    """The runs of chapter B3 (see the module docstring)."""

    name: ClassVar[str] = "Follow-up's claims"
    GRIDS: ClassVar[dict[str, FollowUpGrid]] = FOLLOWUP_GRIDS

    def _regression(self, T: int, d: int, seeds: tuple[int, ...], **kw: Any) -> list[TransformerRegressionConfig]:
        a = ABLATION_GRIDS[self.scale]
        base = dict(T=T, d=d, lr=a.adam_lr, max_steps=a.max_steps, n_layers=1, n_heads=1, **a.model) | kw
        return [TransformerRegressionConfig(seed=s, **base) for s in seeds]

    def _recall(self, V: int, N: int, seeds: tuple[int, ...], **kw: Any) -> list[TransformerRecallConfig]:
        r = RECALL_GRIDS[self.scale]
        base = dict(n_tokens=V, n_pairs=N, lr=self.grid.recall_lr, threshold=r.threshold, max_steps=r.max_steps,
                    eval_size=r.eval_size, stop_factor=self.grid.stop_factor, record_entropy=True, **r.model) | kw
        return [TransformerRecallConfig(seed=s, **base) for s in seeds]

    def head_architecture(self, protocol: str, H: int) -> dict[str, int]:
        """d_model and d_qk of an H-head model under a protocol (values: d_model / H per head)."""
        g: FollowUpGrid = self.grid
        if protocol == "fixed total width":
            return {"d_model": g.width, "d_qk": g.width // H}
        return {"d_model": g.head_dim * H, "d_qk": g.head_dim}

    def entropy_runs(self) -> list[TransformerRegressionConfig]:
        g: FollowUpGrid = self.grid
        return [r for L, H in g.entropy_models for r in self._regression(
            *g.point, g.entropy_seeds, n_layers=L, n_heads=H, record_attention=True, record_entropy=True,
            stop_factor=g.stop_factor)]

    def bias_runs(self) -> list[TransformerRegressionConfig]:
        """1×1 over the s scan, and the 2×4 model at a few s with the bias in the first or in every layer."""
        g: FollowUpGrid = self.grid
        one = [r for s in g.bias_s for r in self._regression(*g.point, g.bias_seeds, attention_bias=s,
                                                             max_steps=g.bias_max_steps, record_attention=True)]
        deep = [r for s in (0.0, *g.bias_s_layers) for where in (("first",) if s == 0 else ("first", "all"))
                for r in self._regression(*g.point, g.bias_seeds, n_layers=2, n_heads=4, attention_bias=s,
                                          bias_layers=where, max_steps=g.deep_bias_max_steps, record_attention=True)]
        return one + deep

    def recall_bias_runs(self) -> list[TransformerRecallConfig]:
        g: FollowUpGrid = self.grid
        # s = 0 is the randomness sweep's run (the same config); a biased run stops at its budget if the weights
        # never learn the pattern on their own.
        return self._recall(*g.recall_point, g.bias_seeds) + [
            r for s in g.bias_s_layers for where in ("first", "all")
            for r in self._recall(*g.recall_point, g.bias_seeds, attention_bias=s, bias_layers=where,
                                  max_steps=g.recall_bias_max_steps)]

    def heads_runs(self) -> list[TransformerRegressionConfig]:
        g: FollowUpGrid = self.grid
        return [r for protocol in HEAD_PROTOCOLS for H in g.heads for T, d in g.heads_points
                for r in self._regression(T, d, g.heads_seeds, n_heads=H, **self.head_architecture(protocol, H))]

    def mixer_runs(self) -> list[TransformerRegressionConfig]:
        """The MLP-Mixer on Figure 14's three task variants and grid (its Transformer runs are Figure 14's)."""
        a = ABLATION_GRIDS[self.scale]
        budget = {"max_steps": self.grid.mixer_max_steps} if self.grid.mixer_max_steps else {}
        return [r for rand, feat in TASK_VARIANTS.values() for T in a.T for d in a.d
                for r in self._regression(T, d, self.grid.mixer_seeds, random_position=rand, relevance_feature=feat,
                                          model="mlp_mixer", **budget)]

    def randomness_runs(self) -> list[TransformerRegressionConfig]:
        g: FollowUpGrid = self.grid
        return [r for T, d in g.random_points for r in self._regression(
            T, d, g.random_seeds, record_attention=True, record_entropy=True, stop_factor=g.stop_factor)]

    def source_runs(self, task: str) -> list[Any]:
        """Where the spread comes from: the initialisation alone varies (``data_seed`` fixed at 0, ``seed`` varies),
        or the data alone (the target map, batches and held-out sets: ``seed`` fixed at 0, ``data_seed`` varies);
        at each regression configuration of the randomness sweep, and at recall's first. (seed 0, data_seed 0) is in
        both families, once."""
        g: FollowUpGrid = self.grid
        pairs = [(k, 0) for k in g.random_seeds] + [(0, k) for k in g.random_seeds if k != 0]  # (seed, data_seed)
        if task == "regression":
            return [r for s, k in pairs for T, d in g.random_points
                    for r in self._regression(T, d, (s,), data_seed=k, stop_factor=g.stop_factor)]
        return [r for s, k in pairs for r in self._recall(*g.random_recall_points[0], (s,), data_seed=k, record_entropy=False)]

    def toy_runs(self) -> list[ToySGDConfig]:
        """SGD on the toy model from the theory's initialisation (W = 0, unit columns): SGD noise is the only source."""
        return [ToySGDConfig(T=T, d=d, t_max=t_max, seed=s, target="unit_columns", init="zero", record_every=10)
                for T, d, t_max in self.grid.toy_points for s in self.grid.random_seeds]

    def sweeps(self) -> dict[str, list[Any]]:
        g: FollowUpGrid = self.grid
        return {
            "entropy": self.entropy_runs(),
            "randomness": self.randomness_runs(),
            "heads": self.heads_runs(),
            "bias": self.bias_runs(),
            "mixer": self.mixer_runs(),
            "recall_randomness": [r for V, N in g.random_recall_points for r in self._recall(V, N, g.random_seeds)],
            "recall_bias": self.recall_bias_runs(),
            "toy_sgd": self.toy_runs(),
            "sources": self.source_runs("regression"),
            "recall_sources": self.source_runs("recall"),
            "transformer_variants": Figure14(scale=self.scale).runs(),  # the Mixer's comparison (cached)
        }
