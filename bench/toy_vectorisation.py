"""Is vectorising over configurations and seeds faster than a loop? Prints ratios measured in one run.

    .venv/bin/python bench/toy_vectorisation.py      (or: make bench)

1. The reduced flow for the Figure 1c grid (20 configurations): one vectorised call vs a loop of 20 calls.
2. SGD on sampled data (Figure 9 at cpu scale, T = d = 128), 5 seeds: one batched tensor vs a loop over seeds.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import torch

from emergence_lib.toy import reduced_flow
from emergence_lib.toy_sgd import sgd_train


def timed(fn, repeat: int = 3) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(tiny: bool = False) -> None:
    """``tiny`` (``--tiny``): small sizes, so that the test suite runs the benchmark end to end."""
    T = np.repeat([16, 32], 2) if tiny else np.repeat([256, 512, 1024, 2048, 4096], 4)
    d = np.tile([4, 8], 2) if tiny else np.tile([16, 32, 64, 128], 5)
    t_max = 1.5 * 1.5 * np.sqrt(d) * T
    vec = timed(lambda: reduced_flow(T, d, t_max=t_max, stop_below=0.05))
    loop = timed(lambda: [reduced_flow(T[i], d[i], t_max=t_max[i], stop_below=0.05) for i in range(len(T))])
    print(f"reduced flow, {len(T)} configs: vectorised {vec:.3f}s, loop {loop:.3f}s  -> loop/vectorised = {loop / vec:.1f}x")

    seeds, steps = ([0, 1], 5) if tiny else ([0, 1, 2, 3, 4], 150)
    kw = dict(T=16 if tiny else 128, d=4 if tiny else 128, t_max=float(steps), record_every=steps)
    for threads in (1, torch.get_num_threads()):
        torch.set_num_threads(threads)
        vec = timed(lambda: sgd_train(seeds=seeds, **kw), repeat=2)
        loop = timed(lambda: [sgd_train(seeds=[s], **kw) for s in seeds], repeat=2)
        print(f"SGD T=d=128, {len(seeds)} seeds x {steps} steps, {threads} thread(s): batched {vec:.2f}s, loop {loop:.2f}s"
              f"  -> loop/batched = {loop / vec:.2f}x")


if __name__ == "__main__":
    main(tiny="--tiny" in sys.argv[1:])
