"""Training loops for the Transformer experiments.

`train_regression` trains one Transformer per seed on single-location
regression (`train_recall`, below, on associative recall), all the seeds it is given at once (`transformer.EnsembleTransformer`;
sweeps give it one seed at a time on the CPU, where batching is not faster), with
fresh batches every step and fixed held-out sets evaluated on a log-spaced schedule.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from .cache import RunResult
from .configs import TransformerRecallConfig, TransformerRegressionConfig
from .devices import resolve_device
from .metrics import NOT_REACHED, first_crossing, plateau_length
from .schedules import DiversitySchedule, repetition_at
from .tasks import AssociativeRecallTask, RecallBatch, SingleLocationRegression, sample_ensemble, sample_recall_ensemble
from .transformer import EnsembleTransformer, TransformerConfig


def evaluation_steps(max_steps: int, per_decade: int) -> np.ndarray:
    """Step 0 and a log-spaced schedule up to ``max_steps`` (so a crossing time is precise at any scale)."""
    n = int(np.ceil(np.log10(max_steps) * per_decade)) + 1
    return np.unique(np.concatenate([[0], np.round(np.geomspace(1, max_steps, n)).astype(int)]))


def model_config(c: TransformerRegressionConfig, input_dim: int) -> TransformerConfig:
    return TransformerConfig(
        input_dim=input_dim, output_dim=c.d, n_layers=c.n_layers, n_heads=c.n_heads, d_model=c.d_model,
        d_qk=c.d_qk, mlp_factor=c.mlp_factor, layer_norm="pre" if c.layer_norm else "none", causal=c.causal, max_len=max(c.T, 1),
        readout_init=c.readout_init,
    )


def _mse(pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """½‖y − y*‖² averaged over the batch, per ensemble member: (E,)."""
    return 0.5 * ((pred - y) ** 2).sum(-1).mean(-1)


def seed_group(configs: Sequence, who: str) -> tuple[list, object, list[int]]:
    """(configs, their common config with seed 0, their seeds): configs trained together must differ only in their seed."""
    configs = list(configs)
    base = dataclasses.replace(configs[0], seed=0)
    if any(dataclasses.replace(c, seed=0) != base for c in configs):
        raise ValueError(f"{who}: configs must differ only in their seed")
    return configs, base, [c.seed for c in configs]


class ScheduleState:
    """A run's data-diversity schedule (`schedules`), per ensemble member: the B and p of each training step,
    and when repetition switched off. A constant schedule passes no overrides, so a run samples as it always did."""

    def __init__(self, spec: str, B: int, p: float, E: int):
        self.schedule = DiversitySchedule.parse(spec)
        self.B, self.p = B, p
        self.fired_at = np.full(E, np.nan)  # triggered: the evaluation step at which the signal crossed its level

    @property
    def active(self) -> bool:
        return self.schedule.kind != "constant"

    def observe(self, step: int, signals: dict[str, np.ndarray]) -> None:
        """At an evaluation: a triggered schedule fires for the members whose signal crossed its level."""
        if self.schedule.kind != "triggered":
            return
        for e, value in enumerate(signals[self.schedule.signal]):  # type: ignore[index]
            if np.isnan(self.fired_at[e]) and self.schedule.fires(float(value)):
                self.fired_at[e] = step

    def fractions(self, step: int) -> np.ndarray:
        """r per member for the training step ``step`` (a trigger that fired at the evaluation of this step applies)."""
        return np.array([self.schedule.fraction(step, triggered=bool(f <= step)) if np.isfinite(f)
                         else self.schedule.fraction(step) for f in self.fired_at])

    def overrides(self, step: int) -> list[dict] | None:
        """Per member {B, p} for a training step, or None under a constant schedule."""
        if not self.active:
            return None
        return [dict(zip(("B", "p"), repetition_at(self.B, self.p, r))) for r in self.fractions(step)]

    def switched_at(self, e: int) -> float:
        """When member ``e``'s repetition switched off: τ (step), the firing step (triggered), NaN otherwise."""
        if self.schedule.kind == "step":
            return float(self.schedule.at)  # type: ignore[arg-type]
        return float(self.fired_at[e])


def relevant_position_attention(patterns: list[torch.Tensor], mask: torch.Tensor) -> np.ndarray:
    """Attention from the readout (last) position to the relevant position(s), averaged over sequences:
    (E, layers, heads). ``mask`` (E, n, T) flags the relevant positions."""
    rows = [(pattern[:, :, :, -1, :] * mask[:, :, None, :]).sum(-1).mean(1) for pattern in patterns]  # (E, H) each
    return torch.stack(rows, 1).cpu().numpy()


