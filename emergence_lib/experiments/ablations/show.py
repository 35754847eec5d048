"""Chapter A4 (Figures 13–15): Transformer ablations on single-location regression."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
import numpy as np
import pandas as pd

from ... import plotting
from ...paper import PAPER
from . import read
from .runs import TASK_VARIANTS, AblationGrid
from ...metrics import compare_fits, fit_power_law, lack_of_fit_test, mean_over_seeds, t_quantile_975
from ...report import glue_figure, glue_number, glue_text, show_table
from ...sweep import SweepResult
from ..context import Context

Results = dict[str, SweepResult]
paper = PAPER


def costs(*results: tuple[str, Results]) -> None:
    """Per figure: runs, the CPU-minutes they took (summed over runs) and their statuses."""
    def runs_and_time(results):
        s = pd.concat([r.summary for r in results.values()]).drop_duplicates("run")
        return len(s), s["seconds"].sum() / 60, ", ".join(f"{k}: {v}" for k, v in s["status"].value_counts().items())

    show_table(pd.DataFrame([{"figure": n, "runs": k, "CPU-minutes (sum over runs)": m, "status": st}
                             for n, res in results for k, m, st in [runs_and_time(res)]]),
               "Figures 13–15: runs and what they cost")


def figure13(res13: Results, grid: AblationGrid) -> SimpleNamespace:
    """Figure 13: plateau vs d per head count, one panel per depth at the largest T, with the joint law
    C·d^α·T^β·L^λ·H^η (glued: fig13, fig13_*)."""
    table13, fit13 = read.figure13_fit(res13)
    assert np.isfinite(table13["plateau_length"]).all(), "every architecture must emerge within its budget"
    T_show = table13["T"].max()
    fig, axes = plt.subplots(1, len(grid.layers), figsize=(4.2 * len(grid.layers), 4.2), sharey=True, squeeze=False)
    for ax, L in zip(axes[0], grid.layers):
        sub = table13[(table13["layers"] == L) & (table13["T"] == T_show)]
        plotting.plot_plateau_vs_x(ax, sub, hue="heads", fit=fit13, paper_law=paper["figure13"], legend=False)
        ax.set_title(f"$L$ = {L}, $T$ = {T_show}")
    axes[0, 0].legend(*axes[0, 0].get_legend_handles_labels())
    axes[0, 0].set_ylabel("plateau length (steps)")
    plotting.label_panels(axes[0])
    fig.tight_layout()
    glue_figure("fig13", fig)
    fits13 = compare_fits(table13, ["d", "T", "layers", "heads"], paper["figure13"])
    glue_number("fig13_T_show", T_show, "d")
    glue_text("fig13_law", plotting.law_label(fit13.constant, fit13.exponents))
    glue_number("fig13_r2", fit13.r2, ".3f")
    for k in ("d", "T", "layers", "heads"):
        glue_number(f"fig13_{k}", fit13.exponents[k], ".2f")
    return SimpleNamespace(table13=table13, fit13=fit13, fits13=fits13)


def ordering_sentence(z: float) -> str:
    """How the paper's ordering (heads cost more than layers) stands, chosen from z = (η − λ) / its standard error:
    the words follow the number (two standard errors to say it holds)."""
    if not np.isfinite(z):
        return "cannot be read from this fit"
    if z >= 2:
        return f"holds here, by {z:.1f} standard errors"
    if z > 0:
        return f"is seen here only by {z:.1f} standard errors, within the noise of this grid"
    return f"does not hold here ({z:.1f} standard errors the other way)"


def figure13_ratios(f13: SimpleNamespace, ctx: Context) -> SimpleNamespace:
    """Each architecture's plateau over the 1×1 model's, and the layer and head exponents with their errors
    (glued: fig13_se_l, fig13_se_h, fig13_z, fig13_order)."""
    table13, fit13 = f13.table13, f13.fit13
    checked = []
    base = table13[(table13["layers"] == 1) & (table13["heads"] == 1)].set_index(["d", "T"])["plateau_length"]
    table13["ratio to 1×1"] = table13["plateau_length"].to_numpy() / base.loc[list(zip(table13["d"], table13["T"]))].to_numpy()
    ratios = table13.pivot_table(index="layers", columns="heads", values="ratio to 1×1", aggfunc=lambda v: float(np.exp(np.mean(np.log(v)))))
    ratios.columns = [f"H = {h}" for h in ratios.columns]
    show_table(ratios.rename_axis("L"), "Figure 13: plateau over the 1-layer, 1-head model's (geometric mean over (d, T))", index=True, key=True)
    lam, eta = fit13.exponents["layers"], fit13.exponents["heads"]
    se_l, se_h = fit13.stderr["layers"], fit13.stderr["heads"]
    z = (eta - lam) / np.hypot(se_l, se_h)
    glue_number("fig13_se_l", se_l, ".3f")
    glue_number("fig13_se_h", se_h, ".3f")
    glue_number("fig13_z", z, ".1f")
    glue_text("fig13_order", ordering_sentence(z))
    checked += [ctx.record_fit("figure13.heads_exponent", fit13, "heads"),
                ctx.record_fit("figure13.layers_exponent", fit13, "layers")]
    checked.append(ctx.record_fit("figure13.d_exponent", fit13, "d"))
    return SimpleNamespace(lam=lam, eta=eta, se_l=se_l, se_h=se_h, checked=checked)


def figure14(res14: Results) -> SimpleNamespace:
    """Figure 14: plateau vs d per T for each task variant, with its law (glued: fig14, fig14_beta<i>)."""
    fits14, tables14 = {}, {}
    fig, axes = plt.subplots(1, 3, figsize=(12.5, 4.4), sharey=True)
    for ax, name in zip(axes, TASK_VARIANTS):
        t = read.seed_means(res14[name])
        assert np.isfinite(t["plateau_length"]).all(), f"{name}: every run must emerge"
        tables14[name], fits14[name] = t, fit_power_law(t, ["d", "T"])
        plotting.plot_plateau_vs_x(ax, t, hue="T", fit=fits14[name], paper_law=paper["figure14 " + name], legend=False)
        ax.set_title(name)
    # Below the panels, never on a curve, with the line styles named once (issue 60 item 7).
    handles, labels = axes[0].get_legend_handles_labels()
    handles += [Line2D([], [], color="0.3", ls="-"), Line2D([], [], color="0.3", ls=":")]
    labels += ["our fitted law", "the paper's law"]
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False, bbox_to_anchor=(0.5, -0.02))
    axes[0].set_ylabel("plateau length (steps)")
    plotting.label_panels(axes)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    glue_figure("fig14", fig)
    rows = []
    for name, f in fits14.items():
        ref = paper["figure14 " + name]
        # An exponent and its standard error in one cell: eleven columns were wider than the page's column.
        rows.append({"variant": name, "C": f.constant, "α (d) ± s.e.": f"{f.exponents['d']:.2f} ± {f.stderr['d']:.2f}",
                     "β (T) ± s.e.": f"{f.exponents['T']:.2f} ± {f.stderr['T']:.2f}", "R²": f.r2,
                     "paper C": ref["C"], "paper α": ref["d"], "paper β": ref["T"], "paper R²": ref["R2"]})
    fit14_table = pd.DataFrame(rows)
    for i, name in enumerate(fits14):
        glue_number(f"fig14_beta{i}", fits14[name].exponents["T"], ".2f")
    return SimpleNamespace(fits14=fits14, tables14=tables14, fit14_table=fit14_table)


def figure14_longer(res14: Results, budget: int) -> pd.DataFrame:
    """Figure 14 over longer contexts: plateau vs T per variant and d, and each variant's T exponent (glued: fig14_long)."""
    longer = res14["longer contexts"].summary
    rows, fits14_long = [], {}
    fig, ax = plt.subplots(figsize=(8, 4.6))
    styles = dict(zip(TASK_VARIANTS, ["o-", "s--", "^:"]))
    for name, (rand, feat) in TASK_VARIANTS.items():
        base = res14[name].summary
        runs = pd.concat([base[base["d"].isin(longer["d"].unique())],
                          longer[(longer["random_position"] == rand) & (longer["relevance_feature"] == feat)]]) if len(longer) else base
        t = mean_over_seeds(runs, ["d", "T"])
        ok = t[np.isfinite(t["plateau_length"])]
        fits14_long[name] = f = fit_power_law(ok, ["d", "T"])
        rows.append({"variant": name, "T values": str(sorted(int(v) for v in t["T"].unique())),
                     "d values": str(sorted(int(v) for v in t["d"].unique())),
                     "β (T)": f.exponents["T"], "± β": f.stderr["T"], "α (d)": f.exponents["d"], "R²": f.r2,
                     "points not reached": ", ".join(f"(d {int(r.d)}, T {int(r.T)}): {r.n_reached}/{r.n_seeds} seeds"
                                                     for r in t[~np.isfinite(t["plateau_length"])].itertuples()) or "—"})
        for d, g in t.groupby("d"):
            color = plotting.hue_colors(t["d"])[d]
            ax.plot(g["T"], g["plateau_length"].clip(upper=budget), styles[name], color=color, label=f"{name}, $d$ = {d}")
            miss = g[~np.isfinite(g["plateau_length"])]
            ax.plot(miss["T"], [budget] * len(miss), "^", color=color, mfc="none", ms=10)
    ax.set(xscale="log", yscale="log", xlabel="$T$", ylabel="plateau length (steps)")
    plotting.plain_log_ticks(ax)  # "3 × 10¹4 × 10¹" once ran together on the T axis
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1))
    glue_figure("fig14_long", fig)
    long_table = pd.DataFrame(rows)
    return long_table


