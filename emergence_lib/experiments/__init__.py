"""The book's experiments, one folder each; the figure-to-code map is one lookup, `figures()["figure3"]` is
`Figure3`. Each folder holds three files:

  runs.py   the figure configs: a scale in, typed grids, the run configs out (`base.ScaledFigure`)
  read.py   readers: tidy tables from the sweep results (seed means, fits, crossings); they train nothing, except
            prediction/read.py, whose laws read Figures 3 and 4 through their figures (at smoke, computing them)
  show.py   what a chapter shows: its figures, tables and glued numbers, and the claims it judges (chapters 01-03
            draw and judge part of theirs in the notebook)

  toy           Figures 1, 2 and the Figure 2 constant (chapters 01, 02)
  toy_appendix  Figures 6–10 (A1, A2; its readers live beside its views in show.py)
  regression    Figures 3, 11, 12 and Table 1's own settings at the cheap end (03, A3)
  table1        Table 1's own model where the paper measured: Figure 3 at T = 128-256 (03)
  table1_joint  Figure 3's law as the paper measured it (one joint fit over its grid), on fresh seeds (03)
  unsaid        the paper's unstated choices read another way, on Table 1's models (B4; regression and recall)
  unsaid_recall the recall task's unstated choices read another way (B4's second screen)
  bend          the shape of Figure 3's law on fresh seeds (collapse, bend) and the d = 16 screen of choices (03, B4)
  recall_table1 Table 1's recall model at the paper's cheap end: Figures 4, 5, 16, 17 (04, A5)
  ablations_table1  Figures 14, 15 at Table 1's width (A4)
  confirm       fresh-seed confirmations of the laptop grid's thinnest pinned verdicts (03, 04)
  recall        Figures 4, 5, 16, 17 (04, A5)
  ablations     Figures 13–15 (A4)
  steering      the book's own experiment: data-diversity schedules (B1)
  prediction    the book's own experiment: predicting emergence before training (B2)
  followup      a 2026 follow-up's claims tested on these tasks (B3)

From a chapter to the training loop, each step naming the next:

  chapter: ctx = chapter_context(scale, device, confirm_cost); ctx.run(Figure3(scale=scale))
  → context.Context.run → base.FigureConfig.run (the scale's cache; the device resolved; the long-work guard)
  → sweep.run_sweep (stored runs read, missing ones claimed) → executors.run_chunks → runs.KINDS[kind].run
  → training.train_regression / train_recall → training.train_ensemble (the loop)

`base` holds what every experiment shares: FigureConfig, ScaledFigure, the scale's cache, grid validators;
`context` the `Context` a chapter hands its show functions (scale, device, tolerances).
The paper's numbers are in `emergence_lib.paper`. Nothing in a runs.py imports a read.py or show.py, and no
read.py imports a show.py: the imports go runs → read → show (tests/test_structure.py).
"""

from __future__ import annotations

from typing import Any

from ..configs import ConfigError, check_scale
from ..devices import check_device_name
from .base import PLATEAU_PPD, SMOKE_CACHE_ENV, FigureConfig, ScaledFigure, cache_for, confirm_long_work
from .context import Context, chapter_context
from .ablations.runs import ABLATION_GRIDS, TASK_VARIANTS, Figure13, Figure14, Figure15
from .followup.runs import FOLLOWUP_GRIDS, HEAD_PROTOCOLS, FollowUp
from .prediction.runs import HELD_OUT, Prediction
from .recall.runs import PLACEMENT_SETUPS, RECALL_GRIDS, Figure4, Figure5, Figure16, Figure17
from .regression.runs import TRANSFORMER_GRIDS, Figure3, Figure11, Figure12
from .table1.runs import MEASURED_GRIDS, Figure3Measured
from .table1_joint.runs import FRESH_GRIDS, Figure3Fresh
from .bend.runs import SCREEN_GRIDS, Screen16
from .unsaid.runs import UNSAID_GRIDS, Unsaid
from .unsaid_recall.runs import UNSAID_RECALL_GRIDS, UnsaidRecall
from .recall_table1.runs import RECALL_MEASURED_GRIDS, RecallMeasured
from .ablations_table1.runs import ABLATIONS_MEASURED_GRIDS, AblationsMeasured
from .confirm.runs import CONFIRM_GRIDS, Confirm
from .steering.runs import STEERING_GRIDS, Steering
from .toy.runs import FIGURE1_GRIDS, FIGURE2_GRIDS, Figure1, Figure2, Figure2Constant
from .toy_appendix.runs import Figure6, Figure7, Figure8, Figure9, Figure10

