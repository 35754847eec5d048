"""Single-location regression sampler, the ensemble Transformer and its training loop."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
import torch

from emergence_lib.configs import ConfigError, TransformerRegressionConfig
from emergence_lib.devices import resolve_device
from emergence_lib.metrics import fit_power_law
from emergence_lib.sweep import run_sweep
from emergence_lib.tasks import SingleLocationRegression
from emergence_lib.training import evaluation_steps, train_regression
from emergence_lib.transformer import EnsembleTransformer, TransformerConfig

TINY = dict(d_model=32, d_qk=8, lr=3e-3, max_steps=1500)


@pytest.mark.parametrize("B", [1, 3])
def test_sampler_flags_exactly_B_copies_of_the_relevant_token(B):
    task = SingleLocationRegression(T=12, d=5, B=B, task_seed=1)
    x, y, mask = task.sample(500, torch.Generator().manual_seed(0))
    assert x.shape == (500, 12, 6) and y.shape == (500, 5)
    assert (mask.sum(1) == B).all()
    assert torch.equal(x[..., -1], mask.float())  # the relevance feature marks every copy
    rel = x[..., :-1][mask].view(500, B, 5)
    assert torch.allclose(rel, rel[:, :1].expand_as(rel))  # the copies are identical
    assert torch.allclose(y, rel[:, 0] @ task.w_star.T, atol=1e-6)
    positions = mask.float().argmax(1)
    assert len(set(positions.tolist())) > 6  # random positions


def test_cross_sample_repetition_frequency_and_norm():
    task = SingleLocationRegression(T=8, d=6, p=0.3, task_seed=2)
    x, _, mask = task.sample(4000, torch.Generator().manual_seed(1))
    rel = x[..., :-1][mask]  # (n, d): B = 1
    is_tilde = torch.isclose(rel, task.x_tilde.expand_as(rel)).all(1)
    assert is_tilde.float().mean().item() == pytest.approx(0.3, abs=0.03)
    assert task.x_tilde.norm().item() == pytest.approx(1.0)
    assert task.w_star.pow(2).sum().item() == pytest.approx(6.0)  # ||W*||²_F = d: the plateau sits at ½
    _, _, m0 = task.sample(100, torch.Generator().manual_seed(1), B=1, p=0.0)
    assert (m0.sum(1) == 1).all()


def test_fixed_position_and_no_feature():
    task = SingleLocationRegression(T=10, d=3, random_position=False, relevance_feature=False, task_seed=4)
    x, _, mask = task.sample(50, torch.Generator().manual_seed(0))
    assert x.shape[-1] == 3 and mask[:, task.fixed_position].all()
    with pytest.raises(ConfigError, match="unsolvable"):
        SingleLocationRegression(T=10, d=3, random_position=True, relevance_feature=False)


def test_the_task_depends_only_on_its_seed():
    a, b = SingleLocationRegression(T=8, d=4, task_seed=3), SingleLocationRegression(T=8, d=4, B=2, task_seed=3)
    assert torch.equal(a.w_star, b.w_star) and torch.equal(a.x_tilde, b.x_tilde)
    assert not torch.equal(a.w_star, SingleLocationRegression(T=8, d=4, task_seed=4).w_star)


def test_model_shapes_and_attention_patterns():
    cfg = TransformerConfig(input_dim=5, output_dim=4, n_layers=3, n_heads=2, d_model=16, d_qk=4)
    model = EnsembleTransformer(cfg, seeds=[0, 1])
    y, patterns = model(torch.randn(2, 7, 9, 5), return_attention=True)
    assert y.shape == (2, 7, 4)
    assert len(patterns) == 3 and all(p.shape == (2, 7, 2, 9, 9) for p in patterns)
    assert torch.allclose(patterns[0].sum(-1), torch.ones(2, 7, 2, 9))


def test_causal_model_attends_only_to_the_past():
    cfg = TransformerConfig(input_dim=3, output_dim=3, n_heads=1, d_model=8, d_qk=4, causal=True)
    model = EnsembleTransformer(cfg, seeds=[0])
    x = torch.randn(1, 4, 6, 3)
    _, patterns = model(x, return_attention=True)
    assert all((p.triu(1) == 0).all() for p in patterns)
    x2 = x.clone()
    x2[:, :, -1] += 1.0  # the readout position is last, so it may see everything…
    _, p2 = model(x2, return_attention=True)
    assert torch.allclose(patterns[0][..., :-1, :], p2[0][..., :-1, :])  # …but earlier rows ignore the future


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_ensemble_members_train_as_they_would_alone():
    base = TransformerRegressionConfig(T=8, d=3, max_steps=30, evals_per_decade=5, **{k: v for k, v in TINY.items() if k != "max_steps"})
    together = train_regression([dataclasses.replace(base, seed=s) for s in (0, 1)])
    alone = train_regression([dataclasses.replace(base, seed=1)])
    np.testing.assert_allclose(together[1].curve["loss_no_repetition"], alone[0].curve["loss_no_repetition"], rtol=1e-4)
    assert not np.allclose(together[0].curve["loss_no_repetition"], together[1].curve["loss_no_repetition"])


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_batched_seeds_that_stop_at_different_steps_record_as_they_would_alone():
    """On a GPU a configuration's seeds train as one batch, which runs until the last seed stops. Each seed's
    record must still end where it would alone: its steps_run, its curve and its final loss."""
    base = TransformerRegressionConfig(T=8, d=2, **TINY)
    seeds = (0, 1, 2)
    together = train_regression([dataclasses.replace(base, seed=s) for s in seeds])
    alone = [train_regression([dataclasses.replace(base, seed=s)])[0] for s in seeds]
    steps = [r.summary["steps_run"] for r in alone]
    assert len(set(steps)) > 1, f"the test needs seeds that stop at different steps, got {steps}"
    for t, a in zip(together, alone):
        assert t.summary["steps_run"] == a.summary["steps_run"]
        np.testing.assert_array_equal(t.curve["step"], a.curve["step"])
        np.testing.assert_allclose(t.curve["loss_no_repetition"], a.curve["loss_no_repetition"], rtol=1e-4)
        assert t.summary["final_loss"] == pytest.approx(a.summary["final_loss"], rel=1e-4)
        assert t.summary["plateau_length"] == pytest.approx(a.summary["plateau_length"], rel=1e-3)


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_a_tiny_run_crosses_the_threshold_and_stops_soon_after():
    (r,) = train_regression([TransformerRegressionConfig(T=8, d=2, **TINY)])
    s = r.summary
    assert s["status"] == "crossed" and s["reached"] and 0 < s["plateau_length"] < 1500
    assert s["steps_run"] <= 1.5 * s["plateau_length"] + 50  # stopped soon after crossing
    assert r.curve["step"][0] == 0 and np.all(np.diff(r.curve["step"]) > 0)


def test_divergence_is_recorded_and_never_fitted():
    cfg = TransformerRegressionConfig(T=8, d=2, optimizer="sgd", d_model=32, d_qk=8, lr=1e4, max_steps=200)
    (r,) = train_regression([cfg])
    assert r.summary["status"] == "diverged" and not r.summary["reached"]
    assert np.isnan(r.summary["plateau_length"])


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_a_run_that_never_crosses_is_marked_not_reached():
    (r,) = train_regression([TransformerRegressionConfig(T=16, d=8, d_model=32, d_qk=8, lr=1e-5, max_steps=40)])
    assert r.summary["status"] == "not_reached" and np.isinf(r.summary["plateau_length"])


def test_evaluation_schedule_is_log_spaced():
    steps = evaluation_steps(50_000, 30)
    assert steps[0] == 0 and steps[-1] == 50_000 and np.all(np.diff(steps) > 0)
    assert 110 < len(steps) < 145  # ~30 per decade, fewer where rounding merges the first steps
    late = steps[steps >= 100]
    assert (late[1:] / late[:-1]).max() < 1.1  # consecutive evaluations ≤ ~8% apart


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_plateau_grows_with_T_through_the_sweep(tmp_path):
    from emergence_lib.cache import ResultCache

    configs = [TransformerRegressionConfig(T=T, d=4, seed=0, **TINY) for T in (8, 32)]
    res = run_sweep(configs, ResultCache(tmp_path), progress=False)
    p = res.summary.set_index("T")["plateau_length"]
    assert p[32] > p[8]
    again = run_sweep(configs, ResultCache(tmp_path), progress=False)
    assert again.n_cached == 2


def test_bad_transformer_inputs():
    with pytest.raises(ConfigError, match="B must satisfy"):
        TransformerRegressionConfig(T=8, d=2, B=9)
    with pytest.raises(ConfigError, match="divisible by n_heads"):
        TransformerRegressionConfig(T=8, d=2, d_model=30, n_heads=4)
    with pytest.raises(ConfigError, match="divisible by n_heads"):
        TransformerConfig(input_dim=3, output_dim=2, d_model=30, n_heads=4)
    with pytest.raises(ConfigError, match=r"optimizer must be one of \('adam', 'sgd'\)"):
        TransformerRegressionConfig(T=8, d=2, optimizer="rmsprop")
    for lr in (0.0, -1e-3):
        with pytest.raises(ConfigError, match=r"lr \(learning rate\) must be a number > 0"):
            TransformerRegressionConfig(T=8, d=2, lr=lr)
    with pytest.raises(ConfigError, match="unsolvable"):
        TransformerRegressionConfig(T=8, d=2, relevance_feature=False)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error raised where CUDA is absent")
def test_an_unavailable_device_is_an_error_before_any_compute(tmp_path):
    with pytest.raises(ConfigError, match="not available"):
        resolve_device("cuda")
    with pytest.raises(ConfigError, match="not available"):
        run_sweep([TransformerRegressionConfig(T=8, d=2, **TINY)], None, device="cuda", progress=False)
    with pytest.raises(ConfigError, match="device must be"):
        resolve_device("tpu")
    assert resolve_device("auto") == "cpu"


def test_fit_of_a_transformer_sweep_refuses_unfinished_runs():
    import pandas as pd

    df = pd.DataFrame({"d": [2, 4, 8, 16], "T": [8, 8, 16, 16], "plateau_length": [10.0, np.inf, 30.0, np.nan]})
    with pytest.raises(ValueError, match="NOT_REACHED"):
        fit_power_law(df, ["d", "T"])


def test_shortcut_loss_is_the_test_loss_of_the_mean_target():
    task = SingleLocationRegression(T=6, d=5, p=0.4, task_seed=3)
    constant = task.p * task.w_star @ task.x_tilde  # the best constant on the training data
    x, y, _ = task.sample(40_000, torch.Generator().manual_seed(2), B=1, p=0.0)
    empirical = 0.5 * (y - constant).pow(2).sum(1).mean().item()
    assert empirical == pytest.approx(task.shortcut_loss(), rel=0.02)
    assert task.shortcut_loss(p=0.0) == pytest.approx(0.5)


def test_plateau_level_is_the_median_inside_the_window():
    from emergence_lib.metrics import plateau_level

    t = np.arange(0, 101, dtype=float)
    loss = np.where(t < 10, 2.0, 0.6)
    loss[t > 90] = 0.05
    assert plateau_level(t, loss, end=100.0) == pytest.approx(0.6)
    assert np.isnan(plateau_level(t, loss, end=0.5))


@pytest.mark.parametrize("n_layers, n_heads, causal, layer_norm", [(1, 1, False, "none"), (2, 4, False, "none"), (4, 4, True, "pre"), (2, 4, True, "post")])
def test_last_position_forward_matches_the_full_computation(n_layers, n_heads, causal, layer_norm):
    """The default forward computes the last layer at the readout position only: same outputs and gradients."""
    cfg = TransformerConfig(input_dim=9, output_dim=8, n_layers=n_layers, n_heads=n_heads, d_model=32, d_qk=8,
                            causal=causal, layer_norm=layer_norm)
    model = EnsembleTransformer(cfg, seeds=[0, 1])
    x, y = torch.randn(2, 16, 24, 9, generator=torch.Generator().manual_seed(0)), torch.randn(2, 16, 8)
    outputs = {}
    for full in (True, False):
        model.zero_grad()
        pred = model(x, full=full)
        ((pred - y) ** 2).sum().backward()
        outputs[full] = (pred.detach().clone(), [p.grad.clone() for p in model.parameters()])
    torch.testing.assert_close(outputs[False][0], outputs[True][0], rtol=1e-5, atol=1e-5)
    for fast, full in zip(outputs[False][1], outputs[True][1]):
        torch.testing.assert_close(fast, full, rtol=1e-4, atol=1e-5)
    # The attention patterns stay reachable, in full, when asked for.
    _, patterns = model(x, return_attention=True)
    assert all(p.shape == (2, 16, n_heads, 24, 24) for p in patterns)


@pytest.mark.parametrize("layer_norm", ["pre", "post", "none"])
def test_layer_norm_placement_normalises_what_it_says(layer_norm):
    """Post-LN: every block's output (the residual stream) is normalised per position; pre-LN and none: it is not,
    and pre-LN alone normalises the readout's input. Read off the blocks' outputs, not the code path."""
    cfg = TransformerConfig(input_dim=6, output_dim=6, n_layers=3, n_heads=2, d_model=16, d_qk=4, layer_norm=layer_norm)
    model = EnsembleTransformer(cfg, seeds=[0])
    h = model.embed(torch.randn(1, 8, 10, 6)) * 5 + model.positions[:10]
    for block in model.blocks:
        h, _ = block(h)
        normalised = torch.allclose(h.mean(-1), torch.zeros(()), atol=1e-5) and torch.allclose(h.var(-1, unbiased=False), torch.ones(()), atol=1e-3)
        assert normalised == (layer_norm == "post")
    assert isinstance(model.ln_f, torch.nn.Identity) == (layer_norm != "pre")
    with pytest.raises(ConfigError, match="layer_norm"):
        TransformerConfig(input_dim=6, output_dim=6, d_model=16, layer_norm="sandwich")


def test_zero_readout_starts_at_the_plateau_loss():
    task = SingleLocationRegression(T=16, d=8, task_seed=0)
    x, y, _ = task.sample(4000, torch.Generator().manual_seed(0))
    for init, expected_zero in (("zero", True), ("default", False)):
        cfg = TransformerConfig(input_dim=9, output_dim=8, n_layers=1, n_heads=1, d_model=32, d_qk=8, readout_init=init)
        pred = EnsembleTransformer(cfg, seeds=[0])(x[None])[0]
        assert bool((pred == 0).all()) == expected_zero
    loss = 0.5 * (y**2).sum(-1).mean().item()  # the zero readout's loss: ½ E‖W* x‖² = ½
    assert loss == pytest.approx(0.5, abs=0.02)


@pytest.mark.integration  # trains a few hundred steps
def test_a_trigger_reads_a_held_out_set_of_its_own_and_fires_on_it():
    """The trigger's signal is recorded beside the test set's attention (other data: other values), and the
    repetition switches off at the first evaluation where that signal's largest head reaches the level."""
    level = 0.2
    cfg = TransformerRegressionConfig(T=8, d=2, p=0.4, record_attention=True, stop_factor=None, max_steps=100,
                                      schedule=f"triggered:trigger_attn_relevant>={level}", d_model=32, d_qk=8, lr=3e-3)
    (r,) = train_regression([cfg])
    curve = pd.DataFrame(r.curve)
    own = curve.filter(regex=r"^trigger_attn_relevant_L\dH\d$")
    test = curve.filter(regex=r"^attn_relevant_L\dH\d$")
    assert own.shape == test.shape and own.shape[1] > 0
    assert not np.allclose(own.to_numpy(), test.to_numpy()), "the trigger must read other data than the test set"
    fired = curve["step"][own.max(axis=1) >= level]
    assert len(fired), "the tiny run's attention must reach the level within its budget"
    assert r.summary["switched_at"] == fired.iloc[0]
    with pytest.raises(ConfigError, match="trigger_attn_relevant"):  # a signal the run does not record is refused
        TransformerRegressionConfig(T=8, d=2, p=0.4, schedule="triggered:trigger_attn_relevant>=0.2")
