"""A small Transformer for the single-location regression task (paper §2.4, Table 1).

Written nanoGPT-style, with one twist: every weight has a leading *ensemble*
dimension E, so that E independently initialised models (one per training
seed) run as one set of batched matmuls. Adam and SGD act elementwise, so the
members train exactly as they would alone (a test checks it).

Choices the paper leaves open (spec §10.7), made here and stated in the chapters:
* attention is bidirectional (no mask) by default; ``causal=True`` is available;
* the prediction is read out, through a linear map to d, at the last position;
* positions are sinusoidal encodings added to a linear embedding of the d (+1) inputs
  (for one-hot tokens, ``embedding="lookup"`` initialises it like nn.Embedding);
* values have width d_model / n_heads per head; queries and keys ``d_qk``;
* LayerNorm is off by default, as in Table 1 for this task; ``layer_norm="pre"`` normalises each
  block's input (and the readout's), ``"post"`` each residual sum (the original Transformer's).

Attention patterns are returned on request: ``model(x, return_attention=True)``. An intervention can add a
bias to the readout's attention logits (``score_bias``, chapter B3): the model itself is not edited.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from .configs import Architecture, ConfigError, check_int
from .readings import POSITIONS, READOUTS, WEIGHT_INITS


LAYER_NORMS = ("pre", "post", "none")


@dataclass(frozen=True)
class TransformerConfig(Architecture):
    """Architecture (`configs.Architecture`: layers, heads, widths) and what the task decides. Defaults are
    Table 1's linear-regression Transformer."""

    input_dim: int
    output_dim: int
    layer_norm: str = "none"  # "pre" | "post" | "none"
    skip: bool = True
    causal: bool = False
    max_len: int = 4096
    embedding: str = "linear"  # "lookup": one-hot inputs, weights N(0, 1) like nn.Embedding, no bias
    readout_init: str = "default"  # "zero": the untrained model outputs exactly 0 (the paper's initial loss ½)
    # The unsaid choices of `readings` (the book's reading by default): where the prediction is read, how positions
    # join the tokens, and how weights start.
    readout: str = "last"  # "mean": over positions; "query": at a zero token appended after the T inputs
    positions: str = "sinusoidal"  # "scaled": tokens × √d_model + sinusoidal; "learned"; "none"
    position_scale: float = 1.0  # the sinusoidal encodings × this before they are added (the book: 1)
    weight_init: str = "torch"  # "gpt2": N(0, 0.02²) weights, zero biases, residual projections / √(2 layers)

    def __post_init__(self) -> None:
        for name in ("input_dim", "output_dim", "max_len"):
            check_int(name, getattr(self, name), 1)
        self.check_architecture()
        if self.layer_norm not in LAYER_NORMS:
            raise ConfigError(f"layer_norm must be one of {LAYER_NORMS}, got {self.layer_norm!r}")
        if self.embedding not in ("linear", "lookup"):
            raise ConfigError(f"embedding must be 'linear' or 'lookup', got {self.embedding!r}")
        if self.readout_init not in ("default", "zero"):
            raise ConfigError(f"readout_init must be 'default' or 'zero', got {self.readout_init!r}")
        for name, allowed in (("readout", READOUTS), ("positions", POSITIONS), ("weight_init", WEIGHT_INITS)):
            if getattr(self, name) not in allowed:
                raise ConfigError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")


