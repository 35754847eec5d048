"""Execute the book's notebooks two at a time, before the build, into the execution cache the build reads
(``python -m emergence_lib.book_execute``, run by ``make book``).

Jupyter Book 1.x executes one notebook after another, each kernel on one thread, so a 2-core machine spent the
build's five minutes with one core idle. Here the chapters run two at a time; the scoreboard runs after them (it
draws the claims they log, `claims.CLAIMS_LOG_ENV`) and the landing page last (it reads the scoreboard's paper-scale
entries too). Each executed notebook goes into myst-nb's cache (jupyter-cache, keyed on the code cells) exactly as
myst-nb's own "cache" mode would store it, so the build then reads every output from there.

The cache never serves results of other code: it is emptied before every fill, and the fill stamps it with a
fingerprint of the library's sources and of ``data/`` (`fingerprint`). A build that finds a cache without a matching
stamp, or without the claims log the fill wrote, empties it first (`book_extension.drop_stale_execution_cache`) and
executes every chapter itself, one at a time, as before.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "_build" / ".jupyter_cache"
STAMP_NAME = "emergence_fingerprint.txt"
# Executed after every other page, in this order: each reads what the pages before it logged.
LAST = ("chapters/scoreboard", "intro")


def notebooks(toc: Path = ROOT / "_toc.yml") -> list[str]:
    """The book's executed pages (those with a notebook), in the table of contents' order, without suffix."""
    t = yaml.safe_load(toc.read_text())
    docs = [t["root"]] + [c["file"] for part in t.get("parts", []) for c in part.get("chapters", [])]
    return [d for d in docs if (toc.parent / f"{d}.ipynb").exists()]


def phases(docs: list[str]) -> list[list[str]]:
    """The pages in groups run one after another: every page but the last ones two at a time, then each of LAST."""
    first = [d for d in docs if d not in LAST]
    return [first] + [[d] for d in LAST if d in docs]


def fingerprint(root: Path = ROOT) -> str:
    """What the executed outputs depend on besides the notebooks' code cells (which the cache keys on): the library's
    sources, byte for byte, and ``data/`` by name, size and modification time (cheap for its ~2,000 files; a file
    the library rewrites changes both)."""
    h = hashlib.sha256()
    for path in sorted((root / "emergence_lib").rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    for path in sorted((root / "data").rglob("*")):
        if path.is_file():
            st = path.stat()
            h.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def stamp_matches(cache: Path = CACHE, root: Path | None = None) -> bool:
    """Whether ``cache`` was filled (`fill`) from this library and this ``data/``."""
    stamp = cache / STAMP_NAME
    return stamp.exists() and stamp.read_text().strip() == fingerprint(root or ROOT)


def _execute(doc: str, root: Path):
    """One page executed as myst-nb's cache mode executes it: in its own folder, no timeout, errors raise."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    path = root / f"{doc}.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    result = single_nb_execution(nb, cwd=str(path.parent), timeout=None, allow_errors=False, meta_override=True)
    return path, nb, result


def fill(root: Path = ROOT, cache: Path = CACHE, workers: int = 2) -> int:
    """Empty the cache, execute every page into it (two at a time), stamp it. Returns 0, or 1 if a page failed (its
    traceback printed; the cache is left without a stamp, so a build ignores it)."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    shutil.rmtree(cache, ignore_errors=True)
    store = get_cache(str(cache))
    start = time.time()
    for group in phases(notebooks(root / "_toc.yml")):
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures: list[Future] = [pool.submit(_execute, doc, root) for doc in group]
            for doc, future in zip(group, futures):
                path, nb, result = future.result()
                if result.err is not None:
                    pool.shutdown(cancel_futures=True)
                    print(f"{doc}.ipynb failed:\n{result.exc_string}", file=sys.stderr)
                    return 1
                # The database is written from this thread only.
                store.cache_notebook_bundle(CacheBundleIn(nb, str(path), data={"execution_seconds": result.time}),
                                            check_validity=False, overwrite=True)
                print(f"executed {doc}.ipynb in {result.time:.1f} s", flush=True)
    (cache / STAMP_NAME).write_text(fingerprint(root) + "\n")
    print(f"every page executed in {time.time() - start:.0f} s, {workers} at a time; the build reads them from {cache}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m emergence_lib.book_execute", description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="pages executed at once (default 2, one per core)")
    args = parser.parse_args(argv)
    if not 1 <= args.workers <= (os.cpu_count() or 1) * 2:
        print(f"--workers must be between 1 and {(os.cpu_count() or 1) * 2}, not {args.workers}", file=sys.stderr)
        return 2
    return fill(workers=args.workers)


if __name__ == "__main__":
    sys.exit(main())
