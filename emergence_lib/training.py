"""Training of the Transformer experiments: one loop, two tasks.

`train_ensemble` trains one Transformer per seed, all the seeds it is given at once
(`transformer.EnsembleTransformer`; sweeps give it one seed at a time on the CPU, where batching is not
faster), with fresh batches every step and fixed held-out sets evaluated on a log-spaced schedule. What
differs between the tasks is plugged in as a `TaskTraining`: how to draw a training batch and its loss,
what an evaluation records, when a run has crossed its threshold, and its summary.

* `RegressionTraining`: single-location regression (`train_regression`); MSE, the plateau is the loss
  reaching a threshold; optionally the attention to the relevant position(s).
* `RecallTraining`: associative recall (`train_recall`); cross-entropy, emergence is the accuracy reaching a
  threshold; always the induction-head attention weights.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from . import attention, checkpoints, readings
from .results import RunResult
from .configs import Architecture, RecallTask, RegressionTask, TransformerRecallConfig, TransformerRegressionConfig, fields_of
from .metrics import NOT_REACHED, first_crossing, plateau_length
from .schedules import ScheduleState
from .tasks import AssociativeRecallTask, RecallBatch, SingleLocationRegression, sample_ensemble, sample_recall_ensemble
from .mixer import EnsembleMixer
from .transformer import EnsembleTransformer, TransformerConfig


def evaluation_steps(max_steps: int, per_decade: int) -> np.ndarray:
    """Step 0 and a log-spaced schedule up to ``max_steps`` (so a crossing time is precise at any scale)."""
    n = int(np.ceil(np.log10(max_steps) * per_decade)) + 1
    return np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_steps, n)).astype(int)]))


def _mse(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """½‖y − y*‖² averaged over the batch, per ensemble member: (E,)."""
    return 0.5 * ((pred.float() - y) ** 2).sum(-1).mean(-1)  # in float32 under bfloat16 autocast too


def data_seeds(c: Any, seeds: list[int]) -> list[int]:
    """The seeds of what a run samples (its task, batches and held-out sets), per member: its own seed, or the
    config's ``data_seed`` where one is set (then ``seed`` draws the initialisation only)."""
    return list(seeds) if c.data_seed is None else [c.data_seed] * len(seeds)


def seed_group(configs: Sequence, who: str) -> tuple[list, Any, list[int]]:
    """(configs, their common config with seed 0, their seeds): configs trained together must differ only in their seed."""
    configs = list(configs)
    base = dataclasses.replace(configs[0], seed=0)
    if any(dataclasses.replace(c, seed=0) != base for c in configs):
        raise ValueError(f"{who}: configs must differ only in their seed")
    return configs, base, [c.seed for c in configs]


def recall_bias_mask(batch: RecallBatch) -> torch.Tensor:
    """(E, n, T) float: 1 at the value token(s) that follow the query's key (positions 2s + 1), the positions the
    readout must attend to (the ground truth of an attention-bias intervention)."""
    slots = batch.query_slots  # (E, n, N)
    mask = torch.zeros(*slots.shape[:2], 2 * slots.shape[2] + 1, device=slots.device)
    mask[..., 1:-1:2] = slots.float()
    return mask


def _recall_forward(model: EnsembleTransformer, batch: RecallBatch, n_tokens: int, attention: bool = False,
                    bias: float = 0.0, bias_layers: str = "first"):
    x = torch.nn.functional.one_hot(batch.tokens, n_tokens).float()  # (E, n, T, V)
    # full=True: recall keeps the full computation it was cached with (the last-position shortcut gives the
    # same function but other float rounding; switching would mean a new recall version and a recompute).
    if bias:
        return model(x, return_attention=attention, full=True, score_bias=bias * recall_bias_mask(batch),
                     bias_layers=bias_layers)
    return model(x, return_attention=attention, full=True)


