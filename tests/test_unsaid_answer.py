"""Chapter B4's answer and the landing page's Figure 3 reason count a reading only once all its runs, and its
baseline's, are stored, and use its registered verdict: two seeds of four once read as "recovers"."""

import pandas as pd
import pytest

from emergence_lib.experiments.unsaid import read, show
from emergence_lib.experiments.unsaid_recall import read as recall_read
from emergence_lib.experiments.unsaid_recall import show as recall_show
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


def test_a_complete_reading_is_named_by_its_registered_verdicts(monkeypatch, grid):
    """'Recovers' needs both registered verdicts to agree (issue 60 item 2): its exponent against 0.80, and its change
    from its baseline by more than 0.2 toward 0.80. Its own verdict alone once read as 'recovers'."""
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    both = show.answer(_table(0.60, 0.82), grid, {})  # 0.80 inside; moved by -0.33 [-0.44, -0.22]: beyond -0.2
    own_only = show.answer(_table(0.70, 0.90), grid, {})  # 0.80 inside; moved by -0.24 [-0.34, -0.14]: cannot say
    wide = show.answer(_table(0.50, 1.30), grid, {})  # 0.80 inside, but too wide to say: inconclusive
    assert "the book's reading in bfloat16 recovers it: 0.71 [0.60, 0.82]" in both
    assert "recovers it" not in own_only and "The one other reading judged does not recover it" in own_only
    assert "its change from its baseline, -0.24 [-0.34, -0.14], is inconclusive" in own_only
    assert "The one other reading judged does not recover it" in wide and "(inconclusive)" in wide
    assert "None of the 1" not in wide and "Of the 1 other readings" not in both  # one reading reads as English


def test_the_answer_names_how_far_the_reading_moves_the_law(monkeypatch, grid):
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    far = show.answer(_table(0.20, 0.40), grid, {})  # moves by -0.74 [-0.84, -0.64]: beyond -0.2
    near = show.answer(_table(0.50, 1.30), grid, {})  # moves by -0.14 [-0.54, +0.26]: cannot say
    assert "moves the exponent by -0.74 [-0.84, -0.64] (by more than 0.2: it moves the law)" in far
    assert "(inconclusive)." in near and "it moves the law" not in near


def test_the_recall_screen_reads_with_no_run_stored():
    """With no recall run stored, every reading still has its row (nothing measured), and the answer says so:
    B4 once failed to build there."""
    from emergence_lib.experiments.unsaid_recall.runs import UnsaidRecall

    g = UnsaidRecall(scale="paper_cpu").grid
    table = recall_read.recall_screen({}, g)
    assert list(table["reading"]) == list(g.readings) and table["speedup_ours"].isna().all()
    assert recall_show.answer_recall(table, g, {}) == "The book's reading of recall is not run yet: nothing is judged."


def test_the_recall_speedup_is_steps_at_B1_over_steps_at_B4(monkeypatch):
    """From crossing steps alone: seeds at B = 1 take 4x the steps they take at B = 4 (up to a factor 1.1 either
    way), so the speed-up is about 4 with a finite interval; one seed that never crosses makes it undefined."""
    from types import SimpleNamespace

    from emergence_lib.experiments.unsaid_recall.runs import UnsaidRecall

    g = UnsaidRecall(scale="paper_cpu").grid
    def fake(b4: list[float]) -> SimpleNamespace:
        rows = [{"B": 1, "seed": s, "steps to 50%": 4000.0} for s in g.seeds]
        rows += [{"B": 4, "seed": s, "steps to 50%": v} for s, v in zip(g.seeds, b4)]
        return SimpleNamespace(summary=pd.DataFrame(rows), table=pd.DataFrame(rows))
    monkeypatch.setattr(recall_read, "crossing_table", lambda r: r.table)
    good = {"book": fake([1000.0, 1100.0, 909.1, 1000.0])}
    row = recall_read.recall_screen(good, g).set_index("reading").loc["book"]
    assert abs(row["speedup_ours"] - 4.0) < 0.1 and row["speedup_low"] < 4.0 < row["speedup_high"]
    bad = {"book": fake([1000.0, 1100.0, float("nan"), 1000.0])}
    assert recall_read.recall_screen(bad, g).set_index("reading").loc["book"][["speedup_ours", "speedup_low"]].isna().all()


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
    from emergence_lib import host

    monkeypatch.setenv(host.RATES_ENV, "float32={float32},bfloat16={bfloat16}".format(**host.DEFAULT_RATES))  # priced as stored
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

    assert est([3600 * 8.44]).price() == "about 8.4 CPU-hours at the speed the stored runs ran, scaled to this host"
    assert est([3600 * 20, 3600 * 17.1]).price() == "about 37 CPU-hours at the speed the stored runs ran, scaled to this host"


