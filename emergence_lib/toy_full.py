"""Toy attention model, full parameters (paper Eq. 2), on the exact expected loss.

y = W Σ_t α_t x_t with α = softmax(a), a ∈ R^T, W ∈ R^{d×d}. Tokens are
N(0, I/d); the last B positions hold copies of the relevant token x_T and the
target is y* = W* x_T. Taking the expectation over x exactly (App. A.2):

    L(a, W) = ½ [ Σ_{t ≤ T−B} α_t² ||W||²_F / d  +  ||(s W − W*)||²_F / d ],   s = Σ_{t > T−B} α_t.

Gradient descent on this loss, with a small learning rate, is the gradient flow
the reduced theory (`toy.reduced_flow` with ``logits="per_position"``) describes;
tests check the two against each other. float64 throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch

TargetInit = Literal["unit_columns", "gaussian"]
WeightInit = Literal["zero", "gaussian"]


def make_target(d: int, kind: TargetInit = "unit_columns", seed: int = 0) -> torch.Tensor:
    """W* (d, d): Gaussian entries, optionally normalised to unit-norm columns (Asm. 3)."""
    g = torch.Generator().manual_seed(seed)
    w_star = torch.randn(d, d, generator=g, dtype=torch.float64) / np.sqrt(d)
    if kind == "unit_columns":
        w_star = w_star / w_star.norm(dim=0, keepdim=True)
    elif kind != "gaussian":
        raise ValueError(f"target must be 'unit_columns' or 'gaussian', got {kind!r}")
    return w_star


def expected_loss(a: torch.Tensor, W: torch.Tensor, w_star: torch.Tensor, B: int = 1) -> torch.Tensor:
    """Exact expected loss of Eq. 2 with the last B positions relevant. a: (T,), W, w_star: (d, d)."""
    d = W.shape[0]
    alpha = torch.softmax(a, dim=0)  # (T,)
    s = alpha[-B:].sum()  # total attention on the relevant copies
    noise = (alpha[:-B] ** 2).sum() * (W**2).sum() / d
    signal = ((s * W - w_star) ** 2).sum() / d
    return 0.5 * (noise + signal)


def reduced_coordinates(a: torch.Tensor, W: torch.Tensor, w_star: torch.Tensor, B: int = 1) -> dict[str, float]:
    """(w, Δa, α) of a full parameter state: the paper's reduced variables."""
    w = float((W * w_star).sum() / w_star.norm())
    delta_a = float(a[-B:].mean() - a[:-B].mean())
    alpha = float(torch.softmax(a, dim=0)[-B:].mean())
    return {"w": w, "delta_a": delta_a, "alpha": alpha}


@dataclass
class FullTrajectory:
    """Recorded every ``record_every`` steps; t is physical time (steps × lr)."""

    t: np.ndarray
    loss: np.ndarray
    w: np.ndarray
    delta_a: np.ndarray
    alpha: np.ndarray


def full_gradient_descent(
    T: int,
    d: int,
    B: int = 1,
    lr: float = 0.5,
    t_max: float = 1e4,
    target: TargetInit = "unit_columns",
    init: WeightInit = "zero",
    seed: int = 0,
    record_every: int = 1,
    stop_below: float | None = None,
) -> FullTrajectory:
    """Full-batch gradient descent on the exact expected loss, from a = 0.

    ``init="zero"`` is the theory's W = 0 (Asm. 4); ``"gaussian"`` draws
    N(0, 1/d) entries as in the paper's App. A.3.4.
    """
    w_star = make_target(d, target, seed)
    g = torch.Generator().manual_seed(seed + 1)
    W = torch.zeros(d, d, dtype=torch.float64) if init == "zero" else torch.randn(d, d, generator=g, dtype=torch.float64) / np.sqrt(d)
    a = torch.zeros(T, dtype=torch.float64)
    W.requires_grad_(True)
    a.requires_grad_(True)
    n_steps = int(round(t_max / lr))
    rows: list[tuple[float, float, float, float, float]] = []
    for step in range(n_steps + 1):
        loss = expected_loss(a, W, w_star, B)
        if step % record_every == 0 or step == n_steps:
            with torch.no_grad():
                rc = reduced_coordinates(a, W, w_star, B)
            rows.append((step * lr, loss.item(), rc["w"], rc["delta_a"], rc["alpha"]))
            if stop_below is not None and loss.item() < stop_below:
                break
        if step == n_steps:
            break
        gW, ga = torch.autograd.grad(loss, (W, a))
        with torch.no_grad():
            W -= lr * gW
            a -= lr * ga
    t, loss_, w, da, al = (np.array(c) for c in zip(*rows))
    return FullTrajectory(t=t, loss=loss_, w=w, delta_a=da, alpha=al)
