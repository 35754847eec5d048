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


def _results(prefix: str, verdicts: dict[str, tuple[float, str]]) -> list:
    return [claims.ClaimResult(claims.claim(f"{prefix}.{k}_exponent"), v, s, (v - 0.1, v + 0.1))
            for k, (v, s) in verdicts.items()]


FIRST = {"d": (1.35, "inconclusive"), "T": (1.19, "differs"), "B": (-1.19, "differs")}


def _first_rows(values: dict[str, tuple[float, str]]) -> list[dict]:
    paper = {"d": 1.29, "T": 0.80, "B": -0.80}
    return [_row(k, v, paper[k], joint.FIRST) for k, (v, _) in values.items()]


def test_the_answer_gives_the_short_fit_while_the_whole_grid_waits():
    rows = _first_rows(FIRST) + [_row("d", 1.10, 1.29, joint.SHORT_FRESH), _row("T", 0.95, 0.80, joint.SHORT_FRESH)]
    checked = (_results("table1.joint.first_seeds", FIRST)
               + _results("table1.joint.fresh_short", {"d": (1.10, "differs"), "T": (0.95, "agrees")}))
    text = joint.answer(rows, checked, "not run yet: it needs its points at T = 256")
    assert text.startswith("One joint fit over the paper's grid, on fresh seeds: not run yet: it needs its points at "
                           "T = 256. Up to T = 128 at B = 1 the fresh seeds give d 1.10 against 1.29 (differs), "
                           "T 0.95 against 0.80 (agrees)."), text
    assert text.endswith("chosen after their data (a diagnostic that sets no direction): d 1.35, T 1.19, B −1.19."), text
    without = joint.answer(_first_rows(FIRST), _results("table1.joint.first_seeds", FIRST), "not run yet: it needs "
                           "its points at T = 128, 256")
    assert "up to T = 128" not in without.lower()
    assert joint.answer([], [], "not run yet") == "One joint fit over the paper's grid, on fresh seeds: not run yet."


def test_a_fit_chosen_after_its_data_never_sets_a_direction():
    """Issue 60 item 2: flip the first seeds' fit (chosen after their data) and the answer's words do not change;
    flip a registered verdict on fresh seeds and they do."""
    def words(first: dict, fresh16: dict | None = None) -> str:
        rows = _first_rows(first) + ([_row(k, v, p, joint.FRESH16) for (k, (v, _)), p in
                                      zip(fresh16.items(), (1.29, 0.8, -0.8))] if fresh16 else [])
        checked = _results("table1.joint.first_seeds", first) + (_results("table1.joint.fresh16", fresh16) if fresh16 else [])
        text = joint.answer(rows, checked, "not run yet")
        return text.split("The first seeds through")[0]  # the diagnostic's own numbers aside

    steep = words(FIRST)
    shallow = words({"d": (1.3, "agrees"), "T": (0.5, "differs"), "B": (-0.5, "differs")})
    assert steep == shallow and "faster" not in steep and "In kind" not in steep, (steep, shallow)
    fresh_steep = words(FIRST, {"d": (1.3, "agrees"), "T": (1.2, "differs"), "B": (-1.2, "differs")})
    fresh_inside = words(FIRST, {"d": (1.3, "agrees"), "T": (1.2, "inconclusive"), "B": (-1.2, "differs")})
    assert "grows faster with T/B than the paper's law (its T and B exponents differ, registered)" in fresh_steep
    assert "faster" not in fresh_inside and "nearer" not in fresh_steep


def test_the_answer_in_words_follows_the_fresh_fit_and_its_verdicts():
    def words(values: dict[str, tuple[float, str]]) -> str:
        rows = [_row(k, v, p, joint.FRESH) for (k, (v, _)), p in zip(values.items(), (1.29, 0.8, -0.8))]
        return joint.answer(rows, _results("table1.joint.fresh", values), "not run yet")

    steep = words(FIRST)
    assert steep.startswith("In kind, yes: on the paper's model the plateau grows with d and T and shrinks with B, as "
                            "the paper says; but it grows faster with T/B than the paper's law"), steep
    shallow = words({"d": (1.3, "agrees"), "T": (0.5, "differs"), "B": (-0.5, "differs")})
    assert "grows more slowly with T/B than the paper's law" in shallow and "toy" not in shallow, shallow
    wrong = words({"d": (1.3, "agrees"), "T": (-0.2, "differs"), "B": (-0.8, "agrees")})
    assert wrong.startswith("Not even in kind"), wrong


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
    rows = _first_rows(FIRST) + [_row("d", 1.10, 1.29, joint.SHORT_FRESH), _row("T", 0.95, 0.80, joint.SHORT_FRESH),
                                 _row("d", 1.20, 1.29, joint.SHORT_FIRST), _row("T", 1.05, 0.80, joint.SHORT_FIRST)]
    checked = (_results("table1.joint.first_seeds", FIRST)
               + _results("table1.joint.fresh_short", {"d": (1.10, "inconclusive"), "T": (0.95, "inconclusive")}))
    text = joint.answer(rows, checked, "not run yet: it needs its points at T = 256")
    assert "(inconclusive) (the first seeds at the same points: d 1.20, T 1.05)." in text, text
    assert "1.20 against" not in text, "a reading beside carries no verdict"


def test_once_the_whole_grid_is_judged_on_fresh_seeds_it_leads_and_the_first_seeds_follow():
    fresh = {"d": (1.30, "agrees"), "T": (0.82, "agrees"), "B": (-0.79, "agrees")}
    rows = _first_rows(FIRST) + [_row(k, v, p, joint.FRESH) for (k, (v, _)), p in zip(fresh.items(), (1.29, 0.8, -0.8))]
    text = joint.answer(rows, _results("table1.joint.first_seeds", FIRST) + _results("table1.joint.fresh", fresh),
                        "not run yet")
    assert text.startswith("In kind, yes") and "faster" not in text, text
    assert "on the fresh seeds: d 1.30 against 1.29 (agrees)" in text, text
    assert text.endswith("(a diagnostic that sets no direction): d 1.35, T 1.19, B −1.19."), text
    assert "not run yet" not in text
