"""Table 1's settings on the CPU (`experiments.regression`), the interval verdicts (`claims.IntervalRule`), the t quantile and the
per-shape estimate: each checked against an independent computation, not the code path it tests."""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from emergence_lib import claims, metrics
from emergence_lib.experiments.regression import read, runs
from emergence_lib.claims import IntervalRule
from emergence_lib.configs import ConfigError, TransformerRecallConfig, TransformerRegressionConfig
from emergence_lib.estimate import estimate, expected_steps, shape_of
from emergence_lib.experiments import Figure1, Figure3
from emergence_lib.metrics import t_quantile_975


@pytest.mark.parametrize("df", [1, 2, 3, 4.5, 7, 12, 29.3, 30, 45, 200])
def test_t_quantile_covers_95_percent_of_the_t_density(df):
    # Independent: integrate Student's t density numerically from −q to q.
    q = t_quantile_975(df)
    x = np.linspace(-q, q, 200_001)
    dens = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2)) * (1 + x**2 / df) ** (-(df + 1) / 2)
    mass = float(np.sum((dens[1:] + dens[:-1]) / 2 * np.diff(x)))
    assert mass == pytest.approx(0.95, abs=2e-4), (df, q, mass)


def test_law_residual_sd_reproduces_the_papers_r2():
    # Independent: points scattered about the law by exactly that σ (alternating signs, so the law stays the
    # least-squares fit up to tiny terms) give back R² ≈ 0.995 when refitted.
    sd = runs.law_residual_sd()
    pts = runs.paper_points()
    logs = np.log([runs.law(T, d, B) for T, d, B in pts])
    rng = np.random.default_rng(0)
    r2 = []
    for _ in range(200):
        noise = rng.normal(0, sd, len(pts))
        y = logs + noise
        X = np.column_stack([np.ones(len(pts)), np.log([[d, T, B] for T, d, B in pts])])
        coef, *_ = np.linalg.lstsq(X, y, rcond=None)
        r2.append(1 - np.sum((y - X @ coef) ** 2) / np.sum((y - y.mean()) ** 2))
    assert np.mean(r2) == pytest.approx(0.995, abs=0.0015)
    assert 0.07 < sd < 0.12


def test_interval_rule_three_ways():
    rule = IntervalRule(max_width=0.4)
    assert rule.judge(1.2, 1.1, 1.35, 1.29) == "agrees"
    assert rule.judge(1.0, 0.9, 1.1, 1.29) == "differs"
    assert rule.judge(1.2, 0.8, 1.6, 1.29) == "inconclusive", "wider than registered"
    assert rule.judge(0.5, 0.0, 0.9, 1.29) == "differs", "an interval that excludes the value is decisive, however wide"
    assert rule.judge(1.2, math.nan, math.nan, 1.29) == "inconclusive", "one seed: no interval"
    direction = IntervalRule(above=1.0, log=True)
    assert direction.judge(1.5, 1.1, 2.0, None) == "agrees"
    assert direction.judge(0.8, 0.7, 0.9, None) == "differs"
    assert direction.judge(1.1, 0.9, 1.3, None) == "inconclusive"
    # The law's own scatter widens the interval: a ratio of 0.85 ± 0.03 is within 1.96σ ≈ 0.18 in log of 1.
    widened = IntervalRule(max_width=0.5, paper_sd=0.092, log=True)
    assert widened.judge(0.85, 0.82, 0.88, 1.0) == "agrees"
    assert IntervalRule(max_width=0.5, log=True).judge(0.85, 0.82, 0.88, 1.0) == "differs"
    assert widened.judge(0.65, 0.62, 0.68, 1.0) == "differs"


def test_interval_claims_need_their_interval_and_pin_nothing():
    key = "table1.figure3.d_exponent"
    with pytest.raises(ConfigError, match="interval"):
        claims.record(key, 1.2, "cpu")
    assert claims.record(key, 1.06, "cpu", interval=(0.95, 1.17)).status == "differs"  # no ClaimMismatch: not pinned
    assert claims.record(key, 1.25, "cpu", interval=(1.1, 1.4)).status == "agrees"
    assert claims.record(key, 1.25, "smoke", interval=(1.1, 1.4)).status == "smoke"
    r = claims.record(key, 1.06, "cpu", interval=(0.95, 1.17))
    assert r.ours_text == "1.06 [0.95, 1.17]"


def _summary(rows):
    return pd.DataFrame(rows, columns=["T", "d", "B", "p", "lr", "plateau_length", "seconds"])


def test_point_table_is_the_geometric_mean_and_t_interval_over_seeds():
    plateaus = [300.0, 330.0, 360.0]
    s = _summary([(32, 16, 1, 0.0, 1e-4, v, 60.0) for v in plateaus])
    row = read.point_table(s, [(32, 16, 1)]).iloc[0]
    logs = np.log(plateaus)
    gm = math.exp(logs.mean())
    half = 4.303 * logs.std(ddof=1) / math.sqrt(3)  # t(0.975, 2) from the printed table
    law = 0.76 * 16**1.29 * 32**0.80
    assert row["plateau"] == pytest.approx(gm)
    assert row["ratio"] == pytest.approx(gm / law)
    assert row["ratio_low"] == pytest.approx(math.exp(logs.mean() - half) / law, rel=1e-3)
    assert row["ratio_high"] == pytest.approx(math.exp(logs.mean() + half) / law, rel=1e-3)
    assert row["in paper's grid"] and row["seeds"] == 3 and row["minutes"] == pytest.approx(3.0)


def test_exponent_table_recovers_a_known_law():
    rng = np.random.default_rng(1)
    rows = [(T, d, B, 0.0, 1e-4, 2.0 * d**1.1 * T**0.7 * B**-0.6 * math.exp(rng.normal(0, 0.02)), 1.0)
            for T in (32, 64, 128) for d in (16, 32, 64) for B in (1, 2) for _ in range(3)]
    t = read.exponent_table(_summary(rows)).set_index("quantity")
    for k, v in {"d": 1.1, "T": 0.7, "B": -0.6}.items():
        assert t.loc[k, "low"] < v < t.loc[k, "high"], (k, t.loc[k].to_dict())
        assert t.loc[k, "high"] - t.loc[k, "low"] < 0.1
    assert read.exponent_table(_summary(rows[:6])).empty, "too few points: no fit"


def test_cross_sample_table_keeps_the_better_lr_and_contrasts_d():
    rows = []
    for d, speed in ((16, 1.0), (32, 2.0)):
        for s, jitter in enumerate((0.98, 1.0, 1.02)):
            rows += [(32, d, 1, 0.0, 1e-4, 1000.0 * jitter, 1.0), (32, d, 1, 0.4, 1e-4, 1000.0 / speed * jitter, 1.0),
                     (32, d, 1, 0.0, 3e-4, 2000.0 * jitter, 1.0), (32, d, 1, 0.4, 3e-4, 5000.0 * jitter, 1.0)]
    t = read.cross_sample_table(_summary(rows))
    by_d = {r["d"]: r for _, r in t.iterrows()}
    assert by_d[16]["speed-up"] == pytest.approx(1.0) and by_d[32]["speed-up"] == pytest.approx(2.0)
    assert by_d["d = 32 over d = 16"]["speed-up"] == pytest.approx(2.0)
    assert by_d[32]["low"] < 2.0 < by_d[32]["high"]


def test_paper_cpu_is_table1_exactly_and_only_where_a_grid_exists():
    f = Figure3(scale="paper_cpu")
    paper = Figure3(scale="paper")
    assert f.grid.model == paper.grid.model and f.grid.lr == paper.grid.lr and f.grid.p_lrs == paper.grid.p_lrs
    assert f.grid.max_steps == paper.grid.max_steps and len(f.grid.seeds) >= 3
    # Every B = 1 point it runs is one of the paper's; its runs are the paper scale's runs there (shared keys).
    from emergence_lib.cache import run_key
    paper_keys = {run_key(r) for r in paper.runs()}
    t_runs = f.sweeps()["T"] + f.sweeps()["larger"]
    assert all(run_key(r) in paper_keys for r in t_runs)
    with pytest.raises(ConfigError, match="paper_cpu.*Figure 3"):
        Figure1(scale="paper_cpu")


