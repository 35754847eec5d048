"""Figures 4, 5, 16 and 17 (paper §3, App. C): in-context associative recall.

* Figure 4: emergence time vs vocabulary size per n_pairs, the learning rate picked per configuration from the
  scale's candidates (as the paper did), and the fit C·n_tokens^α·n_pairs^β.
* Figure 5: in-context (B) and cross-sample (p) repetition in training, evaluated on test data without
  repetition; runs go their full budget so that overfitting (and any late recovery) shows.
* Figure 16: the same runs read on their training distribution.
* Figure 17: the induction-head attention weights per layer and head over training.

Emergence threshold: the paper's 5% test accuracy works at its vocabularies (chance 1/256) but not at small
ones, where a model that answers with *some* value of the context already scores about 1/n_pairs during the
plateau. The cpu scale uses 50% (the middle of the jump); the chapters also read 5% and 2/n_pairs off the
recorded curves and say which number uses which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ...configs import TransformerRecallConfig
from ..base import ScaledFigure


@dataclass(frozen=True)
class LrProbe:
    """A larger learning rate tried at a few (n_tokens, n_pairs) points only, to show the candidates bracket the best."""

    lr: float
    points: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Figure5Grid:
    n_tokens: int
    n_pairs: int
    B: tuple[int, ...]
    p: tuple[float, ...]
    lr: float
    steps: int


@dataclass(frozen=True)
class PlacementGrid:
    """Where copying and selection form (Figure 17): set-ups × n_pairs × seeds."""

    n_tokens: int
    n_pairs: tuple[int, ...]
    seeds: tuple[int, ...]
    lr: float
    max_steps: int


@dataclass(frozen=True)
class RecallGrid:
    model: dict[str, int]  # d_model, d_qk, n_layers, n_heads
    lrs: tuple[float, ...]  # Figure 4's candidates
    seeds: tuple[int, ...]
    lr_probe: LrProbe
    threshold: float  # emergence: test accuracy
    max_steps: int
    eval_size: int
    n_tokens: tuple[int, ...]
    n_pairs: tuple[int, ...]
    fig5: Figure5Grid
    no_ln_lrs: tuple[float, ...]  # Figure 4 without LayerNorm (Table 1's reading)
    placement: PlacementGrid

    def describe(self) -> dict[str, Any]:
        """The set-up in a chapter's words (a column of its settings table)."""
        m, f = self.model, self.fig5
        return {"layers × heads": f"{m['n_layers']} × {m['n_heads']}", "width / QK dim": f"{m['d_model']} / {m['d_qk']}",
                "lr candidates": self.lrs, "seeds": len(self.seeds), "emergence at test accuracy": self.threshold,
                "N_tokens": self.n_tokens, "N_pairs": self.n_pairs, "max steps (Fig. 4)": self.max_steps,
                "Fig. 5 (N_tokens, N_pairs, lr, steps)": (f.n_tokens, f.n_pairs, f.lr, f.steps),
                "Fig. 5 B / p": f"{f.B} / {f.p}"}


RECALL_GRIDS = {
    "smoke": RecallGrid(
        model={"d_model": 32, "d_qk": 8, "n_layers": 2, "n_heads": 2}, lrs=(3e-3,), seeds=(0,),
        lr_probe=LrProbe(lr=1e-2, points=((8, 2),)), threshold=0.5, max_steps=1500, eval_size=128,
        n_tokens=(8, 12), n_pairs=(2, 3), fig5=Figure5Grid(n_tokens=8, n_pairs=4, B=(1, 2), p=(0.0, 0.4), lr=3e-3, steps=600),
        no_ln_lrs=(3e-3,), placement=PlacementGrid(n_tokens=8, n_pairs=(3,), seeds=(0,), lr=3e-3, max_steps=300),
    ),
    "cpu": RecallGrid(
        model={"d_model": 64, "d_qk": 16, "n_layers": 4, "n_heads": 4}, lrs=(3e-4, 1e-3), seeds=(0, 1),
        # A third, larger candidate, tried on the smallest vocabulary only: it is no faster at N_pairs = 4 and never
        # reaches 50% within 20k steps at N_pairs = 6, so the grid does not pay 20k steps per point for it.
        lr_probe=LrProbe(lr=3e-3, points=((16, 4), (16, 6))),
        threshold=0.5, max_steps=20_000, eval_size=256, n_tokens=(16, 32, 64), n_pairs=(4, 6, 8),
        fig5=Figure5Grid(n_tokens=32, n_pairs=8, B=(1, 2, 4), p=(0.0, 0.2, 0.4, 0.8), lr=1e-3, steps=8000),
        # Figure 4 without LayerNorm: lr 1e-3 only, the faster candidate at all nine points with pre-LN.
        no_ln_lrs=(1e-3,),
        # Figure 5's model and lr, 5 seeds (a layer is claimed only where most of them agree); max_steps as Figure
        # 4's grid so that its pre-LN runs at 8 pairs are shared. About 34 CPU-minutes a seed, 12 pairs the most.
        placement=PlacementGrid(n_tokens=32, n_pairs=(4, 8, 12), seeds=(0, 1, 2, 3, 4), lr=1e-3, max_steps=20_000),
    ),
    "paper": RecallGrid(
        model={"d_model": 256, "d_qk": 64, "n_layers": 4, "n_heads": 4}, lrs=(1e-5, 3e-5, 1e-4), seeds=(0, 1, 2),
        lr_probe=LrProbe(lr=3e-4, points=()), threshold=0.05, max_steps=200_000, eval_size=512,
        n_tokens=(32, 64, 128, 256), n_pairs=(8, 16, 32, 64),
        fig5=Figure5Grid(n_tokens=256, n_pairs=32, B=(1, 2, 4, 8), p=(0.0, 0.2, 0.4, 0.8), lr=1e-4, steps=150_000),
        no_ln_lrs=(1e-5, 3e-5, 1e-4),
        placement=PlacementGrid(n_tokens=256, n_pairs=(8, 16, 32), seeds=(0, 1, 2), lr=1e-4, max_steps=200_000),
    ),
}

