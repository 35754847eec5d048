"""Beyond the paper (3): reading the runs of `runs.FollowUp`, a 2026 follow-up's six claims on these tasks.

Every function takes sweep results (`sweep.SweepResult`) and returns a tidy table; the chapter
(chapters/B3_followup.ipynb, through `show`) plots them and checks the claims.

* `entropy_lag_table`: when the attention entropy of the carrying head drops, against when the loss drops;
* `bias_table`, `toy_bias_plateaus`: the plateau under an attention-bias intervention, and its toy analogue;
* `exponent_table`: power-law fits of the plateau (heads under two protocols, depth from Figure 13, the Mixer);
* `mixer_table`: MLP-Mixer against the 1×1 Transformer on Figure 14's task variants;
* `spread_table`, `early_rank_correlation`, `early_table`: the distribution of emergence times over seeds, and
  whether the state early in a run already orders the seeds;
* `sources_both_tasks`, `cv_side_by_side`: the spread by what a seed varies (initialisation, data, both);
* `cost_table`: runs and CPU-minutes per sweep;
* `verdict_table`: the six claims, what we measured and the verdict per setting.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Sequence

import numpy as np
import pandas as pd

from ... import attention
from ...paper import PAPER
from ...metrics import NOT_REACHED, fit_power_law, lack_of_fit_test, plateau_length, time_to_fraction
from ...sweep import SweepResult
from ...toy import reduced_flow


# The follow-up's claim, per a recorded claim's status.
HOLDS = {"reproduced": "✓ holds", "agrees": "✓ holds", "differs": "✗ does not hold", "inconclusive": "? inconclusive",
         "smoke": "· smoke: not judged"}


def geomean(v: pd.Series | np.ndarray) -> float:
    """The geometric mean, NaN unless every value is finite and positive."""
    v = np.asarray(v, dtype=float)
    return float(np.exp(np.mean(np.log(v)))) if len(v) and np.all(np.isfinite(v) & (v > 0)) else np.nan


def _measure(summary: pd.DataFrame) -> str:
    """The summary column of a run's crossing: regression's plateau, recall's emergence step."""
    return "plateau_length" if "plateau_length" in summary else "emergence_step"


def _drop_times(t: np.ndarray, v: np.ndarray, fractions: Sequence[float]) -> list[float]:
    """Times at which ``v`` has covered each fraction of its way from its first to its last recorded value."""
    start, end = float(v[0]), float(v[-1])
    if not np.isfinite(start) or not np.isfinite(end) or start == end:
        return [np.nan] * len(fractions)
    return [time_to_fraction(t, v, start, end, f) for f in fractions]


def entropy_lag_table(result: SweepResult, carrier: str, fractions: Sequence[float] = (0.1, 0.5, 0.9)) -> pd.DataFrame:
    """Per run: the carrying head (largest final weight of recording ``carrier``: "attn_relevant" for regression,
    "attn_query_to_value" for recall), when its readout entropy covers 10/50/90% of its drop, when the measured
    loss (regression) or test accuracy (recall) covers the same fractions of its change, and the lag
    ``entropy_50 / loss_50`` (1: the same step); how many heads' entropy drops by at least half the carrier's drop, and
    the median drop of the others as a share of the carrier's."""
    rows = []
    for row, curve in result.per_run():
        curve = curve.dropna(axis=1, how="all")  # a sweep of several architectures: this run's heads only
        t = curve["step"].to_numpy(dtype=float)
        weights = attention.as_array(curve, carrier)  # (n_evals, L, H)
        ent = attention.as_array(curve, "attn_entropy")
        L, H = np.unravel_index(int(np.argmax(weights[-1])), weights.shape[1:])
        carried = ent[:, L, H]
        signal = curve["loss_no_repetition"] if "loss_no_repetition" in curve else curve["accuracy_test"]
        e_times = _drop_times(t, carried, fractions)
        l_times = _drop_times(t, signal.to_numpy(dtype=float), fractions)
        drop = ent[0] - ent[-1]  # (L, H)
        others = np.delete(drop.ravel(), L * ent.shape[2] + H)
        rows.append({
            "run": row["run"], "seed": int(row["seed"]), "layers": int(row["n_layers"]),
            "carrier": f"L{L + 1}H{H + 1}", "carrier layer": int(L) + 1, "carrier head": int(H) + 1, "entropy at start": float(carried[0]), "entropy at end": float(carried[-1]),
            "log T": float(np.log(curve_length(row))),
            **{f"entropy {int(f * 100)}%": e for f, e in zip(fractions, e_times)},
            **{f"loss {int(f * 100)}%": v for f, v in zip(fractions, l_times)},
            "crossing": float(row[_measure(result.summary)]),
            "lag (entropy 50% / loss 50%)": e_times[1] / l_times[1] if len(fractions) == 3 else np.nan,
            "heads whose entropy drops": int((drop >= 0.5 * drop[L, H]).sum()) if drop[L, H] > 0 else 0,
            "heads": int(drop.size),
            "the rest's drop / carrier's": (float(np.median(others[others < 0.5 * drop[L, H]]) / drop[L, H])
                                            if (others < 0.5 * drop[L, H]).any() and drop[L, H] > 0 else np.nan),
        })
    return pd.DataFrame(rows)


