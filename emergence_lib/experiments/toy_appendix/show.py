"""Chapters A1 (Figures 6–8) and A2 (Figures 9, 10): the toy model's theory and its checks."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm

from ... import plotting
from .runs import Figure6, Figure7, Figure8, Figure9, Figure10
from ...metrics import first_crossing, plateau_length, t_quantile_975, time_to_fraction
from ...report import glue_figure, glue_number
from ...sweep import SweepResult
from ...toy import growth_rate, hessian_eigenvalues, linearisation_breakdown, linearised_solution, w_infinity
from ..context import Context

Results = dict[str, SweepResult]


def figure6(res6: Results, fig6: Figure6, ctx: Context) -> SimpleNamespace:
    """Figure 6: the loss landscape L(w, Δa) with the gradient-flow path, and w's overshoot of √d
    (glued: fig6, fig6_*)."""
    land = fig6.landscape()
    path = res6["path"].curves
    grid = land.pivot(index="delta_a", columns="w", values="loss")
    fig, ax = plt.subplots(figsize=(7, 5))
    mesh = ax.pcolormesh(grid.columns, grid.index, grid.to_numpy(), norm=LogNorm(vmin=1e-4, vmax=grid.to_numpy().max()),
                         cmap="magma", shading="auto")
    fig.colorbar(mesh, ax=ax, label=r"loss $L(w, \Delta a)$")
    ax.plot(path["w"], path["delta_a"], color="white", lw=2)
    ax.plot([0], [0], "x", color="white", ms=10, mew=2)
    ax.axvline(np.sqrt(fig6.d), color="white", ls=":", lw=1)
    ax.set_xlabel("$w$")
    ax.set_ylabel(r"$\Delta a$")
    glue_figure("fig6", fig)

    w = path["w"].to_numpy()
    glue_number("fig6_T", fig6.T, "d")
    glue_number("fig6_d", fig6.d, "d")
    glue_number("fig6_peak", w.max() / np.sqrt(fig6.d), ".4f")
    glue_number("fig6_final", w[-1] / np.sqrt(fig6.d), ".4f")
    checked = [ctx.record("figure6.overshoot", w.max() / np.sqrt(fig6.d))]
    return SimpleNamespace(w=w, checked=checked)


def figure7(res7: Results, fig7: Figure7, ctx: Context) -> SimpleNamespace:
    """Figure 7: early dynamics against the linearisation, per T, and where it stops holding (glued: fig7, fig7_*)."""
    curves = res7["curves"].curves.assign(lam_t=lambda df: df["t"] * growth_rate(df["T"], df["d"]))
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
    colors = plotting.hue_colors(curves["T"])
    rows = []
    for T, g in curves.groupby("T"):
        lin = linearised_solution(g["t"], T, fig7.grid.d)
        for ax, col, lin_col in [(axes[0], "w", "w"), (axes[1], "delta_a", "delta_a")]:
            ax.plot(g["lam_t"], g[col], color=colors[T], label=f"$T$ = {T}")
            ax.plot(g["lam_t"], lin[lin_col], "--", color=colors[T], lw=1)
        axes[2].plot(g["lam_t"], 0.5 - g["loss"], color=colors[T], label=f"$T$ = {T}")
        axes[2].plot(g["lam_t"], 0.5 - lin["loss"], "--", color=colors[T], lw=1)
        b = linearisation_breakdown(g["t"].to_numpy(), g["w"].to_numpy(), g["loss"].to_numpy(), T, fig7.grid.d)
        plateau = plateau_length(g["t"], g["loss"])
        rows.append({"T": T, "λt when w is off by 10%": b["lambda_t_w"], "λt when ½−L is off by 10%": b["lambda_t_loss"],
                     "plateau (λt)": plateau * growth_rate(T, fig7.grid.d), "loss breakdown / plateau": b["t_loss"] / plateau})
    for ax, label in zip(axes, ["$w$", r"$\Delta a$", r"$\frac{1}{2} - L$ (loss decrease)"]):
        ax.set_yscale("log")
        ax.set_xlabel(r"$\lambda t$")
        ax.set_ylabel(label)
        ax.set_xlim(0, 1.6)
    axes[0].set_ylim(1e-3, 30)
    axes[1].set_ylim(1e-6, 30)
    axes[2].set_ylim(1e-6, 1)
    axes[0].legend()
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig7", fig)
    breakdown = pd.DataFrame(rows)
    glue_number("fig7_d", fig7.grid.d, "d")
    glue_number("fig7_lt", breakdown["λt when ½−L is off by 10%"].mean(), ".2f")
    glue_number("fig7_share", 100 * breakdown["loss breakdown / plateau"].mean(), ".0f")
    glue_number("fig7_plateau", breakdown["plateau (λt)"].mean(), ".2f")
    glue_number("fig7_eq6", np.arcsinh(0.8 / growth_rate(breakdown["T"], fig7.grid.d)).mean() / 2, ".2f")
    checked = [ctx.record("figure7.linearisation", breakdown["loss breakdown / plateau"].max())]
    return SimpleNamespace(curves=curves, breakdown=breakdown, checked=checked)


def figure8(res8: Results, fig8: Figure8, ctx: Context) -> SimpleNamespace:
    """Figure 8: w∞(α) per T, w against its equilibrium along the flow, and the Hessian's eigenvalues
    (glued: fig8, fig8_*)."""
    flow = res8["flow"].curves
    T, d = fig8.flow_T, fig8.d
    t, w, da, alpha, loss = (flow[c].to_numpy() for c in ["t", "w", "delta_a", "alpha", "loss"])
    eig = hessian_eigenvalues(w, da, T, d)
    w_eq = w_infinity(alpha, T, d)
    plateau = plateau_length(t, loss)

    fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
    colors = plotting.hue_colors(fig8.T_values)
    for T_ in fig8.T_values:
        a = np.geomspace(1 / T_, 1, 400)
        axes[0].plot(a, w_infinity(a, T_, d), color=colors[T_], label=f"$T$ = {T_}")
    axes[0].axhline(np.sqrt(d), color="0.4", ls=":", lw=1, label=r"$\sqrt{d}$")
    axes[0].set(xscale="log", yscale="log", xlabel=r"$\alpha$", ylabel=r"$w^\infty(\alpha)$")
    axes[0].legend()
    axes[1].plot(t, w, label="$w$ (flow)")
    axes[1].plot(t, w_eq, "--", label=r"$w^\infty(\alpha(t))$")
    axes[1].set(yscale="log", ylim=(1e-2, 30), xlabel="time")
    axes[1].legend()
    axes[2].plot(t, eig[:, 1], label="largest eigenvalue")
    axes[2].plot(t, eig[:, 0], label="smallest eigenvalue")
    axes[2].axvline(plateau, color="0.5", ls=":", lw=1, label="plateau end")
    axes[2].set(xlabel="time", ylabel="Hessian eigenvalues")
    axes[2].set_yscale("symlog", linthresh=1e-5)
    axes[2].legend()
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig8", fig)

    lam = growth_rate(T, d)
    peak = t[np.argmax(eig[:, 1])]
    window = (first_crossing(t, loss, 0.45), first_crossing(t, loss, 0.01))
    late = t > 1.2 * plateau
    tracking = np.max(np.abs(w[late] / w_eq[late] - 1))
    for key, value, fmt in [("fig8_d", d, "d"), ("fig8_T", T, "d"), ("fig8_peak", peak, ".0f"), ("fig8_w0", window[0], ".0f"),
                            ("fig8_w1", window[1], ".0f"), ("fig8_e0", eig[1, 0], ".3e"), ("fig8_e1", eig[1, 1], ".3e"),
                            ("fig8_lam", lam, ".3e"), ("fig8_late1", eig[-1, 1], ".4f"), ("fig8_inv_d", 1 / d, ".4f"),
                            ("fig8_track", tracking, ".1e")]:
        glue_number(key, value, fmt)
    checked = [ctx.record("figure8.tracking", tracking)]
    return SimpleNamespace(T=T, d=d, w=w, eig=eig, lam=lam, peak=peak, window=window, tracking=tracking, checked=checked)


def figure9(res9: Results, fig9: Figure9, ctx: Context) -> SimpleNamespace:
    """Figure 9: SGD seeds (paper init and theory init) against the reduced flow: loss, α and w over time, and
    their plateaus (glued: fig9, fig9_*)."""
    flow = res9["flow"].curves
    groups = {"sgd (paper init)": "C0", "sgd (theory init)": "C1"}
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
    for key, color in groups.items():
        for _, g in res9[key].curves.groupby("seed"):
            for ax, col in zip(axes, ["loss", "alpha", "w"]):
                ax.plot(g["t"], g[col], color=color, lw=0.8, alpha=0.7)
    for ax, col in zip(axes, ["loss", "alpha", "w"]):
        ax.plot(flow["t"], flow[col], color="k", lw=1.8)
        ax.set_yscale("log")
        ax.set_xlabel("time (steps × lr)")
        ax.set_ylabel({"loss": "test loss", "alpha": r"$\alpha$ (attention on $x_T$)", "w": "$w$"}[col])
    handles = [plt.Line2D([], [], color=c, lw=1) for c in groups.values()] + [plt.Line2D([], [], color="k", lw=1.8)]
    axes[0].legend(handles, ["SGD, $W, W^* \\sim N(0, 1/d)$ (paper)", "SGD, $W = 0$, unit columns (theory)", "reduced flow"])
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig9", fig)

    flow_plateau = res9["flow"].summary["plateau_length"].iloc[0]
    rows = []
    for key in groups:
        p = res9[key].summary["plateau_length"]
        # The seeds' mean's 95% t interval, carried to flow / mean − 1 (a decreasing function of the mean).
        half = t_quantile_975(len(p) - 1) * p.std(ddof=1) / np.sqrt(len(p)) if len(p) > 1 else np.nan
        rows.append({"runs": key, "seeds' plateau min": p.min(), "mean": p.mean(), "max": p.max(),
                     "flow": flow_plateau, "flow / mean − 1": flow_plateau / p.mean() - 1,
                     "low": flow_plateau / (p.mean() + half) - 1, "high": flow_plateau / (p.mean() - half) - 1 if p.mean() > half else np.inf,
                     "flow within seeds' range": bool(p.min() <= flow_plateau <= p.max())})
    table = pd.DataFrame(rows).set_index("runs")
    theory, paper_init = table.loc["sgd (theory init)"], table.loc["sgd (paper init)"]
    glue_number("fig9_T", fig9.grid.T, "d")
    glue_number("fig9_batch", fig9.batch_size, "d")
    glue_number("fig9_lr", fig9.lr, "g")
    glue_number("fig9_seeds", len(fig9.grid.seeds), "d")
    glue_number("fig9_theory", 100 * theory["flow / mean − 1"], "+.2f")
    glue_number("fig9_paper", 100 * paper_init["flow / mean − 1"], "+.1f")
    checked = [ctx.record("figure9.flow_vs_sgd", theory["flow / mean − 1"],
                             interval=(theory["low"], theory["high"])),
               ctx.record("figure9.flow_vs_sgd_paper_init", paper_init["flow / mean − 1"],
                             interval=(paper_init["low"], paper_init["high"]))]
    return SimpleNamespace(table=table, theory=theory, paper_init=paper_init, checked=checked)


def figure10(res10: Results, fig10: Figure10, ctx: Context) -> SimpleNamespace:
    """Figure 10: the 3-D cross-sample flow per p: loss, the alignments over their optima, α, and when each
    direction is learned (glued: fig10, fig10_*)."""
    curves = res10["curves"].curves
    d = fig10.d
    colors = plotting.hue_colors(curves["p"])
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.2))
    rows = []
    for p, g in curves.groupby("p"):
        c = colors[p]
        w_opt = np.sqrt(d - 1) if p > 0 else np.sqrt(d)
        axes[0].plot(g["t"], g["loss"], color=c, label=f"$p$ = {p:g}")
        axes[1].plot(g["t"], g["w"] / w_opt, color=c, label=f"$p$ = {p:g}")
        if p > 0:
            axes[1].plot(g["t"], g["w_tilde"], "--", color=c)
        axes[2].plot(g["t"], g["alpha"], color=c, label=f"$p$ = {p:g}")
        t = g["t"].to_numpy()
        rows.append({"p": p,
                     "w̃ at 10% (time)": time_to_fraction(t, g["w_tilde"], 0, 1, 0.1) if p > 0 else np.nan,
                     "w at 10% (time)": time_to_fraction(t, g["w"], 0, w_opt, 0.1),
                     "α reaches 0.5 (time)": first_crossing(t, g["alpha"], 0.5, direction="up")})
    axes[0].set(yscale="log", ylabel="test loss ($p$ = 0)")
    axes[1].set(yscale="log", ylim=(1e-3, 5), ylabel=r"alignment / optimum")
    axes[2].set(yscale="log", ylabel=r"$\alpha$")
    for ax in axes:
        ax.set_xlabel("time")
    axes[0].legend()
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("fig10", fig)
    timing = pd.DataFrame(rows)
    rep = timing[timing["p"] > 0]
    glue_number("fig10_T", fig10.T, "d")
    glue_number("fig10_d", d, "d")
    ratio10 = (rep["w̃ at 10% (time)"] / rep["w at 10% (time)"]).max()
    glue_number("fig10_ratio", ratio10, ".2f")
    checked = [ctx.record("figure10.repeated_first", ratio10)]
    return SimpleNamespace(timing=timing, rep=rep, checked=checked)
