"""Cross-sample repetition (3-D model), the late-phase quantities, and SGD on sampled data."""

import numpy as np
import pytest
import torch

from emergence_lib.configs import ToySGDConfig
from emergence_lib.metrics import plateau_length
from emergence_lib.runs import KINDS, run_toy_sgd
from emergence_lib.toy import (
    hessian_eigenvalues,
    reduced_flow,
    reduced_gradients,
    reduced_hessian,
    w_infinity,
)
from emergence_lib.toy_cross_sample import (
    cross_sample_flow,
    cross_sample_gradients,
    cross_sample_growth_rate,
    cross_sample_loss,
)
from emergence_lib.toy_full import expected_loss, full_gradient_descent, make_target
from emergence_lib.toy_sgd import sample_batch, sgd_train


def full_loss_on_3d_manifold(w_tilde, w, delta_a, T, d, p, c=1.0):
    w_star = make_target(d, "unit_columns", 1)
    wt = torch.tensor(w_tilde, dtype=torch.float64, requires_grad=True)
    ww = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    da = torch.tensor(delta_a, dtype=torch.float64, requires_grad=True)
    a = torch.cat([torch.zeros(T - 1, dtype=torch.float64), da[None]])
    scale = torch.cat([wt[None], (ww / np.sqrt(d - 1)).expand(d - 1)])
    W = w_star * scale[None, :]  # column i scaled: W[:, 0] = w̃ W*[:, 0], W[:, i] = w/√(d−1) W*[:, i]
    return expected_loss(a, W, w_star, 1, p, c), (wt, ww, da)


@pytest.mark.parametrize("p,c", [(0.0, 1.0), (0.2, 1.0), (0.6, 1.0), (0.3, 2.0)])
@pytest.mark.parametrize("state", [(0.0, 0.0, 0.0), (0.4, 1.5, 2.0), (1.2, 3.0, 5.0)])
def test_cross_sample_reduction_matches_autograd_of_the_full_loss(p, c, state):
    T, d = 64, 9
    loss, params = full_loss_on_3d_manifold(*state, T, d, p, c)
    grads = torch.autograd.grad(loss, params)
    assert cross_sample_loss(*state, T, d, p, c) == pytest.approx(loss.item(), rel=1e-12)
    for ours, ref in zip(cross_sample_gradients(*state, T, d, p, c), grads):
        assert ours == pytest.approx(ref.item(), rel=1e-10, abs=1e-14)


def test_3d_model_at_p0_is_the_2d_model():
    T, d = 512, 64
    r3 = cross_sample_flow(T, d, 0.0, t_max=1e4, stop_below=0.05)
    r2 = reduced_flow(T, d, t_max=1e4, stop_below=0.05)
    assert plateau_length(r3.t, r3.loss[:, 0]) == pytest.approx(plateau_length(r2.t, r2.loss[:, 0]), rel=1e-4)


def test_3d_reduced_flow_matches_full_gradient_descent():
    T, d, p = 128, 16, 0.3
    full = full_gradient_descent(T, d, p=p, lr=0.25, t_max=3000, stop_below=0.05, dense_near=0.1)
    r = cross_sample_flow(T, d, p, t_max=3000, stop_below=0.05)
    assert plateau_length(r.t, r.loss[:, 0]) == pytest.approx(plateau_length(full.t, full.loss), rel=0.01)


def test_linearised_3d_growth_rate_is_the_unstable_eigenvalue_at_init():
    # Asm. 5 (large d): the dropped diagonal (noise) terms shift the eigenvalue by ~1/(2√d) relative.
    T, d = 4096, 2048
    for p in (0.0, 0.1, 0.4):
        eps = 1e-7
        J = np.zeros((3, 3))
        for k in range(3):
            e = np.zeros(3)
            e[k] = eps
            plus = np.array(cross_sample_gradients(*e, T, d, p))
            minus = np.array(cross_sample_gradients(*(-e), T, d, p))
            J[:, k] = -(plus - minus) / (2 * eps)
        assert np.max(np.linalg.eigvals(J).real) == pytest.approx(cross_sample_growth_rate(T, d, p), rel=0.02)


