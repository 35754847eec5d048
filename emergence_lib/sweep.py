"""Sweeps: a list of run configs in, tidy tables out, with the cache in between.

    result = run_sweep(configs, cache=ResultCache())
    result.summary   # one row per run: config fields + summary (e.g. plateau_length)
    result.curves    # long format: config fields + one row per recorded time

Every cached run is checked before anything is computed (so a bad cache file
stops the sweep at once), missing runs are computed in chunks and each is
written as soon as its chunk finishes, so an interrupted sweep resumes where it
stopped.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Sequence

import pandas as pd
from tqdm import tqdm

from . import __version__
from .cache import ResultCache, RunResult, config_dict, run_key
from .configs import resolve_device
from .executors import check_executor, run_chunks
from .runs import CHUNKERS


@dataclass
class SweepResult:
    summary: pd.DataFrame
    curves: pd.DataFrame
    n_cached: int
    n_computed: int

    def __repr__(self) -> str:
        return f"SweepResult({len(self.summary)} runs: {self.n_cached} from cache, {self.n_computed} computed)"


def run_sweep(
    configs: Sequence[Any],
    cache: ResultCache | None = None,
    progress: bool = True,
    desc: str = "runs",
    device: str = "cpu",
    executor: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
) -> SweepResult:
    """Results for every config: read from ``cache`` where present, computed otherwise.

    With ``cache=None`` nothing is read or written (used by the smoke scale).
    Duplicate configs are computed once. Missing runs are computed in the
    chunks their kind asks for (`runs.CHUNKERS`) through ``executor``
    ("local" process pool, "serial", or "dask" with an optional ``scheduler``
    address; see `executors`), and each chunk is saved as soon as it finishes:
    an interrupted sweep loses only the chunks in flight.
    ``device`` ("cpu", "cuda", "auto") is checked before anything runs and
    is where Transformer runs train; it is not part of a run's cache key.
    """
    device = resolve_device(device)
    check_executor(executor, workers)
    configs = list(configs)
    unique: dict[str, Any] = {}
    for c in configs:
        unique.setdefault(run_key(c), c)

    results: dict[str, RunResult] = {}
    if cache is not None:
        for key, c in unique.items():  # reads (and validates) everything before any compute
            hit = cache.load(c)
            if hit is not None:
                results[key] = hit
    n_cached = len(results)
    missing = [(k, c) for k, c in unique.items() if k not in results]
    if cache is not None and missing:
        cache.check_writable([c for _, c in missing])  # a run that cannot be stored is not started

    by_kind: dict[str, list[Any]] = defaultdict(list)
    for _, c in missing:
        by_kind[c.kind].append(c)
    chunks = [(kind, chunk) for kind, cs in by_kind.items() for chunk in CHUNKERS[kind](cs, device)]
    t0 = time.perf_counter()
    with tqdm(total=len(missing), desc=desc, disable=not (progress and missing), unit="run") as bar:
        for i, out in run_chunks(chunks, executor, device, workers, scheduler):
            kind, chunk = chunks[i]
            for c, r in zip(chunk, out):
                results[run_key(c)] = r
                if cache is not None:
                    meta = {"library_version": __version__, "device": device, "executor": executor,
                            "sweep_seconds_so_far": round(time.perf_counter() - t0, 3)}
                    cache.save(c, r, meta=meta)
            bar.update(len(chunk))

    return SweepResult(
        summary=_summary_table(configs, results),
        curves=_curve_table(configs, results),
        n_cached=n_cached,
        n_computed=len(missing),
    )


def _summary_table(configs: Sequence[Any], results: dict[str, RunResult]) -> pd.DataFrame:
    rows = []
    for c in configs:
        key = run_key(c)
        rows.append({"kind": c.kind, **config_dict(c), **results[key].summary, "run": key})
    return pd.DataFrame(rows)


def _curve_table(configs: Sequence[Any], results: dict[str, RunResult]) -> pd.DataFrame:
    frames = []
    for c in configs:
        key = run_key(c)
        curve = pd.DataFrame(results[key].curve)
        for name, value in config_dict(c).items():
            curve.insert(len(curve.columns), name, [value] * len(curve) if isinstance(value, list) else value)
        curve["run"] = key
        frames.append(curve)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