def figure14_spread(res14: Results) -> pd.DataFrame:
    """The spread of each seed's plateau around its point's seed mean, per variant; shown with every fixed-position run."""
    spread_rows = []
    for name, (rand, feat) in TASK_VARIANTS.items():
        if rand:
            s = res14[name].summary
            runs = s.assign(**{"plateau / seed mean": s["plateau_length"] / s.groupby(["d", "T"])["plateau_length"].transform("mean")})
        else:
            runs = read.fixed_position_spread(res14[name])
        ratio = runs["plateau / seed mean"]
        spread_rows.append({"variant": name, "runs": len(runs), "min": ratio.min(), "max": ratio.max(),
                            "std of plateau / seed mean": ratio.std()})
    spread = pd.DataFrame(spread_rows).set_index("variant")
    show_table(spread, "Figure 14: spread of each seed's plateau around its point's seed mean", index=True)
    fixed_runs = read.fixed_position_spread(res14["feature + fixed position"])
    show_table(fixed_runs, "Figure 14: every run with a fixed position (feature present), with its position")
    return spread


def figure14_position_cost(fits14: dict, ctx: Context) -> SimpleNamespace:
    """The T exponent a random position adds over a fixed one, in standard errors (glued: fig14_gap, fig14_gap_se)."""
    checked = []
    beta = {name: f.exponents["T"] for name, f in fits14.items()}
    se = {name: f.stderr["T"] for name, f in fits14.items()}
    rand, fixed, nofeat = "feature + random position", "feature + fixed position", "no feature + fixed position"
    gap = (beta[rand] - beta[fixed]) / np.hypot(se[rand], se[fixed])
    glue_number("fig14_gap", beta[rand] - beta[fixed], "+.2f")
    glue_number("fig14_gap_se", gap, ".1f")
    # The difference of two independent fits' exponents: its standard error in quadrature, t on the smaller fit's
    # residual degrees of freedom (the conservative choice).
    t = t_quantile_975(max(min(fits14[rand].n, fits14[fixed].n) - len(fits14[rand].predictors) - 1, 1))
    half = t * np.hypot(se[rand], se[fixed])
    checked.append(ctx.record("figure14.position_cost", beta[rand] - beta[fixed],
                                 interval=(beta[rand] - beta[fixed] - half, beta[rand] - beta[fixed] + half)))
    checked += [ctx.record_fit("figure14.d_exponent_random_position", fits14[rand], "d"),
                ctx.record_fit("figure14.d_exponent_fixed_position", fits14[fixed], "d"),
                ctx.record_fit("figure14.d_exponent_no_feature", fits14[nofeat], "d"),
                ctx.record_fit("figure14.T_exponent_no_feature", fits14[nofeat], "T")]
    return SimpleNamespace(beta=beta, gap=gap, rand=rand, fixed=fixed, nofeat=nofeat, checked=checked)


