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


def test_a_reading_not_run_yet_carries_its_price(monkeypatch, grid):
    monkeypatch.setattr(read, "complete", lambda results, g, key: key == "book")
    text = show.answer(_table(0.70, 0.90), grid, {}, {"init_gpt2": " (about 8.4 CPU-hours at the speed the stored runs ran)"})
    assert "GPT-2's initialisation (about 8.4 CPU-hours at the speed the stored runs ran)" in text, text


def test_a_figure_prices_its_missing_runs_from_the_store_and_never_times_a_shape(tmp_path, monkeypatch):
    """`Figure.price` reads what stored runs of a shape took; a shape with none stored is not timed (a chapter
    computes nothing) and leaves the reading unpriced."""
    import json

    from emergence_lib import estimate
    from emergence_lib.cache import ResultCache
    from emergence_lib.experiments import base

    def never(run):
        raise AssertionError("a chapter timed a shape")

    monkeypatch.setattr(estimate, "time_shape", never)
    fig = Unsaid(scale="paper_cpu")
    cache = ResultCache(tmp_path)
    monkeypatch.setattr(base, "cache_for", lambda scale: cache)
    runs = fig.sweeps()["init_gpt2"]
    assert fig.price(runs) is None, "no stored run of either shape: unpriced, and nothing timed"
    done = [r for r in runs if r.T == 64]
    law = estimate.law_steps(done[0])
    for r in done:  # the reading's T = 64 seeds, 45x the law, at 0.09 s a step
        path = cache.path(r)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"meta": {"device": "cpu"}}))
    monkeypatch.setattr(cache, "load", lambda r: type("R", (), {"summary": {
        "plateau_length": 45 * law, "seconds": 0.09 * 50 * law, "steps_run": int(50 * law)}})()
                        if r in done else None)
    assert fig.price(runs) is None, "T = 256 has no stored run: unpriced"
    shape = estimate.shape_of(next(r for r in runs if r.T == 256))  # another reading's T = 256 runs, same shape
    long_ = [r for k, rs in fig.sweeps().items() if k != "init_gpt2" for r in rs if estimate.shape_of(r) == shape]
    for r in long_:
        cache.path(r).write_text(json.dumps({"meta": {"device": "cpu"}}))
    monkeypatch.setattr(cache, "load", lambda r: type("R", (), {"summary": {
        "plateau_length": 45 * law if r in done else 1.5 * estimate.law_steps(r),
        "seconds": 0.36 * 1000, "steps_run": 1000} if r in long_ else {
        "plateau_length": 45 * law, "seconds": 0.09 * 50 * law, "steps_run": int(50 * law)}})()
                        if r in done or r in long_ else None)
    est = fig.price(runs)
    assert est is not None and len(est.table) == 4, "the reading's four T = 256 seeds"
    assert est.bound_hours == pytest.approx(4 * runs[0].max_steps * 0.36 / 3600)
    assert est.expected_hours == pytest.approx(est.bound_hours), "45x the law runs every step of its budget"


def test_a_price_reads_in_hours_a_reader_can_use():
    from emergence_lib.estimate import Estimate

    def est(seconds: list[float]) -> Estimate:
        return Estimate(pd.DataFrame({"expected_s": seconds, "bound_s": [4 * s for s in seconds]}))

    assert est([3600 * 8.44]).price() == "about 8.4 CPU-hours at the speed the stored runs ran"
    assert est([3600 * 20, 3600 * 17.1]).price() == "about 37 CPU-hours at the speed the stored runs ran"
