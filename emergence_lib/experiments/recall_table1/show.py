"""Chapters 04 and A5's sections on Table 1's recall model (`runs.RecallMeasured`, scale paper_cpu): they read
``data/`` only and never compute (the runs go in the background: `python -m emergence_lib run recall_measured
--scale paper_cpu`). A claim is judged once every run it reads is stored; until then it says "not run yet" with the
count (``recall_t1.*``, registered before any of these runs)."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ... import claims, plotting
from ...report import glue_figure, glue_text
from ...tasks import AssociativeRecallTask
from ..base import devices_sentence
from ..context import Context
from ..table1.read import take_the_wider
from . import read
from .runs import RecallMeasured

KEY = "recall_t1"


def _stored() -> tuple[RecallMeasured, dict[str, pd.DataFrame], dict[str, tuple[int, int]], dict]:
    """The figure, each sweep's crossing table of its stored runs, (stored, registered) per sweep, and the results."""
    figure = RecallMeasured(scale="paper_cpu")
    results, _, _ = figure.cached()
    sweeps = figure.sweeps()
    tables = {k: read.crossing_table(r) for k, r in results.items()}
    counts = {k: (len(results[k].summary), len(sweeps[k])) for k in sweeps}
    return figure, tables, counts, results


def _record(judge: Callable[[float, tuple[float, float]], claims.ClaimResult], key: str, row: dict, ready: bool,
            why: str, checked: list) -> str:
    """Judge claim ``key`` through ``judge`` (a `Context.record` call naming it) once every run it reads is stored
    (an interval that cannot be formed, a seed that never crossed, is judged inconclusive, never hidden); else glue
    "not run yet" with ``why``. Its status, or "not run"."""
    if ready:  # every run it reads is stored: judged, and a censored seed (no interval) is inconclusive
        result = judge(row["ours"], (row["low"], row["high"]))
        checked.append(result)
        return result.status
    claims.record_not_run(key, why)
    return "not run"


def _count(counts: dict[str, tuple[int, int]], *sweeps: str) -> str:
    have, need = (sum(counts[s][i] for s in sweeps) for i in (0, 1))
    return "not run yet" if have < need else "not judged"


def _respecting_the_misfit(amended: bool | str, row: dict, means: dict) -> dict:
    """`table1.read.take_the_wider` with the recall exponent fitted to its point means (`read.exponent_on_point_means`)."""
    return take_the_wider(amended, row, means)


