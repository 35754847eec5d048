"""Sweeps: a list of run configs in, tidy tables out, with the cache in between.

    result = run_sweep(configs, cache=ResultCache())
    result.summary   # one row per run: config fields + summary (e.g. plateau_length)
    result.curves    # long format: config fields + one row per recorded time

Every cached run is checked before anything is computed (so a bad cache file
stops the sweep at once), missing runs are computed in chunks and each is
written as soon as its chunk finishes, so an interrupted sweep resumes where it
stopped. Concurrent sweeps on one store claim each run before computing it
(lock files, see `locks`), so every run is computed once.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Literal, Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm

from . import __version__, attention, checkpoints, checkpoints_legacy
from .cache import ResultCache, config_dict, machine_fingerprint, run_key
from .host import check_precision
from .results import RunResult
from .devices import resolve_device
from .locks import Refresher, claim, describe, lock_path, refresh, release
from .metrics import first_crossing
from .executors import check_executor, run_chunks
from .runs import kind_of


@dataclass
class SweepResult:
    summary: pd.DataFrame
    curves: pd.DataFrame
    n_cached: int
    n_computed: int

    def __repr__(self) -> str:
        return f"SweepResult({len(self.summary)} runs: {self.n_cached} from cache, {self.n_computed} computed)"

    def per_run(self) -> Iterator[tuple[pd.Series, pd.DataFrame]]:
        """(summary row, curve table) for each run, in the sweep's order."""
        for run_id, curve in self.curves.groupby("run", sort=False):
            yield self.summary.loc[self.summary["run"] == run_id].iloc[0], curve

    def subset(self, runs: Sequence[str] | pd.Series) -> "SweepResult":
        """The same result restricted to the runs (ids) ``runs``, e.g. the best learning rate's."""
        keep = set(runs)
        return SweepResult(self.summary[self.summary["run"].isin(keep)].reset_index(drop=True),
                           self.curves[self.curves["run"].isin(keep)].reset_index(drop=True), self.n_cached, self.n_computed)

    @staticmethod
    def training_distribution(curve: pd.DataFrame, measure: str = "loss") -> pd.Series:
        """A run's ``measure`` ("loss" or "accuracy") on its training distribution. A run without repetition
        records none: its training distribution is its test data (regression: "no_repetition"; recall: "test")."""
        test = curve[f"{measure}_test"] if f"{measure}_test" in curve else curve[f"{measure}_no_repetition"]
        column = f"{measure}_train_distribution"
        return curve[column].fillna(test) if column in curve else test

    def crossings(self, column: str, level: float | Callable[[pd.Series], float], into: str = "crossing",
                  time: str = "step", direction: Literal["down", "up"] = "down", log: bool = False) -> pd.DataFrame:
        """The summary with, per run, the first ``time`` at which curve ``column`` crosses ``level`` (a number, or
        a function of the run's summary row) in ``direction``, in column ``into`` (NOT_REACHED if never), and
        ``reached``. ``column`` may be "train_distribution_loss"/"train_distribution_accuracy"
        (`training_distribution`)."""
        found: dict[str, tuple[float, float]] = {}  # run → (crossing, level)
        for row, curve in self.per_run():
            lvl = level(row) if callable(level) else level
            if column.startswith("train_distribution_"):
                series = self.training_distribution(curve, column.removeprefix("train_distribution_"))
            else:
                series = curve[column]
            found[row["run"]] = (first_crossing(curve[time].to_numpy(), series.to_numpy(), lvl, direction=direction, log=log), lvl)
        out = self.summary.copy()
        out[into] = [found[run][0] for run in out["run"]]
        out["reached"] = np.isfinite(out[into])
        if callable(level):
            out["level"] = [found[run][1] for run in out["run"]]
        return out

    def attention(self) -> pd.DataFrame:
        """Every attention recording of every run, tidy (`attention.tidy`), with the run and its seed."""
        frames = [attention.tidy(curve).assign(run=row["run"], seed=int(row["seed"])) for row, curve in self.per_run()]
        return pd.concat(frames, ignore_index=True)


