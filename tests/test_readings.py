"""Each unsaid choice's other reading (`emergence_lib.readings`), checked from what the model or sampler outputs, not
from the config that asked for it. Every test also runs the book's reading through the same check and requires it to
fail there, so a reading that silently did nothing would fail here."""

from __future__ import annotations

import math

import pytest
import torch

from emergence_lib.cache import config_dict
from emergence_lib.configs import ConfigError, TransformerRegressionConfig
from emergence_lib.readings import DEFAULTS, Readings, clip_per_member, optimizer_for, precision
from emergence_lib.tasks import SingleLocationRegression
from emergence_lib.training import model_config
from emergence_lib.transformer import EnsembleTransformer

T, D = 12, 4


def _model(**kw) -> EnsembleTransformer:
    c = TransformerRegressionConfig(T=T, d=D, d_model=32, d_qk=8, readout_init="default", **kw)
    torch.manual_seed(0)
    return EnsembleTransformer(model_config(c, D + 1), seeds=[0, 1])


def _x(n: int = 5) -> torch.Tensor:
    g = torch.Generator().manual_seed(3)
    return torch.randn(2, n, T, D + 1, generator=g)  # (E, n, T, in)


def test_the_books_reading_is_left_out_of_every_key():
    """A run at the book's reading keeps the key it had before the readings existed; each other reading enters it."""
    c = TransformerRegressionConfig(T=T, d=D)
    assert not set(DEFAULTS) & set(config_dict(c))
    for name, value in (("readout", "mean"), ("positions", "none"), ("weight_init", "gpt2"), ("input_scale", "unit"),
                        ("adam_eps", 1e-6), ("adam_beta2", 0.95), ("clip_norm", 1.0), ("precision", "bfloat16"),
                        ("relevance_gain", 16.0)):
        assert config_dict(TransformerRegressionConfig(T=T, d=D, **{name: value}))[name] == value


@pytest.mark.parametrize("bad", [dict(readout="first"), dict(positions="rotary"), dict(adam_eps=0), dict(adam_beta2=1.0),
                                 dict(clip_norm=-1.0), dict(clip_norm=float("nan")), dict(precision="float16"),
                                 dict(readout="mean", record_attention=True), dict(relevance_gain=0.0),
                                 dict(relevance_gain=float("inf")), dict(relevance_gain=4.0, relevance_feature=False, random_position=False)])
def test_a_bad_reading_is_refused_by_name(bad):
    with pytest.raises(ConfigError, match=next(iter(bad))):
        TransformerRegressionConfig(T=T, d=D, **bad)


def _mixing_changes(model: EnsembleTransformer, x: torch.Tensor, perm: torch.Tensor) -> float:
    with torch.no_grad():
        return float((model(x) - model(x[:, :, perm])).abs().max())


def test_without_positions_the_prediction_ignores_the_order_of_the_other_tokens():
    """With no positions (and bidirectional attention), shuffling every token but the last leaves the prediction read
    at the last position unchanged; sinusoidal positions make it change."""
    x, perm = _x(), torch.cat([torch.randperm(T - 1, generator=torch.Generator().manual_seed(1)), torch.tensor([T - 1])])
    assert _mixing_changes(_model(positions="none"), x, perm) < 1e-5
    assert _mixing_changes(_model(), x, perm) > 1e-3


def test_the_mean_readout_ignores_every_order_and_the_last_readout_does_not():
    """With no positions, the mean over positions is invariant to any shuffle, the last position included."""
    x, perm = _x(), torch.roll(torch.arange(T), 1)  # every token moves, the last to the front
    assert _mixing_changes(_model(positions="none", readout="mean"), x, perm) < 1e-5
    assert _mixing_changes(_model(positions="none"), x, perm) > 1e-3


def test_the_query_readout_reads_an_appended_zero_token():
    """The query reading predicts what the last-position reading predicts on the input with a zero token appended."""
    query, last = _model(readout="query"), _model()
    last_long = EnsembleTransformer(model_config(TransformerRegressionConfig(T=T + 1, d=D, d_model=32, d_qk=8,
                                                                             readout_init="default"), D + 1), [0, 1])
    last_long.load_state_dict(query.state_dict())
    x = _x()
    with torch.no_grad():
        appended = torch.cat([x, torch.zeros(2, 5, 1, D + 1)], dim=2)
        assert torch.allclose(query(x), last_long(appended), atol=1e-6)
        last.load_state_dict(query.state_dict())
        assert not torch.allclose(query(x), last(x), atol=1e-3)