def curve_length(row: pd.Series) -> int:
    """The number of keys the readout attends over: T (regression), 2·n_pairs + 1 (recall)."""
    return int(row["T"]) if "T" in row and pd.notna(row.get("T")) else 2 * int(row["n_pairs"]) + 1


def bias_table(result: SweepResult) -> pd.DataFrame:
    """Per run: model, s, where the bias goes, the crossing without the bias (what the weights learned; the run's
    measure), with it (the model as trained), and both relative to the same model's s = 0 seed mean."""
    s = result.summary.copy()
    m = _measure(s)
    s["model"] = [f"{L}×{H}" for L, H in zip(s["n_layers"], s["n_heads"])]
    s["where"] = np.where(s["attention_bias"] == 0, "—", s["bias_layers"])
    s["with bias"] = s["crossing_with_bias"].where(s["attention_bias"] > 0, s[m])
    s["without bias"] = s[m]
    base = s[s["attention_bias"] == 0].groupby("model")[m].mean()
    s["with bias / s=0"] = s["with bias"] / s["model"].map(base)
    s["without bias / s=0"] = s["without bias"] / s["model"].map(base)
    return s[["model", "attention_bias", "where", "seed", "without bias", "with bias", "with bias / s=0",
              "without bias / s=0", "steps_run"]].rename(columns={"attention_bias": "s"})


def toy_bias_plateaus(T: int, d: int, gaps: Sequence[float] | np.ndarray, threshold: float = 0.1) -> pd.DataFrame:
    """The reduced flow (Eqs. 3–4) from w = 0 and an initial logit gap Δa₀ (the toy analogue of a bias s on the
    relevant logit: the flow depends on the logits only through Δa, so a constant bias s and an initial gap s
    are the same dynamics): the plateau and its ratio to Δa₀ = 0."""
    gaps = np.asarray(gaps, dtype=float)
    every = np.concatenate([[0.0], gaps])  # the reference Δa₀ = 0 first
    traj = reduced_flow(T=np.full(len(every), T), d=d, t_max=20.0 * np.sqrt(d) * T,
                        y0=np.column_stack([np.zeros(len(every)), every]), stop_below=threshold / 2)
    plateaus = np.array([plateau_length(traj.t, traj.loss[:, i], threshold) for i in range(len(every))])
    return pd.DataFrame({"gap": gaps, "alpha at start": 1 / ((T - 1) * np.exp(-gaps) + 1), "plateau": plateaus[1:],
                         "plateau / gap 0": plateaus[1:] / plateaus[0]})


