"""Command line: python -m emergence_lib VERB ...

    run FIGURE [--scale cpu] [--executor local|serial|dask] [--workers N] [--scheduler ADDR] [--device auto] [--yes]
        compute what the figure's cache lacks (progress with a count of runs and an ETA). On a machine without a
        GPU the paper_cpu and paper scales first time every distinct shape and print an estimate of the CPU time
        (`estimate`), then run the missing runs cheapest first; the paper scale asks for --yes first
    status FIGURE [--scale cpu]
        what is cached and what is missing, per sweep
    clear FIGURE [--scale cpu] [--dry-run] [--force]
        remove the figure's cached runs at that scale that no other figure or scale needs
        (it lists the ones it keeps and why; --force removes those too)
    verify [FIGURE] [--scale cpu] [--sample N] [--seed S]
        check each stored run against its checksum, recompute N of them and compare (exactly on a CPU like the
        one that stored it, else to its kind's measured tolerance); bad files are named, exit status 1 if any.
        Without FIGURE: every file under data/ against its checksum, nothing recomputed
    upgrade-checkpoints
        check checkpoints of the first format against the runs their names claim, and rewrite them
    prune [--dry-run]
        remove stored runs of an older version of their kind (their code changed; no key can reach them)
    migrate [--dry-run]
        re-key stored runs whose config gained or retyped a field (see `migrations`); nothing is recomputed
    execute CHAPTER OUT [-p NAME VALUE ...]
        run a chapter with papermill parameters into the notebook OUT
    prepare --scale S --out DIR CHAPTER ...
        write chapters with the scale injected (papermill's parameters cell), without running them

FIGURE is a name from `experiments.figures()` (figure1, figure2, …). Bad input
(an unknown figure or scale, an unreachable scheduler) exits with status 2 and
one line that says what is allowed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, NoReturn, Sequence

from . import checkpoints, checkpoints_legacy
from .host import check_precision
from .cache import CacheError, ResultCache, run_key
from .configs import SCALES, ConfigError, check_scale
from .devices import resolve_device
from .estimate import Estimate, from_store
from .executors import EXECUTORS, check_executor
from .experiments import figures
from .notebooks import execute, parse_value, prepare
from .removal import remove_all
from .cli_store import _figure, _store_exists, cmd_migrate, cmd_prune, cmd_upgrade_checkpoints, cmd_verify
from .sweep import LONG_WORK_HOURS, run_sweep


def _executor(args: argparse.Namespace) -> str:
    """``--scheduler`` implies the Dask executor; with another executor it is refused, not ignored."""
    if args.scheduler is not None and args.executor not in (None, "dask"):
        raise ConfigError(f"--scheduler needs --executor dask (got --executor {args.executor}); drop one of them")
    return args.executor or ("dask" if args.scheduler is not None else "local")


def cmd_run(args: argparse.Namespace) -> None:
    args.executor = _executor(args)
    check_executor(args.executor, args.workers)  # before any estimate or --yes: a bad flag is reported at once
    fig = _figure(args.figure, args.scale)
    # From the command line a corrupt file is reported by name and recomputed, never used.
    cache = ResultCache(on_corrupt="recompute")
    if not cache.root.is_dir():  # a new store, or a mistyped $EMERGENCE_DATA_DIR: said before anything is made there
        print(f"no store at {cache.root} yet: a new store is made there (set EMERGENCE_DATA_DIR to use another)",
              flush=True)
    # Every sweep's missing (or unusable) runs can be stored, before the first one computes; a complete store that
    # is read-only is fine.
    cache.check_writable([r for r in {run_key(r): r for r in fig.runs()}.values()
                          if not cache.path(r).is_file() or cache.load(r) is None])
    device = resolve_device(args.device)  # once, before any compute; the sweeps get the resolved name
    if device == "cpu":  # bfloat16 runs where bfloat16 is the slower precision: refused before any estimate or compute
        check_precision([r for r in {run_key(r): r for r in fig.runs()}.values() if cache.load(r) is None])
    if args.scale in ("paper_cpu", "paper") and device != "cpu":
        # On a GPU every missing run goes in one sweep, in the figure's order: its chunks (seeds batched, one point
        # each) then run side by side on the workers, where a sweep a point would keep all but one worker idle.
        missing = [r for r in {run_key(r): r for r in fig.runs()}.values() if cache.load(r) is None]
        if missing:
            result = run_sweep(missing, cache, desc=f"{args.figure} {args.scale}", device=device, confirm_cost=True,
                               executor=args.executor, workers=args.workers, scheduler=args.scheduler)
            print(f"{args.figure} (all sweeps, on {device}): {result!r}")
    if args.scale in ("paper_cpu", "paper") and device == "cpu":
        missing = [r for r in {run_key(r): r for r in fig.runs()}.values() if cache.load(r) is None]
        keys = {run_key(r) for r in missing}
        est = cpu_estimate(missing, [r for r in {run_key(r): r for r in fig.runs()}.values() if run_key(r) not in keys])
        if est is not None:
            if args.scale == "paper" and not args.yes:
                raise ConfigError(f"the missing runs: {est.describe()}. This machine has no GPU; pass --yes to run "
                                  f"anyway, or run --scale paper_cpu (Table 1's settings at the cheap end of the "
                                  f"paper's grid, where a figure has it) or --scale cpu")
            if args.scale == "paper_cpu" and not args.yes and est.expected_hours > LONG_WORK_HOURS:
                # Long work on a CPU asks first, at every scale: the estimate, then nothing runs without --yes.
                raise ConfigError(f"the missing runs: {est.describe()}. That is over {LONG_WORK_HOURS:g} CPU-hour; "
                                  "pass --yes to run them")
            print(f"{args.figure} {args.scale}: the missing runs: {est.describe()}", flush=True)
            # Cheapest first (an interrupted run leaves the most points complete), unless the figure lists its
            # runs in the order they answer its question (`Figure3Measured`).
            order = missing if getattr(fig, "ORDERED", False) else est.cheapest_first(missing)
            print(est.table_text(), flush=True)
            # The estimate was printed above (and, at the paper scale, --yes given): the sweep's guard is not asked.
            result = run_sweep(order, cache, desc=f"{args.figure} {args.scale}", device=device, confirm_cost=True,
                               executor=args.executor, workers=args.workers, scheduler=args.scheduler)
            print(f"{args.figure} (all sweeps, cheapest first): {result!r}")
    for key, runs in fig.sweeps().items():
        result = run_sweep(runs, cache, desc=f"{args.figure} {key}", device=device, executor=args.executor, confirm_cost=True,
                           workers=args.workers, scheduler=args.scheduler)
        print(f"{args.figure} {key}: {result!r}")


def cpu_estimate(missing: list[Any], stored: Sequence[Any] = ()) -> Estimate | None:
    """For the Transformer runs in ``missing``: `estimate.from_store`, each shape's line printed."""
    return from_store(missing, stored, ResultCache(on_corrupt="recompute"), progress=lambda line: print(line, flush=True))