def figure15_search(res15: Results, grid: AblationGrid) -> SimpleNamespace:
    """Figure 15's learning-rate search at one (T, d), with the lrs the grid uses dotted (glued: fig15_search, fig15_*)."""
    search = read.search_table(res15["search"])
    T_s, d_s = grid.fig15.search_point
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for opt, g in search.groupby("optimizer"):
        ok = g[np.isfinite(g["plateau_length"])].sort_values("lr")
        ax.plot(ok["lr"], ok["plateau_length"], "o-", label=opt)
        bad = g[~np.isfinite(g["plateau_length"])]
        ax.plot(bad["lr"], [ok["plateau_length"].max()] * len(bad), "x", color=ax.lines[-1].get_color(), ms=9, label=f"{opt}: diverged")
    chosen = {"sgd": grid.fig15.sgd_lr, "adam": grid.fig15.adam_lr}
    for opt, lr in chosen.items():
        ax.axvline(lr, ls=":", color="0.5")
    ax.set(xscale="log", yscale="log", xlabel="learning rate", ylabel="plateau length (steps)")
    ax.legend()
    glue_figure("fig15_search", fig)
    glue_number("fig15_Ts", T_s, "d")
    glue_number("fig15_ds", d_s, "d")
    glue_number("fig15_sgd_lr", chosen["sgd"], "g")
    glue_number("fig15_adam_lr", chosen["adam"], "g")
    return SimpleNamespace(search=search, chosen=chosen)


