"""Chapter B1 (beyond the paper): steering emergence with data-diversity schedules, on the toy flow,
associative recall and regression (the runs: `runs.Steering`; the tables: `read`)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import claims, plotting
from ..recall.runs import RECALL_GRIDS, Figure5
from ..context import Context
from . import read
from .runs import STEERING_GRIDS, SteeringGrid
from ...metrics import paired_seed_interval
from ...report import glue_figure, glue_number, glue_text
from ...sweep import SweepResult
from ...toy_cross_sample import linearised_step_plateaus

Results = dict[str, SweepResult]
KIND_COLORS = {"no repetition": "0.4", "constant repetition": "C3", "step": "C0", "triggered": "C2", "annealed": "C1"}


def shortcut_trigger(grid: SteeringGrid, ctx: Context) -> None:
    """The trigger not used: training accuracy 50% under heavy in-context repetition, read off Figure 5's runs
    (glued: shortcut_steps, shortcut_test)."""
    fig5_B = ctx.sweep(Figure5(scale=ctx.scale).sweeps()["B"])
    shortcut = read.training_accuracy_trigger(fig5_B, grid.recall.B, 0.5)
    glue_number("shortcut_steps", shortcut["step"].mean(), ".0f")
    glue_number("shortcut_test", shortcut["test accuracy then"].mean(), ".2f")


def toy(results: Results, grid: SteeringGrid, ctx: Context) -> SimpleNamespace:
    """The toy flow: test loss of the best schedule of each kind, plateau against the step time (flow and
    linearisation) and against the annealing half-life (glued: toy_fig, toy_*)."""
    toy = read.toy_schedule_table(results["toy"])
    g = grid.toy
    none = float(toy.loc[toy["schedule"] == "no repetition", "plateau"].iloc[0])
    constant = float(toy.loc[toy["schedule"] == "constant repetition", "plateau"].iloc[0])
    steps = toy[toy["schedule"] == "step"].sort_values("parameter")
    taus = steps["parameter"].to_numpy()
    linear = linearised_step_plateaus(g.T, g.d, g.p, taus, constant, t_max=4 * none)
    best = {kind: read.best_switch(toy, kind) for kind in ("step", "annealed", "triggered")}
    tau_lin = float(taus[np.argmin(linear)]) if np.isfinite(linear).any() else np.nan
    # The linearisation's optimum is a range (every τ ≥ the escape): its left end.
    tau_lin = float(taus[np.flatnonzero(linear <= linear.min() * (1 + 1e-3))[0]])

    curves = results["toy"].curves
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    show = {"no repetition": toy.index[toy["schedule"] == "no repetition"][0],
            "constant repetition": toy.index[toy["schedule"] == "constant repetition"][0],
            "step": best["step"].name, "triggered": best["triggered"].name}
    runs = results["toy"].summary["run"].to_numpy()
    for kind, i in show.items():
        c = curves[curves["run"] == runs[i]]
        label = kind if kind in ("no repetition", "constant repetition") else f"best {kind} ({toy.loc[i, 'setting']})"
        axes[0].plot(c["t"], c["loss"], color=KIND_COLORS[kind], label=label)
    axes[0].set(xscale="log", yscale="log", xlim=(10, g.t_max), xlabel="time", ylabel="test loss ($p$ = 0)")
    axes[0].axhline(0.1, color="0.6", lw=0.8, ls=":")
    axes[0].legend(fontsize=10, loc="lower left")
    axes[1].plot(taus, steps["plateau"], "o-", color=KIND_COLORS["step"], label="step at $\\tau$ (flow)")
    axes[1].plot(taus, linear, "--", color="k", label="step at $\\tau$ (linearisation)")
    trig = toy[toy["schedule"] == "triggered"]
    axes[1].plot(trig["switched off at"], trig["plateau"], "s", color=KIND_COLORS["triggered"], label="triggered on $\\alpha$ (at its switch)")
    axes[1].axhline(constant, color=KIND_COLORS["constant repetition"], ls=":", label="constant repetition")
    axes[1].axhline(none, color=KIND_COLORS["no repetition"], ls=":", label="no repetition")
    axes[1].set(xscale="log", yscale="log", xlabel="switch time $\\tau$", ylabel="plateau")
    axes[1].legend(fontsize=9, loc="upper right", framealpha=0.9)
    ann = toy[toy["schedule"] == "annealed"].sort_values("parameter")
    axes[2].plot(ann["parameter"], ann["plateau"], "o-", color=KIND_COLORS["annealed"], label="annealed")
    axes[2].axhline(constant, color=KIND_COLORS["constant repetition"], ls=":")
    axes[2].axhline(none, color=KIND_COLORS["no repetition"], ls=":")
    axes[2].set(xscale="log", yscale="log", xlabel="half-life $h$", ylabel="plateau")
    for ax in axes[1:]:
        plotting.plain_log_ticks(ax)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("toy_fig", fig)

    for name, value, fmt in [("toy_T", g.T, "d"), ("toy_d", g.d, "d"), ("toy_p", g.p, "g"),
                             ("toy_none", none, ".0f"), ("toy_constant", constant, ".0f"),
                             ("toy_best_tau", best["step"]["parameter"], ".0f"), ("toy_best_step", best["step"]["plateau"], ".0f"),
                             ("toy_best_trig", best["triggered"]["plateau"], ".0f"),
                             ("toy_best_trig_level", best["triggered"]["parameter"], "g"),
                             ("toy_best_ann", best["annealed"]["plateau"], ".0f"),
                             ("toy_best_h", best["annealed"]["parameter"], ".0f"),
                             ("toy_step_gain", constant / best["step"]["plateau"], ".2f"),
                             ("toy_tau_ratio", best["step"]["parameter"] / constant, ".2f"),
                             ("toy_tau_lin", tau_lin, ".0f"), ("toy_lin_none", linear[0], ".0f"), ("toy_flow_none", steps["plateau"].iloc[0], ".0f")]:
        glue_number(name, value, fmt)
    checked = [ctx.record("steering.toy_step_gain", constant / best["step"]["plateau"]),
               ctx.record("steering.toy_linearised_tau", tau_lin / best["step"]["parameter"])]
    summary_toy = pd.concat([toy[toy["schedule"].isin(["no repetition", "constant repetition"])],
                             pd.DataFrame([best[k] for k in best])])[["schedule", "setting", "plateau", "switched off at", "final test loss"]]
    return SimpleNamespace(toy=toy, summary_toy=summary_toy, best=best, none=none, constant=constant, checked=checked)


def recall(results: Results, grid: SteeringGrid, ctx: Context) -> SimpleNamespace:
    """Associative recall, both families: test accuracy and the repetition fraction per run, seed means per
    schedule (glued: recall_fig, rc_*)."""
    checked: list[claims.ClaimResult] = []
    level = RECALL_GRIDS[ctx.scale].threshold
    families = {"in-context": "recall", "cross-sample": "recall_p"}
    rc = pd.concat([read.recall_schedule_table(results[key], level).assign(family=name) for name, key in families.items()],
                   ignore_index=True)
    rc_means = pd.concat([read.schedule_means(g, ["emergence step", "final test accuracy", "best test accuracy", "dip",
                                                    "switched off at"]).assign(family=name)
                          for name, g in rc.groupby("family", sort=False)], ignore_index=True)
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    for row, (name, key) in enumerate(families.items()):
        curves = results[key].curves
        table = read.recall_schedule_table(results[key], level)
        for kind, gk in table.groupby("schedule", sort=False):
            for j, run in enumerate(results[key].summary.loc[gk.index, "run"]):
                c = curves[curves["run"] == run]
                axes[row, 0].plot(c["step"], c["accuracy_test"], color=KIND_COLORS[kind], lw=1, label=kind if j == 0 else None)
                if "repetition_fraction" in c and c["repetition_fraction"].notna().any():
                    axes[row, 1].plot(c["step"], c["repetition_fraction"], color=KIND_COLORS[kind], lw=1,
                                      label=kind if j == 0 else None)
        axes[row, 0].axhline(level, color="0.6", lw=0.8, ls=":")
        axes[row, 0].set(xscale="log", ylabel=f"test accuracy ({name})")
        axes[row, 1].set(xscale="log", ylabel="fraction of repetition on, $r$")
        axes[row, 0].legend(fontsize=9)
    for ax in axes[1]:
        ax.set_xlabel("step")
    plotting.label_panels(axes.ravel())
    fig.tight_layout()
    glue_figure("recall_fig", fig)

    fig5 = RECALL_GRIDS[ctx.scale].fig5
    for name, value, fmt in [("rc_steps", fig5.steps, ",d"), ("rc_V", fig5.n_tokens, "d"), ("rc_N", fig5.n_pairs, "d"),
                             ("rc_B", grid.recall.B, "d"), ("rc_p", grid.recall_p.p, "g"), ("rc_level", level, ".0%")]:
        glue_number(name, value, fmt)
    glue_text("rc_seeds", ", ".join(str(s) for s in grid.recall.seeds))
    speed = {}
    for (family, kind), r in rc_means.set_index(["family", "schedule"]).iterrows():
        key = f"rc_{family}_{kind}".replace(" ", "_").replace("-", "_")
        base = rc_means[(rc_means["family"] == family) & (rc_means["schedule"] == "no repetition")].iloc[0]
        speed[(family, kind)] = base["emergence step"] / r["emergence step"]
        glue_number(f"{key}_steps", r["emergence step"], ",.0f")
        glue_number(f"{key}_final", r["final test accuracy"], ".3f")
        glue_number(f"{key}_speedup", speed[(family, kind)], ".2f")
    m = rc_means[rc_means["family"] == "in-context"].set_index("schedule")
    base, heavy, trig = m.loc["no repetition"], m.loc["constant repetition"], m.loc["triggered"]
    glue_number("rc_trigger_at", trig["switched off at"], ",.0f")
    mp = rc_means[rc_means["family"] == "cross-sample"].set_index("schedule")
    glue_number("rc_p_trigger_at", mp.loc["triggered", "switched off at"], ",.0f")
    switched_off = m.loc[["step", "annealed", "triggered"]]
    return SimpleNamespace(rc=rc, rc_means=rc_means, m=m, mp=mp, base=base, heavy=heavy, trig=trig,
                           switched_off=switched_off, checked=checked)


def regression(results: Results, grid: SteeringGrid, ctx: Context) -> SimpleNamespace:
    """Regression: test loss per run and schedule, seed means (glued: regression_fig, rg_*)."""
    checked: list[claims.ClaimResult] = []
    rg = read.regression_schedule_table(results["regression"], 0.4)
    rg_means = read.schedule_means(rg, ["plateau", "final test loss", "best test loss", "rise", "switched off at"])
    curves = results["regression"].curves
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for kind, gk in rg.groupby("schedule", sort=False):
        for j, run in enumerate(results["regression"].summary.loc[gk.index, "run"]):
            c = curves[curves["run"] == run]
            ax.plot(c["step"], c["loss_no_repetition"], color=KIND_COLORS[kind], lw=1, label=kind if j == 0 else None)
    ax.axhline(0.4, color="0.6", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", xlabel="step", ylabel="test loss (no repetition)")
    ax.legend(fontsize=10)
    fig.tight_layout()
    glue_figure("regression_fig", fig)
    mr = rg_means.set_index("schedule")
    rg_grid = grid.regression
    assert rg_grid.steps is not None  # regression sets its own budget (every STEERING_GRIDS entry)
    for name, value, fmt in [("rg_T", rg_grid.T, "d"), ("rg_d", rg_grid.d, "d"), ("rg_lr", rg_grid.lr, "g"),
                             ("rg_steps", rg_grid.steps, ",d"), ("rg_p", rg_grid.p, "g")]:
        glue_number(name, value, fmt)
    for kind in mr.index:
        key = kind.replace(" ", "_")
        glue_number(f"rg_{key}_plateau", mr.loc[kind, "plateau"], ",.0f")
        glue_number(f"rg_{key}_final", mr.loc[kind, "final test loss"], ".2g")
        glue_number(f"rg_{key}_speedup", mr.loc["no repetition", "plateau"] / mr.loc[kind, "plateau"], ".2f")
    return SimpleNamespace(rg=rg, rg_means=rg_means, mr=mr, checked=checked)


def comparisons(results: Results, r: SimpleNamespace, g: SimpleNamespace, ctx: Context) -> SimpleNamespace:
    """B1's Transformer claims, seed by seed: the triggered schedules against no repetition and against the best
    constant repetition at the same budget (`ConstantRepetition`), as paired 95% t intervals over the seeds (ratios
    of steps, differences of final accuracy). (glued: cmp_*; from `recall` and `regression`)"""
    level, steer = RECALL_GRIDS[ctx.scale].threshold, STEERING_GRIDS[ctx.scale]
    rc, rg = r.rc, g.rg
    rc_const = read.constant_repetition_table(results["recall_constants"], "emergence step", level)
    rg_const = read.constant_repetition_table(results["regression_constants"], "plateau", 0.4)
    (rc_B, rc_p), rc_best = read.best_constant(rc_const, "emergence step")
    (_, rg_p), rg_best = read.best_constant(rg_const, "plateau")

    def runs(table: pd.DataFrame, family: str | None, schedule: str) -> pd.DataFrame:
        t = table[table["schedule"] == schedule]
        return t[t["family"] == family] if family else t

    no_rep = runs(rc, "in-context", "no repetition")
    trig, trig_p = runs(rc, "in-context", "triggered"), runs(rc, "cross-sample", "triggered")
    heavy = runs(rc, "in-context", "constant repetition")
    rows = []

    def compare(what: str, ours: pd.DataFrame, baseline: pd.DataFrame, column: str, log: bool = True,
                flip: bool = False) -> tuple[float, tuple[float, float]]:
        a, b = read.paired_by_seed(ours, baseline, column)
        value, low, high = paired_seed_interval(b, a, log=log) if flip else paired_seed_interval(a, b, log=log)
        rows.append({"comparison": what, "seeds": len(a), "ratio or difference": value, "95% low": low, "95% high": high})
        return value, (low, high)

    best_rc = f"B = {rc_B}" if rc_p == 0 else f"p = {rc_p:g}"
    best_rg = "no repetition" if rg_p == 0 else f"p = {rg_p:g}"
    glue_text("cmp_rc_best", "no repetition" if (rc_B, rc_p) == (1, 0.0) else best_rc)
    glue_text("cmp_rg_best", best_rg)
    glue_number("cmp_rc_best_steps", rc_best["emergence step"].mean(), ",.0f")
    glue_number("cmp_rc_best_final", rc_best["final test accuracy"].mean(), ".3f")
    glue_number("cmp_rg_best_plateau", rg_best["plateau"].mean(), ",.0f")
    rg_trig, rg_none = runs(rg, None, "triggered"), runs(rg, None, "no repetition")
    v1, i1 = compare("recall: no repetition / triggered (steps)", trig, no_rep, "emergence step")
    v2, i2 = compare(f"recall: best constant ({best_rc}) / triggered (steps)", trig, rc_best, "emergence step")
    v3, i3 = compare("recall: triggered − no repetition (final test accuracy)", trig, no_rep, "final test accuracy", log=False)
    v4, i4 = compare(f"recall: no repetition − constant B = {steer.recall.B} (final test accuracy)", heavy, no_rep,
                     "final test accuracy", log=False, flip=True)
    v5, i5 = compare(f"recall: no repetition / p = {steer.recall_p.p:g} switched off by the trigger (steps)", trig_p,
                     no_rep, "emergence step")
    v6, i6 = compare("regression: no repetition / triggered (plateau)", rg_trig, rg_none, "plateau")
    v7, i7 = compare(f"regression: best constant ({best_rg}) / triggered (plateau)", rg_trig, rg_best, "plateau")
    checked = [
        ctx.record("steering.recall_triggered_speedup", v1, interval=i1),
        ctx.record("steering.recall_triggered_vs_best_constant", v2, interval=i2),
        ctx.record("steering.recall_triggered_accuracy", v3, interval=i3),
        ctx.record("steering.recall_heavy_accuracy_cost", v4, interval=i4),
        ctx.record("steering.recall_cross_sample_rescue", v5, interval=i5),
        ctx.record("steering.regression_triggered_speedup", v6, interval=i6),
        ctx.record("steering.regression_triggered_vs_best_constant", v7, interval=i7),
    ]
    table = pd.DataFrame(rows)
    for i, row in table.iterrows():
        glue_text(f"cmp_{i}", f"{row['ratio or difference']:.2f} [{row['95% low']:.2f}, {row['95% high']:.2f}]")
    constants = pd.concat([
        rc_const.groupby(["B", "p"])["emergence step"].agg(["mean", "std", "count"]).reset_index().assign(task="recall"),
        rg_const.groupby(["B", "p"])["plateau"].agg(["mean", "std", "count"]).reset_index().assign(task="regression"),
    ], ignore_index=True).rename(columns={"mean": "steps (seed mean)", "std": "± sd", "count": "seeds"})
    return SimpleNamespace(table=table, constants=constants[["task", "B", "p", "seeds", "steps (seed mean)", "± sd"]],
                           checked=checked)


def schedule_table(t: SimpleNamespace, r: SimpleNamespace, g: SimpleNamespace) -> pd.DataFrame:
    """Emergence and the end of the budget, per task and schedule (from `toy`, `recall` and `regression`)."""
    summary_toy, rc, rc_means, rg, mr = t.summary_toy, r.rc, r.rc_means, g.rg, g.mr
    rows = [{"task": "toy (3-D flow)", "schedule": r["schedule"], "setting": r["setting"], "emergence": r["plateau"],
             "final": r["final test loss"], "final is": "test loss", "seeds": 1} for _, r in summary_toy.iterrows()]
    rows += [{"task": f"recall, {r['family']}", "schedule": r["schedule"],
              "setting": rc[(rc["family"] == r["family"]) & (rc["schedule"] == r["schedule"])]["setting"].iloc[0],
              "emergence": r["emergence step"], "final": r["final test accuracy"], "final is": "test accuracy", "seeds": r["seeds"]}
             for _, r in rc_means.iterrows()]
    rows += [{"task": "regression", "schedule": k, "setting": rg[rg["schedule"] == k]["setting"].iloc[0],
              "emergence": r["plateau"], "final": r["final test loss"], "final is": "test loss", "seeds": r["seeds"]}
             for k, r in mr.iterrows()]
    schedule_table = pd.DataFrame(rows)
    return schedule_table


# ---------------------------------------------------------------- chapter B2: when will it emerge? --