def test_estimate_times_each_shape_once_and_scales_by_the_law():
    runs = [TransformerRegressionConfig(T=T, d=16, seed=s) for T in (32, 64) for s in (0, 1)]
    timed = []

    def timer(run):
        timed.append(run.T)
        return 0.001 * run.T  # a fake clock: longer sequences cost more

    e = estimate(runs, timer=timer)
    assert sorted(timed) == [32, 64], "one timing per distinct shape, not per run and not only the first"
    assert len({shape_of(r) for r in runs}) == 2
    law32 = 0.76 * 16**1.29 * 32**0.80 * 1.5  # stop factor 1.5
    assert expected_steps(runs[0]) == pytest.approx(law32)
    assert e.table["expected_s"].iloc[0] == pytest.approx(law32 * 0.032)
    assert e.bound_hours == pytest.approx(2 * 50_000 * (0.032 + 0.064) / 3600)


def test_a_shape_is_timed_by_two_runs_with_as_many_evaluations():
    """The timing subtracts two short runs so that set-up and evaluations cancel: that holds only if both evaluate
    equally often (1 and 5 steps, the first try, evaluate 2 and 3 times: an evaluation at T = 256 costs several
    steps, and the estimate read 2 s a step where a step takes 0.6)."""
    from emergence_lib.estimate import TIMING_PAIRS
    from emergence_lib.training import evaluation_steps

    for few, many in TIMING_PAIRS:
        assert many > few and len(evaluation_steps(few, 1)) == len(evaluation_steps(many, 1)), (few, many)
    assert len(evaluation_steps(1, 1)) != len(evaluation_steps(5, 1)), "the check tells the old pair apart"


def test_the_timer_prints_a_line_per_shape_and_never_prices_a_step_at_zero(monkeypatch):
    import emergence_lib.estimate as est

    clock = iter(range(1000))  # every run takes 1 s whatever its steps: set-up that hides every difference
    monkeypatch.setattr(est.time, "perf_counter", lambda: float(next(clock)))
    monkeypatch.setattr(est, "runner_for", lambda kind: (lambda runs, device: None))
    lines: list[str] = []
    out = est.step_seconds([TransformerRegressionConfig(T=32, d=16)], progress=lines.append)
    assert len(lines) == 1 and "shape 1 of 1" in lines[0]
    assert len(out) == 1 and list(out.values())[0] > 0, "a step is priced at an upper bound, never at 0"


def _timed(monkeypatch, step_s: float, setup_s: float, jitter: dict[int, float]) -> tuple[float, list]:
    """`time_shape` on a fake clock: a probe of n steps takes setup_s + n·step_s, plus jitter[n] seconds (the first
    probe of n only). Returns the reading and the probes run."""
    import emergence_lib.estimate as est

    clock, probes = [0.0], []
    monkeypatch.setattr(est.time, "perf_counter", lambda: clock[0])

    def runner(kind):
        def run(runs, device):
            n = runs[0].max_steps
            probes.append(runs[0])
            clock[0] += setup_s + n * step_s + jitter.pop(n, 0.0)
        return run
    monkeypatch.setattr(est, "runner_for", runner)
    return est.time_shape(TransformerRecallConfig(n_tokens=64, n_pairs=16)), probes


def test_a_timing_spans_a_second_not_a_few_steps_that_set_up_noise_swamps(monkeypatch):
    """A recall run at Table 1's width: 0.3 s of jitter on the 6-step probe reads 0.175 s a step for 0.1. Where the
    first pair spans under `MIN_SPAN_S`, a second pair sized from it spans it; a slow shape stops at the first pair; a
    fast one takes a longer second pair, never past the longest; evaluations are few and as many in every pair."""
    from emergence_lib.estimate import MIN_SPAN_S, PROBE_EVAL_SIZE, TIMING_PAIRS
    from emergence_lib.training import evaluation_steps

    reading, probes = _timed(monkeypatch, 0.1, 1.0, {6: 0.3})
    assert reading == pytest.approx(0.1), "the 4-step pair's jitter was kept"
    steps = [p.max_steps for p in probes]
    pairs = [sorted(steps[1:3]), sorted(steps[3:5])]
    assert steps[0] == 1 and len(steps) == 5 and pairs[0] == [2, 6] and pairs[1][0] == 11, steps
    assert (pairs[1][1] - 11) * 0.1 >= MIN_SPAN_S, "the second pair spans MIN_SPAN_S at the true step"
    assert all(p.eval_size <= PROBE_EVAL_SIZE and p.stop_factor is None for p in probes), "probes evaluate little"

    reading, probes = _timed(monkeypatch, 2.0, 6.0, {11: 5.0})
    assert reading == pytest.approx(2.0) and sorted(p.max_steps for p in probes) == [1, 2, 6], "a slow shape: 3 probes"

    reading, probes = _timed(monkeypatch, 0.004, 0.3, {})  # no pair can span MIN_SPAN_S: the longest second pair
    assert reading == pytest.approx(0.004) and max(p.max_steps for p in probes) == TIMING_PAIRS[2][1] and len(probes) == 5

    reading, probes = _timed(monkeypatch, 0.05, 1.0, {11: 2.0})  # the second pair reads ≤ 0
    assert reading == pytest.approx(0.05), "the first pair's reading when the second is not positive"

    few, shortest = TIMING_PAIRS[1]
    counts = {len(evaluation_steps(n, 1)) for n in range(shortest, TIMING_PAIRS[2][1] + 1)}
    assert counts == {len(evaluation_steps(few, 1))}, "every second pair evaluates as often as its 11 steps"


def _synthetic_paper_cpu(scale_law: float, noise: float = 0.03, seed: int = 0):
    """Every paper_cpu run of Figure 3, with plateaus from the paper's law × ``scale_law`` × seed noise (p > 0 halves
    the plateau at the larger d): what `Figure3.cached` returns once the background runs are all stored."""
    from emergence_lib.cache import config_dict, run_key
    from emergence_lib.sweep import SweepResult

    rng = np.random.default_rng(seed)
    fig = Figure3(scale="paper_cpu")
    out = {}
    for key, configs in fig.sweeps().items():
        rows = []
        for r in configs:
            law = runs.law(r.T, r.d, r.B) * scale_law * (0.5 if (r.p > 0 and r.d == max(fig.grid.d)) else 1.0)
            rows.append(config_dict(r) | {"plateau_length": law * np.exp(rng.normal(0, noise)), "seconds": 60.0,
                                          "run": run_key(r), "kind": r.kind})
        out[key] = SweepResult(pd.DataFrame(rows), pd.DataFrame(), len(rows), 0)
    n = len({run_key(r) for r in fig.runs()})
    return out, n, n


@pytest.mark.parametrize("scale_law, expected", [(1.0, "agrees"), (0.6, "differs")])
def test_table1_view_judges_a_complete_scale(monkeypatch, scale_law, expected):
    """The chapter's reader on a complete paper_cpu scale (synthetic, so that this runs before the real runs are all
    stored): plateaus that follow the paper's law agree point by point and in every exponent; plateaus at 0.6× the
    law differ point by point but keep the law's exponents."""
    import matplotlib

    matplotlib.use("Agg")
    from emergence_lib.experiments import Context
    from emergence_lib.experiments.table1 import show

    synthetic = _synthetic_paper_cpu(scale_law)
    monkeypatch.setattr(Figure3, "cached", lambda self: synthetic)
    cpu_tables = {"T": pd.DataFrame({"T": [32, 64], "d": [16, 16], "plateau_length": [300.0, 700.0]})}
    t1 = show.table1_settings(cpu_tables, Context("cpu"))
    status = {r.claim.key: r.status for r in t1.checked}
    points = [k for k in status if k.endswith(("_B1", "_B2", "_B4"))]
    assert len(points) == len(runs.our_points()), "every point is judged once all its seeds are in"
    assert {status[k] for k in points} == {expected}
    for k in ("d", "T", "B"):
        assert status[f"table1.figure3.{k}_exponent"] == "agrees", t1.exponents
    assert status["table1.figure3.cross_sample_speedup"] == "agrees"
    assert status["table1.figure3.cross_sample_more_at_larger_d"] == "agrees"
    # (32|64) × (16|32) and (32, 64) are on the paper's grid; B ∈ {2, 4} at T = 64 are not (its T_B is 256).
    assert "5 of the paper's 32 grid points (+4 of ours)" == t1.coverage