def figure4(ctx: Context) -> SimpleNamespace:
    """Figure 4 on Table 1's recall model: each point's steps to 5% and 50% and its ratio to the paper's law, both
    exponents at both levels, LayerNorm and the learning-rate bracket (glued: fig4_measured, rt1_runs)."""
    figure, tables, counts, _ = _stored()
    g = figure.grid
    pre = pd.concat([tables["figure4"], tables["figure4_large"]])
    small = [(V, N) for N in g.n_pairs for V in g.n_tokens if N < V]
    points = small + [(V, g.large_pairs[0]) for V in g.large_pairs[1]]
    table = read.point_table(pre, points, len(g.seeds))
    checked: list = []
    status: dict[str, str] = {}
    for _, row in table.iterrows():
        V, N = row["N_tokens"], row["N_pairs"]
        key = f"{KEY}.figure4.V{V}_N{N}"
        r = {"ours": row["ratio"], "low": row["ratio_low"], "high": row["ratio_high"]}
        status[key] = _record(lambda v, iv: ctx.record(f"recall_t1.figure4.V{V}_N{N}", v, interval=iv), key, r, bool(row["complete"]), f"not run yet ({row['seeds']} seeds)", checked)
    complete = bool(table["complete"].all())
    done = int(table["complete"].sum())
    exps = []
    for axis, along in (("tokens", "n_tokens"), ("pairs", "n_pairs")):
        for level in ("5", "50"):
            row = read.exponent(pre, points, along, f"{level}%") | {"exponent": f"N_{axis}", "level": f"{level}%"}
            key = f"{KEY}.figure4.{axis}_exponent_{level}"
            if level == "50":  # a diagnostic, read the way the 5% claim is, never judged against the paper's 5% value
                row = _respecting_the_misfit(claims.claim(f"{KEY}.figure4.{axis}_exponent_5").amended, row,
                                             read.exponent_on_point_means(pre, points, along, "50%"))
                exps.append(row)
                status[key] = DIAGNOSTIC if complete else "not run"
                continue
            row = _respecting_the_misfit(claims.claim(key).amended, row,
                                         read.exponent_on_point_means(pre, points, along, f"{level}%"))
            exps.append(row)
            status[key] = _record(lambda v, iv: ctx.record(f"recall_t1.figure4.{axis}_exponent_{level}", v, interval=iv),
                                  key, row, complete, f"not run yet ({done} of {len(points)} points)", checked)
    both = pd.concat([tables["figure4"], tables["figure4_no_ln"]])
    ln = read.mean_log_ratio(both, small, "50%", {"layer_norm": "pre"}, {"layer_norm": "none"})
    ln_ready = counts["figure4"][0] == counts["figure4"][1] and counts["figure4_no_ln"][0] == counts["figure4_no_ln"][1]
    status[f"{KEY}.figure4.layernorm"] = _record(lambda v, iv: ctx.record("recall_t1.figure4.layernorm", v, interval=iv),
                                                  f"{KEY}.figure4.layernorm", ln, ln_ready,
                                                  _count(counts, "figure4", "figure4_no_ln"), checked)
    lrs, bracket_points = g.lr_bracket
    lr_table = pd.concat([tables["lr_bracket"], tables["figure4"]])
    bracket_ready = counts["lr_bracket"][0] == counts["lr_bracket"][1] and all(
        (table[(table["N_tokens"] == V) & (table["N_pairs"] == N)]["complete"]).all() for V, N in bracket_points)
    bracket = []
    for lr, name in zip(sorted(lrs), ("lr_1e-4_beats_3e-5", "lr_3e-4_no_faster")):
        row = read.mean_log_ratio(lr_table, list(bracket_points), "50%", {"lr": lr}, {"lr": g.lr}) | {"lr": lr}
        bracket.append(row)
        key = f"{KEY}.figure4.{name}"
        status[key] = _record(lambda v, iv: ctx.record(f"recall_t1.figure4.{name}", v, interval=iv), key, row, bracket_ready, _count(counts, "lr_bracket"), checked)
    devices = figure.devices()  # each stored file once: a run two sweeps share is not counted twice
    have, need = sum(devices.values()), len({r for r in figure.runs()})
    glue_text("rt1_runs", f"{have} of {need}")
    glue_text("rt1_devices", devices_sentence(devices))
    glue_figure("fig4_measured", _figure4(table))
    return SimpleNamespace(points=table, exponents=pd.DataFrame(exps), layernorm=ln, bracket=pd.DataFrame(bracket),
                           checked=checked, status=status, runs=(have, need))


def figure5(ctx: Context) -> SimpleNamespace:
    """Figure 5 on Table 1's recall model: the two speed-ups (paired by seed) and the overfitting lag at B = 4."""
    figure, tables, counts, results = _stored()
    checked: list = []
    rows = {}
    for by, sweep, name in (("B", "figure5_B", "in_context_speedup"), ("p", "figure5_p", "cross_sample_speedup")):
        row = read.paired_speedup(tables[sweep], by) if len(tables[sweep]) else {"ours": np.nan, "low": np.nan, "high": np.nan}
        rows[by] = row
        ready = counts[sweep][0] == counts[sweep][1]
        _record(lambda v, iv: ctx.record(f"recall_t1.figure5.{name}", v, interval=iv), f"{KEY}.figure5.{name}", row, ready, _count(counts, sweep), checked)
    lag = read.overfitting_lag(results["figure5_B"]) if len(tables["figure5_B"]) else {"ours": np.nan, "low": np.nan, "high": np.nan}
    _record(lambda v, iv: ctx.record("recall_t1.figure5.overfitting", v, interval=iv), f"{KEY}.figure5.overfitting", lag, counts["figure5_B"][0] == counts["figure5_B"][1],
            _count(counts, "figure5_B"), checked)
    steps = read.repetition_steps({"B": tables["figure5_B"], "p": tables["figure5_p"]})
    glue_figure("fig5_measured", _figure5(tables))
    glue_text("rt1_f5_sentence", repetition_sentence(steps) + " " + shortcut_sentence(tables["figure5_B"], steps))
    _, _, B5, p5, _ = figure.grid.fig5
    glue_text("rt1_f5_extremes", f"B = {max(B5)}, p = {max(p5):g}")
    said = {r.claim.key.split(".")[-1]: r for r in checked}
    short = [f"{what} {said[k].ours:.2f}× (the paper {said[k].claim.paper.split(' ')[0]}: {said[k].status})" for k, what in
             (("in_context_speedup", "in context"), ("cross_sample_speedup", "across samples")) if k in said]
    glue_text("rt1_f5_short", ("Repetition's speed-up at 50%: " + "; ".join(short) + ".") if short else "Figure 5 is not run yet.")
    return SimpleNamespace(speedups=rows, steps=steps, lag=lag, checked=checked)


