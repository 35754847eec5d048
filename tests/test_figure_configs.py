"""The figure configs of the ablations (Figures 13–15) and of associative recall (Figures 4, 5, 16, 17),
and the small analysis helpers their chapters use."""

import numpy as np
import pandas as pd
import pytest

from emergence_lib.experiments.ablations import runs as ablations
from emergence_lib.experiments.recall import read as recall_read
from emergence_lib.experiments.recall import runs as recall
from emergence_lib.cache import run_key
from emergence_lib.configs import ConfigError
from emergence_lib.sweep import SweepResult


@pytest.mark.parametrize("scale", ["smoke", "cpu", "paper"])
def test_ablation_grids_have_three_values_per_fitted_axis_except_smoke(scale):
    g = ablations.ABLATION_GRIDS[scale]
    if scale != "smoke":
        for axis in ("d", "T", "layers", "heads"):
            assert len(getattr(g, axis)) >= 3, axis
    fig13 = ablations.Figure13(scale=scale)
    archs = {(r.n_layers, r.n_heads) for r in fig13.runs()}
    assert archs == {(L, H) for L in g.layers for H in g.heads}
    assert len({r.lr for r in fig13.runs()}) == 1  # the lr is not retuned per size, as in the paper


def test_figure14_variants_and_the_shared_run():
    fig14 = ablations.Figure14(scale="cpu")
    sweeps = fig14.sweeps()
    longer = sweeps.pop("longer contexts")
    assert {r.seed for r in longer} == set(ablations.ABLATION_GRIDS["cpu"].fig14.seeds)
    assert list(sweeps) == list(ablations.TASK_VARIANTS)
    assert {(r.random_position, r.relevance_feature) for r in longer} == set(ablations.TASK_VARIANTS.values())
    for name, runs in sweeps.items():
        rand, feat = ablations.TASK_VARIANTS[name]
        assert all(r.random_position == rand and r.relevance_feature == feat for r in runs)
        assert all(r.n_layers == 1 and r.n_heads == 1 for r in runs)
    # Figure 14's first variant is Figure 13's 1-layer, 1-head model: trained and cached once.
    # (Figure 14 has more seeds, for the spread over fixed positions; the ones Figure 13 also has are shared.)
    fig13_seeds = set(ablations.ABLATION_GRIDS["cpu"].fig13_seeds)
    shared = {run_key(r) for r in sweeps["feature + random position"] if r.seed in fig13_seeds}
    assert len(shared) == 9 * len(fig13_seeds)
    assert shared <= {run_key(r) for r in ablations.Figure13(scale="cpu").runs()}
    assert ("no feature", "random position") not in [tuple(n.split(" + ")) for n in sweeps]


@pytest.mark.parametrize("scale", ["smoke", "cpu", "paper"])
def test_figure15_searches_around_its_chosen_learning_rates(scale):
    g = ablations.ABLATION_GRIDS[scale]
    runs = ablations.Figure15(scale=scale).sweeps()
    assert {r.optimizer for r in runs["sgd"]} == {"sgd"} and {r.optimizer for r in runs["adam"]} == {"adam"}
    assert {r.lr for r in runs["sgd"]} == {g.fig15.sgd_lr} and {r.lr for r in runs["adam"]} == {g.fig15.adam_lr}
    searched = {(r.optimizer, r.lr) for r in runs["search"]}
    if scale != "smoke":
        assert ("sgd", g.fig15.sgd_lr) in searched and ("adam", g.fig15.adam_lr) in searched
    assert all(r.n_layers == 1 and r.n_heads == 1 for rs in runs.values() for r in rs)


@pytest.mark.parametrize("scale", ["smoke", "cpu", "paper"])
def test_recall_grids(scale):
    g = recall.RECALL_GRIDS[scale]
    sweeps = recall.Figure4(scale=scale).sweeps()
    assert all(r.n_pairs < r.n_tokens for rs in sweeps.values() for r in rs)
    assert {r.lr for r in sweeps["grid"]} == set(g.lrs)
    # The probe: every listed point, every seed, at the probe's lr (the paper scale lists no points).
    assert len(sweeps["lr_probe"]) == len(g.lr_probe.points) * len(g.seeds)
    assert all(r.lr == g.lr_probe.lr for r in sweeps["lr_probe"])
    # Table 1's reading: the same points with no LayerNorm, at the listed lrs; every other run is pre-LN.
    assert {(r.n_tokens, r.n_pairs, r.seed) for r in sweeps["grid_no_ln"]} == {(r.n_tokens, r.n_pairs, r.seed) for r in sweeps["grid"]}
    assert {r.layer_norm for r in sweeps["grid_no_ln"]} == {"none"} and {r.lr for r in sweeps["grid_no_ln"]} == set(g.no_ln_lrs)
    assert {r.layer_norm for r in sweeps["grid"] + sweeps["lr_probe"]} == {"pre"}
    if scale != "smoke":
        assert len(g.n_tokens) >= 3 and len(g.n_pairs) >= 3 and len(g.lrs) >= 2
        assert g.lr_probe.lr > max(g.lrs)  # the probe brackets the candidates from above
        assert max(g.fig5.B) <= g.fig5.n_pairs // 2 or scale == "paper"
    five = recall.Figure5(scale=scale)
    keys5 = {run_key(r) for r in five.runs()}
    assert {run_key(r) for r in recall.Figure16(scale=scale).runs()} == keys5  # Figure 16 is Figure 5, read otherwise
    seventeen = recall.Figure17(scale=scale).sweeps()
    assert {run_key(r) for r in seventeen["attention"]} <= keys5  # the no-repetition runs
    placement, pg = seventeen["placement"], g.placement
    assert {(r.layer_norm, r.embedding, r.n_pairs, r.seed) for r in placement} == {
        (ln, emb, N, s) for ln, emb in recall.PLACEMENT_SETUPS for N in pg.n_pairs for s in pg.seeds}
    assert len(placement) == len(recall.PLACEMENT_SETUPS) * len(pg.n_pairs) * len(pg.seeds)
    assert {ln for ln, _ in recall.PLACEMENT_SETUPS} == {"pre", "post", "none"} and {e for _, e in recall.PLACEMENT_SETUPS} == {"lookup", "linear"}
    if scale != "smoke":  # issue 17: at least 4, 8 and 12 pairs, at least 3 seeds
        assert {4, 8, 12} <= set(pg.n_pairs) or scale == "paper"
        assert len(pg.seeds) >= 3
    assert all(r.stop_factor is None for r in five.runs())  # full budgets: overfitting must be visible
    test_only = [r for r in five.sweeps()["B"] if r.B == 1]
    assert test_only and all(r.p == 0 for r in test_only)