def _two_movers() -> pd.DataFrame:
    """The book's reading and two readings that each move the exponent to about 0.15, a tie to the second decimal."""
    base = {"reading": "book", "what": "the book's reading (float32)", "exponent_ours": 1.04, "exponent_low": 0.78,
            "exponent_high": 1.30, "plateau_T256": 1300.0}
    rows = [base] + [{"reading": k, "what": w, "exponent_ours": 0.15, "exponent_low": -0.10, "exponent_high": 0.41,
                      "moves_ours": -0.88, "moves_low": -1.19, "moves_high": -0.58, "plateau_T256": p}
                     for k, w, p in (("positions_scaled", "positions scaled", 52.0),
                                     ("relevance_loud", "a louder relevance feature", 255.0))]
    return pd.DataFrame(rows)


def test_a_tie_names_every_reading_that_moves_the_law(monkeypatch, grid):
    """Two readings move the exponent by the same amount: the answer names both, never the first of a tie alone."""
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    monkeypatch.setattr(read, "baseline_of", lambda key: "book")
    text = show.answer(_two_movers(), grid, {})
    assert "Two readings move the exponent by more than 0.2: positions scaled" in text
    assert "a louder relevance feature, by -0.88" in text and "(its plateau at T = 256: 255 steps)" in text
    assert "against 1,300 for the book's reading (float32)" in text


def test_whose_says_the_exponent_depends_on_unstated_choices_only_when_one_moves_it(monkeypatch):
    monkeypatch.setattr(Unsaid, "cached", lambda self: ({}, 0, 0))
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    monkeypatch.setattr(read, "baseline_of", lambda key: "book")
    monkeypatch.setattr(read, "screen", lambda results, g: _two_movers())
    moved = show.whose()
    assert "two of two other readings" in moved and "depends on choices its text does not fix" in moved
    still = _two_movers().assign(moves_ours=lambda t: t["moves_ours"] * 0.0 + [float("nan"), 0.01, 0.0],
                                 moves_low=[float("nan"), -0.1, -0.1], moves_high=[float("nan"), 0.1, 0.1])
    monkeypatch.setattr(read, "screen", lambda results, g: still)
    quiet = show.whose()
    assert "none of two other readings" in quiet and "depends on" not in quiet


def test_the_landing_page_says_figure_3_in_kind_only_from_a_fresh_registered_fit(tmp_path):
    """From the claims this build logged: the first seeds alone (an estimator chosen after their data) say nothing;
    the fresh seeds' fit without (256, 64), registered before its data, speaks."""
    import json

    from emergence_lib.experiments.table1_joint.show import in_kind

    assert in_kind(str(tmp_path)) == ""

    def log(prefix, values, status):
        for q, v in zip(("d", "T", "B"), values):
            key = f"{prefix}.{q}_exponent"
            (tmp_path / f"{key}@paper_cpu.json").write_text(json.dumps(
                {"key": key, "scale": "paper_cpu", "ours": v, "status": status, "interval": [v - 0.2, v + 0.2]}))

    log("table1.joint.first_seeds", (1.35, 1.19, -1.19), "differs")
    assert in_kind(str(tmp_path)) == "", "a fit chosen after its data never speaks"
    log("table1.joint.fresh16", (1.30, 1.20, -1.20), "differs")
    text = in_kind(str(tmp_path))
    assert text.startswith("Figure 3's law holds in kind") and "without (256, 64)" in text
    assert "1.30, 1.20, −1.20 against 1.29, 0.80, −0.80" in text and "nearer" not in text


def test_the_marker_sentence_follows_the_louder_relevance_features_verdict(monkeypatch, grid):
    """The hypothesis that the marker's size moves the law is said to hold only where the relevance-alone reading's
    registered 'moves' claim agrees; within ±0.2 it is said to fail; runs to come say so."""
    monkeypatch.setattr(read, "baseline_of", lambda key: "book")
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    assert "is enough to move the law" in show.marker(_two_movers(), {}, grid)
    quiet = _two_movers()
    quiet.loc[quiet["reading"] == "relevance_loud", ["moves_ours", "moves_low", "moves_high"]] = [0.0, -0.1, 0.1]
    assert "does not move the law: the hypothesis fails" in show.marker(quiet, {}, grid)
    monkeypatch.setattr(read, "complete", lambda results, g, key: key != "relevance_loud")
    assert show.marker(_two_movers(), {}, grid) == "Not run yet."


