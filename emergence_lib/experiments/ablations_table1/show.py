"""Chapter A4's section on Figures 14 and 15 at Table 1's width (`runs.AblationsMeasured`, scale paper_cpu). It reads
``data/`` only and never computes (the runs go in the background: `python -m emergence_lib run ablations_measured
--scale paper_cpu`). A claim is judged once every run it reads is stored; until then it says "not run yet" with the
count (``table1.ablations.*``, registered before any of these runs)."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace
from typing import Any, Callable

import numpy as np
import pandas as pd

from ... import claims
from ...report import and_list, glue_text
from ..base import devices_sentence
from ..context import Context
from ..table1.read import contrast_interval, lack_of_fit, measured_slope, respecting_the_misfit
from . import read
from .runs import AblationsMeasured

SLUGS = {"feature + random position": "random_position", "feature + fixed position": "fixed_position",
         "no feature + fixed position": "no_feature"}
NAN = {"ours": math.nan, "low": math.nan, "high": math.nan}


def _record(judge: Callable[[float, tuple[float, float]], claims.ClaimResult], key: str, row: dict, ready: bool,
            why: str, checked: list) -> None:
    """Judge ``key`` through ``judge`` once its runs are stored and its interval finite; else "not run yet"."""
    if ready:  # every run it reads stored: judged (no interval, e.g. a seed that never crossed: inconclusive)
        checked.append(judge(row["ours"], (row["low"], row["high"])))
    else:
        claims.record_not_run(key, why)


def sgd_left_out(figure: AblationsMeasured, sgd: pd.DataFrame) -> str:
    """The points of Figure 14's grid where SGD (Figure 15) does not run, and why: the paper's SGD law's plateau there,
    and that times what the stored SGD runs measured against the law (their median ratio; none stored: the law
    alone); how many of those crossings fall past the step budget; and what a seed would cost, run as ours are (to
    ``stop_factor`` × its crossing, at most the budget), at the stored CPU runs' seconds a step at the same T."""
    from ...estimate import law_steps

    g = figure.grid
    runs = {(r.T, r.d): r for r in figure.sweeps()["sgd"]}
    mine = sgd[[(T, d) in runs for T, d in zip(sgd["T"], sgd["d"])]] if len(sgd) else sgd
    reached = mine[np.isfinite(mine["plateau_length"].to_numpy(float))] if len(mine) else mine
    ratios = [row.plateau_length / law_steps(runs[(row.T, row.d)]) for row in reached.itertuples()]
    ratio = float(np.median(ratios)) if ratios else 1.0
    probe = next(iter(runs.values()))
    left = sorted((law_steps(dataclasses.replace(probe, T=T, d=d)), T, d) for T in g.T for d in g.d if (T, d) not in runs)
    if not left:
        return "SGD runs at every point of Figure 14's grid."
    names = [f"({T}, {d})" for _, T, d in sorted(left, key=lambda x: x[1:])]
    text = (f"Left out: SGD at {and_list(names)}, where the paper's "
            f"SGD law puts the crossing at {_steps(left[0][0])}–{_steps(left[-1][0])} steps")
    crossing = [steps * ratio for steps, _, _ in left]
    if ratios:
        censored = len(mine) - len(reached)
        text += (f", {_steps(crossing[0])}–{_steps(crossing[-1])} at the {ratio:.2f}× the law that the stored SGD runs "
                 f"measured (their median{f'; {censored} not reached, so a lower bound' if censored else ''})")
    past = sum(c > g.sgd_max_steps for c in crossing)
    text += f": {past} of these {len(left)} past the {g.sgd_max_steps:,}-step budget"
    on_cpu = mine[mine["device"] == "cpu"] if len(mine) else mine
    rate = {T: float(np.median(grp["seconds"] / grp["steps_run"])) for T, grp in on_cpu.groupby("T")} if len(on_cpu) else {}
    if all(T in rate for _, T, _ in left):
        hours = sorted(min(c * g.stop_factor, g.sgd_max_steps) * rate[T] / 3600 for c, (_, T, _) in zip(crossing, left))
        text += (f", and a seed, run to {g.stop_factor}× its crossing or the budget, {hours[0]:.1f}–{hours[-1]:.1f} "
                 "CPU-hours (the stored SGD runs' seconds a step at the same T)")
    return text + "."


def _steps(v: float) -> str:
    return f"{v / 1e3:.0f}k" if v >= 1e4 else f"{v:,.0f}"


