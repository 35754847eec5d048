"""Beyond the paper (2): when will emergence happen?

* `predict_emergence(config)`: a predicted plateau (or emergence step) with an
  interval, before any training. The toy model's comes from its reduced flow
  (deterministic: the interval is the flow's own, zero up to the integrator's
  tolerance); the Transformers' from the power laws fitted to the cached runs
  of Figures 3 (regression) and 4 (recall) at the scale they were fitted on,
  with the fit's parameter covariance and the scatter of a single run.
* `early_warning(t, gap, observed_until, level)`: from the first part of one
  run. During the plateau the linearisation says the attention logit gap grows
  like A(cosh λt − 1); fitting A and λ to the record up to ``observed_until``
  and solving A(cosh λt − 1) = ``level`` extrapolates to the crossing. The
  level is in the fitted curve's own units (the linearisation underestimates
  the real gap near the crossing, where it has stopped holding), so it is
  calibrated on *other* runs of the same task: `calibrate_level`, used
  leave-one-out by `blind_early_warning`, whose observation window closes when
  the run's own gap first reaches a level: never at a fraction of its measured
  crossing, which would hand the prediction its time scale.
* the held-out configurations that validate both (`runs.Prediction`) were
  fixed before any of them was run.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ... import attention
from ...cache import run_key
from ...configs import ConfigError, Scale, ToyFlowConfig, ToyFullGDConfig, TransformerRecallConfig, TransformerRegressionConfig
from ..base import cache_for
from ..recall.runs import Figure4
from ..regression.runs import Figure3
from .runs import Prediction
from ...runs import run_toy_flow
from ...metrics import NOT_REACHED, PowerLawFit, fit_power_law, mean_over_seeds
from ...sweep import run_sweep
from ..regression.read import figure3_tables

# ------------------------------------------------------------------ predict_emergence --


@dataclass(frozen=True)
class EmergencePrediction:
    """A predicted plateau length (toy: physical time; Transformers: steps) with a 95% interval."""

    value: float
    low: float
    high: float
    method: str


def _differing_fields(config: Any, reference: Any, free: Sequence[str]) -> list[str]:
    """The fields other than ``free`` in which ``config`` differs from ``reference`` (same class)."""
    return [f.name for f in dataclasses.fields(config)
            if f.name not in free and getattr(config, f.name) != getattr(reference, f.name)]


@functools.lru_cache(maxsize=8)
def regression_law(scale: Scale = "cpu") -> tuple[PowerLawFit, TransformerRegressionConfig]:
    """Figure 3's law C·d^α·T^β·B^γ, fitted on the seed means of its cached B = 1 and B > 1 runs (its "joint"
    table), and the run config it holds for (seed 0)."""
    fig = Figure3(scale=scale)
    results = fig.run(progress=False)
    joint = figure3_tables(results, fig.grid)["joint"]
    joint = joint[np.isfinite(joint["plateau_length"])]
    return fit_power_law(joint, ["d", "T", "B"]), fig.sweeps()["T"][0]


@functools.lru_cache(maxsize=8)
def recall_law(scale: Scale, lr: float) -> tuple[PowerLawFit, TransformerRecallConfig]:
    """Figure 4's law C·N_tokens^α·N_pairs^β at one learning rate, fitted on the seed means of its cached runs."""
    fig = Figure4(scale=scale)
    runs = [r for r in fig.sweeps()["grid"] if r.lr == lr]
    if not runs:
        raise ConfigError(f"lr must be one of Figure 4's learning rates at scale {scale!r} "
                          f"({sorted({r.lr for r in fig.sweeps()['grid']})}), got {lr}")
    summary = run_sweep(runs, cache_for(scale), progress=False, executor="serial").summary
    table = mean_over_seeds(summary, ["n_tokens", "n_pairs"], value="emergence_step")
    table = table[np.isfinite(table["emergence_step"])]
    return fit_power_law(table, ["n_tokens", "n_pairs"], target="emergence_step"), runs[0]


