"""Chapter 03's Table 1 sections: Table 1's own model at the cheap end of the paper's grid (`table1_settings`,
`regression.runs.Figure3` at paper_cpu) and where the paper measured (`measured`, `runs.Figure3Measured`). Both read
``data/`` only, never compute: their runs go in the background (`python -m emergence_lib run … --scale paper_cpu`)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import claims, plotting
from ...paper import paper_number
from ...report import and_list, glue_figure, glue_number, glue_text, with_minus_signs
from ..base import devices_sentence
from ..context import Context
from ..regression import read
from ..regression.runs import BRIDGE_STEPS, Figure3, law, law_residual_sd, our_points, paper_points, point_key
from . import read as measured_read
from .read import (AS_BUDGET_ALLOWS, EXPONENTS, GROWS_POINTS, SHOWN_BESIDE, all_points, in_progress, only_points,
                   seeds_done, seeds_so_far, stored_summaries)
from .runs import Figure3Measured


def table1_settings(cpu_tables: dict[str, pd.DataFrame], ctx: Context) -> SimpleNamespace:
    """Figure 3 at Table 1's own settings (the paper_cpu scale, read from ``data/``, never computed here): each
    point against the paper's law, the exponents on the subset, cross-sample repetition, and the bridge from the
    cpu scale's model; the ``table1.figure3.*`` claims of the registry. A point is judged once all its seeds are stored; until then
    its row says how many are. (glued: fig3_table1, t1_*)"""
    figure = Figure3(scale="paper_cpu")
    grid = figure.grid
    results, have, need = figure.cached()
    base = [results[k].summary for k in ("T", "B", "larger") if len(results[k].summary)]
    summary = pd.concat(base).drop_duplicates("run") if base else pd.DataFrame(columns=["T", "d", "B", "plateau_length"])
    n_seeds = len(grid.seeds)
    complete = [(T, d, B) for T, d, B in our_points() if seeds_done(summary, T, d, B) == n_seeds]
    done = summary[[(T, d, B) in complete for T, d, B in zip(summary["T"], summary["d"], summary["B"])]] if len(summary) else summary
    points = read.point_table(done, complete)
    glue_text("t1_cpu_hours", f"{sum(float(r.summary['seconds'].sum()) for r in results.values() if len(r.summary)) / 3600:.1f}")
    glue_text("t1_runs", f"{have} of {need}")
    in_paper = sum(p in paper_points() for p in complete)
    coverage = f"{in_paper} of the paper's {len(paper_points())} grid points (+{len(complete) - in_paper} of ours)"
    glue_text("t1_coverage", coverage)
    glue_number("t1_sd", law_residual_sd(), ".3f")
    glue_number("t1_band", np.exp(1.96 * law_residual_sd()), ".2f")
    checked = []

    # Per point: our plateau over the law, judged with the law's own scatter.
    for T, d, B in our_points():
        key = f"table1.figure3.{point_key(T, d, B)}"
        if (T, d, B) in complete:
            row = points[(points["T"] == T) & (points["d"] == d) & (points["B"] == B)].iloc[0]
            checked.append(ctx.record(f"table1.figure3.{point_key(T, d, B)}", row["ratio"],
                                         interval=(row["ratio_low"], row["ratio_high"])))
        else:
            claims.record_not_run(key, "not run yet")

    # The exponents on the complete points: the registered pooled fit, and the point means where the law misfits
    # (the claims' amendment, `claims.measured.AMENDED_TO_POINT_MEANS`).
    exps = read.exponent_table(done)
    rejudged, design = rejudge_on_point_means(done, complete, exps)
    for k in ("d", "T", "B"):
        key = f"table1.figure3.{k}_exponent"
        row = exps[exps["quantity"] == k]
        if len(row):
            r = design[k] if k in design else row.iloc[0]
            checked.append(ctx.record(key, r["ours"], interval=(r["low"], r["high"])))
            glue_number(f"t1_{k}", r["ours"], ".2f")
        else:
            claims.record_not_run(key, f"{len(complete)} complete points, too few")
            glue_text(f"t1_{k}", "not yet fitted")

    # Cross-sample repetition: complete only when every (p, d, lr) has all its seeds.
    p_runs = results["p"].summary
    p_complete = len(p_runs) == len(figure.sweeps()["p"])
    xs = read.cross_sample_table(p_runs) if p_complete else pd.DataFrame(columns=["d", "p", "speed-up", "low", "high"])
    for key, which in (("table1.figure3.cross_sample_speedup", xs[xs["d"] == max(grid.d)] if len(xs) else xs),
                       ("table1.figure3.cross_sample_more_at_larger_d", xs[xs["d"].map(lambda v: isinstance(v, str))] if len(xs) else xs)):
        if len(which):
            r = which.iloc[0]
            checked.append(ctx.record(key, r["speed-up"], interval=(r["low"], r["high"])))  # the two keys above
        else:
            claims.record_not_run(key, "not run yet")
    cross = {r.claim.key: r for r in checked if r.claim.key.startswith("table1.figure3.cross_sample")}
    glue_text("t1_cross_sample_status", "not run yet" if len(cross) < 2 else
              f"{cross['table1.figure3.cross_sample_speedup'].status} at the largest d "
              f"({cross['table1.figure3.cross_sample_speedup'].ours_text}) and "
              f"{cross['table1.figure3.cross_sample_more_at_larger_d'].status} for more at larger d "
              f"({cross['table1.figure3.cross_sample_more_at_larger_d'].ours_text})")

    # The bridge, and the figure: our points beside the cpu scale's, the paper's law through both.
    bridge_runs = results["bridge"].summary
    bridge = read.bridge_table(bridge_runs) if len(bridge_runs) else pd.DataFrame()
    bridge_exps = read.bridge_exponents(bridge_runs) if len(bridge_runs) else pd.DataFrame()
    for i, (label, _) in enumerate(BRIDGE_STEPS):  # glued: t1_bridge_{d,T}_{0..3}, the local exponents per setting
        for k in ("d", "T"):
            value = bridge_exps[f"{k} exponent"].iloc[i] if len(bridge_exps) and f"{k} exponent" in bridge_exps else np.nan
            glue_text(f"t1_bridge_{k}_{i}", f"{value:.2f}" if np.isfinite(value) else "not yet run")
    fig = _table1_figure(cpu_tables, points, grid)
    glue_figure("fig3_table1", fig)
    return SimpleNamespace(points=points, exponents=exps, rejudged=rejudged, cross_sample=xs, bridge=bridge, bridge_exponents=bridge_exps,
                           checked=checked,
                           coverage=coverage, complete=complete, runs=(have, need))


def rejudge_on_point_means(done: pd.DataFrame, complete: list[tuple[int, int, int]],
                           exps: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The cheap end's exponents read with the design respected (issue 34 item 3, issue 36 item 5): the same law fitted
    to the point means (each point once, residual degrees of freedom), beside the registered fit pooled over seeds,
    each judged by the claim's rule, with the lack-of-fit F test of the pooled fit, which says which one counts:
    where it rejects (p < 0.05), the point means (the claims' amendment). Returns (the table, the point-means rows
    by exponent that replace the pooled ones: empty where the test does not reject)."""
    cols = ["exponent", "pooled over seeds (registered)", "verdict (pooled)", "point means", "verdict (point means)",
            "recorded", "paper"]
    if not len(exps):
        return pd.DataFrame(columns=cols), {}
    means = measured_read.point_mean_fit(done, complete, ("d", "T", "B"))
    lack = measured_read.lack_of_fit(done, complete, ("d", "T", "B"))
    misfits = bool(np.isfinite(lack["p"]) and lack["p"] < 0.05 and len(means))
    rows, design = [], {}
    for k in ("d", "T", "B"):
        c = claims.claim(f"table1.figure3.{k}_exponent")
        old = exps[exps["quantity"] == k].iloc[0]
        new = means[means["quantity"] == k].iloc[0] if len(means) else None
        if misfits and c.amended and new is not None and new["high"] - new["low"] >= old["high"] - old["low"]:
            design[k] = new  # the amendment only ever widens an interval
        rows.append({"exponent": k, "pooled over seeds (registered)": f"{old['ours']:.2f} [{old['low']:.2f}, {old['high']:.2f}]",
                     "verdict (pooled)": c.status(old["ours"], (old["low"], old["high"])),
                     "point means": "—" if new is None else
                     f"{new['ours']:.2f} [{new['low']:.2f}, {new['high']:.2f}] ({int(new['df'])} df)",
                     "verdict (point means)": "—" if new is None else c.status(new["ours"], (new["low"], new["high"])),
                     "recorded": "point means" if k in design else "pooled", "paper": c.paper})
    glue_text("t1_lack_of_fit", f"F = {lack['F']:.1f} on ({lack['df_lack']}, {lack['df_pure']}) degrees of freedom, "
                                f"p = {lack['p']:.1g}")
    return pd.DataFrame(rows, columns=cols), design


