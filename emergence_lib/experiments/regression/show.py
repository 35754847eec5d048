"""Chapters 03 (Figure 3) and A3 (Figures 11, 12): a Transformer on single-location regression."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import claims, plotting
from ...metrics import (add_cross_sample_factor, compare_fits, first_crossing, fit_offset_power_law, fit_power_law,
                        mean_over_seeds, plateau_level)
from ...paper import PAPER
from ...report import glue_figure, glue_number, glue_text, show_table
from ...sweep import SweepResult
from ...tasks import SingleLocationRegression
from ..context import Context
from . import read
from .runs import BRIDGE_STEPS, Figure3, law, law_residual_sd, our_points, paper_points, point_key

Results = dict[str, SweepResult]
paper = PAPER["figure3"]


def figure3_tables(results: Results, figure: Figure3) -> dict[str, pd.DataFrame]:
    """Figure 3's seed-mean tables (`read.figure3_tables`), and what the runs cost (glued: fig3_runs, fig3_cpu_minutes)."""
    tables = read.figure3_tables(results, figure.grid)
    runs = pd.concat([r.summary for r in results.values()]).drop_duplicates("run")
    glue_number("fig3_runs", len(runs), "d")
    glue_number("fig3_cpu_minutes", runs["seconds"].sum() / 60, ".0f")
    return tables


def figure3(tables: dict[str, pd.DataFrame], figure: Figure3) -> SimpleNamespace:
    """Figure 3: plateau vs d per T (B = 1) and per B, with the joint law, and per p on data without repetition
    and on the training distribution (glued: fig3, fig3_*)."""
    joint = tables["joint"]
    fit = fit_power_law(joint[np.isfinite(joint["plateau_length"])], ["d", "T", "B"])
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    plotting.plot_plateau_vs_x(axes[0, 0], tables["T"], hue="T", fit=fit, paper_law=paper, legend=False)
    axes[0, 0].set_title("$B$ = 1, one line per $T$")
    plotting.plot_plateau_vs_x(axes[0, 1], tables["B"], hue="B", fit=fit, paper_law=paper, legend=False)
    axes[0, 1].set_title(f"$T$ = {figure.grid.T_B}, one line per $B$")
    for ax, key, what in [(axes[1, 0], "p", "without repetition"), (axes[1, 1], "p_train", "training distribution")]:
        best = tables[key]
        plotting.plot_plateau_vs_x(ax, best, hue="p", legend=False)
        for p, g in best.groupby("p"):
            ax.plot(g["d"], g["plateau_length"], "-", color=plotting.hue_colors(best["p"])[p], lw=1)
        ax.set_title(f"$T$ = {figure.grid.T_p}, loss 0.4, {what}")
    for ax in axes.ravel():
        ax.set_ylabel("plateau length (steps)")
        ax.legend()
    fig.legend([plt.Line2D([], [], color="0.3"), plt.Line2D([], [], color="0.3", ls=":", lw=1.8)],
               [plotting.fit_label(fit), "paper: " + plotting.law_label(paper["C"], {k: paper[k] for k in ("d", "T", "B")})],
               loc="upper center", ncol=2, bbox_to_anchor=(0.5, 1.03))
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig3", fig)
    for k in ("d", "T", "B"):
        glue_number(f"fig3_{k}", fit.exponents[k], ".2f")
    glue_number("fig3_C", fit.constant, ".2f")
    glue_number("fig3_r2", fit.r2, ".3f")
    glue_number("fig3_TB", figure.grid.T_B, "d")
    glue_number("fig3_Tp", figure.grid.T_p, "d")
    return SimpleNamespace(joint=joint, fit=fit)


def laws(tables: dict[str, pd.DataFrame], joint: pd.DataFrame) -> SimpleNamespace:
    """The power law and the offset law beside the paper's, and each middle-panel plateau beside B = 1 at T/B
    (glued: fig3_tb_min, fig3_tb_max)."""
    finite = joint[np.isfinite(joint["plateau_length"])]
    fits = compare_fits(finite, ["d", "T", "B"], paper)
    show_table(fits, "Figure 3: our power law and offset law beside the paper's law", index=True, key=True)
    offset = fit_offset_power_law(finite, ["d", "T", "B"])
    t_over_b = read.t_over_b_table(tables["T"], tables["B"])
    show_table(t_over_b, "Figure 3: each middle-panel plateau beside the B = 1 plateau at T/B")
    if len(t_over_b):
        glue_number("fig3_tb_min", t_over_b["ratio"].min(), ".2f")
        glue_number("fig3_tb_max", t_over_b["ratio"].max(), ".2f")
    return SimpleNamespace(fits=fits, offset=offset, t_over_b=t_over_b)