# ---- where the paper measured (`experiments.table1`): contrasts of point means, the lack-of-fit test

def test_slope_weights_give_the_least_squares_slope_with_fixed_effects():
    from emergence_lib.experiments.table1 import read as mread

    rng = np.random.default_rng(3)
    x = np.log([32, 64, 128, 256, 32, 64, 128, 256])
    group = [16] * 4 + [32] * 4
    y = 0.8 * x + np.where(np.array(group) == 32, 0.9, 0.0) + rng.normal(0, 0.05, 8)
    w = mread.slope_weights(list(x), group)
    X = np.column_stack([x, np.array(group) == 16, np.array(group) == 32]).astype(float)
    assert np.dot(w, y) == pytest.approx(np.linalg.lstsq(X, y, rcond=None)[0][0], rel=1e-12)
    with pytest.raises(ValueError):
        mread.slope_weights([1.0, 2.0], ["a", "b"])  # one x per group: no slope


def test_contrast_interval_by_hand():
    """Two points of 3 seeds: the interval is the Welch one on the difference of means (and nan with one seed)."""
    from emergence_lib.experiments.table1 import read as mread

    a, b = np.array([1.0, 1.2, 1.1]), np.array([0.2, 0.5, 0.3])
    est, lo, hi = mread.contrast_interval([a, b], [1.0, -1.0])
    va, vb = a.var(ddof=1) / 3, b.var(ddof=1) / 3
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 2)
    h = metrics.t_quantile_975(df) * math.sqrt(va + vb)
    assert (est, lo, hi) == pytest.approx((a.mean() - b.mean(), a.mean() - b.mean() - h, a.mean() - b.mean() + h))
    assert math.isnan(mread.contrast_interval([a, b[:1]], [1.0, -1.0])[1])
    # A point's many seeds do not narrow an exponent below what the points allow: 30 seeds at each point give the
    # same estimate as their means, with an interval from the seeds' spread about each mean.
    assert mread.contrast_interval([a, b], [0.0, 1.0])[0] == pytest.approx(b.mean())


def test_measured_slope_recovers_a_known_exponent_and_needs_two_seeds():
    from emergence_lib.experiments.table1 import read as mread

    rng = np.random.default_rng(0)
    rows = [{"T": T, "d": d, "B": 1, "seed": s, "plateau_length": 2.0 * d ** 1.3 * T ** 0.8 * math.exp(rng.normal(0, 0.02))}
            for T in (128, 256) for d in (16, 32, 64) for s in range(3)]
    summary = pd.DataFrame(rows)
    pts = [(256, d, 1) for d in (16, 32, 64)]
    row = mread.measured_slope(summary, pts, "d", None)
    assert row["low"] < 1.3 < row["high"] and row["points"] == 3 and row["ours"] == pytest.approx(1.3, abs=0.05)
    both = mread.measured_slope(summary, [(T, d, 1) for T in (128, 256) for d in (16, 32)], "T", "d")
    assert both["ours"] == pytest.approx(0.8, abs=0.05)
    one_seed = summary[~((summary["d"] == 64) & (summary["seed"] > 0))]
    assert mread.measured_slope(one_seed, pts, "d", None)["points"] == 2, "a point with one seed stays out"
    grows = mread.local_exponent_difference(summary, 256, 128)
    assert grows[1] < 0 < grows[2], "no growth in a pure power law"


def test_f_survival_against_published_values():
    # F tables: the 5% critical values F(1, 10) = 4.965 and F(5, 18) = 2.773; F(3, 3) = 1 is the median.
    assert metrics.f_survival(4.965, 1, 10) == pytest.approx(0.05, abs=1e-4)
    assert metrics.f_survival(2.773, 5, 18) == pytest.approx(0.05, abs=1e-4)
    assert metrics.f_survival(1.0, 3, 3) == pytest.approx(0.5, abs=1e-9)


def test_lack_of_fit_finds_a_misfit_and_passes_a_fit():
    from emergence_lib.experiments.table1 import read as mread

    rng = np.random.default_rng(1)
    pts = [(T, d, 1) for T in (32, 64, 128) for d in (16, 32, 64)]

    def summary(curved: bool) -> pd.DataFrame:
        return pd.DataFrame([{"T": T, "d": d, "B": 1, "plateau_length": d * T * (math.exp(0.5 * math.log(d) ** 2) if curved else 1)
                              * math.exp(rng.normal(0, 0.05))} for T, d, _ in pts for _ in range(3)])

    assert mread.lack_of_fit(summary(True), pts, ("d", "T"))["p"] < 1e-3
    good = mread.lack_of_fit(summary(False), pts, ("d", "T"))
    assert good["p"] > 0.001 and (good["df_lack"], good["df_pure"]) == (6, 18)


def test_the_estimate_moves_the_law_by_what_stored_runs_measured():
    """Issue 34 item 5: a point's expected steps are the law's × the ratio its stored seeds measured against it;
    a point without stored seeds takes the ratio of every stored run of its kind; with nothing stored, the law."""
    from emergence_lib.estimate import StoredRatios, law_steps

    done = [TransformerRegressionConfig(T=32, d=16, seed=s) for s in (0, 1)]
    law = law_steps(done[0])
    ratios = StoredRatios.from_stored([(done[0], {"plateau_length": 2 * law}), (done[1], {"plateau_length": 8 * law})])
    assert ratios(TransformerRegressionConfig(T=32, d=16, seed=2)) == pytest.approx(4.0), "the geometric mean of 2 and 8"
    assert ratios(TransformerRegressionConfig(T=64, d=16)) == pytest.approx(4.0), "another point: the kind's ratio"
    assert StoredRatios.from_stored([])(done[0]) == 1.0
    # A new width at a stored length takes that length's ratio, not the kind's (T = 256, d = 64: 1.5, not about 1).
    wide = ratios.from_stored([(done[0], {"plateau_length": 2 * law}),
                               (TransformerRegressionConfig(T=64, d=16), {"plateau_length": law_steps(
                                   TransformerRegressionConfig(T=64, d=16)) * 8})])
    assert wide(TransformerRegressionConfig(T=32, d=64)) == pytest.approx(2.0), "same T, another d: that T's ratio"
    assert wide(TransformerRegressionConfig(T=128, d=64)) == pytest.approx(4.0), "no run at that T: the kind's"
    assert wide(TransformerRegressionConfig(T=32, d=64, B=2)) == pytest.approx(4.0), "another B is another set-up"
    recall = [TransformerRecallConfig(n_tokens=32, n_pairs=4), TransformerRecallConfig(n_tokens=64, n_pairs=8)]
    by_pairs = StoredRatios.from_stored([(recall[0], {"emergence_step": 3 * law_steps(recall[0])}),
                                         (recall[1], {"emergence_step": law_steps(recall[1]) / 3})])
    assert by_pairs(TransformerRecallConfig(n_tokens=256, n_pairs=4)) == pytest.approx(3.0), "N_pairs is recall's length"
    never = StoredRatios.from_stored([(done[0], {"plateau_length": float("nan")})])
    assert never(done[0]) == 1.0, "a run that never crossed says nothing of the ratio"
    assert expected_steps(done[0], ratios(done[0])) == pytest.approx(4 * law * 1.5)