def test_scaled_positions_multiply_the_token_embedding_by_root_d_model():
    scaled, plain = _model(positions="scaled"), _model()
    plain.load_state_dict(scaled.state_dict())
    x = _x()
    with torch.no_grad():
        before = scaled(x)
        assert not torch.allclose(before, plain(x), atol=1e-3)
        plain.embed.weight.mul_(math.sqrt(32))
        plain.embed.bias.mul_(math.sqrt(32))
        assert torch.allclose(before, plain(x), atol=1e-4)


def test_quieter_positions_are_the_books_encodings_times_the_scale():
    """The reading's output equals the book's model with its position encodings multiplied by ¼ (the same weights),
    and differs from the book's model as it is."""
    quiet, plain = _model(position_scale=0.25), _model()
    plain.load_state_dict(quiet.state_dict())
    x = _x()
    with torch.no_grad():
        before = quiet(x)
        assert not torch.allclose(before, plain(x), atol=1e-3)
        plain.positions.mul_(0.25)
        assert torch.allclose(before, plain(x), atol=1e-5)


def test_a_position_scale_needs_encodings_to_scale():
    with pytest.raises(ConfigError, match="position_scale needs sinusoidal"):
        TransformerRegressionConfig(T=T, d=D, positions="none", position_scale=0.25)
    with pytest.raises(ConfigError, match="position_scale must be"):
        TransformerRegressionConfig(T=T, d=D, position_scale=0)


def test_learned_positions_are_trained_and_read():
    model = _model(positions="learned")
    assert model.learned_positions.shape == (2, 1, T, 32) and 0.015 < float(model.learned_positions.std()) < 0.025
    x = _x()
    model(x).pow(2).sum().backward()
    assert float(model.learned_positions.grad.abs().max()) > 0
    assert not any("learned" in n for n, _ in _model().named_parameters())


def test_gpt2_initialisation_from_the_weights_alone():
    """GPT-2's init: linear maps of std 0.02, residual projections 0.02/√(2L), biases 0. PyTorch's default draws
    uniform ±1/√in (std 0.036 at in = 256 here), so the same count fails on it."""
    def stds(model: EnsembleTransformer) -> tuple[float, float, float]:
        b = model.blocks[0]
        return float(b.qkv.weight.std()), float(b.proj.weight.std()), float(b.qkv.bias.abs().max())
    big = dict(T=T, d=D, d_model=256, d_qk=64, readout_init="default")
    gpt2 = EnsembleTransformer(model_config(TransformerRegressionConfig(**big, weight_init="gpt2"), D + 1), [0])
    torch_ = EnsembleTransformer(model_config(TransformerRegressionConfig(**big), D + 1), [0])
    qkv, proj, bias = stds(gpt2)
    assert abs(qkv - 0.02) < 0.001 and abs(proj - 0.01) < 0.0006 and bias == 0.0
    qkv, proj, bias = stds(torch_)
    assert abs(qkv - 0.02) > 0.005 and bias > 0


def test_unit_input_scale_from_the_samplers_output():
    """N(0, I) tokens: each coordinate has variance 1 (N(0, I/d): 1/d), the flag stays 0/1, and the target is W* times
    the flagged token divided by √d, so that the loss at a zero prediction is still ½."""
    d = 16
    for gain, variance in ((math.sqrt(d), 1.0), (1.0, 1 / d)):
        task = SingleLocationRegression(T=32, d=d, task_seed=0, token_gain=gain)
        x, y, mask = task.sample(2000, torch.Generator().manual_seed(0))
        tokens = x[..., :d]
        assert abs(float(tokens[~mask].var()) / variance - 1) < 0.02
        assert set(x[..., d].unique().tolist()) == {0.0, 1.0}
        relevant = tokens[mask] / math.sqrt(d)  # (n, d): one flagged token a sequence at B = 1
        assert torch.allclose(relevant @ task.w_star.T, y, atol=1e-5) == (gain != 1.0)
        assert abs(0.5 * float(y.pow(2).sum(-1).mean()) - 0.5) < 0.03