def cross_sample(results: Results, tables: dict[str, pd.DataFrame], figure: Figure3) -> SimpleNamespace:
    """The right panel's speed-up over p = 0 beside the toy model's f(p, d), and p = 0 against the largest p at
    the larger points."""
    speed = tables["p"].pivot_table(index="d", columns="p", values="plateau_length")
    speed = (1.0 / speed.div(speed[0.0], axis=0)).drop(columns=0.0)  # plateau(p = 0) / plateau(p)
    toy = add_cross_sample_factor(pd.DataFrame([(d, p) for d in speed.index for p in speed.columns], columns=["d", "p"]))
    toy = toy.pivot_table(index="d", columns="p", values="f_pd")
    side = pd.concat({"measured": speed, "toy f(p, d)": toy}, axis=1)
    side.columns = [f"{what}, p = {p:g}" for what, p in side.columns]
    show_table(side, "Figure 3 (right): speed-up over p = 0 without repetition, beside the toy model's f(p, d) (rows: d)", index=True)
    wide = None
    if len(results["p_larger"].summary):
        # A seed that never reached 0.4 has an infinite mean: there the plateau is longer than the step budget, and the
        # ratio below is an upper bound (computed with the budget in place of the plateau).
        budget = figure.grid.max_steps
        larger_p = mean_over_seeds(results["p_larger"].summary, ["T", "d", "p"])
        wide = larger_p.pivot_table(index=["T", "d"], columns="p", values="plateau_length")
        p_top = wide.columns.max()
        wide["p = 0 within budget"] = np.isfinite(wide[0.0])
        wide["ratio (largest p / p = 0)"] = wide[p_top] / wide[0.0].clip(upper=budget)
        wide.columns = [f"p = {c:g}" if not isinstance(c, str) else c for c in wide.columns]
        show_table(wide, f"Figure 3 (right), larger points: steps to loss 0.4 without repetition, lr {max(figure.grid.p_lrs):g} "
                   f"(seed means; 'not reached': beyond {budget:,} steps, and the ratio is then an upper bound)", index=True)
    return SimpleNamespace(speed=speed, wide=wide)


def exponent_drift(tables: dict[str, pd.DataFrame], figure: Figure3, joint: pd.DataFrame, laws: SimpleNamespace,
                   fit) -> None:
    """The exponents fitted on parts of the grid and with the larger points, and the offset law's (glued: fig3_stuck,
    fig3_off_*, fig3_t0)."""
    offset = laws.offset
    drift = read.exponent_drift(joint, tables["larger"])
    show_table(drift, "Figure 3: the exponents fitted on parts of the grid (B = 1 runs)", index=True)
    if len(tables["larger"]):
        show_table(tables["larger"], "Figure 3: the larger points (seed means)")
        stuck = tables["larger"][~np.isfinite(tables["larger"]["plateau_length"])]
        notes = [f"(T, d) = ({r.T}, {r.d}): not reached within {figure.grid.max_steps:,} steps in any seed, where the power law "
                 f"predicts {float(fit.predict(pd.DataFrame({'d': [r.d], 'T': [r.T], 'B': [1]}))[0]):,.0f}" for r in stuck.itertuples()]
        glue_text("fig3_stuck", "; ".join(notes) or "every larger point reached the threshold")
    glue_number("fig3_off_d", offset.exponents["d"], ".2f")
    glue_number("fig3_off_T", offset.exponents["T"], ".2f")
    glue_number("fig3_off_B", offset.exponents["B"], ".2f")
    glue_number("fig3_t0", offset.offset, ".0f")



# ---------------------------------------------------------------- chapter A3: Figures 11, 12 --


