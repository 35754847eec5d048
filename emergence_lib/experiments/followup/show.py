"""Chapter B3 (beyond the paper): a 2026 follow-up's claims tested on this paper's tasks (the runs:
`runs.FollowUp`; the tables: `read`). Each function draws one section's figure, shows its tables, glues its
numbers and records its claims (``checked``)."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import attention, plotting
from ...paper import PAPER
from ..ablations.runs import TASK_VARIANTS
from ..context import Context
from . import read
from .runs import HEAD_PROTOCOLS, FollowUp, FollowUpGrid
from ...metrics import mean_over_seeds
from ...report import glue_figure, glue_number, glue_text, show_table
from ...sweep import SweepResult

Results = dict[str, SweepResult]
FIGURE13_PROTOCOL = "Figure 13's: width fixed, QK dim fixed"
MODEL_COLORS = {"1×1": "C0", "1×4": "C1", "2×4": "C2", "recall 4×4": "C3"}


def _progress(v: np.ndarray) -> np.ndarray:
    """0 at the first recorded value, 1 at the last (how far a curve has gone)."""
    return (v - v[0]) / (v[-1] - v[0]) if v[-1] != v[0] else np.zeros_like(v)


def _relative_to_smallest(ax, summary: pd.DataFrame, by: str, color: str, label: str) -> None:
    """Plot the plateau against ``by`` relative to its smallest value of ``by`` at the same (d, T) (seed means, then
    the geometric mean over (d, T))."""
    m = mean_over_seeds(summary, [by, "d", "T"])
    base = m[m[by] == m[by].min()].set_index(["d", "T"])["plateau_length"]
    m["ratio"] = m["plateau_length"].to_numpy() / base.loc[list(zip(m["d"], m["T"]))].to_numpy()
    r = m.groupby(by)["ratio"].agg(read.geomean)
    ax.plot(r.index, r.to_numpy(), "o-", color=color, label=label)


def _ratio_axes(ax, values: pd.Series, **labels: str) -> None:
    """Log axes for `_relative_to_smallest`'s lines: ``values`` as the x ticks, a dotted line at 1."""
    ax.axhline(1.0, color="0.6", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", **labels)
    plotting.plain_log_ticks(ax, "y")
    ticks = sorted(values.unique())
    ax.set_xticks(ticks, [str(v) for v in ticks])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.legend(fontsize=8.5)


# ------------------------------------------------------------------ 1. attention entropy


def entropy(results: Results, figure: FollowUp, ctx: Context) -> SimpleNamespace:
    """Entropy of the carrying head against the loss, per model, step axis in units of each run's crossing; the
    lag table (glued: entropy_fig, ent_*)."""
    g: FollowUpGrid = figure.grid
    reg = read.entropy_lag_table(results["entropy"], "attn_relevant")
    reg["model"] = [f"{L}×{H // L}" for L, H in zip(reg["layers"], reg["heads"])]
    V, N = g.recall_point
    rec_runs = results["recall_randomness"].summary
    rec_runs = rec_runs[(rec_runs["n_tokens"] == V) & (rec_runs["n_pairs"] == N)]["run"]
    rec_result = results["recall_randomness"].subset(rec_runs)
    rec = read.entropy_lag_table(rec_result, "attn_query_to_value").assign(model="recall 4×4")
    table = pd.concat([reg, rec], ignore_index=True)
    table["entropy drop starts (10%) / crossing"] = table["entropy 10%"] / table["crossing"]

    models = [f"{L}×{H}" for L, H in g.entropy_models]
    fig, axes = plt.subplots(1, len(models) + 1, figsize=(3.75 * (len(models) + 1), 3.9), sharey=True)
    sources = [(m, results["entropy"], "loss_no_repetition") for m in models]
    sources.append(("recall 4×4", rec_result, "accuracy_test"))
    for ax, (model, result, signal) in zip(axes, sources):
        rows = table[table["model"] == model]
        for j, (run, L, H, crossing) in enumerate(zip(rows["run"], rows["carrier layer"] - 1, rows["carrier head"] - 1,
                                                       rows["crossing"])):
            c = result.curves[result.curves["run"] == run].dropna(axis=1, how="all")  # this run's heads only
            x = c["step"].to_numpy() / crossing
            ax.plot(x, _progress(c[signal].to_numpy()), color="0.3", ls="--", lw=1.2, label="loss" if j == 0 and signal.startswith("loss") else ("accuracy" if j == 0 else None))
            ent = attention.as_array(c, "attn_entropy")  # (n_evals, L, H)
            for layer in range(ent.shape[1]):
                for h in range(ent.shape[2]):
                    if (layer, h) != (L, H):
                        ax.plot(x, (ent[0, layer, h] - ent[:, layer, h]) / (ent[0, L, H] - ent[-1, L, H]), color="0.75", lw=0.7,
                                label="other heads' entropy drop" if j == 0 and (layer, h) == (0, 1 if H == 0 else 0) else None)
            ax.plot(x, _progress(ent[:, L, H]), color=MODEL_COLORS.get(model, "C0"), lw=1.8, label="carrying head's entropy drop" if j == 0 else None)
        ax.axvline(1.0, color="0.6", lw=0.8, ls=":")
        ax.set(xscale="log", xlim=(0.05, g.stop_factor), title=model if model.startswith("recall") else f"regression {model}",
               xlabel="step / crossing step")
    axes[0].set_ylabel("fraction of the way\n(start → end of run)")
    for ax in (axes[min(1, len(models) - 1)], axes[-1]):  # (b) has every kind of line; the last says its dashes are the accuracy
        ax.legend(fontsize=9, loc="upper left")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("entropy_fig", fig)

    lag = table.groupby("model", sort=False).agg(
        runs=("run", "size"), carrier=("carrier", lambda v: ", ".join(sorted(set(v)))),
        **{"median lag": ("lag (entropy 50% / loss 50%)", "median"), "min lag": ("lag (entropy 50% / loss 50%)", "min"),
           "max lag": ("lag (entropy 50% / loss 50%)", "max"),
           "entropy drop starts (10%) / crossing": ("entropy drop starts (10%) / crossing", "median"),
           "entropy at start": ("entropy at start", "median"), "log T": ("log T", "first"),
           "entropy at end": ("entropy at end", "median"),
           "heads whose entropy drops": ("heads whose entropy drops", lambda v: ", ".join(str(x) for x in sorted(set(v)))),
           "of heads": ("heads", "first"),
           "the rest's drop / carrier's": ("the rest's drop / carrier's", "median")}).reset_index()
    show_table(lag, "Attention entropy of the carrying head: when it drops, against the loss (medians over seeds)")
    show_table(table.drop(columns=["run", "carrier layer", "carrier head"]), "Per run", collapsed=True)
    reg_lag = float(table.loc[table["model"] != "recall 4×4", "lag (entropy 50% / loss 50%)"].median())
    rec_lag = float(table.loc[table["model"] == "recall 4×4", "lag (entropy 50% / loss 50%)"].median())
    for model, r in lag.set_index("model").iterrows():
        glue_number(f"ent_lag_{model.replace('×', 'x').replace(' ', '_')}", r["median lag"], ".2f")
    glue_number("ent_lag_regression", reg_lag, ".2f")
    glue_number("ent_lag_recall", rec_lag, ".2f")
    is_rec = table["model"] == "recall 4×4"
    start = table["entropy drop starts (10%) / crossing"]
    glue_number("ent_start_regression", float(start[~is_rec].median()), ".2f")
    glue_number("ent_start_recall", float(start[is_rec].median()), ".2f")
    glue_number("ent_recall_heads", float(table.loc[is_rec, "heads whose entropy drops"].median()), ".0f")
    glue_number("ent_recall_of", int(table.loc[is_rec, "heads"].iloc[0]), "d")
    glue_number("ent_recall_end", float(table.loc[is_rec, "entropy at end"].median()), ".2f")
    glue_number("ent_recall_logT", float(table.loc[is_rec, "log T"].iloc[0]), ".2f")
    glue_text("ent_point", f"(T, d) = {g.point}")
    glue_text("ent_recall_point", f"{V} tokens, {N} pairs")
    checked = [ctx.record("followup.entropy_lag_regression", reg_lag),
               ctx.record("followup.entropy_lag_recall", rec_lag)]
    return SimpleNamespace(table=table, lag=lag, checked=checked)


# ------------------------------------------------------------------ 2. attention-bias intervention


def bias(results: Results, figure: FollowUp, ctx: Context) -> SimpleNamespace:
    """Plateau against the bias s: the Transformer with the bias (as trained) and without it (what its weights
    learned), and the toy flow from an initial logit gap Δa₀ = s; the 2×4 model, first vs all layers; recall
    (glued: bias_fig, bias_*)."""
    g: FollowUpGrid = figure.grid
    reg = read.bias_table(results["bias"])
    rec = read.bias_table(results["recall_bias"]).assign(model="recall 4×4")
    toy = read.toy_bias_plateaus(*g.point, [s for s in g.bias_s if s > 0])
    one = reg[reg["model"] == "1×1"]
    means = (pd.concat([reg, rec]).groupby(["model", "s", "where"], sort=False)
             [["without bias", "with bias", "with bias / s=0", "without bias / s=0", "steps_run"]]
             .agg(lambda v: read.geomean(v) if np.isfinite(v).all() else np.inf).reset_index())

    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    ax = axes[0]
    m1 = means[means["model"] == "1×1"].sort_values("s")
    pos = m1[m1["s"] > 0]
    ax.plot(pos["s"], pos["with bias / s=0"], "o-", color="C0", label="Transformer 1×1, with the bias (as trained)")
    finite = np.isfinite(pos["without bias / s=0"])
    ax.plot(pos["s"][finite], pos["without bias / s=0"][finite], "s--", color="C0", mfc="white",
            label="same, bias removed (what the weights learned)")
    for s in pos["s"][~finite]:
        ax.annotate("not within budget", (s, 1.0), xytext=(s, 1.6), ha="center", fontsize=9, color="C0",
                    arrowprops=dict(arrowstyle="->", color="C0"))
    ax.plot(toy["gap"], toy["plateau / gap 0"], "k-", lw=1.5, label="toy flow from $\\Delta a_0 = s$")
    ax.axhline(1.0, color="0.6", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", xlabel="bias $s$ (toy: initial logit gap $\\Delta a_0$)", ylabel="plateau / plateau at $s=0$",
           title=f"regression, $(T, d)$ = {g.point}")
    ax.legend(fontsize=8.5, loc="lower left")
    plotting.plain_log_ticks(ax)
    ax = axes[1]
    deep = means[means["model"].isin(["2×4", "recall 4×4"])]
    for (model, where), gm in deep[deep["s"] > 0].groupby(["model", "where"], sort=False):
        color = MODEL_COLORS.get(model, "C0")
        ax.plot(gm["s"], gm["with bias / s=0"], "o-" if where == "first" else "^-", color=color,
                label=f"{model}, bias in {'the first layer' if where == 'first' else 'every layer'}")
    ax.axhline(1.0, color="0.6", lw=0.8, ls=":")
    ax.set(xscale="log", yscale="log", xlabel="bias $s$", ylabel="crossing with the bias / at $s=0$",
           title="first layer or every layer")
    ax.legend(fontsize=8.5)
    plotting.plain_log_ticks(ax)
    ax = axes[2]
    rc = results["recall_bias"]
    s_max = max(g.bias_s_layers)
    for row, c in rc.per_run():
        if row["seed"] != g.bias_seeds[0] or row["attention_bias"] not in (0.0, s_max):
            continue
        if row["attention_bias"] == 0:
            ax.plot(c["step"], c["accuracy_test"], color="0.3", label="no bias")
            continue
        color = "C3" if row["bias_layers"] == "first" else "C4"
        where = "first layer" if row["bias_layers"] == "first" else "every layer"
        ax.plot(c["step"], c["accuracy_test_with_bias"], color=color, label=f"s = {s_max:g}, {where}: with the bias")
        ax.plot(c["step"], c["accuracy_test"], color=color, ls="--", label="same, bias removed")
    ax.set(xscale="log", xlabel="step", ylabel="test accuracy", title=f"recall, seed {g.bias_seeds[0]}")
    ax.legend(fontsize=8.5)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("bias_fig", fig)
    show_table(means.rename(columns={"steps_run": "steps run"}),
               "Attention-bias intervention: crossings with and without the bias (geometric means over seeds)")

    top = float(max(g.bias_s))
    at_top = m1[m1["s"] == top].iloc[0]
    toy_top = float(toy.loc[toy["gap"] == top, "plateau / gap 0"].iloc[0])
    rec_top = means[(means["model"] == "recall 4×4") & (means["s"] == s_max)]
    rec_speed = float(1 / rec_top["with bias / s=0"].min())  # the better placement
    glue_number("bias_recall_steps", float(rec_top["with bias"].min()), ".0f")
    # What the weights select without the bias: the largest head's final query → value weight (test data, no bias).
    final_qv = {row["run"]: float(attention.as_array(c.dropna(axis=1, how="all"), "attn_query_to_value")[-1].max())
                for row, c in results["recall_bias"].per_run()}
    srec = results["recall_bias"].summary
    for name, mask in (("none", srec["attention_bias"] == 0), ("biased", srec["attention_bias"] == s_max)):
        glue_number(f"bias_recall_qv_{name}", float(np.median([final_qv[r] for r in srec.loc[mask, "run"]])), ".2f")
    deep_top = means[(means["model"] == "2×4") & (means["s"] == s_max)].set_index("where")["with bias / s=0"]
    moderate = one[(one["s"] > 0) & (one["s"] <= 4)]
    glue_number("bias_with_top", at_top["with bias / s=0"], ".2f")
    glue_number("bias_alpha_top", float(toy.loc[toy["gap"] == top, "alpha at start"].iloc[0]), ".2f")
    glue_number("bias_floor", at_top["with bias"], ".0f")
    glue_number("bias_deep_speedup", 1 / deep_top.loc["all"], ".1f")
    glue_number("bias_deep_first_speedup", 1 / deep_top.loc["first"], ".1f")
    glue_number("bias_unbiased_gap", float((moderate["without bias"] / moderate["with bias"] - 1).max()), ".0%")
    glue_number("bias_recall_budget", g.recall_bias_max_steps, ",d")
    glue_number("bias_top", top, "g")
    glue_number("bias_speedup", 1 / at_top["with bias / s=0"], ".1f")
    glue_number("bias_toy_speedup", 1 / toy_top, ".1f")
    glue_number("bias_learned", at_top["without bias / s=0"], ".2f")
    glue_number("bias_recall_speedup", rec_speed, ".1f")
    glue_number("bias_recall_s", s_max, "g")
    unbiased = rec[(rec["s"] == s_max)]["without bias"]
    glue_text("bias_recall_learned", f"{int(np.isfinite(unbiased).sum())} of {len(unbiased)}")
    checked = [ctx.record("followup.bias_speedup_regression", 1 / at_top["with bias / s=0"]),
               ctx.record("followup.bias_toy_match", abs(np.log(at_top["with bias / s=0"] / toy_top))),
               ctx.record("followup.bias_speedup_recall", rec_speed)]
    return SimpleNamespace(table=reg, recall=rec, toy=toy, means=means, checked=checked)


# ------------------------------------------------------------------ 3–4. heads and depth


def heads_and_depth(results: Results, res13: Results, figure: FollowUp, ctx: Context) -> SimpleNamespace:
    """Plateau against the head count under both protocols (and Figure 13's), and against depth (Figure 13's runs);
    the fitted exponents (glued: heads_fig, heads_*, depth_*)."""
    s = results["heads"].summary.copy()
    rows = []
    for protocol in HEAD_PROTOCOLS:
        arch = {H: figure.head_architecture(protocol, H) for H in figure.grid.heads}
        keep = np.array([arch[H]["d_model"] == D and arch[H]["d_qk"] == q for H, D, q in zip(s["n_heads"], s["d_model"], s["d_qk"])])
        rows.append(s[keep].assign(protocol=protocol))
    heads = pd.concat(rows, ignore_index=True)
    a13 = res13["architectures"].summary
    fig13 = a13[a13["n_layers"] == 1].assign(protocol=FIGURE13_PROTOCOL)
    heads = pd.concat([heads, fig13], ignore_index=True)
    fits = read.exponent_table(heads, ["d", "T", "n_heads"], by="protocol")
    depth_fits = read.exponent_table(a13.assign(heads=a13["n_heads"].map(lambda h: f"H = {h}")),
                                         ["d", "T", "n_layers"], by="heads")
    joint = read.exponent_table(a13, ["d", "T", "n_layers", "n_heads"])

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))
    f = fits.set_index("protocol")
    for i, (protocol, gp) in enumerate(heads.groupby("protocol", sort=False)):
        _relative_to_smallest(axes[0], gp, "n_heads", f"C{i}", f"{protocol} ($\\eta$ = {f.loc[protocol, 'exponent of n_heads']:+.2f})")
    _ratio_axes(axes[0], heads["n_heads"], xlabel="heads $H$", title="heads, 1 layer",
                ylabel="plateau / plateau at $H=1$\n(geometric mean over $(T, d)$)")
    width = int(a13["d_model"].iloc[0])
    lam = depth_fits.set_index("heads")["exponent of n_layers"]
    for i, (H, gh) in enumerate(a13.groupby("n_heads")):
        _relative_to_smallest(axes[1], gh, "n_layers", f"C{i + 3}",
                              f"H = {H}, head dim {width // H} ($\\lambda$ = {lam.loc[f'H = {H}']:+.2f})")
    _ratio_axes(axes[1], a13["n_layers"], xlabel="layers $L$", ylabel="plateau / plateau at $L=1$",
                title=f"depth, width {width} (Figure 13's runs)")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("heads_fig", fig)
    show_table(fits, "Heads: plateau ≈ C·d^α·T^β·H^η per protocol (1 layer; seeds as separate points, hence the lack-of-fit test)")
    show_table(pd.concat([depth_fits, joint.rename(columns={"group": "heads"}).assign(heads="joint fit (L and H)")]),
               "Depth: plateau ≈ C·d^α·T^β·L^λ per head count (Figure 13's runs), and Figure 13's joint fit")
    # Heads or width? At one head, the fixed-head-dim model is the narrow one: what widening alone buys.
    per = heads.groupby(["protocol", "n_heads"])["plateau_length"].agg(read.geomean)
    width_gain = per.loc[("fixed head dim", 1)] / per.loc[("fixed total width", 1)]
    two_heads_gain = per.loc[("fixed head dim", 1)] / per.loc[("fixed head dim", 2)]
    glue_number("heads_width_gain", width_gain, ".2f")
    glue_number("heads_two_gain", two_heads_gain, ".2f")
    eta_width = float(f.loc["fixed total width", "exponent of n_heads"])
    eta_dim = float(f.loc["fixed head dim", "exponent of n_heads"])
    lam_max = float(lam.max())
    lam_min = float(lam.min())
    for name, value in (("heads_eta_width", eta_width), ("heads_eta_dim", eta_dim),
                        ("heads_eta_fig13", float(f.loc[FIGURE13_PROTOCOL, "exponent of n_heads"])),
                        ("heads_se_width", float(f.loc["fixed total width", "± n_heads"])),
                        ("heads_se_dim", float(f.loc["fixed head dim", "± n_heads"])),
                        ("depth_lam_min", lam_min), ("depth_lam_max", lam_max),
                        ("depth_paper", PAPER["figure13"]["layers"]), ("heads_paper", PAPER["figure13"]["heads"])):
        glue_number(name, value, "+.2f")
    checked = [ctx.record("followup.heads_fixed_width", eta_width),
               ctx.record("followup.heads_fixed_head_dim", eta_dim),
               ctx.record("followup.depth", lam_min)]
    return SimpleNamespace(heads=heads, fits=fits, depth_fits=depth_fits, eta_width=eta_width, eta_dim=eta_dim,
                           lam_min=lam_min, lam_max=lam_max, checked=checked)


