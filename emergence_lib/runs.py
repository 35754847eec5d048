"""Run configs → results. One batch runner per kind of run, found by `config.kind` in `KINDS`.

A batch runner takes a list of configs of its kind and returns one `RunResult`
each, in order. Batching lets cheap runs share one vectorised computation (the
reduced flows integrate a whole grid at once; SGD trains seeds together); the
sweep layer (`sweep.run_sweep`) handles caching and progress.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Sequence, cast

import numpy as np

from .results import RunResult
from .configs import ToyFlowConfig, ToyFullGDConfig, ToySGDConfig, TransformerRecallConfig, TransformerRegressionConfig
from .metrics import plateau_length, reached
from .toy import ReducedTrajectory, reduced_flow, refined_plateau_length
from .schedules import DiversitySchedule
from .toy_cross_sample import cross_sample_flow, scheduled_cross_sample_flow
from .toy_full import full_gradient_descent
from .toy_sgd import sgd_train
from .training import train_recall, train_regression

BatchRunner = Callable[..., list[RunResult]]  # (configs, device=...) -> one result per config


def _summary(t: np.ndarray, loss: np.ndarray, plateau: float, **extra) -> dict:
    return {
        "plateau_length": plateau,
        "reached": bool(reached(plateau)),
        "final_time": float(t[-1]),
        "final_loss": float(loss[-1]),
        **extra,
    }


def _flow(cs: Sequence[ToyFlowConfig], cross_sample: bool, **kwargs) -> ReducedTrajectory:
    common = dict(T=[c.T for c in cs], d=[c.d for c in cs], logits=cs[0].logits, **kwargs)
    if cross_sample:
        return cross_sample_flow(p=[c.p for c in cs], x_tilde_norm=[c.x_tilde_norm for c in cs], **common)
    return reduced_flow(B=[c.B for c in cs], **common)


def run_toy_flow(configs: Sequence[ToyFlowConfig], device: str = "cpu") -> list[RunResult]:
    """Integrate the reduced flows for many configs at once (2-D for p = 0, 3-D for p > 0)."""
    results: list[RunResult | None] = [None] * len(configs)
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i, c in enumerate(configs):
        if c.schedule != "constant":
            results[i] = _scheduled_flow(c)
            continue
        groups[(c.logits, c.points_per_decade, c.p > 0)].append(i)
    for (_, ppd, cross), idx in groups.items():
        cs = [configs[i] for i in idx]
        stop = np.array([c.stop_below if c.stop_below is not None else -np.inf for c in cs])
        traj = _flow(cs, cross, t_max=[c.t_max for c in cs], stop_below=stop, points_per_decade=ppd)
        state_names = ["w_tilde", "w", "delta_a"] if cross else ["w", "delta_a"]
        for j, (i, c) in enumerate(zip(idx, cs)):
            valid = np.isfinite(traj.loss[:, j])
            curve = {"t": traj.t[valid], "loss": traj.loss[valid, j]}
            if cross:
                assert traj.train_loss is not None  # the cross-sample flow records it
                curve["train_loss"] = traj.train_loss[valid, j]
            for name in state_names + ["alpha"]:
                curve[name] = getattr(traj, name)[valid, j]
            state = np.stack([curve[n] for n in state_names], axis=1)  # (n_recorded, 2 or 3)

            def restart(k: int, grid: np.ndarray, c=c, state=state) -> np.ndarray:
                return _flow([c], cross, t_max=grid[-1], y0=state[k][None], t_grid=grid).loss[:, 0]

            plateau = refined_plateau_length(curve["t"], curve["loss"], c.threshold, restart)
            results[i] = RunResult(
                summary=_summary(curve["t"], curve["loss"], plateau, n_steps=int(traj.n_steps[j])),
                curve=curve,
            )
    return cast(list[RunResult], results)  # every slot filled above


def _scheduled_flow(c: ToyFlowConfig) -> RunResult:
    """One 3-D flow under a data-diversity schedule (not autonomous, so its plateau is read off the record)."""
    assert c.t_max is not None  # ToyFlowConfig.__post_init__ sets it
    traj, switch = scheduled_cross_sample_flow(
        c.T, c.d, c.p, DiversitySchedule.parse(c.schedule), c.t_max, c.x_tilde_norm, c.logits, c.points_per_decade
    )
    assert traj.train_loss is not None  # the cross-sample flow records it
    curve = {"t": traj.t, "loss": traj.loss[:, 0], "train_loss": traj.train_loss[:, 0]}
    curve |= {name: getattr(traj, name)[:, 0] for name in ("w_tilde", "w", "delta_a", "alpha")}
    plateau = plateau_length(traj.t, curve["loss"], c.threshold)
    return RunResult(summary=_summary(traj.t, curve["loss"], plateau, switched_at=switch), curve=curve)


def run_toy_full_gd(configs: Sequence[ToyFullGDConfig], device: str = "cpu") -> list[RunResult]:
    """Full gradient descent on the exact expected loss, one config at a time."""
    out = []
    for c in configs:
        tr = full_gradient_descent(
            c.T, c.d, B=c.B, p=c.p, x_tilde_norm=c.x_tilde_norm, lr=c.lr, t_max=c.t_max, target=c.target,
            init=c.init, seed=c.seed, points_per_decade=c.points_per_decade, dense_near=c.threshold,
            stop_below=c.stop_below,
        )
        curve = {f.name: getattr(tr, f.name) for f in dataclasses.fields(tr)}
        out.append(RunResult(summary=_summary(tr.t, tr.loss, plateau_length(tr.t, tr.loss, c.threshold)), curve=curve))
    return out


def run_toy_sgd(configs: Sequence[ToySGDConfig], device: str = "cpu") -> list[RunResult]:
    """SGD on sampled data; configs that differ only in their seed train together."""
    results: list[RunResult | None] = [None] * len(configs)
    groups: dict[ToySGDConfig, list[int]] = defaultdict(list)
    for i, c in enumerate(configs):
        groups[dataclasses.replace(c, seed=0)].append(i)
    for g, idx in groups.items():
        tr = sgd_train(
            g.T, g.d, seeds=[configs[i].seed for i in idx], B=g.B, p=g.p, batch_size=g.batch_size, lr=g.lr,
            t_max=g.t_max, target=g.target, init=g.init, record_every=g.record_every,
        )
        for k, i in enumerate(idx):
            curve = {"t": tr.t, "loss": tr.loss[:, k], "w": tr.w[:, k], "delta_a": tr.delta_a[:, k], "alpha": tr.alpha[:, k]}
            plateau = plateau_length(tr.t, tr.loss[:, k], g.threshold)
            results[i] = RunResult(summary=_summary(tr.t, tr.loss[:, k], plateau), curve=curve)
    return cast(list[RunResult], results)  # every slot filled above


Chunker = Callable[[list, str], list[list]]  # (configs, device) -> chunks


def _fixed(size: int) -> Chunker:
    return lambda items, device: [items[i : i + size] for i in range(0, len(items), size)]


def _seeds_batched_on_gpu(items: list, device: str) -> list[list]:
    """On a GPU, configs equal up to their seed share a chunk (they train as one batched model).

    On the CPU each run is its own chunk: `bench/` measured batching seeds there
    at 0.84–0.99× the speed of a loop, for the toy SGD and the Transformer alike.
    Either way the results are the same (tests check batched against alone).
    """
    if not device.startswith("cuda"):
        return [[item] for item in items]
    groups: dict[Any, list] = defaultdict(list)
    for item in items:
        groups[dataclasses.replace(item, seed=0)].append(item)
    return list(groups.values())


@dataclass(frozen=True)
class RunKind:
    """How runs of one kind compute: ``run`` takes a chunk of configs and returns one result each; ``chunks``
    splits a sweep's missing runs into such chunks (each one runner call, saved to the cache as soon as it
    returns: the unit of progress and of resumption)."""

    run: BatchRunner
    chunks: Chunker


# The one map from a run config's ``kind`` to its code.
KINDS: dict[str, RunKind] = {
    ToyFlowConfig.kind: RunKind(run_toy_flow, _fixed(64)),  # cheap: one vectorised integration (16× a loop, bench/)
    ToyFullGDConfig.kind: RunKind(run_toy_full_gd, _fixed(1)),  # seconds each
    ToySGDConfig.kind: RunKind(run_toy_sgd, _seeds_batched_on_gpu),
    TransformerRegressionConfig.kind: RunKind(train_regression, _seeds_batched_on_gpu),
    TransformerRecallConfig.kind: RunKind(train_recall, _seeds_batched_on_gpu),
}


def kind_of(kind: str) -> RunKind:
    try:
        return KINDS[kind]
    except KeyError:
        raise KeyError(f"no runner for run kind {kind!r}; known kinds: {sorted(KINDS)}") from None


def runner_for(kind: str) -> BatchRunner:
    return kind_of(kind).run
