"""predict_emergence and the early warning: the fit recovers what it is given; the laws refuse what they were not
fitted on; intervals cover what they claim."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from emergence_lib.configs import ConfigError, ToyFlowConfig, ToyFullGDConfig, TransformerRegressionConfig
from emergence_lib.metrics import fit_power_law
from emergence_lib.experiments import Prediction
from emergence_lib.experiments.prediction.read import (blind_early_warning, calibrate_level, fit_growth, logit_gap, observed_gap,
                                      paired_median_gain, predict_emergence, window_end,
                                      window_length_predictions)
from emergence_lib.toy import attention


def test_fit_growth_recovers_amplitude_and_rate():
    t = np.geomspace(0.1, 500, 300)
    fit = fit_growth(t, 0.3 * (np.cosh(0.004 * t) - 1), observed_until=500)
    assert fit.rate == pytest.approx(0.004, rel=0.01) and fit.amplitude == pytest.approx(0.3, rel=0.03)
    assert fit.time_to(fit.gap(900.0)) == pytest.approx(900.0, rel=1e-9)
    assert fit_growth(t, t * 0, observed_until=0.105) is None  # too few points (2)


def _growth_runs(rates=(0.001, 0.002, 0.004, 0.008), at=2.0):
    runs = []
    for lam in rates:
        t = np.geomspace(0.1, 3 / lam, 400)
        runs.append((t, np.cosh(lam * t) - 1, float(np.arccosh(1 + at) / lam)))  # crossing where the growth reaches ``at``
    return runs


def test_early_warning_is_exact_when_every_run_crosses_at_the_same_level_of_its_growth():
    errors = blind_early_warning(_growth_runs(), (0.5, 1.0))
    assert errors["log error"].abs().max() < 0.02
    # The null (another run's signal in this run's window) predicts the other run's time scale: far off here.
    assert errors["null log error"].abs().min() > 0.3


def test_a_runs_own_crossing_never_enters_its_prediction():
    """Issue 25: the window was a fraction of the measured crossing, which handed the prediction its time scale."""
    runs = _growth_runs()
    before = blind_early_warning(runs, (1.0,))
    t, g, cross = runs[1]
    changed = runs[:1] + [(t, g, 3.0 * cross)] + runs[2:]
    after = blind_early_warning(changed, (1.0,))
    assert after.loc[1, "predicted"] == before.loc[1, "predicted"]
    assert after.loc[1, "window end"] == before.loc[1, "window end"]
    assert after.loc[1, "log error"] != before.loc[1, "log error"]  # only the score moves


def test_the_window_length_baseline_predicts_from_the_other_runs_only():
    """Issue 36 item 6: the window's end × the other runs' median crossing / end, computed by hand; run i's own
    crossing never moves its prediction, and the baseline is exact when every window is the same fraction of its run."""
    ends, crossings = [10.0, 20.0, 40.0, np.nan], [12.0, 30.0, 50.0, 70.0]
    got = window_length_predictions(ends, crossings)
    assert got[0] == pytest.approx(10.0 * np.median([1.5, 1.25]))
    assert got[1] == pytest.approx(20.0 * np.median([1.2, 1.25])) and got[2] == pytest.approx(40.0 * np.median([1.2, 1.5]))
    assert np.isnan(got[3])
    assert window_length_predictions(ends, [12.0, 300.0, 50.0, 70.0])[1] == got[1], "its own crossing enters nothing"
    rows = blind_early_warning(_growth_runs(), (1.0,))
    # every window at the same fraction of its run (up to the recording grid, 2.6% a point): the length alone is exact
    assert rows["length log error"].abs().max() < 0.03


def test_the_window_closes_on_the_signal_not_on_the_clock():
    t = np.arange(10.0)
    assert window_end(t, np.where(t >= 4, 2.0, 0.0), 1.0) == 4.0
    assert window_end(t, np.stack([t * 0, np.where(t >= 6, 3.0, 0.0)], 1), 1.0) == 6.0  # the largest head
    assert np.isnan(window_end(t, t * 0, 1.0))


def test_paired_median_gain_says_who_predicts_better():
    ours, base = np.array([0.01, 0.02, 0.03, 0.02]), np.array([0.5, 0.4, 0.6, 0.5])
    gain, lo, hi = paired_median_gain(ours, base)
    assert gain == pytest.approx(0.5 - 0.02) and lo > 0
    gain, lo, hi = paired_median_gain(base, ours)
    assert gain < 0 and hi < 0
    assert paired_median_gain(np.array([np.nan, np.nan]), np.array([0.5, 0.5]))[0] < 0, "no prediction is no success"


def test_the_level_is_calibrated_on_the_other_runs_only():
    runs = [(np.geomspace(0.1, 2000, 300), np.cosh(0.002 * np.geomspace(0.1, 2000, 300)) - 1, c) for c in (600.0, 900.0)]
    fits = [fit_growth(t, g, 0.5 * c) for t, g, c in runs]
    assert calibrate_level(fits[1:], [900.0]) == pytest.approx(np.cosh(0.002 * 900) - 1, rel=0.02)


def test_logit_gap_of_the_toy_attention_is_the_logit_gap():
    delta_a = np.linspace(0, 5, 50)
    assert logit_gap(attention(delta_a, 64, 1)) == pytest.approx(delta_a, abs=1e-9)


def test_observed_gap_picks_the_head_largest_when_observation_stops():
    t = np.arange(10.0)
    gaps = np.stack([t, 10 - t], 1)
    assert (observed_gap(t, gaps, 2.0) == gaps[:, 1]).all() and (observed_gap(t, gaps, 8.0) == gaps[:, 0]).all()


def test_prediction_interval_covers_about_95_percent_of_new_runs():
    rng = np.random.default_rng(0)
    d = rng.uniform(4, 64, 40)
    T = rng.uniform(16, 256, 40)
    law = lambda d, T: 2.0 * d**1.1 * T**0.8  # noqa: E731
    fit = fit_power_law(pd.DataFrame({"d": d, "T": T, "plateau_length": law(d, T) * np.exp(rng.normal(0, 0.2, 40))}), ["d", "T"])
    d2, T2 = rng.uniform(4, 64, 2000), rng.uniform(16, 256, 2000)
    new = law(d2, T2) * np.exp(rng.normal(0, 0.2, 2000))
    low, high = fit.prediction_interval({"d": d2, "T": T2})
    assert 0.9 < np.mean((low <= new) & (new <= high)) < 0.99


def test_toy_prediction_is_the_reduced_flow():
    pred = predict_emergence(ToyFlowConfig(T=64, d=16))
    assert pred.low == pred.value == pred.high and 0.5 < pred.value / (1.44 * 4 * 64) < 2
    with pytest.raises(ConfigError, match="init"):
        predict_emergence(ToyFullGDConfig(T=64, d=16, init="gaussian"))


def test_a_law_refuses_a_config_it_was_not_fitted_on():
    reference = Prediction(scale="cpu").sweeps()["regression"][0]
    predict_emergence(reference)  # a held-out point: T, d free
    with pytest.raises(ConfigError, match="lr"):
        predict_emergence(dataclasses.replace(reference, lr=3e-4))
    with pytest.raises(ConfigError, match="predict_emergence takes"):
        predict_emergence("T=32")


def test_held_out_points_are_off_the_fitted_grids():
    from emergence_lib.experiments import RECALL_GRIDS, TRANSFORMER_GRIDS

    held = Prediction(scale="cpu").grid
    g, r = TRANSFORMER_GRIDS["cpu"], RECALL_GRIDS["cpu"]
    assert not any(T in g.T and d in g.d for T, d in held.regression)
    assert not any(V in r.n_tokens and N in r.n_pairs for V, N in held.recall)
    assert isinstance(Prediction(scale="cpu").sweeps()["regression"][0], TransformerRegressionConfig)
