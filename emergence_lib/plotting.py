"""The book's one figure style and its standard panels."""

from __future__ import annotations

from typing import Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.ticker import NullLocator

from .metrics import PowerLawFit

PALETTE = "viridis"


def use_book_style() -> None:
    """Apply the shared style: seaborn 'ticks', a compact context, no top/right spines."""
    sns.set_theme(
        style="ticks",
        context="notebook",
        font_scale=0.9,
        rc={
            "axes.spines.top": False,
            "axes.spines.right": False,
            "figure.dpi": 110,
            "savefig.dpi": 150,
            "legend.frameon": False,
            "axes.grid": True,
            "grid.alpha": 0.25,
        },
    )


def hue_colors(values: Sequence, palette: str = PALETTE) -> dict:
    """One colour per distinct value, ordered (dark = small)."""
    values = sorted(set(values))
    colors = sns.color_palette(palette, n_colors=max(len(values), 2))
    return dict(zip(values, colors))


def plot_plateau_vs_x(
    ax: Axes,
    summary: pd.DataFrame,
    hue: str,
    x: str = "d",
    y: str = "plateau_length",
    fit: PowerLawFit | None = None,
    prediction: pd.DataFrame | None = None,
    prediction_label: str = "prediction",
    hue_label: str | None = None,
    derive: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    legend: bool = True,
) -> Axes:
    """Standard log-log panel: markers = runs (mean over seeds), solid lines = fitted law, one colour per ``hue``.

    ``prediction`` (columns x, hue, y) is drawn dashed in the same colours,
    e.g. the linearised escape time of Eq. 6. Runs that never reached the
    threshold are drawn as open triangles at their last time (a lower bound).
    ``derive`` adds derived predictor columns (e.g. √d·T/f(p, d)) to the grid
    on which the fitted law is drawn; other predictors are held at the group's value.
    """
    colors = hue_colors(summary[hue])
    reached_mask = np.isfinite(summary[y])
    for h, color in colors.items():
        sub = summary[(summary[hue] == h) & reached_mask].groupby(x, as_index=False)[y].mean()
        ax.plot(sub[x], sub[y], "o", color=color, ms=5, label=f"{hue_label or hue} = {h:g}")
        if fit is not None and len(sub):
            xs = np.geomspace(sub[x].min(), sub[x].max(), 50)
            grid = pd.DataFrame({x: xs, hue: h})
            for col in summary.columns:  # constant columns of the group (e.g. T) for derive
                vals = summary.loc[summary[hue] == h, col]
                if col not in grid and vals.nunique(dropna=False) == 1:
                    grid[col] = vals.iloc[0]
            if derive is not None:
                grid = derive(grid)
            for p in fit.predictors:  # predictors other than x and hue are held at the group's value
                if p not in grid:
                    grid[p] = summary.loc[summary[hue] == h, p].iloc[0]
            ax.plot(xs, fit.predict(grid), "-", color=color, lw=1.5)
        if prediction is not None:
            pr = prediction[prediction[hue] == h].sort_values(x)
            ax.plot(pr[x], pr[y], "--", color=color, lw=1, alpha=0.8)
        censored = summary[(summary[hue] == h) & ~reached_mask]
        if len(censored) and "final_time" in censored:
            ax.plot(censored[x], censored["final_time"], "^", mfc="none", color=color, ms=6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    xs = sorted(summary[x].unique())
    ax.set_xticks(xs, [f"{v:g}" for v in xs])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(x)
    ax.set_ylabel(y.replace("_", " "))
    handles, labels = ax.get_legend_handles_labels()
    if fit is not None:
        handles.append(plt.Line2D([], [], color="0.3", lw=1.5))
        labels.append(f"fit {fit.formula()}\n(R² = {fit.r2:.5f})")
    if prediction is not None:
        handles.append(plt.Line2D([], [], color="0.3", lw=1, ls="--"))
        labels.append(prediction_label)
    if legend:
        ax.legend(handles, labels, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax


def plot_curves(
    ax: Axes,
    curves: pd.DataFrame,
    hue: str,
    x: str = "t",
    y: str = "loss",
    logy: bool = True,
    hue_label: str | None = None,
) -> Axes:
    """Curves vs time, one colour per ``hue`` value (e.g. loss vs time per d)."""
    colors = hue_colors(curves[hue])
    for h, color in colors.items():
        sub = curves[curves[hue] == h]
        ax.plot(sub[x], sub[y], color=color, lw=1.5, label=f"{hue_label or hue} = {h:g}")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("time (steps × lr)" if x == "t" else x)
    ax.set_ylabel(y)
    ax.legend(fontsize="small")
    return ax