def train_regression(configs: Sequence[TransformerRegressionConfig], device: str = "cpu") -> list[RunResult]:
    """Train the seeds of ``configs`` together. They must differ only in their seed."""
    configs, c, seeds = seed_group(configs, "train_regression")
    device = resolve_device(device)
    t0 = time.perf_counter()

    tasks = [
        SingleLocationRegression(c.T, c.d, c.B, c.p, c.random_position, c.relevance_feature, c.normalise_target, s)
        for s in seeds
    ]
    train_gens = [torch.Generator().manual_seed(104_729 * s + 3) for s in seeds]
    eval_gens = [torch.Generator().manual_seed(104_729 * s + 5) for s in seeds]
    repeated = c.B > 1 or c.p > 0
    if c.record_attention:  # the same draws, with the relevance masks kept for the attention read-out
        x, y, eval_mask = sample_ensemble(tasks, c.eval_size, eval_gens, return_mask=True, B=1, p=0.0)
        eval_sets = {"loss_no_repetition": (x, y)}
        eval_mask = eval_mask.to(device).float()
    else:
        eval_sets = {"loss_no_repetition": sample_ensemble(tasks, c.eval_size, eval_gens, B=1, p=0.0)}
    if repeated:
        eval_sets["loss_train_distribution"] = sample_ensemble(tasks, c.eval_size, eval_gens)
    eval_sets = {k: (x.to(device), y.to(device)) for k, (x, y) in eval_sets.items()}
    measured = "loss_no_repetition" if (c.plateau_on == "no_repetition" or not repeated) else "loss_train_distribution"

    model = EnsembleTransformer(model_config(c, tasks[0].input_dim), seeds).to(device)
    opt_cls = torch.optim.Adam if c.optimizer == "adam" else torch.optim.SGD
    optimizer = opt_cls(model.parameters(), lr=c.lr)

    E = len(seeds)
    schedule = set(evaluation_steps(c.max_steps, c.evals_per_decade).tolist())
    diversity = ScheduleState(c.schedule, c.B, c.p, E)
    records: dict[str, list] = {"step": [], **{k: [] for k in eval_sets}}
    crossed_at = np.full(E, np.nan)  # first evaluation step at or below the threshold
    diverged = np.zeros(E, dtype=bool)
    step = 0
    for step in range(c.max_steps + 1):
        if step in schedule:
            with torch.no_grad():
                losses = {}
                for k, (x, y) in eval_sets.items():
                    if c.record_attention and k == "loss_no_repetition":
                        pred, patterns = model(x, return_attention=True)
                        records.setdefault("attn_relevant", []).append(relevant_position_attention(patterns, eval_mask))
                    else:
                        pred = model(x)
                    losses[k] = _mse(pred, y).double().cpu().numpy()
            records["step"].append(step)
            for k, v in losses.items():
                records[k].append(v)
            if diversity.active:
                signals = dict(losses)
                if c.record_attention:
                    signals["attn_relevant"] = records["attn_relevant"][-1].max(axis=(1, 2))
                diversity.observe(step, signals)
                records.setdefault("repetition_fraction", []).append(diversity.fractions(step))
            m = losses[measured]
            diverged |= ~np.isfinite(m)
            newly = np.isnan(crossed_at) & (m <= c.threshold)
            crossed_at[newly] = step
            stop = c.stop_factor is not None and (~np.isnan(crossed_at) & (step >= c.stop_factor * crossed_at))
            if (diverged | stop).all():
                break
        if step == c.max_steps:
            break
        # (E, batch, T, in), (E, batch, d)
        x, y = sample_ensemble(tasks, c.batch_size, train_gens, per_member=diversity.overrides(step))
        loss = _mse(model(x.to(device)), y.to(device)).sum()  # sum over members: independent gradients
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    seconds = (time.perf_counter() - t0) / E
    steps = np.array(records["step"])
    results = []
    for e, cfg in enumerate(configs):
        curve = {"step": steps.astype(float), **{k: np.array([r[e] for r in records[k]]) for k in eval_sets}}
        if diversity.active:
            curve["repetition_fraction"] = np.array([r[e] for r in records["repetition_fraction"]])
        if c.record_attention:
            curve |= attention_columns("attn_relevant", np.stack([r[e] for r in records["attn_relevant"]]))
        last_ok = len(steps) if not diverged[e] else int(np.argmax(~np.isfinite(curve[measured])))
        plateau = plateau_length(steps[:last_ok], curve[measured][:last_ok], c.threshold) if last_ok > 0 else NOT_REACHED
        status = "crossed" if np.isfinite(plateau) else ("diverged" if diverged[e] else "not_reached")
        results.append(RunResult(
            summary={
                "plateau_length": float(plateau) if status == "crossed" else (float("nan") if status == "diverged" else NOT_REACHED),
                "reached": status == "crossed",
                "status": status,
                "measured_on": measured.removeprefix("loss_"),
                "steps_run": int(step),
                "final_time": float(step),
                "final_loss": float(curve[measured][-1]),
                "initial_loss": float(curve[measured][0]),
                "seconds": seconds,
                "device": device,
                **({"switched_at": diversity.switched_at(e)} if diversity.active else {}),
            },
            curve=curve,
        ))
    return results


