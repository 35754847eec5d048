"""What every figure config shares: a scale in, named sweeps of run configs out, run through the scale's cache.

A figure is a frozen dataclass. Its per-scale grids are one frozen dataclass per figure family
(``GRIDS[scale]``, read as ``figure.grid``); the figure's own fields named in ``OVERRIDES`` replace the
grid's field of the same name when they are not None (papermill parameters such as ``d_values``).
Every run config is built, and so validated, on creation: bad input fails before any compute.

Scales:
* ``smoke``: seconds, small grids, nothing cached (tests);
* ``cpu``: the default; a 2-core laptop in minutes; cached in ``data/``;
* ``paper_cpu``: Table 1's settings exactly (model, optimiser, learning rates, thresholds) on the cheapest points
  of the paper's own grids, sized to a few CPU-hours; cached. Only the figures whose grids list it have it
  (`ScaledFigure.has_scale`); the others refuse it by name;
* ``paper``: the paper's grids (or denser where the paper's are unknown); cached.
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

from ..cache import REPRODUCE_RTOL, OnCorrupt, ResultCache, default_data_dir, run_key
from ..configs import SCALES, ConfigError, Scale, check_int, check_probability, check_scale, normalise
from ..devices import resolve_device
from .. import checkpoints
from ..estimate import Estimate, estimate, from_store, steps_done_in
from ..sweep import LONG_WORK_HOURS, _CONFIRMED, SweepResult, _say, confirm_long_work, run_sweep  # noqa: F401  (confirm_long_work: re-exported)

SMOKE_CACHE_ENV = "EMERGENCE_SMOKE_CACHE"
# Recording density (points per decade of time) of runs that only feed plateau
# lengths: the crossing is located by re-integration (`toy.refined_plateau_length`),
# so a sparse record loses no precision and keeps data/ small. Curves that are
# plotted use the default 200.
PLATEAU_PPD = 50


def cache_for(scale: str, on_corrupt: OnCorrupt = "raise") -> ResultCache | None:
    """The cache a scale uses: ``data/`` for cpu and paper; none for smoke (always recomputed), unless
    ``$EMERGENCE_SMOKE_CACHE`` names a scratch folder, where the test command lets the smoke chapters share runs
    (never ``data/``)."""
    check_scale(scale)
    if on_corrupt not in ("raise", "recompute"):
        raise ConfigError(f"on_corrupt must be 'raise' or 'recompute', got {on_corrupt!r}")
    if scale == "smoke":
        scratch = os.environ.get(SMOKE_CACHE_ENV)
        if scratch:
            data = default_data_dir().resolve()
            where = Path(scratch).resolve()
            if where == data or data in where.parents:
                raise ConfigError(f"${SMOKE_CACHE_ENV}={scratch} is the book's data/ (or inside it): smoke runs are "
                                  "never stored there; name a scratch folder")
        return ResultCache(scratch, on_corrupt=on_corrupt) if scratch else None
    return ResultCache(on_corrupt=on_corrupt)


# A chapter's grid parameters are bounded above as well as below: `-p T_values '[10000000000]'` once kept a kernel busy
# with no end. The bounds are 16× the paper's largest value (T 4,096, d 128, B 16), and a grid holds at most 16 values.
GRID_MAXIMUM = {"T": 65_536, "d": 2_048, "B": 1_024}
MAX_GRID_VALUES = 16


def _listed(name: str, values: Any) -> Any:
    """A grid as a reader may type it on any command line: a list, a tuple, or a string of comma-separated numbers
    ("64,128", what ``papermill -p T_values 64,128`` passes); one place reads all three (issue 62 item 6)."""
    if isinstance(values, str):
        parts = [p.strip() for p in values.strip().strip("[]()").split(",") if p.strip()]
        try:
            return [float(p) if any(c in p for c in ".eE") else int(p) for p in parts]
        except ValueError:
            raise ConfigError(f"{name} must be a list of numbers (e.g. [64, 128] or 64,128), got {values!r}") from None
    return values


def int_grid(name: str, values: Sequence[int] | str, minimum: int, at_least: int = 1) -> tuple[int, ...]:
    """A sorted grid of distinct integers from ``minimum`` to the bound of its quantity (`GRID_MAXIMUM`, read from the
    name's first letter), ``at_least`` and at most `MAX_GRID_VALUES` of them, or a ConfigError naming ``name``. A grid
    a chapter fits a power law along needs ``at_least`` 2 values: one value once passed every check, computed, then
    failed in the fit."""
    maximum = GRID_MAXIMUM.get(name.removeprefix("curve_")[0], 65_536)
    listed = _listed(name, values)
    if isinstance(listed, (str, bytes)) or not hasattr(listed, "__iter__"):
        raise ConfigError(f"{name} must be a list of integers from {minimum} to {maximum:,}, got {values!r}")
    values = list(listed)
    if len(values) > MAX_GRID_VALUES:
        raise ConfigError(f"{name} must hold at most {MAX_GRID_VALUES} values, got {len(values)}")
    out = tuple(check_int(f"{name} entry", v, minimum, maximum) for v in values)
    if len(out) == 0:
        raise ConfigError(f"{name} must not be empty")
    if len(set(out)) != len(out):
        raise ConfigError(f"{name} has repeated values: {out}")
    if len(out) < at_least:
        raise ConfigError(f"{name} must hold at least {at_least} values (the chapter fits a power law along it), "
                          f"got {list(out)}")
    return tuple(sorted(out))


def p_grid(name: str, values: Sequence[float] | str) -> tuple[float, ...]:
    """A sorted, non-empty grid of probabilities in [0, 1), or a ConfigError naming ``name``."""
    values = _listed(name, values)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or len(values) == 0:
        raise ConfigError(f"{name} must be a non-empty list of probabilities in [0, 1), got {values!r}")
    if len(values) > MAX_GRID_VALUES:
        raise ConfigError(f"{name} must hold at most {MAX_GRID_VALUES} values, got {len(values)}")
    for v in values:
        try:
            check_probability(v)
        except ConfigError as exc:
            raise ConfigError(f"{name} entry: {exc}") from None
    return tuple(sorted(float(v) for v in values))


class FigureConfig:
    """Shared behaviour: every figure expands into named sweeps and runs them through its cache."""

    name: ClassVar[str]
    scale: Scale
    # A figure whose runs go in the background (`python -m emergence_lib run NAME`): chapters read what is stored
    # (`cached`), and the committed store need not hold all of them.
    BACKGROUND: ClassVar[bool] = False

    @classmethod
    def has_scale(cls, scale: str) -> bool:
        """Whether the figure has a grid at ``scale`` (every figure has smoke, cpu and paper)."""
        return scale != "paper_cpu"

    def sweeps(self) -> dict[str, list[Any]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def runs(self) -> list[Any]:
        """Every run the figure needs."""
        return [r for runs in self.sweeps().values() for r in runs]

    def run(self, progress: bool = True, device: str = "cpu", confirm_cost: bool = False) -> dict[str, SweepResult]:
        """Results of every sweep, from the scale's cache where present; missing runs train on ``device``.

        At the paper_cpu and paper scales on a machine without a GPU, missing Transformer runs are first estimated
        (`estimate`: every distinct shape timed) and refused above `LONG_WORK_HOURS` unless ``confirm_cost`` (or
        `confirm_long_work`) says yes: the same guard wherever the work starts (a chapter under papermill, a script).
        ``device`` is resolved here, once, before any compute ("auto" → "cuda" or "cpu"); the sweeps get the name."""
        device = resolve_device(device)
        cache = cache_for(self.scale)
        if cache is not None:  # every sweep's missing runs can be stored, before the first sweep computes
            cache.check_writable([r for r in self.runs() if not cache.path(r).is_file()])
        self._guard_long_work(cache, device, confirm_cost)
        # Smoke runs take milliseconds: starting a process pool (and torch in each worker) would cost more.
        executor = "serial" if self.scale == "smoke" else "local"
        return {
            # The figure's own guard above said yes or named the cheap scale; the sweep's is not asked again.
            key: run_sweep(runs, cache, progress=progress, desc=f"{self.name} {key}", device=device, executor=executor,
                           confirm_cost=True, check_host=self.scale != "smoke")
            for key, runs in self.sweeps().items()
        }

    def _guard_long_work(self, cache: ResultCache | None, device: str, confirm_cost: bool) -> None:
        if self.scale not in ("paper_cpu", "paper") or cache is None or confirm_cost or _CONFIRMED["long_work"]:
            return
        if device != "cpu":  # resolved by `run`
            return
        missing = [r for r in {run_key(r): r for r in self.runs()}.values()
                   if r.kind in ("transformer_regression", "transformer_recall") and not cache.path(r).exists()]
        if not missing:
            return
        # A line per shape: timing takes seconds each, minutes in all. A run resumed from a checkpoint costs what it
        # has left.
        est = estimate(missing, progress=_say, done=steps_done_in(checkpoints.resume_folder(cache.root)))
        if est.expected_hours > LONG_WORK_HOURS:
            raise ConfigError(
                f"{self.name} at scale {self.scale!r} on a machine without a GPU: {est.describe()}. Say yes with "
                f"-p confirm_cost True (a chapter), run(confirm_cost=True) (Python) or `python -m emergence_lib run "
                f"FIGURE --scale {self.scale}{' --yes' if self.scale == 'paper' else ''}` (which proceeds); or run the "
                f"cheap scale instead: -p scale cpu")

    def cached(self) -> tuple[dict[str, SweepResult], int, int]:
        """The sweeps' runs that the scale's cache holds, computing nothing: (results, runs cached, runs needed).
        For a scale that runs in the background (paper_cpu) a chapter shows what is done and says how much."""
        cache = cache_for(self.scale)
        sweeps = self.sweeps()
        if cache is None:
            return {key: run_sweep([], None, progress=False) for key in sweeps}, 0, len(self.runs())
        have = {key: [r for r in runs if cache.path(r).exists()] for key, runs in sweeps.items()}
        results = {key: run_sweep(runs, cache, progress=False) for key, runs in have.items()}
        keys = {cache.path(r) for r in self.runs()}
        return results, sum(1 for k in keys if k.exists()), len(keys)

    def price(self, runs: Sequence[Any] | None = None, reference: Sequence["FigureConfig"] = ()) -> Estimate | None:
        """What ``runs`` (by default every run of the figure) cost where they are not stored yet, priced from the
        stored runs alone, this figure's and ``reference``'s (figures at the same points), and never timed
        (`estimate.from_store`): what a chapter can say a missing run costs without computing anything. None where
        nothing is missing, or a shape has no stored run."""
        cache = cache_for(self.scale)
        if cache is None:
            return None
        every = list({run_key(r): r for r in self.runs()}.values())
        wanted = {run_key(r) for r in (every if runs is None else runs)}
        missing = [r for r in every if run_key(r) in wanted and not cache.path(r).exists()]
        others = [r for fig in reference for r in fig.runs()]
        stored = list({run_key(r): r for r in every + others if cache.path(r).exists()}.values())
        return from_store(missing, stored, cache, time_new_shapes=False) if missing else None

    def devices(self) -> dict[str, int]:
        """How many of the figure's stored runs trained on each device (each file's ``meta.device``: "cpu",
        "cuda", ...), so that a chapter can say where its numbers were computed; a GPU rounds differently."""
        cache = cache_for(self.scale)
        counts: dict[str, int] = {}
        for path in {cache.path(r) for r in self.runs()} if cache is not None else ():
            if path.is_file():
                device = str(json.loads(path.read_text()).get("meta", {}).get("device", "cpu")).split(":")[0]
                counts[device] = counts.get(device, 0) + 1
        return counts


def devices_sentence(counts: dict[str, int]) -> str:
    """'33 of 38 stored runs trained on a GPU (meta device "cuda"), the rest on a CPU; ...' or the like, from
    `FigureConfig.devices`."""
    total = sum(counts.values())
    gpu = total - counts.get("cpu", 0)  # "cuda" or "mps": not this CPU's rounding
    if gpu == 0:
        return f"All {total} stored runs trained on a CPU." if total else "No run is stored yet."
    where = (f"All {total} stored runs trained on a GPU" if gpu == total else
             f"{gpu} of {total} stored runs trained on a GPU (meta device \"cuda\"), the rest on a CPU")
    return (f"{where}; a GPU rounds differently, so the verify command checks those runs by their checksums. "
            f"Recomputed on a CPU, GPU runs agree to the tolerance between two CPUs "
            f"({REPRODUCE_RTOL['transformer_regression']:g}): a test checks the cheapest regression run, and one "
            f"run of each Transformer kind was checked by hand (see Methods).")


@dataclass(frozen=True)
class ScaledFigure(FigureConfig):
    """A figure whose grids are one frozen dataclass per scale (``GRIDS[scale]``, read as ``self.grid``),
    with the figure's fields in ``OVERRIDES`` (None: the scale's value) replacing the grid's of the same name."""

    GRIDS: ClassVar[Mapping[str, Any]]
    OVERRIDES: ClassVar[tuple[str, ...]] = ()

    scale: Scale = "cpu"

    @classmethod
    def has_scale(cls, scale: str) -> bool:
        return scale in cls.GRIDS

    def __post_init__(self) -> None:
        check_scale(self.scale)
        if not self.has_scale(self.scale):
            have = sorted({c.name for c in _all_subclasses(ScaledFigure)
                           if hasattr(c, "GRIDS") and hasattr(c, "name") and c.has_scale(self.scale)})
            raise ConfigError(f"{self.name} has no {self.scale!r} grid; scales it has: "
                              f"{[s for s in SCALES if self.has_scale(s)]}; figures with a {self.scale!r} grid: {have}")
        self.check()
        self.runs()  # build every run config now, so that any bad value fails here, before compute

    def check(self) -> None:
        """Validate the figure's own fields (the grid validates itself)."""

    @property
    def grid(self) -> Any:
        base = self.GRIDS[self.scale]
        given = {name: getattr(self, name) for name in self.OVERRIDES if getattr(self, name) is not None}
        return dataclasses.replace(base, **given) if given else base


def _all_subclasses(cls: type[ScaledFigure]) -> set[type[ScaledFigure]]:
    return {s for c in cls.__subclasses__() for s in {c} | _all_subclasses(c)}


def normalise_grid(grid: object, **checked: object) -> None:
    """Store a grid dataclass's validated values (sorted tuples, ints) in place."""
    for name, value in checked.items():
        normalise(grid, name, value)
