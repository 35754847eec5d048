"""The task samplers, checked by independent counting on their output alone.

Single-location regression: W* is invertible, so the relevant token is recovered
from the target (x_rel = W*⁻¹ y*) and searched for at every position of a large
batch. Nothing here uses the sampler's mask or its internal draws: the relevance
feature is read off the inputs, and every copy of x_rel is found by comparison.
(These tests fail on the earlier sampler, which took x_rel from position 0 and
so left an unflagged second copy there: 1.97 copies per sequence at T = 32.)

Associative recall: the query is the last token, and its value is the target;
both are located by comparing tokens.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from emergence_lib.tasks import AssociativeRecallTask, SingleLocationRegression

N = 20_000


def _copies(task: SingleLocationRegression, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(recovered relevant tokens (n, d), where they occur (n, T)), from inputs and targets only."""
    d = task.d
    relevant = torch.linalg.solve(task.w_star.double(), y.double().T).T.float()  # (n, d)
    tokens = x[..., :d]  # (n, T, d)
    scale = relevant.norm(dim=-1, keepdim=True)[:, None] + 1e-12
    close = ((tokens - relevant[:, None, :]).norm(dim=-1, keepdim=True) / scale)[..., 0] < 1e-4
    return relevant, close


@pytest.mark.parametrize("B", [1, 3])
@pytest.mark.parametrize("T", [8, 32])
def test_relevant_token_occurs_exactly_B_times_at_the_flagged_positions(T, B):
    task = SingleLocationRegression(T=T, d=6, B=B, task_seed=1)
    x, y, _ = task.sample(N, torch.Generator().manual_seed(0))
    _, copies = _copies(task, x, y)
    assert (copies.sum(1) == B).all(), f"copies per sequence: {copies.sum(1).float().mean():.3f}, expected exactly {B}"
    flagged = x[..., -1] == 1.0  # the relevance feature, read off the inputs
    assert torch.equal(copies, flagged)
    assert set(x[..., -1].unique().tolist()) == {0.0, 1.0}


@pytest.mark.parametrize("B", [1, 2])
def test_random_positions_are_uniform_over_the_context(B):
    T = 16
    task = SingleLocationRegression(T=T, d=4, B=B, task_seed=2)
    x, y, _ = task.sample(N, torch.Generator().manual_seed(1))
    counts = _copies(task, x, y)[1].sum(0).double().numpy()  # (T,) occurrences per position
    expected = N * B / T
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < T - 1 + 5 * np.sqrt(2 * (T - 1)), f"chi² = {chi2:.1f} over {T - 1} dof: {counts}"


@pytest.mark.parametrize("feature", [True, False])
@pytest.mark.parametrize("B", [1, 2])
def test_the_fixed_position_always_holds_the_relevant_token(feature, B):
    task = SingleLocationRegression(T=12, d=5, B=B, random_position=False, relevance_feature=feature, task_seed=3)
    x, y, _ = task.sample(N, torch.Generator().manual_seed(2))
    copies = _copies(task, x, y)[1]
    assert copies[:, task.fixed_position].all()
    assert (copies.sum(1) == B).all()
    if B == 1:
        assert copies.sum(0)[task.fixed_position] == N and copies.sum() == N


@pytest.mark.parametrize("B", [1, 3])
def test_the_share_of_x_tilde_is_p_and_all_copies_are_it(B):
    p = 0.3
    task = SingleLocationRegression(T=10, d=6, B=B, p=p, task_seed=4)
    x, y, _ = task.sample(N, torch.Generator().manual_seed(3))
    relevant, copies = _copies(task, x, y)
    is_tilde = (relevant - task.x_tilde).norm(dim=-1) < 1e-4
    share = is_tilde.double().mean().item()
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / N), share
    assert (copies.sum(1) == B).all()  # x̃ replaces every copy: no sequence mixes x̃ and another token
    tokens = x[..., :-1]
    tilde_everywhere = ((tokens - task.x_tilde).norm(dim=-1) < 1e-4)  # (n, T)
    assert torch.equal(tilde_everywhere, copies & is_tilde[:, None])  # x̃ only where it is the relevant token


