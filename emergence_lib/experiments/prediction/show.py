"""Chapter B2: what it shows: the held-out predictions and the early warning (figures, glued numbers, claims)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import plotting
from ...report import glue_figure, glue_number, glue_text
from ...sweep import SweepResult
from ..recall.runs import Figure4
from ..context import Context
from . import read
from .runs import Prediction

Results = dict[str, SweepResult]


TASK_COLORS = {"toy": "C0", "toy, W* Gaussian": "C0", "toy, W* unit columns": "C4", "regression": "C1", "recall": "C2"}


def held_out(results: Results, held_out: Prediction, ctx: Context) -> SimpleNamespace:
    """Predicted (95% interval) against measured for every held-out configuration; a run that never crossed is
    drawn at its budget, as a lower bound (glued: heldout_fig, heldout_*, law_*)."""
    table = read.held_out_table(results, ctx.scale)
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
    checked = [ctx.record("prediction.toy_heldout", float(np.max(np.abs(toy_rows["log error"])))),
               ctx.record("prediction.transformer_heldout_inside", float(transformers["inside interval"].mean()))]
    return SimpleNamespace(table=table, transformers=transformers, checked=checked)


WINDOW_LEVELS = (0.5, 1.0, 2.0)  # logit-gap units: the observer stops watching when the gap first reaches one


JUDGED_LEVEL = 1.0  # the window the registry's early-warning claims are judged at


def early_warning(results: Results, toy_flows: SweepResult, recall_runs: SweepResult, recall_lr: float,
                  ctx: Context) -> SimpleNamespace:
    """The early warning with windows that never see the crossing: a run is observed until its attention gap first
    reaches a level; its error against three baselines, the prior (the law or the flow, before training), the
    null (the same window, another run's signal) and the window's length alone; one recall run and its fitted growth (glued: warning_fig, ew_*)."""
    warning_runs = {
        "toy": read.toy_warning_runs(toy_flows),
        "recall": read.attention_warning_runs(recall_runs, "attn_query_to_value", "emergence_step"),
        "regression": read.attention_warning_runs(results["regression"], "attn_relevant", "plateau_length"),
    }
    figure4 = Figure4(scale=ctx.scale).sweeps()["grid"]
    # The toy model's prior (`predict_emergence`) is the reduced flow of the run's own config: the stored run itself,
    # which recomputes bit for bit (`verify figure1`). Its error is 0 by construction: nothing can beat it.
    priors = {
        "toy": np.zeros(len(toy_flows.summary)),
        "recall": read.prior_log_errors(recall_runs, figure4, "emergence_step", ctx.scale),
        "regression": read.prior_log_errors(results["regression"], Prediction(scale=ctx.scale).sweeps()["regression"],
                                                  "plateau_length", ctx.scale),
    }
    errors = {task: read.blind_early_warning(runs, WINDOW_LEVELS) for task, runs in warning_runs.items()}
    rows = []
    for task, e in errors.items():
        for g, by in e.groupby("window level"):
            prior = priors[task][by["run"].to_numpy()]
            gain_prior = read.paired_median_gain(by["log error"].to_numpy(), prior)
            gain_null = read.paired_median_gain(by["log error"].to_numpy(), by["null log error"].to_numpy())
            gain_length = read.paired_median_gain(by["log error"].to_numpy(), by["length log error"].to_numpy())
            rows.append({"task": task, "window level": g, "runs": len(by),
                         "median fraction observed": float(np.nanmedian(by["fraction observed"])),
                         "early warning": float(np.nanmedian(np.abs(by["log error"]))),
                         "prior": float(np.nanmedian(np.abs(prior))),
                         "null": float(np.nanmedian(np.abs(by["null log error"]))),
                         "length": float(np.nanmedian(np.abs(by["length log error"]))),
                         "gain over prior": gain_prior[0], "gain over prior low": gain_prior[1], "gain over prior high": gain_prior[2],
                         "gain over null": gain_null[0], "gain over null low": gain_null[1], "gain over null high": gain_null[2],
                         "gain over length": gain_length[0], "gain over length low": gain_length[1],
                         "gain over length high": gain_length[2]})
    table = pd.DataFrame(rows)

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    for task, g in table.groupby("task", sort=False):
        color = TASK_COLORS[task]
        axes[0].plot(g["window level"], g["early warning"], "o-", color=color, label=f"{task}: early warning")
        axes[0].plot(g["window level"], g["null"], "x:", color=color, label=f"{task}: null (another run's signal)")
        axes[0].plot(g["window level"], g["length"], "s-.", color=color, ms=4, alpha=0.7,
                     label=f"{task}: the window's length alone")
        axes[0].axhline(float(g["prior"].iloc[0]) if float(g["prior"].iloc[0]) > 0 else 1e-4, color=color, lw=1, ls="--")
    axes[0].set(yscale="log", xscale="log", xlabel="window: observed until the gap first reaches",
                ylabel="median |ln(predicted / measured)|")
    axes[0].set_title("dashed: the prior (law or flow), before training", fontsize=10)
    axes[0].legend(fontsize=8)
    t, gaps, cross = max(warning_runs["recall"], key=lambda r: r[2] if np.isfinite(r[2]) else 0)
    for g, style in zip(WINDOW_LEVELS, (":", "--", "-")):
        end = read.window_end(t, gaps, g)
        if not np.isfinite(end):
            continue
        gap = read.observed_gap(t, gaps, end)
        fit = read.fit_growth(t, gap, end)
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
                               ("length", "length", ".3f"), ("gain over length", "length_gain", "+.3f"),
                               ("median fraction observed", "frac", ".2f")):
            glue_number(f"ew_{short}_{name}", row[col], fmt)
    for name, value, fmt in [("ew_toy_n", len(warning_runs["toy"]), "d"), ("ew_recall_n", len(warning_runs["recall"]), "d"),
                             ("ew_reg_n", len(warning_runs["regression"]), "d"), ("ew_recall_lr", recall_lr, "g"),
                             ("ew_recall_cross", cross, ",.0f"), ("ew_level", JUDGED_LEVEL, "g")]:
        glue_number(name, value, fmt)
    checked = []
    for task in ("toy", "recall", "regression"):
        row = at.loc[(task, JUDGED_LEVEL)]
        # Judged against the best of the three baselines: the smallest of the three gains, with its interval.
        which = min(("prior", "null", "length"), key=lambda b: row[f"gain over {b}"])
        checked.append(ctx.record(f"prediction.early_warning_{task}", row[f"gain over {which}"],
                                     interval=(row[f"gain over {which} low"], row[f"gain over {which} high"])))
    return SimpleNamespace(curves=table, shown=reader_table(table), errors=errors, checked=checked)


def reader_table(table: pd.DataFrame) -> pd.DataFrame:
    """The early-warning table as a reader reads it: each gain with its 95% interval in one cell (17 columns made
    the table twice its column's width)."""
    out = table[["task", "window level", "runs", "median fraction observed", "early warning", "prior", "null",
                 "length"]].copy()
    for b in ("prior", "null", "length"):
        out[f"gain over {b} [95%]"] = [f"{g:.3g} [{lo:.3g}, {hi:.3g}]" for g, lo, hi in
                                       zip(table[f"gain over {b}"], table[f"gain over {b} low"], table[f"gain over {b} high"])]
    return out.rename(columns={"median fraction observed": "fraction observed"})