def attention_columns(name: str, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Curve columns ``<name>_L<layer>H<head>`` (1-based) from weights (n_evals, layers, heads): how a run's file
    stores an attention recording; `attention_array` reads them back."""
    return {f"{name}_L{layer + 1}H{head + 1}": weights[:, layer, head]
            for layer in range(weights.shape[1]) for head in range(weights.shape[2])}


def attention_array(curve: dict[str, np.ndarray] | "pd.DataFrame", name: str) -> np.ndarray:
    """The recording ``name`` of one run's curve as an array (n_evals, layers, heads) (inverse of `attention_columns`)."""
    cells = {}
    for column in curve.keys():
        if column.startswith(f"{name}_L") and "H" in column.removeprefix(f"{name}_L"):
            layer, head = (int(v) for v in column.removeprefix(f"{name}_L").split("H"))
            cells[(layer, head)] = np.asarray(curve[column], dtype=float)
    if not cells:
        raise KeyError(f"no attention recording {name!r} in this curve")
    L, H = max(k[0] for k in cells), max(k[1] for k in cells)
    return np.stack([np.stack([cells[(l, h)] for h in range(1, H + 1)], -1) for l in range(1, L + 1)], 1)


# ------------------------------------------------------------ associative recall --


def recall_model_config(c: TransformerRecallConfig) -> TransformerConfig:
    """One-hot tokens in, logits over the vocabulary out (read at the query, the last position); causal."""
    return TransformerConfig(
        input_dim=c.n_tokens, output_dim=c.n_tokens, n_layers=c.n_layers, n_heads=c.n_heads, d_model=c.d_model,
        d_qk=c.d_qk, mlp_factor=c.mlp_factor, layer_norm=c.layer_norm, causal=True, max_len=2 * c.n_pairs + 1,
        embedding=c.embedding,
    )


def _recall_forward(model: EnsembleTransformer, batch: RecallBatch, n_tokens: int, attention: bool = False):
    x = torch.nn.functional.one_hot(batch.tokens, n_tokens).float()  # (E, n, T, V)
    # full=True: recall keeps the full computation it was cached with (the last-position shortcut gives the
    # same function but other float rounding; switching would mean a new recall version and a recompute).
    return model(x, return_attention=attention, full=True)


def relevant_attention(patterns: list[torch.Tensor], query_slots: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The two attention weights of an induction head, averaged over sequences: (E, layers, heads) each.

    * value → key: from the relevant value token (position 2s+1) to its key (2s), the copying step;
    * query → value: from the query (last position) to the relevant value token, the selection step.
    Sequences must hold the query exactly once (test data), in slot s.
    """
    slot = query_slots.float().argmax(dim=-1)  # (E, n)
    v_pos, k_pos = 2 * slot + 1, 2 * slot
    vk, qv = [], []
    for pattern in patterns:  # (E, n, H, T, T): row = query position, column = key position
        E, n, H, T, _ = pattern.shape
        rows = pattern.gather(3, v_pos[:, :, None, None, None].expand(E, n, H, 1, T))[:, :, :, 0, :]  # (E, n, H, T)
        vk.append(rows.gather(3, k_pos[:, :, None, None].expand(E, n, H, 1))[..., 0].mean(1))  # (E, H)
        last = pattern[:, :, :, -1, :]  # (E, n, H, T): the query's row
        qv.append(last.gather(3, v_pos[:, :, None, None].expand(E, n, H, 1))[..., 0].mean(1))  # (E, H)
    return torch.stack(vk, 1).cpu().numpy(), torch.stack(qv, 1).cpu().numpy()


def train_recall(configs: Sequence[TransformerRecallConfig], device: str = "cpu") -> list[RunResult]:
    """Train the seeds of ``configs`` (which differ only in their seed) on associative recall.

    Records, on a log-spaced schedule, accuracy and loss on test data (B = 1,
    p = 0: the query exactly once) and, when the run has repetition, on the
    training distribution; and the induction-head attention weights per layer
    and head on the test data (`relevant_attention`).
    """
    configs, c, seeds = seed_group(configs, "train_recall")
    device = resolve_device(device)
    t0 = time.perf_counter()
    tasks = [AssociativeRecallTask(c.n_tokens, c.n_pairs, c.B, c.p, c.n_repeated, s) for s in seeds]
    train_gens = [torch.Generator().manual_seed(104_729 * s + 11) for s in seeds]
    eval_gens = [torch.Generator().manual_seed(104_729 * s + 13) for s in seeds]
    repeated = c.B > 1 or c.p > 0
    eval_sets = {"test": sample_recall_ensemble(tasks, c.eval_size, eval_gens, B=1, p=0.0)}
    if repeated:
        eval_sets["train_distribution"] = sample_recall_ensemble(tasks, c.eval_size, eval_gens)
    eval_sets = {k: b.to(device) for k, b in eval_sets.items()}
    measured = c.emergence_on if repeated else "test"

    model = EnsembleTransformer(recall_model_config(c), seeds).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=c.lr)
    E, L, H = len(seeds), c.n_layers, c.n_heads
    schedule = set(evaluation_steps(c.max_steps, c.evals_per_decade).tolist())
    diversity = ScheduleState(c.schedule, c.B, c.p, E)
    records: dict[str, list] = defaultdict(list)
    crossed_at = np.full(E, np.nan)
    diverged = np.zeros(E, dtype=bool)
    step = 0
    for step in range(c.max_steps + 1):
        if step in schedule:
            records["step"].append(step)
            with torch.no_grad():
                for name, batch in eval_sets.items():
                    out = _recall_forward(model, batch, c.n_tokens, attention=name == "test")
                    logits, patterns = out if name == "test" else (out, None)
                    loss = F.cross_entropy(logits.transpose(1, 2), batch.target, reduction="none").mean(1)  # (E,)
                    acc = (logits.argmax(-1) == batch.target).float().mean(1)  # (E,)
                    records[f"loss_{name}"].append(loss.double().cpu().numpy())
                    records[f"accuracy_{name}"].append(acc.double().cpu().numpy())
                    if patterns is not None:
                        vk, qv = relevant_attention(patterns, batch.query_slots)  # (E, L, H) each
                        records["attn_value_to_key"].append(vk)
                        records["attn_query_to_value"].append(qv)
            if diversity.active:
                signals = {k: v[-1] for k, v in records.items() if k.startswith(("loss_", "accuracy_"))}
                signals |= {k: records[k][-1].max(axis=(1, 2)) for k in ("attn_value_to_key", "attn_query_to_value")}
                diversity.observe(step, signals)
                records["repetition_fraction"].append(diversity.fractions(step))
            diverged |= ~np.isfinite(records[f"loss_{measured}"][-1])
            newly = np.isnan(crossed_at) & (records[f"accuracy_{measured}"][-1] >= c.threshold)
            crossed_at[newly] = step
            stop = c.stop_factor is not None and (~np.isnan(crossed_at) & (step >= c.stop_factor * crossed_at))
            if (diverged | stop).all():
                break
        if step == c.max_steps:
            break
        batch = sample_recall_ensemble(tasks, c.batch_size, train_gens, per_member=diversity.overrides(step)).to(device)
        logits = _recall_forward(model, batch, c.n_tokens)  # (E, batch, V)
        loss = F.cross_entropy(logits.transpose(1, 2), batch.target, reduction="none").mean(1).sum()  # members independent
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    seconds = (time.perf_counter() - t0) / E
    steps = np.array(records["step"], dtype=float)
    results = []
    for e, cfg in enumerate(configs):
        curve: dict[str, np.ndarray] = {"step": steps}
        for key in [k for k in records if k.startswith(("loss_", "accuracy_"))]:
            curve[key] = np.array([r[e] for r in records[key]])
        if diversity.active:
            curve["repetition_fraction"] = np.array([r[e] for r in records["repetition_fraction"]])
        for key in ("attn_value_to_key", "attn_query_to_value"):
            curve |= attention_columns(key, np.stack([r[e] for r in records[key]]))  # from (n_evals, L, H)
        acc = curve[f"accuracy_{measured}"]
        ok = np.isfinite(curve[f"loss_{measured}"])
        emergence = first_crossing(steps[ok], acc[ok], cfg.threshold, direction="up") if ok.any() else NOT_REACHED
        status = "crossed" if np.isfinite(emergence) else ("diverged" if diverged[e] else "not_reached")
        results.append(RunResult(
            summary={
                "emergence_step": float(emergence) if status != "diverged" else float("nan"),
                "reached": status == "crossed",
                "status": status,
                "measured_on": measured,
                "steps_run": int(step),
                "final_accuracy": float(acc[-1]),
                "final_test_accuracy": float(curve["accuracy_test"][-1]),
                "final_loss": float(curve[f"loss_{measured}"][-1]),
                "seconds": seconds,
                "device": device,
                **({"switched_at": diversity.switched_at(e)} if diversity.active else {}),
            },
            curve=curve,
        ))
    return results
