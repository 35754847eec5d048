"""A small vectorised ODE integrator for the toy model's reduced dynamics.

Many configurations (T, d, B, ...) are integrated at once: each row of the
state has its own time, its own adaptive step and its own stopping rule, so
that a short run (small T) does not force tiny steps on a long one.

The scheme is Dormand–Prince 5(4) with per-row error control. Steps are
clipped so that every row lands exactly on each point of a shared recording
grid, which gives the loss "evaluated" on that grid, as a training run would.

Rows never mix: every operation is elementwise or a reduction within a row, and
the default grid (`lattice_grid`) has points that do not depend on the rows'
horizons, so a row's result is bit-identical alone or in any batch (tested).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

# Dormand–Prince 5(4) Butcher tableau (the nodes c are not needed: every flow here is autonomous).
_A = [
    [],
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
_B5 = np.array([35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0])
_B4 = np.array(
    [5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40]
)

# rhs(y) -> dy/dt, with y of shape (n_rows, n_state).
RHS = Callable[[np.ndarray], np.ndarray]
# stop(y) -> bool mask (n_rows,): rows that may stop at this recording point.
StopRule = Callable[[np.ndarray], np.ndarray]


@dataclass
class Trajectory:
    """States recorded on the grid. Rows that stopped early hold NaN after stopping."""

    t: np.ndarray  # (n_grid,)
    y: np.ndarray  # (n_grid, n_rows, n_state)
    n_recorded: np.ndarray  # (n_rows,) number of grid points recorded per row
    n_steps: np.ndarray  # (n_rows,) accepted steps per row


def time_grid(t_max: float, points_per_decade: int, t_min: float = 0.1) -> np.ndarray:
    """0 followed by a geometric grid from ``t_min`` to ``t_max`` (inclusive)."""
    n = int(np.ceil(np.log10(t_max / t_min) * points_per_decade)) + 1
    return np.concatenate([[0.0], np.geomspace(t_min, t_max, n)])


def lattice_grid(t_max: float, points_per_decade: int, t_min: float = 0.1) -> np.ndarray:
    """0 followed by the points t_min·10^(i/points_per_decade) up to ``t_max``.

    Unlike `time_grid`, every point is independent of ``t_max``: rows with different horizons integrated
    together land on exactly the points each would land on alone, so a run's result does not depend on
    which other runs share its batch.
    """
    points = _lattice(points_per_decade, t_min)
    if not t_max <= points[-1]:
        raise ValueError(f"t_max={t_max} lies beyond the lattice's {points[-1]:g} (t_min · 10^{_LATTICE_DECADES})")
    return np.concatenate([[0.0], points[: max(int(np.searchsorted(points, t_max * (1 + 1e-12), side="right")), 1)]])


_LATTICE_DECADES = 14


@functools.lru_cache(maxsize=16)
def _lattice(points_per_decade: int, t_min: float) -> np.ndarray:
    # Computed once at full length and sliced, so that no point's rounding depends on how many are asked for.
    points = t_min * 10.0 ** (np.arange(_LATTICE_DECADES * points_per_decade + 1) / points_per_decade)
    points.flags.writeable = False
    return points


def integrate(
    rhs: RHS,
    y0: np.ndarray,
    t_grid: np.ndarray,
    t_end: np.ndarray,
    stop: StopRule | None = None,
    rtol: float = 1e-8,
    atol: float = 1e-10,
    max_steps: int = 10_000_000,
) -> Trajectory:
    """Integrate ``dy/dt = rhs(y)`` for every row, recording on ``t_grid``.

    Args:
        rhs: vectorised right-hand side, (n_rows, n_state) -> (n_rows, n_state).
        y0: initial states, (n_rows, n_state). Recorded at ``t_grid[0]`` (must be 0).
        t_grid: increasing recording times shared by all rows, starting at 0.
        t_end: (n_rows,) time at which each row stops; grid points beyond are NaN.
        stop: optional rule evaluated at each recording point; a row stops once it is True.
        rtol, atol: per-component error tolerances of the adaptive step.
    """
    y = np.array(y0, dtype=np.float64)
    n_rows, n_state = y.shape
    assert t_grid[0] == 0.0, "the recording grid must start at t = 0"
    out = np.full((len(t_grid), n_rows, n_state), np.nan)
    out[0] = y
    t = np.zeros(n_rows)
    k = np.ones(n_rows, dtype=np.int64)  # index of the next grid point to record
    h = np.full(n_rows, max(t_grid[1], 1e-6))
    n_steps = np.zeros(n_rows, dtype=np.int64)
    active = t_grid[np.minimum(k, len(t_grid) - 1)] <= t_end + 1e-12
    active &= k < len(t_grid)
    if stop is not None:
        active &= ~stop(y)

    f0 = rhs(y)
    for _ in range(max_steps):
        if not active.any():
            break
        target = t_grid[np.minimum(k, len(t_grid) - 1)]
        h_try = np.where(active, np.minimum(h, target - t), 0.0)
        stages = [f0]
        for s in range(1, 7):
            incr = sum(_A[s][j] * stages[j] for j in range(s) if _A[s][j] != 0.0)
            stages.append(rhs(y + h_try[:, None] * incr))
        y5 = y + h_try[:, None] * sum(b * f for b, f in zip(_B5, stages) if b != 0.0)
        y4 = y + h_try[:, None] * sum(b * f for b, f in zip(_B4, stages) if b != 0.0)
        scale = atol + rtol * np.maximum(np.abs(y), np.abs(y5))
        err = np.max(np.abs(y5 - y4) / scale, axis=1)  # (n_rows,)
        err = np.where(np.isfinite(err), err, np.inf)
        accept = active & (err <= 1.0)

        # Accepted rows advance; the last stage is f(y5) (first-same-as-last).
        y = np.where(accept[:, None], y5, y)
        f0 = np.where(accept[:, None], stages[6], f0)
        t = np.where(accept, t + h_try, t)
        n_steps += accept
        # Step-size update (standard safety factor, bounded growth/shrink).
        factor = np.clip(0.9 * np.power(np.maximum(err, 1e-12), -0.2), 0.2, 5.0)
        grown = h_try * factor
        # A row that only reached a grid point keeps its natural step for next time.
        h = np.where(active, np.where(accept & (h_try < h), np.maximum(h, grown), grown), h)

        landed = accept & np.isclose(t, target, rtol=1e-12, atol=1e-12)
        if landed.any():
            rows = np.flatnonzero(landed)
            t[rows] = target[rows]
            out[k[rows], rows] = y[rows]
            k[rows] += 1
            still = k < len(t_grid)
            nxt = t_grid[np.minimum(k, len(t_grid) - 1)]
            finished = landed & (~still | (nxt > t_end + 1e-12))
            if stop is not None:
                finished |= landed & stop(y)
            active &= ~finished
    else:
        raise RuntimeError(f"integrate: exceeded max_steps={max_steps}")
    return Trajectory(t=t_grid, y=out, n_recorded=k, n_steps=n_steps)


def gradient_flow(
    rhs: RHS,
    loss: Callable[[np.ndarray], np.ndarray],
    n_state: int,
    t_max: np.ndarray,
    stop_below: np.ndarray | float | None = None,
    points_per_decade: int = 200,
    rtol: float = 1e-9,
    y0: np.ndarray | None = None,
    t_grid: np.ndarray | None = None,
) -> Trajectory:
    """`integrate` set up as the reduced models use it.

    Starts from 0 (or ``y0``), records on the geometric lattice up to
    max(``t_max``) (or on ``t_grid``), and stops a row at the first recording
    point where ``loss(y)`` is below its ``stop_below``.
    """
    n = t_max.size
    stop = None
    if stop_below is not None:
        floor = np.broadcast_to(np.asarray(stop_below, dtype=float), (n,))

        def stop(y: np.ndarray) -> np.ndarray:
            return loss(y) < floor

    # The lattice, not geomspace up to max(t_max): a row's recording points must not depend on its batch.
    grid = lattice_grid(float(t_max.max()), points_per_decade) if t_grid is None else np.asarray(t_grid, dtype=float)
    start = np.zeros((n, n_state)) if y0 is None else np.asarray(y0, dtype=float).reshape(n, n_state)
    return integrate(rhs, start, grid, t_end=t_max, stop=stop, rtol=rtol)