def figure11(res11: Results, ctx: Context) -> SimpleNamespace:
    """Figure 11: held-out loss per seed, one panel per d, and how sharp each drop is (glued: fig11, fig11_*)."""
    curves = res11["curves"].curves
    ds = sorted(curves["d"].unique())
    fig, axes = plt.subplots(1, len(ds), figsize=(4.2 * len(ds), 4), squeeze=False, sharey=True)
    for ax, d in zip(axes[0], ds):
        sub = curves[curves["d"] == d]
        colors = plotting.hue_colors(sub["seed"])
        for seed, g in sub.groupby("seed"):
            ax.plot(g["step"], g["loss_no_repetition"], color=colors[seed], label=f"seed {seed}")
        ax.set(yscale="log", xlabel="step", title=f"$d$ = {d}")
        ax.axhline(0.1, color="0.5", ls=":", lw=1)
    axes[0, 0].set_ylabel("held-out loss")
    axes[0, 0].legend()
    plotting.label_panels(axes[0])
    fig.tight_layout()
    glue_figure("fig11", fig)
    sharp = _sharpness_rows(curves)
    glue_number("fig11_T", curves["T"].iloc[0], "d")
    glue_number("fig11_drop", 100 * sharp["drop / plateau"].median(), ".0f")
    glue_number("fig11_seeds", sharp["seed"].nunique(), "d")
    checked = [ctx.record("figure11.sharpness", sharp["drop / plateau"].median())]
    return SimpleNamespace(sharp=sharp, checked=checked)


def figure12(res3: Results, fig3: Figure3) -> SimpleNamespace:
    """Figure 12: under cross-sample repetition, the loss on the training distribution and without repetition at
    the smallest and largest d (seed 0, the base lr), and the steps to each level (glued: fig12, fig12_T, fig12_lr)."""
    pc = res3["p"].curves
    base_lr = fig3.grid.lr
    pc = pc[(pc["seed"] == 0) & (pc["lr"] == base_lr)]
    cols = [pc["d"].min(), pc["d"].max()]
    colors = plotting.hue_colors(pc["p"])
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex="col")
    rows = []
    for j, d in enumerate(cols):
        for p, g in pc[pc["d"] == d].groupby("p"):
            train = g["loss_train_distribution"].fillna(g["loss_no_repetition"])
            axes[0, j].plot(g["step"], train, color=colors[p], label=f"$p$ = {p:g}")
            axes[1, j].plot(g["step"], g["loss_no_repetition"], color=colors[p], label=f"$p$ = {p:g}")
            rows.append({"d": d, "p": p,
                         "0.4 on training distribution": first_crossing(g["step"], train, 0.4, log=True),
                         "0.4 without repetition": first_crossing(g["step"], g["loss_no_repetition"], 0.4, log=True),
                         "0.1 without repetition": first_crossing(g["step"], g["loss_no_repetition"], 0.1, log=True)})
        axes[0, j].set_title(f"$d$ = {d}: training distribution")
        axes[1, j].set_title(f"$d$ = {d}: no repetition")
    for ax in axes.ravel():
        ax.set_yscale("log")
        ax.axhline(0.4, color="0.5", ls=":", lw=1)
    axes[0, 0].legend()
    for ax in axes[1]:
        ax.set_xlabel("step")
    axes[0, 0].set_ylabel("loss, training distribution")
    axes[1, 0].set_ylabel("loss, no repetition")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig12", fig)
    timing = pd.DataFrame(rows)
    glue_number("fig12_T", fig3.grid.T_p, "d")
    glue_number("fig12_lr", base_lr, "g")
    return SimpleNamespace(timing=timing, cols=cols)