def test_a_louder_relevance_feature_from_the_training_samplers_output():
    """relevance_gain = 16: the feature the training's own sampler emits is 16 at the relevant token and 0 elsewhere,
    and the tokens and targets are those of the book's reading, draw for draw. At the book's reading it is 0/1, so the
    first check fails there."""
    from emergence_lib.training import RegressionTraining

    draws = {}
    for gain in (16.0, 1.0):
        c = TransformerRegressionConfig(T=16, d=D, d_model=16, d_qk=4, eval_size=8, relevance_gain=gain)
        task = RegressionTraining(c, [0], "cpu").tasks[0]
        x, y, mask = task.sample(400, torch.Generator().manual_seed(0))
        assert torch.equal(x[..., D], 16.0 * mask) == (gain == 16.0)
        assert int((x[..., D] != 0).sum(1).max()) == 1  # one flagged token a sequence at B = 1
        draws[gain] = (x[..., :D], y)
    assert all(torch.equal(a, b) for a, b in zip(draws[16.0], draws[1.0]))


def test_adams_eps_and_beta2_reach_the_optimiser():
    c = TransformerRegressionConfig(T=T, d=D, adam_eps=1e-6, adam_beta2=0.95)
    group = optimizer_for(c, [torch.nn.Parameter(torch.zeros(1))]).param_groups[0]
    assert group["eps"] == 1e-6 and group["betas"] == (0.9, 0.95)
    group = optimizer_for(TransformerRegressionConfig(T=T, d=D), [torch.nn.Parameter(torch.zeros(1))]).param_groups[0]
    assert group["eps"] == 1e-8 and group["betas"] == (0.9, 0.999)


def test_clipping_acts_on_each_seed_alone():
    """Seed 0's gradient (norm 10) is clipped to 1; seed 1's (norm 0.5) is left as it was. A global clip over the
    ensemble (torch's clip_grad_norm_) would shrink seed 1's too."""
    a, b = torch.nn.Parameter(torch.zeros(2, 3)), torch.nn.Parameter(torch.zeros(2, 4))
    a.grad = torch.tensor([[6.0, 0, 0], [0.3, 0, 0]])
    b.grad = torch.tensor([[8.0, 0, 0, 0], [0.4, 0, 0, 0]])
    clip_per_member(Readings(clip_norm=1.0), [a, b])
    norms = torch.sqrt(a.grad.pow(2).sum(1) + b.grad.pow(2).sum(1))
    assert abs(float(norms[0]) - 1.0) < 1e-5 and abs(float(norms[1]) - 0.5) < 1e-6
    clip_per_member(Readings(), [a, b])  # the book's reading: nothing
    assert abs(float(torch.sqrt(a.grad.pow(2).sum(1) + b.grad.pow(2).sum(1))[0]) - 1.0) < 1e-5


def test_bfloat16_computes_the_forward_pass_in_bfloat16():
    model, x = _model(), _x()
    with precision(Readings(precision="bfloat16"), "cpu"):
        assert model(x).dtype == torch.bfloat16
    with precision(Readings(), "cpu"):
        assert model(x).dtype == torch.float32


def test_the_moves_rule_reads_both_directions_and_an_interval_across_the_band():
    """`IntervalRule(outside=b)`: a reading moves the exponent if the whole interval lies beyond ±b, either way."""
    from emergence_lib.claims.rules import IntervalRule

    rule = IntervalRule(outside=0.2)
    assert rule.judge(0.5, 0.3, 0.7, None) == "agrees" and rule.judge(-0.5, -0.7, -0.3, None) == "agrees"
    assert rule.judge(0.0, -0.1, 0.15, None) == "differs"
    assert rule.judge(0.2, 0.1, 0.3, None) == "inconclusive" and rule.judge(0.0, -0.3, 0.3, None) == "inconclusive"
    assert rule.judge(0.0, float("nan"), 0.1, None) == "inconclusive"


def _earlier_rows_change(model: EnsembleTransformer, x: torch.Tensor) -> float:
    """How much the attention rows of every position but the last move when only the last token changes."""
    with torch.no_grad():
        _, before = model(x, return_attention=True)
        x2 = x.clone()
        x2[:, :, -1] += 1.0
        _, after = model(x2, return_attention=True)
    return max(float((a[..., :-1, :] - b[..., :-1, :]).abs().max()) for a, b in zip(before, after))


def test_a_causal_mask_leaves_the_earlier_positions_blind_to_a_later_token():
    """From the attention the model outputs: with the causal reading, changing the last token moves no earlier
    position's attention in any layer; bidirectionally (the book's reading) it does."""
    x = _x()
    assert _earlier_rows_change(_model(causal=True), x) < 1e-6
    assert _earlier_rows_change(_model(), x) > 1e-4