def ablations(ctx: Context) -> SimpleNamespace:
    """Every registered claim of Figures 14 and 15 at Table 1's width: the exponents per set-up, the position cost,
    SGD's exponents and Adam's speed-up over SGD, each from point means with Welch intervals."""
    figure = AblationsMeasured(scale="paper_cpu")
    g = figure.grid
    results, have, need = figure.cached()
    glue_text("t1a_runs", f"{have} of {need}")
    glue_text("t1a_devices", devices_sentence(figure.devices()))
    sweeps = figure.sweeps()
    done = {k: (len(results[k].summary), len(v)) for k, v in sweeps.items()}
    summaries = {k: r.summary.assign(B=1) if len(r.summary) else r.summary for k, r in results.items()}
    points = [(T, d, 1) for T in g.T for d in g.d]
    checked: list = []
    rows = []
    for variant, slug in SLUGS.items():
        ready = done[variant][0] == done[variant][1]
        why = f"not run yet ({done[variant][0]} of {done[variant][1]} runs)"
        for axis, other in (("d", "T"), ("T", "d")):
            key = f"table1.ablations.figure14.{axis}_exponent_{slug}"
            row = measured_slope(summaries[variant], points, axis, other) if len(summaries[variant]) else dict(NAN)
            if len(summaries[variant]):
                row = respecting_the_misfit(claims.claim(key).amended, row, summaries[variant], points, axis, other)
            rows.append({"set-up": variant, "exponent": axis, **{k: row[k] for k in ("ours", "low", "high")},
                         "registered": row.get("registered", "—"), "recorded": row.get("recorded", "—")})
            _record(lambda v, iv: ctx.record(f"table1.ablations.figure14.{axis}_exponent_{slug}", v, interval=iv),
                    f"table1.ablations.figure14.{axis}_exponent_{slug}", row, ready, why, checked)
    rand, fixed = summaries["feature + random position"], summaries["feature + fixed position"]
    both_ready = all(done[v][0] == done[v][1] for v in ("feature + random position", "feature + fixed position"))
    cost, as_registered = dict(NAN), None
    if len(rand) and len(fixed):
        a, b = measured_slope(rand, points, "T", "d"), measured_slope(fixed, points, "T", "d")
        if np.isfinite(a["ours"]) and np.isfinite(b["ours"]):
            cost = {"ours": a["ours"] - b["ours"], **read.slope_difference_interval(rand, fixed, points)}
            as_registered = (cost["ours"], cost["low"], cost["high"])
            # Amended after the data: where either law misfits, the two fits' residuals give the interval (only wider).
            wide = read.point_mean_slope_difference(rand, fixed, points)
            misfit = any(np.isfinite(q) and q < 0.05 for q in (wide["p_a"], wide["p_b"]))
            if (claims.claim("table1.ablations.figure14.position_cost").amended and misfit
                    and wide["high"] - wide["low"] >= cost["high"] - cost["low"]):
                cost = {k: wide[k] for k in ("ours", "low", "high")}
    _record(lambda v, iv: ctx.record("table1.ablations.figure14.position_cost", v, interval=iv, registered=as_registered),
            "table1.ablations.figure14.position_cost", cost, both_ready,
            f"not run yet ({done['feature + random position'][0] + done['feature + fixed position'][0]} of "
            f"{done['feature + random position'][1] + done['feature + fixed position'][1]} runs)", checked)
    sgd = summaries["sgd"]
    sgd_ready = done["sgd"][0] == done["sgd"][1]
    why = f"not run yet ({done['sgd'][0]} of {done['sgd'][1]} runs)"
    t_points = [(T, d, 1) for T, d in g.sgd_points if d == min(g.d)]
    sgd_T = measured_slope(sgd, t_points, "T", None) if len(sgd) else dict(NAN)
    _record(lambda v, iv: ctx.record("table1.ablations.figure15.sgd_T_exponent", v, interval=iv),
            "table1.ablations.figure15.sgd_T_exponent", sgd_T, sgd_ready, why, checked)
    lo_d, hi_d = read.plateau_logs(sgd, 32, 16), read.plateau_logs(sgd, 32, 32)
    sgd_d = dict(NAN)
    if len(lo_d) and len(hi_d):
        s = 1 / math.log(2)
        est, low, high = contrast_interval([hi_d, lo_d], [s, -s])
        sgd_d = {"ours": est, "low": low, "high": high}
    _record(lambda v, iv: ctx.record("table1.ablations.figure15.sgd_d_exponent_local", v, interval=iv),
            "table1.ablations.figure15.sgd_d_exponent_local", sgd_d, sgd_ready, why, checked)
    speed = dict(NAN)
    groups, weights = [], []
    for T, d in g.sgd_points:
        slow, fast = read.plateau_logs(sgd, T, d), read.plateau_logs(rand, T, d)
        every = len(slow) == len(g.seeds) and len(fast) == len(g.seeds)  # a censored seed is never dropped
        if every:
            groups += [slow, fast]
            weights += [1 / len(g.sgd_points), -1 / len(g.sgd_points)]
    if len(groups) == 2 * len(g.sgd_points):
        est, low, high = contrast_interval(groups, weights)
        speed = {"ours": math.exp(est), "low": math.exp(low), "high": math.exp(high)}
    _record(lambda v, iv: ctx.record("table1.ablations.figure15.adam_speedup", v, interval=iv),
            "table1.ablations.figure15.adam_speedup", speed, sgd_ready and done["feature + random position"][0] ==
            done["feature + random position"][1], why, checked)
    for axis, row in (("T", sgd_T), ("d (16 → 32 at T = 32)", sgd_d)):  # SGD's claims read Welch, never amended
        shown, bounded = np.isfinite(row["ours"]), all(np.isfinite(row[k]) for k in ("low", "high"))
        registered = (f"{row['ours']:.2f} [{row['low']:.2f}, {row['high']:.2f}]" if bounded
                      else f"{row['ours']:.2f} (no interval: a point with one seed)")
        rows.append({"set-up": "sgd", "exponent": axis, **{k: row[k] for k in ("ours", "low", "high")},
                     "registered": registered if shown else "—", "recorded": "Welch (registered)" if shown else "—"})
    # Whether each law misfits its points by more than seeds scatter (issue 36 item 5): where it does, a Welch
    # interval counts the seeds alone, and the amended claims read the point means' residuals (above). NaN until a
    # set-up has its runs.
    sgd_points = [(T, d, 1) for T, d in g.sgd_points]
    lof = pd.DataFrame([{"set-up": name, **(lack_of_fit(summaries[name], pts, ("d", "T")) if len(summaries[name])
                                            else {"F": math.nan, "df_lack": math.nan, "df_pure": math.nan, "p": math.nan})}
                        for name, pts in [*((v, points) for v in SLUGS), ("sgd", sgd_points)]])
    glue_text("t1a_sgd_left_out", sgd_left_out(figure, sgd))

    def judge13(key: str) -> Callable[[float, tuple[float, float]], claims.ClaimResult]:
        return lambda v, iv: ctx.record(f"table1.ablations.figure13.{key}", v, interval=iv)

    architecture = _figure13(judge13, g, results, done, checked)
    return SimpleNamespace(exponents=pd.DataFrame(rows), position_cost=cost, adam_speedup=speed, checked=checked,
                           architecture=architecture,
                           runs=(have, need), lack_of_fit=lof)