def predict_emergence(config: Any, scale: Scale = "cpu") -> EmergencePrediction:
    """The plateau (toy, regression) or emergence step (recall) of ``config``, predicted before training it.

    * `ToyFlowConfig`, or `ToyFullGDConfig` from the reduction's start (zero init): the reduced flow.
    * `TransformerRegressionConfig`: Figure 3's fitted law; the config must be one of Figure 3's runs at
      ``scale`` but for T, d, B and the seed (otherwise the law says nothing about it: a ConfigError names
      the fields that differ).
    * `TransformerRecallConfig`: Figure 4's law at the config's learning rate, with the same rule.
    """
    if isinstance(config, (ToyFlowConfig, ToyFullGDConfig)):
        return predict_toy([config])[0]
    reference: TransformerRegressionConfig | TransformerRecallConfig
    free: tuple[str, ...]
    if isinstance(config, TransformerRegressionConfig):
        fit, reference = regression_law(scale)
        free = ("T", "d", "B", "seed", "record_attention", "stop_factor", "max_steps")
        what = "Figure 3's law"
        point = {"d": [config.d], "T": [config.T], "B": [config.B]}
    elif isinstance(config, TransformerRecallConfig):
        fit, reference = recall_law(scale, config.lr)
        free = ("n_tokens", "n_pairs", "seed", "stop_factor", "max_steps")
        what = f"Figure 4's law at lr {config.lr:g}"
        point = {"n_tokens": [config.n_tokens], "n_pairs": [config.n_pairs]}
    else:
        raise ConfigError(f"predict_emergence takes a toy, regression or recall run config, got {type(config).__name__}")
    differ = _differing_fields(config, reference, free)
    if differ:
        raise ConfigError(f"predict_emergence: {what} was fitted at scale {scale!r} on runs that differ from this "
                          f"config in {differ}; it predicts only for those runs' settings")
    low, high = fit.prediction_interval(point)
    return EmergencePrediction(float(fit.predict(point)[0]), float(low[0]), float(high[0]), f"{what} ({fit.formula()})")


def _flow_config(config: Any) -> ToyFlowConfig:
    """The reduced flow that predicts a toy run: itself, or a full-GD run's reduction (from W = 0, a = 0)."""
    if isinstance(config, ToyFullGDConfig):
        if config.init != "zero":
            raise ConfigError("predict_emergence: the reduced flow starts from W = 0, a = 0 (init='zero'); got init='gaussian'")
        return ToyFlowConfig(T=config.T, d=config.d, B=config.B, p=config.p, x_tilde_norm=config.x_tilde_norm,
                             threshold=config.threshold)
    return config


def predict_toy(configs: Sequence[Any], cache: Any = None) -> list[EmergencePrediction]:
    """`predict_emergence` for many toy configs at once: their reduced flows integrate as one batch (each result is
    bit-identical alone or in any batch, `configs.ToyFlowConfig`), read from ``cache`` where it holds them (the
    3-D flows of cross-sample repetition take minutes)."""
    flows = [_flow_config(c) for c in configs]
    if cache is None:
        values = [float(r.summary["plateau_length"]) for r in run_toy_flow(flows)]
    else:
        summary = run_sweep(flows, cache, progress=False, executor="serial").summary.set_index("run")
        values = [float(summary.loc[run_key(f), "plateau_length"]) for f in flows]
    return [EmergencePrediction(v, v, v, "reduced flow (Eqs. 12–14; 3-D with p > 0)") for v in values]


# ------------------------------------------------------------------ early warning --