def test_other_tokens_are_independent_of_the_relevant_one_with_unit_norm():
    d, T = 8, 16
    task = SingleLocationRegression(T=T, d=d, B=2, task_seed=5)
    x, y, _ = task.sample(N, torch.Generator().manual_seed(4))
    relevant, copies = _copies(task, x, y)
    tokens = x[..., :d]
    others = tokens[~copies]  # (N·(T − B), d)
    assert others.pow(2).sum(-1).mean().item() == pytest.approx(1.0, abs=0.02)  # E‖x‖² = 1
    assert relevant.pow(2).sum(-1).mean().item() == pytest.approx(1.0, abs=0.02)
    # Independence: the mean inner product of the relevant token with the others at each position is ~0
    # (under the old sampler position 0 held a copy: inner product ≈ 1 there).
    dots = (tokens * relevant[:, None, :]).sum(-1)  # (n, T)
    dots = torch.where(copies, torch.nan, dots)
    per_position = torch.nanmean(dots, dim=0)  # each ≈ N(0, 1/(d·n))
    assert per_position.abs().max().item() < 6 / np.sqrt(d * N * (T - 2) / T)


def test_held_out_data_has_one_copy_and_never_x_tilde():
    task = SingleLocationRegression(T=16, d=6, B=4, p=0.5, task_seed=6)
    x, y, _ = task.sample(N, torch.Generator().manual_seed(5), B=1, p=0.0)
    relevant, copies = _copies(task, x, y)
    assert (copies.sum(1) == 1).all()
    assert ((relevant - task.x_tilde).norm(dim=-1) > 1e-3).all()
    assert torch.equal(copies, x[..., -1] == 1.0)


# ------------------------------------------------------------- associative recall --


def _recall_counts(task: AssociativeRecallTask, tokens: torch.Tensor, target: torch.Tensor):
    """From tokens and target alone: where the query key occurs, and where the target value occurs as a value."""
    N_pairs = task.n_pairs
    keys, values, query = tokens[:, 0 : 2 * N_pairs : 2], tokens[:, 1 : 2 * N_pairs : 2], tokens[:, -1]
    return keys == query[:, None], values == target[:, None], keys, values


@pytest.mark.parametrize("B", [1, 3])
def test_recall_query_and_its_value_occur_together_and_nowhere_else(B):
    task = AssociativeRecallTask(n_tokens=24, n_pairs=6, B=B, task_seed=1)
    batch = task.sample(N, torch.Generator().manual_seed(0))
    at_query, at_target, keys, values = _recall_counts(task, batch.tokens, batch.target)
    assert at_query.any(1).all()  # the query occurs at least once
    assert torch.equal(at_query, at_target)  # the target value follows each query key, and only those
    if B == 1:
        assert (at_query.sum(1) == 1).all()
        slots = at_query.double().argmax(1)
        counts = torch.bincount(slots.long(), minlength=6).double().numpy()
        chi2 = ((counts - N / 6) ** 2 / (N / 6)).sum()
        assert chi2 < 5 + 5 * np.sqrt(10), counts
    else:
        assert at_query.sum(1).double().mean().item() == pytest.approx(task.mean_query_count(), rel=0.02)
    # The other keys are distinct: each sequence holds n_pairs − (copies − 1) distinct keys.
    distinct = torch.tensor([len(set(k.tolist())) for k in keys[:2000]])
    assert torch.equal(distinct, 6 - at_query[:2000].sum(1) + 1)


def test_recall_held_out_data_has_one_query_and_uniform_queries():
    task = AssociativeRecallTask(n_tokens=16, n_pairs=8, B=4, p=0.8, task_seed=2)
    batch = task.sample(N, torch.Generator().manual_seed(1), B=1, p=0.0)
    at_query, at_target, _, _ = _recall_counts(task, batch.tokens, batch.target)
    assert (at_query.sum(1) == 1).all() and torch.equal(at_query, at_target)
    freq = torch.bincount(batch.tokens[:, -1], minlength=16).double() / N
    assert (freq - 1 / 16).abs().max().item() < 5 * np.sqrt(1 / 16 / N)


