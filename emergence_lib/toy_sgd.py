"""Toy model trained by SGD on sampled sequences (paper App. A.3.4, Figure 9).

Each step draws a fresh batch of sequences x_t ~ N(0, I/d); the last B
positions hold copies of the relevant token, which with probability p is the
fixed token x̃ = e1. The model y = W Σ_t softmax(a)_t x_t is trained on
½‖y − W* x_T‖² averaged over the batch. Several seeds train at once in one
tensor (seed = target, initialisation and data stream); the recorded loss is
the *exact* expected test loss of the current parameters (no evaluation noise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from .toy_full import TargetInit, WeightInit, expected_loss, make_target, reduced_coordinates


@dataclass
class SGDTrajectory:
    """Arrays are (n_records, n_seeds); t is physical time (steps × lr)."""

    t: np.ndarray
    loss: np.ndarray
    w: np.ndarray
    delta_a: np.ndarray
    alpha: np.ndarray


def sample_batch(
    generator: torch.Generator, batch_size: int, T: int, d: int, B: int = 1, p: float = 0.0, dtype=torch.float32
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sequences (batch, T, d) and their relevant tokens (batch, d)."""
    x = torch.randn(batch_size, T, d, generator=generator, dtype=dtype) / np.sqrt(d)  # (batch, T, d)
    relevant = x[:, -1, :].clone()  # (batch, d)
    if p > 0:
        swap = torch.rand(batch_size, generator=generator) < p
        relevant[swap] = 0.0
        relevant[swap, 0] = 1.0  # x̃ = e1
    x[:, T - B :, :] = relevant[:, None, :]
    return x, relevant


def sgd_train(
    T: int,
    d: int,
    seeds: Sequence[int],
    B: int = 1,
    p: float = 0.0,
    batch_size: int = 32,
    lr: float = 1.0,
    t_max: float = 1e4,
    target: TargetInit = "gaussian",
    init: WeightInit = "gaussian",
    record_every: int = 10,
    dtype: torch.dtype = torch.float32,
) -> SGDTrajectory:
    """SGD for every seed at once (vectorised over seeds)."""
    S = len(seeds)
    w_star = torch.stack([make_target(d, target, s) for s in seeds]).to(dtype)  # (S, d, d)
    W = torch.zeros(S, d, d, dtype=dtype)
    if init == "gaussian":
        for k, s in enumerate(seeds):
            g = torch.Generator().manual_seed(10_000 + s)
            W[k] = torch.randn(d, d, generator=g, dtype=torch.float64).to(dtype) / np.sqrt(d)
    a = torch.zeros(S, T, dtype=dtype)
    W.requires_grad_(True)
    a.requires_grad_(True)
    data = [torch.Generator().manual_seed(20_000 + s) for s in seeds]
    n_steps = int(round(t_max / lr))
    records: list[list[dict[str, float]]] = []
    times: list[float] = []
    for step in range(n_steps + 1):
        if step % record_every == 0 or step == n_steps:
            with torch.no_grad():
                row = []
                for k in range(S):
                    a64, W64, ws64 = a[k].double(), W[k].double(), w_star[k].double()
                    rc = reduced_coordinates(a64, W64, ws64, B)
                    rc["loss"] = expected_loss(a64, W64, ws64, B).item()
                    row.append(rc)
            records.append(row)
            times.append(step * lr)
        if step == n_steps:
            break
        batches = [sample_batch(g, batch_size, T, d, B, p, dtype) for g in data]
        x = torch.stack([b[0] for b in batches])  # (S, batch, T, d)
        rel = torch.stack([b[1] for b in batches])  # (S, batch, d)
        alpha = torch.softmax(a, dim=1)  # (S, T)
        z = torch.einsum("st,sbtd->sbd", alpha, x)  # (S, batch, d): attention-weighted token
        y = torch.bmm(z, W.transpose(1, 2))  # (S, batch, d)
        y_star = torch.bmm(rel, w_star.transpose(1, 2))  # (S, batch, d)
        loss = 0.5 * ((y - y_star) ** 2).sum(-1).mean(-1).sum()  # sum over seeds: independent gradients
        gW, ga = torch.autograd.grad(loss, (W, a))
        with torch.no_grad():
            W -= lr * gW
            a -= lr * ga
    col = lambda key: np.array([[r[key] for r in row] for row in records])  # noqa: E731
    return SGDTrajectory(t=np.array(times), loss=col("loss"), w=col("w"), delta_a=col("delta_a"), alpha=col("alpha"))
