"""How long Transformer runs take on this machine: one timing per distinct shape, times the steps a law predicts.

A run's cost is (seconds per step of its shape) × (steps it will train). The first factor depends on the
sequence length, the width, the depth, the heads, the batch and the model, not on the seed, the learning rate or
the data's repetition: a shape with stored runs is priced at what they took (`stored_step_seconds`, evaluations
included), any other is timed once, here and now (`step_seconds`). The second comes from
the paper's own law for the run's task (`expected_steps`: Figure 3's for regression, Figure 4's for recall),
times the run's stop factor, never past ``max_steps``; ``max_steps`` alone gives an upper bound.
Timing only the first (smallest) run of a grid understates a paper grid several-fold: its largest shapes are
the slowest per step *and* train the longest.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import pandas as pd

from . import checkpoints
from .cache import run_key
from .configs import TransformerRecallConfig, TransformerRegressionConfig
from .host import DEFAULT_RATES
from .paper import PAPER, figure3_law
from .runs import runner_for

# A shape is timed by the difference of two short runs of (few, many) steps with as many evaluations each (a test
# checks it with `training.evaluation_steps`): set-up and evaluation cost the same in both and cancel, so the
# difference is the training steps alone. A one-step warm-up goes first (the first call of a shape pays for
# allocation). The probes evaluate on `PROBE_EVAL_SIZE` sequences: a recall run at Table 1's width spent 6 s on its
# 512-sequence evaluations with about 1 s of jitter, and 4 steps of 0.25 s read anywhere from 0.16 to 0.67 s a step
# (0.256-0.260 with 32 sequences). Where the first pair spans under `MIN_SPAN_S`, a second pair (11, n) with n
# between `TIMING_PAIRS[1]` and `TIMING_PAIRS[2]` steps is sized from the first's reading to span it. Seconds a shape,
# not the minutes that 20 steps with evaluations took at Table 1's width (issue 37 item 4).
TIMING_PAIRS = ((2, 6), (11, 27), (11, 99))  # the first pair; the second's shortest and longest (every n in 12-99
# evaluates as often as 11 does)
MIN_SPAN_S = 1.0
PROBE_EVAL_SIZE = 32
TIMED_STEPS = TIMING_PAIRS[0][1]  # the longest run of a first timing
# Trial runs (shared notes; the learning-rate probe of chapter 04): the plateau scales about as lr^-0.7 at fixed
# size, so the paper's law (at its own lr) is moved by this exponent to a run's lr.
LR_EXPONENT = 0.7
PAPER_LR = {"transformer_regression": 1e-4, "transformer_recall": 1e-4}
SGD_LR = 5e-3  # the SGD rate of the paper's Figure 15, at which its SGD law was fitted


def shape_of(run: Any) -> tuple:
    """What sets the cost of one step: the kind, the sizes that set the tensors' shapes, the architecture."""
    arch = (run.n_layers, run.n_heads, run.d_model, run.d_qk, run.mlp_factor, run.batch_size, run.eval_size,
            getattr(run, "model", "transformer"), getattr(run, "layer_norm", False), getattr(run, "causal", False),
            # bfloat16's step depends on the host's units (`host`); the mean readout computes every position's last layer
            getattr(run, "precision", "float32"), getattr(run, "readout", "last"))
    if isinstance(run, TransformerRegressionConfig):
        return (run.kind, run.T, run.d) + arch
    if isinstance(run, TransformerRecallConfig):
        return (run.kind, run.n_tokens, run.n_pairs, run.B) + arch  # B lengthens recall's sequences
    raise TypeError(f"no step-time estimate for runs of kind {getattr(run, 'kind', type(run).__name__)!r}")


def _probe(run: Any, steps: int) -> Any:
    """The run shortened to ``steps`` steps: the same training step, nothing else that costs (no stop, one
    evaluation a decade, on few sequences)."""
    return dataclasses.replace(run, max_steps=steps, evals_per_decade=1, stop_factor=None,
                               eval_size=min(run.eval_size, PROBE_EVAL_SIZE))


