"""Speed of the cpu-scale Transformer, measured in one run (make bench).

Prints:
1. training steps/s of the cpu-scale model (Figure 3's, at T = 64, d = 16), one model;
2. its achieved FLOP/s as a fraction of a large matmul's FLOP/s on this machine (same threads);
3. the ratio of batched-seeds training (one ensemble model) to a one-model-at-a-time loop.
"""

from __future__ import annotations

import time

import torch

from emergence_lib.experiments import TRANSFORMER_SCALES
from emergence_lib.tasks import SingleLocationRegression, sample_ensemble
from emergence_lib.training import _mse
from emergence_lib.transformer import EnsembleTransformer, TransformerConfig


def steps_per_second(seeds: list[int], T: int, d: int, steps: int, model_kw: dict, lr: float) -> float:
    tasks = [SingleLocationRegression(T, d, task_seed=s) for s in seeds]
    gens = [torch.Generator().manual_seed(s) for s in seeds]
    model = EnsembleTransformer(TransformerConfig(input_dim=d + 1, output_dim=d, max_len=T, **model_kw), seeds)
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def step() -> None:
        x, y = sample_ensemble(tasks, 32, gens)
        loss = _mse(model(x), y).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for _ in range(5):
        step()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return steps / (time.perf_counter() - t0)


def training_flops(T: int, d: int, d_model: int, d_qk: int, n_layers: int, n_heads: int, mlp_factor: int, batch: int = 32) -> float:
    """Forward + backward ≈ 3 × forward matmul FLOPs of one step (2 per multiply-add)."""
    tokens = batch * T
    per_layer = 2 * tokens * d_model * (2 * n_heads * d_qk + d_model)  # q, k, v projections
    per_layer += 2 * tokens * d_model * d_model  # output projection
    per_layer += 2 * batch * n_heads * T * T * (d_qk + d_model // n_heads)  # scores and weighted values
    per_layer += 2 * 2 * tokens * d_model * mlp_factor * d_model  # MLP
    forward = n_layers * per_layer + 2 * tokens * (d + 1) * d_model + 2 * batch * d_model * d
    return 3.0 * forward


def matmul_flops_per_second(n: int = 1024, repeat: int = 20) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    t0 = time.perf_counter()
    for _ in range(repeat):
        a @ b
    return 2 * n**3 * repeat / (time.perf_counter() - t0)


def main() -> None:
    g = TRANSFORMER_SCALES["cpu"]
    model_kw = dict(d_model=g["model"]["d_model"], d_qk=g["model"]["d_qk"], n_layers=2, n_heads=4, mlp_factor=4)
    T, d, steps = 64, 16, 60
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); cpu-scale model {model_kw}, T={T}, d={d}, batch 32")
    one = steps_per_second([0], T, d, steps, model_kw, g["lr"])
    peak = matmul_flops_per_second()
    achieved = one * training_flops(T, d, **model_kw)
    print(f"1. one model: {one:.1f} steps/s")
    print(f"2. achieved {achieved / 1e9:.1f} GFLOP/s vs a 1024² matmul's {peak / 1e9:.1f} GFLOP/s: {achieved / peak:.2f} of it")
    threads = torch.get_num_threads()
    for n_seeds in (2, 5):
        seeds = list(range(n_seeds))
        for t in sorted({1, threads}):
            torch.set_num_threads(t)
            batched = steps_per_second(seeds, T, d, steps, model_kw, g["lr"])
            loop = 1.0 / sum(1.0 / steps_per_second([s], T, d, steps, model_kw, g["lr"]) for s in seeds)
            print(f"3. {n_seeds} seeds, {t} thread(s): batched {batched:.1f} steps/s vs loop {loop:.1f} steps/s:"
                  f" batched/loop = {batched / loop:.2f}x")
    torch.set_num_threads(threads)


if __name__ == "__main__":
    main()