def compared_with_laptop(res4: dict) -> pd.DataFrame:
    """Table 1's recall model beside the laptop substitute (``res4``: its Figure 4 results) where both reached 50%
    test accuracy in every seed, in steps to 50% (the laptop reads 50%; `read.laptop_comparison`), and the range of
    their ratio in a sentence (glued: rt1_vs_laptop)."""
    figure, tables, _, _ = _stored()
    t1_runs = pd.concat([tables["figure4"], tables["figure4_large"]])
    table = read.laptop_comparison(t1_runs, len(figure.grid.seeds), res4["grid"].summary)
    r = table["Table 1 / laptop"].to_numpy(float)
    if not len(r):
        glue_text("rt1_vs_laptop", "No point has runs of both models that reached 50% yet.")
        return table
    word = "point" if len(r) == 1 else "points"
    spread = f"{r.min():.1f}×" if len(r) == 1 else f"{r.min():.1f}× to {r.max():.1f}×"
    glue_text("rt1_vs_laptop", f"At the {len(r)} {word} where both models reached 50% test accuracy in every seed, "
                               f"Table 1's takes {spread} the laptop model's steps (geometric mean "
                               f"{float(np.exp(np.log(r).mean())):.1f}×).")
    return table


JUDGED = ("agrees", "differs", "inconclusive")
DIAGNOSTIC = "diagnostic"  # a number shown, not judged: the exponents at 50% against the paper's 5% values


def _exponent_key(axis: str, level: str) -> str:
    return f"{KEY}.figure4.{'tokens' if axis == 'N_tokens' else 'pairs'}_exponent_{level[:-1]}"


def exponent_phrase(t1: SimpleNamespace, axis: str, level: str) -> str:
    """How `figure4_answer` states one exponent (``axis`` "N_tokens" or "N_pairs" at ``level`` "5%" or "50%"): its
    value and interval, the paper's and the verdict when judged; "not judged (status)" otherwise, with no number."""
    from ...paper import paper_number

    status = t1.status.get(_exponent_key(axis, level))
    row = t1.exponents.set_index(["exponent", "level"]).loc[(axis, level)]
    if status == DIAGNOSTIC and np.isfinite(float(row["ours"])):
        return f"{row['ours']:.2f} [{row['low']:.2f}, {row['high']:.2f}] on {axis} (a diagnostic, not judged)"
    if status not in JUDGED or not np.isfinite(float(row["ours"])):
        return f"not judged on {axis} ({'not run yet' if status in (None, 'not run') else status})"
    paper = paper_number(f"figure4.{axis}")
    return f"{row['ours']:.2f} [{row['low']:.2f}, {row['high']:.2f}] on {axis} (the paper's {paper:.2f}: {status})"


def _at_most(p: float) -> str:
    """``p`` rounded up to one significant figure, as a reader writes it ("8 × 10⁻⁶"): a bound it never exceeds."""
    from ...report import format_number

    e = math.floor(math.log10(p))
    return format_number(math.ceil(p / 10 ** e - 1e-9) * 10.0 ** e, ".0e")


