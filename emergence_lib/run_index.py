"""The stored runs behind the book's Transformer figures, as one compact file for the runs browser
(chapters/explore_runs): each run's key (its file is ``data/<kind>/<key>.json``), the figures that read it, its
settings, its measured plateau or emergence step with its threshold, the paper's law at its point where the paper
fitted one, and its learning curve downsampled on a log grid.

Written at build time from ``data/`` (`book_extension` calls `write_script` when the HTML is built); nothing here
trains. ``tests/test_run_index.py`` checks that every stored Transformer run of every figure is present once, with
its stored plateau, and that no ratio is taken against a law fitted at another threshold.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .cache import ResultCache, run_key
from .paper import PAPER, figure3_law

# (figure name, scale) → what the browser calls its runs, in the order it lists them. The paper's model and the small
# model are the glossary's names (Table 1's settings, and this book's cheaper ones).
LABELS: dict[tuple[str, str], str] = {
    ("figure3_measured", "paper_cpu"): "Figure 3, the paper's model, T = 128–256",
    ("figure3", "paper_cpu"): "Figure 3, the paper's model, T ≤ 64",
    ("figure3_fresh", "paper_cpu"): "Figure 3, the paper's model, fresh seeds",
    ("figure3", "paper"): "Figure 3, the paper's model, on a GPU",
    ("figure3", "cpu"): "Figure 3, the small model",
    ("recall_measured", "paper_cpu"): "Figures 4, 5, 16, 17, the paper's recall model",
    ("figure4", "cpu"): "Figure 4, the small model (recall)",
    ("figure5", "cpu"): "Figures 5 and 16, the small model (recall)",
    ("figure16", "cpu"): "Figures 5 and 16, the small model (recall)",
    ("figure17", "cpu"): "Figure 17, the small model (recall)",
    ("figure11", "paper_cpu"): "Figure 11, the paper's model",
    ("figure11", "cpu"): "Figure 11, the small model",
    ("figure12", "paper_cpu"): "Figure 12, the paper's model",
    ("figure12", "cpu"): "Figure 12, the small model",
    ("ablations_measured", "paper_cpu"): "Figures 14 and 15, the paper's width",
    ("figure13", "cpu"): "Figure 13, the small model",
    ("figure14", "cpu"): "Figure 14, the small model",
    ("figure15", "cpu"): "Figure 15, the small model",
    ("unsaid", "paper_cpu"): "Unstated choices (chapter B4), the paper's model",
    ("confirm", "cpu"): "Fresh seeds for Figure 5 and the small model's law",
    ("steering", "cpu"): "Steering schedules (chapter B1)",
    ("prediction", "cpu"): "Held-out runs for prediction (chapter B2)",
    ("followup", "cpu"): "Follow-up runs (chapter B3)",
}
CURVE_POINTS = 40  # per run: enough to see a plateau and its drop, small enough for thousands of runs
FIGURE3_THRESHOLD, FIGURE4_THRESHOLD = 0.1, 0.05  # the paper's laws are fitted at loss 0.1 and at 5% accuracy
STATUS_WORDS = {"crossed": "reached", "not_reached": "not reached by its last step", "diverged": "diverged"}


def _law(config: Any) -> float | None:
    """The paper's law at a run's point, only where the paper fitted it: Figure 3's for the 2-layer, 4-head model
    with Adam and no cross-sample repetition, read at loss 0.1; Figure 4's for recall without repetition, at 5%
    accuracy. Elsewhere None: a plateau read at loss 0.4, or with p > 0, is no point of either law."""
    if config.p != 0:
        return None
    if config.kind == "transformer_regression":
        setting = (config.n_layers, config.n_heads, config.optimizer, config.random_position, config.relevance_feature)
        if config.threshold != FIGURE3_THRESHOLD or setting != (2, 4, "adam", True, True):
            return None
        return figure3_law(config.T, config.d, config.B)
    if config.threshold != FIGURE4_THRESHOLD or config.B != 1:
        return None
    law = PAPER["figure4"]
    return float(law["C"] * config.n_tokens ** law["N_tokens"] * config.n_pairs ** law["N_pairs"])


def label(name: str, scale: str) -> str:
    return LABELS.get((name, scale), f"{name} ({scale})")


def _downsample(steps: np.ndarray, values: np.ndarray, n: int = CURVE_POINTS) -> list[list[float]]:
    """About ``n`` points of a curve, spread evenly in log step (the first and last kept), rounded for size."""
    ok = np.isfinite(values) & (steps > 0)
    steps, values = steps[ok], values[ok]
    if len(steps) <= n:
        idx = np.arange(len(steps))
    else:
        targets = np.geomspace(steps[0], steps[-1], n)
        idx = np.unique(np.searchsorted(steps, targets).clip(0, len(steps) - 1))
    return [[float(steps[i]), float(f"{values[i]:.4g}")] for i in idx]




def _finite(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None


def index(data_root: Path | None = None) -> dict[str, Any]:
    """{"figures": [labels], "runs": [each stored Transformer run that a figure reads, once, with the indices of the
    figures it belongs to], "unlisted": how many Transformer files in the store no figure reads}."""
    from .configs import SCALES
    from .experiments import figures

    cache = ResultCache(data_root)
    runs: dict[str, dict[str, Any]] = {}
    order = list(dict.fromkeys(LABELS.values()))
    for name, cls in figures().items():
        for scale in [s for s in SCALES[1:] if cls.has_scale(s)]:
            for sweep, configs in cls(scale=scale).sweeps().items():
                for c in configs:
                    if not c.kind.startswith("transformer") or not cache.path(c).is_file():
                        continue
                    key = run_key(c)
                    if key not in runs and (entry := _entry(c, cache, sweep)) is not None:
                        runs[key] = entry
                    if key in runs:
                        runs[key]["figures"].add(label(name, scale))
    used = [f for f in order if any(f in r["figures"] for r in runs.values())]
    used += sorted({f for r in runs.values() for f in r["figures"]} - set(used))
    for r in runs.values():
        r["figures"] = sorted(used.index(f) for f in r["figures"])
    on_disk = {p.stem for kind in ("transformer_regression", "transformer_recall")
               for p in (cache.root / kind).glob("*.json")}
    return {"figures": used, "runs": list(runs.values()), "unlisted": len(on_disk - set(runs))}


def _entry(c: Any, cache: ResultCache, sweep: str) -> dict[str, Any] | None:
    result = cache.load(c)
    if result is None:
        return None
    recall = c.kind == "transformer_recall"
    measured = result.summary.get("emergence_step" if recall else "plateau_length")
    column = f"accuracy_{result.summary.get('measured_on', 'test')}" if recall else \
        f"loss_{result.summary.get('measured_on', 'no_repetition')}"
    curve = result.curve.get(column, result.curve.get("accuracy_test" if recall else "loss_no_repetition"))
    steps = np.asarray(result.curve.get("step", []), float)
    drawn = _downsample(steps, np.asarray(curve, float)) if curve is not None and len(curve) == len(steps) else []
    if not drawn:  # a record the schema accepts but that has no curve to draw: skipped, said in one line
        print(f"runs browser: run {run_key(c)} skipped: it holds no {column.replace('_', ' ')} curve at steps above 0",
              file=sys.stderr)
        return None
    law, y = _law(c), _finite(measured)
    status = str(result.summary.get("status", "crossed" if y is not None else "not_reached"))
    return {
        "key": run_key(c), "kind": c.kind, "figures": set(), "sweep": sweep, "seed": c.seed, "lr": c.lr,
        "width": c.d_model, "T": getattr(c, "T", None), "d": getattr(c, "d", None), "B": c.B, "p": c.p,
        "V": getattr(c, "n_tokens", None), "pairs": getattr(c, "n_pairs", None),
        "measure": "emergence step" if recall else "plateau", "value": y, "law": law,
        "ratio": y / law if y is not None and law is not None else None, "status": STATUS_WORDS.get(status, status),
        "threshold": float(c.threshold), "curve_of": column.replace("_", " ").replace("no repetition", "held-out data"),
        "curve": drawn,
    }


def write_script(path: Path, data_root: Path | None = None) -> int:
    """Write the index as a script that sets ``window.STORED_RUNS`` (a script, not a JSON file: it loads from a book
    opened as files, where a page may not fetch JSON). Returns the number of runs."""
    data = index(data_root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("window.STORED_RUNS = " + json.dumps(data, separators=(",", ":"), allow_nan=False) + ";\n")
    return len(data["runs"])