# Above this many expected CPU-hours, missing Transformer runs on a CPU are refused unless the caller said yes
# (``confirm_cost``, or `confirm_long_work` for the process): the one guard all training passes (issue 37 item 3).
LONG_WORK_HOURS = 1.0
_CONFIRMED = {"long_work": False}
TRANSFORMER_KINDS = ("transformer_regression", "transformer_recall")
# A ceiling on a step's time, from its multiply-adds at a rate any CPU here beats, plus a fixed cost a step: a cheap
# first test, so that small sweeps (the smoke chapters, the tests) never pay for timing their shapes. It must be a
# ceiling: a floor (the fastest rate) waived work that really takes hours (a hostile round found it).
SLOWEST_FLOPS = 1e9
STEP_OVERHEAD_S = 0.05


def confirm_long_work(yes: bool) -> None:
    """Say, for this process, whether long work on a CPU may start without asking again (a chapter's
    ``confirm_cost`` parameter calls this)."""
    from .configs import ConfigError

    if not isinstance(yes, bool):
        raise ConfigError(f"confirm_cost must be True or False, got {yes!r}")
    _CONFIRMED["long_work"] = yes


def _step_ceiling_seconds(c: Any) -> float:
    """The most a training step of ``c`` takes: 6 × (weights + attention) multiply-adds a token at `SLOWEST_FLOPS`,
    plus `STEP_OVERHEAD_S`."""
    width, layers = getattr(c, "d_model", 64), getattr(c, "n_layers", 1)
    seq = getattr(c, "T", None) or (2 * getattr(c, "n_pairs", 1) + 1) * max(1, getattr(c, "B", 1))
    tokens = c.batch_size * seq
    return 6 * 12 * layers * width * width * tokens * (1 + seq / (6 * width)) / SLOWEST_FLOPS + STEP_OVERHEAD_S


def _say(line: str) -> None:
    """A progress line of the long-work estimate, on stderr (stdout may be a table a caller reads)."""
    import sys

    print(f"estimating the CPU time first: {line}", file=sys.stderr, flush=True)


def guard_long_work(missing: Sequence[Any], device: str, confirm_cost: bool, folder: Path | None = None) -> None:
    """Refuse, before any compute, missing Transformer runs on a CPU estimated above `LONG_WORK_HOURS`, unless the
    caller (``confirm_cost``) or the process (`confirm_long_work`) said yes. Wherever the work starts: a figure, a
    chapter's ``ctx.sweep``, ``predict_emergence``, a script. A run with a checkpoint in ``folder`` costs what it
    has left."""
    if confirm_cost or _CONFIRMED["long_work"] or not str(device).startswith("cpu"):
        return
    transformer = [c for c in missing if getattr(c, "kind", None) in TRANSFORMER_KINDS]
    if not transformer:
        return
    from .configs import ConfigError
    from .estimate import estimate, steps_done_in

    done = steps_done_in(folder)
    if sum((c.max_steps - min(done(c), c.max_steps)) * _step_ceiling_seconds(c) for c in transformer) < LONG_WORK_HOURS * 3600:
        return  # even at its most steps and at a rate every CPU here beats, it is short
    est = estimate(transformer, progress=_say, done=done)  # a line per shape: timing takes seconds each, minutes in all
    if est.expected_hours > LONG_WORK_HOURS:
        raise ConfigError(f"{est.describe()}, on a machine without a GPU: say yes with confirm_cost=True (a chapter's "
                          "-p confirm_cost True, or emergence_lib.experiments.confirm_long_work(True)), or run it "
                          "with `python -m emergence_lib run FIGURE --scale SCALE`, which prints the estimate first")


