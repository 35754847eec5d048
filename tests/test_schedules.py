"""Data-diversity schedules: the typed object, the config field, and what the loops actually sample.

The sampling checks count from the samplers' output alone (flagged positions, query occurrences, the relevant
token recovered from the target), never through the schedule's own code path.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from emergence_lib import training
from emergence_lib.cache import run_key
from emergence_lib.configs import (ConfigError, ToyFlowConfig, TransformerRecallConfig, TransformerRegressionConfig,
                                   config_from_stored)
from emergence_lib.metrics import plateau_length
from emergence_lib.schedules import DiversitySchedule, ScheduleError, repetition_at
from emergence_lib.tasks import SingleLocationRegression, sample_ensemble
from emergence_lib.toy_cross_sample import (cross_sample_flow, cross_sample_growth_rate, linearised_system,
                                            scheduled_cross_sample_flow)

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize("spec", ["constant", "step:1000", "annealed:250", "triggered:accuracy_train_distribution>=0.5",
                                  "triggered:loss_no_repetition<=0.3"])
def test_spec_round_trips(spec):
    assert DiversitySchedule.parse(spec).spec == spec


@pytest.mark.parametrize("spec", ["", "step", "step:-3", "annealed:0", "triggered:acc", "triggered:acc>0.5", "cosine:3", 3])
def test_bad_specs_are_refused_with_the_forms_allowed(spec):
    with pytest.raises(ScheduleError):
        DiversitySchedule.parse(spec)


def test_fractions():
    assert DiversitySchedule.step(100).fraction(99) == 1 and DiversitySchedule.step(100).fraction(100) == 0
    assert DiversitySchedule.annealed(50).fraction(100) == pytest.approx(0.25)
    trig = DiversitySchedule.triggered("alpha", 0.2)
    assert trig.fraction(10 ** 6) == 1 and trig.fraction(0, triggered=True) == 0
    assert trig.fires(0.2) and not trig.fires(0.19) and not trig.fires(float("nan"))
    assert repetition_at(4, 0.8, 1.0) == (4, 0.8) and repetition_at(4, 0.8, 0.0) == (1, 0.0)
    assert repetition_at(4, 0.0, 0.5) == (3, 0.0)  # 1 + round(1.5): round half to even


def test_a_schedule_enters_the_key_but_the_default_leaves_every_stored_key_unchanged():
    base = TransformerRecallConfig(n_tokens=32, n_pairs=8, B=4)
    assert run_key(base) != run_key(TransformerRecallConfig(n_tokens=32, n_pairs=8, B=4, schedule="step:500"))
    checked = 0
    for kind in ("toy_reduced_flow", "transformer_regression", "transformer_recall"):
        for path in sorted((DATA / kind).glob("*.json"))[:40]:
            record = json.loads(path.read_text())
            if "schedule" in record["config"] or "record_attention" in record["config"]:
                continue  # stored after the fields existed
            assert run_key(config_from_stored(kind, record["config"])) == record["key"], path
            checked += 1
    assert checked >= 60


@pytest.mark.parametrize("make", [
    lambda: TransformerRecallConfig(n_tokens=16, n_pairs=4, schedule="step:10"),  # nothing to switch off
    lambda: TransformerRecallConfig(n_tokens=16, n_pairs=4, B=2, schedule="triggered:alpha>=0.2"),  # not recorded
    lambda: TransformerRegressionConfig(T=8, d=4, p=0.4, schedule="triggered:attn_relevant>=0.2"),  # not recording
    lambda: ToyFlowConfig(T=8, d=4, p=0.3, schedule="triggered:accuracy_test>=0.5"),
    lambda: ToyFlowConfig(T=8, d=4, p=0.3, schedule="bogus"),
])
def test_bad_schedules_fail_on_creation(make):
    with pytest.raises(ConfigError, match="schedule"):
        make()


def test_per_member_overrides_sample_what_they_say_counted_from_the_output():
    tasks = [SingleLocationRegression(16, 8, B=3, p=0.6, task_seed=s) for s in (0, 1)]
    gens = [torch.Generator().manual_seed(s) for s in (0, 1)]
    x, y, mask = sample_ensemble(tasks, 2000, gens, per_member=[{"B": 1, "p": 0.0}, {"B": 3, "p": 0.6}], return_mask=True)
    flagged = x[..., -1].sum(-1)  # the relevance feature, per sequence
    assert (flagged[0] == 1).all() and (flagged[1] == 3).all()
    for e, p in ((0, 0.0), (1, 0.6)):  # the relevant token is x̃ iff the target is W* x̃
        is_tilde = torch.isclose(y[e], (tasks[e].w_star @ tasks[e].x_tilde)[None], atol=1e-5).all(-1).float().mean()
        assert abs(float(is_tilde) - p) < 0.04


def _query_counts(tokens: torch.Tensor) -> torch.Tensor:
    """Occurrences of the query (last token) among the keys (even positions), per sequence: (E, n)."""
    keys = tokens[..., :-1:2]
    return (keys == tokens[..., -1:]).sum(-1)


def test_recall_step_schedule_switches_the_batches_off_at_tau(monkeypatch):
    seen = []
    original = training.sample_recall_ensemble

    def spy(tasks, n, gens, per_member=None, **kw):
        batch = original(tasks, n, gens, per_member=per_member, **kw)
        if n == 16:  # the training batches (eval sets have eval_size)
            seen.append(_query_counts(batch.tokens).float().mean().item())
        return batch

    monkeypatch.setattr(training, "sample_recall_ensemble", spy)
    c = TransformerRecallConfig(n_tokens=12, n_pairs=6, B=4, schedule="step:20", max_steps=40, batch_size=16,
                                eval_size=32, d_model=16, d_qk=4, n_layers=1, n_heads=1, stop_factor=None, threshold=0.5)
    (result,) = training.train_recall([c])
    assert len(seen) == 40
    assert min(seen[:20]) > 2.5 and all(v == 1.0 for v in seen[20:])  # B = 4 (≈4.1 copies with redraws), then one
    assert result.summary["switched_at"] == 20
    steps, r = result.curve["step"], result.curve["repetition_fraction"]
    assert (r[steps < 20] == 1).all() and (r[steps >= 20] == 0).all()


def test_a_trigger_that_fires_at_once_trains_without_repetition(monkeypatch):
    seen = []
    original = training.sample_ensemble

    def spy(tasks, n, gens, per_member=None, **kw):
        out = original(tasks, n, gens, per_member=per_member, **kw)
        if n == 16:
            seen.append(out[0][..., -1].sum(-1).float().mean().item())  # flagged positions per sequence
        return out

    monkeypatch.setattr(training, "sample_ensemble", spy)
    c = TransformerRegressionConfig(T=8, d=4, B=3, schedule="triggered:loss_no_repetition<=10", max_steps=10,
                                    batch_size=16, eval_size=24, d_model=16, d_qk=4, stop_factor=None)
    (result,) = training.train_regression([c])
    assert result.summary["switched_at"] == 0 and seen == [1.0] * 10


def test_a_constant_schedule_changes_nothing():
    c = TransformerRecallConfig(n_tokens=12, n_pairs=6, B=2, max_steps=30, batch_size=8, eval_size=16, d_model=16,
                                d_qk=4, n_layers=1, n_heads=1, stop_factor=None, threshold=0.5)
    (a,) = training.train_recall([c])
    assert "switched_at" not in a.summary and "repetition_fraction" not in a.curve


# ------------------------------------------------------------------ the toy model under a schedule --

T, D, P = 64, 16, 0.6


def _plateau(traj):
    return plateau_length(traj.t, traj.loss[:, 0], 0.1)


@pytest.mark.integration  # trains to emergence: seconds, not milliseconds
def test_toy_step_after_the_horizon_is_constant_repetition_and_a_step_at_once_is_none():
    constant = cross_sample_flow(T, D, P, t_max=5000.0)
    none = cross_sample_flow(T, D, 0.0, t_max=5000.0)
    late, switch = scheduled_cross_sample_flow(T, D, P, DiversitySchedule.step(1e5), 5000.0)
    assert np.isnan(switch) and _plateau(late) == pytest.approx(_plateau(constant), rel=1e-6)
    early, switch = scheduled_cross_sample_flow(T, D, P, DiversitySchedule.step(1e-3), 5000.0)
    assert switch == pytest.approx(1e-3) and _plateau(early) == pytest.approx(_plateau(none), rel=1e-3)
    slow, _ = scheduled_cross_sample_flow(T, D, P, DiversitySchedule.annealed(1e9), 5000.0)
    assert _plateau(slow) == pytest.approx(_plateau(constant), rel=1e-5)


def test_toy_switch_is_continuous_and_the_trigger_fires_where_alpha_crosses():
    traj, switch = scheduled_cross_sample_flow(T, D, P, DiversitySchedule.triggered("alpha", 0.2), 5000.0)
    i = int(np.searchsorted(traj.t, switch))
    assert traj.alpha[i, 0] >= 0.2 > traj.alpha[i - 1, 0]
    jumps = np.abs(np.diff(traj.delta_a[:, 0]))
    assert jumps[i - 1: i + 1].max() < 10 * np.median(jumps[i - 5: i + 5]) + 1e-9  # no jump at the switch


def test_linearised_system_has_the_papers_growth_rate():
    _, J = linearised_system(256, 64, 0.6)
    assert np.linalg.eigvals(J).real.max() == pytest.approx(float(cross_sample_growth_rate(256, 64, 0.6)), rel=0.02)
