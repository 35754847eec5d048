"""Attention recordings: what a run stores of its attention patterns, and how it is read back.

A recording (e.g. "attn_relevant" of regression, "attn_query_to_value" and "attn_value_to_key" of recall)
is one weight per evaluation, layer and head: an array (n_evals, layers, heads). A run's file stores it as
curve columns ``<name>_L<layer>H<head>`` (1-based), one per (layer, head), because curves are tables of
equal-length columns. This module is the only place that writes or parses those names: everything else
goes through `to_columns`, `as_array` and `tidy`.

The measurements themselves, from a model's attention patterns (E, n, heads, T, T) per layer, are here too
(`relevant_position_attention`, `relevant_attention`, `readout_entropy`): the training loop records them.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

import numpy as np
import pandas as pd
import torch

_COLUMN = re.compile(r"^(?P<name>attn_\w+?)_L(?P<layer>\d+)H(?P<head>\d+)$")


def to_columns(name: str, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Curve columns of the recording ``name`` from weights (n_evals, layers, heads)."""
    return {f"{name}_L{layer + 1}H{head + 1}": weights[:, layer, head]
            for layer in range(weights.shape[1]) for head in range(weights.shape[2])}


def _cells(columns: Iterable[str]) -> dict[str, dict[tuple[int, int], str]]:
    """Recording name → {(layer, head) (1-based): column} for the attention columns among ``columns``."""
    out: dict[str, dict[tuple[int, int], str]] = {}
    for column in columns:
        m = _COLUMN.match(column)
        if m:
            out.setdefault(m["name"], {})[(int(m["layer"]), int(m["head"]))] = column
    return out


def recordings(columns: Iterable[str]) -> list[str]:
    """The names of the attention recordings a curve holds."""
    return list(_cells(columns))


def as_array(curve: Mapping[str, np.ndarray] | pd.DataFrame, name: str) -> np.ndarray:
    """The recording ``name`` of one run's curve as an array (n_evals, layers, heads)."""
    cells = _cells(curve.keys()).get(name)
    if not cells:
        raise KeyError(f"no attention recording {name!r} in this curve")
    L, H = max(k[0] for k in cells), max(k[1] for k in cells)
    return np.stack([np.stack([np.asarray(curve[cells[(layer, h)]], dtype=float) for h in range(1, H + 1)], -1)
                     for layer in range(1, L + 1)], 1)


def tidy(curve: pd.DataFrame, time: str = "step") -> pd.DataFrame:
    """One row per (evaluation, recording, layer, head) of one run's curve: columns time, kind, layer, head, weight.
    ``kind`` is the recording's name without its "attn_" prefix (layers and heads 1-based)."""
    frames = []
    for name in recordings(curve.columns):
        weights = as_array(curve, name)  # (n, L, H)
        n, L, H = weights.shape
        frames.append(pd.DataFrame({
            time: np.repeat(curve[time].to_numpy(), L * H), "kind": name.removeprefix("attn_"),
            "layer": np.tile(np.repeat(np.arange(1, L + 1), H), n), "head": np.tile(np.arange(1, H + 1), n * L),
            "weight": weights.reshape(-1)}))
    return pd.concat(frames, ignore_index=True)


def relevant_position_attention(patterns: list[torch.Tensor], mask: torch.Tensor) -> np.ndarray:
    """Attention from the readout (last) position to the relevant position(s), averaged over sequences:
    (E, layers, heads). ``mask`` (E, n, T) flags the relevant positions."""
    rows = [(pattern[:, :, :, -1, :] * mask[:, :, None, :]).sum(-1).mean(1) for pattern in patterns]  # (E, H) each
    return torch.stack(rows, 1).cpu().numpy()


def relevant_attention(patterns: list[torch.Tensor], query_slots: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The two attention weights of an induction head, averaged over sequences: (E, layers, heads) each.

    * value → key: from the relevant value token (position 2s+1) to its key (2s), the copying step;
    * query → value: from the query (last position) to the relevant value token, the selection step.
    Averaged over the sequences that hold the query exactly once, in slot s (every test sequence, but under the
    ``test_set="bernoulli"`` reading, where it may be absent or repeated).
    """
    once = query_slots.sum(-1) == 1  # (E, n)
    if bool(once.all()):
        over_sequences = lambda x: x.mean(1)  # noqa: E731  (the book's test data: every stored run's arithmetic)
    else:  # the mean over each member's single-copy sequences; argmax reads slot 0 where absent, weighted 0
        w = once.float() / once.float().sum(1, keepdim=True).clamp(min=1)  # (E, n)
        over_sequences = lambda x: (x * w[..., None]).sum(1)  # noqa: E731
    slot = query_slots.float().argmax(dim=-1)  # (E, n)
    v_pos, k_pos = 2 * slot + 1, 2 * slot
    vk, qv = [], []
    for pattern in patterns:  # (E, n, H, T, T): row = query position, column = key position
        E, n, H, T, _ = pattern.shape
        rows = pattern.gather(3, v_pos[:, :, None, None, None].expand(E, n, H, 1, T))[:, :, :, 0, :]  # (E, n, H, T)
        vk.append(over_sequences(rows.gather(3, k_pos[:, :, None, None].expand(E, n, H, 1))[..., 0]))  # (E, H)
        last = pattern[:, :, :, -1, :]  # (E, n, H, T): the query's row
        qv.append(over_sequences(last.gather(3, v_pos[:, :, None, None].expand(E, n, H, 1))[..., 0]))  # (E, H)
    return torch.stack(vk, 1).cpu().numpy(), torch.stack(qv, 1).cpu().numpy()


def readout_entropy(patterns: list[torch.Tensor], rows: torch.Tensor | None = None) -> np.ndarray:
    """Entropy (nats) of one attention row per sequence, averaged over sequences: (E, layers, heads). The row is
    the readout's (the last position) or, with ``rows`` (E, n), that query position of each sequence."""
    out = []
    for pattern in patterns:  # (E, n, H, T, T)
        E, n, H, T, _ = pattern.shape
        if rows is None:
            row = pattern[:, :, :, -1, :]  # (E, n, H, T)
        else:
            row = pattern.gather(3, rows[:, :, None, None, None].expand(E, n, H, 1, T))[:, :, :, 0, :]
        out.append(-torch.special.xlogy(row, row).sum(-1).mean(1))  # (E, H); 0·log 0 = 0 (masked keys)
    return torch.stack(out, 1).cpu().numpy()
