"""What chapter 03 shows of the joint fit: the registered claims judged where their runs are stored, and a table."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pandas as pd

from ... import claims
from ...claims import REGISTRY
from ...claims.judging import CLAIMS_LOG_ENV
from ...scorecard import logged_entry
from ...report import glue_text, minus_signs
from ..context import Context
from . import read
from ..table1.runs import Figure3Measured
from .runs import FRESH_GRIDS, Figure3Fresh

FIRST = "seeds 0-2 (estimator chosen after their data)"
FRESH = "seeds 5-6 (fresh)"
SHORT_FRESH = "seeds 5-6, T ≤ 128 (fresh)"
SHORT_FIRST = "seeds 0-2, T ≤ 128 (after the data; beside, not judged)"
FRESH16 = "seeds 5-6, without (256, 64) (fresh)"


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
    for r in read.fit_rows(read.first_summary(), read.POINTS, ("d", "T", "B"), FIRST):
        rows.append(r)
        checked.append(claims.record(f"table1.joint.first_seeds.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                     interval=(r["low"], r["high"])))
    if read.stored_at(fresh, read.SHORT) < n * len(read.SHORT):
        for q in ("d", "T"):
            claims.record_not_run(f"table1.joint.fresh_short.{q}_exponent", needs(fresh, read.SHORT, n))
    else:
        for r in read.fit_rows(fresh, read.SHORT, ("d", "T"), SHORT_FRESH):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh_short.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
        # Like with like, beside and never judged: the first seeds through the same estimator at the same points.
        rows += read.fit_rows(read.first_summary(), read.SHORT, ("d", "T"), SHORT_FIRST)
    if read.stored_at(fresh, read.POINTS16) < n * len(read.POINTS16):
        for q in ("d", "T", "B"):
            claims.record_not_run(f"table1.joint.fresh16.{q}_exponent", needs(fresh, read.POINTS16, n))
    else:  # the 16 points without (256, 64, 1), registered with the shape of the law (claims.bend)
        for r in read.fit_rows(fresh, read.POINTS16, ("d", "T", "B"), FRESH16):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh16.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
    if read.stored_at(fresh, read.POINTS) < n * len(read.POINTS):
        for q in ("d", "T", "B"):
            claims.record_not_run(f"table1.joint.fresh.{q}_exponent", needs(fresh, read.POINTS, n))
    else:
        for r in read.fit_rows(fresh, read.POINTS, ("d", "T", "B"), FRESH):
            rows.append(r)
            checked.append(claims.record(f"table1.joint.fresh.{r['exponent']}_exponent", r["ours"], "paper_cpu",
                                         interval=(r["low"], r["high"])))
    # What is left, priced from the stored runs at the same points (the first seeds'), never timed here.
    cost = Figure3Fresh(scale="paper_cpu").price(reference=[Figure3Measured(scale="paper_cpu")])
    glue_text("fig3_answer", answer(rows, checked, needs(fresh, read.POINTS, n) + (f" ({cost.price()})" if cost else "")))
    return SimpleNamespace(table=pd.DataFrame(rows), checked=checked)


def needs(summary: pd.DataFrame, points: list[tuple[int, int, int]], n_seeds: int) -> str:
    """What a fit that is not run yet waits for, by the lengths T of its points whose seeds are not all stored: what
    is missing, never how far the runs have got."""
    missing = sorted({T for T, d, B in points if read.seeds_done(summary, T, d, B) < n_seeds})
    return "not run yet: it needs its points at T = " + ", ".join(map(str, missing)) if missing else "not run yet"


def answer(rows: list[dict], checked: list, waiting: str) -> str:
    """Chapter 3's answer, generated from the joint fits judged in this build. Words (does the plateau move with d, T
    and B as the paper says, faster or more slowly) come only from fits registered before their data on fresh seeds:
    the whole grid, else the 16 points without (256, 64). The first seeds' fit, an estimator chosen after their data,
    is a labelled diagnostic: its numbers, never a verdict or a direction (issue 60 item 2). ``waiting``: what the
    whole grid's fit on fresh seeds waits for, while it does."""
    status = {r.claim.key: r.status for r in checked}

    def pick(label: str) -> dict[str, dict]:
        return {r["exponent"]: r for r in rows if r["seeds"] == label}

    def said(prefix: str, fit: dict[str, dict]) -> str:
        parts = [f"{q} {r['ours']:.2f} against {r['paper']:.2f} "
                 f"({status.get(f'{prefix}.{q}_exponent', 'not judged')})" for q, r in fit.items()]
        return ", ".join(parts).replace("-", "−")

    def numbers(fit: dict[str, dict]) -> str:
        return ", ".join(f"{q} {r['ours']:.2f}" for q, r in fit.items()).replace("-", "−")

    fresh, fresh16, first = pick(FRESH), pick(FRESH16), pick(FIRST)
    short, same = pick(SHORT_FRESH), pick(SHORT_FIRST)
    diagnostic = (f"The first seeds through the same estimator, chosen after their data (a diagnostic that sets no "
                  f"direction): {numbers(first)}." if first else "")
    for prefix, fit, whose in (("table1.joint.fresh", fresh, "the fresh seeds"),
                               ("table1.joint.fresh16", fresh16, "the fresh seeds without (256, 64)")):
        if fit:
            out = [_in_words(fit, {q: status.get(f"{prefix}.{q}_exponent", "") for q in fit}),
                   f"The paper's estimator, one joint fit over its grid, on {whose}: {said(prefix, fit)}."]
            if not fresh:
                out.append(f"The fit over the whole grid is {waiting}." if waiting.startswith("not run yet") else waiting)
            return " ".join(out + ([diagnostic] if diagnostic else []))
    out = [f"One joint fit over the paper's grid, on fresh seeds: {waiting}."]
    if short:
        beside = f" (the first seeds at the same points: {numbers(same)})" if same else ""
        out.append(f"Up to T = 128 at B = 1 the fresh seeds give {said('table1.joint.fresh_short', short)}{beside}.")
    return " ".join(out + ([diagnostic] if diagnostic else []))


