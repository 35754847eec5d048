"""Chapters 04 (Figures 4, 5) and A5 (Figures 16, 17): associative recall."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from ... import plotting
from ...paper import PAPER
from . import read
from .runs import PLACEMENT_SETUPS, RECALL_GRIDS, RecallGrid
from ...metrics import first_crossing, lack_of_fit_test, wilson_interval
from ...report import format_number, glue_figure, glue_number, glue_text, show_table
from ...sweep import SweepResult
from ..context import Context

Results = dict[str, SweepResult]


def settings(res4: Results, res5: Results, grid: RecallGrid) -> None:
    """The paper's set-up beside this scale's, and what the runs cost (fig4_runs, fig4_cpu_minutes)."""
    table = pd.DataFrame({"paper (Table 1, §3)": RECALL_GRIDS["paper"].describe(), "this run": grid.describe()})
    show_table(table.rename_axis("setting").map(str), "Figures 4–5: the paper's set-up and this run's", index=True)
    s = pd.concat([res4["grid"].summary, res5["B"].summary, res5["p"].summary]).drop_duplicates("run")
    glue_number("fig4_runs", len(s), "d")
    glue_number("fig4_cpu_minutes", s["seconds"].sum() / 60, ".0f")


def figure4(res4: Results, grid: RecallGrid, ctx: Context) -> SimpleNamespace:
    """Figure 4: accuracy and loss over training at the largest vocabulary, and steps to the threshold against
    N_tokens per N_pairs with the fitted law, at the best learning rate per point (glued: fig4, fig4_*)."""
    threshold = grid.threshold
    summary4 = res4["grid"].summary
    every_lr, best = read.best_lr_table(summary4)
    V_max = max(grid.n_tokens)
    curves = res4["grid"].curves
    assert np.isfinite(best["emergence_step"]).all(), "every configuration must emerge at its best lr"
    table4, fit4 = read.figure4_fit(best)
    paper4 = PAPER["figure4"]
    # The fit is on seed means at each point's best lr; the test asks whether its seeds could be counted as points.
    at_best = summary4.merge(best[["n_tokens", "n_pairs", "lr"]], on=["n_tokens", "n_pairs", "lr"])
    lof = lack_of_fit_test(at_best, ["n_tokens", "n_pairs"], "emergence_step")
    glue_text("fig4_lack_of_fit", f"F = {lof['F']:.1f} on ({lof['df_lack']:.0f}, {lof['df_pure']:.0f}), "
                                  f"p = {format_number(lof['p'], '.2g')}")

    fig, axes = plt.subplots(1, 3, figsize=(13, 4.4))
    colors = plotting.hue_colors(grid.n_pairs)
    for N in grid.n_pairs:
        row = best[(best["n_tokens"] == V_max) & (best["n_pairs"] == N)]
        if not len(row):
            continue
        lr = float(row["lr"].iloc[0])
        c = curves[(curves["n_tokens"] == V_max) & (curves["n_pairs"] == N) & np.isclose(curves["lr"], lr) & (curves["seed"] == grid.seeds[0])]
        axes[0].plot(c["step"], c["accuracy_test"], color=colors[N], label=f"$N_\\mathrm{{pairs}}$ = {N}")
        axes[0].axhline(1 / N, color=colors[N], ls=":", lw=1)
        axes[1].plot(c["step"], c["loss_test"], color=colors[N], label=f"$N_\\mathrm{{pairs}}$ = {N}")
        # runs stop at 1.5× their emergence step: a bar marks each deliberate end
        for ax, col in [(axes[0], "accuracy_test"), (axes[1], "loss_test")]:
            ax.plot(c["step"].iloc[-1:], c[col].iloc[-1:], "|", color=colors[N], ms=12, mew=2)
    axes[0].axhline(1 / V_max, color="0.4", ls=":", lw=1)
    axes[0].axhline(threshold, color="0.6", ls="--", lw=1)
    axes[0].set(xlabel="step", ylabel="test accuracy")
    axes[1].set(xlabel="step", ylabel="test loss (cross-entropy)")
    axes[0].legend()
    plotting.plot_plateau_vs_x(axes[2], table4, hue="N_pairs", x="N_tokens", y="emergence_step", fit=fit4, paper_law=paper4,
                               paper_label="paper (at 5%): " + plotting.law_label(paper4["C"], {k: paper4[k] for k in ("N_tokens", "N_pairs")}))
    axes[2].set_ylabel(f"steps to {threshold:.0%} test accuracy")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig4", fig)
    alpha, beta = fit4.exponents["N_tokens"], fit4.exponents["N_pairs"]
    glue_number("fig4_V", V_max, "d")
    glue_number("fig4_threshold", 100 * threshold, ".0f")
    glue_number("fig4_alpha", alpha, ".2f")
    glue_number("fig4_beta", beta, ".2f")
    glue_number("fig4_alpha_se", fit4.stderr["N_tokens"], ".2f")
    glue_number("fig4_beta_se", fit4.stderr["N_pairs"], ".2f")
    glue_number("fig4_r2", fit4.r2, ".3f")
    checked = [ctx.record_fit("figure4.pairs_exponent", fit4, "N_pairs"),
               ctx.record_fit("figure4.tokens_exponent", fit4, "N_tokens")]
    return SimpleNamespace(every_lr=every_lr, best=best, table4=table4, fit4=fit4, alpha=alpha, beta=beta, paper4=paper4,
                           checked=checked)


def threshold_table(res4: Results, grid: RecallGrid, best: pd.DataFrame) -> SimpleNamespace:
    """Steps to 5% (the paper's), 2/N_pairs and this scale's threshold, with the accuracy held during the plateau;
    and the law refitted at 2/N_pairs (glued: fig4_pairs_alpha, fig4_pairs_beta)."""
    threshold, summary4 = grid.threshold, res4["grid"].summary
    paper_key, pairs_key, ours_key = "5% (paper)", "2/N_pairs", f"{threshold:.0%} (this scale)"
    levels: dict[str, float | dict[int, float]] = {paper_key: 0.05, pairs_key: {N: 2 / N for N in grid.n_pairs}, ours_key: threshold}
    runs_best = summary4.merge(best[["n_tokens", "n_pairs", "lr"]], on=["n_tokens", "n_pairs", "lr"])
    best_res = res4["grid"].subset(runs_best["run"])
    rows = []
    for name, level in levels.items():
        t = read.crossing_steps(best_res, level)
        m = t.groupby(["n_tokens", "n_pairs"])["emergence_step"].mean()
        for (V, N), v in m.items():
            rows.append({"N_tokens": V, "N_pairs": N, "threshold": name, "steps": v})
    plateau_acc = []
    for meta, c in best_res.per_run():
        end = meta["emergence_step"]
        inside = (c["step"] > 0) & (c["step"] <= 0.5 * end) if np.isfinite(end) else c["step"] > 0
        plateau_acc.append({"N_tokens": meta["n_tokens"], "N_pairs": meta["n_pairs"], "plateau accuracy": c.loc[inside, "accuracy_test"].median()})
    thresholds = pd.DataFrame(rows).pivot_table(index=["N_pairs", "N_tokens"], columns="threshold", values="steps")
    thresholds = thresholds.join(pd.DataFrame(plateau_acc).groupby(["N_pairs", "N_tokens"]).mean())
    thresholds["1/N_pairs"] = [1 / N for N, _ in thresholds.index]
    show_table(thresholds, "Figure 4: steps to three accuracy levels (best lr, seed means), and the accuracy during the plateau", index=True)
    # The same fit at the 2/N_pairs threshold, where it is above the plateau (a check that 50% is not special):
    pairs_t = read.crossing_steps(best_res, levels[pairs_key])
    _, fit_pairs = read.figure4_fit(read.best_lr_table(pairs_t)[1]) if np.isfinite(pairs_t["emergence_step"]).all() else (None, None)
    glue_number("fig4_pairs_beta", fit_pairs.exponents["N_pairs"] if fit_pairs is not None else float("nan"), ".2f")
    glue_number("fig4_pairs_alpha", fit_pairs.exponents["N_tokens"] if fit_pairs is not None else float("nan"), ".2f")
    return SimpleNamespace(thresholds=thresholds, fit_pairs=fit_pairs, paper_key=paper_key, ours_key=ours_key)


def learning_rates(res4: Results, every_lr: pd.DataFrame, best: pd.DataFrame) -> None:
    """Mean steps at each candidate learning rate, the chosen one, and the probe of a larger lr (glued: fig4_chosen_lr)."""
    summary4 = res4["grid"].summary
    lr_table = every_lr.pivot_table(index=["n_pairs", "n_tokens"], columns="lr", values="emergence_step")
    lr_table.columns = [f"lr {c:g}" for c in lr_table.columns]
    lr_table["chosen lr"] = best.set_index(["n_pairs", "n_tokens"])["lr"].map("{:g}".format)
    show_table(lr_table, "Figure 4: mean steps to the threshold at each candidate learning rate", index=True, collapsed=True)
    chosen = best["lr"].unique()
    glue_text("fig4_chosen_lr", f"{chosen[0]:g} is the fastest learning rate at every point" if len(chosen) == 1
              else f"the fastest learning rate varies between points ({', '.join(f'{v:g}' for v in sorted(chosen))})")
    if len(res4["lr_probe"].summary):
        probe = read.best_lr_table(pd.concat([summary4, res4["lr_probe"].summary]))[0]
        probe = probe[probe.set_index(["n_tokens", "n_pairs"]).index.isin(res4["lr_probe"].summary.set_index(["n_tokens", "n_pairs"]).index)]
        probe = probe.pivot_table(index=["n_pairs", "n_tokens"], columns="lr", values="emergence_step")
        probe.columns = [f"lr {c:g}" for c in probe.columns]
        show_table(probe, "Figure 4: the learning-rate probe on the smallest vocabulary (mean steps; not reached: beyond the budget)", index=True)


def figure4_layer_norm(res4: Results, grid: RecallGrid, f4: SimpleNamespace, ctx: Context) -> SimpleNamespace:
    """Figure 4's law with pre-LN (the text) and without LayerNorm (Table 1), and the ratio of their steps
    (glued: fig4_ln, fig4_ln_*, fig4_noln_*)."""
    table4, fit4, paper4, threshold = f4.table4, f4.fit4, f4.paper4, grid.threshold
    no_ln = res4["grid_no_ln"].summary
    best_no_ln = read.best_lr_table(no_ln)[1]
    assert np.isfinite(best_no_ln["emergence_step"]).all(), "every configuration must emerge without LayerNorm too"
    table_no_ln, fit_no_ln = read.figure4_fit(best_no_ln)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), sharey=True)
    for ax, (name, table, fit) in zip(axes, [("pre-LN (the text; this book's default)", table4, fit4),
                                             ("no LayerNorm (Table 1)", table_no_ln, fit_no_ln)]):
        plotting.plot_plateau_vs_x(ax, table, hue="N_pairs", x="N_tokens", y="emergence_step", fit=fit, legend=False)
        ax.legend(loc="upper left")
        ax.set_title(name)
    axes[0].set_ylabel(f"steps to {threshold:.0%} test accuracy")
    axes[1].set_ylabel("")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig4_ln", fig)
    readings = pd.DataFrame([
        {"reading": "paper (5% test accuracy)", "C": paper4["C"], "α (N_tokens)": paper4["N_tokens"], "β (N_pairs)": paper4["N_pairs"], "R²": paper4["R2"]},
        *[{"reading": name, "C": f.constant, "α (N_tokens)": f.exponents["N_tokens"], "β (N_pairs)": f.exponents["N_pairs"], "R²": f.r2,
           "± α": f.stderr["N_tokens"], "± β": f.stderr["N_pairs"]}
          for name, f in [("ours, pre-LN", fit4), ("ours, no LayerNorm", fit_no_ln)]],
    ])
    ratio = table4.merge(table_no_ln, on=["N_tokens", "N_pairs"], suffixes=("_pre_ln", "_no_ln"))
    ratio["pre-LN / no LN"] = ratio["emergence_step_pre_ln"] / ratio["emergence_step_no_ln"]
    ratio_wide = ratio.pivot_table(index="N_pairs", columns="N_tokens", values="pre-LN / no LN")
    ratio_wide.columns = [f"N_tokens = {c}" for c in ratio_wide.columns]
    r = ratio.set_index(["N_tokens", "N_pairs"])["pre-LN / no LN"]
    glue_number("fig4_ln_small", r.loc[(min(grid.n_tokens), min(grid.n_pairs))], ".2f")
    glue_number("fig4_ln_large", r.loc[(max(grid.n_tokens), max(grid.n_pairs))], ".2f")
    glue_number("fig4_noln_alpha", fit_no_ln.exponents["N_tokens"], ".2f")
    glue_number("fig4_noln_beta", fit_no_ln.exponents["N_pairs"], ".2f")
    glue_number("fig4_noln_runs", no_ln["run"].nunique(), "d")
    glue_number("fig4_noln_minutes", no_ln.drop_duplicates("run")["seconds"].sum() / 60, ".0f")
    checked = [ctx.record("figure4.layernorm", r.min())]
    return SimpleNamespace(readings=readings, ratio_wide=ratio_wide, r=r, fit_no_ln=fit_no_ln, checked=checked)


def figure5(res5: Results, grid: RecallGrid, ctx: Context) -> SimpleNamespace:
    """Figure 5: test accuracy and loss under in-context (B) and cross-sample (p) repetition, and the speed-ups
    (glued: fig5, fig5_V, fig5_N, fig5_sB, fig5_sp)."""
    f5, threshold = grid.fig5, grid.threshold
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    speed = {}
    for j, (by, res) in enumerate([("B", res5["B"]), ("p", res5["p"])]):
        c = res.curves
        colors = plotting.hue_colors(c[by])
        for v, g in c.groupby(by):
            m = g.groupby("step")[["accuracy_test", "loss_test"]].mean()
            axes[0, j].plot(m.index, m["accuracy_test"], color=colors[v], label=f"${by}$ = {v:g}")
            axes[1, j].plot(m.index, m["loss_test"], color=colors[v], label=f"${by}$ = {v:g}")
        axes[0, j].axhline(threshold, color="0.6", ls="--", lw=1)
        axes[0, j].set(ylabel="test accuracy (no repetition)", title="in-context repetition $B$" if by == "B" else "cross-sample repetition $p$")
        axes[1, j].set(xlabel="step", ylabel="test loss")
        axes[0, j].legend()
        speed[by] = read.speedups(res.summary, by)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig5", fig)
    sB, sp = speed["B"].set_index("B"), speed["p"].set_index("p")
    glue_number("fig5_V", f5.n_tokens, "d")
    glue_number("fig5_N", f5.n_pairs, "d")
    glue_number("fig5_sB", sB.loc[sB.index > 1, "speedup"].max(), ".1f")
    glue_number("fig5_sp", sp.loc[sp.index > 0, "speedup"].max(), ".1f")
    checked = [ctx.record("figure5.in_context_speedup", sB.loc[sB.index > 1, "speedup"].max()),
               ctx.record("figure5.cross_sample_speedup", sp.loc[sp.index > 0, "speedup"].max())]
    return SimpleNamespace(speed=speed, sB=sB, sp=sp, checked=checked)


def overfitting(res5: Results, threshold: float, f5: SimpleNamespace, ctx: Context) -> SimpleNamespace:
    """Figure 5's overfitting measures per setting (`read.repetition_table`; glued: fig5_B_*, fig5_p_*, fig5_pmax_*)."""
    sB, sp = f5.sB, f5.sp
    over = read.repetition_table({"B": res5["B"], "p": res5["p"]}, threshold)
    show_table(over, "Figure 5: overfitting measures per setting (seed means)", index=True)
    ob = over.loc["B"].reset_index().set_index("B")
    op = over.loc["p"].reset_index().set_index("p")
    B_max, p_max = ob.index.max(), op.index.max()
    B_best = sB.loc[sB.index > 1, "speedup"].idxmax()
    p_help = sp[(sp.index > 0) & (sp["speedup"] > 1)]
    for key, value, fmt in [("fig5_B_best", B_best, "d"), ("fig5_B_best_speed", sB.loc[B_best, "speedup"], ".1f"),
                            ("fig5_B_max", B_max, "d"), ("fig5_p_max", p_max, "g"),
                            ("fig5_p_help_min", p_help["speedup"].min() if len(p_help) else float("nan"), ".2f"),
                            ("fig5_p_help_max", p_help["speedup"].max() if len(p_help) else float("nan"), ".2f"),
                            ("fig5_pmax_slow", 1 / sp.loc[p_max, "speedup"], ".1f"),
                            ("fig5_pmax_train", 100 * op.loc[p_max, "final training-distribution accuracy"], ".0f"),
                            ("fig5_pmax_then", 100 * op.loc[p_max, "test accuracy then"], ".0f"),
                            ("fig5_B_lag", ob.loc[B_max, "generalisation lag"], ".0f")]:
        glue_number(key, value, fmt)
    glue_text("fig5_p_help", ", ".join(f"{v:g}" for v in p_help.index) or "none")
    checked = [ctx.record("figure5.overfitting", ob.loc[B_max, "generalisation lag"])]
    return SimpleNamespace(ob=ob, op=op, B_max=B_max, p_max=p_max, checked=checked)


def figure5_layer_norm(res5: Results, threshold: float) -> SimpleNamespace:
    """Figure 5 under both readings of LayerNorm: test accuracy (dotted: pre-LN), steps and speed-ups, and the
    overfitting measures without LayerNorm (glued: fig5_ln, fig5_ln_*)."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4), sharey=True)
    for ax, by in zip(axes, ["B", "p"]):
        for res, ls in [(res5[by], ":"), (res5[f"{by}_no_ln"], "-")]:
            colors = plotting.hue_colors(res.curves[by])
            for v, g in res.curves.groupby(by):
                m = g.groupby("step")["accuracy_test"].mean()
                ax.plot(m.index, m.to_numpy(), color=colors[v], ls=ls, lw=1.6 if ls == "-" else 1.2,
                        label=f"${by}$ = {v:g}" if ls == "-" else None)
        ax.axhline(threshold, color="0.6", ls="--", lw=1)
        ax.set(xlabel="step", title="in-context repetition $B$" if by == "B" else "cross-sample repetition $p$")
        ax.legend()
    axes[0].set_ylabel("test accuracy (no repetition)")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig5_ln", fig)
    speed_rows = []
    for reading, suffix in [("pre-LN", ""), ("no LN", "_no_ln")]:
        for by in ("B", "p"):
            for _, row in read.speedups(res5[by + suffix].summary, by).iterrows():
                speed_rows.append({"sweep": by, "value": row[by], "reading": reading, "steps to threshold (test)": row["emergence_step"],
                                   "speed-up": row["speedup"]})
    speed_both = pd.DataFrame(speed_rows).pivot_table(index=["sweep", "value"], columns="reading", values=["steps to threshold (test)", "speed-up"])
    over_no_ln = read.repetition_table({"B": res5["B_no_ln"], "p": res5["p_no_ln"]}, threshold)
    s_pre, s_none = speed_both["speed-up"]["pre-LN"], speed_both["speed-up"]["no LN"]  # index: (sweep, value)
    e_pre, e_none = speed_both["steps to threshold (test)"]["pre-LN"], speed_both["steps to threshold (test)"]["no LN"]
    glue_number("fig5_ln_minutes", pd.concat([res5["B_no_ln"].summary, res5["p_no_ln"].summary]).drop_duplicates("run")["seconds"].sum() / 60, ".0f")
    glue_number("fig5_ln_B2_pre", e_pre.loc[("B", 2)] if ("B", 2) in e_pre.index else float("nan"), ".0f")
    glue_number("fig5_ln_B2_none", e_none.loc[("B", 2)] if ("B", 2) in e_none.index else float("nan"), ".0f")
    glue_number("fig5_ln_B1_ratio", e_pre.loc[("B", 1)] / e_none.loc[("B", 1)], ".1f")
    flat = speed_both.copy()
    flat.columns = [f"{what} ({reading})" for what, reading in flat.columns]
    return SimpleNamespace(flat=flat, over_no_ln=over_no_ln, s_pre=s_pre, s_none=s_none, e_pre=e_pre, e_none=e_none)



# ---------------------------------------------------------------- chapter A5: Figures 16, 17 --


def figure16(res16: Results, grid: RecallGrid, ctx: Context) -> SimpleNamespace:
    """Figure 16: accuracy on the training distribution (solid) and test data (dotted) per B and p, and the steps
    to the threshold on each (glued: fig16, fig16_*)."""
    threshold, f5 = grid.threshold, grid.fig5
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4), sharey=True)
    rows = []
    for ax, (by, res) in zip(axes, [("B", res16["B"]), ("p", res16["p"])]):
        c = res.curves.copy()
        c["accuracy_train"] = SweepResult.training_distribution(c, "accuracy")
        colors = plotting.hue_colors(c[by])
        for v, g in c.groupby(by):
            m = g.groupby("step")[["accuracy_train", "accuracy_test"]].mean()
            ax.plot(m.index, m["accuracy_train"], color=colors[v], label=f"${by}$ = {v:g}")
            ax.plot(m.index, m["accuracy_test"], color=colors[v], ls=":", lw=1)
        for run, g in c.groupby("run"):
            meta = res.summary[res.summary["run"] == run].iloc[0]
            rows.append({"sweep": by, "value": meta[by], "seed": meta["seed"],
                         "steps to threshold (training distribution)": first_crossing(g["step"], g["accuracy_train"], threshold, direction="up"),
                         "steps to threshold (test)": meta["emergence_step"],
                         "final accuracy (training distribution)": g["accuracy_train"].iloc[-1],
                         "final accuracy (test)": g["accuracy_test"].iloc[-1]})
        ax.axhline(threshold, color="0.6", ls="--", lw=1)
        ax.set(xlabel="step", ylabel="accuracy", title="in-context repetition $B$" if by == "B" else "cross-sample repetition $p$")
        ax.legend()
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig16", fig)
    train16 = pd.DataFrame(rows).groupby(["sweep", "value"]).mean(numeric_only=True).drop(columns="seed")
    for sweep in ("B", "p"):
        t = train16.loc[sweep]
        train16.loc[sweep, "speed-up (training distribution)"] = (t["steps to threshold (training distribution)"].iloc[0] / t["steps to threshold (training distribution)"]).to_numpy()
    speedups16 = pd.concat([train16.loc[sw]["speed-up (training distribution)"].iloc[1:] for sw in ("B", "p")])
    glue_number("fig16_min_final", 100 * train16["final accuracy (training distribution)"].min(), ".0f")
    glue_number("fig16_V", f5.n_tokens, "d")
    glue_number("fig16_N", f5.n_pairs, "d")
    checked = [ctx.record("figure16.training_speedup", speedups16.min())]
    return SimpleNamespace(train16=train16, checked=checked)


def figure17(res17: Results, grid: RecallGrid) -> SimpleNamespace:
    """Figure 17: test accuracy per seed, and the value → key and query → value weights per layer and head of the
    first seed, over training (glued: fig17, fig17_seed, fig17_N)."""
    att = read.attention_summary(res17["attention"])
    L = int(att["layer"].max())
    seed0 = grid.seeds[0]
    emerge = res17["attention"].summary.set_index("seed")["emergence_step"]
    fig, axes = plt.subplots(3, L, figsize=(3.1 * L, 8.5), sharex=True, sharey="row", squeeze=False)
    curves = res17["attention"].curves
    for s, g in curves.groupby("seed"):
        for ax in axes[0]:
            ax.plot(g["step"], g["accuracy_test"], label=f"seed {s}")
    for i, kind in enumerate(["value_to_key", "query_to_value"], start=1):
        for layer in range(1, L + 1):
            ax = axes[i, layer - 1]
            sub = att[(att["kind"] == kind) & (att["layer"] == layer) & (att["seed"] == seed0)]
            for h, g in sub.groupby("head"):
                ax.plot(g["step"], g["weight"], lw=1.2, label=f"head {h}")
    for layer in range(1, L + 1):
        axes[0, layer - 1].set_title(f"layer {layer}")
    for ax in axes.ravel():
        ax.axvline(emerge[seed0], color="0.5", ls="--", lw=1)
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(0, curves["step"].max())
    axes[0, 0].set_ylabel("test accuracy")
    axes[1, 0].set_ylabel("value → key")
    axes[2, 0].set_ylabel("query → value")
    axes[1, 0].legend(fontsize="x-small")
    axes[0, 0].legend(fontsize="x-small")
    for ax in axes[-1]:
        ax.set_xlabel("step")
    fig.tight_layout()
    glue_figure("fig17", fig)
    glue_number("fig17_seed", seed0, "d")
    glue_number("fig17_N", res17["attention"].summary["n_pairs"].iloc[0], "d")
    return SimpleNamespace(att=att, emerge=emerge)


def figure17_layers(f17: SimpleNamespace, ctx: Context) -> SimpleNamespace:
    """Per pattern, seed and layer: the weight (heads averaged) at the start, end and peak, and when it rises
    (glued: fig17_vk, fig17_qv)."""
    att, emerge = f17.att, f17.emerge
    rows = []
    for (kind, s, layer), g in att.groupby(["kind", "seed", "layer"]):
        m = g.groupby("step")["weight"].mean()
        rows.append({"kind": kind, "seed": s, "layer": layer, "start": m.iloc[0], "end": m.iloc[-1], "max": m.max(),
                     "half-way step": read.rise_step(m.index.to_numpy(), m.to_numpy()), "emergence step": emerge[s]})
    layers = pd.DataFrame(rows)
    layers["half-way / emergence"] = layers["half-way step"] / layers["emergence step"]
    show_table(layers, "Figure 17: each layer's weight (heads averaged) per pattern and seed")
    top = layers.loc[layers.groupby(["kind", "seed"])["end"].idxmax()].set_index(["kind", "seed"])
    show_table(top[["layer", "end", "half-way / emergence"]], "Figure 17: the layer that carries each pattern at the end, per seed", index=True)
    head_spread = att[att["step"] == att["step"].max()].groupby(["kind", "seed", "layer"])["weight"].agg(["min", "max"])
    show_table(head_spread, "Figure 17: spread of the final weight across the heads of each layer", index=True)
    vk_layer = top.loc["value_to_key", "layer"]
    qv_layer = top.loc["query_to_value", "layer"]
    glue_text("fig17_vk", ", ".join(str(v) for v in sorted(set(vk_layer))))
    glue_text("fig17_qv", ", ".join(str(v) for v in sorted(set(qv_layer))))
    checked = [ctx.record("figure17.select_layer", qv_layer.mode().iloc[0]),
               ctx.record("figure17.copy_layer", vk_layer.mode().iloc[0])]
    return SimpleNamespace(layers=layers, top=top, vk_layer=vk_layer, qv_layer=qv_layer, checked=checked)


def figure17_placement(res17: Results, ctx: Context) -> SimpleNamespace:
    """Where copying and selection form under each set-up and number of pairs: the final weight per layer and head
    (a heat map), and the layer most seeds put each pattern in (glued: fig17_placement, fig17_place_*)."""
    place = res17["placement"]
    table = read.placement_table(place)
    where = read.placement_summary(table)
    final = read.final_attention(place)
    SETUP_NAMES = {("pre", "lookup"): "pre-LN, lookup", ("post", "lookup"): "post-LN, lookup",
                   ("none", "lookup"): "no LN, lookup", ("none", "linear"): "no LN, linear"}
    final["set-up"] = [SETUP_NAMES.get(k, f"{k[0]}, {k[1]}") for k in zip(final["layer_norm"], final["embedding"])]
    order = [SETUP_NAMES.get(k, f"{k[0]}, {k[1]}") for k in PLACEMENT_SETUPS]
    fig, axes = plt.subplots(2, 1, figsize=(11, 0.6 * final.groupby(["set-up", "n_pairs"]).ngroups + 3.5), sharex=True)
    for ax, (kind, title) in zip(axes, [("value_to_key", "copying (value → key)"), ("query_to_value", "selection (query → value)")]):
        heat = final[final["kind"] == kind].pivot_table(index=["set-up", "n_pairs"], columns=["layer", "head"], values="weight")
        heat = heat.reindex([(s, N) for s in order for N in sorted(final["n_pairs"].unique()) if (s, N) in heat.index])
        sns.heatmap(heat, ax=ax, vmin=0, vmax=1, cmap="viridis", annot=True, fmt=".1f", annot_kws={"fontsize": 9},
                    cbar_kws={"label": "weight at the end"})
        for x in range(4, heat.shape[1], 4):
            ax.axvline(x, color="white", lw=2)
        ax.set(title=title, xlabel="layer – head" if ax is axes[-1] else "", ylabel="set-up – pairs")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig17_placement", fig)
    names = [SETUP_NAMES.get(k, k) for k in zip(where["layer_norm"], where["embedding"])]
    where_view = pd.DataFrame({
        "set-up": names, "pairs": where["n_pairs"], "emerged": where["emerged"], "steps to 50%": where["emergence_step"],
        "copy layer": [f"{layer} ({a}/{e})" for layer, a, e in zip(where["copy_layer"], where["copy_agree"], where["emerged"])],
        "copy weight": where["copy_weight"],
        "select layer": [f"{layer} ({a}/{e})" for layer, a, e in zip(where["select_layer"], where["select_agree"], where["emerged"])],
        "select weight": where["select_weight"],
    })
    glue_number("fig17_place_runs", place.summary["run"].nunique(), "d")
    glue_number("fig17_place_minutes", place.summary.drop_duplicates("run")["seconds"].sum() / 60, ".0f")
    pre = where.set_index(["layer_norm", "embedding", "n_pairs"]).loc[("pre", "lookup")]
    # The distribution per set-up: how many emerged runs (seeds × pairs) put each pattern in each layer.
    emerged = table[np.isfinite(table["emergence_step"])].copy()
    emerged["set-up"] = [SETUP_NAMES.get(k, f"{k[0]}, {k[1]}") for k in zip(emerged["layer_norm"], emerged["embedding"])]
    n_layers = int(max(table["copy_layer"].max(), table["select_layer"].max(), 4))
    rows: list[dict[str, Any]] = []
    for setup in order:
        g = emerged[emerged["set-up"] == setup]
        for pattern, col in (("copying", "copy_layer"), ("selection", "select_layer")):
            counts = g[col].value_counts()
            rows.append({"set-up": setup, "pattern": pattern, "runs": len(g),
                         **{f"layer {k}": int(counts.get(k, 0)) for k in range(1, n_layers + 1)}})
    distribution = pd.DataFrame(rows)
    for row in rows:  # glued: fig17_dist_<set-up>_<pattern>, e.g. "layer 2: 9, layer 4: 3 of 12"
        slug = str(row["set-up"]).replace("-", "").replace(",", "").replace(" ", "_")
        parts = [f"layer {k}: {row[f'layer {k}']}" for k in range(1, n_layers + 1) if row[f"layer {k}"]]
        glue_text(f"fig17_dist_{slug}_{row['pattern']}", f"{', '.join(parts)} (of {row['runs']})")
    # The claims: the share of pre-LN runs (the text's reading, this book's default) in the paper's layers.
    g = emerged[(emerged["layer_norm"] == "pre") & (emerged["embedding"] == "lookup")]
    n_select4, n_copy3 = int((g["select_layer"] == 4).sum()), int((g["copy_layer"] == 3).sum())
    top = g[g["n_pairs"] == g["n_pairs"].max()] if len(g) else g  # the largest task: where the paper's layers appear
    glue_text("fig17_pre_top_select4", f"{int((top['select_layer'] == 4).sum())} of {len(top)}")
    glue_number("fig17_pre_top_pairs", g["n_pairs"].max() if len(g) else 0, "d")
    glue_text("fig17_select_layer_4_share", f"{n_select4} of {len(g)}")
    glue_text("fig17_copy_layer_3_share", f"{n_copy3} of {len(g)}")
    select4, copy3 = wilson_interval(n_select4, len(g)), wilson_interval(n_copy3, len(g))
    checked = [ctx.record("figure17.select_layer4_share", select4[0], interval=select4[1:]),
               ctx.record("figure17.copy_layer3_share", copy3[0], interval=copy3[1:])]
    glue_number("fig17_place_seeds", table["seed"].nunique(), "d")
    return SimpleNamespace(table=table, where=where, where_view=where_view, pre=pre, distribution=distribution,
                           checked=checked)