def time_shape(run: Any) -> float:
    """Seconds per training step of ``run``'s shape: the difference of the times of two short runs over the
    difference of their steps, after a one-step warm-up. The first pair where it spans `MIN_SPAN_S`; else a second
    pair sized by the first's reading to span it; an upper bound where no difference is positive."""
    def seconds(steps: int) -> float:
        start = time.perf_counter()
        runner_for(run.kind)([_probe(run, steps)], device="cpu")
        return time.perf_counter() - start

    seconds(1)  # warm-up
    (few, many), (few2, shortest), (_, longest) = TIMING_PAIRS
    span = seconds(many) - seconds(few)
    first = span / (many - few)
    if span >= MIN_SPAN_S:
        return first
    needed = math.ceil(MIN_SPAN_S / first) if first > 0 else longest
    many2 = min(longest, few2 + max(shortest - few2, needed))
    second = (seconds(many2) - seconds(few2)) / (many2 - few2)
    if second > 0:
        return second
    if first > 0:
        return first
    return seconds(longest) / longest  # an upper bound (set-up included) rather than a step priced as free


def step_seconds(runs: Iterable[Any], timer: Callable[[Any], float] | None = None,
                 progress: Callable[[str], None] | None = None) -> dict[tuple, float]:
    """Seconds per step of every distinct shape among ``runs`` (each timed once, on one run of that shape), saying
    each as it is timed (``progress``: a line per shape)."""
    timer = timer or time_shape
    first: dict[tuple, Any] = {}
    for r in runs:
        first.setdefault(shape_of(r), r)
    out = {}
    for i, (shape, run) in enumerate(first.items(), 1):
        out[shape] = timer(run)
        if progress is not None:
            progress(f"timed shape {i} of {len(first)} {shape[:3]}: {out[shape]:.3f} s a step")
    return out


def steps_done_in(folder: Path | None) -> Callable[[Any], int]:
    """A run → the step it resumes from on a CPU, from the checkpoints in ``folder`` (None: every run afresh)."""
    if folder is None:
        return lambda run: 0
    return lambda run: checkpoints.cpu_resume_step(folder, run_key(run), run)


def steps_left(run: Any, expected: float, done: int) -> float:
    """Steps ``run`` has left, resumed at step ``done`` with ``expected`` steps in all by the law. A run already past
    them has not stopped yet: it stops at ``stop_factor`` × a crossing it has not reached, or reached lately, so at
    least about (``stop_factor`` − 1) × ``done`` steps more; never past ``max_steps``."""
    if done <= 0:
        return expected
    if run.stop_factor is None:
        return float(run.max_steps - done)
    return float(min(run.max_steps - done, max(expected - done, (run.stop_factor - 1) * done)))


def law_steps(run: Any) -> float:
    """The plateau the paper's law predicts for ``run`` (steps), moved to the run's learning rate."""
    if isinstance(run, TransformerRegressionConfig) and run.optimizer == "sgd":
        # SGD's plateau follows its own law (Figure 15), not Adam's: at the paper's lr it is 20-100x longer.
        law = PAPER["figure15 sgd"]
        return law["C"] * run.d ** law["d"] * run.T ** law["T"] * (SGD_LR / run.lr) ** LR_EXPONENT
    if isinstance(run, TransformerRegressionConfig):
        steps = figure3_law(run.T, run.d, run.B)
    elif isinstance(run, TransformerRecallConfig):
        law = PAPER["figure4"]
        steps = law["C"] * run.n_tokens ** law["N_tokens"] * run.n_pairs ** law["N_pairs"]
    else:
        raise TypeError(f"no law for runs of kind {run.kind!r}")
    return steps * (PAPER_LR[run.kind] / run.lr) ** LR_EXPONENT


def expected_steps(run: Any, ratio: float = 1.0) -> float:
    """Steps ``run`` will train: its law's plateau × ``ratio`` (what stored runs like it measured against the law,
    `StoredRatios`) × its stop factor, at most ``max_steps``."""
    factor = run.stop_factor if run.stop_factor is not None else float("inf")
    return float(min(run.max_steps, law_steps(run) * ratio * factor))


def _point(run: Any) -> tuple:
    """What a run's plateau depends on, seeds aside: its shape, its learning rate, its data's repetition and its
    reading of the paper's unsaid choices (`_reading`)."""
    return shape_of(run) + (run.lr, run.B, getattr(run, "p", 0.0), getattr(run, "threshold", None),
                            getattr(run, "optimizer", "adam")) + _reading(run)


def _reading(run: Any) -> tuple:
    """The fields a run sets away from the book's reading (those left out of its key at their default), recording
    flags and seeds aside: a reading can move the plateau 45-fold (GPT-2's initialisation at T = 64), so stored runs
    of the book's reading say nothing of it."""
    return tuple((f.name, getattr(run, f.name)) for f in dataclasses.fields(run)
                 if f.metadata.get("omit_at_default") and not f.name.startswith("record_") and f.name != "data_seed"
                 and getattr(run, f.name) != f.default)