def run_sweep(
    configs: Sequence[Any],
    cache: ResultCache | None = None,
    progress: bool = True,
    desc: str = "runs",
    device: str = "cpu",
    executor: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    poll_s: float = 2.0,
    confirm_cost: bool = False,
    check_host: bool = True,
) -> SweepResult:
    """Results for every config: read from ``cache`` where present, computed otherwise.

    With ``cache=None`` nothing is read or written (used by the smoke scale).
    Duplicate configs are computed once. Missing runs are computed in the
    chunks their kind asks for (`runs.KINDS`) through ``executor``
    ("local" process pool, "serial", or "dask" with an optional ``scheduler``
    address; see `executors`), and each chunk is saved as soon as it finishes:
    an interrupted sweep loses only the chunks in flight.
    ``device`` ("cpu", "cuda", "auto") is resolved and checked before anything runs and
    is where Transformer runs train; it is not part of a run's cache key. ``check_host`` False lets bfloat16 runs
    train on a CPU whose bfloat16 is slow (the smoke scale's tiny models: seconds whatever the precision).
    Runs that another live sweep has claimed (`locks`) are awaited, checking every ``poll_s`` seconds.
    Missing Transformer runs estimated above `LONG_WORK_HOURS` on a CPU are refused first (`guard_long_work`)
    unless ``confirm_cost``.
    """
    device = resolve_device(device)
    check_executor(executor, workers)
    configs = list(configs)
    unique: dict[str, Any] = {}
    for c in configs:
        unique.setdefault(run_key(c), c)
    results = _stored(unique, cache)  # every stored run read (and validated) before any compute
    missing = [(k, c) for k, c in unique.items() if k not in results]
    checkpoints.every_s()  # a bad $EMERGENCE_CHECKPOINT_EVERY_S is named before any compute
    if missing and cache is not None:  # a first-format checkpoint is not resumed: said before the run starts over
        checkpoints_legacy.say_not_resumed(checkpoints.resume_folder(cache.root), [k for k, _ in missing])
    if check_host and device == "cpu":  # bfloat16 where it is slower than float32: refused before any compute
        check_precision([c for _, c in missing])
    guard_long_work([c for _, c in missing], device, confirm_cost,
                    checkpoints.resume_folder(cache.root) if cache is not None else None)
    work = _Computation(cache, results, device, executor, workers, scheduler)
    mine, theirs = work.claim(missing)
    # Long runs checkpoint beside the store they are saved to (`checkpoints`); pool workers inherit the setting.
    with checkpoints.folder_set(cache.root if cache is not None else None):
        _compute_and_wait(work, mine, theirs, missing, desc, progress, poll_s)
    return SweepResult(summary=_summary_table(configs, results), curves=_curve_table(configs, results),
                       n_cached=len(unique) - work.n_computed, n_computed=work.n_computed)


def _compute_and_wait(work: "_Computation", mine: list, theirs: list, missing: list, desc: str, progress: bool,
                      poll_s: float) -> None:
    try:
        with tqdm(total=len(missing), initial=len(missing) - len(mine) - len(theirs), desc=desc,
                  disable=not (progress and missing), unit="run") as bar, Refresher(work.held_locks):
            work.compute(mine, bar)
            work.await_others(theirs, bar, poll_s)
    finally:
        work.release_all()


def _stored(unique: dict[str, Any], cache: ResultCache | None) -> dict[str, RunResult]:
    """The runs ``cache`` holds (each read and validated: a bad file stops the sweep before any compute)."""
    if cache is None:
        return {}
    return {key: hit for key, c in unique.items() if (hit := cache.load(c)) is not None}