REGISTRY: dict[str, type[ScaledFigure]] = {
    "figure1": Figure1, "figure2": Figure2, "figure2_constant": Figure2Constant,
    "figure3": Figure3, "figure3_measured": Figure3Measured, "figure3_fresh": Figure3Fresh, "unsaid": Unsaid,
    "screen16": Screen16,
    "unsaid_recall": UnsaidRecall, "figure4": Figure4, "figure5": Figure5,
    "figure6": Figure6, "figure7": Figure7, "figure8": Figure8, "figure9": Figure9, "figure10": Figure10,
    "figure11": Figure11, "figure12": Figure12, "figure13": Figure13, "figure14": Figure14, "figure15": Figure15,
    "figure16": Figure16, "figure17": Figure17, "recall_measured": RecallMeasured,
    "ablations_measured": AblationsMeasured, "confirm": Confirm,
    "steering": Steering, "prediction": Prediction, "followup": FollowUp,
}


# The figures whose grids a chapter's own parameters override (the others take scale, device and confirm_cost only):
# chapter → (figure name, parameter names). Building the figure validates every value, before any kernel starts.
CHAPTER_GRID_PARAMETERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "01_toy_model": ("figure1", ("T_values", "d_values")),
    "02_repetition_toy": ("figure2", ("d_values", "B_values", "p_values")),
}


def check_chapter_parameters(chapter_name: str, defaults: dict[str, Any], given: dict[str, Any]) -> None:
    """Every parameter of a chapter, checked as the chapter would check it, before its kernel starts (`cli`
    ``execute`` and ``prepare``): scale, device, confirm_cost, and the grids a chapter's parameters override. A
    ConfigError names the parameter and what is allowed."""
    values = {**defaults, **given}
    if "scale" in values:
        check_scale(values["scale"])
    if "device" in values:
        check_device_name(values["device"])
    if "confirm_cost" in values and not isinstance(values["confirm_cost"], bool):
        raise ConfigError(f"confirm_cost must be True or False, got {values['confirm_cost']!r}")
    if chapter_name in CHAPTER_GRID_PARAMETERS and "scale" in values:
        name, params = CHAPTER_GRID_PARAMETERS[chapter_name]
        cls = figures()[name]
        if cls.has_scale(values["scale"]):
            cls(scale=values["scale"], **{k: values[k] for k in params if k in values})


def figures() -> dict[str, type[ScaledFigure]]:
    """Figure name → figure config class (the command line and tests iterate over it)."""
    return dict(REGISTRY)


__all__ = [
    "PLATEAU_PPD", "SMOKE_CACHE_ENV", "FigureConfig", "ScaledFigure", "cache_for", "confirm_long_work", "Context", "chapter_context",
    "ABLATION_GRIDS", "TASK_VARIANTS", "Figure13", "Figure14", "Figure15",
    "HELD_OUT", "STEERING_GRIDS", "Prediction", "Steering",
    "FOLLOWUP_GRIDS", "HEAD_PROTOCOLS", "FollowUp",
    "PLACEMENT_SETUPS", "RECALL_GRIDS", "Figure4", "Figure5", "Figure16", "Figure17",
    "MEASURED_GRIDS", "FRESH_GRIDS", "Figure3Fresh", "UNSAID_GRIDS", "Unsaid", "UNSAID_RECALL_GRIDS", "UnsaidRecall", "SCREEN_GRIDS", "Screen16", "RECALL_MEASURED_GRIDS", "RecallMeasured", "ABLATIONS_MEASURED_GRIDS", "AblationsMeasured", "CONFIRM_GRIDS", "Confirm", "TRANSFORMER_GRIDS", "Figure3", "Figure3Measured", "Figure11", "Figure12",
    "FIGURE1_GRIDS", "FIGURE2_GRIDS", "Figure1", "Figure2", "Figure2Constant",
    "Figure6", "Figure7", "Figure8", "Figure9", "Figure10",
    "REGISTRY", "figures",
]