def _without_width(shape: tuple) -> tuple:
    """A `shape_of` (or `_point`) tuple with its width left out (regression's d, recall's N_tokens): the same length
    (T, or N_pairs) and set-up. At T = 256 the stored ratio is 1.5 at d = 16 and 32 and about 1 over the kind (the
    cheap end's 0.6-1.0 and the B panel pull it down): a new d at T = 256 was priced at 0.65 of it."""
    width = 2 if shape[0] == "transformer_regression" else 1
    return shape[:width] + shape[width + 1:]


def _family(run: Any) -> tuple:
    """Runs whose ratios to their law are pooled where a point has none: a kind, its optimiser (Adam's ratio to
    Adam's law says nothing of SGD's to SGD's) and its reading (`_reading`)."""
    return (run.kind, getattr(run, "optimizer", "adam")) + _reading(run)


def _crossing(summary: dict) -> float:
    """A stored run's crossing: regression's plateau_length, recall's emergence_step (nan if never)."""
    value = summary.get("plateau_length", summary.get("emergence_step"))
    return float(value) if value is not None else float("nan")


@dataclass(frozen=True)
class StoredRatios:
    """Measured crossing / the law's, from stored runs: per point (a run's seeds aside, `_point`) where that point
    has stored seeds, else over the stored runs that differ from it in width alone (`_without_width`), else over
    the stored runs of its kind and reading at other points (`_family`), else over every stored run of its kind and
    optimiser, else 1 (the law alone)."""

    by_point: dict[tuple, float]
    by_kind: dict[tuple, float]
    by_length: dict[tuple, float] = dataclasses.field(default_factory=dict)
    by_family: dict[tuple, float] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_stored(cls, stored: Iterable[tuple[Any, dict]]) -> "StoredRatios":
        logs: dict[tuple, list[float]] = {}
        kinds: dict[tuple, list[float]] = {}
        lengths: dict[tuple, list[float]] = {}
        families: dict[tuple, list[float]] = {}
        for run, summary in stored:
            crossing = _crossing(summary)
            if crossing > 0 and math.isfinite(crossing):
                r = math.log(crossing / law_steps(run))
                logs.setdefault(_point(run), []).append(r)
                lengths.setdefault(_without_width(_point(run)), []).append(r)
                families.setdefault(_family(run), []).append(r)
                kinds.setdefault(_family(run)[:2], []).append(r)
        mean = lambda v: math.exp(sum(v) / len(v))  # noqa: E731
        return cls({k: mean(v) for k, v in logs.items()}, {k: mean(v) for k, v in kinds.items()},
                   {k: mean(v) for k, v in lengths.items()}, {k: mean(v) for k, v in families.items()})

    def __call__(self, run: Any) -> float:
        for table, key in ((self.by_point, _point(run)), (self.by_length, _without_width(_point(run))),
                           (self.by_family, _family(run)), (self.by_kind, _family(run)[:2])):
            if key in table:
                return table[key]
        return 1.0


def stored_step_seconds(stored: Iterable[tuple], here: dict[str, float] | None = None) -> dict[tuple, tuple[float, int]]:
    """Seconds a step that stored runs measured, per shape, on this host: the median over the runs of that shape of
    their seconds a step (evaluations included, as a run pays them), and how many runs. Each item is (run, summary)
    or (run, summary, meta). With a meta that records the run's own CPU seconds (`executors.run_chunk`), those are
    read, over the steps they covered (a resumed run's after its checkpoint), not its wall seconds, which count its
    neighbours' load; with ``here`` (this host's `host.matmul_rates`), each is scaled by the rate of the host that
    stored it over this host's, in the run's precision (a run without rates counts as from the host it names:
    `host.rates_of`): a shape stored on a host twice as fast is priced twice as long here."""
    from .host import rates_of

    per: dict[tuple, list[float]] = {}
    for item in stored:
        run, summary, meta = (tuple(item) + ({},))[:3]
        seconds, steps = summary.get("seconds"), summary.get("steps_run")
        cpu, start = meta.get("cpu_seconds"), meta.get("cpu_from_step", 0)
        if isinstance(cpu, (int, float)) and cpu > 0 and isinstance(steps, int) and isinstance(start, int) and steps > start:
            seconds, steps = cpu, steps - start
        if isinstance(steps, int) and steps > 0 and isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0:
            scale = 1.0
            if here is not None:
                precision = getattr(run, "precision", "float32")
                scale = rates_of(meta, here)[0][precision] / here[precision]
            per.setdefault(shape_of(run), []).append(seconds / steps * scale)
    return {shape: (float(pd.Series(v).median()), len(v)) for shape, v in per.items()}