class TaskTraining:
    """What `train_ensemble` needs of a task. Records are arrays with a leading ensemble dimension E:
    (E,) for a scalar (a loss, an accuracy) or (E, layers, heads) for an attention recording."""

    config: Any
    model: torch.nn.Module
    device: str

    train_gens: list[torch.Generator]  # the random streams of the training batches, one per member

    def train_loss(self, overrides: list[dict] | None) -> torch.Tensor:
        """Loss of one fresh training batch, summed over members (so their gradients stay independent)."""
        raise NotImplementedError

    def rng_states(self) -> list[torch.Tensor]:
        """The state of every random stream training draws from (the held-out sets are fixed at construction)."""
        return [g.get_state() for g in self.train_gens]

    def set_rng_states(self, states: list[torch.Tensor]) -> None:
        for g, state in zip(self.train_gens, states, strict=True):
            g.set_state(state)

    def evaluate(self) -> dict[str, np.ndarray]:
        """Every record of one evaluation on the held-out sets, by name."""
        raise NotImplementedError

    def crossed(self, records: dict[str, np.ndarray]) -> np.ndarray:
        """(E,) bool: the members at or past their threshold at this evaluation."""
        raise NotImplementedError

    def finite(self, records: dict[str, np.ndarray]) -> np.ndarray:
        """(E,) bool: the members whose measured loss is finite (the others diverged)."""
        raise NotImplementedError

    def summary(self, curve: dict[str, np.ndarray], diverged: bool, ran: dict[str, Any]) -> dict[str, Any]:
        """One member's summary row, with ``ran`` (steps_run, seconds, device) placed among the run's own measures."""
        raise NotImplementedError


def train_ensemble(training: TaskTraining, configs: Sequence[Any], device: str, t0: float) -> list[RunResult]:
    """The training loop shared by every Transformer run: evaluate on the log-spaced schedule, apply the
    data-diversity schedule (`ScheduleState`), stop when every member has diverged or run ``stop_factor`` ×
    its crossing step, and return one `RunResult` per member."""
    c, model = training.config, training.model
    optimizer = readings.optimizer_for(c, model.parameters())  # Adam (ε, β₂ of the run's reading) or SGD
    E = len(configs)
    schedule = set(evaluation_steps(c.max_steps, c.evals_per_decade).tolist())
    diversity = ScheduleState(c.schedule, c.B, c.p, E)
    steps: list[int] = []
    records: dict[str, list[np.ndarray]] = {}
    crossed_at = np.full(E, np.nan)  # first evaluation step at or past the threshold
    diverged = np.zeros(E, dtype=bool)
    # Per member: how many evaluations it records and the step it stops at. A member that stops before the others
    # keeps training with them (its weights, data and optimiser state are its own, so the others are unaffected),
    # but its record ends where it would have ended alone: batched runs equal runs alone.
    n_evals = np.zeros(E, dtype=int)
    stopped_at = np.full(E, -1)
    step = start = 0
    # A long run saves its whole state every few minutes and, rerun after a stop, resumes from it (`checkpoints`).
    saver = checkpoints.Saver(checkpoints.Checkpoint.for_configs(configs))
    fresh = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": training.rng_states(), "members": E,
             "parameters": [w for group in optimizer.param_groups for w in group["params"]]}  # the layout to resume into
    saved = saver.checkpoint.load(fresh) if saver.checkpoint is not None else None
    kind = device.split(":")[0]  # a run is one device's from its first step to its last: its file says which
    if saved is not None and saved.get("device", "cpu") != kind:
        print(f"checkpoint saved on {saved.get('device')} is not resumed on {kind}: the run starts afresh here "
              "(a run is one device's from its first step to its last)", file=sys.stderr, flush=True)
        saved = None
    if saved is not None:
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        training.set_rng_states(saved["rng"])
        diversity.fired_at = saved["fired_at"]
        steps, records, crossed_at, diverged = saved["steps"], saved["records"], saved["crossed_at"], saved["diverged"]
        n_evals, stopped_at, start = saved["n_evals"], saved["stopped_at"], saved["step"]
        t0 = time.perf_counter() - saved["seconds"] * E  # the run's compute time counts what ran before the stop
    for step in range(start, c.max_steps + 1):
        if saver.due():
            saver.save({
                "model": model.state_dict(), "optimizer": optimizer.state_dict(), "rng": training.rng_states(),
                "fired_at": diversity.fired_at, "steps": steps, "records": records, "crossed_at": crossed_at,
                "diverged": diverged, "n_evals": n_evals, "stopped_at": stopped_at, "step": step,
                "seconds": (time.perf_counter() - t0) / E, "device": kind}, step, c.max_steps)
        if step in schedule:
            with torch.no_grad():
                now = training.evaluate()
            steps.append(step)
            for k, v in now.items():
                records.setdefault(k, []).append(v)
            if diversity.active:
                # A trigger watches a scalar: the largest head of an attention recording.
                diversity.observe(step, {k: v if v.ndim == 1 else v.max(axis=(1, 2)) for k, v in now.items()})
                records.setdefault("repetition_fraction", []).append(diversity.fractions(step))
            running = stopped_at < 0
            diverged |= running & ~training.finite(now)
            crossed_at[running & np.isnan(crossed_at) & training.crossed(now)] = step
            stop = c.stop_factor is not None and (~np.isnan(crossed_at) & (step >= c.stop_factor * crossed_at))
            n_evals[running] = len(steps)
            stopped_at[running & (diverged | stop)] = step
            if (stopped_at >= 0).all():
                break
        if step == c.max_steps:
            break
        loss = training.train_loss(diversity.overrides(step))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        readings.clip_per_member(c, model.parameters())  # nothing unless the run's reading clips
        optimizer.step()
    stopped_at[stopped_at < 0] = step  # ran to max_steps

    seconds = (time.perf_counter() - t0) / E
    results = []
    for e in range(E):
        n = n_evals[e]
        curve: dict[str, np.ndarray] = {"step": np.array(steps[:n], dtype=float)}
        recorded = {k: np.stack([r[e] for r in v[:n]]) for k, v in records.items()}
        curve |= {k: v for k, v in recorded.items() if v.ndim == 1}  # losses, accuracies, repetition_fraction
        for k, v in recorded.items():
            if v.ndim == 3:  # (n_evals, layers, heads)
                curve |= attention.to_columns(k, v)
        summary = training.summary(curve, bool(diverged[e]), {"steps_run": int(stopped_at[e]), "seconds": seconds,
                                                               "device": training.device})
        if diversity.active:  # a trigger that fired after this member stopped would never have fired alone
            fired = diversity.switched_at(e)
            summary["switched_at"] = float("nan") if fired > stopped_at[e] else fired
        results.append(RunResult(summary=summary, curve=curve))
    return results