class _Computation:
    """A sweep's missing runs: each claimed before it is computed (`locks`: concurrent sweeps on one store compute
    each run once), computed in chunks through the executor, and stored as soon as its chunk finishes."""

    def __init__(self, cache: ResultCache | None, results: dict[str, RunResult], device: str, executor: str,
                 workers: int | None, scheduler: str | None):
        self.cache, self.results = cache, results
        self.device, self.executor, self.workers, self.scheduler = device, executor, workers, scheduler
        self.held: dict[str, Path] = {}  # run key → the lock this sweep holds on it
        self.n_computed = 0
        self.t0 = time.perf_counter()

    def held_locks(self) -> list[Path]:
        return list(self.held.values())

    def claim(self, missing: list[tuple[str, Any]]) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """(runs this sweep computes, runs another live sweep holds). Without a cache every missing run is ours."""
        if self.cache is None:
            return missing, []
        if missing:
            self.cache.check_writable([c for _, c in missing])  # a run that cannot be stored is not started
        states = {k: self._claim_or_load(k, c) for k, c in missing}
        return ([(k, c) for k, c in missing if states[k] == "mine"], [(k, c) for k, c in missing if states[k] == "theirs"])

    def _claim_or_load(self, k: str, c: Any) -> str:
        """Claim run ``c``: 'mine' (compute it), 'done' (another sweep stored it meanwhile: loaded) or 'theirs'."""
        assert self.cache is not None  # called only with a cache
        lock = lock_path(self.cache.path(c))
        if not claim(lock):
            return "theirs"
        if (hit := self.cache.load(c)) is not None:
            self.results[k] = hit
            release(lock)
            return "done"
        self.held[k] = lock
        return "mine"

    def compute(self, todo: list[tuple[str, Any]], bar: tqdm) -> None:
        by_kind: dict[str, list[Any]] = defaultdict(list)
        for _, c in todo:
            by_kind[c.kind].append(c)
        chunks = [(kind, chunk) for kind, cs in by_kind.items() for chunk in kind_of(kind).chunks(cs, self.device)]
        for i, out in run_chunks(chunks, self.executor, self.device, self.workers, self.scheduler):
            kind, chunk = chunks[i]
            checkpoint = checkpoints.Checkpoint.for_configs(chunk)
            for c, r in zip(chunk, out):
                key = run_key(c)
                self.results[key] = r
                if self.cache is not None:
                    meta = {"library_version": __version__, "device": self.device, "executor": self.executor,
                            "machine": machine_fingerprint(),  # decides rounding: a recompute elsewhere is checked to a tolerance
                            "sweep_seconds_so_far": round(time.perf_counter() - self.t0, 3)} | r.host
                    self.cache.save(c, r, meta=meta)
                    release(self.held.pop(key))
            if checkpoint is not None and self.cache is not None:  # the results are stored: the state is not needed
                checkpoint.remove()
            refresh(self.held_locks())
            bar.update(len(chunk))
        self.n_computed += len(todo)

    def await_others(self, theirs: list[tuple[str, Any]], bar: tqdm, poll_s: float) -> None:
        """Wait for the runs another live sweep holds: load each once stored, or compute it if its owner died."""
        while theirs:  # only with a cache: runs another live sweep holds
            assert self.cache is not None  # theirs is empty without one
            waiting = []
            for k, c in theirs:
                hit = self.cache.load(c)
                if hit is not None:
                    self.results[k] = hit
                    state = "done"
                else:
                    state = self._claim_or_load(k, c)  # its owner died, or just finished
                if state == "mine":
                    self.compute([(k, c)], bar)
                elif state == "done":
                    bar.update(1)
                else:
                    waiting.append((k, c))
            theirs = waiting
            if theirs:
                bar.set_postfix_str(f"waiting for {len(theirs)} runs another sweep is computing, e.g. "
                                    f"{describe(lock_path(self.cache.path(theirs[0][1])))}")
                time.sleep(poll_s)

    def release_all(self) -> None:
        for lock in self.held.values():
            release(lock)


def _summary_table(configs: Sequence[Any], results: dict[str, RunResult]) -> pd.DataFrame:
    rows = []
    for c in configs:
        key = run_key(c)
        rows.append({"kind": c.kind, **config_dict(c, full=True), **results[key].summary, "run": key})
    return pd.DataFrame(rows)


def _curve_table(configs: Sequence[Any], results: dict[str, RunResult]) -> pd.DataFrame:
    frames = []
    for c in configs:
        key = run_key(c)
        curve = pd.DataFrame(results[key].curve)
        for name, value in config_dict(c, full=True).items():
            curve.insert(len(curve.columns), name, [value] * len(curve) if isinstance(value, list) else value)
        curve["run"] = key
        frames.append(curve)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
