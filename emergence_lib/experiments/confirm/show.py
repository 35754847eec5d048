"""The fresh-seed confirmations in chapters 03 (Figure 3's law) and 04 (Figure 5's speed-ups): read from ``data/``
only (`runs.Confirm` runs in the background), each registered claim judged once every run it reads is stored."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd

from ... import claims
from ...report import format_number, glue_text
from ..context import Context
from . import read
from .runs import Confirm


def _stored() -> tuple[dict, dict[str, tuple[int, int]]]:
    figure = Confirm(scale="cpu")
    results, _, _ = figure.cached()
    return results, {k: (len(results[k].summary), len(v)) for k, v in figure.sweeps().items()}


VERB = {"agrees": "agrees with", "differs": "differs from", "inconclusive": "is too wide to tell from",
        "smoke": "(smoke: not judged against)"}


def beside_the_pins(checked: list[claims.ClaimResult], pins: dict[str, tuple[str, str]], have: int, need: int) -> str:
    """One sentence per fresh-seed verdict, beside the pin it checks (``pins``: fresh key → (pinned key, a plain-text
    label: glued text renders no maths)): the fresh value and status from these seeds, the pin's expected status
    from the registry. Generated, never typed."""
    if not checked:
        return "Not judged yet: the fresh seeds are not all run." if have < need else "Not judged."
    parts = []
    for r in checked:
        key, label = pins[r.claim.key]
        parts.append(f"{label}: {r.ours_text} on the fresh seeds, which {VERB[r.status]} the paper's "
                     f"{r.claim.paper}; the pin on the original seeds expects {claims.claim(key).expected!r}.")
    return " ".join(parts)


def lack_of_fit_sentence(lof: dict) -> str:
    """What the lack-of-fit test on the fresh seeds says, from its numbers (generated, never typed)."""
    if not lof or not math.isfinite(lof["F"]):
        return "The lack-of-fit test needs at least two seeds at more points than the law has parameters: not yet."
    numbers = f"F = {lof['F']:.1f} on ({lof['df_lack']:.0f}, {lof['df_pure']:.0f}) degrees of freedom, p = " \
              f"{format_number(lof['p'], '.2g')}"
    verdict = ("The law misfits the fresh seeds' points by more than the seeds scatter" if lof["p"] < 0.05 else
               "The lack-of-fit test does not reject the law on the fresh seeds")
    return (f"{verdict} ({numbers}). The fit above takes each point's mean once, and its intervals use the fit's "
            "residual degrees of freedom, never the seeds as points.")


def figure5(ctx: Context) -> SimpleNamespace:
    """Figure 5's two speed-ups on fresh seeds (glued into chapter 04's claims table)."""
    results, done = _stored()
    have, need = done["figure5"]
    checked, rows = [], []
    for by, name in (("B", "in_context_speedup"), ("p", "cross_sample_speedup")):
        row = read.figure5_speedup(results["figure5"], by)
        rows.append({"repetition": by, **row})
        if have == need:  # judged; a seed that never crossed leaves no interval: inconclusive
            checked.append(ctx.record(f"confirm.figure5.{name}", row["ours"], interval=(row["low"], row["high"])))
        else:
            claims.record_not_run(f"confirm.figure5.{name}", "not run yet")
    g = Confirm(scale="cpu").grid
    pins = {"confirm.figure5.in_context_speedup": ("figure5.in_context_speedup", f"The in-context speed-up at B = {g.fig5_B}"),
            "confirm.figure5.cross_sample_speedup": ("figure5.cross_sample_speedup", f"The cross-sample speed-up at p = {g.fig5_p}")}
    glue_text("confirm5_sentence", beside_the_pins(checked, pins, have, need))
    return SimpleNamespace(table=pd.DataFrame(rows), checked=checked)


def figure3(ctx: Context) -> SimpleNamespace:
    """The laptop Figure 3 law on fresh seeds, fitted to point means (glued into chapter 03's claims table)."""
    results, done = _stored()
    have, need = done["figure3"]
    fit = read.figure3_law(results["figure3"])
    lof = read.figure3_lack_of_fit(results["figure3"]) if have else {}
    glue_text("confirm3_lack_of_fit", lack_of_fit_sentence(lof))
    checked = []
    for k in ("d", "T", "B"):
        row = fit[fit["quantity"] == k]
        if have == need:  # judged; a fit with too few points leaves no interval: inconclusive
            v = [float(row[c].iloc[0]) if len(row) else math.nan for c in ("ours", "low", "high")]
            checked.append(ctx.record(f"confirm.figure3.{k}_exponent", v[0], interval=(v[1], v[2])))
        else:
            claims.record_not_run(f"confirm.figure3.{k}_exponent", "not run yet")
    pins = {f"confirm.figure3.{k}_exponent": (f"figure3.{k}_exponent", f"The exponent of {k}") for k in ("d", "T", "B")}
    glue_text("confirm3_sentence", beside_the_pins(checked, pins, have, need))
    return SimpleNamespace(fit=fit, checked=checked, lack_of_fit=lof)
