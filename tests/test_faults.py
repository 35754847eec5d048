"""Faults a hostile but fair user tries (issue 14's small ones): each is one line on stderr and exit 2, before
any compute, or, for the results store, files a shared folder can read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from emergence_lib.cache import ResultCache
from emergence_lib.results import RunResult
from emergence_lib.cli import main as cli
from emergence_lib.configs import ToyFullGDConfig

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"


def _one_line_error(capsys, message: str) -> None:
    """The error is one line, the last of stderr (a progress bar may come before it), and no traceback."""
    err = capsys.readouterr().err.strip()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0] and err.splitlines()[-1] == errors[0], f"got:\n{err}"
    assert "Traceback" not in err


def test_scheduler_with_another_executor_is_refused(data_dir, capsys):
    assert cli(["run", "figure6", "--executor", "local", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    _one_line_error(capsys, "--scheduler needs --executor dask")
    assert not data_dir.exists()  # nothing computed, nothing written


def test_scheduler_alone_means_dask(data_dir, capsys):
    # Not silently ignored: the Dask executor tries the address (and fails within its timeout).
    assert cli(["run", "figure6", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    _one_line_error(capsys, "could not reach the Dask scheduler")


def test_a_malformed_scheduler_address_is_one_line(data_dir, capsys):
    assert cli(["run", "figure6", "--executor", "dask", "--scheduler", "garbage://x"]) == 2
    _one_line_error(capsys, "not a Dask scheduler address: 'garbage://x'")


def test_a_missing_chapter_is_one_line(tmp_path, capsys):
    assert cli(["execute", "chapters/no_such_chapter.ipynb", str(tmp_path / "out.ipynb")]) == 2
    _one_line_error(capsys, "does not exist")
    assert not (tmp_path / "out.ipynb").exists()


def test_a_chapter_refuses_unknown_parameters_naming_the_ones_it_accepts(tmp_path, capsys):
    chapter = os.path.join(os.path.dirname(__file__), "..", "chapters", "01_toy_model.ipynb")
    assert cli(["execute", chapter, str(tmp_path / "out.ipynb"), "-p", "threshold", "0.7"]) == 2
    _one_line_error(capsys, "has no parameter 'threshold'; it accepts: scale, T_values, d_values, device")
    assert not (tmp_path / "out.ipynb").exists()


def _real(config) -> RunResult:
    """A run's real result (a toy run takes milliseconds): the store writes only records that pass its schema."""
    from emergence_lib.runs import runner_for

    return runner_for(config.kind)([config])[0]


def test_cache_files_get_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        path = ResultCache(tmp_path).save(ToyFullGDConfig(T=8, d=2), _real(ToyFullGDConfig(T=8, d=2)))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # readable by the group and others, like any file written here


@pytest.mark.parametrize("mask, mode", [(0o077, 0o600), (0o002, 0o664)])
def test_cache_file_mode_follows_the_umask(tmp_path, mask, mode):
    old = os.umask(mask)
    try:
        path = ResultCache(tmp_path).save(ToyFullGDConfig(T=8, d=2), _real(ToyFullGDConfig(T=8, d=2)))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_an_unwritable_store_is_found_before_any_compute(data_dir, capsys):
    # A file where the kind's folder should be (as root, permissions cannot make a folder unwritable).
    data_dir.mkdir()
    (data_dir / "toy_full_gd").write_text("not a folder")
    assert cli(["run", "figure2_constant"]) == 2
    _one_line_error(capsys, f"cannot write results under {data_dir / 'toy_full_gd'}")
    assert not list(data_dir.rglob("*.json")), "no sweep of the figure may compute before the store is checked"


def test_a_folder_where_a_run_file_should_be_is_found_before_any_compute(data_dir, capsys, monkeypatch):
    from emergence_lib import sweep
    from emergence_lib.experiments import Figure6

    config = Figure6(scale="cpu").runs()[0]
    ResultCache().path(config).mkdir(parents=True)
    monkeypatch.setattr(sweep, "run_chunks", lambda *a, **k: pytest.fail("computed before checking the store"))
    assert cli(["run", "figure6"]) == 2
    _one_line_error(capsys, "a folder stands there")


