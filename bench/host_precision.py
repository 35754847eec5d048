"""This host's matmul rates and the paper's model's step in both precisions, measured in one run (make bench; issue 62).

Prints:
1. the one-thread matmul rate in float32 and in bfloat16 (`host.matmul_rates`, what each stored run records and the
   estimate scales by), and their ratio;
2. the paper's model (Table 1: 2 × 4, width 256, QK 64, Adam 1e-4, batch 32, d = 16) at T = 64 and T = 256: the
   seconds of one training step (the library's own step, `training.RegressionTraining`) in float32 and under the
   bfloat16 reading (autocast of the forward pass), and bfloat16's ratio. Best of a few steps each, after one warm-up,
   alternating the precisions so that load on the machine hurts both alike.

Why bfloat16 can be slower: on a CPU without bfloat16 units (no AMX, no AVX-512 BF16; `lscpu` lists neither flag)
PyTorch's bfloat16 matmuls run through a conversion path, and a training step spends most of its time in matmuls
(addmm, bmm), so the step slows by about the matmul ratio times the share of the step in matmuls. On a CPU with AMX
the same matmuls run several times faster than float32's.
"""

from __future__ import annotations

import sys
import time

import torch

from emergence_lib.configs import TransformerRegressionConfig
from emergence_lib.host import _time_one
from emergence_lib.training import RegressionTraining


def step_seconds(T: int, dtype: str, repeats: int, width: int = 256) -> float:
    c = TransformerRegressionConfig(T=T, d=16, d_model=width, d_qk=width // 4, lr=1e-4, max_steps=10, seed=0,
                                    precision=dtype)
    training = RegressionTraining(c, [c.seed], "cpu")
    optimizer = torch.optim.Adam(training.model.parameters(), lr=c.lr)
    best = float("inf")
    for i in range(repeats + 1):  # the first is a warm-up
        start = time.perf_counter()
        loss = training.train_loss(None)  # the bfloat16 reading's autocast is inside, as in a run
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if i:
            best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    torch.set_num_threads(1)
    # --tiny (the tests): the same measurements at a width of 32 and T = 8, 16, in seconds rather than a minute (a
    # bfloat16 step of the paper's model at T = 256 takes tens of seconds on a host without bfloat16 units).
    tiny = "--tiny" in sys.argv[1:]
    f32, bf16 = _time_one("float32"), _time_one("bfloat16")
    print(f"1. one-thread matmul rate: float32 {f32:.3g} GFLOP/s, bfloat16 {bf16:.3g} GFLOP/s "
          f"(bfloat16 {bf16 / f32:.3g}x float32's)")
    width, model = (32, "a width-32 model") if tiny else (256, "the paper's model")
    for T in (8, 16) if tiny else (64, 256):
        repeats = 3 if bf16 >= f32 / 4 else 1  # a bfloat16 step can take minutes where it is slow
        a, b = step_seconds(T, "float32", repeats, width), step_seconds(T, "bfloat16", repeats, width)
        print(f"2. {model}, T = {T}: a step takes {a:.3g} s in float32, {b:.3g} s in bfloat16: "
              f"bfloat16 {a / b:.3g}x as fast")


if __name__ == "__main__":
    main()