def _figure13(judge: Callable[[str], Callable[[float, tuple[float, float]], claims.ClaimResult]], g: Any,
              results: dict, done: dict, checked: list) -> pd.DataFrame:
    """Figure 13 at Table 1's width (`read.architecture_fit`): the heads and layers exponents and their difference,
    each judged once both of its sweeps are stored; the table shows both intervals and which one is recorded."""
    sweeps = ("figure13 heads", "figure13 layers")
    frames = [results[k].summary for k in sweeps if k in results and len(results[k].summary)]
    summary = pd.concat(frames).drop_duplicates("run") if frames else pd.DataFrame()
    points = sorted({(T, d, g.arch_layers, H) for T, d in g.arch_points for H in g.heads}
                    | {(T, d, L, g.arch_heads) for T, d in g.arch_points for L in g.layers})
    fit = read.architecture_fit(summary, points)
    ready = all(k in done and done[k][0] == done[k][1] for k in sweeps)
    for quantity, key in (("heads", "heads_exponent"), ("layers", "layers_exponent"),
                          ("heads − layers", "heads_more_than_layers")):
        row = fit[fit["quantity"] == quantity].iloc[0].to_dict() if len(fit) else dict(NAN)
        _record(judge(key), f"table1.ablations.figure13.{key}", row, ready, "not run yet",
                checked)
    return fit