def test_a_shape_with_stored_runs_is_priced_at_what_they_took_and_not_timed():
    """The estimate reads a shape's seconds a step from its stored runs (their median, evaluations included) and
    times only the shapes with none stored; a run without seconds or steps says nothing."""
    from emergence_lib.estimate import estimate, shape_of, stored_step_seconds

    done = [TransformerRegressionConfig(T=32, d=16, seed=s) for s in (0, 1, 2)]
    stored = [(done[0], {"seconds": 100.0, "steps_run": 100}), (done[1], {"seconds": 300.0, "steps_run": 100}),
              (done[2], {"seconds": 900.0, "steps_run": 100}),
              (TransformerRegressionConfig(T=64, d=16), {"seconds": 5.0, "steps_run": 0})]
    seconds = stored_step_seconds(stored)
    assert seconds == {shape_of(done[0]): (3.0, 3)}, "the median of 1, 3 and 9; a run of 0 steps is left out"
    timed: list = []
    missing = [TransformerRegressionConfig(T=32, d=16, seed=5), TransformerRegressionConfig(T=64, d=16, seed=5)]
    lines: list[str] = []
    e = estimate(missing, timer=lambda r: timed.append(r) or 0.5, progress=lines.append, stored_seconds=seconds)
    assert [shape_of(r) for r in timed] == [shape_of(missing[1])], "only the shape with nothing stored is timed"
    assert list(e.table["s_per_step"]) == [3.0, 0.5]
    assert list(e.table["s_per_step_from"]) == ["3 stored runs", "timed"]
    assert "1 read from stored runs" in e.describe() and any("median of 3 stored runs" in line for line in lines)
    # Another width (d) at a stored length: priced at the stored runs of that length, not timed (a timing of the
    # training steps alone read half of what whole runs took at T = 256). Recall's width is N_tokens.
    timed.clear()
    wider = estimate([TransformerRegressionConfig(T=32, d=64)], timer=lambda r: timed.append(r) or 0.5,
                     stored_seconds=seconds)
    assert not timed and list(wider.table["s_per_step"]) == [3.0] and "(each read from stored runs)" in wider.describe()
    assert list(wider.table["s_per_step_from"]) == ["3 stored runs at other widths"]
    recall = [TransformerRecallConfig(n_tokens=V, n_pairs=8) for V in (32, 64)]
    by_vocabulary = estimate(recall[1:], timer=lambda r: timed.append(r) or 0.5,
                             stored_seconds=stored_step_seconds([(recall[0], {"seconds": 40.0, "steps_run": 100})]))
    assert not timed and list(by_vocabulary.table["s_per_step"]) == [0.4]
    longer = estimate([TransformerRecallConfig(n_tokens=32, n_pairs=16)], timer=lambda r: timed.append(r) or 0.5,
                      stored_seconds=stored_step_seconds([(recall[0], {"seconds": 40.0, "steps_run": 100})]))
    assert len(timed) == 1 and list(longer.table["s_per_step"]) == [0.5], "more pairs is another length: timed"


def test_an_incomplete_point_is_drawn_hollow_and_unjudged_beside_the_complete_ones():
    """Panel (a) of chapter 03's figure: a point with some of its seeds stored is a hollow marker labelled as not
    judged; without one, no such marker (so the check can fail)."""
    import matplotlib.pyplot as plt

    from emergence_lib.experiments.table1 import show as t1show

    def summary(T, d, seeds):
        return pd.DataFrame({"T": T, "d": d, "B": 1, "seed": range(len(seeds)), "plateau_length": seeds,
                             "seconds": 1.0})
    complete = read.point_table(summary(32, 16, [400.0, 450.0, 420.0]), [(32, 16, 1)])
    partial = read.point_table(summary(256, 32, [9283.0]), [(256, 32, 1)])
    local = pd.DataFrame(columns=["T", "ours", "low", "high"])

    def hollow_labels(fig):
        return [ln.get_label() for ln in fig.axes[0].get_lines() if ln.get_markerfacecolor() == "none"]
    fig = t1show._measured_figure(complete, local, partial)
    assert hollow_labels(fig) == ["$d$ = 32: 1 seed so far, not judged"]
    plt.close(fig)
    fig = t1show._measured_figure(complete, local, None)
    assert hollow_labels(fig) == []
    plt.close(fig)
    # A seed that never reached the threshold: the marker is the mean of the others, a lower bound, and says so.
    censored = read.point_table(summary(256, 32, [9283.0, math.inf]), [(256, 32, 1)])
    fig = t1show._measured_figure(complete, local, censored)
    assert hollow_labels(fig) == ["$d$ = 32: 1 seed (1 not reached: a lower bound) so far, not judged"]
    plt.close(fig)


def test_panel_a_labels_its_y_axis_up_to_the_highest_interval_and_no_further():
    """A point judged from 2 crossed seeds has a t interval on 1 degree of freedom (quantile 12.7), which may reach far
    above the fixed ticks (up to 2.8): (256, 64)'s two seeds, 2.15x and 2.46x the law, give [0.99, 5.35]. The axis
    labels up to the last tick within 1.2x the bar's top (4), not an empty decade (8). Fails on the rule that read the
    carets alone."""
    import matplotlib.pyplot as plt

    from emergence_lib.experiments.table1 import show as t1show

    two = pd.DataFrame({"T": 256, "d": 64, "B": 1, "seed": [0, 1], "plateau_length": [29527.0, 33719.0], "seconds": 1.0})
    points = read.point_table(two, [(256, 64, 1)])
    top = float(points["ratio_high"].iloc[0])
    assert 5 < top < 6, points
    fig = t1show._measured_figure(points, pd.DataFrame(columns=["T", "d", "ours", "low", "high"]), None)
    ticks = list(fig.axes[0].get_yticks())
    plt.close(fig)
    assert max(ticks) == 4 and top / max(ticks) < 1.45, ticks


def test_a_lack_of_fit_test_with_no_reached_run_is_nan_not_an_error():
    from emergence_lib.experiments.table1 import read as mread

    empty = pd.DataFrame(columns=["T", "d", "B", "plateau_length"])
    unreached = pd.DataFrame({"T": [32, 32], "d": [16, 16], "B": 1, "plateau_length": [math.inf, math.inf]})
    for summary, pts in ((empty, []), (empty, [(32, 16, 1), (64, 16, 1)]), (unreached, [(32, 16, 1)])):
        out = mread.lack_of_fit(summary, pts, ("d", "T"))
        assert math.isnan(out["F"]) and math.isnan(out["p"])
    assert math.isnan(metrics.lack_of_fit_test(pd.DataFrame(columns=["d", "T", "v"]), ["d", "T"], "v")["F"])


def test_the_amended_exponents_take_the_point_means_only_where_the_law_misfits_and_only_wider():
    """Issue 36 item 5: the cheap end's exponent claims are judged on the point means when the lack-of-fit test
    rejects the pooled fit, and by the registered pooled fit otherwise; the recorded interval is never narrower."""
    from emergence_lib.experiments.table1 import show

    rng = np.random.default_rng(3)
    pts = [(T, d, B) for T in (32, 64) for d in (16, 32, 64) for B in (1, 2)]

    def summary(curved: bool) -> pd.DataFrame:
        return pd.DataFrame([{"T": T, "d": d, "B": B, "plateau_length": 0.76 * d ** 1.29 * T ** 0.8 * B ** -0.8
                              * (math.exp(0.6 * (math.log(d) - 3.5) ** 2) if curved else 1) * math.exp(rng.normal(0, 0.05))}
                             for T, d, B in pts for _ in range(3)])

    for curved in (True, False):
        done = summary(curved)
        exps = read.exponent_table(done)
        table, design = show.rejudge_on_point_means(done, pts, exps)
        assert list(table["exponent"]) == ["d", "T", "B"]
        if curved:  # the law misfits: every exponent is recorded from the point means, whose interval is wider
            assert set(design) == {"d", "T", "B"} and set(table["recorded"]) == {"point means"}
            for k, new in design.items():
                old = exps[exps["quantity"] == k].iloc[0]
                assert new["high"] - new["low"] >= old["high"] - old["low"]
                assert new["ours"] == pytest.approx(old["ours"]), "balanced seeds: the same estimate"
        else:
            assert design == {} and set(table["recorded"]) == {"pooled"}


