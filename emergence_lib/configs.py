"""Run configs: one frozen dataclass per kind of run, validated on creation.

A run config holds *everything* that determines a run's result, so that its
hash (see `cache.run_key`) is a safe cache key. Figure-level configs, which
expand a scale into a list of run configs, live in `experiments`. The field checks they share are in `checks`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .cache import OMIT_AT_DEFAULT
from .schedules import DiversitySchedule, ScheduleError, check_schedule
from .checks import (ConfigError, check_burstiness, check_choice, check_heads, check_int, check_positive,
                     check_probability, check_solvable, check_threshold)
from .checks import SCALES, Scale, check_scale  # noqa: F401  (re-exported: configs is where callers look for them)
from .toy import escape_time
from .readings import Readings


def schedule_field() -> str:
    """The ``schedule`` field of a run config (`schedules`): "constant" is every run stored before schedules existed."""
    return field(default="constant", metadata=OMIT_AT_DEFAULT)


def check_run_schedule(spec: str, repeated: bool, signals: tuple[str, ...]) -> DiversitySchedule:
    """Validate a run's schedule: readable, watching a signal the run records, and with repetition to switch off."""
    try:
        schedule = check_schedule(spec, signals)
    except ScheduleError as exc:
        raise ConfigError(f"schedule: {exc}") from None
    if schedule.kind != "constant" and not repeated:
        raise ConfigError(f"schedule {spec!r} needs repetition to switch off (B > 1 or p > 0); this run has none")
    return schedule


# What a toy flow records, and so what a triggered schedule can watch.
TOY_SIGNALS = ("alpha", "train_loss", "loss")
# ``trigger_attn_*``: the same attention read on a held-out set of the trigger's own (not the set that scores the run).
REGRESSION_SIGNALS = ("loss_train_distribution", "loss_no_repetition", "attn_relevant", "trigger_attn_relevant")
RECALL_SIGNALS = ("accuracy_train_distribution", "loss_train_distribution", "accuracy_test", "loss_test",
                  "attn_query_to_value", "attn_value_to_key", "trigger_attn_query_to_value", "trigger_attn_value_to_key")


def normalise(cfg: object, name: str, value: object) -> None:
    """Store a validated, normalised field value on a frozen dataclass (e.g. numpy int → int, 0 → 0.0), so that
    equal configs have equal cache keys. The one place a frozen config is written after creation."""
    object.__setattr__(cfg, name, value)


def fields_of(part: type, config: object) -> dict[str, Any]:
    """The fields of the config part ``part`` (a dataclass ``config`` inherits from), by name: how a run config
    hands its task or architecture to the code that builds them."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(part)}


# ---------------------------------------------------------------- parts --
# A run config is assembled from parts: a task, for Transformers an architecture and an optimiser, plus the
# fields of its own kind. Parts after the task are keyword-only, so that a config still reads Config(T, d, ...).
# A cache key hashes the fields by name (`cache.config_dict`), so how they are grouped does not change it.


@dataclass(frozen=True)
class ToyTask:
    """Single-location regression as the toy model sees it: T tokens of dimension d, B copies of the relevant
    token, cross-sample repetition p."""

    T: int
    d: int
    B: int = 1
    p: float = 0.0

    def check_task(self) -> None:
        normalise(self, "T", check_int("T", self.T, 2))
        normalise(self, "d", check_int("d", self.d, 1))
        normalise(self, "B", check_int("B", self.B, 1))
        check_burstiness(self.B, self.T)
        check_probability(self.p)
        normalise(self, "p", float(self.p))


@dataclass(frozen=True)
class RegressionTask(ToyTask):
    """Single-location regression for Transformers (`tasks.SingleLocationRegression`): where the relevant
    token is and what marks it."""

    random_position: bool = True
    relevance_feature: bool = True
    normalise_target: bool = True

    def check_task(self) -> None:
        ToyTask.check_task(self)
        check_solvable(self.random_position, self.relevance_feature)


@dataclass(frozen=True)
class RecallTask:
    """In-context associative recall (`tasks.AssociativeRecallTask`)."""

    n_tokens: int
    n_pairs: int
    B: int = 1
    p: float = 0.0
    n_repeated: int = 2
    # Unsaid (spec §3.3, §10.10): a training draw with no occurrence of the query is redrawn ("redraw", the book; at
    # B = 1 the query sits in exactly one slot) or kept ("kept": Bernoulli(B/N) slots at every B); the test set places
    # the query exactly once ("once", the book) or by the same Bernoulli(1/N) rule, absences kept ("bernoulli").
    zero_occurrences: Literal["redraw", "kept"] = field(default="redraw", metadata=OMIT_AT_DEFAULT)
    test_set: Literal["once", "bernoulli"] = field(default="once", metadata=OMIT_AT_DEFAULT)

    def check_task(self) -> None:
        check_recall_task(self)


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """The Transformer's shape (`transformer.TransformerConfig` adds what the task decides: inputs, outputs, length)."""

    n_layers: int = 2
    n_heads: int = 4
    d_model: int = 256
    d_qk: int = 64
    mlp_factor: int = 4

    def check_architecture(self) -> None:
        for name in ("n_layers", "n_heads", "d_model", "d_qk"):
            normalise(self, name, check_int(name, getattr(self, name), 1))
        check_int("mlp_factor", self.mlp_factor, 0)
        check_heads(self.d_model, self.n_heads)