def sinusoidal_positions(T: int, d_model: int) -> torch.Tensor:
    """(T, d_model) sinusoidal position encodings (Vaswani et al.)."""
    pos = torch.arange(T, dtype=torch.float32)[:, None]
    freq = torch.exp(-math.log(10_000.0) * torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(T, d_model)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq[: (d_model // 2)])
    return pe


class EnsembleLinear(nn.Module):
    """E independent linear maps: x (E, N, in) → (E, N, out). Initialised like nn.Linear, per member."""

    def __init__(self, E: int, d_in: int, d_out: int, generators: list[torch.Generator]):
        super().__init__()
        bound = 1.0 / math.sqrt(d_in)
        weight = torch.empty(E, d_in, d_out)
        bias = torch.empty(E, 1, d_out)
        for e, g in enumerate(generators):
            weight[e].uniform_(-bound, bound, generator=g)
            bias[e].uniform_(-bound, bound, generator=g)
        self.weight = nn.Parameter(weight)
        self.bias = nn.Parameter(bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.affine(x, self.weight, self.bias)

    @staticmethod
    def affine(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """x (E, ..., in) @ weight (E, in, out) + bias (E, 1, out) → (E, ..., out)."""
        shape = x.shape
        out = torch.baddbmm(bias, x.reshape(shape[0], -1, shape[-1]), weight)
        return out.reshape(*shape[:-1], out.shape[-1])


class EnsembleLayerNorm(nn.Module):
    def __init__(self, E: int, d: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(E, 1, 1, d))
        self.bias = nn.Parameter(torch.zeros(E, 1, 1, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (E, n, T, d)
        return F.layer_norm(x, x.shape[-1:]) * self.weight + self.bias


class Block(nn.Module):
    def __init__(self, cfg: TransformerConfig, E: int, gens: list[torch.Generator]):
        super().__init__()
        self.cfg = cfg
        H, D = cfg.n_heads, cfg.d_model
        self.d_v = D // H
        self.qkv = EnsembleLinear(E, D, H * (2 * cfg.d_qk + self.d_v), gens)
        self.proj = EnsembleLinear(E, H * self.d_v, D, gens)
        self.mlp_in = EnsembleLinear(E, D, cfg.mlp_factor * D, gens) if cfg.mlp_factor else None
        self.mlp_out = EnsembleLinear(E, cfg.mlp_factor * D, D, gens) if cfg.mlp_factor else None
        # Pre-LN normalises what enters attention and the MLP; post-LN normalises each residual sum.
        self.pre = cfg.layer_norm == "pre"
        self.ln1 = EnsembleLayerNorm(E, D) if cfg.layer_norm != "none" else nn.Identity()
        self.ln2 = EnsembleLayerNorm(E, D) if cfg.layer_norm != "none" and cfg.mlp_factor else nn.Identity()

    def attention(
        self, x: torch.Tensor, last_only: bool = False, score_bias: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Attention output and pattern; with ``last_only`` only the last position queries (Tq = 1, else T).
        ``score_bias`` (E, n, T) is added to the last position's logits (the readout's row) before the softmax."""
        E, n, T, _ = x.shape
        H, dq, dv = self.cfg.n_heads, self.cfg.d_qk, self.d_v
        W, b = self.qkv.weight, self.qkv.bias  # (E, D, H·(2dq + dv)), (E, 1, …)
        if last_only:
            # Keys and values at every position, the query at the last one only.
            q = EnsembleLinear.affine(x[:, :, -1:], W[..., : H * dq], b[..., : H * dq])  # (E, n, 1, H·dq)
            k, v = EnsembleLinear.affine(x, W[..., H * dq :], b[..., H * dq :]).split([H * dq, H * dv], dim=-1)
        else:
            q, k, v = self.qkv(x).split([H * dq, H * dq, H * dv], dim=-1)  # (E, n, T, H·…)
        Tq = q.shape[2]
        q = q.view(E, n, Tq, H, dq).transpose(2, 3)  # (E, n, H, Tq, dq)
        k = k.view(E, n, T, H, dq).transpose(2, 3)  # (E, n, H, T, dq)
        v = v.view(E, n, T, H, dv).transpose(2, 3)  # (E, n, H, T, dv)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dq)  # (E, n, H, Tq, T)
        if score_bias is not None:
            scores = torch.cat([scores[:, :, :, :-1], scores[:, :, :, -1:] + score_bias[:, :, None, None, :]], dim=3)
        if self.cfg.causal and not last_only:  # the last position sees every key anyway
            mask = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        pattern = scores.softmax(dim=-1)  # (E, n, H, Tq, T): row = query, column = key
        out = (pattern @ v).transpose(2, 3).reshape(E, n, Tq, H * dv)  # (E, n, Tq, H·dv)
        return self.proj(out), pattern

    def forward(
        self, x: torch.Tensor, last_only: bool = False, score_bias: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(E, n, T, D) → (E, n, T, D), or (E, n, 1, D) for the last position only (the readout's)."""
        a, pattern = self.attention(self.ln1(x) if self.pre else x, last_only, score_bias)
        if last_only:
            x = x[:, :, -1:]  # attention, residual and MLP are position-wise from here: the last position suffices
        x = x + a if self.cfg.skip else a
        if not self.pre:
            x = self.ln1(x)  # post-LN (identity with no LN)
        if self.mlp_in is not None:
            assert self.mlp_out is not None  # built together with mlp_in
            m = self.mlp_out(F.gelu(self.mlp_in(self.ln2(x) if self.pre else x)))
            x = x + m if self.cfg.skip else m
            if not self.pre:
                x = self.ln2(x)
        return x, pattern


class EnsembleTransformer(nn.Module):
    """E Transformers, one per seed. Input (E, n, T, input_dim) → prediction (E, n, output_dim)."""

    positions: torch.Tensor  # a buffer (register_buffer below)

    def __init__(self, cfg: TransformerConfig, seeds: list[int]):
        super().__init__()
        self.cfg = cfg
        E = len(seeds)
        gens = [torch.Generator().manual_seed(7_919 * s + 1) for s in seeds]
        self.embed = EnsembleLinear(E, cfg.input_dim, cfg.d_model, gens)
        if cfg.embedding == "lookup":
            # Token vectors of unit-scale entries, like the positions: with nn.Linear's ±1/√V init the
            # token identity is ~10× smaller than the sinusoidal positions it is added to (and recall
            # did not emerge in 8k steps at V = 32 in a trial).
            with torch.no_grad():
                for e, g in enumerate(gens):
                    self.embed.weight[e].normal_(generator=g)
                self.embed.bias.zero_()
        self.register_buffer("positions", sinusoidal_positions(cfg.max_len, cfg.d_model), persistent=False)
        if cfg.positions == "learned":  # GPT-2's learned position vectors, drawn before the blocks
            learned = torch.stack([torch.randn(cfg.max_len, cfg.d_model, generator=g) * 0.02 for g in gens])
            self.learned_positions = nn.Parameter(learned[:, None])  # (E, 1, max_len, d_model)
        self.blocks = nn.ModuleList([Block(cfg, E, gens) for _ in range(cfg.n_layers)])
        # Pre-LN needs a final LN before the readout; post-LN's residual stream is already normalised.
        self.ln_f = EnsembleLayerNorm(E, cfg.d_model) if cfg.layer_norm == "pre" else nn.Identity()
        self.readout = EnsembleLinear(E, cfg.d_model, cfg.output_dim, gens)
        if cfg.readout_init == "zero":
            # The untrained model then predicts exactly 0, so training starts on the plateau (loss ½ for
            # regression) instead of first unlearning a random readout whose output grows with d.
            with torch.no_grad():
                self.readout.weight.zero_()
                self.readout.bias.zero_()
        if cfg.weight_init == "gpt2":
            self._gpt2_init(seeds)

    def _gpt2_init(self, seeds: list[int]) -> None:
        """GPT-2's initialisation, per seed from a stream of its own: every linear map N(0, 0.02²), the residual
        projections (attention out, MLP out) N(0, (0.02/√(2L))²), biases 0; a zero readout stays zero."""
        gens = [torch.Generator().manual_seed(7_919 * s + 2) for s in seeds]
        residual = {id(m) for b in self.blocks for m in (b.proj, b.mlp_out) if m is not None}
        small = 0.02 / math.sqrt(2 * self.cfg.n_layers)
        with torch.no_grad():
            for m in self.modules():
                if not isinstance(m, EnsembleLinear) or (m is self.readout and self.cfg.readout_init == "zero"):
                    continue
                for e, g in enumerate(gens):
                    m.weight[e].normal_(0.0, small if id(m) in residual else 0.02, generator=g)
                m.bias.zero_()

    def forward(
        self, x: torch.Tensor, return_attention: bool = False, full: bool = False,
        score_bias: torch.Tensor | None = None, bias_layers: str = "first",
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """Prediction at the last position, (E, n, output_dim), and with ``return_attention`` every layer's
        full pattern (E, n, H, T, T). ``score_bias`` (E, n, T), if given, is added to the readout row's attention
        logits in the first layer (``bias_layers="first"``) or in every layer (``"all"``).

        Only the last position is read out, so unless the patterns are asked for (or ``full``), the last
        layer computes its query, attention and MLP at that position alone: the same function, with most
        of a 1-layer model's work skipped (tests check losses and gradients against the full computation).
        """
        cfg = self.cfg
        if cfg.readout == "query":  # a zero input after the T tokens, read out at its own position
            x = torch.cat([x, x.new_zeros(*x.shape[:2], 1, x.shape[3])], dim=2)  # (E, n, T + 1, in)
            if score_bias is not None:
                score_bias = torch.cat([score_bias, score_bias.new_zeros(*score_bias.shape[:2], 1)], dim=2)
        T = x.shape[2]
        if T > cfg.max_len:
            raise ConfigError(f"sequence length {T} exceeds the model's max_len={cfg.max_len}")
        last_only = not (return_attention or full) and cfg.readout != "mean"  # the mean reads every position
        h = self.embed(x)  # (E, n, T, d_model)
        if cfg.positions == "scaled":  # Vaswani et al.: the token embedding × √d_model, then the positions
            h = h * math.sqrt(cfg.d_model)
        if cfg.positions in ("sinusoidal", "scaled"):
            h = h + (self.positions[:T] if cfg.position_scale == 1.0 else cfg.position_scale * self.positions[:T])
        elif cfg.positions == "learned":
            h = h + self.learned_positions[:, :, :T]
        patterns = []
        for i, block in enumerate(self.blocks):
            bias = score_bias if (bias_layers == "all" or i == 0) else None
            h, pattern = block(h, last_only=last_only and i == len(self.blocks) - 1, score_bias=bias)
            patterns.append(pattern)
        h = self.ln_f(h)
        read = h.mean(dim=2, keepdim=True) if cfg.readout == "mean" else h[:, :, -1:, :]  # (E, n, 1, d_model)
        y = self.readout(read)[:, :, 0, :]  # (E, n, output_dim)
        return (y, patterns) if return_attention else y
