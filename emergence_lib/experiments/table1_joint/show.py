"""What chapter 03 shows of the joint fit: the registered claims judged where their runs are stored, and a table."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from ... import claims
from ...report import glue_text
from ..context import Context
from . import read
from .runs import FRESH_GRIDS

SHORT_FIRST = "seeds 0-2, T ≤ 128 (after the data; beside, not judged)"


def joint_fits(ctx: Context) -> SimpleNamespace:
    """Judge the registered joint fits whose runs are stored; the others say how many runs they wait for."""
    if ctx.scale == "smoke":
        glue_text("t1j_runs", "none at smoke scale")
        glue_text("fig3_answer", "Not judged at smoke scale.")
        return SimpleNamespace(table=pd.DataFrame(), checked=[])
    fresh, have, need = read.fresh_summary()
    glue_text("t1j_runs", f"{have} of {need}")
    n = len(FRESH_GRIDS["paper_cpu"].seeds)
    rows: list[dict] = []
    checked = []
    for r in read.fit_rows(read.first_summary(), read.POINTS, ("d", "T", "B"), "seeds 0-2 (estimator chosen after their data)"):
        rows.append(r)
        checked.append(claims.record(f"table1.joint.first_seeds.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                     interval=(r["low"], r["high"])))
    if read.stored_at(fresh, read.SHORT) < n * len(read.SHORT):
        for q in ("d", "T"):
            claims.record_not_run(f"table1.joint.fresh_short.{q}_exponent", needs(fresh, read.SHORT, n))
    else:
        for r in read.fit_rows(fresh, read.SHORT, ("d", "T"), "seeds 5-6, T ≤ 128 (fresh)"):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh_short.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
        # Like with like, beside and never judged: the first seeds through the same estimator at the same points.
        rows += read.fit_rows(read.first_summary(), read.SHORT, ("d", "T"), SHORT_FIRST)
    if read.stored_at(fresh, read.POINTS) < n * len(read.POINTS):
        for q in ("d", "T", "B"):
            claims.record_not_run(f"table1.joint.fresh.{q}_exponent", needs(fresh, read.POINTS, n))
    else:
        for r in read.fit_rows(fresh, read.POINTS, ("d", "T", "B"), "seeds 5-6 (fresh)"):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
    glue_text("fig3_answer", answer(rows, checked, needs(fresh, read.POINTS, n)))
    return SimpleNamespace(table=pd.DataFrame(rows), checked=checked)


def needs(summary: pd.DataFrame, points: list[tuple[int, int, int]], n_seeds: int) -> str:
    """What a fit that is not run yet waits for, by the lengths T of its points whose seeds are not all stored: what
    is missing, never how far the runs have got."""
    missing = sorted({T for T, d, B in points if read.seeds_done(summary, T, d, B) < n_seeds})
    return "not run yet: it needs its points at T = " + ", ".join(map(str, missing)) if missing else "not run yet"


def answer(rows: list[dict], checked: list, waiting: str) -> str:
    """Chapter 3's answer in a sentence or two, generated from the joint fits judged in this build (``waiting``: what
    the whole grid's fit on fresh seeds waits for, while it does)."""
    status = {r.claim.key: r.status for r in checked}

    def said(prefix: str, label: str) -> str:
        parts = [f"{r['exponent']} {r['ours']:.2f} against {r['paper']:.2f} "
                 f"({status.get(prefix + '.' + r['exponent'] + '_exponent', 'not judged')})"
                 for r in rows if r["seeds"] == label]
        return ", ".join(parts).replace("-", "−")

    fresh = [r for r in rows if r["seeds"] == "seeds 5-6 (fresh)"]
    first = said("table1.joint.first_seeds", "seeds 0-2 (estimator chosen after their data)")
    short = said("table1.joint.fresh_short", "seeds 5-6, T ≤ 128 (fresh)")
    head = ("One joint fit over the paper's grid, on fresh seeds: " + said("table1.joint.fresh", "seeds 5-6 (fresh)")
            + "." if fresh else f"One joint fit over the paper's grid, on fresh seeds: {waiting}.")
    if short and not fresh:
        head += f" Up to T = 128 at B = 1, on the same fresh seeds: {short}"
        same = [f"{r['exponent']} {r['ours']:.2f}" for r in rows if r["seeds"] == SHORT_FIRST]
        head += f"; the first seeds at the same points give {', '.join(same)}." if same else "."
    return head + (f" On the first seeds (the estimator chosen after their data): {first}." if first else "")


def _span(rows: list[dict]) -> str:
    vals = [r["ours"] for r in rows if r["ours"] == r["ours"]]
    if not vals:
        return "not stored yet"
    lo, hi = min(vals), max(vals)
    return f"{lo:.2f}" if round(lo, 2) == round(hi, 2) else f"{lo:.2f}–{hi:.2f}"


def facts() -> dict[str, str]:
    """The computed phrases the landing page's reasons paste (`headlines`), from the stored runs: where the local
    exponents of Table 1's model bend, and how close to chance the paper's 5% recall threshold sits."""
    from ..recall_table1.runs import RECALL_MEASURED_GRIDS
    from ..table1.read import local_d_exponent, local_T_exponent, stored_summaries
    from ..unsaid.show import why_line, why_line_recall

    summary = stored_summaries()[0]
    short = [local_T_exponent(summary, d, 32, 64) for d in (16, 32)]
    long_ = [local_T_exponent(summary, d, T0, T1) for d in (16, 32) for T0, T1 in ((128, 192), (192, 256))]
    low, high = local_d_exponent(summary, 256, 16, 32), local_d_exponent(summary, 256, 32, 64)
    tokens = min(RECALL_MEASURED_GRIDS["paper_cpu"].n_tokens)
    return {
        "T_local": f"the local T exponent is {_span(short)} from T = 32 to 64, {_span(long_)} from 128 to 256",
        "d_bend": f"at T = 256 the local d exponent is {low['ours']:.2f} (d = 16 → 32) and {high['ours']:.2f} (32 → 64)"
                  + (": it bends upward" if high["low"] > low["high"] else ""),
        "chance": f"chance is {1 / tokens:.1%} at {tokens} tokens",
        "unsaid": why_line(),
        "unsaid_recall": why_line_recall(),
    }
