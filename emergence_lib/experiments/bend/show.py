"""What chapters 03 and B4 show of the shape of Figure 3's law: the registered collapse, bend and 16-point joint fit
on fresh seeds (`claims.bend`), and the d = 16 screen of unstated choices, each judged once its runs are stored and
otherwise named as not run yet, with its price."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from ... import claims
from ...report import glue_text
from ..context import Context
from ..table1_joint import read as joint_read
from ..table1_joint.show import needs
from . import read
from .runs import (BEND_SEGMENTS, COLLAPSE_CELLS, SCREEN_GRIDS, SCREEN_READINGS, Screen16, bend_weights,
                   collapse_points)

SEEDS = 2  # the fresh seeds 5 and 6


def shape(ctx: Context) -> SimpleNamespace:
    """Judge the collapse and the bend per d where their fresh runs are stored (the fit without (256, 64) is judged
    with the other joint fits, `table1_joint.show.joint_fits`)."""
    if ctx.scale == "smoke":
        return SimpleNamespace(checked=[], cells=pd.DataFrame(), bends=pd.DataFrame(), summary=pd.DataFrame())
    fresh = joint_read.fresh_summary()[0]
    checked = []
    cells = [p for d, B in COLLAPSE_CELLS for p in collapse_points(d, B)]
    if read.complete(fresh, cells, SEEDS):
        c = read.collapse(fresh)
        checked.append(claims.record("table1.collapse.T_over_B", c["ours"], "paper_cpu", interval=(c["low"], c["high"])))
    else:
        claims.record_not_run("table1.collapse.T_over_B", needs(fresh, cells, SEEDS))
    bends = []
    for d in BEND_SEGMENTS:
        points = list(bend_weights(d))
        if read.complete(fresh, points, SEEDS):
            b = read.bend(fresh, d)
            bends.append(b)
            checked.append(claims.record(f"table1.bend.d{d}", b["ours"], "paper_cpu", interval=(b["low"], b["high"])))
        else:
            claims.record_not_run(f"table1.bend.d{d}", needs(fresh, points, SEEDS))
    return SimpleNamespace(checked=checked, cells=read.collapse_cells(fresh), bends=pd.DataFrame(bends), summary=fresh)


# ---- Chapter B4: the d = 16 screen, judged per reading once its runs and the book's are all stored.
QUANTITIES = ("bend", "straightens", "T_exponent", "T_moves")


def screen_summaries() -> tuple[dict[str, pd.DataFrame], dict, int, int]:
    """The screen's stored runs by reading (the book's with its seeds stored in Figure 3's runs), the sweeps' results
    (their curves, for the descent's share), and (runs stored, runs registered) of the screen's own sweeps."""
    from ..table1.read import stored_summaries

    results, have, need = Screen16(scale="paper_cpu").cached()
    g = SCREEN_GRIDS["paper_cpu"]
    by = {k: r.summary for k, r in results.items()}
    first = stored_summaries()[0]
    first = first[first["seed"].isin(g.seeds) & (first["d"] == g.d) & (first["B"] == 1) & first["T"].isin(g.T)]
    by["book"] = pd.concat([f for f in (first, by.get("book")) if f is not None and len(f)]).drop_duplicates("run")
    return by, results, have, need


def screen16(ctx: Context) -> SimpleNamespace:
    """Judge each reading of the d = 16 screen whose runs, and the book's, are all stored; the rest say what they
    wait for, with its price."""
    g = SCREEN_GRIDS["paper_cpu"]
    if ctx.scale == "smoke":
        glue_text("screen16_runs", "none at smoke scale")
        return SimpleNamespace(checked=[], table=pd.DataFrame(), grid=g)
    by, _, have, need = screen_summaries()
    glue_text("screen16_runs", f"{have} of {need}")
    want = len(g.T) * len(g.seeds)
    stored = {k: len(by.get(k, [])) for k, _, _ in SCREEN_READINGS}
    book = read.per_seed(read.seed_logs(by["book"], g.d, g.T)) if stored["book"] >= want else None
    cost = Screen16(scale="paper_cpu").price()
    waiting = f"not run yet ({have} of {need} runs stored" + (f"; {cost.price()}" if cost else "") + ")"
    checked, rows = [], []
    if book is not None:
        for q in ("bend", "T_exponent"):
            r = read.over_seeds(book[q])
            checked.append(claims.record(f"screen16.book.{q}", r["ours"], "paper_cpu", interval=(r["low"], r["high"])))
    else:
        for q in ("bend", "T_exponent"):
            claims.record_not_run(f"screen16.book.{q}", waiting)
    for key, what, _ in SCREEN_READINGS[1:]:
        if book is None or stored[key] < want:
            for q in QUANTITIES:
                claims.record_not_run(f"screen16.{key}.{q}", waiting)
            continue
        got = read.screen_quantities(read.per_seed(read.seed_logs(by[key], g.d, g.T)), book)
        for q in QUANTITIES:
            r = got[q]
            checked.append(claims.record(f"screen16.{key}.{q}", r["ours"], "paper_cpu", interval=(r["low"], r["high"])))
        rows.append({"reading": what} | {q: got[q]["ours"] for q in QUANTITIES})
    return SimpleNamespace(checked=checked, table=pd.DataFrame(rows), grid=g)