@dataclass(frozen=True)
class GrowthFit:
    """gap(t) ≈ A·(cosh λt − 1) fitted to the record up to ``observed_until``."""

    amplitude: float
    rate: float
    observed_until: float
    n_points: int

    def gap(self, t: np.ndarray | float) -> np.ndarray:
        return self.amplitude * (np.cosh(self.rate * np.asarray(t, dtype=float)) - 1.0)

    def time_to(self, level: float) -> float:
        """When the fitted growth reaches ``level`` (NOT_REACHED if it does not grow)."""
        if not (self.amplitude > 0 and self.rate > 0 and level > 0):
            return NOT_REACHED
        return float(np.arccosh(1.0 + level / self.amplitude) / self.rate)


def fit_growth(t: np.ndarray, gap: np.ndarray, observed_until: float, min_points: int = 5) -> GrowthFit | None:
    """Least-squares A·(cosh λt − 1) on the points with 0 < t ≤ ``observed_until`` (None if too few).

    λ is searched on a log grid (from 0.1 to 100 over the window) and refined once; for each λ the best A is
    linear least squares. Only the gap's rise over its start enters: ``gap`` should be gap(t) − gap(0).
    """
    t, gap = np.asarray(t, dtype=float), np.asarray(gap, dtype=float)
    keep = (t > 0) & (t <= observed_until) & np.isfinite(gap)
    if keep.sum() < min_points:
        return None
    tt, gg = t[keep], gap[keep]

    def best(rates: np.ndarray) -> tuple[float, float, float]:
        basis = np.cosh(np.outer(rates, tt)) - 1.0  # (n_rates, n_points)
        amp = np.maximum((basis @ gg) / np.maximum((basis * basis).sum(1), 1e-300), 0.0)
        err = ((basis * amp[:, None] - gg) ** 2).sum(1)
        i = int(np.argmin(err))
        return float(rates[i]), float(amp[i]), float(err[i])

    horizon = float(tt.max())
    rate, _, _ = best(np.geomspace(0.1, 100.0, 241) / horizon)
    rate, amp, _ = best(rate * np.geomspace(0.95, 1.05, 41))
    return GrowthFit(amp, rate, observed_until, int(keep.sum()))


def calibrate_level(fits: Sequence[GrowthFit | None], crossings: Sequence[float]) -> float:
    """The crossing level in the fitted curves' own units: the median of A(cosh λ t_cross − 1) over runs."""
    values = [f.gap(t) for f, t in zip(fits, crossings) if f is not None and np.isfinite(t)]
    return float(np.median(values)) if values else float("nan")


def logit_gap(mass: np.ndarray) -> np.ndarray:
    """The attention logit gap a mass m on the relevant token(s) implies, relative to its start: logit m − logit m₀.
    (For the toy, α = 1/((T−1)e^{−Δa} + 1) makes this Δa − Δa₀ exactly.)"""
    m = np.clip(np.asarray(mass, dtype=float), 1e-12, 1 - 1e-12)
    z = np.log(m / (1 - m))
    return z - z[0]


def observed_gap(t: np.ndarray, gaps: np.ndarray, observed_until: float) -> np.ndarray:
    """The gap to extrapolate: ``gaps`` itself if 1-D; if (n, heads), the head whose gap is largest at the last
    observed point (the one carrying the pattern, as far as the observer can tell then)."""
    gaps = np.asarray(gaps, dtype=float)
    if gaps.ndim == 1:
        return gaps
    seen = np.flatnonzero(np.asarray(t) <= observed_until)
    return gaps[:, int(np.argmax(gaps[seen[-1]]))] if len(seen) else gaps[:, 0]


def window_end(t: np.ndarray, gaps: np.ndarray, level: float) -> float:
    """The first recorded time at which the observed gap (the largest head's, for several) reaches ``level``: an
    observation window that an observer can close without knowing when the run will cross (NaN if never)."""
    gaps = np.asarray(gaps, dtype=float)
    top = gaps if gaps.ndim == 1 else np.nanmax(gaps, axis=1)
    hit = np.flatnonzero((np.asarray(t) > 0) & (top >= level))
    return float(np.asarray(t)[hit[0]]) if len(hit) else float("nan")