# (layer_norm, embedding): the text's reading (pre- or post-LN) and Table 1's (no LN) with the lookup embedding,
# and no LN with nn.Linear's small initialisation. Pre- and post-LN with the linear embedding are left out (budget).
PLACEMENT_SETUPS: tuple[tuple[Literal["pre", "post", "none"], Literal["lookup", "linear"]], ...] = (
    ("pre", "lookup"), ("post", "lookup"), ("none", "lookup"), ("none", "linear"))


@dataclass(frozen=True)
class RecallFigure(ScaledFigure):
    GRIDS: ClassVar[dict[str, RecallGrid]] = RECALL_GRIDS

    def _runs(self, **kw: Any) -> list[TransformerRecallConfig]:
        g = self.grid
        base = dict(threshold=g.threshold, max_steps=g.max_steps, eval_size=g.eval_size, **g.model) | kw
        return [TransformerRecallConfig(seed=s, **base) for s in g.seeds]

    def figure5_settings(self) -> dict[str, Any]:
        """Figure 5's task, lr and budget (full-length runs)."""
        f = self.grid.fig5
        return dict(n_tokens=f.n_tokens, n_pairs=f.n_pairs, lr=f.lr, max_steps=f.steps, stop_factor=None)


@dataclass(frozen=True)
class Figure4(RecallFigure):
    """Figure 4: no repetition; every (n_tokens, n_pairs) with n_pairs < n_tokens, at every candidate lr.

    "lr_probe": a larger lr at a few points only, to show the candidates bracket the best (it is too large).
    """

    name: ClassVar[str] = "Figure 4"

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        g = self.grid
        pairs = [(V, N) for V in g.n_tokens for N in g.n_pairs if N < V]
        return {
            "grid": [r for lr in g.lrs for V, N in pairs for r in self._runs(n_tokens=V, n_pairs=N, lr=lr)],
            "lr_probe": [r for V, N in g.lr_probe.points for r in self._runs(n_tokens=V, n_pairs=N, lr=g.lr_probe.lr)],
            # Table 1's reading (no LayerNorm), for the refit of the law beside the text's (pre-LN) one.
            "grid_no_ln": [r for lr in g.no_ln_lrs for V, N in pairs
                           for r in self._runs(n_tokens=V, n_pairs=N, lr=lr, layer_norm="none")],
        }


@dataclass(frozen=True)
class Figure5(RecallFigure):
    """Figure 5 (and 16): repetition in training, full-length runs; emergence measured on test data."""

    name: ClassVar[str] = "Figure 5"

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        f, common = self.grid.fig5, self.figure5_settings()
        no_ln = dict(common, layer_norm="none")
        return {
            "B": [r for B in f.B for r in self._runs(B=B, **common)],
            "p": [r for p in f.p for r in self._runs(p=p, **common)],
            # Table 1's reading (no LayerNorm): the same settings, for the speed-ups under both readings.
            "B_no_ln": [r for B in f.B for r in self._runs(B=B, **no_ln)],
            "p_no_ln": [r for p in f.p for r in self._runs(p=p, **no_ln)],
        }


@dataclass(frozen=True)
class Figure16(Figure5):
    """Figure 16: Figure 5's runs, read on their training distribution (no runs of its own)."""

    name: ClassVar[str] = "Figure 16"


@dataclass(frozen=True)
class Figure17(RecallFigure):
    """Figure 17: induction-head attention over training: Figure 5's runs without repetition (as in the paper),
    and where copying and selection form under each set-up (`PLACEMENT_SETUPS`)."""

    name: ClassVar[str] = "Figure 17"

    def sweeps(self) -> dict[str, list[TransformerRecallConfig]]:
        return {"attention": self._runs(**self.figure5_settings()), "placement": self.placement_runs()}

    def placement_runs(self) -> list[TransformerRecallConfig]:
        """Every set-up of PLACEMENT_SETUPS × n_pairs, seed by seed (so that a cut-short sweep has whole seeds)."""
        g, pg = self.grid, self.grid.placement
        base = dict(threshold=g.threshold, eval_size=g.eval_size, **g.model)
        base |= dict(n_tokens=pg.n_tokens, lr=pg.lr, max_steps=pg.max_steps)
        return [
            TransformerRecallConfig(seed=seed, n_pairs=N, layer_norm=ln, embedding=emb, **base)
            for seed in pg.seeds for ln, emb in PLACEMENT_SETUPS for N in pg.n_pairs
        ]
