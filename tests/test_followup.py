"""Chapter B3's additions: the attention-bias intervention, the entropy recording, the MLP-Mixer, and the readers of
`emergence_lib.experiments.followup`. Data checks count from the outputs (tokens, features, patterns), not the code under test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from emergence_lib.experiments.followup import read as followup
from emergence_lib.cache import run_key
from emergence_lib.configs import ConfigError, TransformerRecallConfig, TransformerRegressionConfig
from emergence_lib.experiments import FollowUp
from emergence_lib.mixer import EnsembleMixer
from emergence_lib.tasks import AssociativeRecallTask
from emergence_lib.attention import readout_entropy
from emergence_lib.training import recall_bias_mask, train_recall, train_regression
from emergence_lib.transformer import EnsembleTransformer, TransformerConfig

TINY = dict(d_model=32, d_qk=8, lr=3e-3, max_steps=300)


def _model(n_layers: int = 2, causal: bool = False) -> EnsembleTransformer:
    return EnsembleTransformer(TransformerConfig(input_dim=5, output_dim=4, n_layers=n_layers, n_heads=2, d_model=16,
                                                 d_qk=4, causal=causal), seeds=[0, 1])


def test_a_zero_bias_is_no_bias_and_a_large_one_fixes_the_readout_row():
    model, x = _model(), torch.randn(2, 6, 9, 5)
    mask = torch.zeros(2, 6, 9)
    mask[:, :, 3] = 1.0
    y, patterns = model(x, return_attention=True)
    y0, patterns0 = model(x, return_attention=True, score_bias=0.0 * mask)
    assert torch.equal(y, y0) and all(torch.equal(a, b) for a, b in zip(patterns, patterns0))
    _, first = model(x, return_attention=True, score_bias=30.0 * mask, bias_layers="first")
    _, every = model(x, return_attention=True, score_bias=30.0 * mask, bias_layers="all")
    # The readout (last) row of a biased layer puts all its weight on position 3; other rows and layers are untouched.
    assert torch.allclose(first[0][:, :, :, -1, 3], torch.ones(2, 6, 2), atol=1e-6)
    assert torch.equal(first[0][:, :, :, :-1], patterns[0][:, :, :, :-1])
    assert not torch.allclose(first[1][:, :, :, -1, 3], torch.ones(2, 6, 2), atol=1e-3)
    assert torch.allclose(every[1][:, :, :, -1, 3], torch.ones(2, 6, 2), atol=1e-6)


def test_the_bias_leaves_a_causal_mask_intact():
    model, x = _model(causal=True), torch.randn(2, 3, 7, 5)
    mask = torch.zeros(2, 3, 7)
    mask[:, :, 2] = 1.0
    _, patterns = model(x, return_attention=True, score_bias=5.0 * mask, bias_layers="all")
    future = torch.ones(7, 7, dtype=torch.bool).triu(1)
    assert all(float(p.detach()[..., future].abs().max()) == 0.0 for p in patterns)


def test_recall_bias_mask_marks_the_value_after_each_occurrence_of_the_query():
    task = AssociativeRecallTask(n_tokens=12, n_pairs=5, B=2, task_seed=0)
    batch = task.sample(64, torch.Generator().manual_seed(1))
    ens = type(batch)(batch.tokens[None], batch.target[None], batch.query_slots[None])
    mask = recall_bias_mask(ens)[0]  # (n, T)
    tokens = batch.tokens
    for i in range(len(tokens)):  # counted from the tokens: a key position (even) holding the query, plus one
        keys = [2 * j for j in range(5) if int(tokens[i, 2 * j]) == int(tokens[i, -1])]
        assert sorted(np.flatnonzero(mask[i].numpy()).tolist()) == [k + 1 for k in keys]
        assert all(int(tokens[i, k + 1]) == int(batch.target[i]) for k in keys)


def test_readout_entropy_of_known_patterns():
    T = 8
    uniform = torch.full((1, 2, 1, T, T), 1.0 / T)
    onehot = torch.zeros(1, 2, 1, T, T)
    onehot[..., 0] = 1.0
    causal = torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]  # uniform over the past
    causal = causal.expand(1, 2, 1, T, T)
    out = readout_entropy([uniform, onehot, causal])  # (E=1, layers=3, heads=1)
    assert np.allclose(out[0, :, 0], [np.log(T), 0.0, np.log(T)])
    rows = torch.tensor([[2, 4]])  # row 2 sees 3 keys, row 4 sees 5
    assert np.allclose(readout_entropy([causal], rows)[0, 0, 0], (np.log(3) + np.log(5)) / 2)


@pytest.mark.integration
def test_a_regression_run_records_entropy_and_both_losses_under_a_bias():
    base = dict(T=16, d=4, **TINY, stop_factor=None)
    (plain,) = train_regression([TransformerRegressionConfig(**base)])
    (zero,) = train_regression([TransformerRegressionConfig(**base, attention_bias=0.0, bias_layers="first")])
    assert all(np.array_equal(plain.curve[k], zero.curve[k]) for k in plain.curve)  # s = 0 is the plain run
    (run,) = train_regression([TransformerRegressionConfig(**base, attention_bias=4.0, record_entropy=True)])
    c = run.curve
    assert {"loss_no_repetition_with_bias", "attn_entropy_L1H1", "attn_entropy_L2H4"} <= set(c)
    ent = np.stack([c[k] for k in c if k.startswith("attn_entropy")])
    assert np.all(ent >= 0) and np.all(ent <= np.log(16) + 1e-5)
    assert np.isfinite(run.summary["crossing_with_bias"])
    # With the readout pushed onto the relevant token, the biased model leaves its plateau sooner.
    assert run.summary["crossing_with_bias"] < plain.summary["plateau_length"]


@pytest.mark.integration
def test_a_recall_run_under_a_large_bias_learns_with_it_first():
    base = dict(n_tokens=8, n_pairs=2, n_layers=2, n_heads=2, threshold=0.5, stop_factor=None, eval_size=64, **TINY)
    (run,) = train_recall([TransformerRecallConfig(**base, attention_bias=8.0, bias_layers="all", record_entropy=True)])
    assert {"accuracy_test_with_bias", "attn_entropy_L1H1", "attn_entropy_value_L2H2"} <= set(run.curve)
    assert run.summary["crossing_with_bias"] <= run.summary["emergence_step"]


@pytest.mark.integration
def test_the_mixer_reads_positions_and_trains_on_the_positional_task():
    cfg = TransformerConfig(input_dim=5, output_dim=4, n_layers=1, n_heads=1, d_model=16, d_qk=4, max_len=6,
                            readout_init="zero")
    model = EnsembleMixer(cfg, seeds=[0, 1])
    x = torch.randn(2, 3, 6, 5)
    assert torch.equal(model(x), torch.zeros(2, 3, 4))  # zero readout: the plateau's loss
    torch.nn.init.normal_(model.readout.weight)
    # Token mixing has weights per position: swapping two positions changes the output (no permutation symmetry).
    assert not torch.allclose(model(x), model(x[:, :, [1, 0, 2, 3, 4, 5]]))
    with pytest.raises(ConfigError, match="length T=6"):
        model(torch.randn(2, 3, 7, 5))
    (run,) = train_regression([TransformerRegressionConfig(
        T=8, d=2, random_position=False, relevance_feature=False, model="mlp_mixer", n_layers=1, **TINY | {"max_steps": 2000})])
    assert run.summary["status"] == "crossed"


def test_the_new_fields_are_left_out_of_stored_keys_at_their_defaults_and_validated():
    c = TransformerRegressionConfig(T=8, d=4)
    same = TransformerRegressionConfig(T=8, d=4, record_entropy=False, attention_bias=0.0, bias_layers="first",
                                       model="transformer")
    assert run_key(c) == run_key(same) == "add592d6a0fe935bb5aa"  # the key this config had before the fields existed
    assert run_key(TransformerRegressionConfig(T=8, d=4, attention_bias=1)) != run_key(c)
    for bad, match in ((dict(attention_bias=-1.0), "attention_bias"), (dict(attention_bias=float("nan")), "attention_bias"),
                       (dict(bias_layers="last"), "bias_layers"), (dict(record_entropy=1), "record_entropy"),
                       (dict(model="mlp_mixer", record_attention=True), "mlp_mixer"), (dict(model="rnn"), "model")):
        with pytest.raises(ConfigError, match=match):
            TransformerRegressionConfig(T=8, d=4, **bad)
    with pytest.raises(ConfigError, match="bias_layers"):
        TransformerRecallConfig(n_tokens=8, n_pairs=2, bias_layers="middle")


def test_followup_runs_are_built_per_scale_and_share_what_they_can():
    for scale in ("smoke", "cpu", "paper"):
        f = FollowUp(scale=scale)
        sweeps = f.sweeps()
        assert len(set(r.seed for r in sweeps["randomness"])) >= (3 if scale == "smoke" else 10)
        for protocol, H in (("fixed total width", 4), ("fixed head dim", 4)):
            arch = f.head_architecture(protocol, H)
            assert arch["d_model"] % H == 0
    cpu = FollowUp(scale="cpu")
    widths = {(r.n_heads, r.d_model, r.d_qk) for r in cpu.heads_runs()}
    assert {(1, 64, 64), (8, 64, 8), (1, 32, 32), (8, 256, 32)} <= widths
    keys = {run_key(r) for r in cpu.sweeps()["recall_randomness"]}
    assert {run_key(r) for r in cpu.recall_bias_runs() if r.attention_bias == 0} <= keys  # s = 0 shared


def test_toy_bias_plateaus_start_from_the_reduced_flow_and_shrink_with_the_gap():
    from emergence_lib.toy import reduced_flow
    from emergence_lib.metrics import plateau_length
    table = followup.toy_bias_plateaus(64, 16, [0.0, 1.0, 4.0])
    traj = reduced_flow(T=64, d=16, t_max=1e4)
    assert table["plateau"].iloc[0] == pytest.approx(plateau_length(traj.t, traj.loss[:, 0], 0.1), rel=1e-3)
    assert np.all(np.diff(table["plateau"]) < 0)
    assert table["alpha at start"].iloc[0] == pytest.approx(1 / 64)


def test_spread_and_rank_correlation_on_known_samples():
    s = followup.spread(np.array([100.0, 100.0, 100.0]))
    assert s["CV"] == 0 and s["max / min"] == 1
    rng = np.random.default_rng(0)
    logn = followup.spread(np.exp(rng.normal(5, 0.3, 4000)))
    assert abs(logn["skewness of log"]) < 0.15 and logn["skewness"] > 0.5  # a log-normal: skewed, symmetric in log
    assert logn["CV"] == pytest.approx(np.sqrt(np.exp(0.09) - 1), rel=0.05)
    assert followup.spread(np.array([1.0, np.inf]))["reached"] == 1
    # Early attention that orders the seeds exactly opposite to their crossings: ρ = −1.
    runs = [f"r{i}" for i in range(5)]
    crossing = np.array([50.0, 80.0, 60.0, 90.0, 70.0])
    summary = pd.DataFrame({"run": runs, "plateau_length": crossing, "T": 8})
    curves = pd.concat([pd.DataFrame({"run": r, "step": [0.0, 100.0], "a": [0.0, 2.0 / c]}) for r, c in zip(runs, crossing)])
    from emergence_lib.sweep import SweepResult
    rho = followup.early_rank_correlation(SweepResult(summary, curves, 0, 0), "a", 0.5, ["T"])
    assert rho["Spearman ρ"].iloc[0] == pytest.approx(-1.0)


def test_exponent_table_recovers_a_known_law_and_counts_unreached_runs():
    T = np.repeat([16.0, 32.0, 64.0], 4)
    H = np.tile([1.0, 2.0, 4.0, 8.0], 3)
    data = pd.DataFrame({"T": T, "n_heads": H, "plateau_length": 3.0 * T * H ** 0.3, "protocol": "a"})
    data.loc[0, "plateau_length"] = np.inf
    table = followup.exponent_table(data, ["T", "n_heads"], by="protocol")
    assert table["exponent of n_heads"].iloc[0] == pytest.approx(0.3) and table["not reached"].iloc[0] == 1


def test_exponent_table_prints_a_lack_of_fit_test_that_rejects_a_bent_law_and_not_a_straight_one():
    """Its fits count seeds as points, so each row carries the lack-of-fit F test: seeds scattered (±0.05 in log)
    about a power law pass it; the same seeds about a plateau that bends in log H (quadratic term) fail it."""
    T = np.repeat([16.0, 32.0, 64.0], 12)
    H = np.tile(np.repeat([1.0, 2.0, 4.0, 8.0], 3), 3)
    noise = np.exp(np.tile([0.05, -0.05, 0.0], 12))
    straight = 3.0 * T * H ** 0.3 * noise
    bent = straight * np.exp(0.3 * np.log(H) ** 2)
    rows = pd.concat([pd.DataFrame({"T": T, "n_heads": H, "plateau_length": v, "protocol": name})
                      for name, v in (("straight", straight), ("bent", bent))])
    table = followup.exponent_table(rows, ["T", "n_heads"], by="protocol").set_index("protocol")
    assert table.loc["straight", "lack-of-fit p"] > 0.5 and table.loc["bent", "lack-of-fit p"] < 1e-6


@pytest.mark.integration  # it trains or reads every stored run: the integration tier
def test_data_seed_splits_the_data_from_the_initialisation():
    """With the readout at zero, the loss at step 0 depends on the data only: counted from the curves, runs that share
    their data (whatever the initialisation) start at the same loss, and runs that share their initialisation but
    not their data do not."""
    base = dict(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=30, stop_factor=None)
    runs = {name: train_regression([TransformerRegressionConfig(**base, **kw)])[0].curve["loss_no_repetition"]
            for name, kw in {"seed 0": dict(seed=0), "seed 1": dict(seed=1), "init 1, data 0": dict(seed=1, data_seed=0),
                             "init 0, data 1": dict(seed=0, data_seed=1)}.items()}
    assert runs["init 1, data 0"][0] == runs["seed 0"][0] and runs["init 0, data 1"][0] == runs["seed 1"][0]
    assert runs["seed 0"][0] != runs["seed 1"][0]
    assert not np.array_equal(runs["init 1, data 0"], runs["seed 0"])  # another initialisation trains otherwise
    with pytest.raises(ConfigError, match="data_seed"):
        TransformerRegressionConfig(**base, data_seed=-1)