def test_clear_keeps_runs_other_figures_need_unless_forced(data_dir, capsys):
    # Figure 15: its lr search at Figure 13's lr repeats Figure 13's 1-layer, 1-head runs, and nothing else needs the
    # rest (Figure 14's runs would not do: chapter B3 reads every one of them).
    from emergence_lib.experiments import Figure13, Figure15, figures
    from emergence_lib.cache import run_key

    cache = ResultCache()
    fig15 = {run_key(r): r for r in Figure15(scale="cpu").runs()}
    import emergence_lib.cache as cache_mod

    # Stand-in results (clear looks only at which files exist): written past the schema the store applies, since
    # training Figure 15's runs would take minutes.
    real_check = cache_mod.check_stored_record
    cache_mod.check_stored_record = lambda record, stem: None
    try:
        for run in fig15.values():
            cache.save(run, RunResult(summary={"plateau_length": 1.0}, curve={"step": [0.0]}))
    finally:
        cache_mod.check_stored_record = real_check
    others = {run_key(r) for name, cls in figures().items() if name != "figure15" and cls.has_scale("cpu")
              for r in cls(scale="cpu").runs()}
    shared = set(fig15) & others
    assert shared & {run_key(r) for r in Figure13(scale="cpu").runs()}

    assert cli(["clear", "figure15", "--dry-run"]) == 0
    assert all(cache.path(r).exists() for r in fig15.values()), "a dry run removes nothing"
    assert "figure13 (cpu)" in capsys.readouterr().out

    assert cli(["clear", "figure15"]) == 0
    out = capsys.readouterr().out
    assert all(cache.path(fig15[k]).exists() for k in shared), "runs other figures need are kept"
    assert "kept runs that other figures need" in out and "figure13 (cpu)" in out
    left = [k for k, r in fig15.items() if cache.path(r).exists()]
    assert 0 < len(left) < len(fig15) and set(left) == shared

    assert cli(["clear", "figure15", "--force"]) == 0
    assert not any(cache.path(r).exists() for r in fig15.values())


def test_verify_names_a_tampered_file_and_a_result_of_other_code(data_dir, capsys):
    import json

    from emergence_lib.cache import record_checksum
    from emergence_lib.experiments import Figure6

    # Figure 6's one cpu run, as data/ stores it (the committed record, checked against its checksum below): its
    # recompute takes half a minute, and the forged record below needs it once.
    import shutil

    run = Figure6(scale="cpu").runs()[0]
    path = ResultCache().path(run)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ResultCache(Path(__file__).resolve().parent.parent / "data").path(run), path)
    assert cli(["run", "figure6", "--executor", "serial", "--device", "cpu"]) == 0  # nothing left to compute
    capsys.readouterr()
    assert cli(["verify", "figure6", "--sample", "0"]) == 0
    assert "1 stored and readable, 0 missing, 0 corrupt" in capsys.readouterr().out

    record = json.loads(path.read_text())
    record["summary"]["plateau_length"] *= 1.3  # a stored value changed by hand
    path.write_text(json.dumps(record))
    assert cli(["verify", "figure6", "--sample", "1"]) == 1
    out = capsys.readouterr().out
    assert f"corrupt: cache file {path}" in out and "does not match the checksum" in out

    # The same change with a matching checksum: what a result of other code looks like. Recomputing finds it.
    record["checksum"] = record_checksum(record)
    path.write_text(json.dumps(record))
    assert cli(["verify", "figure6", "--sample", "1"]) == 1
    out = capsys.readouterr().out
    assert f"differs from its code: {path}: summary plateau_length" in out and "1 differ" in out

    # The issue-29 tamper: change a value and delete the checksum. The file is refused, by the figure's verify,
    # by verify over every file, and by the chapter's reader.
    del record["checksum"]
    path.write_text(json.dumps(record))
    assert cli(["verify", "figure6", "--sample", "0"]) == 1
    assert "carries no checksum" in capsys.readouterr().out
    assert cli(["verify"]) == 1
    out = capsys.readouterr().out
    assert f"corrupt: {path}" in out and "no checksum" in out and "1 bad" in out
    from emergence_lib.cache import CacheError

    with pytest.raises(CacheError, match="no checksum"):
        ResultCache().load(Figure6(scale="cpu").runs()[0])


def test_prune_removes_only_runs_of_an_older_version_of_their_kind(data_dir, capsys):
    import json

    from emergence_lib.configs import ToyFlowConfig

    cache = ResultCache(data_dir)
    current = cache.save(ToyFlowConfig(T=8, d=4), _real(ToyFlowConfig(T=8, d=4)))
    old = current.with_name("0" * 20 + ".json")
    old.write_text(json.dumps(dict(json.loads(current.read_text()), kind_version=1)))
    assert cli(["prune", "--dry-run"]) == 0 and old.exists()
    assert cli(["prune"]) == 0
    assert current.exists() and not old.exists()
    assert "removed 1 stored runs of older code; 1 of toy_reduced_flow" in capsys.readouterr().out