def exponent_table(summary: pd.DataFrame, predictors: Sequence[str], by: str | None = None,
                   target: str = "plateau_length") -> pd.DataFrame:
    """A power law of ``target`` in ``predictors`` fitted to the reached runs (per group of ``by``): one row per
    group with the constant C, each exponent, its standard error, R², the runs fitted and the runs not reached (left out),
    and the lack-of-fit F test of the law on those runs (`metrics.lack_of_fit_test`): the fit counts seeds as separate
    points, so where its p is small the law misfits the points by more than seeds scatter and the errors are too small."""
    groups = summary.groupby(by, sort=False) if by else [("all", summary)]
    rows = []
    for name, g in groups:
        ok = g[np.isfinite(g[target].to_numpy(dtype=float))]
        row = {by or "group": name, "runs": len(g), "not reached": len(g) - len(ok)}
        if len(ok) > len(predictors) + 1:
            fit = fit_power_law(ok, list(predictors), target)
            row["C"] = fit.constant
            for p in predictors:
                row[f"exponent of {p}"], row[f"± {p}"] = fit.exponents[p], fit.stderr[p]
            row["R²"] = fit.r2
            lack = lack_of_fit_test(ok, list(predictors), target)
            row["lack-of-fit F"], row["lack-of-fit p"] = lack["F"], lack["p"]
        rows.append(row)
    return pd.DataFrame(rows)


def mixer_table(mixer: SweepResult, transformer: SweepResult, variants: dict[str, tuple[bool, bool]]) -> pd.DataFrame:
    """Per task variant and model: runs, reached, and the median plateau; the Transformer's seeds are Figure 14's
    (same grid, budget and optimiser), the Mixer's its own. ``transformer / mixer``: the ratio of medians over
    the (T, d) points both reached with every seed (inf where only the Mixer reached)."""
    rows = []
    for name, (rand, feat) in variants.items():
        per = {}
        grid = mixer.summary[["T", "d"]].drop_duplicates()
        for model, res in (("Transformer 1×1", transformer), ("MLP-Mixer", mixer)):
            s = res.summary[(res.summary["random_position"] == rand) & (res.summary["relevance_feature"] == feat)]
            s = s.merge(grid, on=["T", "d"])  # the Mixer's (T, d) grid only
            per[model] = s.groupby(["T", "d"])["plateau_length"].median()
            rows.append({"task": name, "model": model, "runs": len(s), "reached": int(np.isfinite(s["plateau_length"]).sum()),
                         "median plateau": float(s["plateau_length"].median())})
        both = per["Transformer 1×1"].index.intersection(per["MLP-Mixer"].index)
        tr, mx = per["Transformer 1×1"].loc[both], per["MLP-Mixer"].loc[both]
        fin = np.isfinite(tr) & np.isfinite(mx)
        ratio = float(np.exp(np.median(np.log(tr[fin] / mx[fin])))) if fin.any() else (
            NOT_REACHED if np.isfinite(mx).any() else np.nan)
        rows[-1]["transformer / mixer"] = rows[-2]["transformer / mixer"] = ratio
    return pd.DataFrame(rows)


def spread(values: np.ndarray) -> dict[str, float]:
    """Summary of one distribution of emergence times: mean, CV, min/max, max/min, skewness of the times and of
    their logs (0 for a symmetric shape: a log-normal has a log-skewness of 0)."""
    v = np.asarray(values, dtype=float)
    fin = v[np.isfinite(v)]

    def skew(x: np.ndarray) -> float:
        return float(np.mean(((x - x.mean()) / x.std()) ** 3)) if len(x) > 2 and x.std() > 0 else np.nan

    return {"seeds": len(v), "reached": len(fin), "mean": float(fin.mean()) if len(fin) else np.nan,
            "CV": float(fin.std(ddof=1) / fin.mean()) if len(fin) > 1 else np.nan,
            "min": float(fin.min()) if len(fin) else np.nan, "max": float(fin.max()) if len(fin) else np.nan,
            "max / min": float(fin.max() / fin.min()) if len(fin) else np.nan,
            "skewness": skew(fin), "skewness of log": skew(np.log(fin)) if len(fin) else np.nan}