def figure4_answer(t1: SimpleNamespace, laptop: Sequence[claims.ClaimResult], grid: Any) -> str:
    """Figure 4 on the paper's model in a paragraph generated from its verdicts (``t1``: `figure4`'s result): both
    exponents at 50% (the jump) and at the paper's 5% (`exponent_phrase`), the judged points' ratios to the law, and
    the laptop substitute's exponents (``laptop``: its recorded ``figure4.*_exponent`` claims, pins, not evidence;
    ``grid``: its grid) as 95% intervals beside Table 1's, each on its own grid (glued: rt1_answer)."""
    phrase = lambda axis, level: exponent_phrase(t1, axis, level)  # noqa: E731
    text = (f"At the paper's 5% test accuracy the exponents are {phrase('N_tokens', '5%')} and "
            f"{phrase('N_pairs', '5%')}. At 50%, the middle of the jump, they are {phrase('N_tokens', '50%')} and "
            f"{phrase('N_pairs', '50%')}.")
    exps = t1.exponents.set_index(["exponent", "level"])
    judged = [(a, lv) for a, lv in exps.index if t1.status.get(_exponent_key(a, lv)) in JUDGED]
    pairs = sorted(set(t1.points["N_pairs"])) if len(t1.points) else []
    if any(lv == "5%" for _, lv in judged) and pairs:
        text += (f" With {pairs[0]} to {pairs[-1]} pairs, answering any value of the context already scores "
                 f"{1 / pairs[-1]:.0%} to {1 / pairs[0]:.0%}, above 5%: 5% is crossed inside the plateau, so the 5% "
                 "exponents read noise as much as emergence.")
    point_status = {(V, N): t1.status.get(f"{KEY}.figure4.V{V}_N{N}") for V, N in zip(t1.points["N_tokens"], t1.points["N_pairs"])}
    judged_points = t1.points[[point_status[(V, N)] in JUDGED and np.isfinite(float(r))
                               for V, N, r in zip(t1.points["N_tokens"], t1.points["N_pairs"], t1.points["ratio"])]]
    if len(judged_points):
        statuses = [point_status[(V, N)] for V, N in zip(judged_points["N_tokens"], judged_points["N_pairs"])]
        rest = len(t1.points) - len(judged_points)
        text += (f" The {len(judged_points)} judged points reach 5% in {judged_points['ratio'].min():.2f} to "
                 f"{judged_points['ratio'].max():.2f} of the law's steps ({statuses.count('differs')} of them differ "
                 "from it" + (f"; {rest} more not judged" if rest else "") + ").")
    widened = [k for k in judged if str(exps.loc[k, "recorded"]).startswith("point means")]
    if widened:
        which = "each interval comes" if len(widened) == len(judged) else f"{len(widened)} of {len(judged)} intervals come"
        text += (f" The power law misfits these points by more than seeds scatter (lack-of-fit p ≤ "
                 f"{_at_most(float(exps.loc[widened, 'lack_of_fit_p'].astype(float).max()))}), so {which} from the "
                 "point means' residuals.")
    lap = {f"N_{r.claim.key.split('.')[-1].split('_')[0]}": (r.ours, *r.interval) for r in laptop
           if r.claim.key in ("figure4.tokens_exponent", "figure4.pairs_exponent") and r.interval is not None
           and np.isfinite([r.ours, *r.interval]).all()}
    fifty = [a for a in ("N_tokens", "N_pairs") if t1.status.get(_exponent_key(a, "50%")) in (*JUDGED, DIAGNOSTIC)
             and a in lap]
    if fifty:
        lr = ("each point at the fastest of its learning rates " + ", ".join(f"{v:g}" for v in grid.lrs)
              if len(grid.lrs) > 1 else f"lr {grid.lrs[0]:g}")
        said = " and ".join(f"{lap[a][0]:.2f} [{lap[a][1]:.2f}, {lap[a][2]:.2f}] on {a}" for a in fifty)
        apart = [f"{a} (Table 1's {'lower' if exps.loc[(a, '50%'), 'high'] < lap[a][0] else 'higher'})"
                 for a in fifty if exps.loc[(a, "50%"), "high"] < lap[a][1] or exps.loc[(a, "50%"), "low"] > lap[a][2]]
        text += (f" The laptop substitute's fit, at {grid.threshold:.0%} test accuracy over N_tokens "
                 f"{min(grid.n_tokens)}–{max(grid.n_tokens)} and N_pairs {min(grid.n_pairs)}–{max(grid.n_pairs)} "
                 f"({lr}; one law over all points; a pin, not evidence), has {said} (95%). Table 1's grid is "
                 f"N_tokens {int(t1.points['N_tokens'].min())}–{int(t1.points['N_tokens'].max())} and N_pairs "
                 f"{pairs[0]}–{pairs[-1]}: " + (
                     "the intervals do not overlap on " + " and ".join(apart) if apart else
                     "the two models' intervals overlap on every exponent, so this comparison cannot tell them apart")
                 + ".")
    glue_text("rt1_answer", text)
    glue_text("rt1_short", text.split(". ")[0] + ".")  # the 5% exponents: the opening's one sentence
    return text