def test_prune_keeps_newer_code_and_removes_unreachable_files_and_old_leftovers(data_dir, capsys):
    import json
    import os
    import time

    from emergence_lib.configs import ToyFlowConfig

    cache = ResultCache(data_dir)
    current = cache.save(ToyFlowConfig(T=8, d=4), _real(ToyFlowConfig(T=8, d=4)))
    newer = current.with_name("1" * 20 + ".json")
    newer.write_text(json.dumps(dict(json.loads(current.read_text()), kind_version=99)))
    unreachable = current.with_name("2" * 20 + ".json")
    unreachable.write_text(current.read_text())  # current code, but its name is no config's key
    damaged = current.with_name("3" * 20 + ".json")  # a config edited by hand: unreachable too, but its checksum fails
    record = json.loads(current.read_text())
    damaged.write_text(json.dumps(dict(record, config=dict(record["config"], T=9))))
    old_tmp, fresh_tmp = current.with_name(".x.tmp"), current.with_name(".y.tmp")
    old_tmp.write_text("half"), fresh_tmp.write_text("in flight")
    os.utime(old_tmp, (time.time() - 7200, time.time() - 7200))
    assert cli(["prune"]) == 0
    out = capsys.readouterr().out
    assert newer.exists() and "kept 1 stored runs of newer code" in out, "an older checkout never deletes a newer one's runs"
    assert not unreachable.exists() and not old_tmp.exists() and fresh_tmp.exists() and current.exists()
    assert damaged.exists() and "kept 1 files whose checksum fails" in out, "a damaged record is named, never deleted"


