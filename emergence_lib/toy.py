"""Toy attention model, reduced theory (paper §2.2, App. A.3).

The toy model is  y = W Σ_t softmax(a)_t x_t  with free logits a ∈ R^T.
Under the paper's assumptions (W = 0 and a = 0 at init, unit-norm columns of
W*, gradient flow on the expected loss) its dynamics reduce to two scalars:

* ``w``  = <W*, W>_F / ||W*||_F, the alignment of W with the target (optimum √d);
* ``Δa`` = a_relevant − a_other, the logit gap (optimum +∞).

The attention on one relevant token is α = 1 / ((T−B) e^{−Δa} + B)  (Eq. 9).

Everything here is plain float64 numpy and broadcasts over arrays of (T, d, B),
so a whole grid of configurations is one call. Time is *physical time*
(steps × learning rate), as in the paper's App. D.1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import numpy as np

from .ode import gradient_flow

ArrayLike = np.ndarray | float | int
LogitParametrisation = Literal["gap", "per_position"]

INITIAL_LOSS = 0.5  # L(w=0) = ½ ||W*||_F^2 / d = ½ with unit-norm columns


def attention(delta_a: ArrayLike, T: ArrayLike, B: ArrayLike = 1) -> np.ndarray:
    """α: attention on one relevant token (Eq. 9)."""
    return 1.0 / ((np.asarray(T) - B) * np.exp(-np.asarray(delta_a, dtype=float)) + B)


def reduced_loss(w: ArrayLike, delta_a: ArrayLike, T: ArrayLike, d: ArrayLike, B: ArrayLike = 1) -> np.ndarray:
    """Expected loss L(w, Δa) of the toy model (Eq. 12)."""
    a = attention(delta_a, T, B)
    noise = (1 - B * a) ** 2 * np.square(w) / (d * (T - B))
    signal = (B * a * w - np.sqrt(d)) ** 2 / d
    return 0.5 * (noise + signal)


def reduced_gradients(
    w: ArrayLike, delta_a: ArrayLike, T: ArrayLike, d: ArrayLike, B: ArrayLike = 1
) -> tuple[np.ndarray, np.ndarray]:
    """(∂L/∂w, ∂L/∂Δa) of Eq. 12 (Eqs. 13–14)."""
    a = attention(delta_a, T, B)
    sd = np.sqrt(d)
    grad_w = (1 - B * a) ** 2 * w / (d * (T - B)) + B * a * (B * a * w - sd) / d
    grad_da = a * (1 - B * a) * (
        -B * (1 - B * a) * np.square(w) / (d * (T - B)) + B * w * (B * a * w - sd) / d
    )
    return grad_w, grad_da


def logit_rate(T: ArrayLike, B: ArrayLike, logits: LogitParametrisation) -> np.ndarray:
    """Speed of Δa under gradient flow, relative to treating Δa as the parameter.

    * ``"gap"``: Δa itself is the trained parameter, as in the paper's Eq. 14.
    * ``"per_position"``: every position has its own logit a_t (the model of
      Eq. 2 taken literally). By symmetry each relevant logit gets 1/B of the
      gradient and each other logit 1/(T−B), so Δa moves 1/B + 1/(T−B) times as
      fast. For B = 1 this is T/(T−1) ≈ 1; for B > 1 it slows attention by ≈ B.
    """
    T = np.asarray(T, dtype=float)
    B = np.asarray(B, dtype=float)
    if logits == "gap":
        return np.ones(np.broadcast(T, B).shape)
    if logits == "per_position":
        return 1.0 / B + 1.0 / (T - B)
    raise ValueError(f"logits must be 'gap' or 'per_position', got {logits!r}")


def w_infinity(alpha: ArrayLike, T: ArrayLike, d: ArrayLike, B: ArrayLike = 1) -> np.ndarray:
    """Equilibrium of w for a fixed attention α (App. A.3.3): the root of ∂L/∂w = 0 (Eq. 13)."""
    Ba = np.asarray(B) * np.asarray(alpha, dtype=float)
    return (Ba / np.sqrt(d)) / ((1 - Ba) ** 2 / (d * (np.asarray(T) - B)) + Ba**2 / d)


def reduced_hessian(w: ArrayLike, delta_a: ArrayLike, T: ArrayLike, d: ArrayLike, B: ArrayLike = 1) -> np.ndarray:
    """Hessian of L(w, Δa) (App. A.3.3), shape (..., 2, 2), in the (w, Δa) coordinates."""
    w = np.asarray(w, dtype=float)
    a = attention(delta_a, T, B)
    sd = np.sqrt(d)
    _, g_da = reduced_gradients(w, delta_a, T, d, B)
    h_ww = (1 - B * a) ** 2 / (d * (T - B)) + (B * a) ** 2 / d
    h_wa = a * (1 - B * a) * (-2 * B * (1 - B * a) * w / (d * (T - B)) + B * (2 * B * a * w - sd) / d)
    h_aa = (1 - 2 * B * a) * g_da + a * (1 - B * a) * a * (1 - B * a) * (
        B**2 * w**2 / (d * (T - B)) + B**2 * w**2 / d
    )
    return np.stack([np.stack([h_ww, h_wa], -1), np.stack([h_wa, h_aa], -1)], -2)


def hessian_eigenvalues(w: ArrayLike, delta_a: ArrayLike, T: ArrayLike, d: ArrayLike, B: ArrayLike = 1) -> np.ndarray:
    """Smallest and largest eigenvalues of the reduced Hessian, shape (..., 2), ascending."""
    return np.linalg.eigvalsh(reduced_hessian(w, delta_a, T, d, B))


def linearisation_breakdown(
    t: np.ndarray, w: np.ndarray, loss: np.ndarray, T: float, d: float, B: float = 1, tolerance: float = 0.1
) -> dict[str, float]:
    """When the linearised solution stops describing a recorded flow.

    Returns the first times at which w, and the loss decrease ½ − L, differ from
    their linearised values (sinh λt and ½ λ sinh 2λt) by more than
    ``tolerance`` (relative), also in units of 1/λ.
    """
    from .metrics import first_crossing  # local: metrics does not depend on toy

    lam = float(growth_rate(T, d, B))
    lin = linearised_solution(t, T, d, B)
    with np.errstate(divide="ignore", invalid="ignore"):
        err_w = np.abs(w / lin["w"] - 1.0)
        err_l = np.abs((INITIAL_LOSS - loss) / (INITIAL_LOSS - lin["loss"]) - 1.0)
    keep = t > 0
    t_w = first_crossing(t[keep], err_w[keep], tolerance, direction="up")
    t_l = first_crossing(t[keep], err_l[keep], tolerance, direction="up")
    return {"t_w": t_w, "t_loss": t_l, "lambda_t_w": lam * t_w, "lambda_t_loss": lam * t_l}


def growth_rate(T: ArrayLike, d: ArrayLike, B: ArrayLike = 1) -> np.ndarray:
    """λ = B / (√d T): the unstable eigenvalue of the linearised dynamics (Eq. 5)."""
    return np.asarray(B, dtype=float) / (np.sqrt(d) * np.asarray(T, dtype=float))


def linearised_solution(t: ArrayLike, T: ArrayLike, d: ArrayLike, B: ArrayLike = 1) -> dict[str, np.ndarray]:
    """Solution of the linearised system: w = sinh λt, Δa = cosh λt − 1, L ≈ ½(1 − λ sinh 2λt)."""
    lam = growth_rate(T, d, B)
    t = np.asarray(t, dtype=float)
    return {
        "w": np.sinh(lam * t),
        "delta_a": np.cosh(lam * t) - 1.0,
        "loss": 0.5 * (1.0 - lam * np.sinh(2 * lam * t)),
    }


def escape_time(T: ArrayLike, d: ArrayLike, B: ArrayLike = 1, epsilon: float = 0.8) -> np.ndarray:
    """T_ε of Eq. 6: time for the linearised loss to fall to (1 − ε)·L0.

    T_ε = arcsinh(ε/λ) / (2λ) = (√d T / 2B) · arcsinh(ε √d T / B).
    The paper uses ε = 0.8, i.e. the loss threshold 0.1.
    """
    lam = growth_rate(T, d, B)
    return np.arcsinh(epsilon / lam) / (2 * lam)


def refined_plateau_length(
    t: np.ndarray,
    loss: np.ndarray,
    threshold: float,
    restart: Callable[[int, np.ndarray], np.ndarray],
    n_points: int = 250,
) -> float:
    """The plateau length of a recorded flow, located to high precision.

    The crossing is bracketed between two recorded points; ``restart(i, grid)``
    must re-integrate the flow from the state recorded at ``t[i]`` and return
    the loss on ``grid`` (times from that state). The flows are autonomous, so
    this is exact; `metrics.plateau_length` then interpolates on the fine grid.
    It gives the precision of a dense recording grid without storing one.
    """
    from .metrics import NOT_REACHED, plateau_length  # local: metrics does not depend on toy

    coarse = plateau_length(t, loss, threshold)
    if coarse == NOT_REACHED:
        return NOT_REACHED
    i = int(np.searchsorted(t, coarse, side="left"))
    if i == 0 or not np.isfinite(loss[i - 1]):
        return coarse
    grid = np.linspace(0.0, t[i] - t[i - 1], n_points + 1)
    offset = plateau_length(grid, restart(i - 1, grid), threshold)
    return coarse if offset == NOT_REACHED else float(t[i - 1] + offset)


@dataclass
class ReducedTrajectory:
    """Reduced flow recorded on a time grid; arrays are (n_grid, n_configs)."""

    t: np.ndarray
    w: np.ndarray
    delta_a: np.ndarray
    alpha: np.ndarray
    loss: np.ndarray  # test loss (same B; no cross-sample repetition)
    n_steps: np.ndarray  # (n_configs,)
    train_loss: np.ndarray | None = None  # cross-sample model only: loss on the training distribution
    w_tilde: np.ndarray | None = None  # cross-sample model only: alignment of the repeated direction


def reduced_flow(
    T: ArrayLike | Sequence[float],
    d: ArrayLike | Sequence[float],
    B: ArrayLike | Sequence[float] = 1,
    t_max: ArrayLike | Sequence[float] = 1e4,
    logits: LogitParametrisation = "gap",
    stop_below: ArrayLike | None = None,
    points_per_decade: int = 200,
    rtol: float = 1e-9,
    y0: np.ndarray | None = None,
    t_grid: np.ndarray | None = None,
) -> ReducedTrajectory:
    """Gradient flow on (w, Δa) from (0, 0) for a grid of configurations at once.

    T, d, B, t_max and stop_below broadcast to one value per configuration.
    A configuration stops at its ``t_max``, or at the first recording point where
    its loss is below ``stop_below`` (after that its entries are NaN).
    ``y0`` (n_configs, 2) = (w, Δa) restarts the flow from another state (the flow
    is autonomous, so time then counts from that state); ``t_grid`` replaces the
    default geometric recording grid (it must start at 0).
    The loss recorded is Eq. 12 with the same B, i.e. the test loss of the
    in-context-repetition setting (and the plain test loss when B = 1).
    """
    T, d, B, t_max = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (T, d, B, t_max))
    T, d, B, t_max = np.broadcast_arrays(T, d, B, t_max)
    rate = logit_rate(T, B, logits)

    def rhs(y: np.ndarray) -> np.ndarray:  # y: (n_configs, 2) = (w, Δa)
        gw, gda = reduced_gradients(y[:, 0], y[:, 1], T, d, B)
        return np.stack([-gw, -rate * gda], axis=1)

    traj = gradient_flow(
        rhs, lambda y: reduced_loss(y[:, 0], y[:, 1], T, d, B), 2, t_max, stop_below, points_per_decade, rtol, y0, t_grid
    )
    w, da = traj.y[..., 0], traj.y[..., 1]
    return ReducedTrajectory(
        t=traj.t,
        w=w,
        delta_a=da,
        alpha=attention(da, T, B),
        loss=reduced_loss(w, da, T, d, B),
        n_steps=traj.n_steps,
    )
