"""emergence_lib: the shared library of the book reproducing Zucchet et al. (2025),
"The emergence of sparse attention: impact of data distribution and benefits of repetition".

Modules, one concern each:
  toy          reduced theory of the toy model (Eqs. 3–14): losses, gradients, flow, linearisation
  toy_full     the full toy model of Eq. 2 on its exact expected loss
  toy_cross_sample  the 3-D reduced model of cross-sample repetition (Eqs. 17–21)
  toy_sgd      the toy model trained by SGD on sampled sequences
  tasks        single-location regression for Transformers
  transformer  a small Transformer with an ensemble dimension (one member per seed)
  training     the Transformer training loop: one core, regression and recall plugged in
  attention    attention recordings: (evaluation, layer, head) arrays, and how a run's file stores them
  ode          the vectorised adaptive integrator behind the reduced flows
  metrics      plateau_length, fit_power_law
  configs      validated run configs (one dataclass per kind of run)
  runs         run configs → results
  cache        per-run results in data/, keyed and atomic
  sweep        list of configs → tidy tables, through the cache
  executors    where a sweep's chunks run: serial, a local process pool, or Dask
  cli          the command line: python -m emergence_lib run | status | clear | verify | prune | migrate | execute | prepare
  notebooks    chapters with parameters, through papermill
  experiments  one folder per experiment (toy, toy_appendix, regression, recall, ablations, steering, prediction,
               followup), each with runs.py (grids → run configs), read.py (tables from results) and show.py
               (the chapter's figures, glued numbers and claims); `experiments.figures()` maps names to configs
  paper        every number the paper reports (labelled reference values)
  plotting     the book's style and standard panels
  claims       the registry of the paper's claims and how each is judged
  scorecard    the landing page's tables: every claim's verdict at each scale, the differences from the paper
  report       what a chapter shows: titled tables, glued figures and numbers
  schedules    data-diversity schedules: how much repetition is on at each step (constant, step, triggered, annealed)
"""

__version__ = "0.1.0"

from .configs import SCALES, ConfigError, ToyFlowConfig  # noqa: E402
from .metrics import NOT_REACHED, PowerLawFit, compare_fits, fit_offset_power_law, fit_power_law, plateau_length, reached  # noqa: E402

__all__ = [
    "SCALES",
    "ConfigError",
    "ToyFlowConfig",
    "NOT_REACHED",
    "PowerLawFit",
    "fit_power_law",
    "fit_offset_power_law",
    "compare_fits",
    "plateau_length",
    "reached",
]
