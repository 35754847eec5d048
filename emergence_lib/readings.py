"""The choices the paper leaves unsaid for its regression Transformer (spec §10.7), as one config part.

Every field's default is the book's reading, and is left out of a run's cache key at that value (`OMIT_AT_DEFAULT`),
so every run stored before the readings existed keeps its key and computes exactly what it did. Another value is a
reading a careful reader of the paper could have made instead (chapter "What the paper leaves unsaid"):

* ``readout``: the prediction is read at the last position (book), at the mean over positions, or at an appended
  query token (a zero input with its own position, after the T tokens);
* ``positions``: sinusoidal encodings added at full scale to the embedded tokens (book), the same added to a token
  embedding scaled by √d_model (Vaswani et al.), learned position vectors (N(0, 0.02²) entries, as in GPT-2), or none
  (the relevance feature alone marks the token);
* ``weight_init``: PyTorch's default (book), or GPT-2's N(0, 0.02²) weights, zero biases, residual projections scaled
  by 1/√(2·layers);
* ``input_scale``: tokens N(0, I/d) (book), or N(0, I) (targets computed from the unscaled token, so that the loss still
  starts at ½ and the threshold keeps its meaning);
* ``position_scale``: the sinusoidal encodings added at full scale (book, 1), or multiplied by this factor first
  (sinusoidal or scaled positions only): how loud the positions are against the token (×¼ brings their norm, √128
  at width 256, near the embedded token's at d = 16; the d = 16 screen's reading);
* ``relevance_gain``: the relevance feature is 0/1 (book), or 0/gain: how loud the marker of the relevant token is
  against the positions (a follow-up reading, registered after the first screen's Vaswani result);
* ``adam_eps``, ``adam_beta2``: Adam's ε and β₂ (PyTorch's defaults 1e-8 and 0.999 in the book);
* ``clip_norm``: no clipping (book, None), or each seed's gradient clipped to this global norm;
* ``precision``: float32 (book), or bfloat16 autocast of the forward pass (losses in float32).

The attention mask is the config's ``causal`` field (bidirectional in the book).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal

from .cache import OMIT_AT_DEFAULT
from .checks import ConfigError, check_choice

if TYPE_CHECKING:  # torch loads only where a model trains: a bad config is refused without it
    import torch

READOUTS = ("last", "mean", "query")
POSITIONS = ("sinusoidal", "scaled", "learned", "none")
WEIGHT_INITS = ("torch", "gpt2")
INPUT_SCALES = ("per_dim", "unit")
PRECISIONS = ("float32", "bfloat16")


@dataclass(frozen=True, kw_only=True)
class Readings:
    """The book's reading of each unsaid choice by default; see the module's docstring for the others."""

    readout: Literal["last", "mean", "query"] = field(default="last", metadata=OMIT_AT_DEFAULT)
    positions: Literal["sinusoidal", "scaled", "learned", "none"] = field(default="sinusoidal", metadata=OMIT_AT_DEFAULT)
    weight_init: Literal["torch", "gpt2"] = field(default="torch", metadata=OMIT_AT_DEFAULT)
    input_scale: Literal["per_dim", "unit"] = field(default="per_dim", metadata=OMIT_AT_DEFAULT)
    position_scale: float = field(default=1.0, metadata=OMIT_AT_DEFAULT)
    relevance_gain: float = field(default=1.0, metadata=OMIT_AT_DEFAULT)
    adam_eps: float = field(default=1e-8, metadata=OMIT_AT_DEFAULT)
    adam_beta2: float = field(default=0.999, metadata=OMIT_AT_DEFAULT)
    clip_norm: float | None = field(default=None, metadata=OMIT_AT_DEFAULT)
    precision: Literal["float32", "bfloat16"] = field(default="float32", metadata=OMIT_AT_DEFAULT)

    def check_readings(self) -> None:
        check_choice("readout", self.readout, READOUTS)
        check_choice("positions", self.positions, POSITIONS)
        check_choice("weight_init", self.weight_init, WEIGHT_INITS)
        check_choice("input_scale", self.input_scale, INPUT_SCALES)
        check_choice("precision", self.precision, PRECISIONS)
        for name, low, high in (("adam_eps", 0.0, 1.0), ("adam_beta2", 0.0, 1.0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not (math.isfinite(v) and low < float(v) < high):
                raise ConfigError(f"{name} must be a number in ({low:g}, {high:g}), got {v!r}")
            object.__setattr__(self, name, float(v))
        p = self.position_scale
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not (math.isfinite(p) and 0 < p <= 1024):
            raise ConfigError(f"position_scale must be a number in (0, 1024], got {p!r}")
        object.__setattr__(self, "position_scale", float(p))
        if self.position_scale != 1.0 and self.positions not in ("sinusoidal", "scaled"):
            raise ConfigError("position_scale needs sinusoidal or scaled positions (it scales the encodings)")
        g = self.relevance_gain
        if isinstance(g, bool) or not isinstance(g, numbers.Real) or not (math.isfinite(g) and 0 < g <= 1024):
            raise ConfigError(f"relevance_gain must be a number in (0, 1024], got {g!r}")
        object.__setattr__(self, "relevance_gain", float(g))
        if self.relevance_gain != 1.0 and not getattr(self, "relevance_feature", True):
            raise ConfigError("relevance_gain needs relevance_feature=True (it scales that feature)")
        c = self.clip_norm
        if c is not None:
            if isinstance(c, bool) or not isinstance(c, numbers.Real) or not (math.isfinite(c) and c > 0):
                raise ConfigError(f"clip_norm must be None (no clipping) or a finite number > 0, got {c!r}")
            object.__setattr__(self, "clip_norm", float(c))

    def departures(self) -> dict[str, Any]:
        """The fields that differ from the book's reading, by name ({} for the book's own)."""
        return {f: getattr(self, f) for f, d in DEFAULTS.items() if getattr(self, f) != d}


DEFAULTS: dict[str, Any] = {f: getattr(Readings(), f) for f in Readings.__dataclass_fields__}


def optimizer_for(c: Any, params: Iterable[torch.nn.Parameter]) -> torch.optim.Optimizer:
    """Adam with the run's ε and β₂ (PyTorch's defaults where the config has no readings), or plain SGD."""
    import torch

    if getattr(c, "optimizer", "adam") == "sgd":
        return torch.optim.SGD(params, lr=c.lr)
    return torch.optim.Adam(params, lr=c.lr, betas=(0.9, getattr(c, "adam_beta2", 0.999)), eps=getattr(c, "adam_eps", 1e-8))


def clip_per_member(c: Any, params: Iterable[torch.nn.Parameter]) -> None:
    """Clip each seed's gradient to ``clip_norm`` on its own: every parameter's first dimension is the seed (E), so
    one global norm over the ensemble would couple seeds that must train as they would alone."""
    limit = getattr(c, "clip_norm", None)
    if limit is None:
        return
    import torch

    grads = [p.grad for p in params if p.grad is not None]
    norms = torch.stack([g.reshape(g.shape[0], -1).double().pow(2).sum(1) for g in grads]).sum(0).sqrt()  # (E,)
    scale = (limit / (norms + 1e-6)).clamp(max=1.0).to(grads[0].dtype)
    for g in grads:
        g.mul_(scale.view(-1, *([1] * (g.dim() - 1))))


def precision(c: Any, device: str) -> contextlib.AbstractContextManager:
    """bfloat16 autocast of the forward pass under the bfloat16 reading; nothing otherwise."""
    if getattr(c, "precision", "float32") == "float32":
        return contextlib.nullcontext()
    import torch

    return torch.autocast(device_type=device.split(":")[0], dtype=torch.bfloat16)
