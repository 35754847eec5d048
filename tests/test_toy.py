"""The toy model: reduced theory against the full model of Eq. 2, and the theory's own claims."""

import numpy as np
import pytest
import torch

from emergence_lib.metrics import plateau_length
from emergence_lib.toy import (
    INITIAL_LOSS,
    attention,
    escape_time,
    linearised_solution,
    reduced_flow,
    reduced_gradients,
    reduced_loss,
    refined_plateau_length,
)
from emergence_lib.toy_full import expected_loss, full_gradient_descent, make_target


def full_loss_on_manifold(w, delta_a, T, d, B, seed=0):
    """Full expected loss at W = w W*/||W*||, a = (0,…,0, Δa,…,Δa), differentiable in (w, Δa)."""
    w_star = make_target(d, "unit_columns", seed)
    w_t = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    da_t = torch.tensor(delta_a, dtype=torch.float64, requires_grad=True)
    a = torch.cat([torch.zeros(T - B, dtype=torch.float64), da_t.expand(B)])
    W = w_t * w_star / w_star.norm()
    return expected_loss(a, W, w_star, B), w_t, da_t


@pytest.mark.parametrize("T,d,B", [(64, 8, 1), (256, 32, 1), (128, 16, 4)])
def test_initial_loss_is_one_half(T, d, B):
    assert reduced_loss(0.0, 0.0, T, d, B) == pytest.approx(INITIAL_LOSS, abs=1e-15)
    loss, *_ = full_loss_on_manifold(0.0, 0.0, T, d, B)
    assert loss.item() == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("T,d,B", [(64, 8, 1), (256, 32, 1), (128, 16, 4), (50, 3, 7)])
@pytest.mark.parametrize("w,delta_a", [(0.0, 0.0), (0.7, 1.3), (2.5, 6.0), (-0.4, -2.0)])
def test_reduced_loss_and_gradients_match_autograd_of_full_loss(T, d, B, w, delta_a):
    loss, w_t, da_t = full_loss_on_manifold(w, delta_a, T, d, B)
    gw, gda = torch.autograd.grad(loss, (w_t, da_t))
    ours_gw, ours_gda = reduced_gradients(w, delta_a, T, d, B)
    assert reduced_loss(w, delta_a, T, d, B) == pytest.approx(loss.item(), rel=1e-12, abs=1e-14)
    assert ours_gw == pytest.approx(gw.item(), rel=1e-10, abs=1e-14)
    assert ours_gda == pytest.approx(gda.item(), rel=1e-10, abs=1e-14)


def test_full_gradient_keeps_w_along_target():
    """The reduction is exact: from W ∝ W*, the gradient in W is again ∝ W* (unit-norm columns)."""
    T, d, B = 32, 6, 1
    w_star = make_target(d, "unit_columns", 3)
    W = (0.8 * w_star).requires_grad_(True)
    a = torch.zeros(T, dtype=torch.float64)
    a[-1] = 2.0
    (g,) = torch.autograd.grad(expected_loss(a, W, w_star, B), (W,))
    coef = (g * w_star).sum() / (w_star**2).sum()
    assert torch.allclose(g, coef * w_star, atol=1e-13)


def test_attention_is_one_over_T_at_init_and_tends_to_one_over_B():
    assert attention(0.0, 512, 1) == pytest.approx(1 / 512)
    assert attention(50.0, 512, 4) == pytest.approx(1 / 4)


@pytest.mark.parametrize("T,d", [(256, 16), (128, 8)])
def test_reduced_and_full_models_give_the_same_plateau(T, d):
    """Full GD on all of a ∈ R^T and W ∈ R^{d×d} vs the paper's reduced flow: within 1%."""
    full = full_gradient_descent(T, d, B=1, lr=0.25, t_max=20 * T * np.sqrt(d), stop_below=0.05, dense_near=0.1)
    p_full = plateau_length(full.t, full.loss)
    for logits in ("gap", "per_position"):
        r = reduced_flow(T, d, t_max=20 * T * np.sqrt(d), logits=logits, stop_below=0.05)
        p_red = plateau_length(r.t, r.loss[:, 0])
        assert p_red == pytest.approx(p_full, rel=0.01), (logits, p_red, p_full)


def test_full_model_with_repetition_matches_per_position_reduction():
    """With B > 1 every relevant position has its own logit in Eq. 2: that is the per_position reduction."""
    T, d, B = 256, 16, 4
    full = full_gradient_descent(T, d, B=B, lr=0.25, t_max=4000, stop_below=0.05, dense_near=0.1)
    p_full = plateau_length(full.t, full.loss)
    per_pos = reduced_flow(T, d, B=B, t_max=4000, logits="per_position", stop_below=0.05)
    gap = reduced_flow(T, d, B=B, t_max=4000, logits="gap", stop_below=0.05)
    assert plateau_length(per_pos.t, per_pos.loss[:, 0]) == pytest.approx(p_full, rel=0.01)
    assert plateau_length(gap.t, gap.loss[:, 0]) < 0.6 * p_full  # the shared logit is much faster