def cmd_status(args: argparse.Namespace) -> None:
    fig = _figure(args.figure, args.scale)
    _store_exists()  # a mistyped store is named, never read as "every run missing"
    cache = ResultCache(on_corrupt="recompute")
    total_missing = 0
    folder = checkpoints.resume_folder(cache.root)  # $EMERGENCE_CHECKPOINT_DIR wins, as for the estimate and training
    for key, runs in fig.sweeps().items():
        missing = [r for r in runs if cache.load(r) is None]
        cached = len(runs) - len(missing)
        total_missing += len(missing)
        print(f"{args.figure} {args.scale} {key}: {cached}/{len(runs)} cached, {len(missing)} missing")
        old = dict(checkpoints_legacy.legacy(folder))
        for r in missing:  # a run stopped midway, or running now, has a checkpoint (`checkpoints`)
            info = checkpoints.progress(folder, run_key(r), r)
            if info is not None:
                print(describe(getattr(r, "seed", "?"), run_key(r), info))
            elif run_key(r) in old:  # its claimed step is unchecked: never shown as progress
                print(f"  seed {getattr(r, 'seed', '?')} ({run_key(r)}): a checkpoint of the first format, not checked "
                      "or resumed until `python -m emergence_lib upgrade-checkpoints` checks and rewrites it")
    print("complete" if total_missing == 0 else f"{total_missing} runs missing")