@dataclass(frozen=True, kw_only=True)
class Optimiser:
    """How a Transformer run trains and is evaluated: fresh batches every step, fixed held-out sets evaluated
    ``evals_per_decade`` times a decade, stopped at ``stop_factor`` × its crossing (None: every step)."""

    lr: float = 1e-4
    batch_size: int = 32
    max_steps: int = 50_000
    stop_factor: float | None = 1.5
    eval_size: int = 256
    evals_per_decade: int = 30
    seed: int = 0

    def check_optimiser(self) -> None:
        normalise(self, "lr", check_positive("lr (learning rate)", self.lr))
        for name in ("batch_size", "max_steps", "eval_size", "evals_per_decade"):
            normalise(self, name, check_int(name, getattr(self, name), 1))
        check_int("seed", self.seed, 0)
        if self.stop_factor is not None and not self.stop_factor >= 1:
            raise ConfigError(f"stop_factor must be ≥ 1 or None (run every step), got {self.stop_factor}")


# ---------------------------------------------------------------- toy runs --


@dataclass(frozen=True)
class ToyFlowConfig(ToyTask):
    """One run of the reduced gradient flow on (w, Δa) (paper Eqs. 12–14).

    With ``p > 0`` it is the 3-D cross-sample flow (App. A.4, Eqs. 17–21) and the
    recorded ``loss`` is the test loss without repetition.
    Time is physical time (steps × lr). ``t_max=None`` means "long enough":
    20× the linearised escape time T_ε(0.8), which itself overestimates the
    plateau about 3×. With ``stop_below`` set, the run stops at the first
    recording point whose loss is below it (saves time in plateau sweeps).
    """

    kind: ClassVar[str] = "toy_reduced_flow"
    # 2: recorded on a lattice whose points do not depend on the batch's longest horizon, so a run is
    # bit-identical alone or in any batch (version 1 used geomspace up to the batch's largest t_max).
    version: ClassVar[int] = 2

    x_tilde_norm: float = 1.0  # norm of the repeated token x̃ (the theory: 1)
    logits: Literal["gap", "per_position"] = "gap"
    threshold: float = 0.1
    t_max: float | None = None
    stop_below: float | None = None
    points_per_decade: int = 200
    schedule: str = schedule_field()  # p(t) = p·r(t) (`schedules`); only with p > 0

    def __post_init__(self) -> None:
        self.check_task()
        check_run_schedule(self.schedule, self.p > 0, TOY_SIGNALS)
        normalise(self, "x_tilde_norm", check_positive("x_tilde_norm", self.x_tilde_norm))
        if self.p > 0 and self.B != 1:
            raise ConfigError(
                f"the reduced flow handles cross-sample repetition (p = {self.p}) only with B = 1 "
                f"(the paper's App. A.4), got B = {self.B}"
            )
        check_choice("logits", self.logits, ("gap", "per_position"))
        check_threshold(self.threshold)
        if self.stop_below is not None:
            check_threshold(self.stop_below, name="stop_below")
        if self.t_max is None:
            auto = 20.0 * float(escape_time(self.T, self.d, self.B))  # p > 0 only shortens the plateau
            normalise(self, "t_max", float(f"{auto:.6g}"))
        elif not self.t_max > 0:
            raise ConfigError(f"t_max must be > 0 (physical time), got {self.t_max}")
        assert self.t_max is not None  # set just above when it was None
        normalise(self, "t_max", float(self.t_max))
        check_int("points_per_decade", self.points_per_decade, 10)


