"""How a recomputed run is compared with its stored file (`cache`'s contract that it never serves results of other
code): exactly on the machine that stored it, else to a tolerance measured per kind across CPUs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from .results import RunResult

# How closely a run recomputed on *another* CPU must match its stored file: measured per kind by
# ``bench/cross_cpu_tolerance.py``, which recomputes stored runs under other instruction sets (AVX2, SSE4.2) and the
# runs stored on other machines, and writes ten times the largest relative difference each kind needed. On the machine
# that stored a run it is bit-identical (exact). A kind whose tolerance reaches `DISCERNS_CODE` could not tell a
# change of code apart there (the regression sampler's fix moved a plateau by 35%; a bumped kind version is the
# rule for smaller ones), so its runs are recomputed only on a CPU like the one that stored them (`reproduce_rtol`
# gives None elsewhere): recall's accuracies, counted over 256 examples, flip a count on another CPU.
DISCERNS_CODE = 0.1


def _measured_tolerances() -> dict[str, float]:
    path = Path(__file__).with_name("cross_cpu_tolerance.json")
    return {kind: float(entry["tolerance"]) for kind, entry in json.loads(path.read_text())["kinds"].items()}


REPRODUCE_RTOL: dict[str, float] = _measured_tolerances()


def machine_fingerprint() -> str:
    """What decides a run's floating-point rounding on this machine: architecture, CPU model and its feature flags."""
    import platform

    model, flags = "", ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if not model and line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            elif not flags and line.startswith("flags"):
                flags = " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:  # not Linux: the processor string is what there is
        model = platform.processor()
    digest = hashlib.sha256(f"{platform.machine()}|{model}|{flags}".encode()).hexdigest()[:12]
    return f"{platform.machine()} {model or 'unknown CPU'} [{digest}]"


def reproduce_rtol(kind: str, stored_meta: dict[str, Any]) -> float | None:
    """0 (exact) when the stored run was computed on a CPU like this one, else the kind's measured `REPRODUCE_RTOL`,
    or None where that is too wide to tell a change of code apart (`DISCERNS_CODE`): not comparable here.

    The device decides first: a run computed on a GPU records the fingerprint of the CPU host that launched it, but
    no CPU computed its numbers, so it is never asked to match exactly, whatever its ``machine`` says."""
    if str(stored_meta.get("device", "cpu")) == "cpu" and stored_meta.get("machine") == machine_fingerprint():
        return 0.0
    return REPRODUCE_RTOL[kind] if REPRODUCE_RTOL[kind] < DISCERNS_CODE else None


def differences(stored: RunResult, fresh: RunResult, ignore: tuple[str, ...] = ("seconds", "device"),
                rtol: float = 0.0) -> list[str]:
    """Where two results of one config differ (NaN equals NaN); [] if they agree.

    ``rtol`` 0 asks for identical values; above 0, floats may differ by that much relative to the stored value
    (plus 1e-12 absolute, for values at zero). Everything else (flags, statuses, curve lengths) must be equal.
    ``ignore`` lists summary fields that describe where and how fast a run went, not what it computed.
    """
    def same(a: Any, b: Any) -> bool:
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return a == b
        if a != a and b != b:  # NaN
            return True
        return a == b or (rtol > 0 and bool(np.isclose(b, a, rtol=rtol, atol=1e-12)))

    out = []
    for key in sorted(set(stored.summary) | set(fresh.summary)):
        if key in ignore:
            continue
        a, b = stored.summary.get(key), fresh.summary.get(key)
        if not same(a, b):
            out.append(f"summary {key}: stored {a!r}, recomputed {b!r}")
    if set(stored.curve) != set(fresh.curve):
        out.append(f"curve columns: stored {sorted(stored.curve)}, recomputed {sorted(fresh.curve)}")
    for key in sorted(set(stored.curve) & set(fresh.curve)):
        a, b = np.asarray(stored.curve[key], dtype=float), np.asarray(fresh.curve[key], dtype=float)
        if a.shape != b.shape:
            out.append(f"curve {key}: differs")
            continue
        close = np.isclose(b, a, rtol=rtol, atol=1e-12, equal_nan=True) if rtol > 0 else (a == b) | (np.isnan(a) & np.isnan(b))
        if not close.all():
            out.append(f"curve {key}: differs at {int((~close).sum())} of {a.size} points")
    return out