def describe(seed: object, key: str, info: dict) -> str:
    """A checkpointed run's status line. A batch of seeds (a GPU chunk) resumes only as that batch, and a state saved
    on one kind of device only on that kind (`training.train_ensemble`), so the line says so."""
    text = f"  seed {seed} ({key}): in progress, step {info['step']:,} of at most {info['max_steps']:,}"
    notes = []
    if len(info.get("keys", [])) > 1:
        notes.append(f"in a batch of {len(info['keys'])} seeds: it resumes only as that batch, as a GPU runs it")
    if str(info.get("device", "cpu")) != "cpu":
        notes.append(f"saved on {info['device']}: a run on another kind of device starts afresh")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def needed_elsewhere(figure: str, scale: str) -> dict[str, list[str]]:
    """Run key → the other (figure, scale) pairs that also need that run (cached scales only)."""
    needs: dict[str, list[str]] = {}
    for name, cls in figures().items():
        for other_scale in SCALES[1:]:
            if (name, other_scale) == (figure, scale) or not cls.has_scale(other_scale):
                continue
            for run in cls(scale=other_scale).runs():
                needs.setdefault(run_key(run), []).append(f"{name} ({other_scale})")
    return needs


def cmd_clear(args: argparse.Namespace) -> None:
    """Remove the figure's cached runs that no other figure (or scale) needs; --force removes those too."""
    fig = _figure(args.figure, args.scale)
    cache = _store_exists()
    shared = {} if args.force else needed_elsewhere(args.figure, args.scale)
    kept: Counter[str] = Counter()
    folders = [cache.path(r) for r in fig.runs() if cache.path(r).is_dir()]
    if folders:
        raise ConfigError(f"{folders[0]} is a folder, not a stored run: remove it by hand; nothing was removed")
    doomed = []
    for run in {run_key(r): r for r in fig.runs()}.values():
        path = cache.path(run)
        if not path.exists():
            continue
        if run_key(run) in shared:
            kept.update(shared[run_key(run)])
            continue
        doomed.append(path)
    if not args.dry_run:
        remove_all(doomed)
    removed = len(doomed)
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {removed} cached runs of {args.figure} at scale {args.scale!r}")
    if kept:
        print("kept runs that other figures need (--force removes them too): "
              + ", ".join(f"{n} shared with {who}" for who, n in sorted(kept.items())))


def _check_parameters(chapter: str, given: dict[str, Any]) -> None:
    """A chapter's parameters, every one, before its kernel starts (`experiments.check_chapter_parameters`)."""
    from .experiments import check_chapter_parameters
    from .notebooks import accepted_parameters, default_parameters

    path = Path(chapter)
    if not path.is_file():
        raise ConfigError(f"chapter {chapter} does not exist")
    unknown = [name for name in given if name not in accepted_parameters(path)]
    if unknown:  # named by `notebooks` with what the chapter accepts
        return
    check_chapter_parameters(path.stem, default_parameters(path), given)


def cmd_execute(args: argparse.Namespace) -> None:
    from papermill.exceptions import PapermillExecutionError

    given = {name: parse_value(v) for name, v in args.parameter}
    _check_parameters(args.chapter, given)
    if "device" in given:
        resolve_device(given["device"])  # an unavailable device (cuda here) is one line now, not in the kernel
    try:
        print(execute(args.chapter, args.out, **given))
    except PapermillExecutionError as exc:
        if exc.ename in ("ConfigError", "CacheError"):  # bad input found inside the chapter: one line, not a traceback
            raise ConfigError(f"{args.chapter}: {exc.evalue}") from None
        raise


def cmd_prepare(args: argparse.Namespace) -> None:
    check_scale(args.scale)
    for chapter in args.chapters:
        _check_parameters(chapter, {"scale": args.scale})
    for chapter in args.chapters:
        print(prepare(chapter, Path(args.out) / Path(chapter).name, scale=args.scale))


class Terminated(BaseException):
    """SIGTERM, raised where the main thread is, so that a sweep unwinds as it does on Ctrl-C."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def _interrupted_by(exc: BaseException) -> BaseException | None:
    """The Ctrl-C or SIGTERM behind ``exc``: itself, or one it arose while handling. A signal that lands inside a
    lock's bookkeeping (a process pool's `as_completed`) can surface as "release unlocked lock" with the signal's
    exception as its context (seen once on a GPU machine); that is still an interruption, not a crash."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (KeyboardInterrupt, Terminated)):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