@dataclass(frozen=True)
class _TrainedToy(ToyTask):
    """The fields every trained (not integrated) toy run shares."""

    lr: float = 1.0
    t_max: float = 1e4
    target: Literal["unit_columns", "gaussian"] = "unit_columns"
    init: Literal["zero", "gaussian"] = "zero"
    seed: int = 0
    threshold: float = 0.1

    def check_training(self) -> None:
        self.check_task()
        normalise(self, "lr", check_positive("lr (learning rate)", self.lr))
        normalise(self, "t_max", check_positive("t_max", self.t_max))
        check_choice("target", self.target, ("unit_columns", "gaussian"))
        check_choice("init", self.init, ("zero", "gaussian"))
        check_threshold(self.threshold)
        check_int("seed", self.seed, 0)


@dataclass(frozen=True, kw_only=True)
class ToyFullGDConfig(_TrainedToy):
    """Full-batch gradient descent on the exact expected loss of Eq. 2 (all of a and W).

    Time is steps × lr. ``x_tilde_norm`` scales the repeated token x̃ = c·e1;
    ``target``/``init`` choose W* (unit-norm columns or N(0, 1/d) entries) and
    W at start (zero or N(0, 1/d)); ``seed`` draws them. The recorded loss is
    the test loss (no cross-sample repetition).
    """

    kind: ClassVar[str] = "toy_full_gd"

    x_tilde_norm: float = 1.0
    stop_below: float | None = 0.05
    points_per_decade: int = 200

    def __post_init__(self) -> None:
        self.check_training()
        normalise(self, "x_tilde_norm", check_positive("x_tilde_norm", self.x_tilde_norm))
        if self.stop_below is not None:
            check_threshold(self.stop_below, name="stop_below")
        check_int("points_per_decade", self.points_per_decade, 10)


@dataclass(frozen=True, kw_only=True)
class ToySGDConfig(_TrainedToy):
    """SGD on sampled sequences (App. A.3.4): batch ``batch_size``, learning rate ``lr``.

    Seeds that share every other field are trained together in one tensor.
    Time is steps × lr; the recorded loss is the exact expected test loss.
    """

    kind: ClassVar[str] = "toy_sgd"

    target: Literal["unit_columns", "gaussian"] = "gaussian"
    init: Literal["zero", "gaussian"] = "gaussian"
    batch_size: int = 32
    record_every: int = 10

    def __post_init__(self) -> None:
        self.check_training()
        normalise(self, "batch_size", check_int("batch_size", self.batch_size, 1))
        check_int("record_every", self.record_every, 1)


# ---------------------------------------------------------------- Transformer runs --

OPTIMIZERS = ("adam", "sgd")


@dataclass(frozen=True, kw_only=True)
class Probes:
    """What chapter B3 adds to a Transformer run, all off by default (and then left out of the cache key, so every
    run stored before they existed keeps its key): the attention entropy per head, and an attention-bias
    intervention during training.

    * ``record_entropy``: the entropy (nats) of the readout's attention row per layer and head on the held-out data
      (recording "attn_entropy"; recall also records the row of the relevant value token, "attn_entropy_value");
    * ``data_seed``: when set, the task (target map, fixed position), its batches and held-out sets are drawn from it,
      and ``seed`` draws only the initialisation (None: ``seed`` draws all three), to split the randomness of a run;
    * ``attention_bias`` s ≥ 0: s × (the ground-truth mask: 1 at the relevant position(s), else 0) is added to the
      readout row's attention logits during training, in the first layer or in every layer (``bias_layers``).
      Evaluations record the loss both without the bias (what the weights learned: the run's measure) and with it
      (the model as trained: "…_with_bias").
    """

    record_entropy: bool = field(default=False, metadata=OMIT_AT_DEFAULT)
    attention_bias: float = field(default=0.0, metadata=OMIT_AT_DEFAULT)
    bias_layers: Literal["first", "all"] = field(default="first", metadata=OMIT_AT_DEFAULT)
    data_seed: int | None = field(default=None, metadata=OMIT_AT_DEFAULT)

    def check_probes(self) -> None:
        if self.data_seed is not None:
            normalise(self, "data_seed", check_int("data_seed", self.data_seed, 0))
        if not isinstance(self.record_entropy, bool):
            raise ConfigError(f"record_entropy must be True or False, got {self.record_entropy!r}")
        s = self.attention_bias
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not (math.isfinite(s) and s >= 0):
            raise ConfigError(f"attention_bias must be a finite number ≥ 0 (a bias toward the relevant position), got {s!r}")
        normalise(self, "attention_bias", float(s))
        check_choice("bias_layers", self.bias_layers, ("first", "all"))