def mechanism(ctx: Context) -> SimpleNamespace:
    """Figures 16 and 17 on Table 1's recall model: the placement shares (layer 4 selects, layer 3 copies) under
    pre-LN and no LN, and repetition on the training distribution (glued: rt1_runs)."""
    figure, tables, counts, results = _stored()
    glue_text("rt1_runs", f"{sum(figure.devices().values())} of {len({r for r in figure.runs()})}")
    checked: list = []
    shares = read.placement_shares(results["placement"])
    ready = counts["placement"][0] == counts["placement"][1]
    for ln in ("pre", "none"):
        for pattern, name in (("select", f"select_layer4_share_{ln}"), ("copy", f"copy_layer3_share_{ln}")):
            sel = shares[(shares["layer_norm"] == ln) & (shares["pattern"] == pattern)] if len(shares) else shares
            row = ({"ours": sel["share"].iloc[0], "low": sel["low"].iloc[0], "high": sel["high"].iloc[0]} if len(sel)
                   else {"ours": np.nan, "low": np.nan, "high": np.nan})
            _record(lambda v, iv: ctx.record(f"recall_t1.figure17.{name}", v, interval=iv), f"{KEY}.figure17.{name}", row, ready, _count(counts, "placement"), checked)
    rep = {"B": results["figure5_B"], "p": results["figure5_p"]}
    both = all(counts[s][0] == counts[s][1] for s in ("figure5_B", "figure5_p"))
    f16 = read.training_distribution_speedups(rep) if both else {"ours": np.nan, "low": np.nan, "high": np.nan}
    _record(lambda v, iv: ctx.record("recall_t1.figure16.training_speedup", v, interval=iv),
            f"{KEY}.figure16.training_speedup", f16, both, _count(counts, "figure5_B", "figure5_p"), checked)
    glue_figure("fig17_measured", _placement_figure(shares, counts["placement"]))
    layers = read.placement_layers(results["placement"])
    summary = results["placement"].summary
    setups = sorted(set(summary["layer_norm"].astype(str))) if len(summary) and "layer_norm" in summary else []
    glue_text("rt1_placement_sentence", placement_sentence(layers, setups))
    return SimpleNamespace(shares=shares, layers=layers, figure16=f16, checked=checked)


def placement_sentence(layers: pd.DataFrame, setups: list[str] | None = None) -> str:
    """Where the circuit forms on this model, per LayerNorm set-up: the layer most emerged runs select and copy in,
    with its count over every N_pairs (from `read.placement_layers`), beside the paper's layers 4 and 3. ``setups``:
    the set-ups with stored runs; one with no emerged run is named as such, never dropped."""
    names = {"pre": "pre-LN runs", "none": "runs without LayerNorm"}
    setups = list(setups if setups is not None else sorted(set(layers["layer_norm"].astype(str))))
    if not setups:
        return "No placement run is stored yet."
    silent = [ln for ln in setups if not len(layers) or ln not in set(layers["layer_norm"].astype(str))]
    tail = "".join(f" None of the stored {names.get(ln, ln)} has emerged yet." for ln in silent)
    if not len(layers):
        return tail.strip()
    cols = [c for c in layers.columns if c.startswith("layer ")]
    parts = []
    for ln, g in layers.groupby("layer_norm", sort=False):
        said = []
        for pattern, verb in (("select", "select"), ("copy", "copy")):
            counts = g[g["pattern"] == pattern][cols].sum()
            tops = [c for c in cols if counts[c] == counts.max()]
            where = tops[0] if len(tops) == 1 else "layers " + " and ".join(c.split()[1] for c in tops)
            said.append(f"{verb} in {where} ({int(counts.max())} of {int(counts.sum())}{' each' if len(tops) > 1 else ''})")
        parts.append(f"{names.get(str(ln), str(ln))} " + " and ".join(said))
    return ("Where the circuit forms at this width: " + "; ".join(parts) + ". The paper: selection in layer 4, copying "
            "in layer 3." + tail)


