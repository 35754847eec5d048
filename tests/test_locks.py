"""Concurrent sweeps on one store compute each run once (issue 14): claims through lock files, stale-lock recovery."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from emergence_lib import runs
from emergence_lib.cache import ResultCache
from emergence_lib.results import RunResult
from emergence_lib.configs import ToyFlowConfig
from emergence_lib.locks import claim, is_stale, lock_path, release
from emergence_lib.sweep import run_sweep

CONFIGS = [ToyFlowConfig(T=T, d=d) for T in (8, 16, 32) for d in (4, 8)]


@pytest.fixture
def slow_counted_runner(monkeypatch):
    """Each toy flow alone, taking 0.2 s, with every computed run counted (threads share this list)."""
    computed: list[ToyFlowConfig] = []

    def runner(configs, device="cpu"):
        time.sleep(0.2)
        computed.extend(configs)
        return [RunResult({"plateau_length": float(c.T * c.d), "reached": True}, {"t": [0.0, 1.0]}) for c in configs]

    monkeypatch.setitem(runs.KINDS, ToyFlowConfig.kind, runs.RunKind(runner, lambda items, device: [[c] for c in items]))
    return computed


@pytest.mark.parametrize("round_", range(3))  # the races this guards are timing-dependent: several rounds
def test_three_concurrent_sweeps_compute_each_run_once(tmp_path, slow_counted_runner, round_):
    cache, start, out = ResultCache(tmp_path), threading.Barrier(3), {}

    def sweep(name: str) -> None:
        start.wait()
        out[name] = run_sweep(CONFIGS, cache, progress=False, executor="serial", poll_s=0.05)

    threads = [threading.Thread(target=sweep, args=(n,)) for n in "abc"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(map(repr, slow_counted_runner)) == sorted(map(repr, CONFIGS)), "a run was computed twice (or never)"
    assert sum(r.n_computed for r in out.values()) == len(CONFIGS)
    assert out["a"].summary["plateau_length"].tolist() == out["b"].summary["plateau_length"].tolist() == out["c"].summary["plateau_length"].tolist()
    assert not list(tmp_path.rglob("*.lock")) and not list(tmp_path.rglob(".*.draft")), "locks were left behind"


def test_a_run_claimed_by_a_dead_process_is_taken_over(tmp_path, slow_counted_runner):
    cache = ResultCache(tmp_path)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock = lock_path(cache.path(CONFIGS[0]))
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": int(dead.stdout), "since": 0}))
    result = run_sweep(CONFIGS, cache, progress=False, executor="serial", poll_s=0.05)
    assert result.n_computed == len(CONFIGS) and not lock.exists()


def test_a_live_claim_is_respected_and_awaited(tmp_path, slow_counted_runner):
    cache = ResultCache(tmp_path)
    lock = lock_path(cache.path(CONFIGS[0]))
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": os.getppid(), "since": 0}))  # alive, not us

    def finish_it_elsewhere() -> None:
        time.sleep(0.5)
        cache.save(CONFIGS[0], RunResult({"plateau_length": 123.45, "reached": True}, {"t": [0.0]}))  # a marker (within t_max)
        lock.unlink()

    helper = threading.Thread(target=finish_it_elsewhere)
    helper.start()
    result = run_sweep(CONFIGS, cache, progress=False, executor="serial", poll_s=0.05)
    helper.join()
    assert result.n_computed == len(CONFIGS) - 1 and CONFIGS[0] not in slow_counted_runner
    assert result.summary["plateau_length"].iloc[0] == 123.45


def test_lock_staleness_rules(tmp_path):
    lock = tmp_path / "run.lock"
    assert claim(lock) and not claim(lock)  # ours, alive
    assert not is_stale(lock)
    release(lock)
    assert not lock.exists()
    lock.write_text(json.dumps({"host": "another-host", "pid": 1, "since": 0}))
    assert not is_stale(lock)  # another host, recently refreshed
    os.utime(lock, (time.time() - 7 * 3600, time.time() - 7 * 3600))
    assert is_stale(lock) and claim(lock)  # not refreshed for longer than STALE_AFTER_S
    lock.write_text("{half a lock")
    assert is_stale(lock)  # its owner died while writing it
    release(lock)
    assert lock.exists(), "release removed a lock this process does not hold"


@pytest.mark.parametrize("content", ['{"host": "%s", "pid": "abc"}', '[1, 2]', '{"host": "%s", "pid": 99999999999}',
                                     '{"host": "%s", "pid": 0}', '{"host": "%s", "pid": -1}', '{"host": "%s", "pid": true}',
                                     '{"pid": 5}', '"a string"'])
def test_every_malformed_lock_is_stale_and_taken_over(tmp_path, content):
    lock = tmp_path / "run.lock"
    lock.write_text(content.replace("%s", socket.gethostname()))
    assert is_stale(lock)
    assert claim(lock), "a malformed lock must not block a sweep"
    release(lock)
    assert not lock.exists()


def test_a_folder_at_the_lock_path_is_taken_over(tmp_path):
    lock = tmp_path / "run.lock"
    (lock / "inner").mkdir(parents=True)
    assert is_stale(lock) and claim(lock) and lock.is_file()


def test_a_live_pid_on_this_host_goes_stale_once_unrefreshed(tmp_path):
    """A reused pid (here: pid 1, always alive) would otherwise block the run forever."""
    lock = tmp_path / "run.lock"
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": 1, "since": 0}))
    assert not is_stale(lock)
    os.utime(lock, (time.time() - 7 * 3600, time.time() - 7 * 3600))
    assert is_stale(lock) and claim(lock)


def test_the_waiting_message_names_the_lock_its_owner_and_age(tmp_path):
    from emergence_lib.locks import Refresher, describe

    lock = tmp_path / "run.lock"
    lock.write_text(json.dumps({"host": "another-host", "pid": 42, "since": 0}))
    os.utime(lock, (time.time() - 180, time.time() - 180))
    text = describe(lock)
    assert str(lock) in text and "another-host:42" in text and "3.0 min" in text
    # The refresher keeps a held lock fresh while a long chunk computes.
    assert claim(tmp_path / "mine.lock")
    os.utime(tmp_path / "mine.lock", (time.time() - 7 * 3600, time.time() - 7 * 3600))
    with Refresher(lambda: [tmp_path / "mine.lock"], every_s=0.05):
        time.sleep(0.3)
    assert not is_stale(tmp_path / "mine.lock")
