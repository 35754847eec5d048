"""Associative recall: the generator's statistics, bad input, the induction-head attention readout, a tiny run."""

import numpy as np
import pytest
import torch

from emergence_lib.configs import ConfigError, TransformerRecallConfig
from emergence_lib.tasks import AssociativeRecallTask, RecallBatch
from emergence_lib.attention import relevant_attention
from emergence_lib.training import train_recall


def _pairs(batch: RecallBatch, n_pairs: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    tok = batch.tokens
    return tok[:, 0 : 2 * n_pairs : 2], tok[:, 1 : 2 * n_pairs : 2], tok[:, -1]  # keys, values, query


def test_sequence_layout_and_target():
    task = AssociativeRecallTask(n_tokens=20, n_pairs=6, B=3, task_seed=1)
    batch = task.sample(2000, torch.Generator().manual_seed(0))
    assert batch.tokens.shape == (2000, 13) and task.seq_len == 13
    keys, values, query = _pairs(batch, 6)
    assert torch.equal(batch.query_slots, keys == query[:, None])
    # Every occurrence of the query key is followed by the target; no occurrence is missing.
    assert (values[batch.query_slots] == batch.target.repeat_interleave(batch.query_slots.sum(1))).all()
    assert batch.query_slots.any(1).all()
    # The non-query keys are distinct and never the query.
    for k, s in zip(keys[:200], batch.query_slots[:200]):
        others = k[~s]
        assert len(set(others.tolist())) == len(others)


def test_key_to_value_map_is_a_permutation():
    """The same key always gets the same value within a sequence, and distinct keys distinct values."""
    task = AssociativeRecallTask(n_tokens=8, n_pairs=7, B=4, task_seed=0)
    batch = task.sample(500, torch.Generator().manual_seed(3))
    keys, values, _ = _pairs(batch, 7)
    for k, v in zip(keys, values):
        pairs = set(zip(k.tolist(), v.tolist()))
        assert len({a for a, _ in pairs}) == len(pairs) == len({b for _, b in pairs})
    # Over many sequences each key maps to every value about equally often (a fresh permutation each time).
    counts = np.zeros((8, 8))
    np.add.at(counts, (keys.flatten().numpy(), values.flatten().numpy()), 1)
    assert counts.min() > 0


@pytest.mark.parametrize("B", [1, 2, 4])
def test_query_appears_B_times_on_average(B):
    task = AssociativeRecallTask(n_tokens=32, n_pairs=8, B=B, task_seed=2)
    counts = task.sample(20_000, torch.Generator().manual_seed(B)).query_slots.sum(1).float()
    assert counts.min() >= 1
    assert counts.mean().item() == pytest.approx(task.mean_query_count(), rel=0.02)
    assert task.mean_query_count() == pytest.approx(B, rel=0.12)  # the zero-redraw rule adds a little
    if B == 1:
        assert (counts == 1).all()


def test_repeated_tokens_take_their_mass():
    V, p = 16, 0.4
    task = AssociativeRecallTask(n_tokens=V, n_pairs=4, p=p, task_seed=5)
    assert task.query_probs.sum().item() == pytest.approx(1.0)
    query = task.sample(40_000, torch.Generator().manual_seed(0)).tokens[:, -1]
    freq = torch.bincount(query, minlength=V).float() / len(query)
    rep = task.repeated_tokens
    assert len(rep) == 2
    assert freq[rep].numpy() == pytest.approx([p / 2 + (1 - p) / V] * 2, abs=0.01)
    others = torch.ones(V, dtype=torch.bool)
    others[rep] = False
    assert freq[others].mean().item() == pytest.approx((1 - p) / V, abs=0.003)


def test_test_data_has_no_repetition():
    task = AssociativeRecallTask(n_tokens=16, n_pairs=8, B=4, p=0.8, task_seed=1)
    batch = task.sample(5000, torch.Generator().manual_seed(0), B=1, p=0.0)
    assert (batch.query_slots.sum(1) == 1).all()
    freq = torch.bincount(batch.tokens[:, -1], minlength=16).float() / 5000
    assert freq.max().item() < 1 / 16 + 0.03  # uniform queries


def test_the_task_depends_only_on_its_seed():
    a = AssociativeRecallTask(n_tokens=50, n_pairs=4, p=0.2, task_seed=3)
    assert torch.equal(a.repeated_tokens, AssociativeRecallTask(n_tokens=50, n_pairs=4, B=2, p=0.2, task_seed=3).repeated_tokens)
    assert not torch.equal(a.repeated_tokens, AssociativeRecallTask(n_tokens=50, n_pairs=4, p=0.2, task_seed=4).repeated_tokens)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_tokens=8, n_pairs=8), "n_pairs must be < n_tokens"),
        (dict(n_tokens=8, n_pairs=12), "n_pairs must be < n_tokens"),
        (dict(n_tokens=16, n_pairs=4, B=5), "B must satisfy 1 ≤ B ≤ n_pairs"),
        (dict(n_tokens=16, n_pairs=4, B=0), "B must be an integer ≥ 1"),
        (dict(n_tokens=16, n_pairs=4, p=1.5), r"p must lie in \[0, 1\]"),
        (dict(n_tokens=16, n_pairs=4, p=-0.1), r"p must lie in \[0, 1\]"),
        (dict(n_tokens=1, n_pairs=1), "n_tokens"),
        (dict(n_tokens=16, n_pairs=4, n_repeated=16), "n_repeated must be < n_tokens"),
    ],
)
def test_bad_recall_input(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        AssociativeRecallTask(**kwargs)
    with pytest.raises(ConfigError, match=match):
        TransformerRecallConfig(**kwargs)


@pytest.mark.parametrize("kwargs, match", [(dict(threshold=1.0), "accuracy"), (dict(stop_factor=0.5), "stop_factor"),
                                           (dict(emergence_on="train"), "emergence_on"), (dict(n_heads=3), "divisible")])
def test_bad_recall_run_fields(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        TransformerRecallConfig(n_tokens=16, n_pairs=4, **kwargs)


def test_relevant_attention_reads_the_induction_head_weights():
    """A hand-made pattern: layer 1 puts weight 1 from every value to its key, layer 2 from the query to the relevant value."""
    E, n, H, N = 1, 3, 2, 4
    T = 2 * N + 1
    slots = torch.zeros(E, n, N, dtype=torch.bool)
    slots[0, torch.arange(n), torch.tensor([0, 2, 3])] = True
    prev = torch.zeros(T, T)
    prev[torch.arange(1, T), torch.arange(T - 1)] = 1.0
    prev[0, 0] = 1.0
    layer1 = prev.expand(E, n, H, T, T).clone()
    layer2 = torch.eye(T).expand(E, n, H, T, T).clone()  # every token attends to itself…
    for i, s in enumerate([0, 2, 3]):  # …but the query, to the relevant value
        layer2[0, i, :, -1, :] = 0.0
        layer2[0, i, :, -1, 2 * s + 1] = 1.0
    vk, qv = relevant_attention([layer1, layer2], slots)
    assert vk.shape == qv.shape == (E, 2, H)
    assert np.allclose(vk[0, 0], 1) and np.allclose(vk[0, 1], 0)
    assert np.allclose(qv[0, 1], 1)
    assert np.allclose(qv[0, 0], 1 / 3)  # the previous-token head also hits the relevant value when it is the last pair


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_a_tiny_recall_model_emerges():
    """2 layers, width 32, 8 tokens, 3 pairs: accuracy jumps from chance (1/8) past 60% within the budget."""
    cfg = TransformerRecallConfig(n_tokens=8, n_pairs=3, n_layers=2, n_heads=2, d_model=32, d_qk=8, lr=3e-3,
                                  max_steps=1500, threshold=0.6, eval_size=256, stop_factor=1.2)
    (r,) = train_recall([cfg])
    assert r.summary["status"] == "crossed", r.summary
    acc = r.curve["accuracy_test"]
    assert acc[0] < 0.3 and acc.max() >= 0.6
    assert {"attn_value_to_key_L1H1", "attn_query_to_value_L2H2"} <= set(r.curve)


def _fake_recall_sweep(last_weights: dict[str, dict[str, float]], emergence: dict[str, float]):
    """A SweepResult of runs whose curves end at the given attention weights (column → value per run)."""
    import pandas as pd

    from emergence_lib.sweep import SweepResult

    curves, summary = [], []
    for i, (run, weights) in enumerate(last_weights.items()):
        curve = {"step": [0, 10, 20], "run": [run] * 3}
        curve |= {column: [0.1, 0.2, w] for column, w in weights.items()}
        curves.append(pd.DataFrame(curve))
        summary.append({"run": run, "layer_norm": "none" if i else "pre", "embedding": "lookup", "n_pairs": 4, "seed": i,
                        "emergence_step": emergence[run]})
    return SweepResult(summary=pd.DataFrame(summary), curves=pd.concat(curves, ignore_index=True), n_cached=0, n_computed=0)


def test_placement_reads_the_layer_with_the_most_final_weight_heads_averaged():
    from emergence_lib.experiments.recall.read import placement_summary, placement_table

    weights = {
        # copying: layer 1 heads (0.9, 0.5) average 0.7 > layer 2's 0.6, though layer 2 holds the largest single head
        "a": {"attn_value_to_key_L1H1": 0.9, "attn_value_to_key_L1H2": 0.5, "attn_value_to_key_L2H1": 0.95, "attn_value_to_key_L2H2": 0.25,
              "attn_query_to_value_L1H1": 0.1, "attn_query_to_value_L1H2": 0.1, "attn_query_to_value_L2H1": 0.8, "attn_query_to_value_L2H2": 0.7},
        "b": {"attn_value_to_key_L1H1": 0.1, "attn_value_to_key_L1H2": 0.1, "attn_value_to_key_L2H1": 0.6, "attn_value_to_key_L2H2": 0.6,
              "attn_query_to_value_L1H1": 0.3, "attn_query_to_value_L1H2": 0.3, "attn_query_to_value_L2H1": 0.2, "attn_query_to_value_L2H2": 0.2},
    }
    table = placement_table(_fake_recall_sweep(weights, {"a": 100.0, "b": np.inf})).set_index("run")
    assert (table.loc["a", "copy_layer"], table.loc["a", "select_layer"]) == (1, 2)
    assert table.loc["a", "copy_weight"] == pytest.approx(0.7) and table.loc["a", "copy_runner_up"] == pytest.approx(0.6)
    assert (table.loc["b", "copy_layer"], table.loc["b", "select_layer"]) == (2, 1)
    summary = placement_summary(table.reset_index()).set_index("layer_norm")
    assert summary.loc["pre", "copy_layer"] == 1 and summary.loc["pre", "copy_agree"] == 1
    # a run that never emerged is counted but does not vote
    assert summary.loc["none", "emerged"] == 0 and summary.loc["none", "copy_layer"] == -1
