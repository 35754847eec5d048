"""Checkpoints as trustworthy as results: each hostile try of the fourth round, as a test that fails on the code of
the first checkpoint format (no version, no checksum, no config hash, named like a result, saves that raise)."""

import errno
import hashlib
import io
import json
from pathlib import Path

import pytest
import torch

from emergence_lib import checkpoint_state, checkpoints, checkpoints_legacy
from emergence_lib.cache import ResultCache, run_key
from emergence_lib.configs import ConfigError, TransformerRegressionConfig
from emergence_lib.training import train_regression

RUN = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=120, seed=0, stop_factor=None)
OTHER_SEED = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=120, seed=1, stop_factor=None)


def save_three_times(monkeypatch) -> None:
    """A 120-step run saves at steps 0, 40 and 80, not at every step (the unit tier's slowest tests once saved 120
    times a run, with an fsync each)."""
    import itertools

    calls = itertools.count()
    monkeypatch.setattr(checkpoints.Saver, "due", lambda self: self.checkpoint is not None and next(calls) in (0, 40, 80))


def state(step: int = 5, **extra) -> dict:
    return {"step": step, "steps": [s for s in (0, 1, 2, 4) if s <= step]} | extra


def forge(path: Path, header_edit: dict, body: bytes | None = None) -> None:
    """Rewrite a checkpoint's header (and body) with a consistent checksum: what a careful forger would write."""
    raw = path.read_bytes()[len(checkpoints.MAGIC):]
    line, old_body = raw.split(b"\n", 1)
    body = old_body if body is None else body
    header = json.loads(line) | {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()} | header_edit
    path.write_bytes(checkpoints.MAGIC + json.dumps(header).encode() + b"\n" + body)


@pytest.mark.integration  # it trains: the integration tier
def test_a_checkpoint_folder_inside_the_store_never_deletes_a_result(tmp_path):
    """With $EMERGENCE_CHECKPOINT_DIR set to a kind's folder of the store, the clean-up after storing deleted the
    result it had just stored: a checkpoint's description was named ``<key>.json`` like the result."""
    cache = ResultCache(tmp_path / "data")
    stored = cache.save(RUN, train_regression([RUN])[0])
    ckpt = checkpoints.Checkpoint.for_configs([RUN], stored.parent)
    ckpt.save(state(), 5, RUN.max_steps)
    assert ckpt.state_path != stored and ckpt.state_path.suffix == ".ckpt"
    ckpt.remove()
    assert stored.exists() and cache.load(RUN) is not None


def test_another_seeds_state_under_this_seeds_keys_is_set_aside(tmp_path, capsys):
    """Seed 1's state with seed 0's key list was resumed and stored as seed 0: the config hash tells them apart."""
    theirs = checkpoints.Checkpoint.for_configs([OTHER_SEED], tmp_path)
    theirs.save(state(), 5, RUN.max_steps)
    mine = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    theirs.state_path.rename(mine.state_path)
    forge(mine.state_path, {"keys": [run_key(RUN)]})
    assert checkpoints.progress(tmp_path, run_key(RUN)) is not None, "its header alone cannot tell (no config)"
    assert mine.load() is None
    line = capsys.readouterr().err.strip()
    assert "another config" in line and "set aside" in line and len(line.splitlines()) == 1
    assert not mine.state_path.exists() and list((tmp_path / checkpoints.SET_ASIDE).iterdir()), "kept for a look"


@pytest.mark.parametrize("step, max_steps", [(-300, 120), (500, 120), (5, 999)])
def test_an_impossible_step_is_refused(tmp_path, step, max_steps):
    """A step of −300 or beyond max_steps was trained from, or stored with a cut curve."""
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    ckpt.save(state(), 5, RUN.max_steps)
    forge(ckpt.state_path, {"step": step, "max_steps": max_steps})
    assert checkpoints.cpu_resume_step(tmp_path, run_key(RUN)) == 0 or max_steps != RUN.max_steps
    assert ckpt.load() is None
    with pytest.raises(ValueError):
        ckpt.save(state(), -1, RUN.max_steps)


def test_a_state_whose_step_disagrees_with_its_header_is_refused(tmp_path):
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    ckpt.save(state(step=5), 5, RUN.max_steps)
    buffer = io.BytesIO()
    torch.save(state(step=90), buffer)
    forge(ckpt.state_path, {}, buffer.getvalue())
    assert ckpt.load() is None