def repetition_sentence(steps: pd.DataFrame) -> str:
    """Figure 5's speed-ups at 50% at every stored repeated setting, in order, e.g. "B = 2: 2.73×, B = 4: 1.67×"; a
    setting with no paired seed says why (no baseline stored, or not every seed reached 50%)."""
    parts = []
    for by, label in (("B", "in-context repetition"), ("p", "cross-sample repetition")):
        mine = steps[steps["repetition"] == by]
        has_base = bool((mine["value"] == read.NO_REPETITION[by]).any())
        said = []
        repeated = mine[mine["value"] != read.NO_REPETITION[by]]
        for value, x in zip(repeated["value"], repeated["speed-up at 50%"].astype(float)):
            if np.isfinite(x):
                said.append(f"{by} = {value:g}: {x:.2f}×")
            elif not has_base:
                said.append(f"{by} = {value:g}: no run without repetition stored to compare with")
            else:
                said.append(f"{by} = {value:g}: no seed reached 50% in both settings")
        if said:
            parts.append(f"{label}, " + ", ".join(said))
    if not parts:
        return "No run of Figure 5 with repetition is stored yet."
    return ("The speed-up at 50% over no repetition at each setting (geometric means of each seed's ratio): "
            + "; ".join(parts) + ".")


def shortcut_sentence(table: pd.DataFrame, steps: pd.DataFrame | None = None) -> str:
    """What in-context repetition also teaches: at B ≥ 2 the query's pair is the only one that repeats, so the repeated
    value answers that share of training sequences without reading the query (`AssociativeRecallTask.
    repeated_value_share`, from the runs' own task settings). A reading of the speed-ups, not a tested claim; its last
    clause only where ``steps`` (`read.repetition_steps`) shows the largest B slower than a smaller one."""
    rows = table.drop_duplicates("B")[lambda t: t["B"] > 1].sort_values("B") if len(table) else table
    if not len(rows):
        return ""
    shares = ", ".join(f"{AssociativeRecallTask(n_tokens=int(r.n_tokens), n_pairs=int(r.n_pairs), B=int(r.B)).repeated_value_share():.0%}"
                       f" at B = {int(r.B)}" for r in rows.itertuples())
    text = ("A reading, not tested: with B ≥ 2 the query's pair is the only pair that repeats in a context (the other keys "
            f"are distinct), so answering with the repeated value solves {shares} of the training sequences without "
            "reading the query; test sequences hold the query once, so no value repeats there and the shortcut gives "
            "no answer.")
    speed = (steps[(steps["repetition"] == "B") & (steps["value"] > 1)].set_index("value")["speed-up at 50%"]
             if steps is not None and len(steps) else pd.Series(dtype=float))
    if len(speed) >= 2 and np.isfinite(speed).all() and speed[speed.index.max()] < speed.drop(speed.index.max()).max():
        text += (f" A model can learn the shortcut first, which would fit the largest B (B = {speed.index.max():g}) being "
                 "slower at test than a smaller one.")
    return text


