"""Issue 53 item 7, the store's fourth hostile round: records whose content contradicts their config (checksum
recomputed), records with fields newer than this code, files over any run's size, chapter grids without an upper
bound and a data folder whose name the file system refuses. Each passed, was overwritten or gave a traceback before."""

from __future__ import annotations

import json

import pytest

from emergence_lib.cache import CacheError, ResultCache, record_checksum
from emergence_lib.cli import main as cli
from emergence_lib.configs import ToyFlowConfig, TransformerRegressionConfig
from emergence_lib.record_schema import MAX_RECORD_BYTES
from emergence_lib.sweep import run_sweep

TOY = ToyFlowConfig(T=16, d=4)
SMALL = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, lr=3e-3, max_steps=150, seed=0, stop_factor=None)


@pytest.fixture(scope="module")
def _trained(tmp_path_factory):
    """The two runs trained once per module (a worker), then copied into each test's own store."""
    root = tmp_path_factory.mktemp("trained")
    run_sweep([TOY, SMALL], ResultCache(root), progress=False, executor="serial")
    return root


@pytest.fixture
def store(data_dir, _trained):
    import shutil

    shutil.copytree(_trained, data_dir, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.lock"))
    return ResultCache(data_dir)


def _tamper(cache: ResultCache, config, edit) -> None:
    """Edit a stored record and recompute its checksum: what passed `verify` before this round."""
    path = cache.path(config)
    record = json.loads(path.read_text())
    edit(record)
    record["checksum"] = record_checksum(record)
    path.write_text(json.dumps(record, allow_nan=True))


def _set(section: str, field: str, value):
    return lambda r: r[section].__setitem__(field, value)


def _scale_steps(factor: float):
    return lambda r: r["curve"].__setitem__("step", [s * factor for s in r["curve"]["step"]])


def _empty_curves(r):
    r["curve"] = {k: [] for k in r["curve"]}


TAMPERS = {
    "plateau of 1e9 with max_steps 150": (SMALL, _set("summary", "plateau_length", 1e9), "beyond the run's max_steps"),
    "steps_run beyond max_steps": (SMALL, _set("summary", "steps_run", 10_000), "steps_run 10000 is beyond"),
    "status against reached": (SMALL, _set("summary", "status", "not_reached"), "contradicts reached"),
    "negative curve steps": (SMALL, _scale_steps(-1), "curve step"),
    "curve steps × 1000": (SMALL, _scale_steps(1000), "to 150000.0, outside"),
    "all-empty curves": (SMALL, _empty_curves, "is empty"),
    "seconds of 1e-6": (SMALL, _set("summary", "seconds", 1e-6), "faster than any device"),
    "cuda on a toy flow": (TOY, _set("meta", "device", "cuda"), "runs on the CPU only"),
}


@pytest.mark.parametrize("name", list(TAMPERS))
def test_a_record_whose_content_contradicts_its_config_is_refused(store, name, capsys):
    config, edit, message = TAMPERS[name]
    _tamper(store, config, edit)
    with pytest.raises(CacheError, match=message):
        store.load(config)
    assert cli(["verify"]) == 1 and "1 bad" in capsys.readouterr().out, "whole-store verify names it too"


@pytest.mark.parametrize("where", ["summary", "record"])
def test_a_record_with_fields_newer_than_this_code_is_kept_and_named_never_overwritten(store, where):
    """A summary field this code does not know (as a newer checkout would write) was called unreadable, recomputed
    and overwritten."""
    if where == "summary":
        _tamper(store, TOY, _set("summary", "escape_time", 12.5))
    else:
        _tamper(store, TOY, lambda r: r.__setitem__("provenance", {"by": "a newer checkout"}))
    before = store.path(TOY).read_bytes()
    lenient = ResultCache(store.root, on_corrupt="recompute")
    with pytest.raises(CacheError, match="does not know.*kept as it is"):
        lenient.load(TOY)
    with pytest.raises(CacheError, match="kept as it is"):
        run_sweep([TOY], lenient, progress=False)
    assert store.path(TOY).read_bytes() == before, "never overwritten"


def test_a_file_over_any_runs_size_is_never_read_whole_nor_overwritten(store):
    """A 4 GB file at a result path was read whole (MemoryError). A sparse file costs no disk."""
    path = store.path(TOY)
    with open(path, "r+b") as fh:
        fh.truncate(MAX_RECORD_BYTES + 1)
    lenient = ResultCache(store.root, on_corrupt="recompute")
    with pytest.raises(CacheError, match="over the .* a stored run may hold"):
        lenient.load(TOY)
    assert path.stat().st_size == MAX_RECORD_BYTES + 1
    n, bad = store.check_all()
    assert any("a stored run may hold" in line for line in bad)


def test_a_data_folder_name_too_long_for_the_file_system_is_one_line(monkeypatch, tmp_path, capsys):
    """A 300-character folder name in EMERGENCE_DATA_DIR gave a traceback again (a regression of round 3)."""
    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(tmp_path / ("x" * 300)))
    for verb in (["status", "figure1"], ["run", "figure1"], ["verify"]):
        assert cli(verb) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("error: EMERGENCE_DATA_DIR names a path too long") and len(err.splitlines()) == 1


