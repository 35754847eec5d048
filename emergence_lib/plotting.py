"""The book's one figure style and its standard panels."""

from __future__ import annotations

import textwrap
from typing import Callable, Sequence, cast

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

from .metrics import PowerLawFit

PALETTE = "viridis"


# Figures are shown at the book's column width, about 700 px (a full-width figure, about 950 px). A figure of
# width W inches drawn with a font of s points shows its text at s/72 · 700/W px: with W ≤ 12 for the widest
# (full-width) figures and 13–14 pt text, tick labels land at 11–12 px, the size of the prose's small print.
FONT_PT = 13.0


def use_book_style() -> None:
    """Apply the shared style: seaborn 'ticks', text sized for the book's column, no top/right spines."""
    sns.set_theme(
        style="ticks",
        context="notebook",
        rc={
            "font.size": FONT_PT,
            "axes.titlesize": FONT_PT,
            "axes.labelsize": FONT_PT,
            "xtick.labelsize": FONT_PT - 1,
            "ytick.labelsize": FONT_PT - 1,
            "legend.fontsize": FONT_PT - 2,
            "legend.title_fontsize": FONT_PT - 2,
            "figure.titlesize": FONT_PT + 1,
            "lines.markersize": 6,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "figure.dpi": 110,
            "savefig.dpi": 150,
            "legend.frameon": False,
            "axes.grid": True,
            "grid.alpha": 0.25,
        },
    )


# Column names as a reader of the paper writes them (legends and axis labels use maths notation).
MATH_NAMES = {
    "d": "d", "T": "T", "B": "B", "p": "p", "T_over_B": "T/B", "x": r"\sqrt{d}\,T/f(p,d)",
    "N_tokens": r"N_\mathrm{tokens}", "N_pairs": r"N_\mathrm{pairs}", "n_tokens": r"N_\mathrm{tokens}",
    "n_pairs": r"N_\mathrm{pairs}", "layers": "L", "heads": "H", "n_layers": "L", "n_heads": "H",
}


def math_name(name: str) -> str:
    """'T_over_B' → 'T/B' (inside $…$)."""
    return MATH_NAMES.get(name, name.replace("_", r"\_"))


def law_label(constant: float, exponents: dict[str, float], digits: int = 2) -> str:
    r"""A power law in maths notation: $1.52\,d^{0.49}\,T^{0.99}$."""
    terms = [f"{constant:.{digits}f}"]
    for name, e in exponents.items():
        base = math_name(name)
        base = f"({base})" if "/" in base else base
        terms.append(f"{base}^{{{e:.{digits}f}}}")
    return "$" + r"\,".join(terms) + "$"


def fit_label(fit: PowerLawFit, digits: int = 2) -> str:
    """Legend text of a fitted law, with its R²."""
    return f"ours: {law_label(fit.constant, fit.exponents, digits)} ($R^2$ = {fit.r2:.3f})"


def plain_log_ticks(ax: Axes, which: str = "both") -> None:
    """Log axes spanning about a decade: major ticks at 1, 2, 5 × 10^k, printed plainly (0.2, 5, 200), no minor labels."""
    for name in ("x", "y") if which == "both" else (which,):
        axis = getattr(ax, f"{name}axis")
        axis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())