def blind_early_warning(runs: Sequence[tuple[np.ndarray, np.ndarray, float]], levels: Sequence[float],
                        null_shift: int = 1) -> pd.DataFrame:
    """Leave-one-out early warning whose windows never see the run's crossing.

    For each window level g and run i: observe run i until its gap first reaches g (`window_end`), fit the growth
    there, calibrate the crossing level on the *other* runs' fits and measured crossings (at the same g), and
    predict run i's crossing. Run i's own measured crossing enters nothing that predicts it (a test changes it
    and checks). The **null** gives run i the same window but the signal of run i + ``null_shift`` (mod n): if it
    predicts as well, the window's length, not the signal, carries the prediction. The **length** baseline uses
    no signal at all: run i's window end times the other runs' median (crossing / window end) at the same level
    (`window_length_predictions`). One row per (level, run): window end, measured, predicted, null predicted, length
    predicted and their log-errors ln(predicted / measured)."""
    rows = []
    n = len(runs)
    for g in levels:
        ends = [window_end(t, gaps, g) for t, gaps, _ in runs]
        by_length = window_length_predictions(ends, [c for _, _, c in runs])
        fits = [fit_growth(t, observed_gap(t, gaps, e), e) if np.isfinite(e) else None
                for (t, gaps, _), e in zip(runs, ends)]
        for i, (t, gaps, cross) in enumerate(runs):
            if not np.isfinite(cross):
                continue
            level = calibrate_level([fits[j] for j in range(n) if j != i], [runs[j][2] for j in range(n) if j != i])
            own = fits[i]
            pred = own.time_to(level) if own is not None and np.isfinite(level) else float("nan")
            tj, gj, _ = runs[(i + null_shift) % n]
            null_fit = fit_growth(tj, observed_gap(tj, gj, ends[i]), ends[i]) if np.isfinite(ends[i]) else None
            null = null_fit.time_to(level) if null_fit is not None and np.isfinite(level) else float("nan")
            rows.append({"window level": g, "run": i, "window end": ends[i], "measured": cross,
                         "predicted": pred if pred > 0 else np.nan, "null predicted": null if null > 0 else np.nan,
                         "length predicted": by_length[i]})
    out = pd.DataFrame(rows, columns=["window level", "run", "window end", "measured", "predicted", "null predicted",
                                      "length predicted"])
    for col, src in (("log error", "predicted"), ("null log error", "null predicted"),
                     ("length log error", "length predicted")):
        out[col] = np.log(out[src].astype(float) / out["measured"].astype(float))
    out["fraction observed"] = out["window end"] / out["measured"]  # read after the fact: never used to predict
    return out


def window_length_predictions(ends: Sequence[float], crossings: Sequence[float]) -> list[float]:
    """The window's length alone as a predictor (a baseline the early warning must beat, issue 36 item 6): run i's
    crossing predicted as its window end × the median, over the *other* runs with both, of crossing / window end.
    Run i's own crossing enters nothing that predicts it. NaN where run i's window never closed."""
    e, c = np.asarray(ends, float), np.asarray(crossings, float)
    ratio = c / e
    out = []
    for i in range(len(e)):
        others = np.delete(ratio, i)
        others = others[np.isfinite(others)]
        out.append(float(e[i] * np.median(others)) if np.isfinite(e[i]) and len(others) else float("nan"))
    return out


def paired_median_gain(ours: np.ndarray, baseline: np.ndarray, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """median |baseline error| − median |our error| over runs with both, and its 95% bootstrap interval over runs
    (resampled in pairs): above 0, ours predicts better. A run where ours made no prediction counts as an error of
    ln 10 (a factor of 10 off), never as a success."""
    a = np.where(np.isfinite(ours), np.abs(ours), np.log(10.0))
    b = np.where(np.isfinite(baseline), np.abs(baseline), np.log(10.0))
    gain = float(np.median(b) - np.median(a))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(n_boot, len(a)))
    boot = np.median(b[idx], axis=1) - np.median(a[idx], axis=1)
    return gain, float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))