@pytest.mark.parametrize("chapter, name, value, message", [
    ("01_toy_model", "T_values", [10_000_000_000], "T_values entry must be an integer from 2 to 65,536"),
    ("01_toy_model", "d_values", [4, 100_000], "d_values entry must be an integer from 1 to 2,048"),
    ("02_repetition_toy", "B_values", list(range(1, 40)), "at most 16 values"),
    ("02_repetition_toy", "p_values", [0.01 * i for i in range(30)], "at most 16 values"),
])
def test_every_chapter_grid_parameter_has_an_upper_bound(chapter, name, value, message):
    """`-p T_values '[10000000000]'` at smoke scale kept a kernel busy with no bound."""
    from emergence_lib.configs import ConfigError
    from emergence_lib.experiments import check_chapter_parameters

    with pytest.raises(ConfigError, match=message):
        check_chapter_parameters(chapter, {"scale": "smoke"}, {name: value})


# ---- the independent re-test of this round found these; each passed `verify` before ---------------------------------

MORE = {
    "plateau beyond steps_run": (SMALL, lambda r: r["summary"].__setitem__("plateau_length", r["summary"]["steps_run"] + 37.0),
                                 "beyond the"),
    "curve steps past steps_run": (SMALL, lambda r: r["summary"].__setitem__("steps_run", int(r["curve"]["step"][-1]) - 1),
                                   "beyond the"),
    "a negative loss": (SMALL, lambda r: r["curve"].__setitem__("loss_no_repetition", [-5.0] * len(r["curve"]["step"])),
                        "negative loss"),
    "crossed, but the curve never does": (SMALL, lambda r: r["curve"].__setitem__(
        "loss_no_repetition", [0.49] * len(r["curve"]["step"])), "never does"),
    "steps_run 0 with points": (SMALL, _set("summary", "steps_run", 0), "beyond the"),
}


@pytest.mark.parametrize("name", list(MORE))
def test_a_record_whose_parts_contradict_each_other_is_refused(store, name):
    config, edit, message = MORE[name]
    record = json.loads(store.path(config).read_text())
    assert record["summary"]["reached"], "the stored run crossed"
    _tamper(store, config, edit)
    with pytest.raises(CacheError, match=message):
        store.load(config)


def test_prune_passes_over_a_file_over_any_runs_size(store, capsys):
    """`prune --dry-run` read a 4 GB file at a result path whole (MemoryError)."""
    path = store.path(TOY)
    with open(path, "r+b") as fh:
        fh.truncate(MAX_RECORD_BYTES + 1)
    assert cli(["prune", "--dry-run"]) == 0
    assert path.stat().st_size == MAX_RECORD_BYTES + 1


def test_a_store_error_inside_a_chapter_is_one_line(monkeypatch, tmp_path, capsys):
    """`execute` turned a CacheError raised inside the chapter (a data folder name too long) into a 74-line
    traceback; a ConfigError was already one line."""
    from pathlib import Path

    chapter = Path(__file__).resolve().parent.parent / "chapters" / "01_toy_model.ipynb"
    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(tmp_path / ("x" * 300)))
    assert cli(["execute", str(chapter), str(tmp_path / "out.ipynb"), "-p", "scale", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "too long" in err[-1] and not any("Traceback" in line for line in err)
