import numpy as np
import pytest

from emergence_lib.ode import integrate, lattice_grid, time_grid


def test_rows_with_different_rates_match_the_exact_solution():
    rates = np.array([0.01, 1.0, 5.0])
    grid = time_grid(10.0, 50)
    traj = integrate(lambda y: -rates[:, None] * y, np.ones((3, 1)), grid, t_end=np.full(3, 10.0), rtol=1e-10)
    np.testing.assert_allclose(traj.y[:, :, 0], np.exp(-np.outer(grid, rates)), rtol=1e-7, atol=1e-9)  # atol: the integrator's own
    assert traj.n_steps[0] < traj.n_steps[2] + 1  # the stiffer row takes at least as many steps


def test_rows_stop_at_their_own_end_or_stop_rule():
    grid = time_grid(100.0, 20)
    t_end = np.array([100.0, 10.0, 100.0])
    traj = integrate(
        lambda y: -np.ones_like(y), np.array([[200.0], [200.0], [50.0]]), grid, t_end=t_end,
        stop=lambda y: y[:, 0] < 20.0,
    )
    y = traj.y[:, :, 0]
    assert np.isnan(y[grid > 10.0 + 1e-9, 1]).all()  # row 1 ended at t = 10
    assert np.isfinite(y[grid <= 10.0, 1]).all()
    last = np.flatnonzero(np.isfinite(y[:, 2]))[-1]  # row 2 stopped at its first point below 20
    assert y[last, 2] < 20.0 <= y[last - 1, 2]
    assert np.isfinite(y[:, 0]).all()


def test_time_grid_starts_at_zero_and_ends_at_t_max():
    g = time_grid(1e4, 100)
    assert g[0] == 0 and g[-1] == pytest.approx(1e4) and np.all(np.diff(g) > 0)


def test_lattice_grid_points_do_not_depend_on_the_horizon():
    short, long = lattice_grid(37.0, 50), lattice_grid(5e4, 50)
    assert short[0] == 0.0 and short[-1] <= 37.0 < short[-1] * 10 ** (1 / 50)
    assert np.array_equal(long[: len(short)], short)


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_a_reduced_flow_run_is_bit_identical_alone_in_any_batch_and_order():
    """Issue 14: a run's result must not depend on which runs share its integration batch (horizons, stops, T, d
    and the cross-sample flow all differ across this batch)."""
    from emergence_lib.cache import differences
    from emergence_lib.configs import ToyFlowConfig
    from emergence_lib.runs import run_toy_flow

    batch = [ToyFlowConfig(T=8, d=4), ToyFlowConfig(T=32, d=8, t_max=4e3), ToyFlowConfig(T=16, d=16, B=2, stop_below=0.05),
             ToyFlowConfig(T=64, d=4, t_max=2e4), ToyFlowConfig(T=16, d=8, p=0.3), ToyFlowConfig(T=32, d=4, p=0.6, t_max=900.0)]
    together = run_toy_flow(batch)
    reordered = run_toy_flow(batch[::-1])[::-1]
    for i, config in enumerate(batch):
        (alone,) = run_toy_flow([config])
        assert differences(alone, together[i], ignore=()) == [], f"{config} alone vs in the batch"
        assert differences(alone, reordered[i], ignore=()) == [], f"{config} alone vs in the reversed batch"
