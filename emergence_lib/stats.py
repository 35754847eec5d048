"""The few distributions and intervals the book's verdicts use, written out (scipy is not a dependency): Student's
t quantile, a paired interval over seeds, Wilson's interval for a proportion, and the F distribution's tail (through
the regularized incomplete beta function). `metrics` re-exports them."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

# Student's t 97.5% quantiles for 1–30 degrees of freedom (printed tables; scipy is not a dependency).
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t_quantile_975(df: float) -> float:
    """Student's t quantile at 0.975 (a two-sided 95% interval) for ``df`` ≥ 1 degrees of freedom: the table,
    linear in 1/df between its rows (Welch's df are not integers), and the Cornish–Fisher series past 30."""
    if not df >= 1:
        raise ValueError(f"a t interval needs ≥ 1 degree of freedom, got {df}")
    if df > 30:
        z, v = 1.959964, float(df)
        return z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2) \
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    lo = int(df)
    if lo == df or lo == 30:
        return _T975[lo - 1]
    w = (1 / lo - 1 / df) / (1 / lo - 1 / (lo + 1))
    return (1 - w) * _T975[lo - 1] + w * _T975[lo]


def paired_seed_interval(ours: Sequence[float] | np.ndarray, baseline: Sequence[float] | np.ndarray, log: bool = True) -> tuple[float, float, float]:
    """A paired comparison over seeds: the mean of the per-seed log ratios ``baseline / ours`` (``log``: returned
    as a ratio, > 1 when ours is smaller, e.g. fewer steps) or of the differences ``ours − baseline``, with its 95% t
    interval. Seeds are paired by position. A pair with a value that is not finite (a run that never emerged) or
    fewer than two pairs give a NaN interval (inconclusive): dropping such a seed would bias the comparison."""
    a, b = np.asarray(ours, dtype=float), np.asarray(baseline, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired seeds need equal lengths, got {a.shape} and {b.shape}")
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log(b / a) if log else a - b
    finite = x[np.isfinite(x)]
    if len(finite) == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(finite.mean())
    if len(finite) < 2 or len(finite) < len(x):
        low = high = float("nan")
    else:
        half = t_quantile_975(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))
        low, high = m - half, m + half
    if log:
        return math.exp(m), math.exp(low), math.exp(high)
    return m, low, high


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float, float]:
    """A proportion ``successes / n`` with its Wilson 95% score interval (sound at small n and at 0 or n)."""
    if n <= 0:
        return float("nan"), float("nan"), float("nan")
    p = successes / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / (1 + z**2 / n)
    # At 0 or n one bound is exactly p; rounding can put it a hair outside (1 - 1e-16 at n of n), and an error bar
    # drawn from it would be negative.
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz; NR §6.4)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-14:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 ≤ x ≤ 1."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    ln_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(ln_front) * _betacf(a, b, x) / a
    return 1 - math.exp(ln_front) * _betacf(b, a, 1 - x) / b


def f_survival(F: float, df1: float, df2: float) -> float:
    """P(X ≥ F) for X ~ F(df1, df2): the p-value of an F test."""
    if not F > 0:
        return 1.0
    if math.isinf(F):
        return 0.0
    return incomplete_beta(df2 / 2, df1 / 2, df2 / (df2 + df1 * F))
