"""Toy model under cross-sample repetition: the 3-D reduced dynamics (paper App. A.4).

With probability p the relevant token is a fixed x̃ = e1, so the relevant
token's covariance is Σ_T = diag(p + (1−p)/d, (1−p)/d, …). W then stays in the
span of W*'s columns but its first column moves at its own speed:

    W[:, 0] = w̃ W*[:, 0],    W[:, i] = w / √(d−1) · W*[:, i]  (i ≥ 1),

so the dynamics reduce to (w̃, w, Δa), with optima (1, √(d−1), +∞). B = 1.
The *test* loss is measured on data without repetition (p = 0), as in Fig. 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, cast

import numpy as np

from .ode import gradient_flow
from .toy import ArrayLike, LogitParametrisation, ReducedTrajectory, attention, logit_rate

if TYPE_CHECKING:
    from .schedules import DiversitySchedule


def covariances(p: ArrayLike, d: ArrayLike, c: ArrayLike = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(σ̃, σ): variance of the relevant token along x̃ = c·e1 and along any orthogonal direction."""
    p = np.asarray(p, dtype=float)
    return p * np.square(c) + (1 - p) / d, (1 - p) / np.asarray(d, dtype=float)


def cross_sample_loss(
    w_tilde: ArrayLike, w: ArrayLike, delta_a: ArrayLike, T: ArrayLike, d: ArrayLike, p: ArrayLike, c: ArrayLike = 1.0
) -> np.ndarray:
    """Expected loss (Eq. 17) with repetition probability p of x̃ = c·e1; p = 0 gives the test loss."""
    a = attention(delta_a, T, 1)
    s_t, s = covariances(p, d, c)
    noise = (1 - a) ** 2 * (np.square(w) + np.square(w_tilde)) / (d * (T - 1))
    return 0.5 * (noise + s_t * (a * w_tilde - 1) ** 2 + s * (a * w - np.sqrt(d - 1)) ** 2)