# ------------------------------------------------------------------ readers --


def toy_warning_runs(result: Any) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(t, Δa − Δa₀, plateau) per reduced flow: the toy model's logit gap is recorded exactly."""
    return [(c["t"].to_numpy(), c["delta_a"].to_numpy() - float(c["delta_a"].iloc[0]), float(r["plateau_length"]))
            for r, c in result.per_run()]


def attention_warning_runs(result: Any, recording: str, crossing: str) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(step, per-head logit gap (n, layers·heads), the summary's ``crossing``) per Transformer run, from the
    attention ``recording`` (recall: "attn_query_to_value"; regression: "attn_relevant")."""
    out = []
    for r, c in result.per_run():
        weights = attention.as_array(c, recording)  # (n_evals, layers, heads)
        flat = weights.reshape(len(c), -1)
        out.append((c["step"].to_numpy(), np.stack([logit_gap(flat[:, k]) for k in range(flat.shape[1])], 1),
                    float(r[crossing])))
    return out


TASK_NAMES = {"toy": "toy, W* Gaussian", "toy_unit_columns": "toy, W* unit columns", "regression": "regression",
              "recall": "recall"}


def held_out_table(results: dict[str, Any], scale: Scale) -> pd.DataFrame:
    """Per held-out configuration: predicted (with its 95% interval), measured (seed mean), the log-error
    ln(measured / predicted), and whether the measurement lies in the interval."""
    rows = []
    for task, key, value in (("toy", ["T", "d", "p"], "plateau_length"), ("toy_unit_columns", ["T", "d", "p"], "plateau_length"),
                             ("regression", ["T", "d"], "plateau_length"),
                             ("recall", ["n_tokens", "n_pairs"], "emergence_step")):
        summary = results[task].summary
        groups = list(summary.groupby(key, sort=False))
        configs = [_config_of(task, summary, g.index[0], scale) for _, g in groups]
        preds = (predict_toy(configs, cache_for(scale)) if task.startswith("toy")
                 else [predict_emergence(c, scale) for c in configs])
        for (point, g), pred in zip(groups, preds):
            measured = float(g[value].mean())
            rows.append({"task": TASK_NAMES[task], "configuration": ", ".join(f"{k} = {v:g}" for k, v in zip(key, point)),
                         "seeds": len(g), "predicted": pred.value, "low": pred.low, "high": pred.high,
                         "measured": measured, "log error": float(np.log(measured / pred.value)),
                         "inside interval": bool(pred.low <= measured <= pred.high) if not task.startswith("toy") else np.nan})
    return pd.DataFrame(rows)


def _config_of(task: str, summary: pd.DataFrame, i: int, scale: Scale) -> Any:
    """The run config of row ``i`` of a held-out sweep (rebuilt from the figure, matched by its run key)."""
    for c in Prediction(scale=scale).sweeps()[task]:
        if run_key(c) == summary.loc[i, "run"]:
            return c
    raise KeyError(f"run {summary.loc[i, 'run']} is not one of the held-out {task} runs")


def prior_log_errors(result: Any, configs: Sequence[Any], value: str, scale: Scale) -> np.ndarray:
    """ln(prior / measured) per run of ``result`` (in `SweepResult.per_run` order, as the warning runs): the
    prediction made before training (`predict_emergence`), the baseline an early warning has to beat."""
    by_key = {run_key(c): c for c in configs}
    out = []
    for r, _ in result.per_run():
        measured = float(r[value])
        prior = predict_emergence(by_key[r["run"]], scale).value
        out.append(np.log(prior / measured) if np.isfinite(measured) and prior > 0 else np.nan)
    return np.array(out)