# ------------------------------------------------------------------ 5. MLP-Mixer


def mixer(results: Results, ctx: Context) -> SimpleNamespace:
    """The MLP-Mixer against the 1×1 Transformer on Figure 14's three task variants: plateau against √d·T per
    model, and the ratio of medians (glued: mixer_fig, mixer_*)."""
    mx, tr = results["mixer"], results["transformer_variants"]
    table = read.mixer_table(mx, tr, TASK_VARIANTS)
    budget = int(mx.summary["max_steps"].max())
    names = {v: k for k, v in TASK_VARIANTS.items()}

    def labelled(summary: pd.DataFrame, model: str) -> pd.DataFrame:
        """The runs on the Mixer's (T, d) grid (Figure 14's "longer contexts" are not), with their task variant."""
        s = summary[summary["T"].isin(mx.summary["T"]) & summary["d"].isin(mx.summary["d"])]
        return s.assign(variant=[names[(r, f)] for r, f in zip(s["random_position"], s["relevance_feature"])],
                        task=lambda t: t["variant"] + f": {model}")

    runs = {"Transformer 1×1": labelled(tr.summary, "Transformer 1×1"), "MLP-Mixer": labelled(mx.summary, "MLP-Mixer")}
    fig, axes = plt.subplots(1, len(TASK_VARIANTS), figsize=(14, 4.2), sharey=True)
    for ax, (name, (rand, feat)) in zip(axes, TASK_VARIANTS.items()):
        for (model, marker, color) in (("Transformer 1×1", "o", "C0"), ("MLP-Mixer", "s", "C1")):
            s = runs[model][runs[model]["variant"] == name]
            x = np.sqrt(s["d"]) * s["T"]
            y = s["plateau_length"].to_numpy(dtype=float)
            ok = np.isfinite(y)
            ax.plot(x[ok], y[ok], marker, color=color, alpha=0.75, label=model)
            if (~ok).any():
                ax.plot(x[~ok], np.full((~ok).sum(), budget * 1.3), "x", color=color, label=f"{model}: not within {budget:,} steps")
        ax.axhline(budget, color="0.6", lw=0.8, ls=":")
        ax.set(xscale="log", yscale="log", xlabel="$\\sqrt{d}\\,T$", title=name)
        plotting.plain_log_ticks(ax, "x")
    axes[0].set_ylabel("plateau (steps)")
    axes[0].legend(fontsize=8.5, loc="upper left")
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("mixer_fig", fig)
    show_table(table, "MLP-Mixer against the 1×1 Transformer (Figure 14's runs), Figure 14's (T, d) grid and budget")
    fits = read.exponent_table(pd.concat([runs["MLP-Mixer"], runs["Transformer 1×1"]]), ["d", "T"], by="task")
    show_table(fits, "Plateau ≈ C·d^α·T^β per task variant and model, on the Mixer's (T, d) grid")
    t = table.set_index(["task", "model"])
    positional = float(t.loc[("no feature + fixed position", "MLP-Mixer"), "transformer / mixer"])
    content = float(t.loc[("feature + random position", "MLP-Mixer"), "transformer / mixer"])
    reached = t.loc[("feature + random position", "MLP-Mixer")]
    # How the gap moves with size: the ratio at the largest (T, d), and each model's fitted exponents (positional task).
    T_max, d_max = int(mx.summary["T"].max()), int(mx.summary["d"].max())
    largest = {model: float(s.loc[(s["variant"] == "no feature + fixed position") & (s["T"] == T_max) & (s["d"] == d_max),
                                  "plateau_length"].median()) for model, s in runs.items()}
    glue_number("mixer_ratio_largest", largest["Transformer 1×1"] / largest["MLP-Mixer"], ".1f")
    glue_text("mixer_largest_point", f"(T, d) = ({T_max}, {d_max})")
    f = fits.set_index("task")
    for key, task in (("pos", "no feature + fixed position"), ("content", "feature + random position")):
        for model, short in (("MLP-Mixer", "mixer"), ("Transformer 1×1", "tr")):
            for x in ("T", "d"):
                glue_number(f"{short}_{key}_{x}_exp", float(f.loc[f"{task}: {model}", f"exponent of {x}"]), ".2f")
    # The fitted laws' extrapolation: by what factor k on both T and d the fitted ratio reaches 10 from the largest point.
    t, m = (f.loc[f"no feature + fixed position: {model}"] for model in ("Transformer 1×1", "MLP-Mixer"))
    gap_d, gap_T = (t[f"exponent of {x}"] - m[f"exponent of {x}"] for x in ("d", "T"))
    ratio_fit = float(t["C"] / m["C"] * d_max ** gap_d * T_max ** gap_T)
    gap = gap_d + gap_T
    glue_number("mixer_scale_to_10", (10 / ratio_fit) ** (1 / gap) if gap > 0 and ratio_fit < 10 else np.nan, ".1f")
    glue_number("mixer_positional", positional, ".1f")
    glue_number("mixer_content", content, ".2f")
    glue_text("mixer_content_reached", f"{int(reached['reached'])} of {int(reached['runs'])}")
    glue_number("mixer_budget", budget, ",d")
    checked = [ctx.record("followup.mixer_positional", positional),
               ctx.record("followup.mixer_content", content)]
    return SimpleNamespace(table=table, fits=fits, positional=positional, content=content, checked=checked)


