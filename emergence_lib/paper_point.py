"""What the paper's own points would cost here, for a headline measured at cheaper ones (issue 60 item 5): the landing
row says "at 64 tokens and 8 pairs (the paper: 256 and 32; 12 more runs, about N CPU-hours here)".

The paper's points are the book's reading of its grids, the ``paper`` scale of the headline's figure
(`PaperPoint`): the runs of that scale not stored in ``data/`` are priced from the stored runs alone, never timed (a
page computes nothing), as `estimate.from_store` prices a sweep:

* steps: the paper's law at each point times what stored runs like it measured against it
  (`estimate.StoredRatios`) times its stop factor, under its budget;
* seconds a step: the stored runs of that shape, or of its other widths; else those of the same model at the longest
  stored sequence, scaled by the sequences' lengths in tokens (`length_scaled`). The projections and the MLP, most
  of a step at width 256, grow linearly with the length; attention's quadratic part is a few percent at these
  lengths.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .cache import run_key
from .claims import REGISTRY
from .estimate import Estimate, UnpricedShape, estimate, refuse_timing, shape_of, stored_speeds


@dataclass(frozen=True)
class PaperPoint:
    figure: str  # the figure whose ``paper`` scale holds the paper's points
    sweeps: tuple[str, ...]  # its sweeps that the headline reads
    also_stored: tuple[str, ...] = ()  # figures whose stored runs (paper_cpu) also price it: the same model elsewhere


_REGRESSION = ("figure3", "figure3_measured", "figure3_fresh")
# Headline claim → the paper's points it was not measured at. The rows' ``where`` (`headlines.Headline.where`)
# says the same in words.
PAPER_POINTS: dict[str, PaperPoint] = {
    **{f"table1.joint.fresh.{k}_exponent": PaperPoint("figure3", ("T", "B"), _REGRESSION) for k in ("d", "T", "B")},
    "table1.figure3.cross_sample_speedup": PaperPoint("figure3", ("p",), _REGRESSION),
    "recall_t1.figure4.pairs_exponent_5": PaperPoint("figure4", ("grid",), ("recall_measured",)),
    "recall_t1.figure4.tokens_exponent_5": PaperPoint("figure4", ("grid",), ("recall_measured",)),
    "recall_t1.figure4.layernorm": PaperPoint("figure4", ("grid", "grid_no_ln"), ("recall_measured",)),
    "recall_t1.figure5.in_context_speedup": PaperPoint("figure5", ("B",), ("recall_measured",)),
    "recall_t1.figure5.cross_sample_speedup": PaperPoint("figure5", ("p",), ("recall_measured",)),
    "recall_t1.figure5.overfitting": PaperPoint("figure5", ("B",), ("recall_measured",)),
    "recall_t1.figure17.select_layer4_share_pre": PaperPoint("figure17", ("placement",), ("recall_measured",)),
}
assert set(PAPER_POINTS) <= set(REGISTRY), "a paper point names no claim"


def _tokens(shape: tuple) -> int:
    """A shape's sequence length in tokens: T for regression, 2 N_pairs + 1 for recall (`tasks.RecallTask.seq_len`)."""
    return int(shape[1]) if shape[0] == "transformer_regression" else 2 * int(shape[2]) + 1


def _set_up(shape: tuple) -> tuple:
    """A shape without its length and width (and recall's B, which changes how a sequence is drawn, not its length):
    the same model, batch and reading, LayerNorm's placement aside."""
    rest = shape[3 if shape[0] == "transformer_regression" else 4:]
    # LayerNorm before or after a block costs the same: a post-LN run is priced from pre-LN ones.
    return (shape[0],) + tuple("pre" if v == "post" else v for v in rest)


def length_scaled(shape: tuple, stored: dict[tuple, tuple[float, int]]) -> tuple[float, int] | None:
    """Seconds a step of ``shape`` from the stored shapes of the same set-up (`_set_up`) at the longest stored
    sequence: their median × the ratio of the lengths in tokens; None where no stored shape shares its set-up."""
    same = [(s, v) for s, v in stored.items() if _set_up(s) == _set_up(shape)]
    if not same:
        return None
    longest = max(_tokens(s) for s, _ in same)
    values = sorted(v for s, (v, _) in same if _tokens(s) == longest)
    runs = sum(n for s, (_, n) in same if _tokens(s) == longest)
    return values[len(values) // 2] * _tokens(shape) / longest, runs


def paper_point_runs(key: str) -> list[Any]:
    """The runs of the paper's points for ``key``: its figure's ``paper`` scale, the sweeps it reads, each run once."""
    return _runs(PAPER_POINTS[key])


def _runs(point: PaperPoint) -> list[Any]:
    from .experiments import figures

    sweeps = figures()[point.figure](scale="paper").sweeps()
    return list({run_key(r): r for name in point.sweeps for r in sweeps[name]}.values())


def price(key: str) -> Estimate | None:
    """What the paper's points for ``key`` that ``data/`` lacks cost here, priced from the stored runs (None where
    all are stored, or no stored run shares a set-up)."""
    return _price(PAPER_POINTS[key])


@lru_cache(maxsize=None)
def _price(point: PaperPoint) -> Estimate | None:
    """`price`, once a process for headlines that read the same points."""
    from .experiments import cache_for, figures

    cache = cache_for("paper")
    if cache is None:
        return None
    missing = [r for r in _runs(point) if not cache.path(r).exists()]
    if not missing:
        return None
    names = (point.figure,) + point.also_stored
    stored = {run_key(r): r for n in names for scale in ("paper_cpu", "paper") if figures()[n].has_scale(scale)
              for r in figures()[n](scale=scale).runs() if cache.path(r).exists()}
    ratios, seconds = stored_speeds(list(stored.values()), cache)
    for shape in {shape_of(r) for r in missing} - set(seconds):
        scaled = length_scaled(shape, seconds)
        if scaled is not None:
            seconds[shape] = scaled
    try:
        return estimate(missing, timer=refuse_timing, ratios=ratios, stored_seconds=seconds)
    except UnpricedShape:
        return None


def prices() -> dict[str, str]:
    """Every headline measured away from the paper's point → its price in words (`price_words`)."""
    return {k: price_words(k) for k in PAPER_POINTS}


def price_words(key: str) -> str:
    """'12 more runs, about 2,200 CPU-hours here' (two significant figures: the host's rate, measured as each page is
    built, moves the rest), or '' where none is missing or a set-up has no stored run to price it."""
    e = price(key)
    if e is None:
        return ""
    n, hours = len(e.table), e.expected_hours
    rounded = float(f"{hours:.2g}") if hours >= 1 else hours
    return f"{n} more run{'s' if n != 1 else ''}, about {rounded:,.0f} CPU-hours here"
