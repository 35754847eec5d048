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
from .runs import CHUNKERS, runner_for


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
) -> SweepResult:
    """Results for every config: read from ``cache`` where present, computed otherwise.

    With ``cache=None`` nothing is read or written (used by the smoke scale).
    Duplicate configs are computed once. Missing runs are computed in the
    chunks their kind asks for (`runs.CHUNKERS`), each saved when it returns.
    ``device`` ("cpu", "cuda", "auto") is checked before anything runs and
    is where Transformer runs train; it is not part of a run's cache key.
    """
    device = resolve_device(device)
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

    by_kind: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    for k, c in missing:
        by_kind[c.kind].append((k, c))
    with tqdm(total=len(missing), desc=desc, disable=not (progress and missing), unit="run") as bar:
        for kind, items in by_kind.items():
            runner = runner_for(kind)
            key_of = {id(c): k for k, c in items}
            for chunk_configs in CHUNKERS[kind]([c for _, c in items], device):
                chunk = [(key_of[id(c)], c) for c in chunk_configs]
                t0 = time.perf_counter()
                out = runner(chunk_configs, device=device)
                elapsed = (time.perf_counter() - t0) / len(chunk)
                for (k, c), r in zip(chunk, out):
                    results[k] = r
                    if cache is not None:
                        cache.save(c, r, meta={"library_version": __version__, "seconds": elapsed})
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
