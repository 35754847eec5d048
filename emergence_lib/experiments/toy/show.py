"""Chapters 01 and 02 (Figures 1, 2): the toy model, without and with repetition."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

from ... import plotting
from ...paper import PAPER
from . import read
from .runs import Figure2
from ...metrics import add_cross_sample_predictor, fit_power_law
from ...report import glue_figure, glue_number
from ...sweep import SweepResult

Results = dict[str, SweepResult]


def figure2(results: Results, figure: Figure2) -> SimpleNamespace:
    """Figure 2: plateau vs d per B (against T/B) and per p (against √d·T/f(p, d)) with their laws, and the insets'
    loss curves (glued: fig2, fig2_*)."""
    paper_b, paper_p = PAPER["figure2_in_context"], PAPER["figure2_cross_sample"]
    in_context = results["in_context"].summary.assign(T_over_B=lambda df: df["T"] / df["B"])
    cross = add_cross_sample_predictor(results["cross_sample"].summary)
    fit_b = fit_power_law(in_context, ["d", "T_over_B"])
    fit_p = read.cross_sample_fit(cross)

    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5), gridspec_kw={"height_ratios": [2, 1]})
    plotting.plot_plateau_vs_x(axes[0, 0], in_context, hue="B", fit=fit_b, paper_law=paper_b)
    axes[0, 0].set_title(f"in-context repetition, $T$ = {figure.grid.T}")
    plotting.plot_plateau_vs_x(axes[0, 1], cross, hue="p", fit=fit_p, derive=add_cross_sample_predictor, paper_law=paper_p)
    axes[0, 1].set_title(f"cross-sample repetition, $T$ = {figure.grid.T}")
    for ax, key, hue in [(axes[1, 0], "in_context_inset", "B"), (axes[1, 1], "cross_sample_inset", "p")]:
        plotting.plot_curves(ax, results[key].curves, hue=hue)
        ax.set_ylabel("test loss")
        ax.set_title(f"loss, $T$ = {figure.grid.inset_T}, $d$ = {figure.grid.inset_d}")
    for ax in axes[0]:  # the line styles named once in each legend: solid ours, dotted the paper's (issue 60 item 7)
        handles, labels = ax.get_legend_handles_labels()
        handles += [Line2D([], [], color="0.3", ls="-"), Line2D([], [], color="0.3", ls=":")]
        labels += ["our fitted law", "the paper's law"]
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.0, -0.16), ncol=3)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig2", fig)
    glue_number("fig2_T", figure.grid.T, "d")
    glue_number("fig2_inset_T", figure.grid.inset_T, "d")
    glue_number("fig2_inset_d", figure.grid.inset_d, "d")
    glue_number("fig2_b_T", fit_b.exponents["T_over_B"], ".2f")
    glue_number("fig2_b_d", fit_b.exponents["d"], ".2f")
    glue_number("fig2_b_C", fit_b.constant, ".2f")
    glue_number("fig2_p_x", fit_p.exponents["x"], ".2f")
    glue_number("fig2_p_C", fit_p.constant, ".2f")
    return SimpleNamespace(in_context=in_context, cross=cross, fit_b=fit_b, fit_p=fit_p)
