"""Plateau lengths and power-law fits (paper App. D.1–D.2), and the lack-of-fit test of a fit over seeds. The
intervals and distributions they use are in `stats` (re-exported here)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd

from .stats import f_survival
from .stats import incomplete_beta, paired_seed_interval, t_quantile_975, wilson_interval  # noqa: F401  (re-exported)

# `plateau_length` returns this when the loss never crosses the threshold.
# It is +inf, not a plausible number: any mean it enters becomes inf, and
# `fit_power_law` refuses it. Use `reached()` to test for it.
NOT_REACHED: float = math.inf


def reached(plateau: float | np.ndarray) -> bool | np.ndarray:
    """True where a plateau length is a real crossing time (not NOT_REACHED, not NaN)."""
    return np.isfinite(plateau)


def first_crossing(
    times: Sequence[float] | np.ndarray,
    values: Sequence[float] | np.ndarray,
    level: float,
    direction: Literal["down", "up"] = "down",
    log: bool = False,
) -> float:
    """First time ``values`` reach ``level`` (from above for "down", below for "up").

    Interpolated linearly in time between the last evaluation before the
    crossing and the first one at or past it; in log-value if ``log`` (for
    losses, which fall exponentially near the crossing). Non-finite values
    (a diverged run) never count as crossed.

    Returns the crossing time, or ``NOT_REACHED`` (+inf) if no evaluation crosses.
    """
    t = np.asarray(times, dtype=float)
    y = np.asarray(values, dtype=float)
    if t.shape != y.shape or t.ndim != 1:
        raise ValueError(f"times and values must be 1-D of equal length, got {t.shape} and {y.shape}")
    if direction not in ("down", "up"):
        raise ValueError(f"direction must be 'down' or 'up', got {direction!r}")
    past = np.isfinite(y) & ((y <= level) if direction == "down" else (y >= level))
    if not past.any():
        return NOT_REACHED
    i = int(np.argmax(past))
    if i == 0:
        return float(t[0])
    t0, t1, y0, y1 = t[i - 1], t[i], y[i - 1], y[i]
    f = np.log if log else (lambda v: v)
    if not np.isfinite(y0) or (log and min(y0, y1, level) <= 0) or y0 == y1:
        return float(t1)
    frac = (f(y0) - f(level)) / (f(y0) - f(y1))
    return float(t0 + frac * (t1 - t0))


def plateau_length(
    times: Sequence[float] | np.ndarray,
    losses: Sequence[float] | np.ndarray,
    threshold: float = 0.1,
) -> float:
    """First time the loss falls to ``threshold`` (0.1 by default), interpolated in log-loss.

    Returns the crossing time, in the units of ``times``, or ``NOT_REACHED``
    (+inf) if no evaluation is at or below the threshold.
    """
    if not threshold > 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    return first_crossing(times, losses, threshold, direction="down", log=True)


def time_to_fraction(
    times: Sequence[float] | np.ndarray,
    values: Sequence[float] | np.ndarray,
    start: float,
    target: float,
    fraction: float,
) -> float:
    """First time a quantity has covered ``fraction`` of the way from ``start`` to ``target``.

    E.g. w going 0 → √d, or α going 1/T → 1; it makes "w moves before α" measurable.
    """
    progress = (np.asarray(values, dtype=float) - start) / (target - start)
    return first_crossing(times, progress, fraction, direction="up")


@dataclass
class PowerLawFit:
    """target ≈ constant · Π_k x_k^exponent_k, fitted by least squares on logs."""

    target: str
    predictors: list[str]
    constant: float
    exponents: dict[str, float]
    stderr: dict[str, float]  # standard errors of the exponents
    log_constant_stderr: float  # standard error of ln(constant)
    r2: float
    n: int
    residuals: np.ndarray = field(repr=False)
    covariance: np.ndarray | None = field(default=None, repr=False)  # of (ln C, exponents...), from the fit

    def predict(self, data: pd.DataFrame | dict[str, np.ndarray]) -> np.ndarray:
        """Evaluate the fitted law on new predictor values."""
        log_y = np.log(self.constant) + sum(
            self.exponents[p] * np.log(np.asarray(data[p], dtype=float)) for p in self.predictors
        )
        return np.exp(log_y)

    def prediction_interval(self, data: pd.DataFrame | dict[str, np.ndarray], z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
        """(low, high) for a *new run* at these predictor values: the parameters' uncertainty (their covariance)
        plus the residual scatter of one run about the law, ± z standard deviations in log space."""
        if self.covariance is None:
            raise ValueError("this fit carries no covariance")
        X = np.column_stack([np.ones(len(np.atleast_1d(data[self.predictors[0]])))] +
                            [np.log(np.atleast_1d(np.asarray(data[p], dtype=float))) for p in self.predictors])
        sigma2 = float(self.residuals @ self.residuals) / max(self.n - X.shape[1], 1)
        sd = np.sqrt(np.einsum("ij,jk,ik->i", X, self.covariance, X) + sigma2)
        centre = np.log(self.predict(data))
        return np.exp(centre - z * sd), np.exp(centre + z * sd)

    def formula(self, digits: int = 2) -> str:
        """E.g. '1.52·d^0.49·T^0.99'."""
        terms = [f"{self.constant:.{digits}f}"]
        terms += [f"{p}^{self.exponents[p]:.{digits}f}" for p in self.predictors]
        return "·".join(terms)

    def table(self, reference: dict[str, float] | None = None) -> pd.DataFrame:
        """Tidy table of the fit (one row per quantity), with a paper column if given."""
        rows = [{"quantity": "C", "ours": self.constant, "± (1 s.e.)": self.constant * self.log_constant_stderr}]
        rows += [
            {"quantity": f"exponent of {p}", "ours": self.exponents[p], "± (1 s.e.)": self.stderr[p]}
            for p in self.predictors
        ]
        rows.append({"quantity": "R²", "ours": self.r2, "± (1 s.e.)": np.nan})
        df = pd.DataFrame(rows)
        if reference is not None:
            keys = ["C"] + list(self.predictors) + ["R2"]
            df["paper"] = [reference.get(k, np.nan) for k in keys]
        return df.set_index("quantity")


def _fit_values(data: pd.DataFrame, predictors: list[str], target: str, n_params: int, who: str) -> np.ndarray:
    """The (target, *predictors) columns as floats, refusing missing columns, non-positive or non-finite values."""
    missing = [c for c in [target, *predictors] if c not in data.columns]
    if missing:
        raise KeyError(f"{who}: columns {missing} not in the table (has {list(data.columns)})")
    values = data[[target, *predictors]].to_numpy(dtype=float)
    bad = ~np.all(np.isfinite(values) & (values > 0), axis=1)
    if bad.any():
        raise ValueError(
            f"{who}: {int(bad.sum())} row(s) have non-positive or non-finite "
            f"{[target, *predictors]} (e.g. a plateau that was NOT_REACHED); filter them "
            f"explicitly first. Offending rows:\n{data.loc[bad, [target, *predictors]]}"
        )
    if len(values) <= n_params:
        raise ValueError(f"{who}: need more than {n_params} rows to fit {n_params} parameters, got {len(values)}")
    return values


def fit_power_law(
    data: pd.DataFrame,
    predictors: Sequence[str],
    target: str = "plateau_length",
) -> PowerLawFit:
    """Fit target = C · Π x_p^e_p by ordinary least squares on log values (Eq. 23).

    ``predictors`` is any subset of the table's columns: e.g. ["d", "T"],
    ["d", "T_over_B"] or a derived column such as f(p, d) (see
    `add_cross_sample_factor`). Rows must have finite, positive values:
    a NOT_REACHED plateau is an error here, never silently dropped.
    """
    predictors = list(predictors)
    values = _fit_values(data, predictors, target, len(predictors) + 1, "fit_power_law")
    n, k = len(values), len(predictors) + 1
    logs = np.log(values)
    y = logs[:, 0]
    X = np.column_stack([np.ones(n), logs[:, 1:]])
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    ss_res = float(resid @ resid)
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    sigma2 = ss_res / (n - k)
    cov = sigma2 * np.linalg.pinv(X.T @ X)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return PowerLawFit(
        target=target,
        predictors=predictors,
        constant=float(np.exp(coef[0])),
        exponents={p: float(c) for p, c in zip(predictors, coef[1:])},
        stderr={p: float(s) for p, s in zip(predictors, se[1:])},
        log_constant_stderr=float(se[0]),
        r2=1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan"),
        n=n,
        residuals=resid,
        covariance=cov,
    )


@dataclass
class OffsetPowerLawFit:
    """target ≈ offset + constant · Π_k x_k^exponent_k, fitted by least squares on log(target).

    The offset t₀ ≥ 0 is a fixed overhead that every run pays (e.g. steps spent
    before the plateau proper): with it, the exponents describe how the
    *remaining* time scales, which short plateaus otherwise understate.
    """

    target: str
    predictors: list[str]
    offset: float
    offset_stderr: float
    constant: float
    exponents: dict[str, float]
    stderr: dict[str, float]
    r2: float
    n: int

    def predict(self, data: pd.DataFrame | dict[str, np.ndarray]) -> np.ndarray:
        scale = self.constant * np.prod([np.asarray(data[p], dtype=float) ** self.exponents[p] for p in self.predictors], axis=0)
        return self.offset + scale

    def formula(self, digits: int = 2) -> str:
        """E.g. '40 + 1.52·d^0.49·T^0.99'."""
        terms = [f"{self.constant:.{digits}f}"] + [f"{p}^{self.exponents[p]:.{digits}f}" for p in self.predictors]
        return f"{self.offset:.0f} + " + "·".join(terms)


def fit_offset_power_law(
    data: pd.DataFrame, predictors: Sequence[str], target: str = "plateau_length", iterations: int = 100
) -> OffsetPowerLawFit:
    """Fit target = t₀ + C · Π x_p^e_p (t₀ ≥ 0) by least squares on log(target).

    A profile over t₀ ∈ [0, 0.95 · min target) (an ordinary fit of log(target − t₀)
    at each) gives the start; damped Gauss–Newton then minimises the log-residuals
    over all parameters at once. Standard errors come from the Jacobian at the optimum.
    """
    predictors = list(predictors)
    values = _fit_values(data, predictors, target, len(predictors) + 2, "fit_offset_power_law")
    t, logx = values[:, 0], np.log(values[:, 1:])
    y = np.log(t)
    X = np.column_stack([np.ones(len(t)), logx])  # (n, k): the log-linear part

    def residuals(t0: float, coef: np.ndarray) -> np.ndarray:
        return y - np.log(t0 + np.exp(X @ coef))

    best: tuple[float, float, np.ndarray] | None = None
    for t0 in np.linspace(0.0, 0.95 * t.min(), 96):
        coef, *_ = np.linalg.lstsq(X, np.log(t - t0), rcond=None)
        sse = float(np.sum(residuals(t0, coef) ** 2))
        if best is None or sse < best[0]:
            best = (sse, t0, coef)
    assert best is not None  # the profile above has 96 points
    sse, t0, coef = best
    damping = 1e-3
    for _ in range(iterations):
        m = np.exp(X @ coef)
        J = np.column_stack([1.0 / (t0 + m), (m / (t0 + m))[:, None] * X])  # d prediction / d (t0, coef)
        r = residuals(t0, coef)
        step = np.linalg.solve(J.T @ J + damping * np.diag(np.diag(J.T @ J)), J.T @ r)
        t0_new, coef_new = max(t0 + step[0], 0.0), coef + step[1:]
        sse_new = float(np.sum(residuals(t0_new, coef_new) ** 2))
        if sse_new < sse:
            t0, coef, sse, damping = t0_new, coef_new, sse_new, damping / 3
        else:
            damping *= 10
        if damping > 1e8:
            break
    m = np.exp(X @ coef)
    J = np.column_stack([1.0 / (t0 + m), (m / (t0 + m))[:, None] * X])
    n, k = len(t), X.shape[1] + 1
    cov = sse / (n - k) * np.linalg.pinv(J.T @ J)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    return OffsetPowerLawFit(
        target=target, predictors=predictors, offset=float(t0), offset_stderr=float(se[0]),
        constant=float(np.exp(coef[0])), exponents={p: float(c) for p, c in zip(predictors, coef[1:])},
        stderr={p: float(s_) for p, s_ in zip(predictors, se[2:])},
        r2=1.0 - sse / ss_tot if ss_tot > 0 else float("nan"), n=n,
    )


def compare_fits(
    data: pd.DataFrame, predictors: Sequence[str], paper: dict[str, float] | None = None, target: str = "plateau_length"
) -> pd.DataFrame:
    """Two readings of the same runs beside the paper's law: rows "power law", "offset law" (and "paper").

    Columns: the offset t₀ (0 for the plain law), C, each predictor's exponent with its standard
    error ("± name"), R² (on log values) and the number of points. With too few points for the
    offset law's extra parameter (a smoke-scale grid), its row is NaN.
    """
    plain = fit_power_law(data, predictors, target)
    offset = fit_offset_power_law(data, predictors, target) if len(data) > len(predictors) + 2 else None
    rows: list[dict[str, Any]] = []
    for name, fit in [("power law", plain), ("offset law", offset)]:
        if fit is None:
            rows.append({"fit": name, "points": len(data)})
            continue
        row: dict[str, float | str] = {"fit": name, "t₀": getattr(fit, "offset", 0.0), "C": fit.constant}
        for p in predictors:
            row[p], row[f"± {p}"] = fit.exponents[p], fit.stderr[p]
        rows.append(row | {"R²": fit.r2, "points": fit.n})
    if paper is not None:
        rows.append({"fit": "paper", "t₀": np.nan, "C": paper.get("C", np.nan), **{p: paper.get(p, np.nan) for p in predictors},
                     "R²": paper.get("R2", np.nan)})
    return pd.DataFrame(rows).set_index("fit")


def compare_fits_by(
    tables: dict[str, pd.DataFrame], predictors: Sequence[str], papers: dict[str, dict[str, float]] | None = None
) -> pd.DataFrame:
    """`compare_fits` for several tables (e.g. one per task variant), stacked under a first index level "variant"."""
    papers = papers or {}
    return pd.concat({name: compare_fits(t, predictors, papers.get(name)) for name, t in tables.items()}, names=["variant"])


def add_cross_sample_factor(data: pd.DataFrame, p: str = "p", d: str = "d", name: str = "f_pd") -> pd.DataFrame:
    """Add the column f(p, d) = √(p² d + (1 − p)²) of Eq. 22."""
    out = data.copy()
    out[name] = np.sqrt(out[p] ** 2 * out[d] + (1 - out[p]) ** 2)
    return out


def add_cross_sample_predictor(data: pd.DataFrame, name: str = "x") -> pd.DataFrame:
    """Add x = √d·T / f(p, d), the timescale of the linearised cross-sample dynamics (Fig. 2 right)."""
    out = add_cross_sample_factor(data)
    out[name] = np.sqrt(out["d"]) * out["T"] / out["f_pd"]
    return out


def mean_over_seeds(summary: pd.DataFrame, by: Sequence[str], value: str = "plateau_length") -> pd.DataFrame:
    """Average ``value`` over seeds within each group of ``by`` (the paper's "average plateau length").

    A group's mean is NOT_REACHED (inf) if any of its seeds did not reach the
    threshold, and NaN if one diverged: a censored mean is never a number.
    Columns: ``by``, value (mean), ``std``, ``n_seeds``, ``n_reached``.
    """
    rows = []
    for key, g in summary.groupby(list(by), sort=True):
        v = g[value].to_numpy(dtype=float)
        mean = float(np.mean(v)) if np.all(np.isfinite(v)) else (np.nan if np.isnan(v).any() else NOT_REACHED)
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, key)), value: mean, "std": float(np.std(v)) if np.isfinite(mean) else np.nan,
                     "n_seeds": len(v), "n_reached": int(np.isfinite(v).sum())})
    return pd.DataFrame(rows)


def plateau_level(
    times: Sequence[float] | np.ndarray, losses: Sequence[float] | np.ndarray, end: float, window: tuple[float, float] = (0.1, 0.8)
) -> float:
    """The median loss over the plateau: evaluations between window[0]·end and window[1]·end.

    ``end`` is the plateau length (a crossing time). Skipping the first 10%
    leaves out the initial transient; stopping at 80% leaves out the drop.
    """
    t = np.asarray(times, dtype=float)
    y = np.asarray(losses, dtype=float)
    inside = (t >= window[0] * end) & (t <= window[1] * end) & np.isfinite(y)
    return float(np.median(y[inside])) if inside.any() else float("nan")


def lack_of_fit_test(runs: pd.DataFrame, predictors: Sequence[str], target: str) -> dict[str, float]:
    """The lack-of-fit F test of the power law in ``predictors`` on every run's log ``target`` (runs with the same
    predictor values are one point: their scatter about the point's mean is pure error). F on (points − k, runs −
    points) degrees of freedom and its p; a small p says the law misfits the points by more than seeds scatter, so
    a fit that counts each seed as a point has too narrow intervals (a fit on point means does not)."""
    v = runs[target].to_numpy(float)  # an empty table's column has no numeric type
    finite = runs[np.isfinite(v) & (v > 0)]
    groups = [np.log(g[target].to_numpy(float)) for _, g in finite.groupby(list(predictors))]
    keys = [k if isinstance(k, tuple) else (k,) for k, _ in finite.groupby(list(predictors))]
    n, m, k = sum(len(g) for g in groups), len(groups), len(predictors) + 1
    if m <= k or n <= m:
        return {"F": float("nan"), "df_lack": float(m - k), "df_pure": float(n - m), "p": float("nan")}
    X = np.array([[1.0] + [math.log(float(v)) for v in key] for key, g in zip(keys, groups) for _ in g])
    y = np.concatenate(groups)
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    ss_res = float(((y - X @ beta) ** 2).sum())
    ss_pure = float(sum(((g - g.mean()) ** 2).sum() for g in groups))
    df_lack, df_pure = m - k, n - m
    F = ((ss_res - ss_pure) / df_lack) / (ss_pure / df_pure) if ss_pure > 0 else float("inf")
    return {"F": F, "df_lack": float(df_lack), "df_pure": float(df_pure), "p": f_survival(F, df_lack, df_pure)}

# A run "leaves its plateau" once its loss falls below 0.45 (10% of the way down from ½); a reading "removes the
# plateau" where the descent from there to the threshold is over half of the measured plateau (registered with the
# d = 16 screen, `claims.bend`; the book's reading at d = 8 spends a few percent to a fifth of its plateau in the descent).
LEAVES = 0.45
NO_PLATEAU_SHARE = 0.5


def descent_share(steps: np.ndarray, loss: np.ndarray, plateau: float) -> float:
    """The share of a measured plateau that is the descent itself: (plateau − the step where the loss first falls
    below `LEAVES`) / plateau, the crossing interpolated in log-step as the plateau is; nan where it never crossed."""
    if not np.isfinite(plateau) or plateau <= 0:
        return float("nan")
    below = np.nonzero(loss < LEAVES)[0]
    if not len(below):
        return float("nan")
    i = int(below[0])
    if i == 0:
        return 1.0
    s0, s1, l0, l1 = max(steps[i - 1], 1.0), max(steps[i], 1.0), loss[i - 1], loss[i]
    leave = math.exp(math.log(s0) + (l0 - LEAVES) / (l0 - l1) * (math.log(s1) - math.log(s0)))
    return float(min(max((plateau - leave) / plateau, 0.0), 1.0))