def figure15(res15: Results, grid: AblationGrid, chosen: dict[str, float], ctx: Context) -> SimpleNamespace:
    """Figure 15: SGD against Adam, plateau vs d per T with each law, and Adam's speed-up per point
    (glued: fig15, fig15_*)."""
    checked = []
    fits15, tables15 = {}, {}
    budgets = {"sgd": grid.fig15.sgd_max_steps, "adam": grid.max_steps}
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.4))
    for ax, opt in zip(axes, ["sgd", "adam"]):
        t = read.seed_means(res15[opt]).assign(final_time=budgets[opt])  # final_time: where a censored point is drawn
        ok = t[np.isfinite(t["plateau_length"])]
        assert len(ok) >= len(t) - 1, f"{opt}: at most one grid point may miss its budget"
        tables15[opt], fits15[opt] = t, fit_power_law(ok, ["d", "T"])
        plotting.plot_plateau_vs_x(ax, t, hue="T", fit=fits15[opt], paper_law=paper["figure15 " + opt], legend=False)
        ax.set_title(f"{opt.upper()}, lr {chosen[opt]:g}")
        ax.set_ylabel("plateau length (steps)")
    axes[0].legend(*axes[0].get_legend_handles_labels(), loc="upper left", fontsize="x-small")
    both = tables15["sgd"].merge(tables15["adam"], on=["d", "T"], suffixes=("_sgd", "_adam"))
    both["SGD within budget"] = np.isfinite(both["plateau_length_sgd"])
    # Where SGD missed its budget, the budget stands in for its plateau: the speed-up is then a lower bound.
    both["speed-up"] = both["plateau_length_sgd"].clip(upper=budgets["sgd"]) / both["plateau_length_adam"]
    for T, g in both.groupby("T"):
        axes[2].plot(g["d"], g["speed-up"], "o-", color=plotting.hue_colors(both["T"])[T], label=f"$T$ = {T}")
    axes[2].set(xscale="log", yscale="log", xlabel="$d$", ylabel="SGD plateau / Adam plateau")
    axes[2].set_xticks(sorted(both["d"].unique()), [f"{v:g}" for v in sorted(both["d"].unique())])
    axes[2].xaxis.set_minor_locator(plt.NullLocator())
    axes[2].legend()
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig15", fig)
    top = both.loc[both["speed-up"].idxmax()]
    missed = both[~both["SGD within budget"]]
    glue_text("fig15_missed", "; ".join(f"SGD did not reach 0.1 within {budgets['sgd']:,} steps at d = {r['d']:g}, T = {r['T']:g} "
                                        f"(in at least one seed), where Adam took {r['plateau_length_adam']:,.0f}: a speed-up of at "
                                        f"least {r['speed-up']:.0f}×" for _, r in missed.iterrows()) or "SGD reached 0.1 at every point")
    glue_number("fig15_top", top["speed-up"], ".0f")
    glue_number("fig15_low", both["speed-up"].min(), ".0f")
    glue_number("fig15_sgd_T", fits15["sgd"].exponents["T"], ".2f")
    glue_number("fig15_adam_T", fits15["adam"].exponents["T"], ".2f")
    glue_number("fig15_sgd_d", fits15["sgd"].exponents["d"], ".2f")
    glue_number("fig15_adam_d", fits15["adam"].exponents["d"], ".2f")
    checked += [ctx.record("figure15.adam_speedup", top["speed-up"]),
                ctx.record_fit("figure15.sgd_T_exponent", fits15["sgd"], "T")]
    checked += [ctx.record_fit("figure15.adam_d_exponent", fits15["adam"], "d"),
                ctx.record_fit("figure15.adam_T_exponent", fits15["adam"], "T")]
    return SimpleNamespace(fits15=fits15, tables15=tables15, both=both, checked=checked)


