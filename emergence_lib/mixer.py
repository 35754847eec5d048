"""A small MLP-Mixer for single-location regression (chapter B3: a follow-up's claim that token mixing by an MLP
learns a positional task faster than attention).

Same ensemble layout as `transformer.EnsembleTransformer` (a leading dimension E, one member per seed), the same
linear embedding and readout at the last position, the same width ``d_model`` and MLP factor. Each block replaces
attention by a *token-mixing* MLP over the T positions, applied to every channel alike (hidden width ``d_model``),
followed by the usual channel MLP; both are residual. There are no position encodings: the token-mixing weights are
indexed by position already. LayerNorm is pre-LN when the config asks for it (the Transformer's choice), else none.

A token-mixing MLP sees one channel across positions, so it can pick a *fixed* position with a linear map; a
position marked by content (the relevance feature) needs the nonlinearity to gate each position by its feature
channel, which a ReLU/GELU hidden unit can do (ReLU(x_t + K f_t − K) is x_t at the flagged position, 0 elsewhere).
Whether training finds it is what the chapter measures.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .configs import ConfigError
from .transformer import EnsembleLayerNorm, EnsembleLinear, TransformerConfig


class MixerBlock(nn.Module):
    def __init__(self, cfg: TransformerConfig, T: int, E: int, gens: list[torch.Generator]):
        super().__init__()
        D = cfg.d_model
        self.token_in = EnsembleLinear(E, T, D, gens)  # mixes positions: (…, T) → (…, D hidden)
        self.token_out = EnsembleLinear(E, D, T, gens)
        self.mlp_in = EnsembleLinear(E, D, cfg.mlp_factor * D, gens) if cfg.mlp_factor else None
        self.mlp_out = EnsembleLinear(E, cfg.mlp_factor * D, D, gens) if cfg.mlp_factor else None
        norm = cfg.layer_norm == "pre"
        self.ln1 = EnsembleLayerNorm(E, D) if norm else nn.Identity()
        self.ln2 = EnsembleLayerNorm(E, D) if norm and cfg.mlp_factor else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (E, n, T, D)
        u = self.ln1(x).transpose(2, 3)  # (E, n, D, T): one row per channel
        x = x + self.token_out(F.gelu(self.token_in(u))).transpose(2, 3)  # (E, n, T, D)
        if self.mlp_in is not None:
            assert self.mlp_out is not None  # built together with mlp_in
            x = x + self.mlp_out(F.gelu(self.mlp_in(self.ln2(x))))
        return x


class EnsembleMixer(nn.Module):
    """E MLP-Mixers, one per seed. Input (E, n, T, input_dim) → prediction (E, n, output_dim); T is fixed
    (``cfg.max_len``). ``n_heads`` and ``d_qk`` of the config are not used."""

    def __init__(self, cfg: TransformerConfig, seeds: list[int]):
        super().__init__()
        self.cfg, self.T = cfg, cfg.max_len
        E = len(seeds)
        gens = [torch.Generator().manual_seed(7_919 * s + 1) for s in seeds]
        self.embed = EnsembleLinear(E, cfg.input_dim, cfg.d_model, gens)
        self.blocks = nn.ModuleList([MixerBlock(cfg, self.T, E, gens) for _ in range(cfg.n_layers)])
        self.ln_f = EnsembleLayerNorm(E, cfg.d_model) if cfg.layer_norm == "pre" else nn.Identity()
        self.readout = EnsembleLinear(E, cfg.d_model, cfg.output_dim, gens)
        if cfg.readout_init == "zero":  # as the Transformer: the untrained model predicts 0
            with torch.no_grad():
                self.readout.weight.zero_()
                self.readout.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[2] != self.T:
            raise ConfigError(f"an MLP-Mixer takes sequences of its own length T={self.T}, got {x.shape[2]}")
        h = self.embed(x)  # (E, n, T, D)
        for block in self.blocks:
            h = block(h)
        return self.readout(self.ln_f(h)[:, :, -1:, :])[:, :, 0, :]  # (E, n, output_dim)