def cross_sample_gradients(
    w_tilde: ArrayLike, w: ArrayLike, delta_a: ArrayLike, T: ArrayLike, d: ArrayLike, p: ArrayLike, c: ArrayLike = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(∂L/∂w̃, ∂L/∂w, ∂L/∂Δa) of Eq. 17 (Eqs. 18–21); c is the norm of x̃ (the paper: 1)."""
    a = attention(delta_a, T, 1)
    s_t, s = covariances(p, d, c)
    sq = np.sqrt(d - 1)
    noise = 1 / (d * (T - 1))
    g_wt = (1 - a) ** 2 * w_tilde * noise + a * s_t * (a * w_tilde - 1)
    g_w = (1 - a) ** 2 * w * noise + a * s * (a * w - sq)
    g_da = a * (1 - a) * (
        -(1 - a) * (np.square(w) + np.square(w_tilde)) * noise
        + w_tilde * s_t * (a * w_tilde - 1)
        + w * s * (a * w - sq)
    )
    return g_wt, g_w, g_da


def cross_sample_growth_rate(T: ArrayLike, d: ArrayLike, p: ArrayLike) -> np.ndarray:
    """√(p² d + (1−p)²) / (√d T): the unstable eigenvalue of the linearised 3-D system (App. A.4.2)."""
    p = np.asarray(p, dtype=float)
    return np.sqrt(p**2 * d + (1 - p) ** 2) / (np.sqrt(d) * np.asarray(T, dtype=float))


def cross_sample_flow(
    T: ArrayLike | Sequence[float],
    d: ArrayLike | Sequence[float],
    p: ArrayLike | Sequence[float],
    t_max: ArrayLike | Sequence[float] = 1e4,
    x_tilde_norm: ArrayLike | Sequence[float] = 1.0,
    logits: LogitParametrisation = "gap",
    stop_below: ArrayLike | None = None,
    points_per_decade: int = 200,
    rtol: float = 1e-9,
    y0: np.ndarray | None = None,
    t_grid: np.ndarray | None = None,
) -> ReducedTrajectory:
    """Gradient flow on (w̃, w, Δa) from 0 for many configurations at once.

    ``loss`` is the test loss (p = 0) and ``train_loss`` the loss at the
    training p. ``stop_below`` applies to the test loss. ``y0`` is
    (n_configs, 3) = (w̃, w, Δa); see `toy.reduced_flow` for the rest.
    """
    T, d, p, t_max, c = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (T, d, p, t_max, x_tilde_norm))
    T, d, p, t_max, c = np.broadcast_arrays(T, d, p, t_max, c)
    rate = logit_rate(T, 1, logits)

    def rhs(y: np.ndarray) -> np.ndarray:  # y: (n_configs, 3) = (w̃, w, Δa)
        g_wt, g_w, g_da = cross_sample_gradients(y[:, 0], y[:, 1], y[:, 2], T, d, p, c)
        return np.stack([-g_wt, -g_w, -rate * g_da], axis=1)

    def test_loss(y: np.ndarray) -> np.ndarray:
        return cross_sample_loss(y[:, 0], y[:, 1], y[:, 2], T, d, 0.0)

    traj = gradient_flow(rhs, test_loss, 3, t_max, stop_below, points_per_decade, rtol, y0, t_grid)
    wt, w, da = traj.y[..., 0], traj.y[..., 1], traj.y[..., 2]
    return ReducedTrajectory(
        t=traj.t,
        w=w,
        delta_a=da,
        alpha=attention(da, T, 1),
        loss=cross_sample_loss(wt, w, da, T, d, 0.0),
        n_steps=traj.n_steps,
        train_loss=cross_sample_loss(wt, w, da, T, d, p, c),
        w_tilde=wt,
    )


def scheduled_cross_sample_flow(
    T: float,
    d: float,
    p: float,
    schedule: "DiversitySchedule",
    t_max: float,
    x_tilde_norm: float = 1.0,
    logits: LogitParametrisation = "gap",
    points_per_decade: int = 200,
    rtol: float = 1e-9,
) -> tuple[ReducedTrajectory, float]:
    """The 3-D flow of one configuration with p(t) = p·r(t) (`schedules`), and the time repetition switched off.

    A step or triggered schedule is integrated in two segments, at p until the switch and at p = 0 from the
    state there on, so the integrator never steps across the discontinuity; the step time τ is added to the
    recording grid, and a trigger is checked at every recording point (its resolution: 10^(1/ppd) in time).
    An annealed schedule adds time to the state (dt/dt = 1) so that p(t) is smooth in it.
    Returns the trajectory (as `cross_sample_flow`'s) and the switch time (NaN if it never switched).
    """
    from .ode import integrate, lattice_grid

    rate = float(logit_rate(T, 1, logits))

    def rhs_at(level: float | None):
        def rhs(y: np.ndarray) -> np.ndarray:  # y: (1, 4) = (w̃, w, Δa, t)
            p_t = p * 2.0 ** (-y[:, 3] / schedule.at) if level is None else level
            g_wt, g_w, g_da = cross_sample_gradients(y[:, 0], y[:, 1], y[:, 2], T, d, p_t, x_tilde_norm)
            return np.stack([-g_wt, -g_w, -rate * g_da, np.ones_like(g_wt)], axis=1)
        return rhs

    def signal(y: np.ndarray) -> np.ndarray:
        values = {"alpha": lambda: attention(y[:, 2], T, 1),
                  "loss": lambda: cross_sample_loss(y[:, 0], y[:, 1], y[:, 2], T, d, 0.0),
                  "train_loss": lambda: cross_sample_loss(y[:, 0], y[:, 1], y[:, 2], T, d, p, x_tilde_norm)}
        return values[cast(str, schedule.signal)]()  # a triggered schedule has its signal

    grid = lattice_grid(t_max, points_per_decade)
    if schedule.kind == "step" and cast(float, schedule.at) < t_max:  # a step schedule has its time
        grid = np.unique(np.concatenate([grid, [schedule.at]]))
    y0 = np.zeros((1, 4))
    switch = float("nan")
    if schedule.kind == "annealed":
        whole = integrate(rhs_at(None), y0, grid, np.array([t_max]), rtol=rtol)
        states = whole.y[:, 0]
    else:
        if schedule.kind == "step":
            stop = lambda y: y[:, 3] >= cast(float, schedule.at) * (1 - 1e-12)  # noqa: E731
        elif schedule.kind == "triggered":
            stop = lambda y: np.array([schedule.fires(float(v)) for v in signal(y)])  # noqa: E731
        else:
            stop = None
        first = integrate(rhs_at(p), y0, grid, np.array([t_max]), stop=stop, rtol=rtol)
        states = first.y[:, 0]
        k = int(first.n_recorded[0])  # grid points recorded in the first segment
        if stop is not None and k < len(grid) and bool(stop(states[k - 1][None])[0]):
            switch = float(grid[k - 1])
            rest = grid[k - 1:] - switch
            second = integrate(rhs_at(0.0), states[k - 1][None], rest, np.array([t_max - switch]), rtol=rtol)
            states = np.concatenate([states[:k], second.y[1:, 0]])
            states[k:, 3] += switch  # the second segment counted time from the switch
    ok = np.isfinite(states[:, 0])
    wt, w, da = (states[ok, i][:, None] for i in range(3))
    traj = ReducedTrajectory(
        t=grid[ok], w=w, delta_a=da, alpha=attention(da, T, 1), loss=cross_sample_loss(wt, w, da, T, d, 0.0),
        n_steps=np.array([0]), train_loss=cross_sample_loss(wt, w, da, T, d, p, x_tilde_norm), w_tilde=wt,
    )
    return traj, switch


def _expm(M: np.ndarray) -> np.ndarray:
    """Matrix exponential by scaling and squaring of a Taylor series (small matrices; numpy has none)."""
    n = max(0, int(np.ceil(np.log2(max(float(np.abs(M).sum(1).max()), 1e-300)))) + 1)
    X, out, term = M / 2.0**n, np.eye(len(M)), np.eye(len(M))
    for k in range(1, 24):
        term = term @ X / k
        out = out + term
    for _ in range(n):
        out = out @ out
    return out


def linearised_system(T: float, d: float, p: float, c: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(b, J): the 3-D flow linearised at its start, dy/dt ≈ b + J y with y = (w̃, w, Δa) (central differences)."""
    def flow(y: np.ndarray) -> np.ndarray:
        return -np.array(cross_sample_gradients(y[0], y[1], y[2], T, d, p, c), dtype=float)

    b, J, h = flow(np.zeros(3)), np.zeros((3, 3)), 1e-6
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        J[:, j] = (flow(e) - flow(-e)) / (2 * h)
    return b, J


def _propagator(T: float, d: float, p: float, dt: float) -> np.ndarray:
    """exp(M dt) for the affine linearised flow in homogeneous coordinates (w̃, w, Δa, 1)."""
    b, J = linearised_system(T, d, p)
    M = np.zeros((4, 4))
    M[:3, :3], M[:3, 3] = J, b
    return _expm(M * dt)


def linearised_gap(T: float, d: float, p: float, tau: float, t_max: float, n_points: int = 4000) -> tuple[np.ndarray, np.ndarray]:
    """(t, Δa(t)) of the linearised flow trained at p until τ and at p = 0 after, on a uniform grid of
    ``n_points`` steps up to ``t_max`` (a step schedule; τ = inf: constant p). The switch is at the first grid
    point ≥ τ (resolution t_max / n_points)."""
    dt = t_max / n_points
    P_on, P_off = _propagator(T, d, p, dt), _propagator(T, d, 0.0, dt)
    t = np.arange(n_points + 1) * dt
    y, out = np.array([0.0, 0.0, 0.0, 1.0]), np.empty(n_points + 1)
    out[0] = 0.0
    for k in range(n_points):
        y = (P_on if t[k] < tau else P_off) @ y
        out[k + 1] = y[2]
    return t, out


def linearised_step_plateaus(T: float, d: float, p: float, taus: np.ndarray, constant_plateau: float,
                             t_max: float, n_points: int = 4000) -> np.ndarray:
    """The plateau the linearisation predicts under a step schedule, for each τ.

    The linearised flow cannot itself cross a loss threshold (it leaves its validity first), so escape is read
    as its gap Δa reaching a level, calibrated so that constant repetition escapes at its measured
    ``constant_plateau``. Then each τ's predicted plateau is when its piecewise-linear Δa reaches that level.
    """
    t, gap = linearised_gap(T, d, p, np.inf, t_max, n_points)
    level = float(np.interp(constant_plateau, t, gap))
    out = []
    for tau in np.asarray(taus, dtype=float):
        t, gap = linearised_gap(T, d, p, tau, t_max, n_points)
        above = np.flatnonzero(gap >= level)
        out.append(float(np.interp(level, gap[above[0] - 1: above[0] + 1], t[above[0] - 1: above[0] + 1])) if len(above) else np.inf)
    return np.array(out)
