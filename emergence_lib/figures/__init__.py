"""One small config per figure: a scale in, the runs out (`base`). The figure-to-code map is one lookup,
`figures()["figure3"]` is `Figure3`; modules follow the chapters:

  base          FigureConfig, ScaledFigure, the scale's cache, grid validators
  paper         every number the paper reports (labelled reference values only)
  toy           Figures 1, 2 and the Figure 2 constant (chapters 01, 02)
  toy_appendix  Figures 6–10 (A1, A2)
  regression    Figures 3, 11, 12 (03, A3)
  recall        Figures 4, 5, 16, 17 (04, A5)
  ablations     Figures 13–15 (A4)
  beyond        the book's own experiments: steering (B1) and prediction (B2)
  followup      a 2026 follow-up's claims tested on these tasks (B3)

Nothing in this package imports the analysis modules (`tables`, `beyond`, `prediction`); they import it.
"""

from __future__ import annotations

from .base import PLATEAU_PPD, SMOKE_CACHE_ENV, FigureConfig, ScaledFigure, cache_for, confirm_long_work
from .ablations import ABLATION_GRIDS, TASK_VARIANTS, Figure13, Figure14, Figure15
from .beyond import HELD_OUT, STEERING_GRIDS, Prediction, Steering
from .followup import FOLLOWUP_GRIDS, HEAD_PROTOCOLS, FollowUp
from .paper import PAPER
from .recall import PLACEMENT_SETUPS, RECALL_GRIDS, Figure4, Figure5, Figure16, Figure17
from .regression import TRANSFORMER_GRIDS, Figure3, Figure11, Figure12
from .toy import FIGURE1_GRIDS, FIGURE2_GRIDS, Figure1, Figure2, Figure2Constant
from .toy_appendix import Figure6, Figure7, Figure8, Figure9, Figure10

REGISTRY: dict[str, type[ScaledFigure]] = {
    "figure1": Figure1, "figure2": Figure2, "figure2_constant": Figure2Constant,
    "figure3": Figure3, "figure4": Figure4, "figure5": Figure5,
    "figure6": Figure6, "figure7": Figure7, "figure8": Figure8, "figure9": Figure9, "figure10": Figure10,
    "figure11": Figure11, "figure12": Figure12, "figure13": Figure13, "figure14": Figure14, "figure15": Figure15,
    "figure16": Figure16, "figure17": Figure17,
    "steering": Steering, "prediction": Prediction, "followup": FollowUp,
}


def figures() -> dict[str, type[ScaledFigure]]:
    """Figure name → figure config class (the command line and tests iterate over it)."""
    return dict(REGISTRY)


__all__ = [
    "PLATEAU_PPD", "SMOKE_CACHE_ENV", "FigureConfig", "ScaledFigure", "cache_for", "confirm_long_work",
    "ABLATION_GRIDS", "TASK_VARIANTS", "Figure13", "Figure14", "Figure15",
    "HELD_OUT", "STEERING_GRIDS", "Prediction", "Steering",
    "FOLLOWUP_GRIDS", "HEAD_PROTOCOLS", "FollowUp", "PAPER",
    "PLACEMENT_SETUPS", "RECALL_GRIDS", "Figure4", "Figure5", "Figure16", "Figure17",
    "TRANSFORMER_GRIDS", "Figure3", "Figure11", "Figure12",
    "FIGURE1_GRIDS", "FIGURE2_GRIDS", "Figure1", "Figure2", "Figure2Constant",
    "Figure6", "Figure7", "Figure8", "Figure9", "Figure10",
    "REGISTRY", "figures",
]
