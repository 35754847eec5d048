"""What chapters 03 and B4 show of the shape of Figure 3's law: the registered collapse, bend and 16-point joint fit
on fresh seeds (`claims.bend`), and the d = 16 screen of unstated choices, each judged once its runs are stored and
otherwise named as not run yet, with its price."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from ... import claims
from ...report import glue_text
from ..context import Context
from ..table1_joint import read as joint_read
from ..table1_joint.show import needs
from . import read
from .runs import (BEND_SEGMENTS, COLLAPSE_CELLS, SCREEN_GRIDS, SCREEN_READINGS, Screen16, bend_weights,
                   collapse_points)

SEEDS = 2  # the fresh seeds 5 and 6


def shape(ctx: Context) -> SimpleNamespace:
    """Judge the collapse and the bend per d where their fresh runs are stored (the fit without (256, 64) is judged
    with the other joint fits, `table1_joint.show.joint_fits`)."""
    if ctx.scale == "smoke":
        return SimpleNamespace(checked=[], cells=pd.DataFrame(), bends=pd.DataFrame(), summary=pd.DataFrame())
    fresh = joint_read.fresh_summary()[0]
    checked = []
    cells = [p for d, B in COLLAPSE_CELLS for p in collapse_points(d, B)]
    if read.complete(fresh, cells, SEEDS):
        c = read.collapse(fresh)
        checked.append(claims.record("table1.collapse.T_over_B", c["ours"], "paper_cpu", interval=(c["low"], c["high"])))
    else:
        claims.record_not_run("table1.collapse.T_over_B", needs(fresh, cells, SEEDS))
    bends = []
    for d in BEND_SEGMENTS:
        points = list(bend_weights(d))
        if read.complete(fresh, points, SEEDS):
            b = read.bend(fresh, d)
            bends.append(b)
            checked.append(claims.record(f"table1.bend.d{d}", b["ours"], "paper_cpu", interval=(b["low"], b["high"])))
        else:
            claims.record_not_run(f"table1.bend.d{d}", needs(fresh, points, SEEDS))
    return SimpleNamespace(checked=checked, cells=read.collapse_cells(fresh), bends=pd.DataFrame(bends), summary=fresh)


# ---- Chapter B4: the d = 16 screen, judged per reading once its runs and the book's are all stored.
QUANTITIES = ("bend", "straightens", "T_exponent", "T_moves")


def screen_summaries() -> tuple[dict[str, pd.DataFrame], dict, int, int]:
    """The screen's stored runs by reading (the book's with its seeds stored in Figure 3's runs), the sweeps' results
    (their curves, for the descent's share), and (runs stored, runs registered) of the screen's own sweeps."""
    from ..table1.read import stored_summaries

    results, have, need = Screen16(scale="paper_cpu").cached()
    g = SCREEN_GRIDS["paper_cpu"]
    by = {k: r.summary for k, r in results.items()}
    first = stored_summaries()[0]
    first = first[first["seed"].isin(g.seeds) & (first["d"] == g.d) & (first["B"] == 1) & first["T"].isin(g.T)]
    by["book"] = pd.concat([f for f in (first, by.get("book")) if f is not None and len(f)]).drop_duplicates("run")
    return by, results, have, need


def screen16(ctx: Context) -> SimpleNamespace:
    """Judge each reading of the d = 16 screen whose runs, and the book's, are all stored; the rest say what they
    wait for, with its price. Glues the screen's answer (`screen16_answer`, from the registered verdicts alone) and
    its figure (`screen16_fig`: each reading's bend beside the book's)."""
    g = SCREEN_GRIDS["paper_cpu"]
    if ctx.scale == "smoke":
        glue_text("screen16_runs", "none at smoke scale")
        glue_text("screen16_answer", "Not judged at smoke scale.")
        return SimpleNamespace(checked=[], table=pd.DataFrame(), grid=g)
    by, results, have, need = screen_summaries()
    glue_text("screen16_runs", f"{have} of {need}")
    want = len(g.T) * len(g.seeds)
    stored = {k: len(by.get(k, [])) for k, _, _ in SCREEN_READINGS}
    book = read.per_seed(read.seed_logs(by["book"], g.d, g.T)) if stored["book"] >= want else None
    cost = Screen16(scale="paper_cpu").price()
    waiting = f"not run yet ({have} of {need} runs stored" + (f"; {cost.price()}" if cost else "") + ")"
    checked, rows = [], []
    verdicts: dict[str, str] = {}
    if book is not None:
        own = {q: read.over_seeds(book[q]) for q in ("bend", "T_exponent")}
        for q, r in own.items():
            checked.append(claims.record(f"screen16.book.{q}", r["ours"], "paper_cpu", interval=(r["low"], r["high"])))
            verdicts[f"book.{q}"] = checked[-1].status
        rows.append({"reading": "the book's reading", "key": "book"} | {f"bend_{k}": own["bend"][k] for k in ("ours", "low", "high")})
    else:
        for q in ("bend", "T_exponent"):
            claims.record_not_run(f"screen16.book.{q}", waiting)
    for key, what, _ in SCREEN_READINGS[1:]:
        if book is None or stored[key] < want:
            for q in QUANTITIES:
                claims.record_not_run(f"screen16.{key}.{q}", waiting)
            rows.append({"reading": what, "key": key, "bend_ours": float("nan"), "bend_low": float("nan"),
                         "bend_high": float("nan")})
            continue
        got = read.screen_quantities(read.per_seed(read.seed_logs(by[key], g.d, g.T)), book)
        for q in QUANTITIES:
            r = got[q]
            checked.append(claims.record(f"screen16.{key}.{q}", r["ours"], "paper_cpu", interval=(r["low"], r["high"])))
            verdicts[f"{key}.{q}"] = checked[-1].status
        rows.append({"reading": what, "key": key, "moves": got["T_moves"]["ours"]}
                    | {f"bend_{k}": got["bend"][k] for k in ("ours", "low", "high")})
    table = pd.DataFrame(rows)
    glue_text("screen16_answer", screen16_answer(table, verdicts, waiting))
    _screen16_figure(table)
    return SimpleNamespace(checked=checked, table=table, grid=g)


def screen16_answer(table: pd.DataFrame, verdicts: dict[str, str], waiting: str) -> str:
    """The d = 16 screen in words, from its registered verdicts alone: whether the book's reading bends, and per
    reading whether it straightens the bend and whether it recovers 0.80 (both its verdicts agreeing, downward)."""
    if "book.bend" not in verdicts:
        return f"The d = 16 screen is {waiting}: nothing is judged yet."
    says = {"agrees": "bends upward", "differs": "bends the other way", "inconclusive": "is not shown to bend"}
    out = [f"The book's reading at d = 16 {says[verdicts['book.bend']]} (registered verdict), and its T exponent from "
           f"32 to 256 {'agrees with' if verdicts['book.T_exponent'] == 'agrees' else 'differs from' if verdicts['book.T_exponent'] == 'differs' else 'cannot be told from'} 0.80."]
    judged = [r for _, r in table.iterrows() if f"{r['key']}.straightens" in verdicts]
    straight = [r["reading"] for r in judged if verdicts[f"{r['key']}.straightens"] == "agrees"]
    recover = [r["reading"] for r in judged if verdicts[f"{r['key']}.T_exponent"] == "agrees"
               and verdicts[f"{r['key']}.T_moves"] == "agrees" and r["moves"] < 0]
    if judged:
        out.append(f"Of {len(judged)} other readings judged, " + (f"{', '.join(straight)} straighten{'s' if len(straight) == 1 else ''} the bend"
                   if straight else "none is shown to straighten the bend") + "; " + (f"{', '.join(recover)} recover{'s' if len(recover) == 1 else ''} 0.80"
                   if recover else "none is shown to recover 0.80") + ".")
    rest = [r["reading"] for _, r in table.iterrows() if r["key"] != "book" and f"{r['key']}.straightens" not in verdicts]
    if rest:
        out.append(f"Not run yet: {'; '.join(rest)} ({waiting.removeprefix('not run yet (').rstrip(')')}).")
    return " ".join(out)


def _screen16_figure(table: pd.DataFrame) -> None:
    from ...plotting import readings_plot
    from ...report import glue_figure

    full = [bool(np.isfinite(v)) for v in table["bend_ours"]] if len(table) else []
    fig = readings_plot(table.rename(columns={"reading": "what"}), "bend", full, 0.0, "no bend (one power law)",
                        "bend: local T exponent 128 → 256 minus 32 → 64 (d = 16)")
    glue_figure("screen16_fig", fig)


# ---- Chapter 03's figure of the paper's model as the paper drew Figure 3, and of the law's shape.
def _point_means(summary: pd.DataFrame) -> pd.DataFrame:
    """Geometric-mean plateau per (T, d, B) over the seeds that crossed, with how many."""
    ok = summary[np.isfinite(summary["plateau_length"].astype(float))].copy()
    ok["log"] = np.log(ok["plateau_length"].astype(float))
    g = ok.groupby(["T", "d", "B"])["log"].agg(["mean", "count"]).reset_index()
    return g.assign(plateau=np.exp(g["mean"]), x=g["T"] / g["B"])


def all_seeds() -> pd.DataFrame:
    """Every stored run of the paper's model at the paper's Figure 3 points: the first seeds and the fresh ones."""
    from ..table1.read import stored_summaries

    first = stored_summaries()[0]
    fresh = joint_read.fresh_summary()[0]
    cols = ["T", "d", "B", "seed", "plateau_length"]
    return pd.concat([f[cols] for f in (first, fresh) if len(f)], ignore_index=True)


def paper_figure(ctx: Context) -> SimpleNamespace:
    """The paper's Figure 3 drawn as the paper drew it, on its model (issue 60 item 7), and the shape of the law
    (issue 61 item 3): (a) plateau against d, one line per T at B = 1; (b) the same at T = 256, one line per B; the
    paper's law dashed in both; (c) plateau against T/B, every point, one colour per d, with the paper's (T/B)^0.80
    and the toy theory's T/B as guides; (d) the local T exponent between neighbouring lengths at B = 1 against T/B,
    with Welch 95% intervals. Every stored seed is drawn (first and fresh): a drawing, the verdicts are the claims'."""
    import matplotlib.pyplot as plt

    from ...paper import figure3_law
    from ...plotting import hue_colors, label_panels, plain_log_ticks
    from ...report import glue_figure

    if ctx.scale == "smoke":
        return SimpleNamespace(points=pd.DataFrame())
    means = _point_means(all_seeds())
    fig, grid = plt.subplots(2, 2, figsize=(12, 8.6))
    axes = grid.ravel()
    ds = np.geomspace(12, 80, 20)
    b1 = means[means["B"] == 1]
    for (ax, rows, by, fixed) in ((axes[0], b1, "T", {"B": 1}), (axes[1], means[means["T"] == 256], "B", {"T": 256})):
        colors = hue_colors(sorted(rows[by].unique()))
        for v, g in rows.groupby(by):
            g = g.sort_values("d")
            ax.plot(g["d"], g["plateau"], "o-", color=colors[v], label=f"{by} = {v}")
            args = {"T": v, "B": fixed["B"]} if by == "T" else {"T": fixed["T"], "B": v}
            ax.plot(ds, [figure3_law(args["T"], d, args["B"]) for d in ds], "--", color=colors[v], lw=1)
        ax.set(xscale="log", yscale="log", xlabel="d", ylabel="plateau (steps)",
               title="B = 1, one line per T" if by == "T" else "T = 256, one line per B")
        ax.legend(fontsize=11, frameon=False)
        plain_log_ticks(ax)
    colors = hue_colors(sorted(means["d"].unique()))
    for d, g in means.groupby("d"):
        ax = axes[2]
        one, rep = g[g["B"] == 1], g[g["B"] > 1]
        ax.plot(one["x"], one["plateau"], "o", color=colors[d], label=f"d = {d}")
        ax.plot(rep["x"], rep["plateau"], "^", color=colors[d], mfc="none")
    xs = np.geomspace(32, 256, 20)
    base = means[(means["d"] == min(means["d"])) & (means["x"] == 32) & (means["B"] == 1)]["plateau"]
    if len(base):
        axes[2].plot(xs, base.iloc[0] * (xs / 32) ** 0.8, "k--", lw=1, label="(T/B)^0.80 (paper)")
        axes[2].plot(xs, base.iloc[0] * (xs / 32), "k:", lw=1, label="T/B (toy theory)")
    axes[2].set(xscale="log", yscale="log", xlabel="T/B", ylabel="plateau (steps)",
                title="all points (B > 1 open)")
    axes[2].legend(fontsize=11, frameon=False)
    plain_log_ticks(axes[2])
    from ..table1.read import local_T_exponent, stored_summaries

    first = stored_summaries()[0]  # the bend's segments on the first seeds: the numbers the landing page gives
    for d, ((a, b), (c, e)) in BEND_SEGMENTS.items():
        rows = pd.DataFrame([local_T_exponent(first, d, lo, hi) | {"T_mid": (lo * hi) ** 0.5}
                             for lo, hi in [(a, b)] + ([(b, c)] if b < c else []) + [(c, e)]])
        rows = rows[np.isfinite(rows["ours"].astype(float))]
        if len(rows):
            axes[3].errorbar(rows["T_mid"], rows["ours"], yerr=[rows["ours"] - rows["low"], rows["high"] - rows["ours"]],
                             fmt="o-", color=colors.get(d, "k"), capsize=3, label=f"d = {d}")
    axes[3].axhline(0.8, color="k", ls="--", lw=1, label="paper's 0.80")
    axes[3].axhline(1.0, color="k", ls=":", lw=1, label="toy theory's 1")
    axes[3].set(xscale="log", xlabel="T (B = 1; each segment's middle)", ylabel="local T exponent",
                title="the bend (first seeds)")
    axes[3].legend(fontsize=11, frameon=False)
    plain_log_ticks(axes[3], "x")
    label_panels(axes)
    fig.tight_layout()
    glue_figure("fig3_paper", fig)
    return SimpleNamespace(points=means)
