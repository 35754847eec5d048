"""Training loops for the Transformer experiments.

`train_regression` trains one Transformer per seed on single-location
regression, all the seeds it is given at once (`transformer.EnsembleTransformer`;
sweeps give it one seed at a time on the CPU, where batching is not faster), with
fresh batches every step and fixed held-out sets evaluated on a log-spaced schedule.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Sequence

import numpy as np
import torch

from .cache import RunResult
from .configs import TransformerRegressionConfig, resolve_device
from .metrics import NOT_REACHED, plateau_length
from .tasks import SingleLocationRegression, sample_ensemble
from .transformer import EnsembleTransformer, TransformerConfig


def evaluation_steps(max_steps: int, per_decade: int) -> np.ndarray:
    """Step 0 and a log-spaced schedule up to ``max_steps`` (so a crossing time is precise at any scale)."""
    n = int(np.ceil(np.log10(max_steps) * per_decade)) + 1
    return np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_steps, n)).astype(int)]))


def model_config(c: TransformerRegressionConfig, input_dim: int) -> TransformerConfig:
    return TransformerConfig(
        input_dim=input_dim, output_dim=c.d, n_layers=c.n_layers, n_heads=c.n_heads, d_model=c.d_model,
        d_qk=c.d_qk, mlp_factor=c.mlp_factor, layer_norm=c.layer_norm, causal=c.causal, max_len=max(c.T, 1),
    )


def _mse(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """½‖y − y*‖² averaged over the batch, per ensemble member: (E,)."""
    return 0.5 * ((pred - y) ** 2).sum(-1).mean(-1)


def train_regression(configs: Sequence[TransformerRegressionConfig], device: str = "cpu") -> list[RunResult]:
    """Train the seeds of ``configs`` together. They must differ only in their seed."""
    configs = list(configs)
    base = dataclasses.replace(configs[0], seed=0)
    if any(dataclasses.replace(c, seed=0) != base for c in configs):
        raise ValueError("train_regression: configs must differ only in their seed")
    device = resolve_device(device)
    seeds = [c.seed for c in configs]
    c = base
    t0 = time.perf_counter()

    tasks = [
        SingleLocationRegression(c.T, c.d, c.B, c.p, c.random_position, c.relevance_feature, c.normalise_target, s)
        for s in seeds
    ]
    train_gens = [torch.Generator().manual_seed(104_729 * s + 3) for s in seeds]
    eval_gens = [torch.Generator().manual_seed(104_729 * s + 5) for s in seeds]
    repeated = c.B > 1 or c.p > 0
    eval_sets = {"loss_no_repetition": sample_ensemble(tasks, c.eval_size, eval_gens, B=1, p=0.0)}
    if repeated:
        eval_sets["loss_train_distribution"] = sample_ensemble(tasks, c.eval_size, eval_gens)
    eval_sets = {k: (x.to(device), y.to(device)) for k, (x, y) in eval_sets.items()}
    measured = "loss_no_repetition" if (c.plateau_on == "no_repetition" or not repeated) else "loss_train_distribution"

    model = EnsembleTransformer(model_config(c, tasks[0].input_dim), seeds).to(device)
    opt_cls = torch.optim.Adam if c.optimizer == "adam" else torch.optim.SGD
    optimizer = opt_cls(model.parameters(), lr=c.lr)

    E = len(seeds)
    schedule = set(evaluation_steps(c.max_steps, c.evals_per_decade).tolist())
    records: dict[str, list] = {"step": [], **{k: [] for k in eval_sets}}
    crossed_at = np.full(E, np.nan)  # first evaluation step at or below the threshold
    diverged = np.zeros(E, dtype=bool)
    step = 0
    for step in range(c.max_steps + 1):
        if step in schedule:
            with torch.no_grad():
                losses = {k: _mse(model(x), y).double().cpu().numpy() for k, (x, y) in eval_sets.items()}
            records["step"].append(step)
            for k, v in losses.items():
                records[k].append(v)
            m = losses[measured]
            diverged |= ~np.isfinite(m)
            newly = np.isnan(crossed_at) & (m <= c.threshold)
            crossed_at[newly] = step
            done = diverged | (~np.isnan(crossed_at) & (step >= c.stop_factor * crossed_at))
            if done.all():
                break
        if step == c.max_steps:
            break
        x, y = sample_ensemble(tasks, c.batch_size, train_gens)  # (E, batch, T, in), (E, batch, d)
        loss = _mse(model(x.to(device)), y.to(device)).sum()  # sum over members: independent gradients
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    seconds = (time.perf_counter() - t0) / E
    steps = np.array(records["step"])
    results = []
    for e, cfg in enumerate(configs):
        curve = {"step": steps.astype(float), **{k: np.array([r[e] for r in records[k]]) for k in eval_sets}}
        last_ok = len(steps) if not diverged[e] else int(np.argmax(~np.isfinite(curve[measured])))
        plateau = plateau_length(steps[:last_ok], curve[measured][:last_ok], c.threshold) if last_ok > 0 else NOT_REACHED
        status = "crossed" if np.isfinite(plateau) else ("diverged" if diverged[e] else "not_reached")
        results.append(RunResult(
            summary={
                "plateau_length": float(plateau) if status == "crossed" else (float("nan") if status == "diverged" else NOT_REACHED),
                "reached": status == "crossed",
                "status": status,
                "measured_on": measured.removeprefix("loss_"),
                "steps_run": int(step),
                "final_time": float(step),
                "final_loss": float(curve[measured][-1]),
                "initial_loss": float(curve[measured][0]),
                "seconds": seconds,
                "device": device,
            },
            curve=curve,
        ))
    return results
