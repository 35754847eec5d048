"""Where a sweep's chunks run: in this process, in a local process pool, or on Dask.

    serial   in this process, one chunk after another (debugging; the smoke scale)
    local    a process pool sized to the machine (the default), one thread per worker
    dask     a Dask distributed Client: an existing scheduler (``scheduler="tcp://host:8786"``,
             e.g. one started by dask-jobqueue on SLURM) or a LocalCluster started here

Every executor runs the same function on the same chunks, and the sweep writes
each result into the cache in this process as soon as its chunk finishes, so
the cache and the results are the same whichever executor ran them.
"""

from __future__ import annotations

import importlib.util
import multiprocessing
import os
import re
import sys
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import torch

from .results import RunResult
from .configs import ConfigError
from .runs import runner_for

EXECUTORS = ("serial", "local", "dask")


def run_chunk(kind: str, configs: Sequence[Any], device: str, threads: int | None) -> list[RunResult]:
    """Run one chunk (in whichever process the executor chose). ``threads`` pins torch's thread count."""
    import time

    from .host import matmul_rates

    if threads is not None:
        os.environ["OMP_NUM_THREADS"] = str(threads)
        torch.set_num_threads(threads)
    from . import checkpoints
    from .cache import run_key

    rates = matmul_rates() if kind.startswith("transformer") and device == "cpu" else {}  # once per process
    folder = checkpoints.active_folder()
    # The step a resumed run starts from: its CPU seconds cover the steps after it only.
    start = checkpoints.cpu_resume_step(folder, run_key(configs[0]), configs[0]) if folder and len(configs) == 1 else 0
    cpu0 = time.process_time()
    results = runner_for(kind)(list(configs), device=device)
    cpu = (time.process_time() - cpu0) / max(len(results), 1)  # a chunk's seeds train together: each its share
    for r in results:
        r.host = {"cpu_seconds": round(cpu, 3), "cpu_from_step": start} | ({"matmul_gflops": rates} if rates else {})
    return results


def _exit_with_parent(parent_pid: int, every_s: float = 0.5) -> None:
    """Pool-worker initializer: a daemon thread ends this worker as soon as its parent is gone.

    A SIGKILLed parent runs no clean-up, and a worker busy with a long chunk would otherwise run to its
    end (and keep the resource tracker alive). Polling the parent pid works on Linux and macOS alike.
    """

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(every_s)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def unguarded_main_script() -> str | None:
    """The path of ``__main__`` when it is a script without a ``__name__ == "__main__"`` guard (spawned workers
    re-import it, and would run its top level again); None in a notebook, a REPL, ``python -m`` or a guarded script."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if not path or getattr(main, "__spec__", None) is not None or not os.path.isfile(path):
        return None
    try:
        source = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        return None
    guarded = re.search(r"""__name__\s*==\s*["']__main__["']""", source)
    return None if guarded else path


def check_executor(executor: str, workers: int | None = None) -> None:
    if executor not in EXECUTORS:
        raise ConfigError(f"executor must be one of {EXECUTORS}, got {executor!r}")
    if executor == "dask" and importlib.util.find_spec("distributed") is None:
        raise ConfigError("executor 'dask' needs the package distributed (pip install 'dask[distributed]')")
    if executor == "dask":  # installed but broken: said before any progress bar, in one line
        try:
            import distributed  # noqa: F401
        except Exception as exc:
            raise ConfigError(f"executor 'dask' could not import distributed ({type(exc).__name__}: {exc})") from None
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ConfigError(f"workers must be an integer ≥ 1, got {workers!r}")


@contextmanager
def dask_client(scheduler: str | None, workers: int | None, timeout: float = 10.0) -> Iterator[Any]:
    """A Client on ``scheduler``, or on a LocalCluster bound to 127.0.0.1 with one thread per worker."""
    try:
        from distributed import Client, LocalCluster
    except Exception as exc:  # missing, or installed but broken: one line
        raise ConfigError(f"executor 'dask' could not import distributed ({type(exc).__name__}: {exc}); "
                          "pip install 'dask[distributed]'") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise ConfigError(f"could not reach the Dask scheduler at {scheduler!r} within {timeout:g} s ({exc})") from None
        except (ValueError, TypeError) as exc:  # e.g. an unknown protocol in the address
            raise ConfigError(f"not a Dask scheduler address: {scheduler!r} ({exc}); e.g. tcp://host:8786") from None
        with client:
            yield client
        return
    n = workers or os.cpu_count() or 1
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        with Client(cluster, timeout=timeout) as client:
            yield client


def run_chunks(
    chunks: list[tuple[str, list[Any]]],
    executor: str = "local",
    device: str = "cpu",
    workers: int | None = None,
    scheduler: str | None = None,
) -> Iterator[tuple[int, list[RunResult]]]:
    """Yield (chunk index, results) as chunks finish, in any order."""
    check_executor(executor, workers)
    if not chunks:  # nothing missing: start no pool and no cluster
        return
    if executor == "local" and len(chunks) > 1 and unguarded_main_script():
        warnings.warn(f"{unguarded_main_script()} has no `if __name__ == \"__main__\":` guard, which a process pool "
                      "needs (its workers re-import the script): running serially instead", stacklevel=2)
        executor = "serial"
    if executor == "serial" or (executor == "local" and len(chunks) <= 1):
        for i, (kind, configs) in enumerate(chunks):
            yield i, run_chunk(kind, configs, device, None)
        return
    if executor == "local":
        n = min(workers or os.cpu_count() or 1, len(chunks))
        # spawn, not fork: forking a process whose torch/OpenMP threads are running can deadlock.
        # Workers exit when this process dies, however it dies (see `_exit_with_parent`); if it stops
        # early (an error, Ctrl-C, SIGTERM, or a consumer that stops reading), they are killed.
        pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_exit_with_parent, initargs=(os.getpid(),))
        try:
            futures = {pool.submit(run_chunk, kind, configs, device, 1): i for i, (kind, configs) in enumerate(chunks)}
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            # Kill the workers rather than wait for their chunks (and never take the pool's locks, which a
            # worker may hold): Python < 3.14 has no public call for it.
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return
    try:
        from distributed import as_completed as dask_as_completed
    except Exception as exc:  # installed but broken (its import raises): one line, not a traceback
        raise ConfigError(f"executor 'dask' could not import distributed ({type(exc).__name__}: {exc})") from None

    # No more local workers than chunks: a worker with nothing to do costs a process and a torch import.
    with dask_client(scheduler, min(workers or os.cpu_count() or 1, len(chunks)) if scheduler is None else workers) as client:
        submitted = [client.submit(run_chunk, kind, configs, device, 1, pure=False) for kind, configs in chunks]
        index = {f.key: i for i, f in enumerate(submitted)}
        for future in dask_as_completed(submitted):
            yield index[future.key], future.result()
