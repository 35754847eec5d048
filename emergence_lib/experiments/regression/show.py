"""Chapters 03 (Figure 3) and A3 (Figures 11, 12): a Transformer on single-location regression."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import claims, plotting
from ...metrics import (add_cross_sample_factor, compare_fits, first_crossing, fit_offset_power_law, fit_power_law,
                        lack_of_fit_test, mean_over_seeds, plateau_level)
from ...paper import PAPER
from ...report import format_number, glue_figure, glue_number, glue_text, show_table
from ...sweep import SweepResult
from ...tasks import SingleLocationRegression
from ..context import Context
from . import read
from .runs import Figure3

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
    # The fit is on seed means (each point once); the test says whether the seeds could have been counted as points.
    lof = lack_of_fit_test(tables["joint_seeds"], ["d", "T", "B"], "plateau_length")
    show_table(pd.DataFrame([lof]), "Figure 3: lack-of-fit F test of the power law on every seed (small p: the law "
                                    "misfits the points by more than seeds scatter; the fit above uses point means)")
    glue_text("fig3_lack_of_fit", f"F = {lof['F']:.1f} on ({lof['df_lack']:.0f}, {lof['df_pure']:.0f}), "
                                  f"p = {format_number(lof['p'], '.2g')}")
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
    for curves, color, label in ((laptop, "0.6", "laptop model"), (ours, "C0", "The paper's model")):
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
        claims.record_not_run("table1.figure11.sharpness", "not run yet")
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
        claims.record_not_run("table1.figure12.training_first", "not run yet")
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