class _Parser(argparse.ArgumentParser):
    """argparse, whose errors are one line (what is wrong and what is allowed), not the usage block."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"{self.prog}: {message}")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m emergence_lib", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    for verb, fn, help_ in [("run", cmd_run, "compute a figure's missing runs"),
                            ("status", cmd_status, "show what is cached and missing"),
                            ("clear", cmd_clear, "remove a figure's cached runs"),
                            ("verify", cmd_verify, "check stored runs against their checksums and recompute a sample")]:
        p = sub.add_parser(verb, help=help_)
        p.add_argument("figure", nargs="?" if verb == "verify" else None,
                       help="a figure name" + ("; without one, verify checks every stored file's checksum" if verb == "verify" else ""))
        p.add_argument("--scale", default="cpu", help=f"one of {SCALES[1:]}")
        p.set_defaults(fn=fn)
        if verb == "verify":
            p.add_argument("--sample", type=int, default=1, help="how many stored runs to recompute and compare (default 1)")
            p.add_argument("--seed", type=int, default=0, help="which sample")
        if verb == "clear":
            p.add_argument("--force", action="store_true", help="also remove runs that other figures need")
            p.add_argument("--dry-run", action="store_true", help="list what would be removed; remove nothing")
        if verb == "run":
            p.add_argument("--executor", default=None, help=f"one of {EXECUTORS} (default: local, or dask with --scheduler)")
            p.add_argument("--workers", type=int, default=None)
            p.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786")
            p.add_argument("--device", default="auto")
            p.add_argument("--yes", action="store_true", help="run the paper scale even on a machine without a GPU")
    pr = sub.add_parser("prune", help="remove stored runs of an older version of their kind")
    pr.add_argument("--dry-run", action="store_true")
    pr.set_defaults(fn=cmd_prune)
    m = sub.add_parser("migrate", help="re-key stored runs after a config change (no recompute)")
    m.add_argument("--dry-run", action="store_true")
    m.set_defaults(fn=cmd_migrate)
    u = sub.add_parser("upgrade-checkpoints", help="check and rewrite checkpoints of the first format")
    u.set_defaults(fn=cmd_upgrade_checkpoints)
    pp = sub.add_parser("prepare", help="write chapters with a scale injected, without running them (for nbval)")
    pp.add_argument("--scale", required=True, help=f"one of {SCALES}")
    pp.add_argument("--out", required=True, help="output folder")
    pp.add_argument("chapters", nargs="+")
    pp.set_defaults(fn=cmd_prepare)
    e = sub.add_parser("execute", help="run a chapter with parameters")
    e.add_argument("chapter")
    e.add_argument("out")
    e.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    e.set_defaults(fn=cmd_execute)
    try:
        args = parser.parse_args(argv)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # SIGTERM (a scheduler's or `kill`'s) unwinds like Ctrl-C, so that pool workers are terminated and the
    # runs finished so far stay stored.
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    # Ctrl-C (SIGINT) always unwinds, even when the shell that started us ignored it (a background job of a
    # non-interactive shell inherits SIGINT ignored, and Python then installs no handler of its own).
    previous_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            # A warning (a corrupt file set aside to be recomputed, say) is one line, not Python's two.
            warnings.showwarning = lambda message, *_a, **_k: print(f"warning: {message}", file=sys.stderr)
            return args.fn(args) or 0
    except (ConfigError, CacheError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BaseException as raised:
        signalled = _interrupted_by(raised)
        if signalled is None:
            raise
        # The sweep has killed its workers and released its claims; every finished run is stored. Exit at once:
        # Python 3.11's process pools can hang the interpreter's own exit once their workers were killed.
        print("interrupted: every finished run is stored; rerun the command to compute the rest" if args.verb == "run"
              else f"interrupted: {args.verb} stopped before it finished", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130 if isinstance(signalled, KeyboardInterrupt) else 143)
    finally:
        signal.signal(signal.SIGTERM, previous)
        signal.signal(signal.SIGINT, previous_int)


if __name__ == "__main__":
    sys.exit(main())
