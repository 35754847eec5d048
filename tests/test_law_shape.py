"""The shape quantities of Figure 3's law (`experiments.bend.read`, registered in `claims.bend`), recomputed here from
hand-built plateaus with a known answer, each beside a twin built to fail it; and the equivalence rule they use."""

import math

import numpy as np
import pandas as pd
import pytest

from emergence_lib.claims import REGISTRY, IntervalRule
from emergence_lib.experiments.bend import read, runs
from emergence_lib.metrics import descent_share

JITTER = (-0.02, 0.02)  # the two seeds' log offsets: a known, small seed spread


def _table(plateau) -> pd.DataFrame:
    """Two seeds at every fresh point, plateau(T, d, B) times e^(±0.02)."""
    rows = [{"T": T, "d": d, "B": B, "seed": s, "plateau_length": plateau(T, d, B) * math.exp(j)}
            for T, d, B in runs.FRESH_GRIDS["paper_cpu"].points for s, j in zip((5, 6), JITTER)]
    return pd.DataFrame(rows)


def _power(T, d, B):
    return 0.76 * d ** 1.29 * (T / B) ** 0.8  # the paper's law: T and B enter as T/B, one power


def _bent(T, d, B):
    x = T / B  # local exponent 0.8 below T/B = 64, 1.5 above: a bend of 0.7 in T/B alone
    return d * (x ** 0.8 if x <= 64 else 64 ** 0.8 * (x / 64) ** 1.5)


def test_the_collapse_is_one_where_the_plateau_depends_on_T_over_B_alone():
    for law in (_power, _bent):
        c = read.collapse(_table(law))
        assert c["ours"] == pytest.approx(1.0, abs=1e-9) and c["cells"] == 6
        assert REGISTRY["table1.collapse.T_over_B"].status(c["ours"], (c["low"], c["high"])) == "agrees"


def test_the_collapse_fails_where_the_plateau_ignores_B():
    """The twin: B does nothing, so (256, d, B) plateaus as (256, d, 1), B times later than (256/B, d, 1) at slope 1."""
    c = read.collapse(_table(lambda T, d, B: d * T))
    want = math.exp(np.mean([math.log(B) for _, B in runs.COLLAPSE_CELLS]))  # the geometric mean of 2, 4, 8: 4
    assert c["ours"] == pytest.approx(want, rel=1e-9)
    assert REGISTRY["table1.collapse.T_over_B"].status(c["ours"], (c["low"], c["high"])) == "differs"


def test_the_bend_is_zero_for_one_power_and_the_exponents_difference_for_a_bent_law():
    for d in runs.BEND_SEGMENTS:
        straight = read.bend(_table(_power), d)
        assert straight["ours"] == pytest.approx(0.0, abs=1e-9)
        assert REGISTRY[f"table1.bend.d{d}"].status(straight["ours"], (straight["low"], straight["high"])) == "inconclusive"
        bent = read.bend(_table(_bent), d)
        # 128 -> 256 lies wholly above T/B = 64 (1.5); 32 -> 64 wholly below (0.8); d = 64's 32 -> 128 is half each.
        want = 1.5 - (0.8 if d != 64 else (0.8 + 1.5) / 2)
        assert bent["ours"] == pytest.approx(want, abs=1e-9), d
        assert REGISTRY[f"table1.bend.d{d}"].status(bent["ours"], (bent["low"], bent["high"])) == "agrees"


def test_the_bend_interval_is_welchs_from_the_seeds():
    """The seeds differ by 0.04 in log at every point: each point's variance is 0.04²/2, its mean's 0.04²/4."""
    b = read.bend(_table(_bent), 16)
    w = runs.bend_weights(16)
    se = math.sqrt(sum(v * v for v in w.values()) * 0.04 ** 2 / 2 / 2)
    from emergence_lib.metrics import t_quantile_975

    df = sum(v * v for v in w.values()) ** 2 / sum(v ** 4 for v in w.values())  # Welch-Satterthwaite, equal variances
    assert b["high"] - b["ours"] == pytest.approx(t_quantile_975(df) * se, rel=1e-9)


def test_a_point_without_a_crossed_seed_leaves_the_quantity_undefined():
    t = _table(_power)
    t.loc[(t["T"] == 256) & (t["d"] == 16) & (t["B"] == 2), "plateau_length"] = float("inf")
    assert math.isnan(read.collapse(t)["ours"])
    t.loc[(t["T"] == 256) & (t["d"] == 16) & (t["B"] == 1), "plateau_length"] = float("inf")
    assert math.isnan(read.bend(t, 16)["ours"])


@pytest.mark.parametrize("low, high, want", [(0.85, 1.2, "agrees"), (0.7, 1.1, "inconclusive"), (1.3, 2.0, "differs"),
                                             (0.3, 0.79, "differs"), (0.5, 2.0, "inconclusive")])
def test_the_equivalence_rule_on_a_ratio(low, high, want):
    rule = IntervalRule(within=math.log(1.25), log=True)
    assert rule.judge(math.sqrt(low * high), low, high, None) == want


