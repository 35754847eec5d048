"""plateau_length and fit_power_law on synthetic data with known answers."""

import math

import numpy as np
import pandas as pd
import pytest

from emergence_lib.metrics import (
    NOT_REACHED,
    add_cross_sample_factor,
    first_crossing,
    fit_power_law,
    plateau_length,
    reached,
    time_to_fraction,
)


def test_exact_crossing_on_a_log_linear_segment():
    # loss = 0.5 · exp(-(t - 100)/10) after t = 100: crosses 0.1 at 100 + 10·ln 5
    t = np.array([0.0, 50.0, 100.0, 110.0, 120.0, 130.0])
    loss = np.where(t <= 100, 0.5, 0.5 * np.exp(-(t - 100) / 10))
    assert plateau_length(t, loss, 0.1) == pytest.approx(100 + 10 * math.log(5), rel=1e-12)


def test_sharp_drop_is_interpolated_between_evaluations():
    t = np.array([0.0, 1.0, 2.0, 3.0])
    loss = np.array([0.5, 0.5, 0.02, 0.01])
    expected = 1 + (math.log(0.5) - math.log(0.1)) / (math.log(0.5) - math.log(0.02))
    assert plateau_length(t, loss) == pytest.approx(expected)
    assert 1 < plateau_length(t, loss) < 2


def test_never_reached_is_marked_not_a_number():
    t = np.linspace(0, 100, 11)
    p = plateau_length(t, np.full(11, 0.3))
    assert p is NOT_REACHED or p == NOT_REACHED
    assert not reached(p)
    assert math.isinf(p)


def test_diverged_run_never_counts_as_crossed():
    t = np.arange(5.0)
    assert plateau_length(t, [0.5, 0.4, np.nan, np.inf, np.nan]) == NOT_REACHED
    assert plateau_length(t, [0.5, np.nan, 0.05, 0.01, 0.0]) == pytest.approx(2.0)


def test_already_below_at_first_evaluation():
    assert plateau_length([3.0, 4.0], [0.05, 0.01]) == 3.0


def test_threshold_is_reached_by_equality():
    assert plateau_length([0.0, 1.0], [0.5, 0.1]) == pytest.approx(1.0)


def test_bad_shapes_and_thresholds_are_refused():
    with pytest.raises(ValueError, match="equal length"):
        plateau_length([0, 1, 2], [0.5, 0.1])
    with pytest.raises(ValueError, match="threshold"):
        plateau_length([0, 1], [0.5, 0.1], threshold=0.0)


def test_time_to_fraction_going_up():
    t = np.array([0.0, 10.0, 20.0])
    x = np.array([0.0, 4.0, 8.0])
    assert time_to_fraction(t, x, start=0.0, target=8.0, fraction=0.25) == pytest.approx(5.0)
    assert first_crossing(t, x, 100.0, direction="up") == NOT_REACHED


def _synthetic(rng, n=60, noise=0.0):
    d = rng.choice([8, 16, 32, 64, 128], n).astype(float)
    T = rng.choice([64, 256, 1024, 4096], n).astype(float)
    B = rng.choice([1, 2, 4, 8], n).astype(float)
    y = 1.7 * d**0.5 * T**0.98 * B**-0.75 * np.exp(noise * rng.standard_normal(n))
    return pd.DataFrame({"d": d, "T": T, "B": B, "plateau_length": y})


def test_power_law_fit_recovers_exact_exponents():
    df = _synthetic(np.random.default_rng(0))
    fit = fit_power_law(df, ["d", "T", "B"])
    assert fit.constant == pytest.approx(1.7, rel=1e-9)
    assert fit.exponents == pytest.approx({"d": 0.5, "T": 0.98, "B": -0.75}, abs=1e-10)
    assert fit.r2 == pytest.approx(1.0)
    np.testing.assert_allclose(fit.predict(df), df["plateau_length"], rtol=1e-9)


def test_power_law_fit_with_noise_has_honest_uncertainties():
    hits = 0
    for seed in range(40):
        df = _synthetic(np.random.default_rng(seed), n=80, noise=0.05)
        fit = fit_power_law(df, ["d", "T", "B"])
        hits += abs(fit.exponents["T"] - 0.98) < 2 * fit.stderr["T"]
        assert 0.9 < fit.r2 < 1.0
    assert hits >= 34  # ~95% of 2σ intervals cover the truth


