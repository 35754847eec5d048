"""A long run stopped midway (SIGTERM, SIGKILL) resumes from its checkpoint and ends exactly as an uninterrupted run."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from emergence_lib import checkpoints
from emergence_lib.cache import ResultCache, differences, run_key
from emergence_lib.configs import TransformerRecallConfig, TransformerRegressionConfig
from emergence_lib.sweep import run_sweep
from emergence_lib.training import train_recall, train_regression

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def one_thread():
    """Runs compared bit for bit use one thread each (a thread count of its own changes float rounding)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

# A smoke-sized run long enough to be stopped midway (about 2,000 steps), and a recall run with a triggered
# schedule (its state, the trigger's firing step, is part of what a checkpoint must restore).
REGRESSION = TransformerRegressionConfig(T=16, d=8, d_model=32, d_qk=8, lr=1e-3, max_steps=2500, seed=1, stop_factor=1.2)
RECALL = TransformerRecallConfig(n_tokens=16, n_pairs=4, d_model=32, d_qk=8, n_layers=2, lr=3e-3, max_steps=600, seed=0,
                                 B=2, schedule="triggered:accuracy_test>=0.3", stop_factor=None, threshold=0.5)

# The run in a child process, each step slowed by 2 ms (a sleep computes nothing): on an idle machine the run took
# under a second and sometimes ended before the test saw a checkpoint past step 200 ("make it longer").
SCRIPT = """
import sys, time
import torch
_step = torch.optim.Adam.step
def _slow_step(self, *args, **kwargs):
    time.sleep(0.002)
    return _step(self, *args, **kwargs)
torch.optim.Adam.step = _slow_step
from pathlib import Path
from emergence_lib.cache import ResultCache
from emergence_lib.configs import TransformerRegressionConfig
from emergence_lib.sweep import run_sweep
cfg = TransformerRegressionConfig(T=16, d=8, d_model=32, d_qk=8, lr=1e-3, max_steps=2500, seed=1, stop_factor=1.2)
run_sweep([cfg], ResultCache(Path(sys.argv[1])), progress=False, executor="serial")
"""


def _wait_for_checkpoint(folder: Path, key: str, past_step: int, proc: subprocess.Popen, timeout: float = 120) -> int:
    start = time.time()
    while time.time() - start < timeout:
        info = checkpoints.progress(folder, key)
        if info is not None and info["step"] > past_step:
            return int(info["step"])
        assert proc.poll() is None, "the run ended before it was stopped: make it longer"
        time.sleep(0.05)
    raise AssertionError("no checkpoint appeared")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_a_run_stopped_midway_resumes_bit_identically(tmp_path, monkeypatch, sig):
    uninterrupted = train_regression([REGRESSION])[0]
    data = tmp_path / "data"
    env = os.environ | {checkpoints.CHECKPOINT_EVERY_ENV: "0.2", "OMP_NUM_THREADS": "1"}
    env.pop(checkpoints.CHECKPOINT_DIR_ENV, None)
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(data)], env=env)
    folder = checkpoints.folder_for(data)
    key = run_key(REGRESSION)
    stopped_at = _wait_for_checkpoint(folder, key, 200, proc)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    cache = ResultCache(data)
    assert cache.load(REGRESSION) is None, "stopped before its end: nothing stored"
    info = checkpoints.progress(folder, key)
    assert info is not None and info["step"] >= stopped_at and info["max_steps"] == 2500
    assert info["step"] < uninterrupted.summary["steps_run"], "stopped midway"
    # The rerun resumes (it starts at the saved step: an interval of 10 minutes means it saves nothing new).
    monkeypatch.setenv(checkpoints.CHECKPOINT_EVERY_ENV, "600")
    resumed = run_sweep([REGRESSION], cache, progress=False, executor="serial")
    assert resumed.n_computed == 1
    stored = cache.load(REGRESSION)
    assert stored is not None
    assert differences(uninterrupted, stored) == [], "the resumed run equals the uninterrupted one exactly"
    assert not (folder / f"{key}.pt").exists() and checkpoints.progress(folder, key) is None, "removed once stored"


def test_resuming_restores_the_schedule_and_random_streams(tmp_path, monkeypatch):
    """Saved along the way (every 150 steps), then resumed from a state saved midway: equal to a run without checkpoints.
    Shown to fail without the restored random streams (the batches after the stop would differ)."""
    reference = train_recall([RECALL])[0]
    folder = tmp_path / "ckpt"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    save_at(monkeypatch, range(0, RECALL.max_steps + 1, 150))  # the last at max_steps
    full = train_recall([RECALL])[0]
    assert differences(reference, full) == []
    ckpt = checkpoints.Checkpoint.for_configs([RECALL])
    assert ckpt is not None and ckpt.state_path.exists()
    # Roll the checkpoint back to a mid-run state by rerunning with a stop: a run whose max_steps is the same but
    # that is killed is simulated by training to step 300 in a checkpoint of its own key.
    state = ckpt.load()
    assert state is not None and state["step"] == reference.summary["steps_run"]
    partial = _state_at(RECALL, 300, folder, monkeypatch)
    ckpt.save(partial, 300, RECALL.max_steps)
    save_at(monkeypatch, ())
    resumed = train_recall([RECALL])[0]
    assert differences(reference, resumed) == []


