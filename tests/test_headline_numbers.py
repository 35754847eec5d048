"""The one-number check (`headline_numbers`, issue 60 item 3) fails on what it guards: an unlabelled other value of a
headline quantity, the caption chapter 04 printed (2.9× for the small model, unnamed), and passes a labelled one."""

from __future__ import annotations

import pytest

from headline_numbers import offending

pytestmark = pytest.mark.unit
LOGGED = {"table1.joint.fresh.T_exponent": ({"ours": 1.03, "interval": [0.78, 1.29]}, 0.80, ".2f"),
          "recall_t1.figure5.in_context_speedup": ({"ours": 1.67, "interval": [1.4, 2.0]}, 4.0, ".2f")}


def page(*paragraphs: str) -> str:
    return "<html><body><main>" + "".join(f"<p>{p}</p>" for p in paragraphs) + "</main></body></html>"


def test_an_unlabelled_other_value_is_found_and_a_labelled_one_is_not():
    found = offending("x.html", page("The T exponent is 1.19 [1.02, 1.36] against the paper's 0.80."), LOGGED)
    assert [f.number for f in found] == ["1.19", "1.02", "1.36"]
    assert not offending("x.html", page("On the first seeds the T exponent is 1.19 [1.02, 1.36]."), LOGGED)
    assert not offending("x.html", page("The T exponent is 1.03 [0.78, 1.29], against the paper's 0.80."), LOGGED)


def test_chapter_04s_old_caption_is_found_and_its_new_one_is_not():
    old = "The largest speed-ups of emergence are 2.9 × for B (paper ≈ 4×) and 1.3 × for p (paper ≈ 2×)."
    assert {f.number for f in offending("c.html", page(old), LOGGED)} == {"2.9", "1.3"}
    new = old.replace("The largest", "The small model's largest")
    assert not offending("c.html", page(new), LOGGED)


def test_code_and_tables_are_not_prose():
    html = ("<html><body><main><div class='cell_input'><p>The T exponent is 9.99.</p></div><table><tr><td>The T "
            "exponent is 9.99.</td></tr></table></main></body></html>")
    assert not offending("x.html", html, LOGGED)
