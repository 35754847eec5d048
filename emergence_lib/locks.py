"""Claims on runs, so that concurrent sweeps over one store compute each run once.

Before a sweep computes a run it creates ``<key>.lock`` beside the run's result
file (a hard link to a finished draft: exactly one process wins, and the lock is
never seen half-written). The lock holds its
owner's host and pid. Another sweep that needs the run waits for the result
file instead of computing it. A lock is stale, and may be taken over, when its
owner is on this host and no longer alive, or when it has not been refreshed
for ``STALE_AFTER_S`` wherever its owner is (a pid can be reused by another
process; owners refresh their locks every ``REFRESH_EVERY_S`` while they compute,
from a background thread, and each time a chunk finishes). A lock that cannot
be read as an owner (damaged, a folder, a pid that is no pid) is stale. Locks are
removed once their run is stored, or when the sweep stops for any reason.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Callable

STALE_AFTER_S = 6 * 3600.0
REFRESH_EVERY_S = 600.0
MAX_PID = 2**22  # Linux's pid_max ceiling: a larger "pid" is no pid


def lock_path(result_path: Path) -> Path:
    return result_path.with_suffix(".lock")


def _owner() -> dict:
    return {"host": socket.gethostname(), "pid": os.getpid(), "since": time.time()}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def read_owner(path: Path) -> tuple[dict | None, float]:
    """(the lock's owner, or None if it cannot be read as one; its age in seconds). FileNotFoundError if gone."""
    age = time.time() - path.stat().st_mtime
    try:
        owner = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return None, age  # unreadable, or a folder: damaged (locks are linked into place whole, never written in place)
    pid = owner.get("pid") if isinstance(owner, dict) else None
    if not isinstance(owner, dict) or not isinstance(owner.get("host"), str) or isinstance(pid, bool) \
            or not isinstance(pid, int) or not 0 < pid < MAX_PID:
        return None, age
    return owner, age


def describe(path: Path) -> str:
    """'<path> (held by host:pid for 3.2 min)' for the waiting message."""
    try:
        owner, age = read_owner(path)
    except OSError:
        return f"{path} (just released)"
    who = f"{owner['host']}:{owner['pid']}" if owner else "an unreadable owner"
    return f"{path} (held by {who} for {age / 60:.1f} min)"


def is_stale(path: Path, stale_after_s: float = STALE_AFTER_S) -> bool:
    """Whether the lock at ``path`` belongs to nobody alive (False if it is gone: there is nothing to take over)."""
    try:
        owner, age = read_owner(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    if owner is None or age > stale_after_s:
        return True
    if owner["host"] == socket.gethostname():
        return owner["pid"] != os.getpid() and not _pid_alive(owner["pid"])
    return False


def claim(path: Path, stale_after_s: float = STALE_AFTER_S) -> bool:
    """Create the lock at ``path`` for this process; False if someone alive holds it.

    A stale lock is first renamed aside (atomic: of two processes taking it over, one rename fails),
    then the fresh lock is created exclusively.
    """
    from .cache import CacheError, special_file

    what = special_file(path)
    if what is not None and what != "a folder":  # a folder is a damaged lock, taken over below
        # A FIFO or a dangling link never becomes a lock anyone can read or take over: waiting on it would hang.
        raise CacheError(f"{path} is {what}, not a lock: remove it; nothing was computed")
    # The lock appears with its content in one step (written aside, then hard-linked into place: link fails if
    # the name exists), so no one ever reads a half-written lock and mistakes it for a dead owner's.
    draft = path.with_name(f".{path.name}.{uuid.uuid4().hex}.draft")
    try:
        draft.write_text(json.dumps(_owner()))
    except OSError as exc:  # a full disk or a read-only folder: no draft left behind, one line said
        draft.unlink(missing_ok=True)
        raise CacheError(f"cannot take the lock {path} ({exc.strerror or exc}); nothing was computed") from None
    try:
        return _link_claim(draft, path, stale_after_s)
    finally:
        draft.unlink(missing_ok=True)


def _link_claim(draft: Path, path: Path, stale_after_s: float) -> bool:
    for _ in range(2):
        try:
            os.link(draft, path)
        except FileExistsError:
            if not is_stale(path, stale_after_s):
                return False
            aside = path.with_name(f".{path.name}.{uuid.uuid4().hex}.stale")
            try:
                os.rename(path, aside)
            except FileNotFoundError:
                continue  # someone else took it over (or finished) first: try again
            if not is_stale(aside, stale_after_s):  # we moved a fresh lock that replaced the stale one: put it back
                os.rename(aside, path)
                return False
            if aside.is_dir():
                shutil.rmtree(aside, ignore_errors=True)
            else:
                aside.unlink(missing_ok=True)
            continue
        return True
    return False


def refresh(paths: list[Path]) -> None:
    """Mark locks held by this process as alive (for owners on other hosts, who cannot check our pid)."""
    for path in paths:
        try:
            os.utime(path)
        except FileNotFoundError:
            pass


class Refresher:
    """While a sweep computes, refresh the locks it holds every ``every_s`` seconds from a daemon thread, so that a
    chunk longer than ``STALE_AFTER_S`` keeps its claims (`with Refresher(lambda: list(held.values())):`)."""

    def __init__(self, held: Callable[[], list[Path]], every_s: float = REFRESH_EVERY_S) -> None:
        self.held, self.every_s = held, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lock-refresher", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            refresh(self.held())

    def __enter__(self) -> "Refresher":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def release(path: Path) -> None:
    """Remove a lock this process holds (never one another process took over)."""
    try:
        owner, _ = read_owner(path)
    except OSError:
        return
    if owner is not None and owner["host"] == socket.gethostname() and owner["pid"] == os.getpid():
        path.unlink(missing_ok=True)