def test_repetition_shortens_the_test_plateau_and_wtilde_leads():
    r = cross_sample_flow(512, 64, [0.0, 0.2, 0.4], t_max=1e4, stop_below=0.05)
    plateaus = [plateau_length(r.t, r.loss[:, j]) for j in range(3)]
    assert plateaus[0] > plateaus[1] > plateaus[2]
    j = 2
    t_tilde = r.t[np.argmax(r.w_tilde[:, j] > 0.1)]
    t_w = r.t[np.argmax(r.w[:, j] > 0.1 * np.sqrt(63))]
    assert t_tilde < t_w


@pytest.mark.parametrize("B", [1, 3])
def test_w_infinity_zeroes_the_w_gradient(B):
    T, d = 256, 32
    for frac in (0.01, 0.2, 0.9):
        alpha = frac / B  # attention on one copy lies in (0, 1/B)
        da = np.log(alpha * (T - B) / (1 - B * alpha))
        gw, _ = reduced_gradients(w_infinity(alpha, T, d, B), da, T, d, B)
        assert abs(gw) < 1e-12


@pytest.mark.parametrize("B", [1, 2])
@pytest.mark.parametrize("state", [(0.5, 1.0), (2.0, 4.0), (7.5, 9.0), (1.3, -0.5)])
def test_hessian_matches_finite_differences(B, state):
    T, d, eps = 64, 8, 1e-6
    w, da = state
    H = reduced_hessian(w, da, T, d, B)
    gw_p, ga_p = reduced_gradients(w + eps, da, T, d, B)
    gw_m, ga_m = reduced_gradients(w - eps, da, T, d, B)
    gw_q, ga_q = reduced_gradients(w, da + eps, T, d, B)
    gw_r, ga_r = reduced_gradients(w, da - eps, T, d, B)
    numeric = np.array([[gw_p - gw_m, gw_q - gw_r], [ga_p - ga_m, ga_q - ga_r]]) / (2 * eps)
    np.testing.assert_allclose(H, numeric, rtol=1e-6, atol=1e-10)
    ev = hessian_eigenvalues(w, da, T, d, B)
    assert ev[0] <= ev[1]


def test_sampled_batches_follow_the_task():
    g = torch.Generator().manual_seed(0)
    x, rel = sample_batch(g, 4000, T=16, d=8, B=3, p=0.25)
    assert x.shape == (4000, 16, 8)
    assert torch.equal(x[:, -1], rel) and torch.equal(x[:, -3], rel)  # the last B positions are copies
    swapped = (rel == torch.eye(8)[0]).all(dim=1).float().mean().item()
    assert swapped == pytest.approx(0.25, abs=0.03)
    others = x[:, :13].reshape(-1, 8)
    assert others.pow(2).sum(1).mean().item() == pytest.approx(1.0, rel=0.02)  # tokens N(0, I/d): norm² ≈ 1


def test_sgd_seeds_are_independent_of_how_they_are_batched():
    together = sgd_train(16, 8, seeds=[0, 1, 2], t_max=40, record_every=10, dtype=torch.float64)
    alone = sgd_train(16, 8, seeds=[1], t_max=40, record_every=10, dtype=torch.float64)
    np.testing.assert_allclose(together.loss[:, 1], alone.loss[:, 0], rtol=1e-10)
    assert not np.allclose(together.loss[:, 0], together.loss[:, 1])


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_sgd_from_the_theory_init_follows_the_flow():
    T = d = 32
    r = sgd_train(T, d, seeds=[0, 1], target="unit_columns", init="zero", t_max=600, record_every=2)
    flow = reduced_flow(T, d, t_max=600)
    p_flow = plateau_length(flow.t, flow.loss[:, 0])
    for k in range(2):
        assert plateau_length(r.t, r.loss[:, k]) == pytest.approx(p_flow, rel=0.05)


def test_sgd_runner_groups_seeds_on_gpu_only_and_keeps_order():
    configs = [ToySGDConfig(T=8, d=4, seed=s, t_max=5, record_every=5, lr=lr) for lr in (1.0, 0.5) for s in (2, 0)]
    assert sorted(len(c) for c in KINDS[ToySGDConfig.kind].chunks(configs, "cuda")) == [2, 2]
    assert [len(c) for c in KINDS[ToySGDConfig.kind].chunks(configs, "cpu")] == [1, 1, 1, 1]
    out = run_toy_sgd(configs)
    assert len(out) == 4 and all(r.curve["t"][-1] == pytest.approx(5.0) for r in out)