def test_whose_recall_speaks_from_the_registered_verdicts_never_from_an_intervals_side(monkeypatch):
    """The landing page's recall sentence said 'both lower it' because each reading's interval over the book's lay
    below 1, a direction no registered verdict gives (the registered 'moves' verdicts: differs, inconclusive). It now
    says what the verdicts say; nothing is said until the book's reading and another are stored."""
    from emergence_lib.experiments.unsaid_recall.runs import UnsaidRecall

    def rows(high: float) -> pd.DataFrame:
        base = {"stored_B1": 4, "stored_B4": 4}
        return pd.DataFrame([
            {"reading": "book", "what": "the book's reading", "speedup_ours": 1.6, "speedup_low": 1.4, "speedup_high": 1.8, **base},
            {"reading": "zero_kept", "what": "z", "speedup_ours": 1.2, "speedup_low": 1.1, "speedup_high": 1.35,
             "moves_ours": 0.76, "moves_low": 0.67, "moves_high": 0.86, **base},
            {"reading": "literal", "what": "l", "speedup_ours": 1.0, "speedup_low": 0.8, "speedup_high": 1.24,
             "moves_ours": 0.63, "moves_low": 0.51, "moves_high": high, **base}])
    monkeypatch.setattr(UnsaidRecall, "cached", lambda self: ({}, 0, 0))
    monkeypatch.setattr(recall_read, "recall_complete", lambda results, g, key: True)
    for high in (0.77, 1.10):
        monkeypatch.setattr(recall_read, "recall_screen", lambda results, g: rows(high))
        text = recall_show.whose_recall()
        assert "lower" not in text and "neither of two other readings of a query with no occurrence is shown" in text, text
    monkeypatch.setattr(recall_read, "recall_complete", lambda results, g, key: key == "book")
    assert recall_show.whose_recall() == ""


def test_a_recall_verdict_on_the_edge_of_the_band_says_so(monkeypatch):
    """0.669 lies 0.003 (in log) above 1/1.5: its 'does not move it' verdict says it is on the edge; 0.60 does not."""
    from emergence_lib.experiments.unsaid_recall.runs import UnsaidRecall

    g = UnsaidRecall(scale="paper_cpu").grid
    monkeypatch.setattr(recall_read, "recall_complete", lambda results, grid, key: key in ("book", "zero_kept"))

    def table(low: float) -> pd.DataFrame:
        base = {"stored_B1": 4, "stored_B4": 4}
        return pd.DataFrame([
            {"reading": "book", "what": "b", "speedup_ours": 1.6, "speedup_low": 1.4, "speedup_high": 1.8, **base},
            {"reading": "zero_kept", "what": "z", "speedup_ours": 1.2, "speedup_low": 1.1, "speedup_high": 1.35,
             "moves_ours": 0.76, "moves_low": low, "moves_high": 0.86, **base}])
    assert "on the edge" in recall_show.answer_recall(table(0.669), g, {})
    assert "on the edge" not in recall_show.answer_recall(table(0.70), g, {})


def test_readings_that_remove_the_plateau_are_not_read_as_another_law(monkeypatch):
    """Issue 60 item 2: where the readings that move the exponent spend over half their plateau in the descent (the
    measure registered with the d = 16 screen), the landing sentence says they remove the plateau, not that the law
    depends on them; the same readings with a plateau left say it does."""
    monkeypatch.setattr(Unsaid, "cached", lambda self: ({}, 0, 0))
    monkeypatch.setattr(read, "complete", lambda results, g, key: True)
    monkeypatch.setattr(read, "baseline_of", lambda key: "book")
    gone = _two_movers().assign(descent_T256=[0.05, 0.6, 0.7])
    monkeypatch.setattr(read, "screen", lambda results, g: gone)
    text = show.whose()
    assert "remove the plateau rather than set another law" in text and "depends on choices" not in text
    assert "leave no plateau by the measure registered with the d = 16 screen" in text
    kept = _two_movers().assign(descent_T256=[0.05, 0.1, 0.2])
    monkeypatch.setattr(read, "screen", lambda results, g: kept)
    assert "depends on choices its text does not fix" in show.whose()
