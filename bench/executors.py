"""The same cpu-scale sweep through the serial, local and dask executors: wall-time ratios measured in one run.

    .venv/bin/python bench/executors.py      (or: make bench)

The sweep is eight full-gradient-descent runs of the toy model (one chunk each),
the kind of sweep Figure 2's constant investigation runs. Each executor writes
into its own fresh cache, so every run is computed.
"""

from __future__ import annotations

import sys
import tempfile
import time

from emergence_lib.cache import ResultCache
from emergence_lib.configs import ToyFullGDConfig
from emergence_lib.sweep import run_sweep

CONFIGS = [ToyFullGDConfig(T=2048, d=32, p=p, lr=1.0, t_max=100_000.0, seed=s) for p in (0.0, 0.2) for s in range(4)]


TINY = [ToyFullGDConfig(T=32, d=4, p=p, lr=1.0, t_max=50.0, seed=s) for p in (0.0, 0.2) for s in range(2)]


def main(tiny: bool = False) -> None:
    """``tiny`` (``--tiny``): four small runs, so that the test suite runs the benchmark end to end."""
    configs = TINY if tiny else CONFIGS
    times = {}
    for executor in ("serial", "local", "dask"):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            result = run_sweep(configs, ResultCache(tmp), executor=executor, progress=False)
            times[executor] = time.perf_counter() - t0
            assert result.n_computed == len(configs)
    print(f"{len(configs)} runs: " + ", ".join(f"{k} {v:.1f}s" for k, v in times.items()))
    print(f"speed-up over serial: local {times['serial'] / times['local']:.2f}x, dask {times['serial'] / times['dask']:.2f}x"
          " (process start-up included)")


if __name__ == "__main__":
    main(tiny="--tiny" in sys.argv[1:])
