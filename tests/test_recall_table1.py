"""Table 1's recall model (`experiments.recall_table1`): the generator at every size of its grid, counted from its
output alone (issue 35 item 4), with a check shown to fail on the bugs it guards; and the readers the registered
claims use, each against a value computed another way."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from emergence_lib.experiments.recall_table1 import read
from emergence_lib.experiments.recall_table1.runs import RECALL_MEASURED_GRIDS, RecallMeasured
from emergence_lib.tasks import AssociativeRecallTask

N_SEQ = 20_000
GRID = RECALL_MEASURED_GRIDS["paper_cpu"]
SIZES = sorted({(r.n_tokens, r.n_pairs) for r in RecallMeasured(scale="paper_cpu").runs()})


def recall_faults(tokens: torch.Tensor, target: torch.Tensor, V: int, N: int) -> list[str]:
    """What is wrong with a batch of recall sequences (B = 1, p = 0), read from tokens and targets alone: the last
    token is the query, keys sit at even positions and values at odd ones before it."""
    faults = []
    keys, values, query = tokens[:, 0:2 * N:2], tokens[:, 1:2 * N:2], tokens[:, -1]
    at_query = keys == query[:, None]
    if not (at_query.sum(1) == 1).all():
        faults.append("the query's key is not in the context exactly once")
    elif not torch.equal(values[at_query], target):
        faults.append("the target is not the value after the query's key")
    if any(len(set(k.tolist())) != N for k in keys[:2000]):
        faults.append("keys repeat within a sequence")
    if any(len(set(v.tolist())) != N for v in values[:2000]):
        faults.append("values repeat within a sequence (the key → value map is not one-to-one)")
    n = len(tokens)
    for name, sample in (("keys", keys.flatten()), ("values", values.flatten()), ("targets", target)):
        counts = torch.bincount(sample, minlength=V).double()
        expected = len(sample) / V
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        if chi2 > (V - 1) + 6 * math.sqrt(2 * (V - 1)):
            faults.append(f"{name} are not uniform over the vocabulary")
    # A guess of a uniformly chosen in-context value scores 1/N; a guess from the vocabulary 1/V.
    g = torch.Generator().manual_seed(7)
    pick = values[torch.arange(n), torch.randint(0, N, (n,), generator=g)]
    for name, score, chance in (("in-context guess", (pick == target).double().mean().item(), 1 / N),
                                ("vocabulary guess", (torch.randint(0, V, (n,), generator=g) == target).double().mean().item(), 1 / V)):
        if abs(score - chance) > 5 * math.sqrt(chance * (1 - chance) / n):
            faults.append(f"a {name} scores {score:.4f}, not {chance:.4f}")
    return faults


@pytest.mark.parametrize("V,N", SIZES)
def test_the_generator_at_every_size_of_the_grid(V, N):
    task = AssociativeRecallTask(n_tokens=V, n_pairs=N, task_seed=3)
    batch = task.sample(N_SEQ, torch.Generator().manual_seed(V * 100 + N))
    assert recall_faults(batch.tokens, batch.target, V, N) == []


def test_the_count_fails_on_the_bugs_it_guards():
    V, N = 64, 8
    task = AssociativeRecallTask(n_tokens=V, n_pairs=N, task_seed=3)
    batch = task.sample(N_SEQ, torch.Generator().manual_seed(1))
    tokens, target = batch.tokens.clone(), batch.target.clone()
    assert recall_faults(tokens, target, V, N) == []
    twice = tokens.clone()
    twice[:, 0] = twice[:, -1]  # the query written into the first key slot too
    twice[:, 2] = twice[:, -1]
    assert any("exactly once" in f for f in recall_faults(twice, target, V, N))
    half = tokens.clone()
    half[:, 1:2 * N:2] %= V // 2  # values from half the vocabulary
    assert any("values" in f for f in recall_faults(half, target % (V // 2), V, N))
    same = target.clone()
    same[:] = target[0]  # one target repeated
    assert recall_faults(tokens, same, V, N)


def _synthetic(alpha: float = 0.8, beta: float = 2.2, noise: float = 0.05, seeds: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for V, N in [(32, 4), (64, 4), (128, 4), (32, 8), (64, 8), (128, 8)]:
        for s in range(seeds):
            steps = 2.0 * V ** alpha * N ** beta * math.exp(noise * rng.standard_normal())
            rows.append({"n_tokens": V, "n_pairs": N, "seed": s, "lr": 1e-4, "layer_norm": "pre", "B": 1, "p": 0.0,
                         "steps to 5%": steps, "steps to 50%": 3 * steps})
    return pd.DataFrame(rows)


def test_an_exponent_is_the_slope_through_point_means_with_an_interval_that_covers_it():
    t = _synthetic()
    points = sorted({(V, N) for V, N in zip(t["n_tokens"], t["n_pairs"])})
    for along, true in (("n_tokens", 0.8), ("n_pairs", 2.2)):
        r = read.exponent(t, points, along, "5%")
        assert r["low"] < true < r["high"] and abs(r["ours"] - true) < 0.05 and r["points"] == 6
        # the same slope by ordinary least squares on the point means, with a fixed effect for the other axis
        means = t.groupby(["n_tokens", "n_pairs"])["steps to 5%"].apply(lambda v: np.log(v).mean()).reset_index()
        other = "n_pairs" if along == "n_tokens" else "n_tokens"
        X = np.column_stack([np.log(means[along])] + [(means[other] == v).astype(float) for v in sorted(means[other].unique())])
        coef = np.linalg.lstsq(X, means["steps to 5%"], rcond=None)[0]
        assert r["ours"] == pytest.approx(coef[0], abs=1e-9)


def test_point_ratios_speedups_and_ratios_of_settings():
    t = _synthetic(noise=0.0)
    t["steps to 5%"] = [read.recall_law(V, N) * 1.5 for V, N in zip(t["n_tokens"], t["n_pairs"])]
    t.loc[t["seed"] == 0, "steps to 5%"] *= 1.1
    table = read.point_table(t, [(32, 4), (64, 8)], seeds=3)
    assert table["complete"].all() and table["ratio"].iloc[0] == pytest.approx(1.5 * 1.1 ** (1 / 3))
    assert table["ratio_low"].iloc[0] < table["ratio"].iloc[0] < table["ratio_high"].iloc[0]
    assert not read.point_table(t, [(32, 4)], seeds=4)["complete"].any(), "a missing seed is not judged"
    fast = t.assign(B=4, **{"steps to 50%": t["steps to 50%"] / 4})
    s = read.paired_speedup(pd.concat([t, fast])[lambda d: (d["n_tokens"] == 64) & (d["n_pairs"] == 8)], "B")
    assert s["ours"] == pytest.approx(4.0) and s["at"] == 4
    slow = t.assign(layer_norm="none", **{"steps to 50%": t["steps to 50%"] / 2})
    r = read.mean_log_ratio(pd.concat([t, slow]), [(32, 4), (64, 8)], "50%", {"layer_norm": "pre"}, {"layer_norm": "none"})
    assert r["ours"] == pytest.approx(2.0)


def test_a_seed_that_never_crossed_is_never_dropped():
    """A censored seed (inf steps) makes its point's ratio and any ratio of settings it enters nan (judged
    inconclusive), instead of leaving the slowest seed out."""
    t = _synthetic(noise=0.0)
    t.loc[(t["n_tokens"] == 32) & (t["n_pairs"] == 4) & (t["seed"] == 1), ["steps to 5%", "steps to 50%"]] = np.inf
    table = read.point_table(t, [(32, 4), (64, 4)], seeds=3)
    assert table["complete"].all() and np.isnan(table["ratio"].iloc[0]) and np.isfinite(table["ratio"].iloc[1])
    other = t.assign(layer_norm="none")
    assert math.isnan(read.mean_log_ratio(pd.concat([t, other]), [(32, 4), (64, 4)], "50%", {"layer_norm": "pre"},
                                          {"layer_norm": "none"})["ours"])


@pytest.mark.integration
def test_the_smoke_grid_runs_and_every_reader_reads_it(data_dir, notebooks_smoke_cache):
    """One sweep of each shape of run (Figure 4's, stopped at 1.5x the crossing; Figure 5's, a fixed budget; Figure
    17's placement, two LayerNorms), seed 0: chapter 04's smoke grid trains the same Figure 4 and placement runs,
    which this test reads under `make test` (the notebooks tier runs first)."""
    from emergence_lib.experiments import cache_for
    from emergence_lib.sweep import run_sweep

    figure = RecallMeasured(scale="smoke")
    sweeps = {k: [r for r in v if r.seed == 0] for k, v in figure.sweeps().items() if k in ("figure4", "figure5_B", "placement")}
    results = {k: run_sweep(v, cache_for("smoke"), progress=False, executor="serial") for k, v in sweeps.items()}
    tables = {k: read.crossing_table(r) for k, r in results.items()}
    assert all(len(tables[k]) == len(v) for k, v in sweeps.items())
    # Steps to 50% read off the curve equal the run's own emergence step (its config's threshold is 50%).
    t, s = tables["figure4"].set_index("run"), results["figure4"].summary.set_index("run")
    np.testing.assert_array_equal(t.loc[s.index, "steps to 50%"].to_numpy(), s["emergence_step"].to_numpy())
    shares = read.placement_shares(results["placement"])
    assert set(shares["layer_norm"]) == {"pre", "none"}
    assert (shares["count"] <= shares["emerged"]).all() and (shares["emerged"] <= shares["runs"]).all()
    np.testing.assert_allclose(shares["share"], shares["count"] / shares["emerged"])
    assert ((shares["low"] <= shares["share"]) & (shares["share"] <= shares["high"])).all()


def test_the_laptop_comparison_takes_the_fastest_lr_and_geometric_means_and_never_a_censored_run():
    inf = np.inf
    # Table 1's runs, per seed: (32, 4) and (64, 4) crossed in every seed; (128, 4) has a seed that never crossed;
    # (16, 4) crossed, but the laptop's every lr there has a seed that never crossed; (256, 4) the laptop never ran.
    t1 = pd.DataFrame({"n_tokens": [32, 32, 64, 64, 128, 128, 16, 256], "n_pairs": 4,
                       "steps to 50%": [200.0, 800.0, 900.0, 900.0, 2000.0, np.nan, 100.0, 5000.0]})
    laptop = pd.DataFrame({"n_tokens": [32] * 4 + [64] * 4 + [128] * 2 + [16] * 4, "n_pairs": 4,
                           "lr": [3e-4, 3e-4, 1e-3, 1e-3] * 2 + [1e-3] * 2 + [3e-4, 3e-4, 1e-3, 1e-3],
                           "seed": [0, 1] * 7,
                           "emergence_step": [800.0, 1200.0, 100.0, 400.0, 900.0, 1100.0, 300.0, inf, 500.0, 500.0,
                                              50.0, inf, 60.0, inf]})
    table = read.laptop_comparison(t1, 3, laptop)
    # (32, 4): lr 1e-3 is fastest (mean 250), geometric mean 200; Table 1's geometric mean 400, ratio 2.
    # (64, 4): the fastest lr (1e-3) has a seed that never crossed, so its mean is censored and lr 3e-4 is the best.
    assert list(table["N_tokens"]) == [32, 64], "censored on either side, or not run by one model: left out"
    assert table["laptop lr"].tolist() == [1e-3, 3e-4]
    assert table["Table 1: steps to 50%"].iloc[0] == pytest.approx(400.0)
    assert table["laptop: steps to 50%"].iloc[0] == pytest.approx(200.0)
    assert table["Table 1 / laptop"].iloc[0] == pytest.approx(2.0)
    assert table["laptop: steps to 50%"].iloc[1] == pytest.approx(np.sqrt(900.0 * 1100.0))
    assert table["Table 1 seeds"].tolist() == ["2 of 3", "2 of 3"]
    assert read.laptop_comparison(t1.iloc[:0], 3, laptop).empty


def test_the_placement_figure_draws_each_share_with_its_interval_or_says_nothing_is_stored():
    import matplotlib.pyplot as plt

    from emergence_lib.experiments.recall_table1 import show as rt1_show

    shares = pd.DataFrame({"layer_norm": "pre", "runs": 3, "emerged": 3, "pattern": ["select", "copy"], "layer": [4, 3],
                           "count": [0, 2], "share": [0.0, 2 / 3], "low": [0.0, 0.2], "high": [0.56, 0.94]})
    fig = rt1_show._placement_figure(shares, (3, 20))
    ax = fig.axes[0]
    assert "3 of 20 runs stored" in ax.get_title()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["pre-LN: 3 emerged runs"]
    assert sorted(round(float(ln.get_ydata()[0]), 3) for ln in ax.get_lines() if ln.get_marker() == "o") == [0.0, 0.667]
    plt.close(fig)
    empty = rt1_show._placement_figure(shares.iloc[:0], (0, 20))
    assert any(t.get_text() == "no run stored yet" for t in empty.axes[0].texts)
    plt.close(empty)


def test_a_run_two_sweeps_share_is_counted_once_in_the_stored_count():
    """Placement's seeds 0-2 are Figure 4's runs: "stored so far" counts each stored file once (it said 62 of 95
    where 56 files were stored)."""
    from emergence_lib.cache import ResultCache
    from emergence_lib.experiments import chapter_context
    from emergence_lib.experiments.recall_table1 import show

    figure = RecallMeasured(scale="paper_cpu")
    cache = ResultCache()
    sweeps = figure.sweeps()
    per_sweep = sum(sum(cache.path(r).exists() for r in runs) for runs in sweeps.values())
    files = len({cache.path(r) for r in figure.runs() if cache.path(r).exists()})
    have, need = show.figure4(chapter_context("cpu", "cpu", False)).runs
    assert (have, need) == (files, len({cache.path(r) for r in figure.runs()}))
    if per_sweep == files:
        pytest.skip("no shared run is stored yet")
    assert have < per_sweep


def test_the_point_means_exponent_matches_the_welch_slope_and_widens_only_where_the_law_misfits():
    """The amended reading of Figure 4's exponents: the same slope as `exponent`, an interval from the point means'
    residuals, and a lack-of-fit test that passes on a power law and rejects a bent one (whose Welch interval, from
    the seeds alone, stays as narrow as on the straight law)."""
    from emergence_lib.experiments.recall_table1.show import _respecting_the_misfit

    t = _synthetic()
    points = sorted({(V, N) for V, N in zip(t["n_tokens"], t["n_pairs"])})
    straight = read.exponent_on_point_means(t, points, "n_tokens", "5%")
    assert straight["ours"] == pytest.approx(read.exponent(t, points, "n_tokens", "5%")["ours"], abs=1e-9)
    assert straight["low"] < 0.8 < straight["high"] and straight["p"] > 0.05
    bent = t.assign(**{"steps to 5%": t["steps to 5%"] * np.exp(0.4 * np.log(t["n_tokens"] / 64) ** 2)})
    welch, means = read.exponent(bent, points, "n_tokens", "5%"), read.exponent_on_point_means(bent, points, "n_tokens", "5%")
    assert means["p"] < 0.05 and means["high"] - means["low"] > welch["high"] - welch["low"]
    row = _respecting_the_misfit("amended", welch, means)
    assert (row["low"], row["high"]) == (means["low"], means["high"]) and row["recorded"].startswith("point means")
    assert _respecting_the_misfit("", welch, means)["recorded"] == "Welch (registered)", "not amended: the rule stands"
    kept = _respecting_the_misfit("amended", read.exponent(t, points, "n_tokens", "5%"), straight)
    assert kept["recorded"] == "Welch (registered)", "a law that fits keeps its registered interval"


def test_an_amendment_never_narrows_the_registered_interval():
    from emergence_lib.experiments.recall_table1.show import _respecting_the_misfit

    welch = {"ours": 1.0, "low": 0.8, "high": 1.2}
    narrower = {"ours": 1.0, "low": 0.9, "high": 1.1, "df": 5.0, "F": 9.0, "p": 0.001}
    assert _respecting_the_misfit("amended", welch, narrower)["recorded"] == "Welch (registered)"
    wider = narrower | {"low": 0.5, "high": 1.5}
    assert _respecting_the_misfit("amended", welch, wider)["low"] == 0.5


def test_placement_layers_counts_each_emerged_run_once_in_its_own_layer(monkeypatch):
    """The per-layer table counts, per LayerNorm set-up and N_pairs, each emerged run in the layer it selects and copies
    in; a run that never emerged is left out, and each row's counts add up to its emerged runs."""
    from emergence_lib.experiments.recall_table1 import read
    from emergence_lib.sweep import SweepResult

    per_run = pd.DataFrame({"layer_norm": ["pre"] * 4 + ["none"] * 2, "n_pairs": [8, 8, 8, 12, 8, 8],
                            "emergence_step": [100.0, 200.0, np.nan, 300.0, 50.0, 60.0],
                            "select_layer": [3, 2, 4, 3, 4, 4], "copy_layer": [1, 1, 1, 2, 2, 3],
                            "select_weight": [0.6, 0.5, 0.9, 0.7, 0.8, 0.7], "select_runner_up": [0.5, 0.4, 0.1, 0.2, 0.1, 0.3],
                            "copy_weight": [0.5] * 6, "copy_runner_up": [0.2] * 6})
    monkeypatch.setattr(read, "placement_table", lambda result: per_run)
    t = read.placement_layers(SweepResult(summary=pd.DataFrame({"seed": [0]}), curves=pd.DataFrame(), n_cached=1, n_computed=0))
    row = t.set_index(["layer_norm", "n_pairs", "pattern"])
    layers = ["layer 1", "layer 2", "layer 3", "layer 4"]
    assert row.loc[("pre", 8, "select"), layers].tolist() == [0, 1, 1, 0], "the run that never emerged is out"
    assert row.loc[("pre", 8, "copy"), layers].tolist() == [2, 0, 0, 0]
    assert row.loc[("none", 8, "copy"), layers].tolist() == [0, 1, 1, 0]
    assert (row[layers].sum(axis=1) == row["emerged"]).all() and len(t) == 6
    assert row.loc[("pre", 8, "select"), ["median weight", "median runner-up"]].tolist() == pytest.approx([0.55, 0.45])
    deeper = per_run.assign(select_layer=[3, 2, 4, 3, 6, 4])  # a deeper model: no run drops out of the counts
    monkeypatch.setattr(read, "placement_table", lambda result: deeper)
    t6 = read.placement_layers(SweepResult(summary=pd.DataFrame({"seed": [0]}), curves=pd.DataFrame(), n_cached=1, n_computed=0))
    six = [f"layer {k}" for k in range(1, 7)]
    assert list(t6.columns[3:9]) == six and (t6[six].sum(axis=1) == t6["emerged"]).all()


def test_repetition_steps_are_geometric_means_per_setting_with_the_speedup_over_no_repetition():
    """Figure 5's table on the paper's model: every B and p, its seeds' geometric-mean steps, and the ratio of the
    no-repetition mean to its own (B = 4 can be slower than B = 2: the table shows every setting, not the extremes)."""
    from emergence_lib.experiments.recall_table1 import read

    b = pd.DataFrame({"B": [1, 1, 2, 2, 4, 4], "seed": [0, 1] * 3, "steps to 5%": [100.0, 400.0, 50.0, 50.0, 10.0, 40.0],
                      "steps to 50%": [1000.0, 4000.0, 500.0, 2000.0, 1000.0, 1000.0]})
    t = read.repetition_steps({"B": b, "p": b.iloc[:0]}).set_index(["repetition", "value"])
    assert t.loc[("B", 1), "steps to 50%"] == pytest.approx(2000.0) and t.loc[("B", 1), "steps to 5%"] == pytest.approx(200.0)
    assert t.loc[("B", 2), "speed-up at 50%"] == pytest.approx(2.0) and t.loc[("B", 4), "speed-up at 50%"] == pytest.approx(2.0)
    assert t.loc[("B", 4), "steps to 5%"] == pytest.approx(20.0) and (t["seeds"] == 2).all() and len(t) == 3


def test_repetition_steps_pair_by_seed_and_the_sentence_never_prints_a_missing_speedup_as_a_number():
    """A seed that never reached 50% (inf) is left out of its means and of the pairing; a setting with no paired seed,
    or no baseline stored, says so in words, never "0.00×"; only the baseline stored says nothing is there to compare."""
    from emergence_lib.experiments.recall_table1 import read
    from emergence_lib.experiments.recall_table1.show import repetition_sentence, shortcut_sentence

    b = pd.DataFrame({"B": [1, 1, 2, 2, 4, 4], "seed": [0, 1, 0, 1, 0, 1], "steps to 5%": [10.0] * 6,
                      "steps to 50%": [1000.0, 4000.0, 500.0, np.inf, np.inf, np.inf]})
    t = read.repetition_steps({"B": b}).set_index("value")
    assert t.loc[2, "speed-up at 50%"] == pytest.approx(2.0) and t.loc[2, "reached 50%"] == 1, "seed 1 is unpaired"
    assert t.loc[2, "steps to 50%"] == pytest.approx(500.0) and np.isnan(t.loc[4, "speed-up at 50%"])
    s = repetition_sentence(read.repetition_steps({"B": b}))
    assert "B = 2: 2.00×" in s and "B = 4: no seed reached 50% in both settings" in s and "0.00×" not in s
    no_base = repetition_sentence(read.repetition_steps({"B": b[b["B"] > 1]}))
    assert "B = 2: no run without repetition stored to compare with" in no_base
    assert repetition_sentence(read.repetition_steps({"B": b[b["B"] == 1]})).startswith("No run of Figure 5 with repetition")
    # the shortcut's last clause only where the largest B is slower than a smaller one
    task = pd.DataFrame({"n_tokens": [64] * 3, "n_pairs": [8] * 3, "B": [1, 2, 4]})
    slower = pd.DataFrame({"repetition": "B", "value": [1, 2, 4], "speed-up at 50%": [1.0, 2.7, 1.7]})
    faster = slower.assign(**{"speed-up at 50%": [1.0, 2.0, 3.5]})
    assert "slower at test than a smaller one" in shortcut_sentence(task, slower)
    assert "slower at test" not in shortcut_sentence(task, faster) and "slower at test" not in shortcut_sentence(task)


def test_the_shortcut_sentence_reads_each_repeated_b_from_the_task_and_says_nothing_without_runs():
    from emergence_lib.experiments.recall_table1.show import shortcut_sentence

    table = pd.DataFrame({"n_tokens": [64] * 3, "n_pairs": [8] * 3, "B": [1, 2, 4], "seed": [0, 0, 0]})
    s = shortcut_sentence(table)
    assert "solves 70% at B = 2, 97% at B = 4 of the training" in s and s.startswith("A reading, not tested")
    assert "slower at test" not in s, "no speed-ups given: nothing said about them"
    assert shortcut_sentence(table.iloc[:0]) == "" and shortcut_sentence(table.iloc[:1]) == ""


def test_the_placement_sentence_names_the_most_common_layer_and_every_tie():
    from emergence_lib.experiments.recall_table1.show import placement_sentence

    layers = pd.DataFrame({"layer_norm": ["pre"] * 4, "n_pairs": [8, 8, 12, 12], "pattern": ["select", "copy"] * 2,
                           "layer 1": [0, 5, 0, 5], "layer 2": [0, 0, 3, 0], "layer 3": [5, 0, 2, 0], "layer 4": [0] * 4,
                           "emerged": [5] * 4})
    assert "pre-LN runs select in layer 3 (7 of 10) and copy in layer 1 (10 of 10)" in placement_sentence(layers)
    tied = layers.assign(**{"layer 2": [0, 0, 5, 0], "layer 3": [5, 0, 0, 0]})
    assert "select in layers 2 and 3 (5 of 10 each)" in placement_sentence(tied)
    assert placement_sentence(layers.iloc[:0]) == "No placement run is stored yet."
    assert placement_sentence(layers.iloc[:0], ["pre"]) == "None of the stored pre-LN runs has emerged yet."
    both = placement_sentence(layers, ["none", "pre"])
    assert "pre-LN runs select in layer 3" in both and both.endswith("None of the stored runs without LayerNorm has emerged yet.")


def test_the_figure4_answer_is_generated_from_the_verdicts_and_the_laptop_fit():
    """Chapter 04's paragraph on the paper's model says each judged exponent with its interval and verdict, no number
    for one not judged (not run yet, or the smoke scale), how many judged points differ from the law and how many
    are not judged, why an interval was widened (a p bound that never rounds down), and the laptop's recorded
    exponents (here from a fit to a known power law) as 95% intervals on their own grid, saying whether they
    overlap Table 1's."""
    from types import SimpleNamespace

    from emergence_lib.experiments.recall_table1 import show as rt1_show

    exps = pd.DataFrame({"exponent": ["N_tokens", "N_tokens", "N_pairs", "N_pairs"], "level": ["5%", "50%"] * 2,
                         "ours": [1.55, 0.70, 2.40, 1.72], "low": [1.13, 0.60, 1.52, 1.55],
                         "high": [1.96, 0.80, 3.28, 1.89],
                         "recorded": ["point means (6 df): the law misfits", "Welch (registered)",
                                      "point means (5 df): the law misfits", "point means (5 df): the law misfits"],
                         "lack_of_fit_p": [7.4e-6, 0.3, 7.7e-8, 3.1e-5]})
    status = {"recall_t1.figure4.tokens_exponent_5": "differs", "recall_t1.figure4.tokens_exponent_50": "diagnostic",
              "recall_t1.figure4.pairs_exponent_5": "inconclusive", "recall_t1.figure4.pairs_exponent_50": "not run",
              "recall_t1.figure4.V32_N4": "differs", "recall_t1.figure4.V64_N4": "agrees",
              "recall_t1.figure4.V64_N8": "inconclusive"}
    points = pd.DataFrame({"N_tokens": [32, 64, 64, 64], "N_pairs": [4, 4, 8, 16], "ratio": [0.08, 0.9, np.nan, np.nan],
                           "complete": [True, True, True, False]})
    # The laptop's recorded exponents, from a fit to a known power law (0.9 and 2.1, exact, so a zero-width interval).
    from emergence_lib.claims import ClaimResult, claim
    from emergence_lib.experiments.recall import read as laptop_read
    from emergence_lib.metrics import t_quantile_975

    rows = [{"n_tokens": V, "n_pairs": N, "lr": lr, "seed": s,
             "emergence_step": 3.0 * V ** 0.9 * N ** 2.1 * (1 if lr == 1e-3 else 2) * (1 + 0.01 * s)}
            for V in (16, 32, 64) for N in (2, 4, 8) for lr in (1e-3, 3e-4) for s in (0, 1)]
    _, fit = laptop_read.figure4_fit(laptop_read.best_lr_table(pd.DataFrame(rows))[1])
    t = t_quantile_975(fit.n - len(fit.predictors) - 1)
    laptop = [ClaimResult(claim(f"figure4.{name}_exponent"), fit.exponents[axis], "inconclusive",
                          (fit.exponents[axis] - t * fit.stderr[axis], fit.exponents[axis] + t * fit.stderr[axis]))
              for name, axis in (("tokens", "N_tokens"), ("pairs", "N_pairs"))]
    grid = SimpleNamespace(threshold=0.5, lrs=(1e-3, 3e-4), n_tokens=(16, 32, 64), n_pairs=(2, 4, 8))
    t1 = SimpleNamespace(exponents=exps, status=status, points=points)
    text = rt1_show.figure4_answer(t1, laptop, grid)
    assert "0.70 [0.60, 0.80] on N_tokens (a diagnostic, not judged)" in text, "50%: never judged against a 5% value"
    assert "1.55 [1.13, 1.96] on N_tokens (the paper's 0.79: differs)" in text
    assert "2.40 [1.52, 3.28] on N_pairs (the paper's 2.25: inconclusive)" in text
    assert "not judged on N_pairs (not run yet)" in text and "1.72" not in text, "an exponent not judged: no number"
    assert "answering any value of the context already scores 6% to 25%" in text, "1/16 to 1/4: from the points"
    assert "The 2 judged points reach 5% in 0.08 to 0.90 of the law's steps (1 of them differ from it; 2 more not judged)" in text
    assert "so each interval comes from the point means' residuals" in text and "p ≤ 8 × 10⁻⁶" in text, "7.4e-6 rounds up"
    assert "at 50% test accuracy over N_tokens 16–64 and N_pairs 2–8" in text and "fastest of its learning rates 0.001, 0.0003" in text
    assert "has 0.90 [0.90, 0.90] on N_tokens (95%)" in text and "on N_pairs (95%)" not in text, "only 50% exponents read"
    assert "the intervals do not overlap on N_tokens (Table 1's lower)" in text, "[0.60, 0.80] lies below 0.90 ± 0"
    wide = rt1_show.figure4_answer(SimpleNamespace(exponents=exps.assign(high=[1.96, 0.95, 3.28, 1.89]), status=status,
                                                   points=points), laptop, grid)
    assert "overlap on every exponent, so this comparison cannot tell them apart" in wide
    smoke = rt1_show.figure4_answer(SimpleNamespace(exponents=exps, status={k: "smoke" for k in status}, points=points),
                                    laptop, grid)
    assert smoke.count("(smoke)") == 4 and "1.55" not in smoke and "laptop" not in smoke and "judged points" not in smoke
    bare = rt1_show.figure4_answer(SimpleNamespace(exponents=exps.assign(ours=np.nan), status={}, points=points.iloc[:0]),
                                   [], grid)
    assert bare.count("not run yet") == 4 and "laptop" not in bare and "misfits" not in bare and "plateau" not in bare