def test_the_bend_weights_are_a_difference_of_two_log_slopes():
    for d, ((a, b), (c, e)) in runs.BEND_SEGMENTS.items():
        w = runs.bend_weights(d)
        assert sum(w.values()) == pytest.approx(0.0, abs=1e-12)  # a constant plateau has no bend
        # On log plateau = k log T the contrast gives k - k = 0; on (log T)² it gives the slopes' difference.
        assert sum(v * math.log(T) for (T, _, _), v in w.items()) == pytest.approx(0.0, abs=1e-12)
        quad = sum(v * math.log(T) ** 2 for (T, _, _), v in w.items())
        assert quad == pytest.approx(math.log(c * e) - math.log(a * b), rel=1e-12)


def _screen_table(plateau, seeds=(0, 1, 2, 3)) -> pd.DataFrame:
    """Every seed at every screen length (d = 16, B = 1), plateau(T) times a seed's own factor (paired structure)."""
    g = runs.SCREEN_GRIDS["paper_cpu"]
    return pd.DataFrame([{"T": T, "d": g.d, "B": 1, "seed": s, "plateau_length": plateau(T) * (1 + 0.1 * s)}
                         for T in g.T for s in seeds])


def test_the_screen_reads_each_seeds_bend_and_exponent_and_pairs_them_by_seed():
    g = runs.SCREEN_GRIDS["paper_cpu"]
    bent = lambda T: T ** 0.8 if T <= 64 else 64 ** 0.8 * (T / 64) ** 1.5  # noqa: E731
    book = read.per_seed(read.seed_logs(_screen_table(bent), g.d, g.T))
    straight = read.per_seed(read.seed_logs(_screen_table(lambda T: T ** 0.8), g.d, g.T))
    assert np.allclose(book["bend"], 0.7) and np.allclose(straight["bend"], 0.0)
    # The least-squares slope over log 32, 64, 128, 256 of the bent law, computed here by numpy's polyfit.
    want = np.polyfit(np.log(g.T), np.log([bent(T) for T in g.T]), 1)[0]
    assert np.allclose(book["T_exponent"], want)
    q = read.screen_quantities(straight, book)
    assert q["straightens"]["ours"] == pytest.approx(0.7) and q["T_moves"]["ours"] == pytest.approx(0.8 - want)
    assert REGISTRY["screen16.positions_quiet.straightens"].status(0.7, (0.6, 0.8)) == "agrees"
    assert REGISTRY["screen16.positions_quiet.straightens"].status(0.1, (0.0, 0.2)) == "differs"


def test_a_seed_that_did_not_cross_leaves_the_screen_and_is_named():
    g = runs.SCREEN_GRIDS["paper_cpu"]
    t = _screen_table(lambda T: T ** 0.8)
    t.loc[(t["seed"] == 2) & (t["T"] == 256), "plateau_length"] = float("inf")
    r = read.over_seeds(read.per_seed(read.seed_logs(t, g.d, g.T))["bend"])
    assert r["seeds"] == 3 and r["left_out"] == [2] and np.isfinite(r["ours"])
    t.loc[(t["seed"] == 1) & (t["T"] == 32), "plateau_length"] = float("inf")
    assert math.isnan(read.over_seeds(read.per_seed(read.seed_logs(t, g.d, g.T))["bend"])["ours"])


def test_the_descent_share_of_a_plateau():
    steps = np.array([0, 10, 100, 1000, 2000], float)
    flat = np.array([0.5, 0.5, 0.5, 0.449, 0.05])  # leaves 0.45 just before step 1000, crosses near 2000
    assert descent_share(steps, flat, 1800.0) < 0.5
    fast = np.array([0.5, 0.3, 0.2, 0.1, 0.05])  # leaves 0.45 before step 10: the descent is the whole plateau
    assert descent_share(steps, fast, 1000.0) > 0.9
    assert math.isnan(descent_share(steps, flat, float("inf")))


def test_the_screens_answer_speaks_only_from_its_registered_verdicts():
    """Issue 61 item 3: B4's sentence on the d = 16 screen comes from the registered verdicts alone: flip a verdict
    and the words change; a reading recovers 0.80 only where both its verdicts agree and it moved down."""
    from emergence_lib.experiments.bend.show import screen16_answer

    table = pd.DataFrame([{"reading": "the book's reading", "key": "book", "moves": float("nan")},
                          {"reading": "no positions", "key": "positions_none", "moves": -0.4}])
    verdicts = {"book.bend": "agrees", "book.T_exponent": "differs", "positions_none.bend": "inconclusive",
                "positions_none.straightens": "agrees", "positions_none.T_exponent": "agrees",
                "positions_none.T_moves": "agrees"}
    text = screen16_answer(table, verdicts, "not run yet")
    assert "bends upward" in text and "no positions straightens the bend" in text and "no positions recovers 0.80" in text
    flipped = screen16_answer(table, verdicts | {"positions_none.T_moves": "inconclusive"}, "not run yet")
    assert "none is shown to recover 0.80" in flipped
    assert "nothing is judged yet" in screen16_answer(table, {}, "not run yet (0 of 83 runs stored)")