def shortcut_levels(res3: Results, f12: SimpleNamespace, ctx: Context) -> SimpleNamespace:
    """The plateau level without repetition against the mean-target shortcut's prediction at the largest d, and how
    much sooner the training distribution reaches 0.4 (glued: fig12_gap, fig12_ratio)."""
    timing, cols = f12.timing, f12.cols
    runs = res3["p"].summary
    runs = runs[runs["d"] == runs["d"].max()]
    rows = []
    for _, r in runs.iterrows():
        curve = res3["p"].curves[res3["p"].curves["run"] == r["run"]]
        task = SingleLocationRegression(int(r["T"]), int(r["d"]), p=float(r["p"]), task_seed=int(r["seed"]))
        rows.append({"p": r["p"], "lr": r["lr"], "seed": r["seed"],
                     "plateau level": plateau_level(curve["step"], curve["loss_no_repetition"], r["plateau_length"]),
                     "shortcut prediction": task.shortcut_loss()})
    levels = pd.DataFrame(rows).sort_values(["lr", "seed", "p"])
    base = levels[levels["p"] == 0].set_index(["lr", "seed"])["plateau level"]
    levels["measured excess"] = levels["plateau level"] - [base[(lr, s)] for lr, s in zip(levels["lr"], levels["seed"])]
    levels["predicted excess"] = levels["shortcut prediction"] - 0.5
    show_table(levels, "Figure 12: the plateau level without repetition against the mean-target shortcut's prediction (largest d)")
    top = levels[levels["p"] == levels["p"].max()]
    glue_number("fig12_gap", (top["measured excess"] - top["predicted excess"]).abs().max(), ".3f")
    big = timing[(timing["d"] == cols[1]) & (timing["p"] > 0)]  # at p = 0 both readings are the same data: ratio 1
    ratio12 = (big["0.4 on training distribution"] / big["0.4 without repetition"]).max()
    glue_number("fig12_ratio", ratio12, ".2f")
    checked = [ctx.record("figure12.training_first", ratio12)]
    return SimpleNamespace(levels=levels, top=top, big=big, checked=checked)


def _seeds_done(summary: pd.DataFrame, T: int, d: int, B: int) -> int:
    if not len(summary):
        return 0
    return int(((summary["T"] == T) & (summary["d"] == d) & (summary["B"] == B)).sum())


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
    complete = [(T, d, B) for T, d, B in our_points() if _seeds_done(summary, T, d, B) == n_seeds]
    done = summary[[(T, d, B) in complete for T, d, B in zip(summary["T"], summary["d"], summary["B"])]] if len(summary) else summary
    points = read.point_table(done, complete)
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
            claims.record_not_run(key, f"{_seeds_done(summary, T, d, B)} of {n_seeds} seeds run")

    # The exponents on the complete points.
    exps = read.exponent_table(done)
    for k in ("d", "T", "B"):
        key = f"table1.figure3.{k}_exponent"
        row = exps[exps["quantity"] == k]
        if len(row):
            r = row.iloc[0]
            checked.append(ctx.record(f"table1.figure3.{k}_exponent", r["ours"], interval=(r["low"], r["high"])))
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
            claims.record_not_run(key, f"{len(p_runs)} of {len(figure.sweeps()['p'])} runs")

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
    return SimpleNamespace(points=points, exponents=exps, cross_sample=xs, bridge=bridge, bridge_exponents=bridge_exps,
                           checked=checked,
                           coverage=coverage, complete=complete, runs=(have, need))


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
                plt.Line2D([], [], color="0.3", ls="none", marker="s", label="Table 1's model"),
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
    ax.set_title("Table 1's model against the paper's law")
    ax.legend(loc="lower left", fontsize=9)
    plotting.label_panels(axes)
    fig.tight_layout()
    return fig


def _sharpness_rows(curves: pd.DataFrame) -> pd.DataFrame:
    """Per (d, seed): steps to 0.4 and 0.1 on held-out data without repetition, and the drop over the plateau."""
    rows = []
    for (d, seed), g in curves.groupby(["d", "seed"]):
        t01 = first_crossing(g["step"], g["loss_no_repetition"], 0.1, log=True)
        t04 = first_crossing(g["step"], g["loss_no_repetition"], 0.4, log=True)
        rows.append({"d": d, "seed": seed, "steps to 0.4": t04, "steps to 0.1": t01, "drop / plateau": (t01 - t04) / t01})
    return pd.DataFrame(rows, columns=["d", "seed", "steps to 0.4", "steps to 0.1", "drop / plateau"])


