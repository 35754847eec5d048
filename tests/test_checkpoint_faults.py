"""The fifth hostile round on checkpoints (issue 62 item 4): each try, as a test that fails on the code before its fix.
A checksum-consistent ("forged") file whose optimiser, settings or values are not this run's is set aside and the run
starts over, the config's settings win, a record is checked before it is stored, and `status`, the estimate and
`upgrade-checkpoints` trust a checkpoint only as far as `load` would.

Runs train a tiny model for 120 steps and save three times (`save_three_times`), not at every step."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from emergence_lib import checkpoints, checkpoints_legacy
from emergence_lib.cache import CacheError, ResultCache, differences, run_key
from emergence_lib.configs import TransformerRegressionConfig
from emergence_lib.results import RunResult
from emergence_lib.training import train_regression
from test_checkpoint_trust import save_three_times  # one helper for both fault rounds

RUN = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=120, seed=0, stop_factor=None)
SGD = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=120, seed=0, stop_factor=None,
                                  optimizer="sgd")


def _mid_run_state(tmp_path: Path, monkeypatch, config=RUN) -> dict:
    folder = tmp_path / "scratch"
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    save_three_times(monkeypatch)
    train_regression([config])
    state = checkpoints.Checkpoint.for_configs([config], folder).load()
    assert state is not None and state["step"] == 80
    return state


def _resume_from(state: dict, tmp_path: Path, monkeypatch, capsys) -> tuple[RunResult, str]:
    folder = tmp_path / "ckpt"
    checkpoints.Checkpoint.for_configs([RUN], folder).save(state, state["step"], RUN.max_steps)
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    capsys.readouterr()
    result = train_regression([RUN])[0]
    return result, capsys.readouterr().err


@pytest.mark.integration
def test_another_optimisers_state_is_set_aside_not_crashed_on(tmp_path, monkeypatch, capsys):
    """Try 1: an SGD run's state under an Adam run's key raised KeyError: 'betas' at the first step, on every rerun."""
    reference = train_regression([RUN])[0]
    sgd_state = _mid_run_state(tmp_path, monkeypatch, SGD)
    again, err = _resume_from(sgd_state, tmp_path, monkeypatch, capsys)
    assert "set aside" in err and "optimiser is not this run's" in err, err
    assert differences(reference, again) == [], "started over: the same run"


@pytest.mark.integration
def test_the_configs_learning_rate_wins_over_the_files(tmp_path, monkeypatch, capsys):
    """Try 2: a forged lr of 1000 in the saved groups trained to a loss of 1e30, stored as an intact record."""
    reference = train_regression([RUN])[0]
    state = _mid_run_state(tmp_path, monkeypatch)
    for group in state["optimizer"]["param_groups"]:
        group["lr"] = 1000.0
    monkeypatch.setattr(checkpoints.Saver, "due", lambda self: False)
    again, _ = _resume_from(state, tmp_path, monkeypatch, capsys)
    assert differences(reference, again) == [], "resumed with the config's lr: exactly the uninterrupted run"


@pytest.mark.integration
@pytest.mark.parametrize("forged", ["seconds_text", "seconds_negative", "seconds_huge", "record_text", "stopped_early"])
def test_forged_state_values_are_set_aside_and_the_run_stores_a_sound_record(tmp_path, monkeypatch, capsys, forged):
    """Try 3: 'x' or a string in the records raised on every rerun; −1e6 or a stop at step 5 stored a record `verify`
    called corrupt; 1e300 was stored."""
    reference = train_regression([RUN])[0]
    state = _mid_run_state(tmp_path, monkeypatch)
    if forged.startswith("seconds"):
        state["seconds"] = {"seconds_text": "x", "seconds_negative": -1e6, "seconds_huge": 1e300}[forged]
    elif forged == "record_text":
        name = next(iter(state["records"]))
        state["records"][name][0] = np.array(["a"])
    else:
        state["stopped_at"] = np.full_like(state["stopped_at"], 5)
    monkeypatch.setattr(checkpoints.Saver, "due", lambda self: False)
    again, err = _resume_from(state, tmp_path, monkeypatch, capsys)
    assert "set aside" in err, err
    assert differences(reference, again) == []
    ResultCache(tmp_path / "data").save(RUN, again)  # a sound record: stored, and read back
    assert ResultCache(tmp_path / "data").load(RUN) is not None


@pytest.mark.parametrize("seconds", [-1e6, 1e300, float("inf")])
def test_the_store_applies_the_schema_before_it_writes(tmp_path, seconds):
    """`ResultCache.save` wrote what `load` then refused: the same schema now guards both, seconds bounded."""
    cache = ResultCache(tmp_path)
    bad = RunResult(summary={"plateau_length": 50.0, "reached": True, "status": "crossed", "steps_run": 60,
                             "seconds": seconds, "initial_loss": 0.5, "final_loss": 0.05},
                    curve={"step": [0.0, 10.0], "loss_no_repetition": [0.5, 0.05]})
    with pytest.raises(CacheError, match="not a run this code writes"):
        cache.save(RUN, bad)
    assert not list(tmp_path.rglob("*.json")), "nothing stored"


def _write(path: Path, header: dict, body: bytes) -> None:
    import hashlib

    header = header | {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(checkpoints.MAGIC + json.dumps(header).encode() + b"\n" + body)


@pytest.mark.parametrize("body", ["not_torch", "not_a_state"])
def test_status_and_the_guard_ignore_a_header_over_a_body_that_does_not_load(tmp_path, body):
    """Try 4: a self-consistent header at step = max_steps over a body that is not a training state made the guard
    pass and the estimate say 0 CPU-hours; `progress` now checks what `load` checks without a run."""
    from emergence_lib.checkpoints import config_hash

    raw = b"not a torch file at all" * 100 if body == "not_torch" else _torch_bytes([1, 2, 3])
    header = {"format": checkpoints.FORMAT, "keys": [run_key(RUN)], "config_hashes": [config_hash(RUN)],
              "step": RUN.max_steps, "max_steps": RUN.max_steps, "device": "cpu", "saved_at": 0.0}
    _write(tmp_path / f"{run_key(RUN)}{checkpoints.SUFFIX}", header, raw)
    assert checkpoints.progress(tmp_path, run_key(RUN), RUN) is None
    assert checkpoints.cpu_resume_step(tmp_path, run_key(RUN), RUN) == 0


def _torch_bytes(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _legacy_pair(folder: Path, step: int, state: dict) -> None:
    key = run_key(RUN)
    torch.save({"keys": [key], "state": state}, folder / f"{key}.pt")
    (folder / f"{key}.json").write_text(json.dumps({"step": step, "max_steps": RUN.max_steps, "keys": [key]}))


def test_upgrade_keeps_a_newer_checkpoint_and_run_names_the_file_it_resumes(tmp_path, capsys):
    """Try 5: with a checkpoint at step 80 and a first-format pair at step 40, upgrade replaced the newer one (data
    loss), and `run` told the user to upgrade while it resumed the newer file."""
    newer = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    newer.save({"step": 80, "steps": [0, 40, 80]}, 80, RUN.max_steps)
    _legacy_pair(tmp_path, 40, {"step": 40, "steps": [0, 40]})
    lines = checkpoints_legacy.upgrade_legacy(tmp_path, {run_key(RUN): RUN})
    assert "the newer is kept" in lines[0], lines
    assert checkpoints.progress(tmp_path, run_key(RUN), RUN)["step"] == 80, "not rolled back"
    capsys.readouterr()
    checkpoints_legacy.say_not_resumed(tmp_path, [run_key(RUN)])
    said = capsys.readouterr().err
    assert f"resumes from {newer.state_path}" in said and "(step 80)" in said, said


def test_an_older_checkpoint_is_replaced_by_a_further_first_format_one(tmp_path):
    older = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    older.save({"step": 20, "steps": [0, 20]}, 20, RUN.max_steps)
    _legacy_pair(tmp_path, 40, {"step": 40, "steps": [0, 40]})
    lines = checkpoints_legacy.upgrade_legacy(tmp_path, {run_key(RUN): RUN})
    assert "upgraded" in lines[0] and checkpoints.progress(tmp_path, run_key(RUN), RUN)["step"] == 40


def test_status_never_shows_a_first_format_files_claimed_step_as_progress(tmp_path, monkeypatch, capsys):
    """Try 4: a first-format .json edited to step 60,000 of 50,000 was printed as 'in progress, step 60,000'."""
    from emergence_lib.cli import main
    from emergence_lib.experiments import figures

    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    folder = tmp_path / "ckpt"
    folder.mkdir()
    monkeypatch.setenv(checkpoints.CHECKPOINT_DIR_ENV, str(folder))
    run = figures()["figure14"](scale="cpu").runs()[0]
    key = run_key(run)
    (folder / f"{key}.pt").write_bytes(_torch_bytes({"keys": [key], "state": {}}))
    (folder / f"{key}.json").write_text(json.dumps({"step": 60_000, "max_steps": run.max_steps}))
    assert main(["status", "figure14", "--scale", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "60,000" not in out and "in progress" not in out and "first format, not checked" in out, out


def test_a_device_the_training_never_writes_is_refused_and_never_priced_as_progress(tmp_path):
    """Try 9: a header device of 'bpu' resumed, but was priced as 0 steps done."""
    ckpt = checkpoints.Checkpoint.for_configs([RUN], tmp_path)
    ckpt.save({"step": 40, "steps": [0, 40], "device": "cpu"}, 40, RUN.max_steps)
    raw = ckpt.state_path.read_bytes()[len(checkpoints.MAGIC):]
    line, body = raw.split(b"\n", 1)
    _write(ckpt.state_path, json.loads(line) | {"device": "bpu"}, body)
    assert checkpoints.progress(tmp_path, run_key(RUN), RUN) is None and ckpt.load() is None
    ckpt.save({"step": 40, "steps": [0, 40], "device": "bpu"}, 40, RUN.max_steps)  # the body's own device
    assert checkpoints.progress(tmp_path, run_key(RUN), RUN) is None and ckpt.load() is None


def test_a_long_device_name_is_cut_in_its_one_line_error():
    from emergence_lib.configs import ConfigError
    from emergence_lib.devices import check_device_name

    with pytest.raises(ConfigError) as refused:
        check_device_name("x" * 120_000)
    assert len(str(refused.value)) < 200 and "120,002 characters" in str(refused.value)


def test_no_checkpoint_folder_means_nothing_to_remove_and_nothing_said(tmp_path, capsys):
    """Try 9: with `.checkpoints` a file, the last message told the user to remove a checkpoint that did not exist."""
    (tmp_path / "ckpt").write_text("a file where the folder goes")
    checkpoints.Checkpoint.for_configs([RUN], tmp_path / "ckpt").remove()
    assert capsys.readouterr().err == ""


def test_a_killed_stores_draft_is_removed_when_its_run_is_stored(tmp_path):
    """Try 9: `.tmp` drafts of killed stores piled up until `prune` removed them an hour later."""
    cache = ResultCache(tmp_path)
    draft = cache.path(RUN).parent / f".{cache.path(RUN).stem}.abc123.tmp"
    draft.parent.mkdir(parents=True)
    draft.write_text("{half a record")
    summary = {"plateau_length": 50.0, "reached": True, "status": "crossed", "measured_on": "no_repetition",
               "steps_run": 60, "final_time": 60.0, "final_loss": 0.05, "initial_loss": 0.5, "seconds": 1.0}
    cache.save(RUN, RunResult(summary=summary, curve={"step": np.array([0.0, 50.0]),
                                                      "loss_no_repetition": np.array([0.5, 0.05])}))
    assert not draft.exists() and cache.load(RUN) is not None


def test_a_field_added_to_the_configs_at_its_default_keeps_every_checkpoint():
    """Adding `position_scale` (at its default) to every regression config changed the hash over all fields, and the
    next sweep set aside both checkpoints in flight (40 minutes of Table 1's model each): the hash now reads the
    config as its key does, fields added later left out at their default."""
    from emergence_lib.cache import config_dict
    from emergence_lib.checkpoints import config_hash

    assert "position_scale" not in config_dict(RUN) and "relevance_gain" not in config_dict(RUN)
    assert config_hash(RUN) == config_hash(TransformerRegressionConfig(**{**config_dict(RUN), "position_scale": 1.0}))
    assert config_hash(RUN) != config_hash(TransformerRegressionConfig(**{**config_dict(RUN), "position_scale": 0.25}))
