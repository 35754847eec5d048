"""Every landing row measured away from the paper's points names them, with their price from stored speeds (issue 60
item 5): the length scaling, the row's words, and a price that never times a shape."""

from __future__ import annotations

import pytest

from emergence_lib import estimate, headlines, paper_point
from emergence_lib.configs import TransformerRecallConfig
from emergence_lib.estimate import shape_of

pytestmark = pytest.mark.unit
RECALL = dict(d_model=256, d_qk=64, n_layers=4, n_heads=4, lr=1e-4, max_steps=10_000, eval_size=512)


def test_a_longer_sequence_is_priced_by_the_ratio_of_lengths_from_the_longest_stored_one():
    short, longer = (TransformerRecallConfig(n_tokens=64, n_pairs=n, seed=0, **RECALL) for n in (8, 16))
    stored = {shape_of(short): (1.0, 3), shape_of(longer): (2.0, 4)}
    target = TransformerRecallConfig(n_tokens=256, n_pairs=32, B=4, seed=0, **RECALL)
    # 32 pairs are 65 tokens, 16 pairs 33: the longest stored sequence sets the rate, B and the width aside.
    assert paper_point.length_scaled(shape_of(target), stored) == (pytest.approx(2.0 * 65 / 33), 4)
    other_model = TransformerRecallConfig(n_tokens=256, n_pairs=32, seed=0, **(RECALL | {"n_layers": 2}))
    assert paper_point.length_scaled(shape_of(other_model), stored) is None, "another model is not priced from it"
    post = TransformerRecallConfig(n_tokens=256, n_pairs=32, seed=0, layer_norm="post", **RECALL)
    assert paper_point.length_scaled(shape_of(post), stored) is not None, "LayerNorm's placement costs the same"


def test_every_row_measured_away_from_the_papers_points_has_them_priced_and_no_other():
    away = {h.key for h in headlines.HEADLINES if h.where}
    assert away == set(paper_point.PAPER_POINTS)
    for h in headlines.HEADLINES:
        if h.where:
            assert "the paper:" in h.where, h.key


def test_a_rows_words_carry_its_price_inside_the_papers_parenthesis():
    h = next(h for h in headlines.HEADLINES if h.key == "recall_t1.figure5.in_context_speedup")
    price = "12 more runs, about 1,700 CPU-hours here"
    assert headlines.where_text(h, {h.key: price}) == (
        f"Measured at 64 tokens and 8 pairs (the paper: 256 and 32; {price}).")
    assert headlines.where_text(h) == "Measured at 64 tokens and 8 pairs (the paper: 256 and 32)."
    row = next(r for r in headlines.headline_rows(prices={h.key: price}) if r["key"] == h.key)
    assert price in row["Verdict, and why"]


def test_a_price_reads_stored_runs_and_never_times_a_shape(monkeypatch):
    def no_timing(run):
        raise AssertionError("a page priced a shape by timing it")

    monkeypatch.setattr(estimate, "time_shape", no_timing)
    paper_point._price.cache_clear()
    words = paper_point.price_words("recall_t1.figure5.in_context_speedup")
    # data/ holds no run at the paper's point (256 tokens, 32 pairs): the 12 runs of Figure 5's B sweep are priced.
    assert words.startswith("12 more runs, about ") and words.endswith(" CPU-hours here"), words
    hours = float(words.split("about ")[1].split(" ")[0].replace(",", ""))
    assert hours == float(f"{paper_point.price('recall_t1.figure5.in_context_speedup').expected_hours:.2g}")
    e = paper_point.price("recall_t1.figure5.in_context_speedup")
    assert set(e.table["s_per_step_from"]) != {"timed"}
    # Each run trains its budget (Figure 5's runs train a fixed number of steps): 150,000 at the paper scale.
    assert (e.table["expected_steps"] == 150_000).all()


def test_rows_in_a_run_that_share_a_point_say_it_once():
    """The landing page holds three screens: Figure 5's three rows (and Figure 3's) name their point on the first."""
    prices = {k: "12 more runs, about 1,700 CPU-hours here" for k in paper_point.PAPER_POINTS}
    rows = {r["key"]: r["Verdict, and why"] for r in headlines.headline_rows(prices=prices)}
    first, *rest = ("recall_t1.figure5.in_context_speedup", "recall_t1.figure5.cross_sample_speedup",
                    "recall_t1.figure5.overfitting")
    assert "Measured at 64 tokens and 8 pairs" in rows[first]
    assert all(rows[k].endswith("Measured as above.") for k in rest)
    assert "Measured at 32–256 tokens and 4–8 pairs" in rows["recall_t1.figure4.layernorm"], "another point: said"