def _placement_figure(shares: pd.DataFrame, stored: tuple[int, int]) -> plt.Figure:
    """The share of emerged runs that select in layer 4 and copy in layer 3 (the paper's layers), per LayerNorm
    reading, with Wilson 95% intervals; the runs behind each, of the registered ones (``stored``: stored, registered)."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    readings = (("pre", "pre-LN", "C0"), ("none", "no LayerNorm", "C1"))
    patterns = (("select", "selects in layer 4"), ("copy", "copies in layer 3"))
    for j, (ln, label, color) in enumerate(readings):
        g = shares[shares["layer_norm"] == ln] if len(shares) else shares
        for i, (pattern, _) in enumerate(patterns):
            row = g[g["pattern"] == pattern] if len(g) else g
            if not len(row):
                continue
            share, lo, hi = (float(row[c].iloc[0]) for c in ("share", "low", "high"))
            x = i + (j - 0.5) * 0.3
            ax.errorbar([x], [share], yerr=[[share - lo], [hi - share]], fmt="o", color=color, capsize=4,
                        label=f"{label}: {int(row['emerged'].iloc[0])} emerged runs" if i == 0 else None)
    ax.axhline(0.5, color="0.6", ls=":", lw=1)
    ax.set_xticks(range(len(patterns)), [name for _, name in patterns])
    ax.set(xlim=(-0.6, len(patterns) - 0.4), ylim=(-0.05, 1.05), ylabel="share of emerged runs (Wilson 95%)",
           title=f"Table 1's recall model: where the circuit forms ({stored[0]} of {stored[1]} runs stored)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=9, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no run stored yet", transform=ax.transAxes, ha="center", color="0.4")
    fig.tight_layout()
    return fig


def _figure4(table: pd.DataFrame) -> plt.Figure:
    """(a) Steps to 5% and (b) to 50% test accuracy against N_tokens, one colour per N_pairs (geometric means over
    the stored seeds), the paper's law dashed in (a); a point with no stored run is absent."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4), sharey=True)
    colors = plotting.hue_colors(pd.Series(sorted(table["N_pairs"].unique())))
    for ax, level in zip(axes, ("5%", "50%")):
        for N, g in table.groupby("N_pairs"):
            g = g.sort_values("N_tokens")
            ok = g[np.isfinite(g[f"steps to {level}"])]
            if len(ok):
                ax.plot(ok["N_tokens"], ok[f"steps to {level}"], "o-", color=colors[N], label=f"$N_\\mathrm{{pairs}}$ = {N}")
            if level == "5%":
                V = np.geomspace(g["N_tokens"].min(), g["N_tokens"].max(), 20)
                ax.plot(V, [read.recall_law(v, N) for v in V], "--", color=colors[N], lw=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("$N_\\mathrm{tokens}$")
        ax.set_title(f"steps to {level} test accuracy" + (" (dashed: the paper's law)" if level == "5%" else ""))
    axes[0].set_ylabel("steps (geometric mean over seeds)")
    if axes[0].get_legend_handles_labels()[0]:
        axes[0].legend(fontsize=9)
    plotting.label_panels(axes)
    fig.tight_layout()
    return fig


def _figure5(tables: dict[str, pd.DataFrame]) -> plt.Figure:
    """The paper's Figure 5 on its recall model, as speed-ups: steps to 50% test accuracy at each level of in-context
    (B) and cross-sample (p) repetition over the level without it, each seed (dots, paired by seed) and their
    geometric mean (line), with the paper's ≈4× and ≈2× (read off its figure) dashed."""
    from ...paper import PAPER

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, by, base, paper in ((axes[0], "B", 1, PAPER["figure5_speedup"]["B"]), (axes[1], "p", 0.0, PAPER["figure5_speedup"]["p"])):
        t = tables[f"figure5_{by}"]
        if len(t):
            wide = t.pivot_table(index="seed", columns=by, values="steps to 50%")
            ratio = wide.rdiv(wide[base], axis=0)  # steps without repetition over steps with it, per seed
            for level in ratio.columns:
                ax.plot([level] * len(ratio), ratio[level], "o", color="C0", alpha=0.5, ms=5)
            ax.plot(ratio.columns, np.exp(np.log(ratio).mean()), "-", color="C0", label="ours (geometric mean)")
        ax.axhline(paper, color="k", ls="--", lw=1, label=f"the paper's ≈{paper:g}× (read off its figure)")
        ax.axhline(1.0, color="0.6", lw=1)
        ax.set(xlabel="B (copies in context)" if by == "B" else "p (cross-sample repetition)",
               ylabel="speed-up to 50% test accuracy", yscale="log")
        ax.set_yticks([0.5, 1, 2, 4], ["0.5×", "1×", "2×", "4×"])
        ax.minorticks_off()
        ax.legend(fontsize=8, frameon=False, loc="lower left")
    axes[0].set_title("in-context repetition")
    axes[1].set_title("cross-sample repetition")
    fig.tight_layout()
    return fig