def test_repetition_law_depends_on_logit_parametrisation():
    """Shared logit (paper's Eq. 14): plateau ∝ T/B. One logit per position: ∝ T/√B (up to logs)."""
    T, d = 2048, 32
    Bs = np.array([1, 4, 16])
    plateaus = {}
    for logits in ("gap", "per_position"):
        r = reduced_flow(T, d, B=Bs, t_max=4e5, logits=logits, stop_below=0.05)
        plateaus[logits] = np.array([plateau_length(r.t, r.loss[:, i]) for i in range(len(Bs))])
    gap_slope = np.polyfit(np.log(Bs), np.log(plateaus["gap"]), 1)[0]
    pp_slope = np.polyfit(np.log(Bs), np.log(plateaus["per_position"]), 1)[0]
    assert gap_slope == pytest.approx(-1.0, abs=0.05)
    assert pp_slope == pytest.approx(-0.5, abs=0.1)


def test_plateau_grows_with_T_and_d_and_shrinks_with_B():
    T = np.array([256, 512, 256, 256])
    d = np.array([16, 16, 64, 16])
    B = np.array([1, 1, 1, 2])
    r = reduced_flow(T, d, B=B, t_max=2e5, stop_below=0.05)
    p = [plateau_length(r.t, r.loss[:, i]) for i in range(4)]
    assert p[1] > 1.8 * p[0]  # doubling T nearly doubles it
    assert 1.8 * p[0] < p[2] < 2.3 * p[0]  # 4× d: about 2× (√d)
    assert p[3] < 0.6 * p[0]  # B = 2 shortens it


def test_linearisation_matches_the_flow_early():
    T, d = 1024, 256
    r = reduced_flow(T, d, t_max=3000)
    lin = linearised_solution(r.t, T, d)
    early = (r.t > 0) & (r.t < 0.1 / (1 / (np.sqrt(d) * T)))  # λt < 0.1
    np.testing.assert_allclose(r.w[early, 0], lin["w"][early], rtol=1e-2)
    np.testing.assert_allclose(r.delta_a[early, 0], lin["delta_a"][early], rtol=3e-2)


def test_escape_time_formula():
    T, d, B, eps = 512, 64, 2, 0.8
    lam = B / (np.sqrt(d) * T)
    t_eps = escape_time(T, d, B, eps)
    # the linearised loss reaches (1 - ε) L0 exactly at T_ε
    assert linearised_solution(t_eps, T, d, B)["loss"] == pytest.approx((1 - eps) * 0.5, rel=1e-12)
    assert t_eps == pytest.approx(np.arcsinh(eps / lam) / (2 * lam))


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_refined_plateau_equals_a_dense_recording_grid():
    """Interpolating on the 200/decade recording grid is off by ~0.2%; the refined crossing is exact
    to < 1e-5, as a 20× denser grid with a 100× tighter tolerance shows."""
    T, d = 1024, 64
    a = reduced_flow(T, d, t_max=1e5, stop_below=0.05)
    dense = reduced_flow(T, d, t_max=1e5, stop_below=0.05, points_per_decade=4000, rtol=1e-11)
    reference = plateau_length(dense.t, dense.loss[:, 0])
    coarse = plateau_length(a.t, a.loss[:, 0])
    restart = lambda i, grid: reduced_flow(  # noqa: E731
        T, d, t_max=grid[-1], y0=[a.w[i, 0], a.delta_a[i, 0]], t_grid=grid
    ).loss[:, 0]
    refined = refined_plateau_length(a.t, a.loss[:, 0], 0.1, restart)
    assert refined == pytest.approx(reference, rel=1e-5)
    assert abs(coarse / reference - 1) > 1e-3  # the refinement is doing real work
    sparse = reduced_flow(T, d, t_max=1e5, stop_below=0.05, points_per_decade=50)  # what plateau sweeps record
    restart = lambda i, grid: reduced_flow(  # noqa: E731
        T, d, t_max=grid[-1], y0=[sparse.w[i, 0], sparse.delta_a[i, 0]], t_grid=grid
    ).loss[:, 0]
    assert refined_plateau_length(sparse.t, sparse.loss[:, 0], 0.1, restart) == pytest.approx(reference, rel=1e-5)