def label_panels(axes: Sequence[Axes] | np.ndarray, letters: str = "abcdefgh") -> None:
    """(a), (b), … at the start of each panel's title (a bold letter above the panel where it has none), as in the paper."""
    for ax, letter in zip(np.ravel(cast(np.ndarray, axes)), letters):  # a list of Axes ravels as an object array
        title = ax.get_title()
        if title:
            ax.set_title("")
            ax.set_title(f"({letter}) {title}", loc="left")
        else:
            ax.set_title(f"({letter})", loc="left", fontweight="bold")


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
    paper_law: dict[str, float] | None = None,
    paper_label: str | None = None,
) -> Axes:
    """Standard log-log panel: markers = runs (mean over seeds), solid lines = fitted law, one colour per ``hue``.

    ``prediction`` (columns x, hue, y) is drawn dashed in the same colours,
    e.g. the linearised escape time of Eq. 6. Runs that never reached the
    threshold are drawn as open triangles at their last time (a lower bound).
    ``derive`` adds derived predictor columns (e.g. √d·T/f(p, d)) to the grid
    on which the fitted law is drawn; other predictors are held at the group's value.
    ``paper_law`` ({"C": …, predictor: exponent, …}) draws the paper's fitted law dotted in the same colours, as a
    labelled reference (only where the paper prints its constant).
    """
    colors = hue_colors(summary[hue])
    reached_mask = np.isfinite(summary[y])
    for h, color in colors.items():
        sub = summary[(summary[hue] == h) & reached_mask].groupby(x, as_index=False)[y].mean()
        ax.plot(sub[x], sub[y], "o", color=color, ms=6, label=f"${hue_label or math_name(hue)}$ = {h:g}")
        if (fit is not None or paper_law is not None) and len(sub):
            xs = np.geomspace(sub[x].min(), sub[x].max(), 50)
            grid = pd.DataFrame({x: xs, hue: h})
            for col in summary.columns:  # constant columns of the group (e.g. T) for derive
                vals = summary.loc[summary[hue] == h, col]
                if col not in grid and vals.nunique(dropna=False) == 1:
                    grid[col] = vals.iloc[0]
            if derive is not None:
                grid = derive(grid)
            if fit is not None:
                predictors = fit.predictors
            else:
                assert paper_law is not None  # the enclosing condition
                predictors = [k for k in paper_law if k not in ("C", "R2")]
            for p in predictors:  # predictors other than x and hue are held at the group's value
                if p not in grid:
                    grid[p] = summary.loc[summary[hue] == h, p].iloc[0]
            if fit is not None:
                ax.plot(xs, fit.predict(grid), "-", color=color, lw=1.5)
            if paper_law is not None:
                ax.plot(xs, _law(paper_law, grid), ":", color=color, lw=1.8, alpha=0.9)
        if prediction is not None:
            pr = prediction[prediction[hue] == h].sort_values(x)
            ax.plot(pr[x], pr[y], "--", color=color, lw=1, alpha=0.8)
        censored = summary[(summary[hue] == h) & ~reached_mask]
        if len(censored) and "final_time" in censored:
            ax.plot(censored[x], censored["final_time"], "^", mfc="none", color=color, ms=6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = sorted(summary[x].unique())
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel(f"${math_name(x)}$")
    ax.set_ylabel(y.replace("_", " "))
    handles, labels = ax.get_legend_handles_labels()
    if fit is not None:
        handles.append(plt.Line2D([], [], color="0.3", lw=1.5))
        labels.append(fit_label(fit))
    if paper_law is not None:
        handles.append(plt.Line2D([], [], color="0.3", lw=1.8, ls=":"))
        exps = {k: v for k, v in paper_law.items() if k not in ("C", "R2")}
        labels.append(paper_label or f"paper: {law_label(paper_law['C'], exps)}")
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
        ax.plot(sub[x], sub[y], color=color, lw=1.5, label=f"${hue_label or math_name(hue)}$ = {h:g}")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("time (steps × lr)" if x == "t" else x)
    ax.set_ylabel(y)
    ax.legend(fontsize="small")
    return ax


def _law(law: dict[str, float], grid: pd.DataFrame) -> np.ndarray:
    """C · Π x_k^e_k on ``grid`` (the paper's reported law)."""
    out = np.full(len(grid), float(law["C"]))
    for k, e in law.items():
        if k not in ("C", "R2"):
            out = out * np.asarray(grid[k], dtype=float) ** e
    return out


STATUS_COLORS = {"agrees": "C2", "reproduced": "C2", "differs": "C3", "inconclusive": "0.55", "not run": "0.8"}


def _forest_label(key: str, figure: str) -> str:
    """"table1.figure3.T32_d16_B1" → "Fig. 3, the paper's model: T32 d16 B1"; "recall_t1.figure4.V32_N4" → "Fig. 4,
    Table 1's recall model: V32 N4"; "figure9.flow_vs_sgd" → "Fig. 9: flow vs sgd"."""
    where = f"Beyond {figure[1:]}" if figure.startswith("B") else f"Fig. {figure}"
    # A registered group's prefix says which model it reads; the rest of the key, past its figure, names the claim.
    for prefix, model in (("table1.ablations.", "Table 1's width"), ("table1.measured.", "The paper's model, T to 256"),
                          ("table1.", "The paper's model"),
                          ("recall_t1.", "Table 1's recall model"), ("confirm.", "fresh seeds")):
        if key.startswith(prefix):
            rest = key[len(prefix):]
            rest = rest.split(".", 1)[1] if rest.startswith("figure") and "." in rest else rest
            return f"{where}, {model}: " + rest.replace("_", " ")
    return f"{where}: " + key.split(".", 1)[1].replace("_", " ")


def forest_plot(table: pd.DataFrame) -> plt.Figure:
    """Every interval claim as a row: our distance from the paper's value (0) with its 95% interval, coloured by the
    verdict; squares are ratios (log units), circles values (exponents, differences). Filled markers and solid lines
    are claims registered before their runs (the evidence); hollow markers and dashed lines are pins set after their
    data, which are not evidence (``table["evidence"]``). ``table``: `scorecard.forest_table`. Sized to be shown at
    about its native width in the book's column (its text stays legible)."""
    n = len(table)
    fig, ax = plt.subplots(figsize=(7.2, 0.24 * n + 1.9))
    ys = np.arange(n)[::-1]
    for y, (_, r) in zip(ys, table.iterrows()):
        color = STATUS_COLORS.get(r["status"], "0.3")
        pin = r.get("evidence", "pinned") == "pinned"
        ax.plot([r["low"], r["high"]], [y, y], color=color, lw=1.6 if pin else 2.2, ls=(0, (2, 1.2)) if pin else "-",
                solid_capstyle="butt")
        ax.plot(r["distance"], y, "s" if r["units"] == "log ratio" else "o", color=color, ms=5.5,
                markerfacecolor="white" if pin else color, markeredgewidth=1.4)
    ax.axvline(0.0, color="0.3", lw=1, ls=":")
    ax.set_yticks(ys, [_forest_label(r["key"], r["figure"]) for _, r in table.iterrows()], fontsize=9)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("ours − the paper's value (or the direction's threshold)\n95% interval; ratios in log units", fontsize=9)
    handles = [plt.Line2D([], [], color=STATUS_COLORS[s], lw=2.2, label=s) for s in ("agrees", "differs", "inconclusive")]
    handles += [plt.Line2D([], [], color="0.3", marker="o", ls="none", label="value"),
                plt.Line2D([], [], color="0.3", marker="s", ls="none", label="ratio (log)"),
                plt.Line2D([], [], color="0.3", marker="o", lw=2.2, label="registered before its runs"),
                plt.Line2D([], [], color="0.3", marker="o", markerfacecolor="white", lw=1.6, ls=(0, (2, 1.2)),
                           label="pin set after its data")]
    ax.legend(handles=handles, fontsize=9, ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False,
              handlelength=1.6, columnspacing=1.0)
    fig.tight_layout()
    return fig


def scorecard_figure(table: pd.DataFrame, empty_note: str) -> plt.Figure:
    """The landing page's and the scoreboard's scorecard: `forest_plot` of ``table``, or a note saying why there is
    none (nothing logged: the book was not built with `make book`, or the scale is smoke)."""
    if len(table):
        return forest_plot(table)
    fig, ax = plt.subplots(figsize=(8, 1.5))
    ax.text(0.5, 0.5, empty_note, ha="center", va="center")
    ax.axis("off")
    return fig


def readings_plot(table: pd.DataFrame, part: str, full: list[bool], paper: float, paper_label: str, xlabel: str,
                   log: bool = False) -> plt.Figure:
    """One row a reading: its ``part`` (exponent or speed-up) with its 95% interval where all its runs are stored
    (``full``) and the value is defined, else the label says 'not run yet'; the paper's value dashed."""
    fig, ax = plt.subplots(figsize=(8, 0.55 * max(len(table), 2) + 1.4))
    if len(table):
        y = np.arange(len(table))[::-1]
        mid, low, high = (table[f"{part}_{k}"].to_numpy(dtype=float) for k in ("ours", "low", "high"))
        ok = np.array(full, dtype=bool) & np.isfinite(mid) & np.isfinite(low)
        ax.errorbar(mid[ok], y[ok], xerr=np.vstack([mid - low, high - mid])[:, ok], fmt="o", color="C0", capsize=3,
                    label="ours, 95% interval")
        ax.set_yticks(y, [textwrap.fill(w, 38) + ("" if f else " (not run yet)") for w, f in zip(table["what"], full)],
                      fontsize=9)
    ax.axvline(paper, color="k", ls="--", label=paper_label)
    if log:
        ax.axvline(1.0, color="0.7", lw=1)
        ax.set_xscale("log")
        lim = ax.get_xlim()  # ratios read as ratios, and the axis keeps the span the points and the paper's value need
        ax.set_xticks([0.5, 1, 2, 4, 8], ["0.5×", "1×", "2×", "4×", "8×"], minor=False)
        ax.minorticks_off()
        ax.set_xlim(lim[0] / 1.15, lim[1] * 1.15)
    ax.set_xlabel(xlabel)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8, frameon=False)  # above: never on a point
    fig.tight_layout()
    return fig