@dataclass(frozen=True, kw_only=True)
class TransformerRegressionConfig(RegressionTask, Architecture, Optimiser, Probes, Readings):
    """One seed of a Transformer trained on single-location regression (paper §2.4, App. B).

    Defaults are Table 1 (width 256, 2 layers, 4 heads, Adam 1e-4, batch 32).
    The plateau is the first evaluation step at which the held-out loss on
    ``plateau_on`` data reaches ``threshold`` (interpolated in log-loss):
    "train_distribution" data carries the run's B and p, "no_repetition" data
    has B = 1 and p = 0. A run stops at ``stop_factor`` × its plateau (or at
    ``max_steps``); a non-finite loss stops it as diverged.
    """

    kind: ClassVar[str] = "transformer_regression"
    # What a run of this kind computes (see `cache.run_key`). 2: the relevant token is drawn on its own
    # (version 1 left an unflagged copy of it at position 0), the readout starts at zero, and the last
    # layer computes the last position only.
    version: ClassVar[int] = 2

    layer_norm: bool = False
    causal: bool = False
    readout_init: Literal["zero", "default"] = "zero"  # zero: the untrained model predicts 0, loss ½ (the paper's)
    optimizer: str = "adam"
    threshold: float = 0.1
    plateau_on: Literal["train_distribution", "no_repetition"] = "train_distribution"
    schedule: str = schedule_field()  # B(t), p(t) from the heavy B, p (`schedules`)
    # Record the attention from the readout position to the relevant position(s) per layer and head on the
    # held-out data without repetition (recording "attn_relevant", `attention`); off for every run stored before it existed.
    record_attention: bool = field(default=False, metadata=OMIT_AT_DEFAULT)
    # "mlp_mixer": `mixer.EnsembleMixer` in place of the Transformer (same width, MLP and optimiser; chapter B3).
    model: Literal["transformer", "mlp_mixer"] = field(default="transformer", metadata=OMIT_AT_DEFAULT)

    def __post_init__(self) -> None:
        self.check_task()
        self.check_architecture()
        self.check_optimiser()
        self.check_probes()
        self.check_readings()  # the unsaid choices (`readings`): the book's reading by default
        if self.model == "mlp_mixer" and {"readout", "positions", "weight_init"} & set(self.departures()):
            raise ConfigError("model='mlp_mixer' takes the book's readout, positions and weight_init only")
        if self.readout != "last" and (self.record_attention or self.record_entropy or self.attention_bias):
            raise ConfigError("record_attention, record_entropy and attention_bias read the last position's attention: "
                              "they need readout='last'")
        if not isinstance(self.record_attention, bool):
            raise ConfigError(f"record_attention must be True or False, got {self.record_attention!r}")
        check_choice("model", self.model, ("transformer", "mlp_mixer"))
        if self.model == "mlp_mixer" and (self.record_attention or self.record_entropy or self.attention_bias or self.causal):
            raise ConfigError("model='mlp_mixer' has no attention: record_attention, record_entropy, attention_bias "
                              "and causal must stay at their defaults")
        check_run_schedule(self.schedule, self.B > 1 or self.p > 0, REGRESSION_SIGNALS)
        if "attn_relevant" in self.schedule and not self.record_attention:
            raise ConfigError(f"schedule {self.schedule!r} watches the attention: it needs record_attention=True")
        check_choice("readout_init", self.readout_init, ("zero", "default"))
        if self.optimizer not in OPTIMIZERS:
            raise ConfigError(f"optimizer must be one of {OPTIMIZERS}, got {self.optimizer!r}")
        check_threshold(self.threshold)
        check_choice("plateau_on", self.plateau_on, ("train_distribution", "no_repetition"))


