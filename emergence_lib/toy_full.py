"""Toy attention model, full parameters (paper Eq. 2), on the exact expected loss.

y = W Σ_t α_t x_t with α = softmax(a), a ∈ R^T, W ∈ R^{d×d}. Tokens are
N(0, I/d); the last B positions hold copies of the relevant token x_T and the
target is y* = W* x_T. Taking the expectation over x exactly (App. A.2):

    L(a, W) = ½ [ Σ_{t ≤ T−B} α_t² ||W||²_F / d  +  tr((sW − W*) Σ_T (sW − W*)ᵀ) ],   s = Σ_{t > T−B} α_t,

with Σ_T = I/d, or Σ_T = p x̃x̃ᵀ + (1−p) I/d under cross-sample repetition
(x̃ = c·e1; the theory takes c = 1).

Gradient descent on this loss, with a small learning rate, is the gradient flow
the reduced theory (`toy.reduced_flow` with ``logits="per_position"``) describes;
tests check the two against each other. float64 throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch

from .ode import time_grid

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


def expected_loss(
    a: torch.Tensor, W: torch.Tensor, w_star: torch.Tensor, B: int = 1, p: float = 0.0, x_tilde_norm: float = 1.0
) -> torch.Tensor:
    """Exact expected loss of Eq. 2 with the last B positions relevant. a: (T,), W, w_star: (d, d).

    With p > 0 the relevant token is x̃ = x_tilde_norm · e1 with probability p.
    """
    d = W.shape[0]
    alpha = torch.softmax(a, dim=0)  # (T,)
    s = alpha[-B:].sum()  # total attention on the relevant copies
    noise = (alpha[:-B] ** 2).sum() * (W**2).sum() / d
    M = s * W - w_star  # (d, d)
    signal = (1 - p) * (M**2).sum() / d
    if p > 0:
        signal = signal + p * x_tilde_norm**2 * (M[:, 0] ** 2).sum()
    return 0.5 * (noise + signal)


def reduced_coordinates(a: torch.Tensor, W: torch.Tensor, w_star: torch.Tensor, B: int = 1) -> dict[str, float]:
    """The paper's reduced variables of a full parameter state.

    w = <W*, W>/||W*|| (Eq. 12's w), α = attention on one relevant token, Δa =
    mean relevant logit − mean other logit, and the cross-sample split (App. A.4):
    w̃ along W*'s first column and w_rest along the other d − 1 columns.
    """
    w = float((W * w_star).sum() / w_star.norm())
    delta_a = float(a[-B:].mean() - a[:-B].mean())
    alpha = float(torch.softmax(a, dim=0)[-B:].mean())
    w_tilde = float((W[:, 0] * w_star[:, 0]).sum() / (w_star[:, 0] ** 2).sum())
    rest = w_star[:, 1:]
    w_rest = float((W[:, 1:] * rest).sum() / rest.norm()) if rest.numel() else 0.0
    return {"w": w, "delta_a": delta_a, "alpha": alpha, "w_tilde": w_tilde, "w_rest": w_rest}


@dataclass
class FullTrajectory:
    """Recorded states (see `full_gradient_descent`); t is physical time (steps × lr)."""

    t: np.ndarray
    loss: np.ndarray  # test loss: no cross-sample repetition (same B)
    train_loss: np.ndarray
    w: np.ndarray
    delta_a: np.ndarray
    alpha: np.ndarray
    w_tilde: np.ndarray
    w_rest: np.ndarray


def full_gradient_descent(
    T: int,
    d: int,
    B: int = 1,
    p: float = 0.0,
    x_tilde_norm: float = 1.0,
    lr: float = 0.5,
    t_max: float = 1e4,
    target: TargetInit = "unit_columns",
    init: WeightInit = "zero",
    seed: int = 0,
    points_per_decade: int = 200,
    dense_near: float | None = None,
    stop_below: float | None = None,
) -> FullTrajectory:
    """Full-batch gradient descent on the exact expected loss, from a = 0.

    ``init="zero"`` is the theory's W = 0 (Asm. 4); ``"gaussian"`` draws
    N(0, 1/d) entries as in the paper's App. A.3.4. Training uses repetition
    probability ``p``; ``loss`` is the test loss without it, which is also
    what ``stop_below`` looks at.

    The state is recorded at the first step past each point of a geometric
    time grid (``points_per_decade``), and at every step while the test loss
    is within a factor 3 of ``dense_near`` (a plateau threshold), so that the
    crossing is located to one step without storing every step.
    """
    w_star = make_target(d, target, seed)
    g = torch.Generator().manual_seed(seed + 1)
    W = torch.zeros(d, d, dtype=torch.float64) if init == "zero" else torch.randn(d, d, generator=g, dtype=torch.float64) / np.sqrt(d)
    a = torch.zeros(T, dtype=torch.float64)
    W.requires_grad_(True)
    a.requires_grad_(True)
    n_steps = int(round(t_max / lr))
    grid_steps = set(np.ceil(time_grid(t_max, points_per_decade) / lr - 1e-9).astype(int).tolist())
    rows: list[tuple[float, ...]] = []
    for step in range(n_steps + 1):
        loss = expected_loss(a, W, w_star, B, p, x_tilde_norm)
        with torch.no_grad():
            test = expected_loss(a, W, w_star, B).item() if p > 0 else loss.item()
        near = dense_near is not None and dense_near / 3 <= test <= 3 * dense_near
        if step in grid_steps or near or step == n_steps:
            with torch.no_grad():
                rc = reduced_coordinates(a, W, w_star, B)
            rows.append((step * lr, test, loss.item(), rc["w"], rc["delta_a"], rc["alpha"], rc["w_tilde"], rc["w_rest"]))
            if stop_below is not None and test < stop_below:
                break
        if step == n_steps:
            break
        gW, ga = torch.autograd.grad(loss, (W, a))
        with torch.no_grad():
            W -= lr * gW
            a -= lr * ga
    cols = [np.array(c) for c in zip(*rows)]
    return FullTrajectory(*cols)