# ------------------------------------------------------------ single-location regression --


def bias_summary(curve: dict[str, np.ndarray], measured: str, crossing) -> dict[str, float]:
    """The crossing of the model *with* the intervention's bias (the model as trained), where a run has one."""
    key = f"{measured}_with_bias"
    if key not in curve:
        return {}
    ok = np.isfinite(curve[key])
    return {"crossing_with_bias": float(crossing(curve["step"][ok], curve[key][ok])) if ok.any() else NOT_REACHED}


def model_config(c: TransformerRegressionConfig, input_dim: int) -> TransformerConfig:
    return TransformerConfig(
        input_dim=input_dim, output_dim=c.d, **fields_of(Architecture, c), layer_norm="pre" if c.layer_norm else "none",
        causal=c.causal, max_len=max(c.T, 1) + (c.readout == "query"), readout_init=c.readout_init,
        readout=c.readout, positions=c.positions, position_scale=c.position_scale, weight_init=c.weight_init,
    )


class RegressionTraining(TaskTraining):
    """Single-location regression: MSE; held-out loss without repetition and, with repetition, on the training
    distribution; the plateau is the measured loss reaching ``threshold``."""

    model: EnsembleTransformer | EnsembleMixer

    def __init__(self, c: TransformerRegressionConfig, seeds: list[int], device: str):
        self.config, self.device = c, device
        data = data_seeds(c, seeds)  # the task, its batches and held-out sets; ``seeds`` draw the initialisation
        gain = math.sqrt(c.d) if c.input_scale == "unit" else 1.0  # tokens N(0, I) instead of N(0, I/d)
        self.tasks = [SingleLocationRegression(**fields_of(RegressionTask, c), task_seed=s, token_gain=gain,
                                               flag_gain=c.relevance_gain) for s in data]
        self.train_gens = [torch.Generator().manual_seed(104_729 * s + 3) for s in data]
        eval_gens = [torch.Generator().manual_seed(104_729 * s + 5) for s in data]
        repeated = c.B > 1 or c.p > 0
        # (E, n, T, in), (E, n, d) and the relevance masks (E, n, T) of the same draws (asking for them draws nothing).
        x, y, mask = sample_ensemble(self.tasks, c.eval_size, eval_gens, return_mask=True, B=1, p=0.0)
        sets: dict[str, tuple[torch.Tensor, ...]] = {"loss_no_repetition": (x, y, mask)}
        if repeated:
            sets["loss_train_distribution"] = sample_ensemble(self.tasks, c.eval_size, eval_gens, return_mask=True)
        self.eval_sets = {k: (x.to(device), y.to(device), m.to(device).float()) for k, (x, y, m) in sets.items()}
        # A trigger that watches ``trigger_attn_relevant`` reads a held-out set of its own (its own generator), so
        # that the schedule never looks at the data that scores the run. Drawn only then: other runs are unchanged.
        self.trigger_set = None
        if "trigger_attn_relevant" in c.schedule:
            trigger_gens = [torch.Generator().manual_seed(104_729 * s + 7) for s in data]
            tx, _, tm = sample_ensemble(self.tasks, c.eval_size, trigger_gens, return_mask=True, B=1, p=0.0)
            self.trigger_set = (tx.to(device), tm.to(device).float())
        plateau_on_test = c.plateau_on == "no_repetition" or not repeated
        self.measured = "loss_no_repetition" if plateau_on_test else "loss_train_distribution"
        cfg = model_config(c, self.tasks[0].input_dim)
        self.model = (EnsembleMixer(cfg, seeds) if c.model == "mlp_mixer" else EnsembleTransformer(cfg, seeds)).to(device)

    def _biased(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        c = self.config
        return self.model(x, score_bias=c.attention_bias * mask, bias_layers=c.bias_layers)

    def train_loss(self, overrides: list[dict] | None) -> torch.Tensor:
        c = self.config
        threads = 1 if self.device == "cpu" else len(self.tasks)  # a CPU run's cores are its sweep's to share
        if c.attention_bias:
            x, y, mask = sample_ensemble(self.tasks, c.batch_size, self.train_gens, per_member=overrides,
                                         return_mask=True, threads=threads)
            with readings.precision(c, self.device):
                pred = self._biased(x.to(self.device), mask.to(self.device).float())
        else:
            x, y = sample_ensemble(self.tasks, c.batch_size, self.train_gens, per_member=overrides, threads=threads)
            with readings.precision(c, self.device):
                pred = self.model(x.to(self.device))
        return _mse(pred, y.to(self.device)).sum()

    def evaluate(self) -> dict[str, np.ndarray]:
        with readings.precision(self.config, self.device):  # the model as it trains (bfloat16 under that reading)
            return self._evaluate()

    def _evaluate(self) -> dict[str, np.ndarray]:
        c = self.config
        out = {}
        for k, (x, y, mask) in self.eval_sets.items():
            if (c.record_attention or c.record_entropy) and k == "loss_no_repetition":
                pred, patterns = self.model(x, return_attention=True)
                if c.record_attention:
                    out["attn_relevant"] = attention.relevant_position_attention(patterns, mask)
                if c.record_entropy:
                    out["attn_entropy"] = attention.readout_entropy(patterns)
            else:
                pred = self.model(x)
            out[k] = _mse(pred, y).double().cpu().numpy()
            if c.attention_bias:
                out[f"{k}_with_bias"] = _mse(self._biased(x, mask), y).double().cpu().numpy()
        if self.trigger_set is not None:
            tx, tm = self.trigger_set
            out["trigger_attn_relevant"] = attention.relevant_position_attention(self.model(tx, return_attention=True)[1], tm)
        # Losses first, then the recordings (the order a run's curve stores them in).
        order = (*self.eval_sets, *(f"{k}_with_bias" for k in self.eval_sets), "attn_relevant", "attn_entropy",
                 "trigger_attn_relevant")
        return {k: out[k] for k in order if k in out}

    def crossed(self, records: dict[str, np.ndarray]) -> np.ndarray:
        return records[self.measured] <= self.config.threshold

    def finite(self, records: dict[str, np.ndarray]) -> np.ndarray:
        return np.isfinite(records[self.measured])

    def summary(self, curve: dict[str, np.ndarray], diverged: bool, ran: dict[str, Any]) -> dict[str, Any]:
        steps, m = curve["step"], curve[self.measured]
        last_ok = len(steps) if not diverged else int(np.argmax(~np.isfinite(m)))
        plateau = plateau_length(steps[:last_ok], m[:last_ok], self.config.threshold) if last_ok > 0 else NOT_REACHED
        status = "crossed" if np.isfinite(plateau) else ("diverged" if diverged else "not_reached")
        return {
            "plateau_length": float(plateau) if status == "crossed" else (float("nan") if status == "diverged" else NOT_REACHED),
            "reached": status == "crossed",
            "status": status,
            "measured_on": self.measured.removeprefix("loss_"),
            "steps_run": ran["steps_run"],
            "final_time": float(ran["steps_run"]),
            "final_loss": float(m[-1]),
            "initial_loss": float(m[0]),
            "seconds": ran["seconds"],
            "device": ran["device"],
        } | bias_summary(curve, self.measured, lambda t, v: plateau_length(t, v, self.config.threshold))


def train_regression(configs: Sequence[TransformerRegressionConfig], device: str = "cpu") -> list[RunResult]:
    """Train the seeds of ``configs`` together on single-location regression. They must differ only in their seed.
    ``device``: a resolved name ("cpu", "cuda[:N]"; `sweep.run_sweep` resolves "auto")."""
    t0 = time.perf_counter()
    configs, c, seeds = seed_group(configs, "train_regression")
    return train_ensemble(RegressionTraining(c, seeds, device), configs, device, t0)


# ------------------------------------------------------------ associative recall --


def recall_model_config(c: TransformerRecallConfig) -> TransformerConfig:
    """One-hot tokens in, logits over the vocabulary out (read at the query, the last position); causal."""
    return TransformerConfig(
        input_dim=c.n_tokens, output_dim=c.n_tokens, **fields_of(Architecture, c), layer_norm=c.layer_norm,
        causal=True, max_len=2 * c.n_pairs + 1, embedding=c.embedding,
    )


class RecallTraining(TaskTraining):
    """Associative recall: cross-entropy at the query; accuracy and loss on test data (B = 1, p = 0: the query
    exactly once) and, with repetition, on the training distribution; the induction-head attention weights
    per layer and head on the test data (`relevant_attention`). Emergence is the accuracy reaching ``threshold``."""

    model: EnsembleTransformer

    def __init__(self, c: TransformerRecallConfig, seeds: list[int], device: str):
        self.config, self.device = c, device
        data = data_seeds(c, seeds)
        self.tasks = [AssociativeRecallTask(**fields_of(RecallTask, c), task_seed=s) for s in data]
        self.train_gens = [torch.Generator().manual_seed(104_729 * s + 11) for s in data]
        eval_gens = [torch.Generator().manual_seed(104_729 * s + 13) for s in data]
        repeated = c.B > 1 or c.p > 0
        sets = {"test": sample_recall_ensemble(self.tasks, c.eval_size, eval_gens, B=1, p=0.0, test=True)}
        if repeated:
            sets["train_distribution"] = sample_recall_ensemble(self.tasks, c.eval_size, eval_gens)
        self.eval_sets = {k: b.to(device) for k, b in sets.items()}
        # A trigger that watches a ``trigger_attn_*`` signal reads a held-out set of its own (its own generator, no
        # repetition), never the test set that scores the run. Drawn only then: other runs are unchanged.
        self.trigger_set = None
        if "trigger_attn_" in c.schedule:
            trigger_gens = [torch.Generator().manual_seed(104_729 * s + 17) for s in data]
            self.trigger_set = sample_recall_ensemble(self.tasks, c.eval_size, trigger_gens, B=1, p=0.0, test=True).to(device)
        self.measured = c.emergence_on if repeated else "test"
        self.model = EnsembleTransformer(recall_model_config(c), seeds).to(device)

    def _loss(self, logits: torch.Tensor, batch: RecallBatch) -> torch.Tensor:
        return F.cross_entropy(logits.transpose(1, 2), batch.target, reduction="none").mean(1)  # (E,)

    def train_loss(self, overrides: list[dict] | None) -> torch.Tensor:
        c = self.config
        batch = sample_recall_ensemble(self.tasks, c.batch_size, self.train_gens, per_member=overrides)
        batch = batch.to(self.device)
        logits = _recall_forward(self.model, batch, c.n_tokens, bias=c.attention_bias, bias_layers=c.bias_layers)
        return self._loss(logits, batch).sum()  # (E, batch, V) logits

    def _scores(self, logits: torch.Tensor, batch: RecallBatch, name: str) -> dict[str, np.ndarray]:
        return {f"loss_{name}": self._loss(logits, batch).double().cpu().numpy(),
                f"accuracy_{name}": (logits.argmax(-1) == batch.target).float().mean(1).double().cpu().numpy()}

    def evaluate(self) -> dict[str, np.ndarray]:
        c = self.config
        out: dict[str, np.ndarray] = {}
        biased: dict[str, np.ndarray] = {}
        recordings: dict[str, np.ndarray] = {}
        for name, batch in self.eval_sets.items():
            result = _recall_forward(self.model, batch, c.n_tokens, attention=name == "test")
            logits, patterns = result if name == "test" else (result, None)
            out |= self._scores(logits, batch, name)
            if c.attention_bias:
                logits = _recall_forward(self.model, batch, c.n_tokens, bias=c.attention_bias, bias_layers=c.bias_layers)
                biased |= self._scores(logits, batch, f"{name}_with_bias")
            if patterns is not None:
                vk, qv = attention.relevant_attention(patterns, batch.query_slots)  # (E, L, H) each
                recordings = {"attn_value_to_key": vk, "attn_query_to_value": qv}
                if c.record_entropy:
                    value_pos = 2 * batch.query_slots.float().argmax(dim=-1) + 1  # (E, n): test data, one slot
                    recordings |= {"attn_entropy": attention.readout_entropy(patterns),
                                   "attn_entropy_value": attention.readout_entropy(patterns, value_pos)}
        if self.trigger_set is not None:
            _, patterns = _recall_forward(self.model, self.trigger_set, c.n_tokens, attention=True)
            vk, qv = attention.relevant_attention(patterns, self.trigger_set.query_slots)  # (E, L, H) each
            recordings |= {"trigger_attn_value_to_key": vk, "trigger_attn_query_to_value": qv}
        return out | biased | recordings

    def crossed(self, records: dict[str, np.ndarray]) -> np.ndarray:
        return records[f"accuracy_{self.measured}"] >= self.config.threshold

    def finite(self, records: dict[str, np.ndarray]) -> np.ndarray:
        return np.isfinite(records[f"loss_{self.measured}"])

    def summary(self, curve: dict[str, np.ndarray], diverged: bool, ran: dict[str, Any]) -> dict[str, Any]:
        steps, acc = curve["step"], curve[f"accuracy_{self.measured}"]
        ok = np.isfinite(curve[f"loss_{self.measured}"])
        emergence = first_crossing(steps[ok], acc[ok], self.config.threshold, direction="up") if ok.any() else NOT_REACHED
        status = "crossed" if np.isfinite(emergence) else ("diverged" if diverged else "not_reached")
        return {
            "emergence_step": float(emergence) if status != "diverged" else float("nan"),
            "reached": status == "crossed",
            "status": status,
            "measured_on": self.measured,
            "steps_run": ran["steps_run"],
            "final_accuracy": float(acc[-1]),
            "final_test_accuracy": float(curve["accuracy_test"][-1]),
            "final_loss": float(curve[f"loss_{self.measured}"][-1]),
            "seconds": ran["seconds"],
            "device": ran["device"],
        } | bias_summary(curve, f"accuracy_{self.measured}",
                         lambda t, v: first_crossing(t, v, self.config.threshold, direction="up"))


def train_recall(configs: Sequence[TransformerRecallConfig], device: str = "cpu") -> list[RunResult]:
    """Train the seeds of ``configs`` (which differ only in their seed) together on associative recall."""
    t0 = time.perf_counter()
    configs, c, seeds = seed_group(configs, "train_recall")
    return train_ensemble(RecallTraining(c, seeds, device), configs, device, t0)