def test_recall_figure_rejects_unknown_scale():
    with pytest.raises(ConfigError, match="scale"):
        recall.Figure4(scale="laptop")
    with pytest.raises(ConfigError, match="scale"):
        ablations.Figure13(scale="gpu")


def _fake_summary(rows):
    return pd.DataFrame(rows)


def test_best_lr_table_keeps_the_fastest_lr_per_point():
    s = _fake_summary([
        {"n_tokens": 16, "n_pairs": 4, "lr": 1e-3, "seed": 0, "emergence_step": 100.0},
        {"n_tokens": 16, "n_pairs": 4, "lr": 1e-3, "seed": 1, "emergence_step": 120.0},
        {"n_tokens": 16, "n_pairs": 4, "lr": 3e-4, "seed": 0, "emergence_step": 90.0},
        {"n_tokens": 16, "n_pairs": 4, "lr": 3e-4, "seed": 1, "emergence_step": np.inf},  # one seed never emerged
        {"n_tokens": 32, "n_pairs": 4, "lr": 1e-3, "seed": 0, "emergence_step": 300.0},
        {"n_tokens": 32, "n_pairs": 4, "lr": 3e-4, "seed": 0, "emergence_step": 200.0},
    ])
    every, best = recall_read.best_lr_table(s)
    assert len(every) == 4
    b = best.set_index("n_tokens")
    assert b.loc[16, "lr"] == 1e-3 and b.loc[16, "emergence_step"] == pytest.approx(110.0)  # a censored mean loses
    assert b.loc[32, "lr"] == 3e-4


def test_recall_fit_recovers_a_planted_law():
    rows = [{"n_tokens": V, "n_pairs": N, "emergence_step": 0.5 * V**0.8 * N**2.2} for V in (16, 32, 64) for N in (4, 6, 8)]
    table, fit = recall_read.figure4_fit(pd.DataFrame(rows))
    assert {"N_tokens", "N_pairs"} <= set(table.columns)
    assert fit.exponents["N_tokens"] == pytest.approx(0.8) and fit.exponents["N_pairs"] == pytest.approx(2.2)
    assert fit.constant == pytest.approx(0.5)


def test_speedups_are_against_no_repetition():
    s = _fake_summary([{"B": B, "seed": k, "emergence_step": 400.0 / B + k} for B in (1, 2, 4) for k in (0, 1)])
    t = recall_read.speedups(s, "B").set_index("B")
    assert t.loc[1, "speedup"] == pytest.approx(1.0)
    assert t.loc[4, "speedup"] == pytest.approx(400.5 / 100.5)


def test_rise_step_and_crossing_steps():
    steps = np.array([0.0, 10, 20, 30, 40])
    assert recall_read.rise_step(steps, np.array([0.2, 0.2, 0.4, 0.6, 0.6])) == pytest.approx(20.0)
    assert recall_read.rise_step(steps, np.array([0.5, 0.4, 0.3, 0.2, 0.1])) == np.inf  # never rises
    summary = pd.DataFrame([{"run": "a", "n_pairs": 4, "emergence_step": np.nan}, {"run": "b", "n_pairs": 8, "emergence_step": np.nan}])
    curves = pd.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "step": [0, 10, 20] * 2,
                           "accuracy_test": [0.1, 0.3, 0.9, 0.1, 0.2, 0.24]})
    res = SweepResult(summary=summary, curves=curves, n_cached=0, n_computed=0)
    t = recall_read.crossing_steps(res, {4: 0.5, 8: 0.25}).set_index("run")
    assert t.loc["a", "emergence_step"] == pytest.approx(10 + 10 * 0.2 / 0.6)
    assert t.loc["b", "emergence_step"] == np.inf
