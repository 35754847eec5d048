"""The fresh-seed confirmations in chapters 03 (Figure 3's law) and 04 (Figure 5's speed-ups): read from ``data/``
only (`runs.Confirm` runs in the background), each registered claim judged once every run it reads is stored."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd

from ... import claims
from ..context import Context
from . import read
from .runs import Confirm


def _stored() -> tuple[dict, dict[str, tuple[int, int]]]:
    figure = Confirm(scale="cpu")
    results, _, _ = figure.cached()
    return results, {k: (len(results[k].summary), len(v)) for k, v in figure.sweeps().items()}


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
            claims.record_not_run(f"confirm.figure5.{name}", f"not run yet ({have} of {need} runs)")
    return SimpleNamespace(table=pd.DataFrame(rows), checked=checked)


def figure3(ctx: Context) -> SimpleNamespace:
    """The laptop Figure 3 law on fresh seeds, fitted to point means (glued into chapter 03's claims table)."""
    results, done = _stored()
    have, need = done["figure3"]
    fit = read.figure3_law(results["figure3"])
    checked = []
    for k in ("d", "T", "B"):
        row = fit[fit["quantity"] == k]
        if have == need:  # judged; a fit with too few points leaves no interval: inconclusive
            v = [float(row[c].iloc[0]) if len(row) else math.nan for c in ("ours", "low", "high")]
            checked.append(ctx.record(f"confirm.figure3.{k}_exponent", v[0], interval=(v[1], v[2])))
        else:
            claims.record_not_run(f"confirm.figure3.{k}_exponent", f"not run yet ({have} of {need} runs)")
    return SimpleNamespace(fit=fit, checked=checked)
