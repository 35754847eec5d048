"""Command line: python -m emergence_lib VERB ...

    run FIGURE [--scale cpu] [--executor local|serial|dask] [--workers N] [--scheduler ADDR] [--device auto]
        compute what the figure's cache lacks (progress with a count of runs and an ETA)
    status FIGURE [--scale cpu]
        what is cached and what is missing, per sweep
    clear FIGURE [--scale cpu]
        remove the figure's cached runs at that scale (nothing else)
    execute CHAPTER OUT [-p NAME VALUE ...]
        run a chapter with papermill parameters into the notebook OUT

FIGURE is a name from `experiments.figures()` (figure1, figure2, …). Bad input
(an unknown figure or scale, an unreachable scheduler) exits with status 2 and
one line that says what is allowed.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from .cache import CacheError, ResultCache
from .configs import SCALES, ConfigError, check_scale
from .executors import EXECUTORS
from .experiments import figures
from .sweep import run_sweep


def _figure(name: str, scale: str) -> Any:
    known = figures()
    if name not in known:
        raise ConfigError(f"unknown figure {name!r}; known figures: {', '.join(known)}")
    check_scale(scale)
    if scale == "smoke":
        raise ConfigError("scale 'smoke' is never cached; use 'cpu' or 'paper' here")
    return known[name](scale=scale)


def _executor(args: argparse.Namespace) -> str:
    """``--scheduler`` implies the Dask executor; with another executor it is refused, not ignored."""
    if args.scheduler is not None and args.executor not in (None, "dask"):
        raise ConfigError(f"--scheduler needs --executor dask (got --executor {args.executor}); drop one of them")
    return args.executor or ("dask" if args.scheduler is not None else "local")


def cmd_run(args: argparse.Namespace) -> None:
    args.executor = _executor(args)
    fig = _figure(args.figure, args.scale)
    # From the command line a corrupt file is reported by name and recomputed, never used.
    cache = ResultCache(on_corrupt="recompute")
    cache.check_writable(fig.runs())  # every sweep of the figure, before the first one computes
    for key, runs in fig.sweeps().items():
        result = run_sweep(runs, cache, desc=f"{args.figure} {key}", device=args.device, executor=args.executor,
                           workers=args.workers, scheduler=args.scheduler)
        print(f"{args.figure} {key}: {result!r}")


def cmd_status(args: argparse.Namespace) -> None:
    fig = _figure(args.figure, args.scale)
    cache = ResultCache(on_corrupt="recompute")
    total_missing = 0
    for key, runs in fig.sweeps().items():
        cached = sum(cache.load(r) is not None for r in runs)
        total_missing += len(runs) - cached
        print(f"{args.figure} {args.scale} {key}: {cached}/{len(runs)} cached, {len(runs) - cached} missing")
    print("complete" if total_missing == 0 else f"{total_missing} runs missing")


def cmd_clear(args: argparse.Namespace) -> None:
    fig = _figure(args.figure, args.scale)
    cache = ResultCache()
    removed = 0
    for run in fig.runs():
        path = cache.path(run)
        if path.exists():
            path.unlink()
            removed += 1
    print(f"removed {removed} cached runs of {args.figure} at scale {args.scale!r}")


def cmd_execute(args: argparse.Namespace) -> None:
    from .notebooks import _value, execute

    print(execute(args.chapter, args.out, **{name: _value(v) for name, v in args.parameter}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m emergence_lib", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    for verb, fn, help_ in [("run", cmd_run, "compute a figure's missing runs"),
                            ("status", cmd_status, "show what is cached and missing"),
                            ("clear", cmd_clear, "remove a figure's cached runs")]:
        p = sub.add_parser(verb, help=help_)
        p.add_argument("figure")
        p.add_argument("--scale", default="cpu", help=f"one of {SCALES[1:]}")
        p.set_defaults(fn=fn)
        if verb == "run":
            p.add_argument("--executor", default=None, help=f"one of {EXECUTORS} (default: local, or dask with --scheduler)")
            p.add_argument("--workers", type=int, default=None)
            p.add_argument("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://host:8786")
            p.add_argument("--device", default="auto")
    e = sub.add_parser("execute", help="run a chapter with parameters")
    e.add_argument("chapter")
    e.add_argument("out")
    e.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    e.set_defaults(fn=cmd_execute)
    args = parser.parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            args.fn(args)
    except (ConfigError, CacheError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