def test_power_law_fit_on_a_subset_of_predictors_and_a_derived_one():
    df = pd.DataFrame({"d": [16, 32, 64, 16, 32, 64.0], "p": [0, 0, 0, 0.4, 0.4, 0.4], "T": 512.0})
    df = add_cross_sample_factor(df)
    df["plateau_length"] = 2.0 * (np.sqrt(df["d"]) * df["T"] / df["f_pd"])
    df["x"] = np.sqrt(df["d"]) * df["T"] / df["f_pd"]
    fit = fit_power_law(df, ["x"])
    assert fit.exponents["x"] == pytest.approx(1.0)
    assert fit.constant == pytest.approx(2.0)
    assert df.loc[0, "f_pd"] == pytest.approx(1.0)


def test_power_law_fit_refuses_not_reached_rows():
    df = _synthetic(np.random.default_rng(1))
    df.loc[3, "plateau_length"] = NOT_REACHED
    with pytest.raises(ValueError, match="NOT_REACHED"):
        fit_power_law(df, ["d", "T"])


def test_power_law_fit_needs_enough_rows_and_known_columns():
    df = _synthetic(np.random.default_rng(2), n=3)
    with pytest.raises(ValueError, match="more than"):
        fit_power_law(df, ["d", "T", "B"])
    with pytest.raises(KeyError, match="zeta"):
        fit_power_law(df, ["zeta"])


def test_fit_table_puts_paper_values_beside_ours():
    fit = fit_power_law(_synthetic(np.random.default_rng(3)), ["d", "T"])
    table = fit.table(reference={"d": 0.49, "T": 0.99, "R2": 0.999})
    assert list(table.index) == ["C", "exponent of d", "exponent of T", "R²"]
    assert table.loc["exponent of d", "paper"] == 0.49
    assert np.isnan(table.loc["C", "paper"])


def test_offset_power_law_fit_recovers_a_planted_offset_and_exponents():
    from emergence_lib.metrics import fit_offset_power_law

    d, T = np.meshgrid([4.0, 8, 16, 32], [16.0, 32, 64, 128])
    data = pd.DataFrame({"d": d.ravel(), "T": T.ravel()})
    data["plateau_length"] = 60.0 + 0.8 * data["d"] ** 1.3 * data["T"] ** 0.8
    fit = fit_offset_power_law(data, ["d", "T"])
    assert fit.offset == pytest.approx(60.0, rel=1e-3)
    assert fit.exponents["d"] == pytest.approx(1.3, abs=1e-3) and fit.exponents["T"] == pytest.approx(0.8, abs=1e-3)
    assert fit.constant == pytest.approx(0.8, rel=1e-2)
    assert fit.predict(data) == pytest.approx(data["plateau_length"].to_numpy(), rel=1e-4)
    # The plain power law on the same data understates both exponents: the offset is what it misses.
    plain = fit_power_law(data, ["d", "T"])
    assert plain.exponents["d"] < 1.25 and plain.exponents["T"] < 0.78
    # Without an offset in the data, the fit finds none.
    data["plateau_length"] = 0.8 * data["d"] ** 1.3 * data["T"] ** 0.8
    assert fit_offset_power_law(data, ["d", "T"]).offset == pytest.approx(0.0, abs=1e-2)


def test_compare_fits_puts_both_readings_beside_the_paper():
    from emergence_lib.metrics import compare_fits, compare_fits_by

    d, T = np.meshgrid([4.0, 8, 16, 32], [16.0, 32, 64])
    data = pd.DataFrame({"d": d.ravel(), "T": T.ravel()})
    data["plateau_length"] = 30.0 + 2.0 * data["d"] ** 1.2 * data["T"] ** 0.7
    table = compare_fits(data, ["d", "T"], {"C": 0.76, "d": 1.29, "T": 0.80, "R2": 0.995})
    assert list(table.index) == ["power law", "offset law", "paper"]
    assert table.loc["offset law", "t₀"] == pytest.approx(30.0, rel=1e-3)
    assert table.loc["offset law", "d"] == pytest.approx(1.2, abs=1e-3)
    assert table.loc["power law", "d"] < table.loc["offset law", "d"]
    assert table.loc["paper", "T"] == 0.80
    both = compare_fits_by({"a": data, "b": data.assign(plateau_length=data["plateau_length"] * 2)}, ["d", "T"])
    assert both.loc[("b", "offset law"), "t₀"] == pytest.approx(60.0, rel=1e-3)
    few = data.iloc[:4]  # 4 points cannot fit t₀, C and two exponents with one to spare: the offset row is empty
    table = compare_fits(few, ["d", "T"])
    assert np.isfinite(table.loc["power law", "d"]) and np.isnan(table.loc["offset law", "d"])


