"""The runs browser's data (`run_index`): every stored run of its figures once, with its stored plateau."""

import json

import numpy as np
import pytest

from emergence_lib import run_index
from emergence_lib.cache import ResultCache, run_key
from emergence_lib.experiments import figures
from emergence_lib.results import RunResult


@pytest.mark.integration  # it trains or reads every stored run: the integration tier
def test_every_stored_transformer_run_of_every_figure_is_present_once_with_its_plateau():
    """The browser said "every stored run" and left out Table 1's recall runs (95) and the width-256 ablations (129)."""
    from emergence_lib.configs import SCALES

    data = run_index.index()
    by_key = {r["key"]: r for r in data["runs"]}
    assert len(by_key) == len(data["runs"]), "each run once"
    cache = ResultCache()
    expected, members = {}, {}
    for name, cls in figures().items():
        for scale in [s for s in SCALES[1:] if cls.has_scale(s)]:
            for c in cls(scale=scale).runs():
                if c.kind.startswith("transformer") and cache.path(c).is_file():
                    expected[run_key(c)] = c
                    members.setdefault(run_key(c), set()).add(run_index.label(name, scale))
    assert set(by_key) == set(expected)
    for key, c in expected.items():
        stored = json.loads(cache.path(c).read_text())["summary"]
        value = stored.get("plateau_length", stored.get("emergence_step"))
        got = by_key[key]["value"]
        assert (got is None and not np.isfinite(value)) or got == value, key
        assert len(by_key[key]["curve"]) <= run_index.CURVE_POINTS + 1
        assert {data["figures"][i] for i in by_key[key]["figures"]} == members[key]
    on_disk = {p.stem for kind in ("transformer_regression", "transformer_recall") for p in (cache.root / kind).glob("*.json")}
    assert data["unlisted"] == len(on_disk - set(by_key)), "what is not listed is counted on the page"


@pytest.mark.integration  # it trains or reads every stored run: the integration tier
def test_no_ratio_is_taken_against_a_law_fitted_at_another_threshold():
    """Cross-sample plateaus (read at loss 0.4) were divided by the p = 0 law (loss 0.1): p = 0.4 runs read as 4–14×
    faster than the law."""
    runs = run_index.index()["runs"]
    assert any(r["law"] is not None for r in runs)
    for r in runs:
        paper_setting = r["p"] == 0 and r["threshold"] == (0.1 if r["kind"] == "transformer_regression" else 0.05)
        if not paper_setting:
            assert r["law"] is None and r["ratio"] is None, r["key"]
    cross = [r for r in runs if r["p"] > 0 and r["kind"] == "transformer_regression"]
    assert cross and all(r["ratio"] is None for r in cross)


def test_the_index_is_a_script_of_plain_json(tmp_path):
    """A run that never crossed is kept, with no value (JSON has no infinity); the file is a script."""
    store = tmp_path / "data"
    cache = ResultCache(store)
    fig = figures()["figure3"](scale="cpu")
    c = fig.runs()[0]
    steps = np.array([0.0, 1, 10, 100, 1000])
    cache.save(c, RunResult(summary={"plateau_length": float("inf"), "reached": False, "status": "not_reached",
                                     "measured_on": "no_repetition"},
                            curve={"step": steps, "loss_no_repetition": np.full(5, 0.5)}))
    path = tmp_path / "stored_runs.js"
    assert run_index.write_script(path, store) == 1
    text = path.read_text()
    assert text.startswith("window.STORED_RUNS = ") and text.rstrip().endswith(";")
    data = json.loads(text[len("window.STORED_RUNS = "):].rstrip().rstrip(";"))
    run = data["runs"][0]
    assert run["value"] is None and run["ratio"] is None and run["status"] == "not reached by its last step"
    assert run["law"] == pytest.approx(0.76 * c.d ** 1.29 * c.T ** 0.8 * c.B ** -0.8)
    assert [p[0] for p in run["curve"]] == [1.0, 10.0, 100.0, 1000.0], "step 0 is off a log axis"


def test_downsampling_keeps_the_ends_and_thins_on_a_log_grid():
    steps = np.arange(0, 50_001, dtype=float)
    values = np.linspace(0.5, 0.0, len(steps))
    pts = run_index._downsample(steps, values)
    assert pts[0][0] == 1.0 and pts[-1][0] == 50_000.0 and len(pts) <= run_index.CURVE_POINTS
    ratios = np.diff(np.log([p[0] for p in pts]))
    assert ratios.max() < 3 * np.median(ratios), "about evenly spaced in log step"


@pytest.mark.parametrize("curve", [{"step": [0.0, 1.0, 2.0], "loss_train_distribution": [0.5, 0.4, 0.05]},
                                   {"step": [0.0, 0.0, 0.0], "loss_no_repetition": [0.5, 0.4, 0.05]}])
def test_a_record_the_browser_cannot_draw_is_skipped_in_one_line(tmp_path, capsys, curve):
    """Issue 62 item 7: a record without its measured loss column raised IndexError at the end of the book build; one
    whose steps are all 0 was listed with an empty curve."""
    from emergence_lib.configs import TransformerRegressionConfig

    c = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=120, seed=0)
    cache = ResultCache(tmp_path)
    summary = {"plateau_length": 2.0, "reached": True, "status": "crossed", "measured_on": "no_repetition",
               "steps_run": 3, "final_time": 2.0, "final_loss": 0.05, "initial_loss": 0.5, "seconds": 1.0}
    try:
        cache.save(c, RunResult(summary=summary, curve={k: np.asarray(v) for k, v in curve.items()}))
    except Exception as exc:  # the schema refuses it: nothing reaches the browser
        pytest.skip(f"the store refuses this record: {exc}")
    assert run_index._entry(c, cache, "T") is None
    err = capsys.readouterr().err
    assert "skipped" in err and run_key(c) in err and len(err.strip().splitlines()) == 1