# ------------------------------------------------------------------ 6. randomness


def randomness(results: Results, figure: FollowUp, ctx: Context) -> SimpleNamespace:
    """Emergence times over seeds at two configurations per task, against the toy model under SGD from the theory's
    initialisation (the reduced flow itself is deterministic): spread, shape, and whether the early attention
    already orders the seeds (glued: random_fig, random_*)."""
    g: FollowUpGrid = figure.grid
    reg, rec = results["randomness"].summary, results["recall_randomness"].summary
    toy = results["toy_sgd"].summary
    spread = pd.concat([read.spread_table(reg, ["T", "d"], "regression 1×1"),
                        read.spread_table(rec, ["n_tokens", "n_pairs"], "recall 4×4"),
                        read.spread_table(toy, ["T", "d"], "toy model, SGD")], ignore_index=True)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.3), gridspec_kw={"width_ratios": [2, 1]})
    groups = [(f"regression\n(T, d) = ({T}, {d})", gs["plateau_length"]) for (T, d), gs in reg.groupby(["T", "d"])]
    groups += [(f"recall\n{V} tokens,\n{N} pairs", gs["emergence_step"]) for (V, N), gs in rec.groupby(["n_tokens", "n_pairs"])]
    groups += [(f"toy SGD\n(T, d) = ({T}, {d})", gs["plateau_length"]) for (T, d), gs in toy.groupby(["T", "d"])]
    for i, (label, v) in enumerate(groups):
        v = v.to_numpy(dtype=float)
        jitter = np.random.default_rng(i).uniform(-0.15, 0.15, len(v))
        axes[0].plot(np.full(len(v), i) + jitter, v / np.mean(v), "o", color=f"C{i // 2}", alpha=0.7)
    axes[0].set_xticks(range(len(groups)), [label for label, _ in groups], fontsize=9)
    axes[0].axhline(1.0, color="0.6", lw=0.8, ls=":")
    axes[0].set(ylabel="emergence time / its mean over seeds", title=f"{len(g.random_seeds)} seeds per configuration")
    fractions = (0.25, 0.5, 0.75)
    early = read.early_table(results["randomness"], results["recall_randomness"], fractions)
    for i, ((task, conf), ge) in enumerate(early.groupby(["task", "configuration"], sort=False)):
        axes[1].plot(ge["at"], ge["Spearman ρ"], marker="o", color=f"C{i // 2}", ls="-" if i % 2 == 0 else "--", label=f"{task}: {conf}")
    axes[1].axhline(0.0, color="0.6", lw=0.8, ls=":")
    axes[1].set(xlabel="read at (fraction of the median crossing)", ylabel="Spearman ρ (early attention, crossing)",
                ylim=(-1.05, 1.05), title="does the early state order the seeds?")
    axes[1].legend(fontsize=8)
    plotting.label_panels(axes)
    fig.tight_layout()
    glue_figure("random_fig", fig)
    show_table(spread, "Emergence times over seeds: spread and shape")
    sources = read.sources_both_tasks(results["sources"].summary, reg, results["recall_sources"].summary, rec,
                                      g.random_recall_points[0])
    show_table(sources[["task", "configuration", "varies", "seeds", "mean", "CV", "max / min"]],
               "Where the spread comes from: the initialisation, the data, or both")
    cv_src = sources.groupby("varies")["CV"].median()
    glue_number("random_cv_init", float(cv_src.loc["initialisation only"]), ".2f")
    glue_number("random_cv_data", float(cv_src.loc["data only (target, batches)"]), ".2f")
    glue_number("random_cv_both", float(cv_src.loc["both"]), ".2f")
    show_table(early[["task", "configuration", "at", "at step", "Spearman ρ", "seeds"]],
               "Rank correlation across seeds between the early attention on the relevant token (largest head) and the crossing")
    cv = spread.set_index("task")["CV"]
    cv_reg, cv_rec, cv_toy = float(cv.loc["regression 1×1"].max()), float(cv.loc["recall 4×4"].max()), float(cv.loc["toy model, SGD"].max())
    glue_number("random_cv_toy", cv_toy, ".3f")
    for name, value in (("random_cv_reg", cv_reg), ("random_cv_rec", cv_rec),
                        ("random_cv_reg_min", float(cv.loc["regression 1×1"].min())),
                        ("random_cv_rec_min", float(cv.loc["recall 4×4"].min())),
                        ("random_ratio_max", float(spread["max / min"].max())),
                        *((f"random_rho_{key}_{int(at * 100)}", float(early.loc[(early["at"] == at) & (early["task"] == task),
                                                                                   "Spearman ρ"].median()))
                          for key, task in (("reg", "regression 1×1"), ("rec", "recall 4×4")) for at in fractions)):
        glue_number(name, value, ".2f")
    glue_number("random_seeds", len(g.random_seeds), "d")
    # Side by side, without a verdict (issue 36 item 7): a Transformer's seed draws its initialisation, target map and
    # batches, the toy model's only its batches, so a ratio of their CVs compares unlike with unlike.
    side = read.cv_side_by_side(sources, cv_toy)
    show_table(side, "The CV of emergence over seeds by what a seed varies, side by side (medians over configurations; "
                     "no verdict: the two models' seeds vary different sources)")
    checked = [ctx.record("followup.randomness_toy", cv_toy)]
    return SimpleNamespace(spread=spread, early=early, cv_reg=cv_reg, cv_rec=cv_rec, cv_toy=cv_toy, side=side,
                           checked=checked)


# ------------------------------------------------------------------ verdicts


verdicts = read.verdict_table  # the six claims' table: what the sections measured and recorded


def costs(results: Results, shared: tuple[str, ...] = ("transformer_variants",)) -> pd.DataFrame:
    """`read.cost_table`, glued as this chapter's own CPU-hours (followup_cpu_hours: the sweeps in ``shared``, other
    figures' runs, left out) and with them (followup_cpu_hours_all)."""
    table = read.cost_table(results, shared)
    own = table["runs of"] == "this chapter"
    glue_number("followup_cpu_hours", table.loc[own, "CPU-minutes"].sum() / 60, ".2f")
    glue_number("followup_cpu_hours_all", table["CPU-minutes"].sum() / 60, ".2f")
    return table
