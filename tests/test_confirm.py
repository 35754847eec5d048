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


def test_the_fresh_seed_sentence_sets_each_verdict_beside_its_pin_and_says_when_nothing_is_judged():
    from emergence_lib import claims
    from emergence_lib.experiments.confirm import show as cshow

    pins = {"confirm.figure5.in_context_speedup": ("figure5.in_context_speedup", "The in-context speed-up at B = 2")}
    c = claims.claim("confirm.figure5.in_context_speedup")
    result = claims.ClaimResult(c, 3.19, c.status(3.19, (2.97, 3.42)), (2.97, 3.42))
    text = cshow.beside_the_pins([result], pins, 15, 15)
    assert text.startswith("The in-context speed-up at B = 2: 3.19 [2.97, 3.42] on the fresh seeds, which differs from")
    assert text.endswith(f"expects {claims.claim('figure5.in_context_speedup').expected!r}.")
    inside = claims.ClaimResult(c, 3.9, c.status(3.9, (3.5, 4.4)), (3.5, 4.4))
    assert "which agrees with" in cshow.beside_the_pins([inside], pins, 15, 15)
    waiting = cshow.beside_the_pins([], pins, 4, 15)
    assert waiting == "Not judged yet: the fresh seeds are not all run.", "what is missing, never how far runs have got"
    assert not any(ch.isdigit() for ch in waiting)


def test_the_lack_of_fit_sentence_follows_the_test_and_the_test_sees_a_misfit():
    from emergence_lib.experiments.confirm import show as cshow

    # A law C·d·T·B⁻¹ with small seed scatter fits; bending one point off it by 3× makes the test reject.
    rows = [{"d": d, "T": T, "B": B, "seed": s, "plateau_length": d * T / B * (1.0 + 0.01 * (s - 1))}
            for d in (4, 8, 16) for T in (16, 32) for B in (1, 2) for s in range(3)]
    fits = read.figure3_lack_of_fit(SimpleNamespace(summary=pd.DataFrame(rows)))
    assert fits["p"] > 0.05 and (fits["df_lack"], fits["df_pure"]) == (12 - 4, 36 - 12)
    assert cshow.lack_of_fit_sentence(fits).startswith("The lack-of-fit test does not reject the law")
    bent = [dict(r, plateau_length=r["plateau_length"] * (3 if (r["d"], r["T"], r["B"]) == (8, 32, 1) else 1))
            for r in rows]
    misfit = read.figure3_lack_of_fit(SimpleNamespace(summary=pd.DataFrame(bent)))
    assert misfit["p"] < 1e-6
    assert cshow.lack_of_fit_sentence(misfit).startswith("The law misfits the fresh seeds' points by more than")
    assert cshow.lack_of_fit_sentence({}).endswith("not yet.")
