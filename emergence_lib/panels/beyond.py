"""Chapter B1 (beyond the paper): steering emergence with data-diversity schedules, on the toy flow,
associative recall and regression (the runs: `figures.Steering`; the tables: `beyond`)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import beyond, claims, figures, plotting, prediction
from ..configs import Scale
from ..figures.beyond import SteeringGrid
from ..metrics import paired_seed_interval
from ..report import glue_figure, glue_number, glue_text
from ..sweep import SweepResult, run_sweep
from ..toy_cross_sample import linearised_step_plateaus

Results = dict[str, SweepResult]
KIND_COLORS = {"no repetition": "0.4", "constant repetition": "C3", "step": "C0", "triggered": "C2", "annealed": "C1"}


def shortcut_trigger(grid: SteeringGrid, scale: Scale, device: str) -> None:
    """The trigger not used: training accuracy 50% under heavy in-context repetition, read off Figure 5's runs
    (glued: shortcut_steps, shortcut_test)."""
    fig5_B = run_sweep(figures.Figure5(scale=scale).sweeps()["B"], figures.cache_for(scale), progress=False, device=device, executor="serial")
    shortcut = beyond.training_accuracy_trigger(fig5_B, grid.recall.B, 0.5)
    glue_number("shortcut_steps", shortcut["step"].mean(), ".0f")
    glue_number("shortcut_test", shortcut["test accuracy then"].mean(), ".2f")


def toy(results: Results, grid: SteeringGrid, scale: str) -> SimpleNamespace:
    """The toy flow: test loss of the best schedule of each kind, plateau against the step time (flow and
    linearisation) and against the annealing half-life (glued: toy_fig, toy_*)."""
    toy = beyond.toy_schedule_table(results["toy"])
    g = grid.toy
    none = float(toy.loc[toy["schedule"] == "no repetition", "plateau"].iloc[0])
    constant = float(toy.loc[toy["schedule"] == "constant repetition", "plateau"].iloc[0])
    steps = toy[toy["schedule"] == "step"].sort_values("parameter")
    taus = steps["parameter"].to_numpy()
    linear = linearised_step_plateaus(g.T, g.d, g.p, taus, constant, t_max=4 * none)
    best = {kind: beyond.best_switch(toy, kind) for kind in ("step", "annealed", "triggered")}
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
    checked = [claims.record("steering.toy_step_gain", constant / best["step"]["plateau"], scale),
               claims.record("steering.toy_linearised_tau", tau_lin / best["step"]["parameter"], scale)]
    summary_toy = pd.concat([toy[toy["schedule"].isin(["no repetition", "constant repetition"])],
                             pd.DataFrame([best[k] for k in best])])[["schedule", "setting", "plateau", "switched off at", "final test loss"]]
    return SimpleNamespace(toy=toy, summary_toy=summary_toy, best=best, none=none, constant=constant, checked=checked)


def recall(results: Results, grid: SteeringGrid, scale: str) -> SimpleNamespace:
    """Associative recall, both families: test accuracy and the repetition fraction per run, seed means per
    schedule (glued: recall_fig, rc_*)."""
    checked: list[claims.ClaimResult] = []
    level = figures.RECALL_GRIDS[scale].threshold
    families = {"in-context": "recall", "cross-sample": "recall_p"}
    rc = pd.concat([beyond.recall_schedule_table(results[key], level).assign(family=name) for name, key in families.items()],
                   ignore_index=True)
    rc_means = pd.concat([beyond.schedule_means(g, ["emergence step", "final test accuracy", "best test accuracy", "dip",
                                                    "switched off at"]).assign(family=name)
                          for name, g in rc.groupby("family", sort=False)], ignore_index=True)
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharex=True)
    for row, (name, key) in enumerate(families.items()):
        curves = results[key].curves
        table = beyond.recall_schedule_table(results[key], level)
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

    fig5 = figures.RECALL_GRIDS[scale].fig5
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


def regression(results: Results, grid: SteeringGrid, scale: str) -> SimpleNamespace:
    """Regression: test loss per run and schedule, seed means (glued: regression_fig, rg_*)."""
    checked: list[claims.ClaimResult] = []
    rg = beyond.regression_schedule_table(results["regression"], 0.4)
    rg_means = beyond.schedule_means(rg, ["plateau", "final test loss", "best test loss", "rise", "switched off at"])
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


def comparisons(results: Results, r: SimpleNamespace, g: SimpleNamespace, scale: str) -> SimpleNamespace:
    """B1's Transformer claims, seed by seed: the triggered schedules against no repetition and against the best
    constant repetition at the same budget (`ConstantRepetition`), as paired 95% t intervals over the seeds (ratios
    of steps, differences of final accuracy). (glued: cmp_*; from `recall` and `regression`)"""
    level, steer = figures.RECALL_GRIDS[scale].threshold, figures.STEERING_GRIDS[scale]
    rc, rg = r.rc, g.rg
    rc_const = beyond.constant_repetition_table(results["recall_constants"], "emergence step", level)
    rg_const = beyond.constant_repetition_table(results["regression_constants"], "plateau", 0.4)
    (rc_B, rc_p), rc_best = beyond.best_constant(rc_const, "emergence step")
    (_, rg_p), rg_best = beyond.best_constant(rg_const, "plateau")

    def runs(table: pd.DataFrame, family: str | None, schedule: str) -> pd.DataFrame:
        t = table[table["schedule"] == schedule]
        return t[t["family"] == family] if family else t

    no_rep = runs(rc, "in-context", "no repetition")
    trig, trig_p = runs(rc, "in-context", "triggered"), runs(rc, "cross-sample", "triggered")
    heavy = runs(rc, "in-context", "constant repetition")
    rows = []

    def compare(what: str, ours: pd.DataFrame, baseline: pd.DataFrame, column: str, log: bool = True,
                flip: bool = False) -> tuple[float, tuple[float, float]]:
        a, b = beyond.paired_by_seed(ours, baseline, column)
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
        claims.record("steering.recall_triggered_speedup", v1, scale, interval=i1),
        claims.record("steering.recall_triggered_vs_best_constant", v2, scale, interval=i2),
        claims.record("steering.recall_triggered_accuracy", v3, scale, interval=i3),
        claims.record("steering.recall_heavy_accuracy_cost", v4, scale, interval=i4),
        claims.record("steering.recall_cross_sample_rescue", v5, scale, interval=i5),
        claims.record("steering.regression_triggered_speedup", v6, scale, interval=i6),
        claims.record("steering.regression_triggered_vs_best_constant", v7, scale, interval=i7),
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

TASK_COLORS = {"toy": "C0", "toy, W* Gaussian": "C0", "toy, W* unit columns": "C4", "regression": "C1", "recall": "C2"}


def held_out(results: Results, held_out: figures.Prediction, scale: Scale) -> SimpleNamespace:
    """Predicted (95% interval) against measured for every held-out configuration; a run that never crossed is
    drawn at its budget, as a lower bound (glued: heldout_fig, heldout_*, law_*)."""
    table = prediction.held_out_table(results, scale)
    budget = {"regression": max(r.max_steps for r in held_out.sweeps()["regression"]),
              "recall": max(r.max_steps for r in held_out.sweeps()["recall"])}
    shown = table.assign(bound=~np.isfinite(table["measured"]))
    shown["measured"] = [budget.get(t, np.nan) if b else m for t, m, b in zip(shown["task"], shown["measured"], shown["bound"])]
    fig, ax = plt.subplots(figsize=(6.5, 5.2))
    for task, g in shown.groupby("task", sort=False):
        for bound, gb in g.groupby("bound"):
            err = np.vstack([gb["predicted"] - gb["low"], gb["high"] - gb["predicted"]])
            ax.errorbar(gb["predicted"], gb["measured"], xerr=err, fmt="^" if bound else "o", color=TASK_COLORS[task],
                        label=f"{task} (not reached: budget)" if bound else task, capsize=3)
    lo, hi = shown[["low", "measured"]].min().min() * 0.7, shown[["high", "measured"]].max().max() * 1.4
    ax.plot([lo, hi], [lo, hi], color="0.5", lw=1, ls="--")
    ax.set(xscale="log", yscale="log", xlabel="predicted (95% interval)", ylabel="measured (seed mean)")
    ax.legend()
    fig.tight_layout()
    glue_figure("heldout_fig", fig)
    transformers = table[~table["task"].str.startswith("toy")]
    toy_rows, toy_gaussian = table[table["task"] == "toy, W* unit columns"], table[table["task"] == "toy, W* Gaussian"]
    for name, value, fmt in [("heldout_tf_median", np.median(np.abs(transformers["log error"])), ".2f"),
                             ("heldout_tf_factor", np.exp(np.median(np.abs(transformers["log error"]))), ".2f"),
                             ("heldout_tf_inside", transformers["inside interval"].sum(), "d"),
                             ("heldout_tf_n", len(transformers), "d"),
                             ("heldout_toy_max", np.max(np.abs(toy_rows["log error"])), ".1e"),
                             ("heldout_gauss_p0", np.abs(toy_gaussian["log error"]).iloc[0], ".3f"),
                             ("heldout_gauss_max", np.max(np.abs(toy_gaussian["log error"])), ".2f")]:
        glue_number(name, value, fmt)
    glue_text("heldout_gauss_pmax", toy_gaussian["configuration"].iloc[int(np.argmax(np.abs(toy_gaussian["log error"].to_numpy())))])
    finite = transformers[np.isfinite(transformers["log error"])]
    for task in ("recall", "regression"):
        glue_number(f"law_{task}", float(np.median(np.abs(finite.loc[finite["task"] == task, "log error"]))), ".2f")
    unreached = transformers[~np.isfinite(transformers["measured"])]
    glue_text("heldout_unreached", "; ".join(f"{r.task} at {r.configuration} (predicted {r.predicted:,.0f}, interval up to "
                                              f"{r.high:,.0f})" for r in unreached.itertuples()) or "none")
    checked = [claims.record("prediction.toy_heldout", float(np.max(np.abs(toy_rows["log error"]))), scale),
               claims.record("prediction.transformer_heldout_inside", float(transformers["inside interval"].mean()), scale)]
    return SimpleNamespace(table=table, transformers=transformers, checked=checked)


WINDOW_LEVELS = (0.5, 1.0, 2.0)  # logit-gap units: the observer stops watching when the gap first reaches one
JUDGED_LEVEL = 1.0  # the window the registry's early-warning claims are judged at


def early_warning(results: Results, toy_flows: SweepResult, recall_runs: SweepResult, recall_lr: float,
                  scale: Scale) -> SimpleNamespace:
    """The early warning with windows that never see the crossing: a run is observed until its attention gap first
    reaches a level; its error against two baselines, the prior (the law or the flow, before training) and the
    null (the same window, another run's signal); one recall run and its fitted growth (glued: warning_fig, ew_*)."""
    warning_runs = {
        "toy": prediction.toy_warning_runs(toy_flows),
        "recall": prediction.attention_warning_runs(recall_runs, "attn_query_to_value", "emergence_step"),
        "regression": prediction.attention_warning_runs(results["regression"], "attn_relevant", "plateau_length"),
    }
    figure4 = figures.Figure4(scale=scale).sweeps()["grid"]
    # The toy model's prior (`predict_emergence`) is the reduced flow of the run's own config: the stored run itself,
    # which recomputes bit for bit (`verify figure1`). Its error is 0 by construction: nothing can beat it.
    priors = {
        "toy": np.zeros(len(toy_flows.summary)),
        "recall": prediction.prior_log_errors(recall_runs, figure4, "emergence_step", scale),
        "regression": prediction.prior_log_errors(results["regression"], figures.Prediction(scale=scale).sweeps()["regression"],
                                                  "plateau_length", scale),
    }
    errors = {task: prediction.blind_early_warning(runs, WINDOW_LEVELS) for task, runs in warning_runs.items()}
    rows = []
    for task, e in errors.items():
        for g, by in e.groupby("window level"):
            prior = priors[task][by["run"].to_numpy()]
            gain_prior = prediction.paired_median_gain(by["log error"].to_numpy(), prior)
            gain_null = prediction.paired_median_gain(by["log error"].to_numpy(), by["null log error"].to_numpy())
            rows.append({"task": task, "window level": g, "runs": len(by),
                         "median fraction observed": float(np.nanmedian(by["fraction observed"])),
                         "early warning": float(np.nanmedian(np.abs(by["log error"]))),
                         "prior": float(np.nanmedian(np.abs(prior))),
                         "null": float(np.nanmedian(np.abs(by["null log error"]))),
                         "gain over prior": gain_prior[0], "gain over prior low": gain_prior[1], "gain over prior high": gain_prior[2],
                         "gain over null": gain_null[0], "gain over null low": gain_null[1], "gain over null high": gain_null[2]})
    table = pd.DataFrame(rows)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    for task, g in table.groupby("task", sort=False):
        color = TASK_COLORS[task]
        axes[0].plot(g["window level"], g["early warning"], "o-", color=color, label=f"{task}: early warning")
        axes[0].plot(g["window level"], g["null"], "x:", color=color, label=f"{task}: null (another run's signal)")
        axes[0].axhline(float(g["prior"].iloc[0]) if float(g["prior"].iloc[0]) > 0 else 1e-4, color=color, lw=1, ls="--")
    axes[0].set(yscale="log", xscale="log", xlabel="window: observed until the gap first reaches",
                ylabel="median |ln(predicted / measured)|")
    axes[0].set_title("dashed: the prior (law or flow), before training", fontsize=10)
    axes[0].legend(fontsize=8)
    t, gaps, cross = max(warning_runs["recall"], key=lambda r: r[2] if np.isfinite(r[2]) else 0)
    for g, style in zip(WINDOW_LEVELS, (":", "--", "-")):
        end = prediction.window_end(t, gaps, g)
        if not np.isfinite(end):
            continue
        gap = prediction.observed_gap(t, gaps, end)
        fit = prediction.fit_growth(t, gap, end)
        if g == WINDOW_LEVELS[-1]:
            axes[1].plot(t, gap, color="k", lw=1.5, label="recorded gap")
        if fit is not None:
            tt = np.linspace(0, 1.5 * cross, 300)
            axes[1].plot(tt, fit.gap(tt), style, color=TASK_COLORS["recall"], label=f"fit until the gap reaches {g:g}")
    axes[1].axvline(cross, color="0.5", lw=0.8)
    axes[1].set(xlim=(0, 1.5 * cross), ylim=(-0.5, max(3.0, float(np.nanmax(gaps)) * 1.1)), xlabel="step",
                ylabel="logit gap of the attention")
    axes[1].legend(fontsize=9)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("warning_fig", fig)

    at = table.set_index(["task", "window level"])
    for task, short in (("toy", "toy"), ("recall", "recall"), ("regression", "reg")):
        row = at.loc[(task, JUDGED_LEVEL)]
        for col, name, fmt in (("early warning", "ew", ".3f"), ("prior", "prior", ".3f"), ("null", "null", ".3f"),
                               ("median fraction observed", "frac", ".2f")):
            glue_number(f"ew_{short}_{name}", row[col], fmt)
    for name, value, fmt in [("ew_toy_n", len(warning_runs["toy"]), "d"), ("ew_recall_n", len(warning_runs["recall"]), "d"),
                             ("ew_reg_n", len(warning_runs["regression"]), "d"), ("ew_recall_lr", recall_lr, "g"),
                             ("ew_recall_cross", cross, ",.0f"), ("ew_level", JUDGED_LEVEL, "g")]:
        glue_number(name, value, fmt)
    checked = []
    for task in ("toy", "recall", "regression"):
        row = at.loc[(task, JUDGED_LEVEL)]
        # Judged against the better of the two baselines: the smaller of the two gains, with its interval.
        which = "prior" if row["gain over prior"] <= row["gain over null"] else "null"
        checked.append(claims.record(f"prediction.early_warning_{task}", row[f"gain over {which}"], scale,
                                     interval=(row[f"gain over {which} low"], row[f"gain over {which} high"])))
    return SimpleNamespace(curves=table, errors=errors, checked=checked)