def test_the_answer_sentence_reads_every_judged_exponent_and_the_points_at_256():
    """Chapter 03's answer is generated from the verdicts: the d exponent at T = 256 first, then the d exponent at
    T = 128 and the T and B exponents once judged, then the B = 1 points at T = 256; an exponent not judged is left out, never guessed."""
    from emergence_lib.experiments.table1.show import verdict_sentence

    exps = [{"claim": "d_exponent_T256", "ours": 1.28, "low": 0.83, "high": 1.73},
            {"claim": "T_exponent", "ours": 1.15, "low": 1.10, "high": 1.20},
            {"claim": "B_exponent_T256", "ours": -1.15, "low": -1.22, "high": -1.08},
            {"claim": "d_exponent_T128", "ours": 1.42, "low": 1.27, "high": 1.57}]
    points = pd.DataFrame({"T": [256, 256, 128], "d": [32, 16, 16], "B": [1, 1, 1], "ratio": [1.49, 1.50, 0.92],
                           "ratio_low": [1.08, 1.04, 0.75], "ratio_high": [2.05, 2.14, 1.13]})
    s = verdict_sentence({"d_exponent_T256": "inconclusive", "T_exponent": "differs", "B_exponent_T256": "differs",
                          "d_exponent_T128": "agrees"}, exps, 38, 44, points)
    assert s.startswith("Where the paper measured, the d exponent at T = 256 is 1.28 [0.83, 1.73]")
    assert "the T exponent over T = 32–256 is 1.15 [1.10, 1.20] against 0.80 (differs)" in s
    assert "At T = 128 (d = 16, 32, 64) the d exponent is 1.42 [1.27, 1.57] against 1.29 (agrees)." in s
    assert s.index("T = 128") < s.index("other exponents"), "the same d exponent at another T, not another exponent"
    assert "the B exponent at T = 256 is −1.15 [−1.22, −1.08] against −0.80 (differs)" in s
    assert s.endswith("1.50× [1.04, 2.14] at d = 16 and 1.49× [1.08, 2.05] at d = 32 the law's."), "d in order; T = 128 out"
    over = "on d = 16 and 32; d = 64 enters once 2 of its 3 seeds are stored, 0 so far"
    both = verdict_sentence({"d_exponent_T256": "inconclusive", "d_exponent_grows": "inconclusive"}, exps, 38, 44,
                            points, over, (0.27, -0.18, 0.71))
    assert both.startswith(f"Where the paper measured, the d exponent at T = 256 ({over}) is 1.28 [0.83, 1.73]")
    assert "The difference, +0.27 [−0.18, +0.71], holds 0: these seeds cannot tell (inconclusive)." in both
    assert both.endswith("at d = 32 the law's."), "the points at 256 still close the answer"
    grew = verdict_sentence({"d_exponent_T256": "agrees", "d_exponent_grows": "agrees"}, exps, 38, 44, None, "",
                            (0.4, 0.1, 0.7))
    assert grew.endswith("Yes: it is larger at T = 256 by +0.40 [+0.10, +0.70] (agrees).")
    unread = verdict_sentence({"d_exponent_T256": "agrees", "d_exponent_grows": "inconclusive"}, exps, 38, 44)
    assert "grow" not in unread, "no reading of the hypothesis without its numbers"
    # A gap that does not close says which way: T = 256's exponent above the paper's (the cheap end's is below) reverses.
    def at_256(ours: float, low: float, high: float) -> list[dict]:  # numpy floats, as the reader gives them
        new = {"ours": np.float64(ours), "low": np.float64(low), "high": np.float64(high)}
        return [e | new if e["claim"] == "d_exponent_T256" else e for e in exps]
    steep, flat = at_256(1.60, 1.35, 1.85), at_256(1.05, 0.93, 1.16)
    assert verdict_sentence({"d_exponent_T256": "differs"}, steep, 44, 44).startswith(
        "Where the paper measured, the gap does not close, it reverses: the d exponent at T = 256 is 1.60 [1.35, 1.85]")
    assert verdict_sentence({"d_exponent_T256": "differs"}, flat, 44, 44).startswith(
        "Where the paper measured, the gap does not close: the d exponent at T = 256 is 1.05 [0.93, 1.16]")
    fewer = verdict_sentence({"d_exponent_T256": "agrees", "T_exponent": "not run"}, exps, 10, 44)
    assert "T exponent" not in fewer and "B exponent" not in fewer and "T = 128" not in fewer and "the gap closes" in fewer


def test_sgd_runs_are_priced_by_the_papers_sgd_law_and_pool_ratios_only_with_sgd():
    """The estimate of an SGD run (Figure 15) follows the paper's SGD law at its lr 5e-3, not Adam's Figure 3 law moved
    by the lr (which priced a 14k-step run at 14 steps); Adam's measured ratios never stand in for SGD's."""
    from emergence_lib.estimate import StoredRatios, law_steps
    from emergence_lib.paper import PAPER

    sgd = TransformerRegressionConfig(T=32, d=16, n_layers=1, n_heads=1, optimizer="sgd", lr=5e-3)
    law = PAPER["figure15 sgd"]
    assert law_steps(sgd) == pytest.approx(law["C"] * 16 ** law["d"] * 32 ** law["T"])
    assert law_steps(dataclasses.replace(sgd, lr=2.5e-3)) == pytest.approx(law_steps(sgd) * 2 ** 0.7)
    adam = dataclasses.replace(sgd, optimizer="adam", lr=1e-4)
    assert law_steps(sgd) > 10 * law_steps(adam)
    ratios = StoredRatios.from_stored([(adam, {"plateau_length": 3 * law_steps(adam)})])
    assert ratios(dataclasses.replace(adam, T=64)) == pytest.approx(3.0) and ratios(sgd) == 1.0


def test_the_cli_prices_a_step_from_runs_stored_from_a_cpu_only(data_dir, monkeypatch):
    """A GPU's stored run took 30-100x fewer seconds a step: the CPU estimate must time the shape instead of reading
    that (it priced 12 SGD runs at 0.0 CPU-hours once the GPU's Adam runs were stored)."""
    import json

    import emergence_lib.estimate as estimate_module
    from emergence_lib.cache import ResultCache, record_checksum
    from emergence_lib.cli import cpu_estimate
    from emergence_lib.sweep import run_sweep

    done = TransformerRegressionConfig(T=8, d=2, d_model=32, d_qk=8, lr=3e-3, max_steps=30, stop_factor=None)
    run_sweep([done], ResultCache(), progress=False, device="cpu")
    missing = [dataclasses.replace(done, seed=1)]
    monkeypatch.setattr(estimate_module, "time_shape", lambda r: 0.25)
    assert cpu_estimate(missing, [done]).table["s_per_step_from"].tolist() == ["1 stored run"]
    path = ResultCache().path(done)
    record = json.loads(path.read_text())
    record["meta"]["device"] = "cuda"
    record["checksum"] = record_checksum(record)
    path.write_text(json.dumps(record))
    e = cpu_estimate(missing, [done])
    assert e.table["s_per_step_from"].tolist() == ["timed"] and e.table["s_per_step"].tolist() == [0.25]


def test_a_checkpointed_run_is_priced_at_the_steps_it_has_left(data_dir, monkeypatch):
    """A run stopped midway resumes from its checkpoint: the estimate prices what it has left, not a fresh run (the
    two recall seeds resumed at steps 3,357 and 2,137 of about 14,000 were priced as if fresh, 2.66 CPU-hours).
    Only what training resumes from counts: a run's own checkpoint with its state, saved on a CPU, in the folder
    the sweep will use ($EMERGENCE_CHECKPOINT_DIR wins); a GPU's, a batch of seeds', or a description without its
    state counts nothing."""

    import emergence_lib.estimate as estimate_module
    from emergence_lib import checkpoints
    from emergence_lib.cache import ResultCache, run_key
    from emergence_lib.cli import cpu_estimate

    runs = [TransformerRegressionConfig(T=8, d=2, d_model=32, d_qk=8, lr=3e-3, max_steps=1000, stop_factor=None,
                                        seed=s) for s in (0, 1, 2, 3)]
    monkeypatch.setattr(estimate_module, "time_shape", lambda r: 0.5)
    assert cpu_estimate(runs).table["steps_done"].tolist() == [0, 0, 0, 0]
    folder = checkpoints.folder_for(ResultCache().root)
    folder.mkdir(parents=True, exist_ok=True)
    k0, k1, k2, k3 = (run_key(r) for r in runs)

    by_key = {run_key(r): r for r in runs}

    def describe(step: int, keys: list[str], device: str = "cpu", state: bool = True) -> None:
        # A run's own checkpoint carries its config hash (`for_configs`); a batch's names a run that is not here.
        ckpt = checkpoints.Checkpoint.for_configs([by_key[keys[0]]], folder) if len(keys) == 1 else \
            checkpoints.Checkpoint(folder, tuple(keys))
        ckpt.save({"step": step, "steps": [], "device": device}, step, 1000)
        if not state:  # a header whose state is cut off: it would not resume
            ckpt.state_path.write_bytes(ckpt.state_path.read_bytes()[:-5])

    describe(400, [k0])
    describe(300, [k1], device="cuda")
    describe(500, [k2, "other"])
    describe(200, [k3], state=False)
    e = cpu_estimate(runs)
    assert e.table["steps_done"].tolist() == [400, 0, 0, 0]
    assert e.table["expected_s"].tolist() == pytest.approx([600 * 0.5] + [1000 * 0.5] * 3)
    assert e.table["bound_s"].tolist() == pytest.approx([600 * 0.5] + [1000 * 0.5] * 3)
    assert "for what is left of 1 run resumed from checkpoints (400 steps done)" in e.describe()
    assert e.table_text().splitlines()[1].split()[-3] == "400", "the shape's line: steps done by its runs in all"
    elsewhere = data_dir.parent / "elsewhere"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(elsewhere))
    assert cpu_estimate(runs).table["steps_done"].tolist() == [0, 0, 0, 0], "the caller's folder is the one used"
    monkeypatch.delenv(checkpoints.CHECKPOINT_DIR_ENV)
    # Past its expected steps a run has not stopped yet: it stops at stop_factor × a crossing not yet reached (or
    # just reached), so at least about (stop_factor - 1) × its steps more; never past max_steps.
    stopping = dataclasses.replace(runs[0], stop_factor=1.5, max_steps=50_000)
    beyond = int(expected_steps(stopping)) * 4
    past = estimate([stopping], timer=lambda r: 0.5, done=lambda r: beyond)
    assert past.table["expected_s"].tolist() == pytest.approx([0.5 * beyond * 0.5])
    assert past.table["bound_s"].tolist() == pytest.approx([(50_000 - beyond) * 0.5])
    near_end = estimate([stopping], timer=lambda r: 0.5, done=lambda r: 49_900)
    assert near_end.table["expected_s"].tolist() == pytest.approx([100 * 0.5])


