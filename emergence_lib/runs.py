"""Run configs → results. One batch runner per kind of run, found by `config.kind`.

A batch runner takes a list of configs of its kind and returns one `RunResult`
each, in order. Batching lets the cheap toy-model runs share one vectorised
integration; the sweep layer (`sweep.run_sweep`) handles caching and progress.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Sequence

import numpy as np

from .cache import RunResult
from .configs import ToyFlowConfig
from .metrics import reached
from .toy import reduced_flow, refined_plateau_length

BatchRunner = Callable[[Sequence], list[RunResult]]


def run_toy_flow(configs: Sequence[ToyFlowConfig]) -> list[RunResult]:
    """Integrate the reduced flow for many configs at once (grouped by what must be shared)."""
    results: list[RunResult | None] = [None] * len(configs)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(configs):
        groups[(c.logits, c.points_per_decade)].append(i)
    for (logits, ppd), idx in groups.items():
        cs = [configs[i] for i in idx]
        stop = np.array([c.stop_below if c.stop_below is not None else -np.inf for c in cs])
        traj = reduced_flow(
            T=[c.T for c in cs],
            d=[c.d for c in cs],
            B=[c.B for c in cs],
            t_max=[c.t_max for c in cs],
            logits=logits,
            stop_below=stop,
            points_per_decade=ppd,
        )
        for j, (i, c) in enumerate(zip(idx, cs)):
            valid = np.isfinite(traj.loss[:, j])
            curve = {
                "t": traj.t[valid],
                "loss": traj.loss[valid, j],
                "w": traj.w[valid, j],
                "delta_a": traj.delta_a[valid, j],
                "alpha": traj.alpha[valid, j],
            }
            plateau = refined_plateau_length(
                curve["t"], curve["w"], curve["delta_a"], curve["loss"], c.T, c.d, c.B, c.threshold, c.logits
            )
            results[i] = RunResult(
                summary={
                    "plateau_length": plateau,
                    "reached": bool(reached(plateau)),
                    "final_time": float(curve["t"][-1]),
                    "final_loss": float(curve["loss"][-1]),
                    "n_steps": int(traj.n_steps[j]),
                },
                curve=curve,
            )
    return results  # type: ignore[return-value]


RUNNERS: dict[str, BatchRunner] = {
    ToyFlowConfig.kind: run_toy_flow,
}


def runner_for(kind: str) -> BatchRunner:
    try:
        return RUNNERS[kind]
    except KeyError:
        raise KeyError(f"no runner for run kind {kind!r}; known kinds: {sorted(RUNNERS)}") from None
