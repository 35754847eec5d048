"""Killing a `run` leaves no process behind (issue 14): SIGKILL, SIGTERM and SIGINT, each in a real subprocess.

The run is Figure 4 at cpu scale into an empty store, on a pool of 2 workers: its recall runs take tens of
seconds, so the workers are mid-chunk when the parent is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
REPO = Path(__file__).resolve().parent.parent


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's bookkeeping is left


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_killed_run_leaves_no_worker_behind(tmp_path, sig):
    env = dict(os.environ, EMERGENCE_DATA_DIR=str(tmp_path / "data"))
    parent = subprocess.Popen([sys.executable, "-m", "emergence_lib", "run", "figure4", "--workers", "2"], cwd=REPO,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(workers) < 3:  # 2 workers and the resource tracker
            time.sleep(0.5)
            workers = _descendants(parent.pid)
            assert parent.poll() is None, parent.stderr.read().decode()[-2000:]
        assert len(workers) >= 3, f"the pool did not start: {workers}"
        time.sleep(5)  # the workers are now importing torch or training
        workers = _descendants(parent.pid)
        parent.send_signal(sig)
        parent.wait(timeout=30)
        # Ctrl-C and SIGTERM unwind, say what is kept, and exit with the shell's codes; SIGKILL just kills.
        assert parent.returncode == {signal.SIGKILL: -9, signal.SIGTERM: 143, signal.SIGINT: 130}[sig]
        if sig != signal.SIGKILL:
            assert "every finished run is stored" in parent.stderr.read().decode()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.25)
        assert not [p for p in workers if _alive(p)], f"processes left after {sig.name}"
    finally:
        for pid in _descendants(parent.pid) | workers | {parent.pid}:  # never leave strays, even on failure
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