@pytest.mark.parametrize("damage", ["missing", "truncated", "garbage", "flipped"])
def test_status_the_estimate_and_the_guard_believe_only_a_checkpoint_that_resumes(tmp_path, damage):
    """A description with its state missing, truncated or garbage once waived an 11.3 CPU-hour run."""
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    ckpt.save(state(), 5, RUN.max_steps)
    assert checkpoints.cpu_resume_step(tmp_path, run_key(RUN)) == 5
    raw = ckpt.state_path.read_bytes()
    if damage == "missing":
        ckpt.state_path.unlink()
        (tmp_path / f"{run_key(RUN)}.json").write_text(json.dumps({"step": 5, "max_steps": 120, "keys": [run_key(RUN)]}))
    elif damage == "truncated":
        ckpt.state_path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        ckpt.state_path.write_bytes(b"\0" * len(raw))
    else:
        ckpt.state_path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    assert checkpoints.progress(tmp_path, run_key(RUN)) is None
    assert checkpoints.cpu_resume_step(tmp_path, run_key(RUN)) == 0


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "abc", "1e9"])
def test_a_bad_checkpoint_interval_is_named_before_any_compute(monkeypatch, value, capsys):
    from emergence_lib.cli import main

    monkeypatch.setenv(checkpoints.CHECKPOINT_EVERY_ENV, value)
    with pytest.raises(ConfigError, match=checkpoints.CHECKPOINT_EVERY_ENV):
        checkpoints.every_s()
    assert main(["run", "figure1", "--scale", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and checkpoints.CHECKPOINT_EVERY_ENV in err and len(err.splitlines()) == 1


def test_zero_and_a_plain_number_are_accepted(monkeypatch):
    monkeypatch.setenv(checkpoints.CHECKPOINT_EVERY_ENV, "0")
    assert checkpoints.every_s() == 0
    monkeypatch.setenv(checkpoints.CHECKPOINT_EVERY_ENV, " 120 ")
    assert checkpoints.every_s() == 120


@pytest.mark.integration  # it trains: the integration tier
@pytest.mark.parametrize("obstacle", ["folder_at_path", "file_as_folder", "dangling_link", "disk_full"])
def test_a_failed_save_is_one_line_and_training_goes_on(tmp_path, monkeypatch, capsys, obstacle):
    """Any failed save was a traceback that lost the training since the last save."""
    folder = tmp_path / "ckpt"
    if obstacle == "file_as_folder":
        folder.write_text("not a folder")
    elif obstacle == "dangling_link":
        folder.symlink_to(tmp_path / "nowhere" / "deeper")
    else:
        folder.mkdir()
    if obstacle == "folder_at_path":
        checkpoints.Checkpoint.for_configs([RUN], folder).state_path.mkdir()
    if obstacle == "disk_full":
        def full(*_a, **_k):
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr(checkpoints.torch, "save", full)
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    save_three_times(monkeypatch)
    result = train_regression([RUN])[0]
    assert result.summary["steps_run"] == RUN.max_steps, "trained to its end"
    lines = [line for line in capsys.readouterr().err.splitlines() if "not saved" in line or "set aside" in line]
    assert len(lines) == 1, "one line, said once"
    # A folder where the checkpoint goes is found when training looks for a state to resume: set aside, not read.
    assert ("set aside (not a regular file)" if obstacle == "folder_at_path" else "training goes on") in lines[0]


def test_a_failed_save_keeps_the_last_good_checkpoint(tmp_path, monkeypatch, capsys):
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    saver = checkpoints.Saver(ckpt, every=0)
    saver.save(state(), 5, RUN.max_steps)
    good = ckpt.state_path.read_bytes()

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(checkpoints.torch, "save", full)
    saver.save(state(step=9), 9, RUN.max_steps)
    assert ckpt.state_path.read_bytes() == good and checkpoints.progress(tmp_path, run_key(RUN))["step"] == 5
    assert [p.name for p in tmp_path.iterdir()] == [ckpt.state_path.name], "no temporary file left"
    assert "No space left on device" in capsys.readouterr().err


@pytest.mark.integration  # it trains: the integration tier
def test_a_state_of_another_layout_starts_over_instead_of_crashing(tmp_path, monkeypatch, capsys):
    """A checkpoint of another layout or shape crashed every rerun (the format had no version)."""
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(checkpoints.CHECKPOINT_EVERY_ENV, "600")
    reference = train_regression([RUN])[0]
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    everything = {k: [] for k in checkpoint_state.TRAINING_STATE} | state()
    ckpt.save(everything | {"model": {"w": torch.zeros(3, 3)}}, 5, RUN.max_steps)
    again = train_regression([RUN])[0]
    assert again.summary["plateau_length"] == reference.summary["plateau_length"]
    assert "another layout" in capsys.readouterr().err


def test_a_first_format_checkpoint_is_upgraded_only_after_its_checks(tmp_path):
    key = run_key(RUN)
    payload = {"keys": [key], "state": state()}
    torch.save(payload, tmp_path / f"{key}.pt")
    (tmp_path / f"{key}.json").write_text(json.dumps({"step": 5, "max_steps": 120, "keys": [key], "device": "cpu"}))
    assert checkpoints.progress(tmp_path, key) is None, "never resumed as it is"
    assert checkpoints_legacy.legacy(tmp_path)[0][0] == key
    wrong = run_key(OTHER_SEED)
    torch.save({"keys": [key], "state": state()}, tmp_path / f"{wrong}.pt")  # another run's state under this name
    (tmp_path / f"{wrong}.json").write_text(json.dumps({"step": 5, "max_steps": 120, "keys": [wrong]}))
    lines = checkpoints_legacy.upgrade_legacy(tmp_path, {key: RUN, wrong: OTHER_SEED})
    assert any("upgraded" in line and key in line for line in lines)
    assert any("other runs" in line and wrong in line for line in lines)
    assert checkpoints.progress(tmp_path, key)["step"] == 5
    assert checkpoints.Checkpoint.for_configs([RUN], tmp_path).load() == state()


# ---- the independent re-test of this round (a helper with no access to the code's intent) found these -------------


@pytest.mark.integration  # it trains: the integration tier
def test_a_checkpoint_that_cannot_be_removed_is_one_line_and_the_sweep_goes_on(tmp_path, monkeypatch, capsys):
    """`.checkpoints` a file: the result was stored, then `remove` raised NotADirectoryError and the sweep stopped."""
    from emergence_lib.sweep import run_sweep

    monkeypatch.delenv(checkpoints.CHECKPOINT_DIR_ENV, raising=False)
    (tmp_path / ".checkpoints").write_text("a file where the folder goes")
    cache = ResultCache(tmp_path / "data")
    result = run_sweep([RUN, OTHER_SEED], cache, progress=False, executor="serial")
    assert result.n_computed == 2 and cache.load(RUN) is not None and cache.load(OTHER_SEED) is not None


def _mid_run_state(tmp_path, monkeypatch) -> dict:
    folder = tmp_path / "scratch"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    save_three_times(monkeypatch)
    train_regression([RUN])
    monkeypatch.undo()  # saves back to the interval; the folder is set again by the caller
    state = checkpoints.Checkpoint.for_configs([RUN], folder).load()
    assert state is not None
    return state


@pytest.mark.integration  # it trains: the integration tier
@pytest.mark.parametrize("damage", ["optimizer_of_another_width", "no_random_streams", "records_cut",
                                    "members_wrong", "optimizer_empty"])
def test_a_state_whose_parts_have_another_layout_is_set_aside_not_crashed_on(tmp_path, monkeypatch, capsys, damage):
    """A checksum-consistent file whose optimiser, random streams, curves or per-member arrays do not fit the run
    crashed every rerun (RuntimeError, ValueError, KeyError, IndexError): it is now set aside and the run starts over."""
    import numpy as np

    reference = train_regression([RUN])[0]
    state = _mid_run_state(tmp_path, monkeypatch)
    if damage == "optimizer_of_another_width":
        for entry in state["optimizer"]["state"].values():
            for k, v in entry.items():
                if v.ndim > 0:
                    entry[k] = torch.zeros(*(2 * n for n in v.shape))
    elif damage == "no_random_streams":
        state["rng"] = []
    elif damage == "records_cut":
        state["records"] = {k: v[:-1] for k, v in state["records"].items()}
    elif damage == "members_wrong":
        state["n_evals"] = np.zeros(3, dtype=int)
    else:
        state["optimizer"] = {}
    folder = tmp_path / "ckpt"
    checkpoints.Checkpoint.for_configs([RUN], folder).save(state, state["step"], RUN.max_steps)
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    monkeypatch.setenv(checkpoints.CHECKPOINT_EVERY_ENV, "600")
    capsys.readouterr()
    again = train_regression([RUN])[0]
    assert again.summary["plateau_length"] == reference.summary["plateau_length"], "started over, same run"
    assert "set aside" in capsys.readouterr().err


@pytest.mark.parametrize("forged", ["config_hash", "budget"])
def test_status_the_estimate_and_the_guard_check_the_config_and_budget_as_load_does(tmp_path, forged):
    """A header with this run's key but another config's hash, or another step budget, was believed by `progress`
    (the estimate priced it, the guard waived a run of 5.3 M ceiling-seconds) while `load` refused it."""
    from emergence_lib.checkpoints import config_hash

    key = run_key(RUN)
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    ckpt.save(state(), 5, RUN.max_steps)
    edit = {"config_hashes": [config_hash(OTHER_SEED)]} if forged == "config_hash" else {"max_steps": 1000}
    forge(ckpt.state_path, edit)
    assert checkpoints.progress(tmp_path, key) is not None, "the header alone cannot tell"
    assert checkpoints.progress(tmp_path, key, RUN) is None
    assert checkpoints.cpu_resume_step(tmp_path, key, RUN) == 0
    assert ckpt.load() is None


def test_status_reads_the_checkpoint_folder_runs_resume_from(tmp_path, monkeypatch, capsys):
    """`status` looked beside the store while the estimate and training used $EMERGENCE_CHECKPOINT_DIR."""
    from emergence_lib.cli import main
    from emergence_lib.experiments import figures

    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(elsewhere))
    run = figures()["figure14"](scale="cpu").runs()[0]
    checkpoints.Checkpoint.for_configs([run], elsewhere).save(state(50), 50, run.max_steps)
    assert main(["status", "figure14", "--scale", "cpu"]) == 0
    assert "in progress, step 50" in capsys.readouterr().out
