"""Chapter B4's answer and the landing page's Figure 3 reason count a reading only once all its runs, and its
baseline's, are stored, and use its registered verdict: two seeds of four once read as "recovers"."""

import pandas as pd
import pytest

from emergence_lib.experiments.unsaid import read, show
from emergence_lib.experiments.unsaid.runs import Unsaid


def _table(low: float, high: float) -> pd.DataFrame:
    rows = [{"reading": "book", "what": "the book's reading (float32)", "exponent_ours": 1.04, "exponent_low": 0.78,
             "exponent_high": 1.30},
            {"reading": "bfloat16", "what": "the book's reading in bfloat16", "exponent_ours": (low + high) / 2,
             "exponent_low": low, "exponent_high": high, "moves_ours": (low + high) / 2 - 1.04,
             "moves_low": low - 1.04, "moves_high": high - 1.04}]
    return pd.DataFrame(rows)


@pytest.fixture
def grid():
    return Unsaid(scale="paper_cpu").grid


def test_a_reading_with_runs_to_come_is_not_counted(monkeypatch, grid):
    monkeypatch.setattr(read, "complete", lambda results, g, key: key == "book")
    text = show.answer(_table(0.70, 0.90), grid, {})
    assert "recover" not in text and "No other reading has all its runs stored yet" in text
    # what is missing is named, never counted ("12 other readings still have runs to come")
    assert "Not run yet: the book's reading in bfloat16;" in text and "runs to come" not in text
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    waiting = show.answer(_table(0.70, 0.90), grid, {}).split("Not run yet: ")[1]
    assert "bfloat16" not in waiting, "a judged reading is not listed as waiting"


def test_a_complete_reading_is_named_by_its_registered_verdict(monkeypatch, grid):
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    narrow = show.answer(_table(0.70, 0.90), grid, {})  # 0.80 inside, narrower than the registered width
    wide = show.answer(_table(0.50, 1.30), grid, {})  # 0.80 inside, but too wide to say: inconclusive
    assert "the book's reading in bfloat16 recovers it: 0.80 [0.70, 0.90]" in narrow
    assert "The one other reading judged does not recover it" in wide and "(inconclusive)" in wide
    assert "None of the 1" not in wide and "Of the 1 other readings" not in narrow  # one reading reads as English


def test_the_answer_names_how_far_the_reading_moves_the_law(monkeypatch, grid):
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    far = show.answer(_table(0.20, 0.40), grid, {})  # moves by -0.74 [-0.84, -0.64]: beyond -0.2
    near = show.answer(_table(0.50, 1.30), grid, {})  # moves by -0.14 [-0.54, +0.26]: cannot say
    assert "moves the exponent by -0.74 [-0.84, -0.64] (by more than 0.2: it moves the law)" in far
    assert "(inconclusive)." in near and "it moves the law" not in near


def test_the_recall_screen_reads_with_no_run_stored():
    """With no recall run stored, every reading still has its row (nothing measured), and the answer says so:
    B4 once failed to build there."""
    from emergence_lib.experiments.unsaid.runs import UnsaidRecall

    g = UnsaidRecall(scale="paper_cpu").grid
    table = read.recall_screen({}, g)
    assert list(table["reading"]) == list(g.readings) and table["speedup_ours"].isna().all()
    assert show.answer_recall(table, g, {}) == "The book's reading of recall is not run yet: nothing is judged."


def test_the_recall_speedup_is_steps_at_B1_over_steps_at_B4(monkeypatch):
    """From crossing steps alone: seeds at B = 1 take 4x the steps they take at B = 4 (up to a factor 1.1 either
    way), so the speed-up is about 4 with a finite interval; one seed that never crosses makes it undefined."""
    from types import SimpleNamespace

    from emergence_lib.experiments.unsaid.runs import UnsaidRecall

    g = UnsaidRecall(scale="paper_cpu").grid
    def fake(b4: list[float]) -> SimpleNamespace:
        rows = [{"B": 1, "seed": s, "steps to 50%": 4000.0} for s in g.seeds]
        rows += [{"B": 4, "seed": s, "steps to 50%": v} for s, v in zip(g.seeds, b4)]
        return SimpleNamespace(summary=pd.DataFrame(rows), table=pd.DataFrame(rows))
    monkeypatch.setattr(read, "crossing_table", lambda r: r.table)
    good = {"book": fake([1000.0, 1100.0, 909.1, 1000.0])}
    row = read.recall_screen(good, g).set_index("reading").loc["book"]
    assert abs(row["speedup_ours"] - 4.0) < 0.1 and row["speedup_low"] < 4.0 < row["speedup_high"]
    bad = {"book": fake([1000.0, 1100.0, float("nan"), 1000.0])}
    assert read.recall_screen(bad, g).set_index("reading").loc["book"][["speedup_ours", "speedup_low"]].isna().all()
