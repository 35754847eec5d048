"""The recall task's unsaid readings (`configs.RecallTask`: zero_occurrences, test_set), counted from the token
sequences the training's own samplers emit, not from the config: how many times the query (the last token) sits in a
key slot. Each check also runs the book's reading and requires it to fail there."""

from __future__ import annotations

import pytest
import torch

from emergence_lib.cache import config_dict
from emergence_lib.configs import ConfigError, TransformerRecallConfig
from emergence_lib.training import RecallTraining

pytestmark = pytest.mark.unit
V, N = 16, 8  # N_tokens, N_pairs


def _occurrences(tokens: torch.Tensor) -> torch.Tensor:
    """(..., 2N + 1) sequences → (...,) how many key slots hold the query, from the tokens alone."""
    keys, query = tokens[..., 0:-1:2], tokens[..., -1:]
    return (keys == query).sum(-1)


def _training(B: int, **reading) -> RecallTraining:
    c = TransformerRecallConfig(n_tokens=V, n_pairs=N, B=B, d_model=16, d_qk=4, n_layers=1, n_heads=1,
                                eval_size=4000, **reading)
    return RecallTraining(c, [0], "cpu")


def _train_counts(tr: RecallTraining, n: int = 4000) -> torch.Tensor:
    return _occurrences(tr.tasks[0].sample(n, torch.Generator().manual_seed(1)).tokens)


@pytest.mark.parametrize("B", [1, 4])
def test_kept_absences_in_training_from_the_tokens(B):
    """'kept': a training sequence has no occurrence with probability (1 − B/N)^N (0.34 at B = 1, 0.004 at B = 4),
    and the count is Binomial(N, B/N); the book's reading never has none (at B = 1, exactly one)."""
    absent = (1 - B / N) ** N
    kept, book = _train_counts(_training(B, zero_occurrences="kept")), _train_counts(_training(B))
    assert abs(float((kept == 0).float().mean()) - absent) < 0.03 and (kept == 0).any()
    assert not (book == 0).any()
    assert abs(float(kept.float().mean()) - B) < 0.1  # Binomial(N, B/N): mean B
    assert (book == 1).all() == (B == 1)


@pytest.mark.parametrize("B", [1, 4])
def test_the_test_set_rule_from_the_tokens(B):
    """'bernoulli': the test set's query is absent about (1 − 1/N)^N of the time, whatever the training rule; the
    book's test set has it exactly once. The training reading does not touch the test set, at B = 1 either."""
    for reading, absent in (({"test_set": "bernoulli"}, (1 - 1 / N) ** N), ({"zero_occurrences": "kept"}, None),
                            ({}, None)):
        counts = _occurrences(_training(B, **reading).eval_sets["test"].tokens[0])
        if absent is None:
            assert (counts == 1).all()
        else:
            assert abs(float((counts == 0).float().mean()) - absent) < 0.03 and not (counts == 1).all()


def test_the_readings_enter_the_key_only_away_from_the_book():
    base = dict(n_tokens=V, n_pairs=N)
    assert not {"zero_occurrences", "test_set"} & set(config_dict(TransformerRecallConfig(**base)))
    assert config_dict(TransformerRecallConfig(**base, zero_occurrences="kept"))["zero_occurrences"] == "kept"
    assert config_dict(TransformerRecallConfig(**base, test_set="bernoulli"))["test_set"] == "bernoulli"
    for bad in ({"zero_occurrences": "never"}, {"test_set": "twice"}):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            TransformerRecallConfig(**base, **bad)


def test_attention_is_read_on_the_sequences_with_one_copy():
    """Under test_set='bernoulli' the relevant-attention curves average only the sequences that hold the query once:
    a sequence without it (slot 0 by argmax) or with two copies would read attention at an unrelated pair."""
    from emergence_lib.attention import relevant_attention

    E, n, H, Tn = 1, 3, 1, 2 * N + 1
    slots = torch.zeros(E, n, N, dtype=torch.bool)
    slots[0, 0, 2] = True  # once, in slot 2
    slots[0, 2, [1, 3]] = True  # twice; sequence 1 has none
    pattern = torch.zeros(E, n, H, Tn, Tn)
    pattern[0, 0, 0, 5, 4] = 1.0  # value 2s+1 = 5 → key 4: the copy, in the single-copy sequence
    pattern[0, 1, 0, 1, 0] = 0.5  # what slot 0 would read in the sequence without the query
    vk, _ = relevant_attention([pattern], slots)
    assert vk[0, 0, 0] == 1.0  # the book's mean over all three would give 0.5


def test_bernoulli_test_sets_refuse_the_probes_that_need_one_copy():
    with pytest.raises(ConfigError, match="test_set"):
        TransformerRecallConfig(n_tokens=V, n_pairs=N, test_set="bernoulli", record_entropy=True)