@dataclass(frozen=True)
class Estimate:
    """CPU time of a set of runs, per shape and in all: expected (law) and at most (``max_steps``)."""

    table: pd.DataFrame  # one row per run: shape, s/step, steps done, expected steps left, expected and bound seconds

    @property
    def expected_hours(self) -> float:
        return float(self.table["expected_s"].sum() / 3600)

    @property
    def bound_hours(self) -> float:
        return float(self.table["bound_s"].sum() / 3600)

    def describe(self) -> str:
        kinds = ", ".join(f"{n} {kind} runs" for kind, n in self.table["kind"].value_counts().sort_index().items())
        read = self.table.loc[self.table["s_per_step_from"] != "timed", "shape"].nunique()
        shapes = self.table["shape"].nunique()
        how = ("each shape timed just now" if not read else "each read from stored runs" if read == shapes
               else f"{read} read from stored runs, the rest timed just now")
        resumed = int((self.table["steps_done"] > 0).sum())
        left = (f", for what is left of {resumed} run{'s' if resumed != 1 else ''} resumed from checkpoints "
                f"({self.table['steps_done'].sum():,} steps done)" if resumed else "")
        return (f"{kinds} of {self.table['shape'].nunique()} shapes ({how}): about "
                f"{self.expected_hours:,.1f} CPU-hours from the paper's law times what stored runs like them measured "
                f"against it{left}, at most "
                f"{self.bound_hours:,.1f} if every run trains to its max_steps")

    def price(self) -> str:
        """The price in a reader's words, for a chapter (`Figure.price` reads it from the stored runs)."""
        hours = self.expected_hours
        return f"about {hours:.{0 if hours >= 10 else 1}f} CPU-hours at the speed the stored runs ran, scaled to this host"

    def table_text(self) -> str:
        """One line per shape, in the runs' order: runs, seconds a step, expected steps a run, the steps its runs'
        checkpoints hold in all, and the CPU-hours left."""
        t = self.table
        lines = ["shape (kind, T or V, d or pairs, ...)  runs  s/step  expected steps  done (checkpoints, all runs)  "
                 "CPU-h left  s/step from"]
        for shape, g in t.groupby("shape", sort=False):
            lines.append(f"{str(shape[:3]):<38} {len(g):>4}  {g['s_per_step'].iloc[0]:6.3f}  "
                         f"{g['expected_steps'].mean():>14,.0f}  {g['steps_done'].sum():>28,.0f}  "
                         f"{g['expected_s'].sum() / 3600:10.2f}  {g['s_per_step_from'].iloc[0]}")
        return "\n".join(lines)

    def cheapest_first(self, runs: Sequence[Any]) -> list[Any]:
        """``runs`` (those estimated) ordered by their expected CPU time."""
        cost = dict(zip(self.table["run"], self.table["expected_s"]))
        return sorted(runs, key=lambda r: cost[run_key(r)])


