"""Chapter 03's answer from the joint fits, and the landing page's readings beside Figure 3's headlines: what a fit
waits for is named by its missing points, never by a count of runs; a reading registered on fresh seeds shows its
verdict beside the headline, one chosen after its data does not."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from emergence_lib import claims, headlines
from emergence_lib.experiments.table1_joint import read
from emergence_lib.experiments.table1_joint import show as joint

pytestmark = pytest.mark.unit


def _summary(points: list[tuple[int, int, int]], seeds: tuple[int, ...]) -> pd.DataFrame:
    return pd.DataFrame([{"T": T, "d": d, "B": B, "seed": s, "plateau_length": 100.0 * T, "reached": True,
                          "run": f"{T}-{d}-{B}-{s}"} for T, d, B in points for s in seeds])


def test_a_fit_that_waits_names_its_missing_lengths_and_no_count():
    short_done = _summary(read.SHORT, (5, 6))
    text = joint.needs(short_done, read.POINTS, 2)
    assert text == "not run yet: it needs its points at T = 256", text
    half = _summary(read.SHORT, (5,))
    assert joint.needs(half, read.SHORT, 2) == "not run yet: it needs its points at T = 32, 64, 128"
    # the bug this guards: a progress count ("14 of 34 runs") in a chapter
    assert " of " not in joint.needs(pd.DataFrame(columns=["T", "d", "B", "plateau_length"]), read.POINTS, 2)


def _row(exponent: str, ours: float, paper: float, seeds: str) -> dict:
    return {"exponent": exponent, "ours": ours, "paper": paper, "seeds": seeds}


def test_the_answer_gives_the_short_fit_while_the_whole_grid_waits():
    short = "seeds 5-6, T ≤ 128 (fresh)"
    rows = [_row("d", 1.10, 1.29, short), _row("T", 0.95, 0.80, short)]
    checked = [claims.ClaimResult(claims.claim(f"table1.joint.fresh_short.{k}_exponent"), v, s, (v - 0.1, v + 0.1))
               for k, v, s in (("d", 1.10, "differs"), ("T", 0.95, "agrees"))]
    text = joint.answer(rows, checked, "not run yet: it needs its points at T = 256")
    assert text.startswith("One joint fit over the paper's grid, on fresh seeds: not run yet: it needs its points at "
                           "T = 256. Up to T = 128 at B = 1, on the same fresh seeds: d 1.10 against 1.29 (differs), "
                           "T 0.95 against 0.80 (agrees)."), text
    assert "Up to T = 128" not in joint.answer([], [], "not run yet: it needs its points at T = 256")


def test_the_landing_shows_a_registered_readings_verdict_beside_and_not_an_after_the_data_ones(tmp_path):
    for key, status in (("table1.joint.fresh_short.d_exponent", "differs"),
                        ("table1.joint.first_seeds.d_exponent", "agrees")):
        (tmp_path / f"{key}@paper_cpu.json").write_text(json.dumps({"ours": 1.1, "interval": [1.0, 1.2],
                                                                    "status": status}))
    row = next(r for r in headlines.headline_rows(str(tmp_path)) if r["key"] == "table1.joint.fresh.d_exponent")
    assert "fresh seeds, T ≤ 128 and B = 1 only:</i> 1.10 [1.00, 1.20] (differs)" in row["Ours [95%]"]
    assert "after their data):</i> 1.10 [1.00, 1.20]<br>" in row["Ours [95%]"], "no verdict beside a reading chosen after its data"
    assert row["Verdict, and why"].startswith("not run yet"), "a reading beside is never the row's verdict"


def test_the_first_seeds_at_the_short_points_sit_beside_the_fresh_fit_without_a_verdict():
    short = "seeds 5-6, T ≤ 128 (fresh)"
    rows = [_row("d", 1.10, 1.29, short), _row("T", 0.95, 0.80, short),
            _row("d", 1.20, 1.29, joint.SHORT_FIRST), _row("T", 1.05, 0.80, joint.SHORT_FIRST)]
    checked = [claims.ClaimResult(claims.claim(f"table1.joint.fresh_short.{k}_exponent"), v, "inconclusive",
                                  (v - 0.3, v + 0.3)) for k, v in (("d", 1.10), ("T", 0.95))]
    text = joint.answer(rows, checked, "not run yet: it needs its points at T = 256")
    assert "(inconclusive); the first seeds at the same points give d 1.20, T 1.05." in text, text
    assert "1.20 against" not in text, "a reading beside carries no verdict"
