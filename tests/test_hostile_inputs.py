"""Issue 37's hostile inputs, each a test: special files where a run or a lock should be, a full disk, outputs on
another checkout's chapters, parameters checked before any kernel, one-line command-line errors (exit 2), and a
store that is missing, read-only or holds a malformed file. Each names what is wrong and removes nothing."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from emergence_lib.cache import CacheError, ResultCache, special_file
from emergence_lib.cli import main as cli
from emergence_lib.configs import ToyFlowConfig
from emergence_lib.locks import claim, lock_path

ROOT = Path(__file__).resolve().parent.parent
RUN = ToyFlowConfig(T=16, d=4)


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    return err


@pytest.mark.parametrize("kind", ["fifo", "dev_zero_link", "dangling_link", "folder"])
def test_special_files_at_a_result_path_are_named_never_read(tmp_path, kind):
    cache = ResultCache(tmp_path)
    path = cache.path(RUN)
    path.parent.mkdir(parents=True)
    {"fifo": lambda: os.mkfifo(path), "dev_zero_link": lambda: path.symlink_to("/dev/zero"),
     "dangling_link": lambda: path.symlink_to(tmp_path / "gone.json"), "folder": lambda: path.mkdir()}[kind]()
    assert special_file(path) is not None
    start = time.monotonic()
    with pytest.raises(CacheError, match="not a stored run"):
        ResultCache(tmp_path, on_corrupt="recompute").load(RUN)  # refused even where a corrupt file is recomputed
    n, bad = cache.check_all()
    assert (n, len(bad)) == (1, 1) and "never read" in bad[0]
    assert time.monotonic() - start < 5, "nothing waited on the file"


@pytest.mark.parametrize("kind", ["fifo", "dangling_link"])
def test_special_files_at_a_lock_path_are_named_never_waited_on(tmp_path, kind):
    lock = lock_path(ResultCache(tmp_path).path(RUN))
    lock.parent.mkdir(parents=True)
    os.mkfifo(lock) if kind == "fifo" else lock.symlink_to(tmp_path / "gone")
    with pytest.raises(CacheError, match="not a lock"):
        claim(lock)


def test_a_full_disk_while_saving_or_locking_is_one_line_and_leaves_no_draft(tmp_path, monkeypatch):
    from emergence_lib.runs import runner_for

    cache = ResultCache(tmp_path)
    (result,) = runner_for(RUN.kind)([RUN], device="cpu")

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(json, "dump", full)
    with pytest.raises(CacheError, match="No space left"):
        cache.save(RUN, result)
    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(CacheError, match="No space left"):
        claim(lock_path(cache.path(RUN)))
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [], "no draft, temporary file or lock left"


def test_outputs_never_land_on_another_checkouts_chapters(tmp_path, capsys):
    other = tmp_path / "other" / "chapters"
    other.mkdir(parents=True)
    theirs = other / "01_toy_model.ipynb"
    shutil.copy(ROOT / "chapters" / "01_toy_model.ipynb", theirs)
    before = theirs.read_bytes()
    assert cli(["execute", str(ROOT / "chapters" / "01_toy_model.ipynb"), str(theirs), "-p", "scale", "smoke"]) == 2
    assert "beside committed chapters" in _one_line_error(capsys)
    assert cli(["prepare", "--scale", "smoke", "--out", str(other), str(ROOT / "chapters" / "01_toy_model.ipynb")]) == 2
    _one_line_error(capsys)
    assert theirs.read_bytes() == before


@pytest.mark.parametrize("value", ["[True, 128]", "[-5]", "[64, 64]", "[]"])
def test_every_chapter_parameter_is_checked_before_a_kernel_starts(tmp_path, capsys, value, monkeypatch):
    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a kernel was started"))
    assert cli(["execute", str(ROOT / "chapters" / "01_toy_model.ipynb"), str(tmp_path / "x.ipynb"),
                "-p", "T_values", value]) == 2
    assert "T_values" in _one_line_error(capsys)
    for name, bad in (("device", "None"), ("confirm_cost", "maybe")):
        assert cli(["execute", str(ROOT / "chapters" / "03_transformer.ipynb"), str(tmp_path / "x.ipynb"), "-p", name, bad]) == 2
        assert name in _one_line_error(capsys)


def test_papermill_parses_every_parameters_cell_without_a_warning():
    """Papermill's own parser skips a parameter line it cannot read (a ';' in its comment did it) and then warns
    that a valid -p NAME is unknown."""
    from papermill.translators import PythonTranslator

    from emergence_lib.notebooks import _parameters_cells, accepted_parameters

    for chapter in sorted((ROOT / "chapters").glob("*.ipynb")):
        source = "\n".join(c.source for c in _parameters_cells(chapter))
        parsed = [p.name for p in PythonTranslator.inspect({"source": source})]
        assert parsed == accepted_parameters(chapter), chapter.name


@pytest.mark.parametrize("argv", [["bogus"], ["run"], ["verify", "--sample", "x"], ["execute", "README.md", "x.ipynb"]])
def test_argument_errors_and_non_notebooks_are_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli(argv) == 2
    _one_line_error(capsys)


@pytest.mark.parametrize("verb", [["verify"], ["prune"], ["migrate"]])
def test_a_missing_store_is_named_not_read_as_empty(verb, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(tmp_path / "typo"))
    assert cli(verb) == 2
    assert "no store at" in _one_line_error(capsys)


def test_clear_and_prune_on_a_store_that_refuses_removals_remove_nothing(data_dir, monkeypatch, capsys):
    from emergence_lib.experiments import Figure1
    from emergence_lib.runs import runner_for

    run = Figure1(scale="cpu").runs()[0]
    cache = ResultCache(data_dir)
    (result,) = runner_for(run.kind)([run], device="cpu")
    cache.save(run, result)
    stale = cache.path(run).with_name(".x.tmp")
    stale.write_text("")
    os.utime(stale, (0, 0))  # an interrupted write's leftover: prune would remove it
    real = Path.write_text

    def refuse_probe(self, *a, **k):
        if self.name.startswith(".removal-probe"):
            raise PermissionError(1, "Operation not permitted")
        return real(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", refuse_probe)
    for argv in (["clear", "figure1", "--force"], ["prune"]):
        assert cli(argv) == 2
        assert "nothing was removed" in _one_line_error(capsys)
    assert cache.path(run).exists() and stale.exists()


def test_migrate_names_a_record_whose_config_is_a_list(data_dir, capsys):
    folder = data_dir / "transformer_recall"
    folder.mkdir(parents=True)
    (folder / "abc.json").write_text(json.dumps({"config": [1, 2], "summary": {}, "curve": {}}))
    assert cli(["migrate"]) == 2
    assert "config is a list" in _one_line_error(capsys)


def test_dask_whose_import_fails_is_one_line(data_dir, monkeypatch, capsys):
    real = builtins.__import__

    def broken(name, *a, **k):
        if name.split(".")[0] == "distributed":
            raise RuntimeError("a broken install")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", broken)
    assert cli(["run", "figure1", "--executor", "dask", "--workers", "1"]) == 2
    assert "could not import distributed" in _one_line_error(capsys)


def test_run_checks_only_the_missing_runs_for_writability(data_dir, monkeypatch, capsys):
    import emergence_lib.cli as cli_module

    seen: list[list] = []
    monkeypatch.setattr(cli_module.ResultCache, "check_writable", lambda self, configs: seen.append(list(configs)))
    monkeypatch.setattr(cli_module, "run_sweep", lambda runs, cache, **k: None)
    cli(["run", "figure2_constant"])
    assert seen and len(seen[0]) == len({r for r in cli_module._figure("figure2_constant", "cpu").runs()}), \
        "an empty store: every run is missing"


def test_long_work_is_refused_where_all_training_passes(data_dir, monkeypatch):
    """Issue 37 item 3: the guard sits in run_sweep, so ctx.sweep and predict_emergence cannot bypass it; a small
    sweep never pays for timing its shapes."""
    import emergence_lib.estimate as estimate_module
    from emergence_lib.configs import ConfigError, TransformerRegressionConfig
    from emergence_lib.experiments import chapter_context
    from emergence_lib.experiments.prediction.read import predict_emergence
    from emergence_lib.sweep import run_sweep

    monkeypatch.setattr(estimate_module, "step_seconds",
                        lambda runs, timer=None, progress=None: {estimate_module.shape_of(r): 0.5 for r in runs})
    big = [TransformerRegressionConfig(T=256, d=64, seed=s) for s in range(3)]
    with pytest.raises(ConfigError, match="CPU-hours.*confirm_cost"):
        chapter_context("paper", "cpu", False).sweep(big)
    with pytest.raises(ConfigError, match="CPU-hours"):
        predict_emergence(big[0], scale="paper")
    assert not list(data_dir.rglob("*.json")), "nothing trained before the user agreed"
    monkeypatch.setattr(estimate_module, "step_seconds", lambda *a, **k: pytest.fail("a small sweep was timed"))
    run_sweep([TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, max_steps=20)], None, progress=False)
