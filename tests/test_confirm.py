"""Fresh-seed confirmations (`experiments.confirm`): the seeds are new, the configs are the pinned figures' own, and
the readers give what is put in."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pandas as pd
import pytest

from emergence_lib.experiments import Figure3, Figure5
from emergence_lib.experiments.confirm import read
from emergence_lib.experiments.confirm.runs import Confirm


def test_the_seeds_are_new_and_the_configs_are_the_pinned_figures_own():
    sweeps = Confirm(scale="cpu").sweeps()
    used = {r.seed for fig in (Figure3(scale="cpu"), Figure5(scale="cpu")) for r in fig.runs()}
    fresh = {r.seed for v in sweeps.values() for r in v}
    assert fresh.isdisjoint(used), "no stored run of these configs has used these seeds"
    for r in sweeps["figure5"]:
        assert dataclasses.replace(r, seed=0, B=1, p=0.0) in Figure5(scale="cpu").sweeps()["B"]
    old3 = {dataclasses.replace(r, seed=0) for key in ("T", "B") for r in Figure3(scale="cpu").sweeps()[key]}
    assert {dataclasses.replace(r, seed=0) for r in sweeps["figure3"]} == old3


def test_the_paired_speed_up_is_the_geometric_mean_of_each_seeds_ratio():
    rows = [{"seed": s, "B": 1, "p": 0.0, "emergence_step": 100.0 * (s + 1)} for s in range(4)]
    rows += [{"seed": s, "B": 2, "p": 0.0, "emergence_step": 100.0 * (s + 1) / (2 if s % 2 else 4)} for s in range(4)]
    out = read.figure5_speedup(SimpleNamespace(summary=pd.DataFrame(rows)), "B")
    assert out["ours"] == pytest.approx(8 ** 0.5) and out["low"] < out["ours"] < out["high"] and out["seeds"] == 4