def lack_of_fit(res13: Results, res14: Results, res15: Results) -> pd.DataFrame:
    """Every fit of this chapter (Figures 13–15) with the lack-of-fit F test of its law on every seed (issue 36
    item 5). Each fit above is on point means, so its intervals stand whatever the test says; the test says whether
    the law misfits the points by more than seeds scatter, i.e. whether counting seeds as points would have been
    wrong. Figure 13 has one seed per configuration: no pure error, no test (glued: a4_lack_of_fit)."""
    arch = res13["architectures"].summary.rename(columns={"n_layers": "layers", "n_heads": "heads"})
    fits = [("Figure 13: d, T, layers, heads", arch, ["d", "T", "layers", "heads"])]
    fits += [(f"Figure 14 ({name}): d, T", res14[name].summary, ["d", "T"]) for name in TASK_VARIANTS]
    fits += [(f"Figure 15 ({opt.upper()}): d, T", res15[opt].summary, ["d", "T"]) for opt in ("sgd", "adam")]
    rows = []
    for fit, runs, predictors in fits:
        finite = runs[np.isfinite(runs["plateau_length"])]
        lof = lack_of_fit_test(finite, predictors, "plateau_length")
        rows.append({"fit": fit, "points": finite.groupby(predictors).ngroups, "runs": len(finite), **lof,
                     "rejects at 5%": bool(lof["p"] < 0.05) if np.isfinite(lof["p"]) else None})
    table = pd.DataFrame(rows)
    tested = table[np.isfinite(table["p"])]
    rejected = tested[tested["rejects at 5%"] == True]  # noqa: E712 (a column of True, False and None)
    untested = table[~np.isfinite(table["p"])]
    parts = [f"the test rejects the law in {len(rejected) or 'none'} of the {len(tested)} fits it can test"
             + (f" ({', '.join(rejected['fit'])})" if len(rejected) else "")]
    if len(untested):
        parts.append(f"it cannot test {', '.join(untested['fit'])}, which has one seed per configuration "
                     "(no scatter of seeds to compare the misfit with)")
    glue_text("a4_lack_of_fit", "; ".join(parts))
    return table