def test_the_paper_scale_on_a_cpu_asks_for_yes_with_an_estimate(data_dir, capsys, monkeypatch):
    import emergence_lib.estimate as estimate_module

    monkeypatch.setattr(estimate_module, "TIMED_STEPS", 1)
    timed = []
    real = estimate_module.step_seconds
    monkeypatch.setattr(estimate_module, "step_seconds", lambda runs, timer=None, progress=None: real(runs, timer=lambda r: timed.append(r) or 0.1))
    assert cli(["run", "figure3", "--scale", "paper", "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "CPU-hours" in err and "transformer_regression runs" in err and "--yes" in err
    assert "paper_cpu" in err, "the refusal names the cheap scale"
    from emergence_lib.estimate import shape_of
    from emergence_lib.experiments import Figure3
    assert len(timed) == len({shape_of(r) for r in Figure3(scale="paper").runs()}) > 1, "every shape is timed, once"
    assert not list(data_dir.rglob("*.json")), "a run was stored before the user agreed"


def test_plain_papermill_with_an_unknown_parameter_stops_naming_the_accepted_ones(tmp_path):
    """papermill itself only warns about `-p threshold 0.7`; the chapter stops in its first cell after the parameters."""
    import papermill

    chapter = CHAPTERS / "04_associative_recall.ipynb"
    with pytest.raises(papermill.PapermillExecutionError) as info:
        papermill.execute_notebook(str(chapter), str(tmp_path / "out.ipynb"), parameters={"threshold": 0.7, "scale": "smoke"},
                                   kernel_name="python3", cwd=str(CHAPTERS), progress_bar=False)
    assert "ConfigError" in str(info.value) and "no parameter 'threshold'; it accepts: scale, device" in str(info.value)


def test_every_chapter_checks_its_parameters_right_after_the_parameters_cell():
    import nbformat

    chapters = sorted(CHAPTERS.glob("*.ipynb"))
    assert len(chapters) >= 9
    for path in chapters:
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        i = next(k for k, c in enumerate(cells) if "parameters" in c.metadata.get("tags", []))
        source = cells[i + 1].source
        code = [line for line in source.splitlines() if line and not line.startswith(("import ", "from ", "#"))]
        # the first statement after the imports: the chapter context (its parameters checked), or, on the scoreboard,
        # the check itself
        assert code and code[0].startswith(("ctx = experiments.chapter_context(scale, device, confirm_cost)",
                                            "refuse_unknown_parameters()")), f"{path.name} does not check its parameters first"


def test_verify_refuses_a_toy_run_that_claims_a_gpu(data_dir, capsys):
    """A toy flow is numpy and never runs on a GPU: a record that says "cuda", even resealed, is refused (the fourth
    hostile round's `meta.device = cuda` on a toy flow passed verify before)."""
    import json

    from emergence_lib.experiments import Figure6

    assert cli(["run", "figure6", "--executor", "serial", "--device", "cpu"]) == 0
    path = ResultCache().path(Figure6(scale="cpu").runs()[0])
    record = json.loads(path.read_text())
    record["meta"]["device"] = "cuda"
    path.write_text(json.dumps(record))
    assert cli(["verify", "figure6", "--sample", "1"]) == 1, "an edited meta is refused: the checksum covers it"
    from emergence_lib.cache import record_checksum

    record["checksum"] = record_checksum(record)  # resealed, as a forger would
    path.write_text(json.dumps(record))
    capsys.readouterr()
    assert cli(["verify", "figure6", "--sample", "1"]) == 1
    assert "runs on the CPU only" in capsys.readouterr().out


def test_under_plain_papermill_a_bad_parameter_is_one_clear_line_in_the_cell(tmp_path):
    """Issue 37 item 5: the chapter's first cell after its parameters shows a bad value as one line naming what is
    allowed (not a traceback through the library), and the run stops there."""
    import nbformat
    import papermill

    chapter = CHAPTERS / "01_toy_model.ipynb"
    out = tmp_path / "out.ipynb"
    for params, allowed in (({"device": "gpu"}, "device must be"), ({"T_values": [-5], "scale": "smoke"}, "T_values")):
        with pytest.raises(papermill.PapermillExecutionError):
            papermill.execute_notebook(str(chapter), str(out), parameters=params, kernel_name="python3", cwd=str(CHAPTERS),
                                       progress_bar=False)
        errors = [o for c in nbformat.read(out, as_version=4).cells for o in c.get("outputs", []) if o.output_type == "error"]
        assert len(errors) == 1 and errors[0].traceback == [f"ConfigError: {errors[0].evalue}"], errors
        assert allowed in errors[0].evalue


def test_a_chapter_counts_the_runs_stored_from_a_gpu(data_dir):
    """The chapters say how many of their runs trained on a GPU, read from each stored file's meta."""
    import json

    from emergence_lib.cache import record_checksum
    from emergence_lib.experiments import Figure6
    from emergence_lib.experiments.base import devices_sentence

    figure = Figure6(scale="cpu")
    assert figure.devices() == {} and devices_sentence({}) == "No run is stored yet."
    assert cli(["run", "figure6", "--executor", "serial", "--device", "cpu"]) == 0
    n = len({ResultCache().path(r) for r in figure.runs()})
    assert figure.devices() == {"cpu": n} and devices_sentence(figure.devices()) == f"All {n} stored runs trained on a CPU."
    path = ResultCache().path(figure.runs()[0])
    record = json.loads(path.read_text())
    record["meta"]["device"] = "cuda:1"
    record["checksum"] = record_checksum(record)
    path.write_text(json.dumps(record))
    assert figure.devices() == {k: v for k, v in {"cpu": n - 1, "cuda": 1}.items() if v}
    assert devices_sentence(figure.devices()).startswith(f"1 of {n} stored runs trained on a GPU" if n > 1 else
                                                         "All 1 stored runs trained on a GPU;")
    assert devices_sentence({"cuda": 81}).startswith("All 81 stored runs trained on a GPU;"), "no 'rest' when none is left"


def test_verify_recomputes_on_one_thread_as_every_run_was_computed(data_dir, capsys, monkeypatch):
    """A Transformer run stored by a sweep (one thread a run) and recomputed with two threads sums in another order:
    verify called an intact (128, 16)-class run 'differs from its code' at 5e-8 relative on this very machine. The
    recompute now runs on one thread, whatever the process had."""
    import torch

    import emergence_lib.cli_store as cli_module  # where verify lives

    assert cli(["run", "figure6", "--executor", "serial", "--device", "cpu"]) == 0
    capsys.readouterr()
    seen: list[int] = []
    real = cli_module.runner_for

    def counting(kind):
        run = real(kind)
        return lambda runs, device: (seen.append(torch.get_num_threads()), run(runs, device=device))[1]

    monkeypatch.setattr(cli_module, "runner_for", counting)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert cli(["verify", "figure6", "--sample", "1"]) == 0
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_verify_names_a_run_it_cannot_compare_on_this_cpu_instead_of_calling_it_changed(data_dir, capsys, monkeypatch):
    """A kind whose runs move across CPUs by more than a change of code would (recall: 0.12 measured) is not
    recomputed against a guessed tolerance: verify says it is not comparable here, and does not fail."""
    import emergence_lib.cli_store as cli_store

    assert cli(["run", "figure6", "--executor", "serial", "--device", "cpu"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(cli_store, "reproduce_rtol", lambda kind, meta: None)
    monkeypatch.setattr(cli_store, "runner_for", lambda kind: pytest.fail("nothing recomputed"))
    assert cli(["verify", "figure6", "--sample", "1"]) == 0
    out = capsys.readouterr().out
    assert "not comparable here" in out and "1 not comparable on this CPU" in out and "differs" not in out
