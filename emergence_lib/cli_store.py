"""The store's maintenance verbs of the command line (`cli`): verify, prune, migrate and upgrade-checkpoints, and
the checks every verb shares (a figure's name and scale, the store's existence)."""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from typing import Any, cast

from . import checkpoints, checkpoints_legacy
from .cache import REPRODUCE_RTOL, CacheError, ResultCache, differences, kind_version, reproduce_rtol, run_key
from .configs import RUN_CONFIGS, SCALES, ConfigError, Scale, check_scale
from .devices import cpu_threads
from .experiments import figures
from .migrations import migrate
from .removal import remove_all
from .results import RunResult
from .runs import runner_for


def _figure(name: str, scale: Scale) -> Any:
    known = figures()
    if name not in known:
        raise ConfigError(f"unknown figure {name!r}; known figures: {', '.join(known)}")
    check_scale(scale)
    if scale == "smoke":
        raise ConfigError(f"scale 'smoke' is never cached; use one of {SCALES[1:]} here")
    return known[name](scale=scale)


def cmd_verify(args: argparse.Namespace) -> int:
    """Check every stored run of the figure against the checksum written with it, then recompute a sample of
    them (each alone, on the CPU) and compare: exactly if the run was stored on a machine like this one, else to
    the rounding another CPU can cause (`cache.REPRODUCE_RTOL`). Prints each bad file by name; exit status 1 if any."""
    if args.sample < 0:
        raise ConfigError(f"--sample must be an integer ≥ 0 (how many stored runs to recompute), got {args.sample}")
    if args.figure is None:  # every stored file, whichever figure needs it: checksums only, nothing recomputed
        n, corrupt = _store_exists().check_all()
        for line in corrupt:
            print(f"corrupt: {line}")
        print(f"{n} stored files checked against their checksums: {n - len(corrupt)} intact, {len(corrupt)} bad")
        return 1 if corrupt else 0
    fig = _figure(args.figure, args.scale)
    cache = _store_exists()
    runs = sorted({run_key(r): r for r in fig.runs()}.items())
    stored, missing, bad = [], 0, 0
    for _, run in runs:
        path = cache.path(run)
        if not path.exists():
            missing += 1
            continue
        try:
            cache.load(run)
        except CacheError as exc:
            bad += 1
            print(f"corrupt: {exc}")
            continue
        stored.append(run)
    # A run trained on a GPU rounds differently at every step, and its trajectory is not a CPU's to the last digit:
    # it is checked against its checksum above, but not recomputed here (a GPU machine's verify recomputes it).
    on_gpu = [r for r in stored if str(json.loads(cache.path(r).read_text()).get("meta", {}).get("device", "cpu")).startswith(("cuda", "mps"))]
    comparable = [r for r in stored if r not in on_gpu]
    sample = random.Random(args.seed).sample(comparable, min(args.sample, len(comparable)))
    rtols = {run_key(r): reproduce_rtol(r.kind, json.loads(cache.path(r).read_text()).get("meta", {})) for r in sample}
    for run in [r for r in sample if rtols[run_key(r)] is None]:  # moves across CPUs more than a change of code would
        print(f"not comparable here: {cache.path(run)} was stored on another CPU, and {run.kind} runs move by up to "
              f"{REPRODUCE_RTOL[run.kind] / 10:.2g} across CPUs (measured): recompute it on a CPU like that one")
    apart, sample = len(sample), [r for r in sample if rtols[run_key(r)] is not None]
    differ, threads, apart = 0, cpu_threads(1), apart - len(sample)  # one thread, as every run was computed
    fresh_runs = [runner_for(run.kind)([run], device="cpu")[0] for run in sample]  # (an error ends the command)
    cpu_threads(threads)
    for run, fresh in zip(sample, fresh_runs):
        diff = differences(cast(RunResult, cache.load(run)), fresh, rtol=cast(float, rtols[run_key(run)]))
        if diff:
            differ += 1
            print(f"differs from its code: {cache.path(run)}: {'; '.join(diff[:3])}")
    print(f"{args.figure} {args.scale}: {len(runs)} runs, {len(stored)} stored and readable, "
          f"{missing} missing, {bad} corrupt; "
          f"recomputed {len(sample)}: {len(sample) - differ} identical (or within another CPU's rounding), {differ} differ"
          + (f"; {apart} not comparable on this CPU" if apart else "")
          + (f"; {len(on_gpu)} stored from a GPU, checked by checksum only" if on_gpu else ""))
    return 1 if bad or differ else 0


def cmd_prune(args: argparse.Namespace) -> None:
    """Remove stored runs of older code, files no run can reach, and leftovers of interrupted writes; never the
    runs of a newer checkout sharing this store."""
    plan = _store_exists().prune_plan({kind: kind_version(cls) for kind, cls in RUN_CONFIGS.items()})
    gone = plan["older"] + plan["unreachable"] + plan["leftover"]
    if not args.dry_run:
        remove_all(gone)
    by_kind = Counter(path.parent.name for path in plan["older"])
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {len(plan['older'])} stored runs of older code" + "".join(f"; {n} of {k}" for k, n in sorted(by_kind.items())))
    if plan["unreachable"] or plan["leftover"]:
        print(f"{verb} {len(plan['unreachable'])} files whose name is not their config's key (no run can reach them) "
              f"and {len(plan['leftover'])} leftovers of interrupted writes")
    if plan["newer"]:
        print(f"kept {len(plan['newer'])} stored runs of newer code (another checkout's; update this one to use them)")
    if plan["damaged"]:
        print(f"kept {len(plan['damaged'])} files whose checksum fails (edited or damaged; `python -m emergence_lib "
              f"verify` names them), e.g. {plan['damaged'][0]}")


def cmd_migrate(args: argparse.Namespace) -> None:
    _store_exists()
    from .migrations import seal_records

    moved = migrate(dry_run=args.dry_run)
    for name, n in sorted(Counter(name for name, _, _ in moved).items()):
        print(f"{'would re-key' if args.dry_run else 're-keyed'} {n} stored runs: {name}")
    sealed = seal_records(dry_run=True) if args.dry_run else []  # migrate() sealed them already
    if args.dry_run and sealed:
        print(f"would seal {len(sealed)} stored runs (a checksum over the whole record)")
    if not moved and not sealed:
        print("nothing to migrate" if args.dry_run else "nothing to re-key or seal (`python -m emergence_lib verify` "
              "checks every file's checksum)")


def cmd_upgrade_checkpoints(args: argparse.Namespace) -> None:
    """Checkpoints of the first format (no checksum), each checked against the run its name claims and rewritten."""
    cache = _store_exists()
    runs = {run_key(r): r for cls in figures().values() for scale in SCALES[1:] if cls.has_scale(scale)
            for rs in cls(scale=scale).sweeps().values() for r in rs}
    print("\n".join(checkpoints_legacy.upgrade_legacy(checkpoints.resume_folder(cache.root), runs))
          or "no checkpoint of the first format here: nothing to upgrade")


def _store_exists() -> ResultCache:
    """The store a whole-store verb reads; a mistyped $EMERGENCE_DATA_DIR, or no data/, is named, not read as empty."""
    cache = ResultCache()
    if not cache.root.is_dir():
        raise ConfigError(f"no store at {cache.root} (set EMERGENCE_DATA_DIR to a results folder, or run from the book's "
                          "checkout); nothing was checked")
    return cache