@pytest.mark.parametrize("B", [2, 4])
def test_the_repeated_value_share_matches_the_sequences_where_one_value_repeats(B):
    """Counted from the sampler's tokens alone: a sequence where some value occurs twice or more, and that value is
    the target. Its share must match `repeated_value_share`; a formula that forgot the zero-redraw rule (0.633 at
    B = 2, against 0.703) is 20 standard errors off at this sample size, and at B = 1 no value ever repeats."""
    task = AssociativeRecallTask(n_tokens=64, n_pairs=8, B=B)
    batch = task.sample(20_000, torch.Generator().manual_seed(7))
    values = batch.tokens[:, 1:-1:2]  # (n, n_pairs): the value tokens
    counts = torch.zeros(values.shape[0], task.n_tokens, dtype=torch.long).scatter_add_(1, values, torch.ones_like(values))
    repeats = counts.max(dim=1)
    share = (repeats.values >= 2).double().mean().item()
    assert bool((repeats.indices[repeats.values >= 2] == batch.target[repeats.values >= 2]).all()), "the repeated value is the answer"
    assert share == pytest.approx(task.repeated_value_share(), abs=4 * (0.25 / 20_000) ** 0.5)
    one = AssociativeRecallTask(n_tokens=64, n_pairs=8, B=1)
    assert one.repeated_value_share() == 0.0
    v1 = one.sample(2_000, torch.Generator().manual_seed(1)).tokens[:, 1:-1:2]
    assert all(len(set(row.tolist())) == one.n_pairs for row in v1)


def test_sampling_batched_seeds_on_threads_gives_the_same_batches_as_one_after_another():
    """A GPU run draws its seeds' batches on threads; each seed has its own generator, so every batch, and each
    generator's state after it, must equal the serial draw's (a shared generator would interleave and fail this)."""
    from emergence_lib.tasks import sample_ensemble

    tasks = [SingleLocationRegression(T=64, d=8, B=b, task_seed=s) for s, b in ((0, 1), (1, 2), (2, 4))]

    def draws(threads: int) -> list[torch.Tensor]:
        gens = [torch.Generator().manual_seed(100 + i) for i in range(3)]
        out = []
        for step in range(5):
            per = [{"B": 1}, {}, {"p": 0.5}] if step % 2 else None
            out += list(sample_ensemble(tasks, 16, gens, per_member=per, return_mask=True, threads=threads))
        return out + [torch.tensor([float(torch.rand(1, generator=g)) for g in gens])]

    from emergence_lib import tasks as tasks_module

    threaded = draws(3)  # first, on fresh tasks: their lazily drawn state is computed inside the threads
    assert 3 in tasks_module._SAMPLERS, "the threaded branch ran"
    serial = draws(1)
    assert all(torch.equal(a, b) for a, b in zip(serial, threaded)) and len(serial) == len(threaded) == 16


@pytest.mark.integration  # it trains or reads every stored run: the integration tier
def test_a_batched_run_trained_with_threaded_sampling_equals_the_serial_one(monkeypatch):
    """End to end: three seeds trained as one model, their batches drawn on threads (as on a GPU), store the same
    runs as the serial draw: same curves, same crossings (`cache.differences` finds nothing)."""
    from emergence_lib import training
    from emergence_lib.cache import differences
    from emergence_lib.configs import TransformerRegressionConfig

    configs = [TransformerRegressionConfig(T=8, d=2, d_model=16, d_qk=4, n_layers=1, n_heads=1, lr=3e-3, max_steps=150,
                                           seed=s) for s in range(3)]
    serial = training.train_regression(configs)
    real = training.sample_ensemble
    monkeypatch.setattr(training, "sample_ensemble", lambda *a, **kw: real(*a, **(kw | {"threads": 3})))
    threaded = training.train_regression(configs)
    assert len(serial) == len(threaded) == 3
    assert all(differences(a, b) == [] for a, b in zip(serial, threaded))


def test_a_gpu_run_draws_on_one_thread_per_seed_and_a_cpu_run_on_one(monkeypatch):
    """The training loop asks for threads only off the CPU (a CPU sweep's cores are its workers')."""
    from emergence_lib import training
    from emergence_lib.configs import TransformerRegressionConfig

    asked = []

    def record(*args, **kw):
        asked.append(kw.get("threads", 1))
        raise StopIteration  # stop before the batch would move to a device this machine may not have

    c = TransformerRegressionConfig(T=8, d=2, d_model=16, d_qk=4, n_layers=1, n_heads=1, lr=3e-3, max_steps=10)
    run = training.RegressionTraining(c, [0, 1, 2], "cpu")
    monkeypatch.setattr(training, "sample_ensemble", record)
    for device in ("cpu", "cuda"):
        run.device = device
        with pytest.raises(StopIteration):
            run.train_loss(None)
    assert asked == [1, 3]