def _table1_figure(cpu_tables: dict[str, pd.DataFrame], points: pd.DataFrame, grid) -> plt.Figure:
    """(a) Plateau against d: the cpu scale's B = 1 points (open) and Table 1's (filled), with the paper's law
    dotted at each T; (b) Table 1's points over the law, with 95% intervals and the law's own ±1.96σ band."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    ax = axes[0]
    cpu = cpu_tables["T"]
    Ts = sorted(set(cpu["T"]) | set(points["T"]) | {T for T, _ in grid.larger})
    colors = plotting.hue_colors(pd.Series(Ts))
    for T in Ts:
        c = cpu[(cpu["T"] == T) & np.isfinite(cpu["plateau_length"])]
        ax.plot(c["d"], c["plateau_length"], "o", mfc="none", color=colors[T], ms=6)
        ours = points[(points["T"] == T) & (points["B"] == 1)]
        if len(ours):
            ax.errorbar(ours["d"], ours["plateau"], yerr=[ours["plateau"] - ours["ratio_low"] * ours["law"],
                        ours["ratio_high"] * ours["law"] - ours["plateau"]], fmt="s", color=colors[T], ms=7, capsize=3)
        ds = np.geomspace(min(cpu["d"].min(), 4), 128, 50)
        ax.plot(ds, [law(T, d) for d in ds], ":", color=colors[T], lw=1.6)
    handles = [plt.Line2D([], [], color=colors[T], ls=":", marker="o", mfc="none", label=f"$T$ = {T}") for T in Ts]
    handles += [plt.Line2D([], [], color="0.3", ls="none", marker="o", mfc="none", label="laptop model"),
                plt.Line2D([], [], color="0.3", ls="none", marker="s", label="The paper's model"),
                plt.Line2D([], [], color="0.3", ls=":", label="paper's law")]
    ax.legend(handles=handles, fontsize=9, ncol=2, loc="upper left")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$d$")
    ax.set_ylabel("plateau length (steps)")
    ax.set_title("Plateau at $B$ = 1")
    ax = axes[1]
    sd = law_residual_sd()
    ax.axhspan(np.exp(-1.96 * sd), np.exp(1.96 * sd), color="0.88", label="the law's own scatter (±1.96σ)")
    ax.axhline(1.0, color="0.3", ls=":", lw=1.2)
    if len(points):
        labels = [f"({T}, {d}, {B})" for T, d, B in zip(points["T"], points["d"], points["B"])]
        xs = np.arange(len(points))
        ax.errorbar(xs, points["ratio"], yerr=[points["ratio"] - points["ratio_low"], points["ratio_high"] - points["ratio"]],
                    fmt="s", color="C0", capsize=3, label="ours / law, 95% interval over seeds")
        ax.set_xticks(xs, labels, rotation=35, ha="right")
        ax.set_xlim(-0.6, len(points) - 0.4)
    ax.set_yscale("log")
    ticks = [0.4, 0.5, 0.7, 1.0, 1.4, 2.0]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_ylim(0.35, 2.4)
    ax.set_xlabel("$(T, d, B)$")
    ax.set_ylabel("our plateau / paper's law")
    ax.set_title("The paper's model against the paper's law")
    ax.legend(loc="lower left", fontsize=9)
    plotting.label_panels(axes)
    fig.tight_layout()
    return fig


# ---- where the paper measured: T = 128-256 (`Figure3Measured`)

PK = "table1.measured"


def measured(cpu_tables: dict[str, pd.DataFrame], ctx: Context) -> SimpleNamespace:
    """The paper's model where the paper measured: every registered point against the law, the exponents at T = 256
    and T = 128 alone, the T exponent over 32-256, the B exponent at 256, and whether the local d exponent grows
    with T (the ``table1.measured.*`` claims, registered before these runs). A point is judged once all its seeds are
    stored, or, run as the budget allows (`read.AS_BUDGET_ALLOWS`), once that many of its seeds have crossed; until
    then its claims say "not run yet" with the count. (glued: fig3_measured, t1m_*)"""
    summary, seeds, have, need = stored_summaries()
    done_seeds = {p: seeds_done(summary, *p) for p in seeds}
    crossed = {p: seeds_done(summary, *p, reached_only=True) for p in seeds}
    # Registered: every seed stored; or, for a point run as the budget allows, "at least 2 for an interval", which a
    # seed that never crossed cannot give (it would judge one seed's lower bound).
    complete = [p for p, n in seeds.items() if done_seeds[p] >= n or crossed[p] >= AS_BUDGET_ALLOWS.get(p, n + 1)]
    glue_text("t1m_runs", f"{have} of {need}")
    glue_text("t1m_devices", devices_sentence(Figure3Measured(scale="paper_cpu").devices()))
    checked, status = [], {}
    new_points = [(T, d, B) for T, d, B, _ in Figure3Measured(scale="paper_cpu").grid.points]
    points = read.point_table(only_points(summary, complete), [p for p in new_points if p in complete])
    for p in new_points:
        key = f"{PK}.{point_key(*p)}"
        if p in complete:
            row = points[(points["T"] == p[0]) & (points["d"] == p[1]) & (points["B"] == p[2])].iloc[0]
            checked.append(ctx.record(f"table1.measured.{point_key(*p)}", row["ratio"], interval=(row["ratio_low"], row["ratio_high"])))
        else:
            claims.record_not_run(key, f"not run yet ({seeds_so_far(p, done_seeds[p], seeds[p])})")

    exponents, usable_of = [], {}
    for name, (required, optional, along, within) in EXPONENTS.items():
        ready = all(p in complete for p in required)
        usable = usable_of[name] = required + [p for p in optional if crossed[p] >= 2]  # as `measured_slope` needs
        row = measured_read.measured_slope(only_points(summary, usable), usable, along, within) | {"claim": name}
        row = measured_read.respecting_the_misfit(claims.claim(f"{PK}.{name}").amended, row, summary, usable, along,
                                                  within)
        exponents.append(row)
        if ready and np.isfinite(row["low"]):
            result = ctx.record(f"table1.measured.{name}", row["ours"], interval=(row["low"], row["high"]))
            checked.append(result)
            status[name] = result.status
        else:
            claims.record_not_run(f"{PK}.{name}", "not run yet")
            status[name] = "not run"
    grows = None
    if all(p in complete for p in GROWS_POINTS):
        grows = measured_read.local_exponent_difference(summary, 256, 32)
        checked.append(result := ctx.record("table1.measured.d_exponent_grows", grows[0], interval=grows[1:]))
        status["d_exponent_grows"] = result.status
    else:
        claims.record_not_run(f"{PK}.d_exponent_grows", "not run yet")

    shown = only_points(summary, complete)  # every complete point's seeds: the described readings below
    local, local_T = measured_read.local_exponents(shown)
    registered = [p for p in complete if p not in SHOWN_BESIDE]  # the lack of fit reads the points claims read
    fit_points = [p for p in registered if p[2] == 1]
    lack = pd.DataFrame([{"fit": "d, T at B = 1", **measured_read.lack_of_fit(summary, fit_points, ("d", "T"))},
                         {"fit": "d, T, B (every point)", **measured_read.lack_of_fit(summary, registered, ("d", "T", "B"))}])
    never = measured_read.never_crossed(summary, [p for p in seeds if p not in SHOWN_BESIDE])  # lower bounds, shown
    ds = [str(p[1]) for p in usable_of["d_exponent_T256"]]
    over = f"on d = {and_list(ds)}" + "".join(f"; {phrase}" for p in EXPONENTS["d_exponent_T256"][1] if (
        phrase := measured_read.budget_phrase(p, seeds[p], done_seeds[p], crossed[p], never)))
    glue_text("t1m_sentence", verdict_sentence(status, exponents, have, need, points, over, grows))
    glue_text("t1m_local_T", local_T_sentence(local_T))
    at_32 = local_d_sentence(shown, None, 32)  # the cheap end's d = 16, 32 and 64
    at_256 = local_d_sentence(shown, status.get("d_exponent_T256", "not run"), 256)
    glue_text("t1m_local_d", ("" if at_32.startswith("Not described") else f"{at_32} ")
              + local_d_sentence(shown, status.get("d_exponent_T128", "not run"))
              + (f" {at_256}" if not at_256.startswith("Not described") else
                 " At T = 256 the same reading waits for d = 64 (two crossed seeds)."))
    partial = sorted(p for p in seeds if 0 < done_seeds[p] and p not in complete + SHOWN_BESIDE)  # shown, not judged
    glue_figure("fig3_measured", _measured_figure(all_points(summary, complete), local,
                                                  read.point_table(only_points(summary, partial), partial), never))
    pending = pd.DataFrame([{"T": p[0], "d": p[1], "B": p[2], "seeds stored": done_seeds[p], "crossed": crossed[p],
                             "registered": seeds[p], "judged": "yes, again as seeds come" if p in complete else
                             f"once {AS_BUDGET_ALLOWS[p]} have crossed or all are stored" if p in AS_BUDGET_ALLOWS else
                             "once all are stored", "in progress": in_progress(p)}
                            for p in new_points if done_seeds[p] < seeds[p]],
                           columns=["T", "d", "B", "seeds stored", "crossed", "registered", "judged", "in progress"])
    return SimpleNamespace(points=points, pending=pending, exponents=pd.DataFrame(exponents), local=local, local_T=local_T, lack_of_fit=lack,
                           checked=checked, complete=complete, runs=(have, need), status=status)


def verdict_sentence(status: dict[str, str], exponents: list[dict], have: int, need: int,
                     points: pd.DataFrame | None = None, over: str = "", grows: tuple[float, float, float] | None = None) -> str:
    """The answer to chapter 03's question, from the registered verdicts alone: does the gap to the paper's d
    exponent close where the paper measured (T = 256)? ``over``: the d values that exponent read, and what it still
    waits for. Then the same exponent at T = 128, the law's other two exponents, where judged, the registered reading
    of the reconciling hypothesis (``grows``: the local d exponent at T = 256 minus at T = 32, with its interval),
    and the judged B = 1 points at T = 256 against the law."""
    s = status.get("d_exponent_T256", "not run")
    row = next(r for r in exponents if r["claim"] == "d_exponent_T256")
    if s == "not run":
        return (f"Not answered yet: {have} of {need} registered runs where the paper measured are stored, and the d "
                "exponent at T = 256 needs all seeds at d = 16 and 32.")
    paper_d = paper_number("figure3.d")
    value = f"{row['ours']:.2f} [{row['low']:.2f}, {row['high']:.2f}] against the paper's {paper_d:.2f}"
    exponent = f"the d exponent at T = 256{f' ({over})' if over else ''} is {value}"  # over: "on d = 16 and 32; …"
    gap = {"agrees": "the gap closes", "differs": "the gap does not close"}.get(s, "")
    if s == "differs" and row["low"] > paper_d:  # the cheap end's is below the paper's; T = 256's overshoots it
        gap += ", it reverses"
    first = (f"Where the paper measured, {gap}: {exponent}." if gap else
             f"Where the paper measured, {exponent}: too wide an interval to say whether the gap closes.")
    if status.get("d_exponent_T128") in ("agrees", "differs", "inconclusive"):
        r = next(e for e in exponents if e["claim"] == "d_exponent_T128")
        (T128, *_), ds = EXPONENTS["d_exponent_T128"][0][0], [p[1] for p in EXPONENTS["d_exponent_T128"][0]]
        first += (f" At T = {T128} (d = {', '.join(map(str, ds))}) the d exponent is {r['ours']:.2f} [{r['low']:.2f}, "
                  f"{r['high']:.2f}] against {paper_number('figure3.d'):.2f} ({status['d_exponent_T128']}).")
    others = []
    for name, label, paper in (("T_exponent", "the T exponent over T = 32–256", "figure3.T"),
                               ("B_exponent_T256", "the B exponent at T = 256", "figure3.B")):
        if status.get(name) in ("agrees", "differs", "inconclusive"):
            r = next(e for e in exponents if e["claim"] == name)
            others.append(f"{label} is {r['ours']:.2f} [{r['low']:.2f}, {r['high']:.2f}] against "
                          f"{paper_number(paper):.2f} ({status[name]})")
    if others:
        first += " The law's other exponents, judged: " + "; ".join(others) + "."
    g = status.get("d_exponent_grows")
    if grows is not None and g in ("agrees", "differs", "inconclusive"):
        diff = f"{grows[0]:+.2f} [{grows[1]:+.2f}, {grows[2]:+.2f}]"
        first += (" Does the local d exponent (16 → 32) grow from T = 32 to T = 256, as it must if the paper's 1.29 "
                  "comes from its lines at T = 256 while T ≤ 64 gives about 1? " + {
                      "agrees": f"Yes: it is larger at T = 256 by {diff} (agrees).",
                      "differs": f"No: it is smaller at T = 256, by {diff} (differs).",
                      "inconclusive": f"The difference, {diff}, holds 0: these seeds cannot tell (inconclusive)."}[g])
    if points is not None and len(points):
        at = points[(points["T"] == 256) & (points["B"] == 1) & np.isfinite(points["ratio_low"].astype(float))]
        at = at.sort_values("d")  # a point with < 2 crossed seeds has no interval: `over` says why
        if len(at):
            ratios = and_list([f"{r.ratio:.2f}× [{r.ratio_low:.2f}, {r.ratio_high:.2f}] at d = {r.d}"
                               for r in at.itertuples()])
            first += f" At T = 256 and B = 1 our plateaus are {ratios} the law's."
    return with_minus_signs(first)


def local_d_sentence(summary: pd.DataFrame, judged: str | None, T: int = 128) -> str:
    """At T (128: where the measured grid has d = 16, 32 and 64 at B = 1): the local d exponent over each doubling
    and their difference (Welch), beside the registered exponent at T (its verdict ``judged``; None where no claim
    reads T alone), which is their secant. Described, not judged."""
    low, high = measured_read.local_d_exponent(summary, T, 16, 32), measured_read.local_d_exponent(summary, T, 32, 64)
    bend = measured_read.d_curvature(summary, T)
    if not all(np.isfinite(x) for x in (low["low"], high["low"], bend[1])):
        return f"Not described yet: d = 16, 32 and 64 at T = {T} need at least two seeds each."

    def iv(est: float, lo: float, hi: float) -> str:
        return f"{est:.2f} [{lo:.2f}, {hi:.2f}]"

    text = (f"At T = {T} the local d exponent is {iv(low['ours'], low['low'], low['high'])} from d = 16 to 32 and "
            f"{iv(high['ours'], high['low'], high['high'])} from 32 to 64; their difference is {iv(*bend)} (Welch; a "
            "contrast chosen after the runs, not registered). ")
    if bend[1] > 0:
        text += "Its interval lies above 0: the local slope grows from d = 16 to 64" + (
            "." if judged is None else f", and the registered exponent at T = {T} ({judged}) reads the secant from d = "
                                       "16 to 64, an average over that growing slope.")
    elif bend[2] < 0:
        text += "Its interval lies below 0: the local slope falls from d = 16 to 64."
    else:
        text += "Its interval holds 0: these three points do not tell a growing slope from a constant one."
    return with_minus_signs(text)


def local_T_sentence(local_T: pd.DataFrame) -> str:
    """Each d's local T exponent over its first and its last pair of lengths that have an interval (the pairs differ
    by d: d = 64 has no T = 64 or 192), grouped by pair: a description of the curve (these are not registered claims),
    against the law's single exponent. A d with one pair goes to the long end if that pair reaches the longest T."""
    done = local_T[np.isfinite(local_T["ours"].astype(float))]
    if not len(done):
        return "No pair of neighbouring lengths has all its seeds stored yet."

    def pair_key(pair: str) -> tuple[int, ...]:
        return tuple(int(t) for t in pair.split(" → "))

    longest = max(pair_key(t)[-1] for t in done["T"])
    first, last = {}, {}
    for d, g in done.groupby("d"):
        rows = sorted(g.itertuples(), key=lambda r: pair_key(r.T))
        if len(rows) > 1 or pair_key(rows[0].T)[-1] < longest:
            first[d] = rows[0]
        if len(rows) > 1 or pair_key(rows[0].T)[-1] == longest:
            last[d] = rows[-1]

    def at(rows: dict) -> str:
        by_pair: dict[str, list] = {}
        for d in sorted(rows):
            by_pair.setdefault(rows[d].T, []).append(rows[d])
        return "; ".join(and_list([f"{r.ours:.2f} [{r.low:.2f}, {r.high:.2f}] at d = {r.d}" for r in rs])
                         + f" from T = {pair}" for pair, rs in sorted(by_pair.items(), key=lambda kv: pair_key(kv[0])))

    paper = f"{paper_number('figure3.T'):.2f}"
    if not first or not last:
        return with_minus_signs(f"The local T exponent is {at(first or last)}, against the law's {paper}.")
    return with_minus_signs(f"Described, not judged: at the short end the local T exponent is {at(first)}; at the "
                            f"long end it is {at(last)}; against the law's single {paper}.")


