"""How fast this host multiplies matrices, measured once per process (issue 62): the one-thread matmul rate in float32
and in bfloat16, in GFLOP/s. Hosts differ widely: an Intel CPU with AMX ran a 1024² bfloat16 matmul about 5× faster
than float32, an AMD EPYC without bfloat16 units about 60× slower. Each stored run records its host's rates
(`sweep`), the estimate scales a stored run's seconds by them (`estimate`), and a bfloat16 run is refused where
bfloat16 is the slower precision (`check_precision`)."""

from __future__ import annotations

import os
import time
from functools import lru_cache

from .checks import ConfigError

SIZE = 512  # a 512² matmul: 0.27 GFLOP, a few ms in float32 on any host we have seen
BUDGET_S = 0.15  # seconds spent timing each precision, at most (plus one multiplication)
# The rates of the host that stored the runs before runs recorded their own (an Intel Xeon with AMX, where most of
# data/ was computed): measured there at 131-159 GFLOP/s in float32 and 690 in bfloat16 for a 1024² one-thread matmul
# (issue 62). A run stored without rates is priced as if from that host.
DEFAULT_RATES = {"float32": 145.0, "bfloat16": 690.0}
RATES_ENV = "EMERGENCE_HOST_RATES"  # "float32=38.7,bfloat16=0.6": tests, and a user who measured elsewhere


def _time_one(dtype_name: str) -> float:
    import torch

    dtype = getattr(torch, dtype_name)
    a = torch.randn(SIZE, SIZE).to(dtype)
    b = torch.randn(SIZE, SIZE).to(dtype)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        a[:64, :64] @ b[:64, :64]  # warm-up: the kernels load (a full-size one costs a third of a second without bf16 units)
        # The rate per second of this thread's CPU time, not of wall time: a host busy with other work (two runs on
        # two cores) gives this thread part of its time, and a wall-clock rate read a third to a half low under
        # such load, moving every price with the neighbours. Runs record their CPU seconds too (`executors`).
        n, start, cpu_start = 0, time.perf_counter(), time.thread_time()
        while True:
            a @ b
            n += 1
            if time.perf_counter() - start >= BUDGET_S or n >= 200:
                break
        spent = max(time.thread_time() - cpu_start, 1e-9)
    finally:
        torch.set_num_threads(threads)
    return 2 * SIZE ** 3 * n / spent / 1e9


def _from_env(value: str) -> dict[str, float]:
    try:
        rates = {k.strip(): float(v) for k, v in (p.split("=") for p in value.split(","))}
    except ValueError:
        raise ConfigError(f"{RATES_ENV} must read like 'float32=38.7,bfloat16=0.6' (GFLOP/s), got {value!r}") from None
    if set(rates) != {"float32", "bfloat16"} or not all(0 < v < 1e6 for v in rates.values()):
        raise ConfigError(f"{RATES_ENV} must give float32 and bfloat16 rates in (0, 1e6) GFLOP/s, got {value!r}")
    return rates


@lru_cache(maxsize=1)
def _measured() -> tuple[tuple[str, float], ...]:
    return tuple((p, round(_time_one(p), 2)) for p in ("float32", "bfloat16"))


def matmul_rates() -> dict[str, float]:
    """This host's one-thread matmul rates, {"float32": GFLOP/s, "bfloat16": GFLOP/s}: ``$EMERGENCE_HOST_RATES``
    where set, else measured once per process (about a third of a second)."""
    value = os.environ.get(RATES_ENV)
    return _from_env(value) if value else dict(_measured())


def rates_of(meta: dict, here: dict[str, float] | None = None) -> tuple[dict[str, float], bool]:
    """The rates of the host that stored a run, and whether it recorded them. A run stored before runs recorded their
    rates counts as from the host it names (``meta.machine``): this one's (``here``) where that is this machine, else
    `DEFAULT_RATES`'s (stated)."""
    from .reproduce import machine_fingerprint

    rates = meta.get("matmul_gflops")
    if isinstance(rates, dict) and all(isinstance(rates.get(p), (int, float)) and rates[p] > 0 for p in DEFAULT_RATES):
        return {p: float(rates[p]) for p in DEFAULT_RATES}, True
    if here is not None and meta.get("machine") == machine_fingerprint():
        return dict(here), False
    return dict(DEFAULT_RATES), False


def describe(rates: dict[str, float]) -> str:
    return f"float32 {rates['float32']:.3g}, bfloat16 {rates['bfloat16']:.3g} GFLOP/s (one thread)"


def check_precision(configs: list) -> None:
    """Refuse, before any compute, bfloat16 runs on a host where bfloat16 matmuls are slower than float32 ones: one
    line naming both rates and the float32 alternative (exit 2 from the command line)."""
    slow = [c for c in configs if getattr(c, "precision", "float32") == "bfloat16"]
    if not slow:
        return
    rates = matmul_rates()
    if rates["bfloat16"] < rates["float32"]:
        raise ConfigError(f"{len(slow)} bfloat16 run{'s' if len(slow) > 1 else ''} refused: this host multiplies "
                          f"in bfloat16 at {rates['bfloat16']:.3g} GFLOP/s against {rates['float32']:.3g} in float32 "
                          "(no bfloat16 units), so they would run slower than float32 ones; run them where bfloat16 "
                          "is faster, or use the float32 reading (precision='float32')")