def test_wilson_interval_matches_published_values():
    """Newcombe (1998), Table I: 0 of 10 → [0, 0.2775]; 1 of 29 → [0.0061, 0.1718]; 81 of 263 → [0.2553, 0.3662]."""
    from emergence_lib.metrics import wilson_interval

    for k, n, low, high in ((0, 10, 0.0, 0.2775), (1, 29, 0.0061, 0.1718), (81, 263, 0.2553, 0.3662)):
        p, lo, hi = wilson_interval(k, n)
        assert p == k / n and lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


def test_wilson_interval_holds_its_proportion_inside_zero_one():
    """At 0 of n and n of n one bound is the proportion itself; rounding once gave 10 of 10 an upper bound of
    1 - 1e-16, and the placement figure's error bar from it was negative (the book build failed)."""
    from emergence_lib.metrics import wilson_interval

    for n in range(1, 60):
        for k in range(n + 1):
            p, lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= p <= hi <= 1.0, (k, n, lo, p, hi)
    assert wilson_interval(10, 10)[2] == 1.0 and wilson_interval(0, 7)[1] == 0.0


def test_paired_seed_interval_is_a_t_interval_of_the_paired_log_ratios():
    from emergence_lib.metrics import paired_seed_interval

    ours, base = [100.0, 110.0, 90.0], [200.0, 230.0, 170.0]
    logs = np.log(np.array(base) / np.array(ours))  # 0.693, 0.738, 0.636: mean 0.689, sd 0.0510
    half = 4.303 * logs.std(ddof=1) / math.sqrt(3)
    ratio, low, high = paired_seed_interval(ours, base)
    assert ratio == pytest.approx(math.exp(logs.mean())) and low == pytest.approx(math.exp(logs.mean() - half))
    assert high == pytest.approx(math.exp(logs.mean() + half))
    diff, lo, hi = paired_seed_interval([0.9, 0.92], [0.95, 0.93], log=False)  # differences −0.05, −0.01
    assert diff == pytest.approx(-0.03) and (lo, hi) == pytest.approx((-0.03 - 12.706 * 0.02, -0.03 + 12.706 * 0.02))
    # A seed that never emerged makes the comparison inconclusive (dropping it would bias it), as does one seed.
    assert math.isnan(paired_seed_interval([100.0, math.inf, 90.0], base)[1])
    assert math.isnan(paired_seed_interval([100.0], [200.0])[1])
    with pytest.raises(ValueError, match="equal lengths"):
        paired_seed_interval([1.0, 2.0], [1.0])


def test_the_best_constant_is_the_smallest_seed_mean_and_a_never_emerged_seed_disqualifies():
    from emergence_lib.experiments.steering.read import best_constant, paired_by_seed

    t = pd.DataFrame({"B": [1, 1, 2, 2, 4, 4], "p": 0.0, "seed": [0, 1] * 3,
                      "steps": [1000.0, 1100.0, 600.0, 700.0, 300.0, math.inf]})
    (B, p), runs = best_constant(t, "steps")
    assert (B, p) == (2, 0.0) and sorted(runs["seed"]) == [0, 1]
    a, b = paired_by_seed(t[t["B"] == 1].iloc[::-1], t[t["B"] == 2], "steps")
    assert list(a) == [1000.0, 1100.0] and list(b) == [600.0, 700.0]  # paired by seed, not by row order


def test_the_lack_of_fit_test_flags_a_misfit_and_passes_a_law_with_seed_noise():
    """Pure error is the seeds about their point's mean; lack of fit the point means about the law."""
    import pandas as pd

    from emergence_lib.metrics import lack_of_fit_test

    rng = np.random.default_rng(0)
    rows = []
    for T in (16, 32, 64, 128):
        for d in (4, 8, 16):
            bend = 1.0 + 0.5 * (np.log(T) - np.log(45)) ** 2  # a curved law: a power law misfits it
            for s in range(3):
                noise = np.exp(0.02 * rng.standard_normal())
                rows.append({"T": T, "d": d, "good": 2 * T * d * noise, "bent": 2 * T * d * bend * noise})
    runs = pd.DataFrame(rows)
    good, bent = (lack_of_fit_test(runs, ["T", "d"], k) for k in ("good", "bent"))
    assert (good["df_lack"], good["df_pure"]) == (12 - 3, 36 - 12)
    assert good["p"] > 0.01 and bent["p"] < 1e-6
