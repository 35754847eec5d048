"""The stored runs behind the book's Transformer figures, as one compact file for the runs browser
(chapters/explore_runs): each run's key (its file is ``data/<kind>/<key>.json``), its settings, its measured plateau
or emergence step, the paper's law at its point, and its learning curve downsampled on a log grid.

Written at build time from ``data/`` (`book_extension` calls `write_script` when the HTML is built); nothing here
trains. The browser tier reads it in the page; ``tests/test_run_index.py`` checks that every stored run of the chosen
figures is present once, with its stored plateau.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from .cache import ResultCache, run_key
from .configs import Scale
from .paper import PAPER, figure3_law

# (figure name, scale, label): the figures whose runs the browser offers.
FIGURES: tuple[tuple[str, Scale, str], ...] = (
    ("figure3_measured", "paper_cpu", "Figure 3, Table 1's model, T = 128-256"),
    ("figure3", "paper_cpu", "Figure 3, Table 1's model, T ≤ 64"),
    ("figure3", "cpu", "Figure 3, laptop model"),
    ("figure4", "cpu", "Figure 4, laptop model (recall)"),
)
CURVE_POINTS = 40  # per run: enough to see a plateau and its drop, small enough for thousands of runs


def _law(config: Any) -> float:
    if config.kind == "transformer_regression":
        return figure3_law(config.T, config.d, config.B)
    law = PAPER["figure4"]
    return float(law["C"] * config.n_tokens ** law["N_tokens"] * config.n_pairs ** law["N_pairs"])


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
    """{"figures": [...labels], "runs": [one dict per stored run of `FIGURES`, each once]}."""
    from .experiments import figures

    cache = ResultCache(data_root)
    runs: dict[str, dict[str, Any]] = {}
    labels = []
    for name, scale, label in FIGURES:
        labels.append(label)
        for sweep, configs in figures()[name](scale=scale).sweeps().items():
            for c in configs:
                key = run_key(c)
                if key in runs or not cache.path(c).is_file():
                    continue
                result = cache.load(c)
                if result is None:
                    continue
                recall = c.kind == "transformer_recall"
                measured = result.summary.get("emergence_step" if recall else "plateau_length")
                column = f"accuracy_{result.summary.get('measured_on', 'test')}" if recall else \
                    f"loss_{result.summary.get('measured_on', 'no_repetition')}"
                curve = result.curve.get(column, result.curve.get("accuracy_test" if recall else "loss_no_repetition"))
                law = _law(c)
                y = _finite(measured)
                runs[key] = {
                    "key": key, "kind": c.kind, "figure": label, "sweep": sweep, "seed": c.seed, "lr": c.lr, "width": c.d_model,
                    "T": getattr(c, "T", None), "d": getattr(c, "d", None), "B": c.B, "p": c.p,
                    "V": getattr(c, "n_tokens", None), "pairs": getattr(c, "n_pairs", None),
                    "measure": "emergence step" if recall else "plateau", "value": y, "law": law,
                    "ratio": y / law if y is not None else None, "status": result.summary.get("status"),
                    "curve_of": column, "curve": _downsample(np.asarray(result.curve["step"], float), np.asarray(curve, float)),
                }
    return {"figures": labels, "runs": list(runs.values())}


def write_script(path: Path, data_root: Path | None = None) -> int:
    """Write the index as a script that sets ``window.STORED_RUNS`` (a script, not a JSON file: it loads from a book
    opened as files, where a page may not fetch JSON). Returns the number of runs."""
    data = index(data_root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("window.STORED_RUNS = " + json.dumps(data, separators=(",", ":"), allow_nan=False) + ";\n")
    return len(data["runs"])
