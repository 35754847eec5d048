"""The cache never serves results of other code: one stored run of every kind, recomputed, matches exactly.

A change to a sampler, model, loop or integrator that alters what a run
computes must bump its kind's ``version`` (`cache.kind_version`), which gives
every run of that kind a new key. If it does not, the stored files of that
kind no longer match what the code computes, and this test fails.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from emergence_lib.cache import ResultCache, differences, run_key
from emergence_lib.configs import config_from_stored
from emergence_lib.runs import runner_for

DATA = Path(__file__).resolve().parent.parent / "data"


def _cost(record: dict) -> float:
    seconds = record["summary"].get("seconds", record["meta"].get("seconds"))
    return float(seconds) if seconds is not None else math.inf


def _cheapest_stored_config(kind: str):
    """The stored run of ``kind`` that took the least time, as its config object (its key must round-trip)."""
    records = [json.loads(p.read_text()) for p in sorted((DATA / kind).glob("*.json"))]
    if not records:
        pytest.fail(f"no stored runs of kind {kind!r} under {DATA}")
    record = min(records, key=_cost)
    config = config_from_stored(kind, record["config"])
    assert run_key(config) == record["key"], "a stored config does not round-trip to its key"
    return config


def _stored_and_recomputed(config):
    stored = ResultCache(DATA).load(config)
    assert stored is not None, f"{config} is not in data/"
    (fresh,) = runner_for(config.kind)([config], device="cpu")
    return stored, fresh


@pytest.mark.parametrize("kind", ["toy_reduced_flow", "toy_full_gd", "toy_sgd", "transformer_regression", "transformer_recall"])
def test_cheapest_stored_run_of_each_kind_is_reproduced_exactly(kind):
    # A reduced flow is recomputed alone although it was stored from a batch of up to 64: that is exact too
    # (tests/test_ode.py checks batch independence directly).
    stored, fresh = _stored_and_recomputed(_cheapest_stored_config(kind))
    _assert_identical(stored, fresh)


def _assert_identical(stored, fresh) -> None:
    assert differences(stored, fresh) == []