def check_recall_task(cfg: RecallTask) -> None:
    """Validate the associative-recall task fields: n_tokens, n_pairs, B, p, n_repeated."""
    n_tokens = check_int("n_tokens (vocabulary size)", cfg.n_tokens, 2)
    n_pairs = check_int("n_pairs", cfg.n_pairs, 1)
    if n_pairs >= n_tokens:
        raise ConfigError(
            f"n_pairs must be < n_tokens (got n_pairs={n_pairs}, n_tokens={n_tokens}): the keys other than "
            "the query are drawn without replacement from the n_tokens − 1 other tokens"
        )
    B = check_int("B", cfg.B, 1)
    if B > n_pairs:
        raise ConfigError(
            f"B must satisfy 1 ≤ B ≤ n_pairs (got B={B}, n_pairs={n_pairs}): each of the n_pairs slots "
            "holds the query key with probability B/n_pairs"
        )
    p = cfg.p
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p <= 1:
        raise ConfigError(f"p must lie in [0, 1], got {p!r}: it is the probability that the query is a repeated token")
    n_rep = check_int("n_repeated", cfg.n_repeated, 1)
    if n_rep >= n_tokens:
        raise ConfigError(f"n_repeated must be < n_tokens (got {n_rep}, n_tokens={n_tokens})")
    for name, value in (("n_tokens", n_tokens), ("n_pairs", n_pairs), ("B", B), ("n_repeated", n_rep)):
        normalise(cfg, name, value)
    normalise(cfg, "p", float(p))
    check_choice("zero_occurrences", cfg.zero_occurrences, ("redraw", "kept"))
    check_choice("test_set", cfg.test_set, ("once", "bernoulli"))


@dataclass(frozen=True, kw_only=True)
class TransformerRecallConfig(RecallTask, Architecture, Optimiser, Probes):
    """One seed of a Transformer trained on in-context associative recall (paper §3.2, App. C).

    Defaults are Table 1's recall model with LayerNorm (pre-LN) as the text and
    the rebuttal say (Table 1 says none; ``layer_norm`` also takes "post" and
    "none", and ``embedding`` "linear" for nn.Linear's initialisation): 4 layers, 4 heads, width 256, causal
    attention, Adam 1e-4, batch 32. Emergence is the first evaluation step at
    which accuracy on ``emergence_on`` data reaches ``threshold`` (the paper:
    5% on test data, which has B = 1 and p = 0). A run stops at ``stop_factor``
    × its emergence step, or runs all ``max_steps`` when ``stop_factor`` is None.
    """

    kind: ClassVar[str] = "transformer_recall"

    n_layers: int = 4
    max_steps: int = 200_000
    eval_size: int = 512
    layer_norm: Literal["pre", "post", "none"] = "pre"  # the text's reading; "none" is Table 1's
    embedding: Literal["lookup", "linear"] = "lookup"  # lookup: N(0, 1) token vectors; linear: nn.Linear's init
    threshold: float = 0.05
    emergence_on: Literal["test", "train_distribution"] = "test"
    schedule: str = schedule_field()  # B(t), p(t) from the heavy B, p (`schedules`)

    def __post_init__(self) -> None:
        self.check_task()
        self.check_architecture()
        self.check_optimiser()
        self.check_probes()
        check_run_schedule(self.schedule, self.B > 1 or self.p > 0, RECALL_SIGNALS)
        check_choice("layer_norm", self.layer_norm, ("pre", "post", "none"))
        check_choice("embedding", self.embedding, ("lookup", "linear"))
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, numbers.Real) or not 0 < self.threshold < 1:
            raise ConfigError(f"threshold (an accuracy) must lie in (0, 1), got {self.threshold!r}")
        check_choice("emergence_on", self.emergence_on, ("test", "train_distribution"))
        if self.test_set != "once" and (self.record_entropy or "trigger_attn_" in self.schedule):
            raise ConfigError("test_set='bernoulli' leaves the query absent or repeated: record_entropy and trigger_attn_* need it once")


# Every kind of run, by its ``kind`` (the folder its results are stored in).
RUN_CONFIGS: dict[str, type] = {
    c.kind: c for c in (ToyFlowConfig, ToyFullGDConfig, ToySGDConfig, TransformerRegressionConfig, TransformerRecallConfig)
}


def config_from_stored(kind: str, fields: dict) -> object:
    """The run config of ``kind`` a stored file's ``config`` describes (JSON lists back to tuples), validated."""
    return RUN_CONFIGS[kind](**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