def table1_dynamics(res11_cpu: Results, ctx: Context) -> SimpleNamespace:
    """Figures 11 and 12 on Table 1's settings (the paper_cpu scale, read from ``data/``, never computed here): the
    seeds' drops beside the laptop model's, on a time axis in units of each run's plateau, and the training
    distribution against data without repetition at the largest d. Records the ``table1.figure11/12`` claims once
    every run they need is stored. (glued: fig11_table1, t1_sharp, t1_ratio12, t1_coverage)"""
    from .runs import Figure11

    f11 = Figure11(scale="paper_cpu")
    res11, have11, need11 = f11.cached()
    f3 = Figure3(scale="paper_cpu")
    res3, _, _ = f3.cached()
    p_need = len(f3.sweeps()["p"])
    p_runs = res3["p"].summary
    g11 = f3.grid.fig11
    glue_text("t1_coverage", f"(T, d) = ({g11.T}, {', '.join(map(str, g11.d))}) and the p-runs at T = {f3.grid.T_p}, "
                             f"d ∈ {{{', '.join(map(str, f3.grid.d))}}}, {len(f3.grid.seeds)} seeds")
    checked = []
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))

    # (a) Figure 11: each seed's held-out loss against step / (steps to 0.1), laptop model and Table 1's.
    ax = axes[0]
    laptop = res11_cpu["curves"].curves
    laptop = laptop[laptop["d"] == laptop["d"].max()]
    ours = res11["curves"].curves if have11 else laptop.iloc[:0]
    for curves, color, label in ((laptop, "0.6", "laptop model"), (ours, "C0", "Table 1's model")):
        for i, ((d, seed), g) in enumerate(curves.groupby(["d", "seed"])):
            t01 = first_crossing(g["step"], g["loss_no_repetition"], 0.1, log=True)
            if np.isfinite(t01):
                ax.plot(g["step"] / t01, g["loss_no_repetition"], color=color, lw=1.4,
                        label=f"{label}, $T$ = {int(g['T'].iloc[0])}, $d$ = {d}" if i == 0 else None)
    ax.axhline(0.1, color="0.5", ls=":", lw=1)
    ax.set(yscale="log", xlim=(0, 2), xlabel="step / steps to 0.1", ylabel="held-out loss",
           title="Figure 11: every seed's drop")
    ax.legend(fontsize=9, loc="lower left")
    sharp = _sharpness_rows(ours if have11 == need11 else ours.iloc[:0])
    if have11 == need11 and len(sharp):
        checked.append(ctx.record("table1.figure11.sharpness", sharp["drop / plateau"].median()))
        glue_number("t1_sharp", 100 * sharp["drop / plateau"].median(), ".0f")
    else:
        claims.record_not_run("table1.figure11.sharpness", f"{have11} of {need11} runs")
        glue_text("t1_sharp", "not yet run")

    # (b, c) Figure 12: seed 0, the base lr, the largest d: the training distribution against no repetition.
    timing = pd.DataFrame(columns=["d", "p", "0.4 on training distribution", "0.4 without repetition"])
    if len(p_runs) == p_need:
        pc = res3["p"].curves
        d_max = pc["d"].max()
        pc = pc[(pc["seed"] == 0) & (pc["lr"] == f3.grid.lr) & (pc["d"] == d_max)]
        colors = plotting.hue_colors(pc["p"])
        rows = []
        for p, g in pc.groupby("p"):
            train = g["loss_train_distribution"].fillna(g["loss_no_repetition"])
            axes[1].plot(g["step"], train, color=colors[p], label=f"$p$ = {p:g}")
            axes[2].plot(g["step"], g["loss_no_repetition"], color=colors[p], label=f"$p$ = {p:g}")
            rows.append({"d": d_max, "p": p, "0.4 on training distribution": first_crossing(g["step"], train, 0.4, log=True),
                         "0.4 without repetition": first_crossing(g["step"], g["loss_no_repetition"], 0.4, log=True)})
        timing = pd.DataFrame(rows)
        big = timing[timing["p"] > 0]
        ratio = (big["0.4 on training distribution"] / big["0.4 without repetition"]).max()
        checked.append(ctx.record("table1.figure12.training_first", ratio))
        glue_number("t1_ratio12", ratio, ".2f")
        for ax, what in ((axes[1], "training distribution"), (axes[2], "no repetition")):
            ax.set_title(f"Figure 12, $d$ = {d_max}: {what}")
    else:
        claims.record_not_run("table1.figure12.training_first", f"{len(p_runs)} of {p_need} runs")
        glue_text("t1_ratio12", "not yet run")
    for ax in axes[1:]:
        ax.set(yscale="log", xlabel="step")
        ax.axhline(0.4, color="0.5", ls=":", lw=1)
    axes[1].set_ylabel("loss")
    if axes[1].get_legend_handles_labels()[0]:
        axes[1].legend(fontsize=9)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig11_table1", fig)
    return SimpleNamespace(sharp=sharp, timing=timing, checked=checked, runs=(have11 + len(p_runs), need11 + p_need))