def spread_table(summary: pd.DataFrame, by: Sequence[str], task: str, value: str | None = None) -> pd.DataFrame:
    """`spread` per configuration (the groups of ``by``), labelled with ``task``."""
    value = value or _measure(summary)
    rows = []
    for key, g in summary.groupby(list(by), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        rows.append({"task": task, "configuration": ", ".join(f"{k} = {v}" for k, v in zip(by, key)),
                     **spread(g[value].to_numpy(dtype=float))})
    return pd.DataFrame(rows)


def source_table(summary: pd.DataFrame, both: pd.DataFrame, by: Sequence[str], task: str) -> pd.DataFrame:
    """The spread (`spread`) per configuration when only the initialisation varies (``data_seed`` fixed), only the data
    (``seed`` fixed, ``data_seed`` varies) and both (``both``: the seeds of the randomness sweep)."""
    families = {"initialisation only": summary[summary["data_seed"] == 0],
                "data only (target, batches)": summary[summary["seed"] == 0], "both": both}
    return pd.concat([spread_table(s, by, task).assign(varies=name) for name, s in families.items()], ignore_index=True)


def early_rank_correlation(result: SweepResult, signal: str, at: float, by: Sequence[str]) -> pd.DataFrame:
    """Does a run's state early on already order the seeds? Per configuration: Spearman's rank correlation, across
    seeds, between ``signal`` at ``at`` × the configuration's median crossing, and the crossing. ``signal`` is a curve
    column or an attention recording (then its largest head at each evaluation). Strongly negative for an attention
    weight: the seeds that will emerge first are already ahead."""
    m = _measure(result.summary)
    rows = []
    for key, g in result.summary.groupby(list(by), sort=True):
        step = at * float(np.median(g[m]))
        early = []
        for run in g["run"]:
            c = result.curves[result.curves["run"] == run].dropna(axis=1, how="all")
            v = c[signal].to_numpy() if signal in c else attention.as_array(c, signal).max(axis=(1, 2))
            early.append(float(np.interp(step, c["step"], v)))
        ranks = pd.DataFrame({"early": early, "crossing": g[m].to_numpy()}).rank()
        key = key if isinstance(key, tuple) else (key,)
        rows.append({"configuration": ", ".join(f"{k} = {v}" for k, v in zip(by, key)), "at step": step,
                     "Spearman ρ": float(ranks.corr().iloc[0, 1]), "seeds": len(g)})
    return pd.DataFrame(rows)


def early_table(regression: SweepResult, recall: SweepResult, fractions: Sequence[float]) -> pd.DataFrame:
    """`early_rank_correlation` for both tasks at each fraction of the median crossing: regression's attention on the
    relevant token, recall's query-to-value attention."""
    return pd.concat([early_rank_correlation(regression, "attn_relevant", f, ["T", "d"]).assign(task="regression 1×1", at=f)
                      for f in fractions] +
                     [early_rank_correlation(recall, "attn_query_to_value", f, ["n_tokens", "n_pairs"]).assign(
                         task="recall 4×4", at=f) for f in fractions], ignore_index=True)


def sources_both_tasks(reg_sources: pd.DataFrame, reg_both: pd.DataFrame, rec_sources: pd.DataFrame,
                       rec_both: pd.DataFrame, recall_point: tuple[int, int]) -> pd.DataFrame:
    """`source_table` for both tasks; recall's seeds varying both sources are those at ``recall_point``
    (N_tokens, N_pairs), the point its one-source seeds were run at."""
    at = rec_both[(rec_both["n_tokens"] == recall_point[0]) & (rec_both["n_pairs"] == recall_point[1])]
    return pd.concat([source_table(reg_sources, reg_both, ["T", "d"], "regression 1×1"),
                      source_table(rec_sources, at, ["n_tokens", "n_pairs"], "recall 4×4")], ignore_index=True)


def cv_side_by_side(sources: pd.DataFrame, cv_toy: float) -> pd.DataFrame:
    """The CV of emergence by what a seed varies, medians over configurations, with the toy model's (whose seeds
    vary its batches alone) as one more row: side by side, no ratio (the sources differ)."""
    side = pd.concat([sources[["task", "varies", "CV"]],
                      pd.DataFrame([{"task": "toy model, SGD", "varies": "batches only (W = 0, the reduced dynamics "
                                     "do not depend on the target)", "CV": cv_toy}])], ignore_index=True)
    return side.groupby(["task", "varies"], sort=False, as_index=False)["CV"].median()


def cost_table(results: dict[str, SweepResult], shared: Sequence[str]) -> pd.DataFrame:
    """Runs and CPU-minutes per sweep (summed over runs; a run in two sweeps counts in the first; toy SGD runs record
    no time of their own: NaN); ``shared``: sweeps whose runs belong to Figure 14 (chapter A4)."""
    seen: set[str] = set()
    rows = []
    for name, res in results.items():
        s = res.summary[~res.summary["run"].isin(seen)]
        seen |= set(s["run"])
        minutes = float(s["seconds"].sum()) / 60 if "seconds" in s and s["seconds"].notna().any() else np.nan
        rows.append({"sweep": name, "runs": len(res.summary), "not in an earlier sweep": len(s), "CPU-minutes": minutes,
                     "runs of": "Figure 14 (chapter A4)" if name in shared else "this chapter"})
    return pd.DataFrame(rows)


def verdict_table(entropy_: SimpleNamespace, bias_: SimpleNamespace, heads_: SimpleNamespace,
                  mixer_: SimpleNamespace, random_: SimpleNamespace) -> pd.DataFrame:
    """The six claims (from what each section of `show` returned): the follow-up's, this paper's where it has one, what we measured (computed), the verdict per
    setting (from the claims the sections recorded)."""
    lag = entropy_.lag.set_index("model")["median lag"]
    one = bias_.means[bias_.means["model"] == "1×1"]
    rec = bias_.means[bias_.means["model"] == "recall 4×4"]
    rows = [
        ("attention entropy", "the carrying heads' entropy drops in the loss's window", "—",
         "entropy 50% / loss 50% step, median: " + ", ".join(f"{m} {v:.2f}" for m, v in lag.items()),
         [("regression", "followup.entropy_lag_regression"), ("recall", "followup.entropy_lag_recall")]),
        ("attention-bias intervention", "a bias toward the true pattern removes the plateau", "—",
         f"speed-up at the largest s: regression 1×1 {1 / one['with bias / s=0'].min():.1f}×, "
         f"recall {1 / rec['with bias / s=0'].min():.0f}×",
         [("regression", "followup.bias_speedup_regression"), ("recall", "followup.bias_speedup_recall")]),
        ("heads", "more heads accelerate learning", f"more heads lengthen it: H^{PAPER['figure13']['heads']}",
         f"η = {heads_.eta_width:+.2f} (fixed total width), {heads_.eta_dim:+.2f} (fixed head dim: the width grows)",
         [("fixed total width", "followup.heads_fixed_width"), ("fixed head dim", "followup.heads_fixed_head_dim")]),
        ("depth", "deeper is no better, often worse", f"layers matter little: L^{PAPER['figure13']['layers']}",
         f"λ from {heads_.lam_min:+.2f} to {heads_.lam_max:+.2f} (per head count)", [("", "followup.depth")]),
        ("MLP-Mixer", "an order of magnitude faster on a positional task", "—",
         f"Transformer / Mixer plateau: {mixer_.positional:.1f} (positional), {mixer_.content:.2f} (content-marked)",
         [("positional", "followup.mixer_positional"), ("content-marked", "followup.mixer_content")]),
        ("randomness", "emergence times are random across seeds", "—",
         f"CV up to {random_.cv_reg:.2f} (regression), {random_.cv_rec:.2f} (recall), {random_.cv_toy:.3f} (toy SGD)",
         []),
    ]
    checked = {c.claim.key: c for ns in (entropy_, bias_, heads_, mixer_, random_) for c in ns.checked}
    return pd.DataFrame([{"claim": topic, "the follow-up": theirs, "this paper": paper, "ours": ours,
                          "the follow-up's claim here": "; ".join(f"{where}: {HOLDS[checked[k].status]}" if where
                                                                  else HOLDS[checked[k].status] for where, k in keys)
                          or "not judged: the CVs side by side, the two models' seeds varying different sources"}
                         for topic, theirs, paper, ours, keys in rows])