def test_the_cost_guard_counts_what_a_checkpointed_run_has_left(data_dir, monkeypatch):
    """The guard that asks before long CPU work prices a resumed run as the estimate does: a run at 10 hours fresh
    is refused; resumed 3 steps before its end, it is not."""
    import emergence_lib.estimate as estimate_module
    from emergence_lib.sweep import guard_long_work

    run = TransformerRegressionConfig(T=256, d=64, d_model=256, d_qk=64, max_steps=36_000, stop_factor=None)
    monkeypatch.setattr(estimate_module, "time_shape", lambda r: 1.0)
    folder = data_dir.parent / "ck"
    with pytest.raises(ConfigError, match="CPU"):
        guard_long_work([run], "cpu", False, folder)
    from emergence_lib import checkpoints

    ckpt = checkpoints.Checkpoint.for_configs([run], folder)
    ckpt.save({"step": 35997, "steps": []}, 35997, 36000)
    truncated = ckpt.state_path.read_bytes()
    ckpt.state_path.write_bytes(truncated[:-3])
    with pytest.raises(ConfigError, match="CPU"):
        guard_long_work([run], "cpu", False, folder)  # a checkpoint that would not resume waives nothing
    ckpt.state_path.write_bytes(truncated)
    guard_long_work([run], "cpu", False, folder)


def test_the_local_T_exponent_recovers_a_known_slope_between_two_lengths():
    """Plateaus ∝ T^1.5 between 128 and 256 give a local exponent of 1.5, with an interval from the seeds' spread; a
    length with no reached seed gives nan, not a number."""
    from emergence_lib.experiments.table1.read import local_T_exponent

    rows = [{"T": T, "d": 16, "B": 1, "seed": s, "plateau_length": 10 * T ** 1.5 * f}
            for T in (128, 256) for s, f in enumerate((0.9, 1.0, 1.1))]
    summary = pd.DataFrame(rows)
    r = local_T_exponent(summary, 16, 128, 256)
    assert r["ours"] == pytest.approx(1.5) and r["low"] < 1.5 < r["high"] and r["seeds"] == (3, 3)
    assert math.isnan(local_T_exponent(summary, 32, 128, 256)["ours"])


def test_the_local_T_sentence_reads_the_first_and_last_pair_with_their_intervals():
    from emergence_lib.experiments.table1.show import local_T_sentence

    nan = float("nan")
    t = pd.DataFrame([{"d": 16, "T": "32 → 64", "ours": 0.78, "low": 0.59, "high": 0.97},
                      {"d": 16, "T": "64 → 128", "ours": 1.03, "low": 0.73, "high": 1.33},
                      {"d": 16, "T": "192 → 256", "ours": 1.65, "low": 0.61, "high": 2.68},
                      {"d": 32, "T": "192 → 256", "ours": nan, "low": nan, "high": nan}])
    s = local_T_sentence(t)
    assert "0.78 [0.59, 0.97] at d = 16 from T = 32 → 64" in s and "1.65 [0.61, 2.68] at d = 16 from T = 192 → 256" in s
    assert "1.03" not in s and "d = 32" not in s and s.startswith("Described, not judged")
    assert local_T_sentence(t.iloc[3:]) == "No pair of neighbouring lengths has all its seeds stored yet."


def test_the_local_exponents_follow_d_64_over_its_own_pairs_of_lengths():
    """d = 64 has no T = 64 or 192: its local T exponent reads 32 → 128 and 128 → 256, and appears only where both
    lengths are stored; the local d exponent from 32 to 64 appears at the lengths that have both, 16 → 32 at every
    length (nan where not stored). Plateaus ∝ d^1.5 T^1.2 give those slopes back."""
    from emergence_lib.experiments.table1.read import local_exponents

    have = [(32, 16), (32, 32), (32, 64), (64, 16), (64, 32), (128, 16), (128, 32), (128, 64)]
    summary = pd.DataFrame([{"T": T, "d": d, "B": 1, "seed": s, "plateau_length": d ** 1.5 * T ** 1.2 * f}
                            for T, d in have for s, f in enumerate((0.95, 1.0, 1.05))])
    local, local_T = local_exponents(summary)
    assert list(local["d"]) == ["16 → 32"] * 5 + ["32 → 64"] * 2 and list(local["T"][5:]) == [32, 128]
    assert np.allclose(local["ours"].iloc[[0, 1, 2, 5, 6]], 1.5) and local["ours"].iloc[[3, 4]].isna().all()
    at64 = local_T[local_T["d"] == 64]
    assert list(at64["T"]) == ["32 → 128"] and at64["ours"].iloc[0] == pytest.approx(1.2)
    more = pd.concat([summary, pd.DataFrame([{"T": 256, "d": 64, "B": 1, "seed": s, "plateau_length":
                                              64 ** 1.5 * 256 ** 1.2 * f} for s, f in enumerate((0.95, 1.05))])])
    assert list(local_exponents(more)[1].query("d == 64")["T"]) == ["32 → 128", "128 → 256"]


def test_the_local_T_sentence_groups_each_d_by_its_own_first_and_last_pair():
    from emergence_lib.experiments.table1.show import local_T_sentence

    t = pd.DataFrame([{"d": 16, "T": "32 → 64", "ours": 0.78, "low": 0.59, "high": 0.97},
                      {"d": 16, "T": "192 → 256", "ours": 1.65, "low": 0.61, "high": 2.68},
                      {"d": 32, "T": "32 → 64", "ours": 0.80, "low": 0.61, "high": 0.99},
                      {"d": 32, "T": "192 → 256", "ours": 1.49, "low": 0.57, "high": 2.41},
                      {"d": 64, "T": "32 → 128", "ours": 1.26, "low": 1.24, "high": 1.28},
                      {"d": 64, "T": "128 → 256", "ours": 1.3, "low": -0.2, "high": 2.8}])
    s = local_T_sentence(t)
    assert ("0.78 [0.59, 0.97] at d = 16 and 0.80 [0.61, 0.99] at d = 32 from T = 32 → 64; "
            "1.26 [1.24, 1.28] at d = 64 from T = 32 → 128") in s
    assert "1.30 [−0.20, 2.80] at d = 64 from T = 128 → 256" in s and s.index("128 → 256") < s.index("192 → 256")
    one_pair = local_T_sentence(t[t["d"] == 64].iloc[:1])
    assert one_pair == "The local T exponent is 1.26 [1.24, 1.28] at d = 64 from T = 32 → 128, against the law's 0.80."