def save_at(monkeypatch, steps) -> None:
    """Checkpoint only at the loop's ``steps`` (a run from step 0 asks `Saver.due` once a step), not at every step:
    a 600-step run saved 601 times, with an fsync each, took most of a minute."""
    import itertools

    calls = itertools.count()
    monkeypatch.setattr(checkpoints.Saver, "due", lambda self: self.checkpoint is not None and next(calls) in steps)


def _state_at(config, step: int, folder: Path, monkeypatch) -> dict:
    """The state a run of ``config`` saves at ``step`` (trained in a scratch folder, stopped there by an exception)."""
    scratch = folder.parent / "scratch"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(scratch))
    save_at(monkeypatch, (step,))
    original = checkpoints.Checkpoint.save

    class Stop(BaseException):  # a failed save (an Exception) is caught, said and trained past
        pass

    def save_then_stop(self, state, at, max_steps):
        original(self, state, at, max_steps)
        if at >= step:
            raise Stop

    monkeypatch.setattr(checkpoints.Checkpoint, "save", save_then_stop)
    with pytest.raises(Stop):
        train_recall([config])
    monkeypatch.setattr(checkpoints.Checkpoint, "save", original)
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    state = checkpoints.Checkpoint(scratch, (run_key(config),)).load()
    assert state is not None and state["step"] == step
    return state


def test_a_checkpoint_of_other_runs_is_never_resumed(tmp_path):
    ckpt = checkpoints.Checkpoint(tmp_path, ("a" * 20,))
    state = {"step": 5, "steps": [0, 1, 2]}
    ckpt.save(state, 5, 10)
    assert ckpt.load() == state
    other = checkpoints.Checkpoint(tmp_path, ("b" * 20,))
    other.state_path.write_bytes(ckpt.state_path.read_bytes())  # a's state under b's name
    assert other.load() is None and not other.state_path.exists(), "set aside"
    ckpt.state_path.write_bytes(ckpt.state_path.read_bytes()[:-10])  # truncated
    assert checkpoints.progress(tmp_path, "a" * 20) is None, "status believes only what would resume"
    assert ckpt.load() is None


def test_a_state_another_kind_of_device_saved_is_never_resumed(tmp_path, monkeypatch):
    """A GPU's checkpoint (say, fetched back from a lent machine) resumed on the CPU would make a run of two devices
    whose file says "cpu": it starts over instead, and ends as a run of this device alone. The state is marked as
    having stopped by step 300, so a resumed run would end there: the same state marked as a CPU's does."""
    folder = tmp_path / "ckpt"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    save_at(monkeypatch, (0, RECALL.max_steps))
    reference = train_recall([RECALL])[0]
    ckpt = checkpoints.Checkpoint.for_configs([RECALL])
    assert ckpt is not None
    last = ckpt.load()
    assert last is not None and last["device"] == "cpu", "a checkpoint says which device saved it"
    partial = _state_at(RECALL, 300, folder, monkeypatch)
    save_at(monkeypatch, ())
    # Every member stopped at its last recorded evaluation, as training marks a stop (a stop step that is not one of
    # its recorded steps is refused: `checkpoint_state.check_values`).
    last = partial["steps"][-1]
    stopped = partial | {"stopped_at": partial["stopped_at"] * 0 + last, "n_evals": partial["n_evals"] * 0 + len(partial["steps"])}
    ckpt.save(stopped | {"device": "cuda"}, 300, RECALL.max_steps)
    started_over = train_recall([RECALL])[0]
    assert reference.summary["steps_run"] > 400 and differences(reference, started_over) == [], "the whole run again"
    ckpt.save(stopped | {"device": "cpu"}, 300, RECALL.max_steps)
    assert train_recall([RECALL])[0].summary["steps_run"] <= 301, "a CPU's state is resumed"


def test_status_says_a_batched_checkpoint_resumes_only_as_its_batch():
    """A GPU chunk's checkpoint names several seeds; `status` must not promise a one-seed CPU run that resumes there."""
    from emergence_lib.cli import describe as progress_text

    alone = progress_text(2, "k2", {"step": 1200, "max_steps": 5000, "keys": ["k2"], "device": "cpu"})
    batch = progress_text(0, "k0", {"step": 17954, "max_steps": 150000, "keys": ["k0", "k1", "k2"]})
    gpu_one = progress_text(1, "k1", {"step": 300, "max_steps": 900, "keys": ["k1"], "device": "cuda"})
    assert alone == "  seed 2 (k2): in progress, step 1,200 of at most 5,000"
    assert batch.startswith("  seed 0 (k0): in progress, step 17,954 of at most 150,000") and "batch of 3 seeds" in batch
    assert "saved on cuda" in gpu_one and "batch" not in gpu_one, "one GPU seed: its device, not a batch"


def test_a_checkpoint_description_names_the_device_its_state_was_saved_on(tmp_path):
    for device in ("cpu", "cuda"):
        checkpoints.Checkpoint(tmp_path, (f"k-{device}",)).save({"device": device, "step": 5, "steps": []}, 5, 10)
        assert checkpoints.progress(tmp_path, f"k-{device}")["device"] == device