def _measured_figure(points: pd.DataFrame, local: pd.DataFrame, partial: pd.DataFrame | None = None,
                     never: pd.DataFrame | None = None) -> plt.Figure:
    """(a) Our plateau over the paper's law against T at B = 1, one colour per d (95% intervals over seeds), the law's
    own scatter shaded, and each point whose seeds are not all stored as a hollow marker (its seeds so far: shown, not
    judged), and each seed that never crossed as a caret at its lower bound; (b) the local d exponent per T over each doubling of d (16 → 32; 32 → 64 where stored) with its 95%
    interval, the paper's exponent dashed."""
    paper_d = paper_number("figure3.d")
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6))
    ax = axes[0]
    sd = law_residual_sd()
    ax.axhspan(np.exp(-1.96 * sd), np.exp(1.96 * sd), color="0.88", label="the law's own scatter (±1.96σ)")
    ax.axhline(1.0, color="0.3", ls=":", lw=1.2)
    b1 = points[points["B"] == 1] if len(points) else points
    alone = b1[np.isfinite(b1["ratio"].astype(float)) & ~np.isfinite(b1["ratio_low"].astype(float))] if len(b1) else b1
    b1 = b1.drop(alone.index) if len(b1) else b1  # a point judged with 1 crossed seed: hollow, its value, no interval
    colors = plotting.hue_colors(pd.Series([16, 32, 64]))
    for d in (16, 32, 64):
        g = b1[b1["d"] == d].sort_values("T") if len(b1) else b1
        if len(g):
            ax.errorbar(g["T"], g["ratio"], yerr=[g["ratio"] - g["ratio_low"], g["ratio_high"] - g["ratio"]], fmt="s-",
                        color=colors[d], capsize=3, label=f"$d$ = {d}")
    part = partial[(partial["B"] == 1) & np.isfinite(partial["ratio"].astype(float))] if partial is not None and len(partial) else None
    for i, (d, g) in enumerate(part.groupby("d") if part is not None else ()):
        reached = sorted({int(k) for k in g["seeds"] - g["not_reached"]})
        so_far = " or ".join(map(str, reached)) + (" seed" if reached == [1] else " seeds")
        missed = int(g["not_reached"].sum())
        if missed:  # the marker is then a lower bound: the mean is over the seeds that crossed
            so_far += f" ({missed} not reached: a lower bound)"
        ax.plot(g["T"], g["ratio"], "s", mfc="none", mec=colors.get(d, "0.3"), ms=8, mew=1.5,
                label=f"$d$ = {d}: {so_far} so far, not judged")
    for d, g in alone.groupby("d") if len(alone) else ():
        ax.plot(g["T"], g["ratio"], "s", mfc="none", mec=colors[d], ms=8, mew=1.5, label=f"$d$ = {d}: 1 crossed seed, no interval")
    low = never[never["B"] == 1] if never is not None and len(never) else pd.DataFrame(columns=["d", "T", "bound"])
    for d, g in low.groupby("d"):  # the plateau lies above the caret: the run ended before it crossed
        ax.plot(g["T"], g["bound"], "^", mfc="none", mec=colors.get(d, "0.3"), ms=9, mew=1.5,
                label=f"$d$ = {d}: {len(g)} seed{'s' * (len(g) > 1)} that never crossed (plateau above)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks([32, 64, 128, 192, 256], ["32", "64", "128", "192", "256"])
    top = np.nanmax(np.r_[1.0, low["bound"].astype(float), b1["ratio_high"].astype(float) if len(b1) else []])
    ticks = [0.5, 0.7, 1.0, 1.4, 2.0, 2.8] + [t for t in (4, 8, 16, 32, 64, 128) if t < 1.2 * top]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])  # up to the highest caret or bar (2 seeds: a t on 1 df, wide)
    ax.minorticks_off()
    ax.set(xlabel="$T$", ylabel="our plateau / paper's law", title="The paper's model against the law, $B$ = 1")
    ax.legend(fontsize=9, loc="upper left")
    ax = axes[1]
    ok = local[np.isfinite(local["ours"].astype(float)) & np.isfinite(local["low"].astype(float))] if len(local) else local
    for i, (pair, g) in enumerate(ok.groupby("d", sort=True) if len(ok) else []):
        shift = 1.03 ** i  # a doubling of d per series, set a little apart so that their intervals do not overlap
        ax.errorbar(g["T"] * shift, g["ours"], yerr=[g["ours"] - g["low"], g["high"] - g["ours"]],
                    fmt="os"[i % 2] + "-", color=f"C{i}", capsize=3,
                    label=f"local $d$ exponent, $d$ = {pair} (95% interval)")
    ax.axhline(paper_d, color="C3", ls="--", lw=1.4, label=f"paper's {paper_d:.2f} (one joint fit, $T$ = 32–256)")
    ax.set_xscale("log", base=2)
    ax.set_xticks([32, 64, 128, 192, 256], ["32", "64", "128", "192", "256"])
    ax.minorticks_off()
    ax.set_xlabel("$T$")
    ax.set_ylabel("exponent of $d$")
    ax.set_title("Does the $d$ exponent grow with $T$?")
    ax.legend(fontsize=9, loc="upper left")  # the lower right holds T = 256's long bars
    plotting.label_panels(axes)
    fig.tight_layout()
    return fig