def test_a_local_exponent_needs_two_crossed_seeds_at_each_end_and_a_lone_pair_sits_at_its_end():
    """One crossed seed at (256, 64) gives no interval, so no local exponent is shown from it (never one seed's
    value); a d whose only pair reaches the longest T is described at the long end, not the short one."""
    from emergence_lib.experiments.table1.read import local_exponents
    from emergence_lib.experiments.table1.show import local_T_sentence

    have = {(128, 64): 3, (256, 64): 1, (32, 16): 3, (64, 16): 3}
    summary = pd.DataFrame([{"T": T, "d": d, "B": 1, "seed": s, "plateau_length": d ** 1.5 * T ** 1.2 * (1 + s / 20)}
                            for (T, d), n in have.items() for s in range(n)])
    summary.loc[len(summary)] = {"T": 256, "d": 64, "B": 1, "seed": 1, "plateau_length": math.inf}
    local, local_T = local_exponents(summary)
    assert local_T.query("d == 64").empty and not (local["d"] == "32 → 64").any()
    t = pd.DataFrame([{"d": 16, "T": "32 → 64", "ours": 0.78, "low": 0.59, "high": 0.97},
                      {"d": 16, "T": "192 → 256", "ours": 1.65, "low": 0.61, "high": 2.68},
                      {"d": 64, "T": "128 → 256", "ours": 1.3, "low": 0.2, "high": 2.4}])
    s = local_T_sentence(t)
    assert s.index("long end") < s.index("at d = 64 from T = 128 → 256"), s
    assert local_T_sentence(t[t["d"] == 64]) == ("The local T exponent is 1.30 [0.20, 2.40] at d = 64 from T = "
                                                 "128 → 256, against the law's 0.80.")


