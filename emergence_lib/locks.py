"""Claims on runs, so that concurrent sweeps over one store compute each run once.

Before a sweep computes a run it creates ``<key>.lock`` beside the run's result
file (a hard link to a finished draft: exactly one process wins, and the lock is
never seen half-written). The lock holds its
owner's host and pid. Another sweep that needs the run waits for the result
file instead of computing it. A lock is stale, and may be taken over, when its
owner is on this host and no longer alive, or when it has not been refreshed
for ``STALE_AFTER_S`` (an owner on another host; owners refresh their locks
each time a chunk finishes). Locks are removed once their run is stored, or
when the sweep stops for any reason.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from pathlib import Path

STALE_AFTER_S = 6 * 3600.0


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


def is_stale(path: Path, stale_after_s: float = STALE_AFTER_S) -> bool:
    """Whether the lock at ``path`` belongs to nobody alive (False if it is gone: there is nothing to take over)."""
    try:
        owner = json.loads(path.read_text())
        age = time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True  # unreadable: damaged (locks are linked into place whole, never written in place)
    if owner.get("host") == socket.gethostname():
        return owner.get("pid") != os.getpid() and not _pid_alive(int(owner.get("pid", -1)))
    return age > stale_after_s


def claim(path: Path, stale_after_s: float = STALE_AFTER_S) -> bool:
    """Create the lock at ``path`` for this process; False if someone alive holds it.

    A stale lock is first renamed aside (atomic: of two processes taking it over, one rename fails),
    then the fresh lock is created exclusively.
    """
    # The lock appears with its content in one step (written aside, then hard-linked into place: link fails if
    # the name exists), so no one ever reads a half-written lock and mistakes it for a dead owner's.
    draft = path.with_name(f".{path.name}.{uuid.uuid4().hex}.draft")
    draft.write_text(json.dumps(_owner()))
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


def release(path: Path) -> None:
    """Remove a lock this process holds (never one another process took over)."""
    try:
        owner = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if owner.get("host") == socket.gethostname() and owner.get("pid") == os.getpid():
        path.unlink(missing_ok=True)
