"""How far a stored run moves when recomputed on another CPU: measured per kind, written to
``emergence_lib/cross_cpu_tolerance.json``, which `cache.REPRODUCE_RTOL` reads.

    .venv/bin/python bench/cross_cpu_tolerance.py [--runs 3]      (about 20 minutes on one core)

Another CPU rounds differently because its kernels take other SIMD paths. This machine can take those paths too:
each chosen stored run of each kind is recomputed in a fresh process, on one thread, under three instruction sets
(every library told to use it: torch's own kernels, MKL, oneDNN, OpenBLAS and numpy's):

    native   what this machine chooses (AVX-512 with AMX here): the control, exact for runs stored here
    avx2     an AVX2 machine (most AMD EPYC and older Intel servers)
    sse      a machine with SSE4.2 only: the lowest baseline numpy supports

For each run the relative difference needed for the recompute to pass (`needed_rtol`: the largest |new − stored| /
|stored| over the summary's numbers and every curve point, beyond 1e-12 absolute; infinite if a curve's length or a
flag changed). A kind's tolerance is ten times the largest it needs (at least `FLOOR`), so a CPU a little further off
than these still passes; `cache.DISCERNS_CODE` says where a tolerance is too wide to tell a change of code apart.

    --retolerance   recompute the tolerances of the written file from its measurements (after a change of rule)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "emergence_lib" / "cross_cpu_tolerance.json"
AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"
SETTINGS = {
    "native": {},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2",
             "OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": AVX512},
    "sse": {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41",
            "OPENBLAS_CORETYPE": "Nehalem", "NPY_DISABLE_CPU_FEATURES": "X86_V3 " + AVX512},
}
SAFETY = 10.0


def needed_rtol(stored: dict, fresh: dict) -> float:
    """The smallest relative tolerance under which ``fresh`` passes `cache.differences` against ``stored``."""
    worst = 0.0
    for key in set(stored["summary"]) | set(fresh["summary"]):
        if key in ("seconds", "device"):
            continue
        a, b = stored["summary"].get(key), fresh["summary"].get(key)
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            if a != b:
                return math.inf
            continue
        worst = max(worst, _relative(np.array([a], float), np.array([b], float)))
    if set(stored["curve"]) != set(fresh["curve"]):
        return math.inf
    for key in stored["curve"]:
        a, b = np.asarray(stored["curve"][key], float), np.asarray(fresh["curve"][key], float)
        if a.shape != b.shape:
            return math.inf
        worst = max(worst, _relative(a, b))
    return worst


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    if (np.isnan(a) ^ np.isnan(b)).any() or (np.isinf(a) ^ np.isinf(b)).any():
        return math.inf
    keep = np.isfinite(a) & np.isfinite(b)  # NaN beside NaN, inf beside the same inf: equal
    if (a[~keep] != b[~keep]).any() and not np.isnan(a[~keep]).all():
        return math.inf
    gap = np.abs(b[keep] - a[keep])
    scale = np.abs(a[keep])
    beyond = gap > 1e-12
    return float((gap[beyond] / np.maximum(scale[beyond], 1e-300)).max()) if beyond.any() else 0.0


MAX_SECONDS = 60.0  # a run recomputed three times costs three times this


def chosen_runs(kind: str, n: int) -> list[Path]:
    """``n`` runs of ``kind`` stored from a CPU, spread over their cost up to `MAX_SECONDS` (a longer run carries a
    rounding difference through more steps, so the longest affordable ones matter most): the cheapest, the dearest
    under the cap, and between them evenly. The toy models record no seconds: their size T × d stands for it."""
    files = []
    for path in sorted((ROOT / "data" / kind).glob("*.json")):
        record = json.loads(path.read_text())
        if str(record["meta"].get("device", "cpu")) != "cpu":
            continue
        c, s = record["config"], record["summary"]
        cost = s.get("seconds") or c.get("T", 1) * c.get("d", 1) / 1000
        if cost <= MAX_SECONDS:
            files.append((cost, path.name, path))
    files.sort()
    picks = sorted({round(i * (len(files) - 1) / max(n - 1, 1)) for i in range(n)})
    return [files[i][2] for i in picks]


def worker(out: str, paths: list[str]) -> None:
    """In a fresh process (so the instruction set chosen at import holds): recompute each stored run, one thread."""
    import torch

    from emergence_lib.configs import config_from_stored
    from emergence_lib.runs import runner_for

    torch.set_num_threads(1)
    results = {}
    for p in paths:
        record = json.loads(Path(p).read_text())
        config = config_from_stored(record["kind"], record["config"])
        r = runner_for(record["kind"])([config], device="cpu")[0]
        results[p] = {"summary": {k: (v.item() if hasattr(v, "item") else v) for k, v in r.summary.items()},
                      "curve": {k: np.asarray(v, float).tolist() for k, v in r.curve.items()},
                      "capability": torch.backends.cpu.get_cpu_capability()}
    Path(out).write_text(json.dumps(results, allow_nan=True))


def measure(n: int, kinds: list[str] | None = None) -> dict:
    kinds = kinds or sorted(p.name for p in (ROOT / "data").iterdir() if p.is_dir())
    report: dict = {"settings": {k: v or "this machine's own choice" for k, v in SETTINGS.items()}, "kinds": {}}
    for kind in kinds:
        paths = [str(p) for p in chosen_runs(kind, n)]
        per_setting = {}
        for name, env in SETTINGS.items():
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                t0 = time.perf_counter()
                subprocess.run([sys.executable, __file__, "--worker", tmp.name, *paths], check=True,
                               env=os.environ | env | {"OMP_NUM_THREADS": "1"})
                fresh = json.loads(Path(tmp.name).read_text())
            needs = [needed_rtol(json.loads(Path(p).read_text()), fresh[p]) for p in paths]
            per_setting[name] = {"needed_rtol": needs, "torch_capability": fresh[paths[0]]["capability"]}
            print(f"{kind:24s} {name:7s} needs rtol {max(needs):.2e} over {len(paths)} runs "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        worst = max(max(s["needed_rtol"]) for s in per_setting.values())
        report["kinds"][kind] = {"runs": [Path(p).name for p in paths], "by_setting": per_setting,
                                 "largest_needed": worst, "tolerance": _tolerance(worst)}
    return report


FLOOR = 1e-10  # where nothing moved (the float64 toy flows): float64 rounding carried through ~1e4 steps, and libm's
# exp differs between C libraries, which no instruction-set switch here reaches


def _tolerance(worst: float) -> float:
    """Ten times the largest relative difference measured, rounded up to 1, 2 or 5 × a power of ten; at least FLOOR."""
    target = max(SAFETY * worst, FLOOR)
    exponent = math.floor(math.log10(target))
    return next(m * 10.0 ** exponent for m in (1, 2, 5, 10) if m * 10.0 ** exponent >= target * (1 - 1e-12))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="stored runs of each kind to recompute (default 3)")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--retolerance", action="store_true", help="recompute the tolerances from the measurements")
    parser.add_argument("--tiny", action="store_true", help="one toy-flow run, nothing written (the test suite's run)")
    args = parser.parse_args()
    if args.tiny:
        report = measure(1, ["toy_reduced_flow"])
        print("tiny: " + ", ".join(f"{k} needs {v['largest_needed']:.2g}" for k, v in report["kinds"].items()))
        return
    if args.retolerance:
        report = json.loads(OUT.read_text())
        for entry in report["kinds"].values():
            entry["tolerance"] = _tolerance(entry["largest_needed"])
        OUT.write_text(json.dumps(report, indent=1) + "\n")
        return
    if args.worker:
        worker(args.worker[0], args.worker[1:])
        return
    from emergence_lib.cache import machine_fingerprint

    report = measure(args.runs)
    report["measured_on"] = machine_fingerprint()
    report["date"] = time.strftime("%Y-%m-%d")
    OUT.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}: " + ", ".join(f"{k} {v['tolerance']:g}" for k, v in report["kinds"].items()))


if __name__ == "__main__":
    main()