def _in_words(fit: dict[str, dict], verdict: dict[str, str]) -> str:
    """One plain sentence from a joint fit registered before its data: the direction of each exponent against the
    paper's, then how the T and B exponents compare where both registered verdicts say they differ (steeper or
    shallower, which a 'differs' verdict fixes: its interval lies wholly on one side)."""
    kind = all((r["ours"] > 0) == (r["paper"] > 0) for r in fit.values())
    words = ("In kind, yes: on the paper's model the plateau grows with d and T and shrinks with B, as the paper says"
             if kind else "Not even in kind: on the paper's model the plateau does not move with d, T and B as the paper "
             "says")
    T, B = fit.get("T"), fit.get("B")
    if kind and T and B and verdict.get("T") == verdict.get("B") == "differs":
        steeper = abs(T["ours"]) > abs(T["paper"]) and abs(B["ours"]) > abs(B["paper"])
        shallower = abs(T["ours"]) < abs(T["paper"]) and abs(B["ours"]) < abs(B["paper"])
        if steeper or shallower:
            words += (f"; but it {'grows faster' if steeper else 'grows more slowly'} with T/B than the paper's law "
                      "(its T and B exponents differ, registered)")
    return words + "."


def in_kind(folder: str | None = None) -> str:
    """Figure 3's law in words, from a joint fit registered before its data on fresh seeds that this build logged
    (the whole grid, else the 16 points without (256, 64)); empty where neither is logged. The first seeds' fit,
    chosen after their data, never speaks here (issue 60 item 2)."""
    for prefix, whose in (("table1.joint.fresh", "on fresh seeds"),
                          ("table1.joint.fresh16", "on fresh seeds, without (256, 64)")):
        keys = {q: f"{prefix}.{q}_exponent" for q in ("d", "T", "B")}
        entries = {q: logged_entry(REGISTRY[k], folder or os.environ.get(CLAIMS_LOG_ENV)) for q, k in keys.items()}
        if all(e and isinstance(e.get("ours"), float) and REGISTRY[keys[q]].paper_value is not None
               for q, e in entries.items()):
            fit = {q: {"ours": e["ours"], "paper": REGISTRY[keys[q]].paper_value} for q, e in entries.items() if e}
            said = (f"exponents of {', '.join(fit)}: " + ", ".join(f"{r['ours']:.2f}" for r in fit.values())
                    + " against " + ", ".join(f"{r['paper']:.2f}" for r in fit.values()))
            words = _in_words(fit, {q: e["status"] for q, e in entries.items() if e})[:-1].replace(
                "In kind, yes:", "Figure 3's law holds in kind:").replace("Not even in kind:", "Figure 3's law fails even in kind:")
            return minus_signs(f"{words} (the paper's joint fit {whose}: {said}).")
    return ""


def _span(rows: list[dict]) -> str:
    vals = [r["ours"] for r in rows if r["ours"] == r["ours"]]
    if not vals:
        return "not stored yet"
    lo, hi = min(vals), max(vals)
    return f"{lo:.2f}" if round(lo, 2) == round(hi, 2) else f"{lo:.2f}–{hi:.2f}"


def facts() -> dict[str, str]:
    """The computed phrases the landing page's reasons paste (`headlines`), from the stored runs: where the local
    exponents of the paper's model bend, and how close to chance the paper's 5% recall threshold sits."""
    from ..recall_table1.runs import RECALL_MEASURED_GRIDS
    from ..table1.read import local_d_exponent, local_T_exponent, stored_summaries
    from ..unsaid.show import whose, why_line
    from ..unsaid_recall.show import whose_recall, why_line_recall

    summary = stored_summaries()[0]
    # The bend's own segments (`bend.runs.BEND_SEGMENTS`), so that one quantity has one number on every page.
    short = [local_T_exponent(summary, d, 32, 64) for d in (16, 32)]
    long_ = [local_T_exponent(summary, d, 128, 256) for d in (16, 32)]
    low, high = local_d_exponent(summary, 256, 16, 32), local_d_exponent(summary, 256, 32, 64)
    tokens = min(RECALL_MEASURED_GRIDS["paper_cpu"].n_tokens)
    return {
        "T_local": f"the local T exponent is {_span(short)} from T = 32 to 64, {_span(long_)} from 128 to 256",
        "d_bend": f"at T = 256 the local d exponent is {low['ours']:.2f} (d = 16 → 32) and {high['ours']:.2f} (32 → 64)"
                  + (": it bends upward" if high["low"] > low["high"] else ""),
        "chance": f"chance is {1 / tokens:.1%} at {tokens} tokens",
        "unsaid": why_line(),
        "unsaid_recall": why_line_recall(),
        "whose": " ".join(w for w in (whose(), whose_recall()) if w),
    }
