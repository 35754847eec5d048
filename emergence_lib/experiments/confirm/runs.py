"""Fresh-seed confirmations of the laptop grid's thinnest pinned verdicts (issue 36 item 3): `Confirm`, registry
name ``confirm``, scales smoke and cpu. Registered (``claims``, ``confirm.*``) in a commit before any of its runs;
judged on these seeds alone.

* Figure 5's two speed-ups at the levels the pinned verdicts rest on: B = 2 (pinned "reproduced" at 2.89 against a
  band floor of 2.83, on 2 seeds) and p = 0.4, each against no repetition, with seeds 10-14 (5 seeds, paired by
  seed), Figure 5's laptop settings (N_tokens 32, N_pairs 8, lr 10⁻³, 8,000 steps, full length).
* The laptop Figure 3 grid (T and B sweeps, width 64, lr 10⁻³) with seeds 10-12, its joint law fitted to point
  means (each point once, intervals on the fit's residual degrees of freedom).

Cost on this machine, one core, from the stored seeds 0-1 of the same configs: about 2 CPU-hours for Figure 5's 15
runs and 3 for Figure 3's 84. Left out: Figure 13's heads and layers exponents (81 points at one seed: about 10
CPU-hours for 3 fresh seeds) and Figure 4's exponents with a larger learning rate at every point (a 3 × 3 grid at
two rates, about 8 CPU-hours).

The chapters read what is stored (`BACKGROUND`); `python -m emergence_lib run confirm` computes the runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..base import ScaledFigure
from ..recall.runs import Figure5
from ..regression.runs import Figure3


@dataclass(frozen=True)
class ConfirmGrid:
    fig5_seeds: tuple[int, ...]
    fig5_B: int  # the in-context level the pinned verdict rests on
    fig5_p: float  # the cross-sample level
    fig3_seeds: tuple[int, ...]

    def describe(self) -> dict[str, Any]:
        return {"Figure 5 seeds": self.fig5_seeds, "Figure 5 levels": f"B = {self.fig5_B}, p = {self.fig5_p}",
                "Figure 3 seeds": self.fig3_seeds}


CONFIRM_GRIDS = {
    "smoke": ConfirmGrid(fig5_seeds=(10, 11), fig5_B=2, fig5_p=0.4, fig3_seeds=(10, 11)),
    "cpu": ConfirmGrid(fig5_seeds=(10, 11, 12, 13, 14), fig5_B=2, fig5_p=0.4, fig3_seeds=(10, 11, 12)),
}


@dataclass(frozen=True)
class Confirm(ScaledFigure):
    """Fresh seeds for Figure 5's two speed-ups and the laptop Figure 3 law: the configs of those figures' own
    sweeps at this scale, with new seed numbers."""

    name: ClassVar[str] = "Fresh-seed confirmations"
    GRIDS: ClassVar[dict[str, ConfirmGrid]] = CONFIRM_GRIDS
    BACKGROUND: ClassVar[bool] = True  # chapters read what is stored; the runs go in the background

    def sweeps(self) -> dict[str, list[Any]]:
        g = self.grid
        fig5 = Figure5(scale=self.scale).sweeps()
        base5 = [r for r in fig5["B"] if r.B == 1 and r.seed == 0]
        assert len(base5) == 1  # Figure 5's settings, no repetition
        none = base5[0]
        fig3 = Figure3(scale=self.scale).sweeps()
        first_seed = min(r.seed for r in fig3["T"])
        points3 = [r for key in ("T", "B") for r in fig3[key] if r.seed == first_seed]
        return {
            "figure5": [replace(none, seed=s, **kw) for kw in ({}, {"B": g.fig5_B}, {"p": g.fig5_p})
                        for s in g.fig5_seeds],
            "figure3": [replace(r, seed=s) for r in points3 for s in g.fig3_seeds],
        }