def estimate(runs: Iterable[Any], timer: Callable[[Any], float] | None = None,
             progress: Callable[[str], None] | None = None, ratios: Callable[[Any], float] | None = None,
             stored_seconds: dict[tuple, tuple[float, int]] | None = None,
             done: Callable[[Any], int] | None = None) -> Estimate:
    """Time every distinct shape of ``runs`` that ``stored_seconds`` (`stored_step_seconds`) does not already price,
    and multiply by each run's expected steps (the law's, moved by ``ratios``: what stored runs like it measured,
    `StoredRatios`) less the steps ``done`` already (a checkpoint it resumes from): a run stopped midway costs what
    it has left, not a fresh run's time (a Figure 3 seed at T = 256 spans several sessions)."""
    runs = list(runs)
    stored_seconds = stored_seconds or {}
    # A shape with no stored runs of its own takes those of its other widths (d, or N_tokens: a few percent of a
    # step's work), over whole runs as they ran here: at T = 256 a timing read 0.76 s a step where stored runs at
    # d = 16 and 32 took 1.2-2.1 s (evaluations, and two runs sharing the cores).
    widths: dict[tuple, list[tuple[float, int]]] = {}
    for shape, value in stored_seconds.items():
        widths.setdefault(_without_width(shape), []).append(value)
    other_width = {}
    for shape in dict.fromkeys(shape_of(r) for r in runs):
        if shape not in stored_seconds and _without_width(shape) in widths:
            values = widths[_without_width(shape)]
            other_width[shape] = (float(pd.Series([v for v, _ in values]).median()), sum(n for _, n in values))
    to_time = [r for r in runs if shape_of(r) not in stored_seconds and shape_of(r) not in other_width]
    per_step = step_seconds(to_time, timer, progress) if to_time else {}
    source = {shape: "timed" for shape in per_step}
    for shape in dict.fromkeys(shape_of(r) for r in runs):
        if shape in stored_seconds or shape in other_width:
            per_step[shape], n = stored_seconds.get(shape) or other_width[shape]
            source[shape] = f"{n} stored run{'s' if n != 1 else ''}" + (" at other widths" if shape in other_width else "")
            if progress is not None:
                progress(f"shape {shape[:3]}: {per_step[shape]:.3f} s a step, the median of {source[shape]} "
                         "(evaluations included)")
    rows = []
    for r in runs:
        shape = shape_of(r)
        steps = expected_steps(r, ratios(r) if ratios is not None else 1.0)
        already = min(max(int(done(r)) if done is not None else 0, 0), r.max_steps)
        rows.append({"run": run_key(r), "kind": r.kind, "shape": shape, "s_per_step": per_step[shape],
                     "s_per_step_from": source[shape], "expected_steps": steps, "steps_done": already,
                     "expected_s": steps_left(r, steps, already) * per_step[shape],
                     "bound_s": (r.max_steps - already) * per_step[shape]})
    return Estimate(pd.DataFrame(rows, columns=["run", "kind", "shape", "s_per_step", "s_per_step_from",
                                                "expected_steps", "steps_done", "expected_s", "bound_s"]))


class UnpricedShape(LookupError):
    """A shape with no stored run, priced only by timing it (`from_store` with ``time_new_shapes=False``)."""


def refuse_timing(run: Any) -> float:
    """The timer of a price that reads stored runs only (a page computes nothing): a shape without one is unpriced."""
    raise UnpricedShape(f"no stored run of shape {shape_of(run)[:3]}")


def from_store(missing: Sequence[Any], stored: Sequence[Any], cache: Any, progress: Callable[[str], None] | None = None,
               time_new_shapes: bool = True) -> Estimate | None:
    """For the Transformer runs in ``missing``: their CPU time here, from the seconds a step the ``stored`` runs of a
    shape took (`stored_step_seconds`) or else one timing of the shape, and the law moved by what the ``stored``
    runs measured against it (`StoredRatios`); a run resumed from a checkpoint costs what it has left. None when no
    Transformer run is missing (the toy model's runs take seconds), or, without ``time_new_shapes`` (a chapter,
    which computes nothing), when a shape has no stored run to price it."""
    transformer = [r for r in missing if r.kind in ("transformer_regression", "transformer_recall")]
    if not transformer:
        return None
    ratios, seconds = stored_speeds(stored, cache, progress)
    try:
        return estimate(transformer, timer=None if time_new_shapes else refuse_timing, progress=progress, ratios=ratios,
                        stored_seconds=seconds, done=steps_done_in(checkpoints.resume_folder(cache.root)))
    except UnpricedShape:
        return None


def stored_speeds(stored: Sequence[Any], cache: Any, progress: Callable[[str], None] | None = None
                  ) -> tuple[StoredRatios, dict[tuple, tuple[float, int]]]:
    """What the ``stored`` runs measured: their crossings against the law (`StoredRatios`, every stored run) and
    their seconds a step per shape on this host (`stored_step_seconds`, the runs stored from a CPU only: a GPU's
    are 30-100x shorter and would price hours of CPU work at minutes)."""
    from .host import describe, matmul_rates

    summaries = [(r, res.summary) for r in stored if (res := cache.load(r)) is not None]
    metas = [(r, s, json.loads(cache.path(r).read_text()).get("meta", {})) for r, s in summaries]
    on_cpu = [(r, s, m) for r, s, m in metas if str(m.get("device", "cpu")) == "cpu"]
    here = matmul_rates()
    if progress is not None:
        recorded = sum("matmul_gflops" in m for _, _, m in on_cpu)
        progress(f"priced at this host's matmul rates, {describe(here)}, against the storing hosts' ({recorded} of "
                 f"{len(on_cpu)} stored CPU runs recorded theirs; the others count as from the host they name: this one, "
                 f"or else a host at {describe(DEFAULT_RATES)})")
    return StoredRatios.from_stored(summaries), stored_step_seconds(on_cpu, here)