def test_and_list_writes_a_list_in_prose():
    from emergence_lib.report import and_list

    assert [and_list(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]


def test_an_amended_exponent_takes_the_point_means_interval_only_where_the_law_misfits():
    """Figure 3's T exponent on the paper's model, amended after its runs: a Welch contrast counts only the seeds'
    spread, so where the power law misfits its points the interval of the least-squares fit to the point means (its
    residual degrees of freedom) is recorded instead, and only if wider; on points that follow the law the registered
    Welch interval stands."""
    from emergence_lib.experiments.table1 import read as measured_read
    from emergence_lib.experiments.table1.read import respecting_the_misfit

    points = [(T, d, 1) for d in (16, 32) for T in (32, 64, 128, 192, 256)]

    def summary(bend: float) -> pd.DataFrame:
        return pd.DataFrame([{"T": T, "d": d, "B": 1, "seed": s, "plateau_length":
                              d * T ** 0.8 * math.exp(bend * math.log(T / 90) ** 2) * f}
                             for T, d, _ in points for s, f in enumerate((0.97, 1.0, 1.03))])

    for bend, amended in ((0.3, True), (0.0, False)):
        s = summary(bend)
        row = measured_read.measured_slope(s, points, "T", "d") | {"claim": "T_exponent"}
        out = respecting_the_misfit(claims.claim("table1.measured.T_exponent").amended, row, s, points, "T", "d")
        assert out["registered"] == f"{row['ours']:.2f} [{row['low']:.2f}, {row['high']:.2f}]"
        if amended:
            assert out["recorded"].startswith("point means") and out["lack_of_fit_p"] < 0.05
            assert out["high"] - out["low"] > row["high"] - row["low"]
        else:
            assert out["recorded"] == "Welch (registered)" and (out["low"], out["high"]) == (row["low"], row["high"])
    d_row = {"ours": 1.28, "low": 0.83, "high": 1.73, "claim": "d_exponent_T256"}
    assert respecting_the_misfit(claims.claim("table1.measured.d_exponent_T256").amended, d_row, summary(0.3), points[:2], "d", None)["recorded"] == \
        "Welch (registered)", "a claim not amended keeps its registered rule"


def test_the_amended_fit_gives_each_level_of_the_other_axis_its_own_intercept():
    """The point-means reading of a T exponent uses the registered slope's own model (an intercept per d): a bent law
    in d, with T's law exact, is no misfit of the T slope (a straight log-d term would read it as one)."""
    from emergence_lib.experiments.table1.read import fixed_effect_fit, measured_slope

    points = [(T, d, 1) for T in (32, 64, 128) for d in (16, 32, 64)]
    rows = [{"T": T, "d": d, "B": 1, "seed": s, "plateau_length": T ** 0.4 * math.exp(0.8 * math.log(d / 32) ** 2) * f}
            for T, d, _ in points for s, f in enumerate((0.97, 1.0, 1.03))]
    summary = pd.DataFrame(rows)
    fit = fixed_effect_fit(summary, points, "T", "d")
    assert fit["ours"] == pytest.approx(measured_slope(summary, points, "T", "d")["ours"]) == pytest.approx(0.4)
    assert fit["p"] > 0.5 and fit["df"] == 9 - 4


def test_d_curvature_is_zero_on_one_power_of_d_and_reads_a_bend_and_the_sentence_says_which():
    """The difference of the local d exponents (32 → 64 minus 16 → 32) at T = 128: about 0 where the plateau is one
    power of d, positive where the slope grows; the chapter's sentence calls the registered exponent a secant only then."""
    from emergence_lib.experiments.table1.read import d_curvature
    from emergence_lib.experiments.table1.show import local_d_sentence

    noise = np.array([-0.05, 0.0, 0.05])

    def runs(exponent_low: float, exponent_high: float) -> pd.DataFrame:
        logs = {16: 5.0, 32: 5.0 + exponent_low * np.log(2), 64: 5.0 + (exponent_low + exponent_high) * np.log(2)}
        return pd.DataFrame([{"T": 128, "d": d, "B": 1, "plateau_length": float(np.exp(v + e))}
                             for d, v in logs.items() for e in noise])

    straight, bent = d_curvature(runs(1.3, 1.3), 128), d_curvature(runs(1.2, 1.65), 128)
    assert straight[0] == pytest.approx(0.0, abs=1e-9) and straight[1] < 0 < straight[2]
    assert bent[0] == pytest.approx(0.45) and bent[1] > 0
    assert "the local slope grows" in local_d_sentence(runs(1.2, 1.65), "agrees")
    assert local_d_sentence(runs(1.2, 1.65), None).endswith("the local slope grows from d = 16 to 64."), "no claim"
    assert "the local slope falls" in local_d_sentence(runs(1.65, 1.2), "agrees")
    assert "do not tell a growing slope from a constant one" in local_d_sentence(runs(1.3, 1.3), "agrees")
    assert local_d_sentence(runs(1.3, 1.3)[lambda t: t["d"] != 64], "agrees").startswith("Not described yet")


@pytest.mark.parametrize("stored, unreached", [(0, 0), (1, 0), (2, 0), (3, 0), (2, 1), (3, 1), (3, 2), (3, 3), (2, 2)])
def test_d_64_at_256_enters_the_d_exponent_and_is_judged_from_its_second_crossed_seed(monkeypatch, stored, unreached):
    """The (256, 64) point, run as the budget allows: registered (7594059) as "its claims read whatever seeds have
    finished, at least 2 for an interval", it enters the d exponent at T = 256 and has its own ratio judged once 2 of
    its seeds have crossed (or all 3 are stored), not on one seed's lower bound; until then it is listed as waiting,
    and while seeds are still to come it is listed with them. Synthetic plateaus on the paper's law, through chapter
    03's reader (`table1.show.measured`); every other point is complete; the last ``unreached`` seeds never crossed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from emergence_lib.experiments import Context
    from emergence_lib.experiments.table1 import show as t1show
    from emergence_lib.experiments.table1.runs import Figure3Measured

    offsets = (0.03, -0.03, 0.0, 0.03, -0.03)  # log scatter whose mean is 0 over 2, 3 and 5 seeds: means on the law
    grid = Figure3Measured(scale="paper_cpu").grid
    seeds = {(T, d, B): len(s) for T, d, B, s in grid.points} | {p: 3 for p in t1show.measured_read.CHEAP_POINTS}
    rows = [{"T": T, "d": d, "B": B, "seed": s, "plateau_length": runs.law(T, d, B) * math.exp(offsets[s]),
             "seconds": 1.0, "run": f"{T}-{d}-{B}-{s}", "steps_run": 50_000}
            for (T, d, B), n in seeds.items() for s in range(stored if (T, d, B) == (256, 64, 1) else n)]
    summary = pd.DataFrame(rows)
    crossed = stored - unreached
    if unreached:
        summary.loc[summary.index[(summary["T"] == 256) & (summary["d"] == 64)][crossed:], "plateau_length"] = math.inf
    monkeypatch.setattr(t1show, "stored_summaries", lambda: (summary, seeds, len(rows), len(rows)))
    monkeypatch.setattr(t1show, "in_progress", lambda p: "seed 2 at step 100")  # not this machine's checkpoints
    glued: dict[str, str] = {}
    monkeypatch.setattr(t1show, "glue_text", lambda key, text: glued.__setitem__(key, text))
    monkeypatch.setattr(t1show, "glue_figure", lambda key, fig: glued.__setitem__(key, fig))
    out = t1show.measured({}, Context("paper_cpu"))
    labels = [t.get_text() for t in glued["fig3_measured"].axes[0].get_legend().get_texts()]
    plt.close("all")
    # A seed that never crossed is a lower bound, in prose and as a caret: 50,000 steps over the law's 13,721.
    said = glued["t1m_sentence"]
    assert ("never crossed in 50,000 steps, a plateau over 3.64× the law's 13,721" in said) == (unreached > 0), said
    caret = f"$d$ = 64: {unreached} seed{'s' * (unreached > 1)} that never crossed (plateau above)"
    assert (caret in labels) == (unreached > 0), labels
    assert ("$d$ = 64: 1 crossed seed, no interval" in labels) == (stored == 3 and crossed == 1), "never a bare point"
    assert ("d = 64 enters no exponent: all 3 of its seeds are stored" in said) == (stored == 3 and crossed < 2), said
    assert "nan" not in said, "a point with fewer than 2 crossed seeds has no interval to quote"
    assert ("d = 64 enters once 2 of its 3 seeds have crossed" in said) == (stored < 3 and crossed < 2), said
    assert ("d = 64 is in, from its 2 crossed seeds, a mean biased low" in said) == (crossed >= 2 and unreached > 0)
    assert ("; d = 64" in said) == (crossed < 2 or unreached > 0), "nothing to add once every stored seed crossed"
    row = out.exponents.set_index("claim").loc["d_exponent_T256"]
    assert row["points"] == (3 if crossed >= 2 else 2), row["used"]
    assert ("(256, 64, 1)" in row["used"]) == (crossed >= 2)
    assert row["ours"] == pytest.approx(1.29) and out.status["d_exponent_T256"] == "agrees", row
    judged = {r.claim.key for r in out.checked}
    assert ("table1.measured.T256_d64_B1" in judged) == (crossed >= 2 or stored == 3), "never on one seed's bound"
    described = glued["t1m_local_d"]
    assert described.startswith("At T = 128 the local d exponent"), "no T = 32 sentence without (32, 64)"
    assert ("At T = 256 the local d exponent" in described) == (crossed >= 2), described
    assert ("At T = 256 the same reading waits for d = 64" in described) == (crossed < 2)
    waiting = out.pending[(out.pending["T"] == 256) & (out.pending["d"] == 64)]
    assert len(waiting) == len(out.pending) == (stored < 3), out.pending
    # The cheap end's (32, 64), shown beside (read.SHOWN_BESIDE), far off the law: it enters the figure and the local
    # exponents, never a claim or the lack of fit.
    beside = pd.DataFrame([{"T": 32, "d": 64, "B": 1, "seed": s, "plateau_length": 3 * runs.law(32, 64, 1) * f,
                            "seconds": 1.0, "run": f"32-64-1-{s}"} for s, f in enumerate((0.97, 1.0, 1.03))])
    monkeypatch.setattr(t1show, "stored_summaries",
                        lambda: (pd.concat([summary, beside]), seeds | {(32, 64, 1): 3}, len(rows), len(rows)))
    more = t1show.measured({}, Context("paper_cpu"))
    plt.close("all")
    assert ({repr((r.claim.key, r.ours, r.interval, r.status)) for r in more.checked}  # repr: nan equals nan
            == {repr((r.claim.key, r.ours, r.interval, r.status)) for r in out.checked})
    pd.testing.assert_frame_equal(more.lack_of_fit, out.lack_of_fit)
    assert (32, 64, 1) in more.complete and not (more.local_T["T"] == "32 → 128").empty
    assert ((more.local["T"] == 32) & (more.local["d"] == "32 → 64")).sum() == 1
    assert glued["t1m_local_d"].startswith("At T = 32 the local d exponent") and "At T = 128" in glued["t1m_local_d"]
    if stored < 3:
        assert waiting.iloc[0]["seeds stored"] == stored and waiting.iloc[0]["crossed"] == crossed
        assert waiting.iloc[0]["judged"].startswith("yes" if crossed >= 2 else "once 2 have crossed")
        assert waiting.iloc[0]["in progress"] == "seed 2 at step 100"


def test_a_seed_that_never_crossed_is_a_lower_bound_and_a_diverged_one_is_not():
    """`never_crossed` keeps the seeds that ran out of steps on the plateau (∞), not a diverged one (NaN), whose
    plateau is unknown; `budget_phrase` gives one bound for seeds that ran as long, one per seed otherwise."""
    from emergence_lib.experiments.table1.read import budget_phrase, never_crossed

    p, law = (256, 64, 1), runs.law(256, 64, 1)
    summary = pd.DataFrame({"T": 256, "d": 64, "B": 1, "seed": [0, 1, 2], "plateau_length": [math.inf, math.nan, 30_000.0],
                            "steps_run": [50_000, 9_000, 36_000]})
    never = never_crossed(summary, [p])
    assert never["seed"].tolist() == [0] and never["bound"].iloc[0] == pytest.approx(50_000 / law), never
    assert budget_phrase(p, 3, 3, 1, never) == ("d = 64 enters no exponent: all 3 of its seeds are stored and only 1 "
                                                "crossed; seed 0 never crossed in 50,000 steps, a plateau over 3.64× the "
                                                "law's 13,721")
    summary.loc[1, "plateau_length"] = math.inf
    two = never_crossed(summary, [p])
    assert budget_phrase(p, 3, 3, 1, two).endswith("never crossed: seed 0 in 50,000 steps (3.64×) and seed 1 in 9,000 "
                                                   "steps (0.66×), plateaus over these multiples of the law's 13,721")
    assert budget_phrase(p, 3, 2, 0, two).startswith("d = 64 enters once 2 of its 3 seeds have crossed, 0 so far; ")
    assert budget_phrase(p, 3, 3, 2, never_crossed(summary.iloc[2:], [p])) == "", "every stored seed crossed"
    assert never_crossed(summary, [(256, 32, 1)]).empty


def test_a_reading_is_priced_from_its_own_stored_runs_and_never_from_the_books():
    """A reading that moves the plateau 45-fold at T = 64 (GPT-2's initialisation) is priced at T = 256 by its own
    T = 64 runs, not by the book's reading there; a reading with nothing stored takes the kind's pooled ratio."""
    from emergence_lib.estimate import StoredRatios, law_steps

    book = [TransformerRegressionConfig(T=T, d=8, seed=10) for T in (64, 256)]
    gpt2 = TransformerRegressionConfig(T=64, d=8, seed=10, weight_init="gpt2")
    ratios = StoredRatios.from_stored([(book[0], {"plateau_length": 1.0 * law_steps(book[0])}),
                                       (book[1], {"plateau_length": 1.5 * law_steps(book[1])}),
                                       (gpt2, {"plateau_length": 45 * law_steps(gpt2)})])
    assert ratios(TransformerRegressionConfig(T=256, d=8, seed=11)) == pytest.approx(1.5), "the book's own point"
    assert ratios(TransformerRegressionConfig(T=256, d=8, seed=11, weight_init="gpt2")) == pytest.approx(45.0), \
        "the reading's own runs at another length, not the book's 1.5 at this one"
    loud = ratios(TransformerRegressionConfig(T=256, d=8, seed=11, relevance_gain=16.0))
    assert loud == pytest.approx((1.0 * 1.5 * 45) ** (1 / 3)), "nothing of that reading stored: the kind's pooled ratio"
    assert ratios(TransformerRegressionConfig(T=256, d=8, seed=11, record_attention=True)) == pytest.approx(1.5), \
        "a recording flag is not a reading"
