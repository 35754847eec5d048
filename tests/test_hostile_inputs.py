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


@pytest.mark.parametrize("verb", [["verify"], ["prune"], ["migrate"], ["status", "figure1"], ["verify", "figure1"],
                                  ["clear", "figure1", "--force"]])
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


def _tracked_notebook_of_another_checkout(tmp_path: Path) -> Path:
    """A git checkout under ``tmp_path`` whose intro.ipynb is tracked; that notebook's path."""
    import subprocess

    other = tmp_path / "other"
    other.mkdir()
    theirs = other / "intro.ipynb"
    shutil.copy(ROOT / "chapters" / "01_toy_model.ipynb", theirs)
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "add", "intro.ipynb"], check=True)
    return theirs


def test_outputs_never_land_on_a_tracked_file_a_hard_link_or_a_non_notebook(tmp_path, capsys, monkeypatch):
    """A hostile round after issue 37: the output guard knew only folders named chapters/; a file git tracks in any
    checkout, a hard link to one, and a file that is not a notebook are refused too, before any kernel."""

    import papermill

    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a notebook was written"))
    theirs = _tracked_notebook_of_another_checkout(tmp_path)
    chapter = str(ROOT / "chapters" / "01_toy_model.ipynb")
    assert cli(["execute", chapter, str(theirs), "-p", "scale", "smoke"]) == 2
    assert "git tracks" in _one_line_error(capsys)
    linked = tmp_path / "links"
    linked.mkdir()
    os.link(theirs, linked / "01_toy_model.ipynb")
    assert cli(["prepare", "--scale", "smoke", "--out", str(linked), chapter]) == 2
    assert "hard link" in _one_line_error(capsys)
    assert cli(["execute", chapter, str(tmp_path / "README.md"), "-p", "scale", "smoke"]) == 2
    assert "not a notebook" in _one_line_error(capsys)


def test_a_file_that_refuses_removal_stops_clear_and_prune_before_anything_is_removed(data_dir, monkeypatch, capsys):
    """An immutable file in a writable folder (chattr +i): every file is checked before any is removed; and an
    unlink that fails anyway is one line saying how many went before it."""
    from emergence_lib.experiments import Figure1
    from emergence_lib.runs import runner_for

    cache = ResultCache(data_dir)
    runs = Figure1(scale="cpu").runs()[:2]
    for run, result in zip(runs, runner_for(runs[0].kind)(runs, device="cpu")):
        cache.save(run, result)
    paths = [cache.path(r) for r in runs]
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if Path(p) == paths[1] else real_access(p, mode, **k))
    assert cli(["clear", "figure1", "--force"]) == 2
    assert "nothing was removed" in _one_line_error(capsys) and all(p.exists() for p in paths)
    monkeypatch.setattr(os, "access", real_access)
    real_unlink = Path.unlink

    def refuse(self, *a, **k):
        if self == paths[1]:
            raise PermissionError(1, "Operation not permitted")
        return real_unlink(self, *a, **k)

    monkeypatch.setattr(Path, "unlink", refuse)
    assert cli(["clear", "figure1", "--force"]) == 2
    assert "1 files were removed before it" in _one_line_error(capsys) and paths[1].exists()


def test_a_special_or_huge_file_among_checkpoints_is_passed_over_never_read(tmp_path):
    """`status` reads checkpoint headers: a FIFO there hung it, a link to /dev/zero read until memory ran out."""
    from emergence_lib import checkpoints

    folder = tmp_path / ".checkpoints"
    folder.mkdir()
    os.mkfifo(folder / "chunk-a.ckpt")
    (folder / "chunk-b.ckpt").symlink_to("/dev/zero")
    checkpoints.Checkpoint(folder, ("k", "j")).save({"step": 5, "steps": []}, 5, 9)
    start = time.monotonic()
    assert checkpoints.progress(folder, "k")["step"] == 5
    assert time.monotonic() - start < 5


def test_a_planted_checkpoint_that_names_other_code_is_never_run(tmp_path):
    """A checkpoint is loaded with weights_only: tensors, containers and numpy arrays only; a pickle that would run
    code is refused (the run starts over) and the code never runs."""
    import torch

    from emergence_lib import checkpoints

    ck = checkpoints.Checkpoint(tmp_path, ("k",))
    ck.save({"w": torch.ones(2), "rng": __import__("numpy").random.default_rng(0).bit_generator.state, "step": 1,
             "steps": [0]}, 1, 2)
    assert ck.load()["w"].sum() == 2, "a checkpoint of our own loads"
    marker = tmp_path / "ran"

    class Planted:
        def __reduce__(self):
            return (Path.touch, (marker,))

    import hashlib
    import io

    buffer = io.BytesIO()
    torch.save({"step": 1, "steps": [0], "w": Planted()}, buffer)  # every check passes but what it names
    body = buffer.getvalue()
    header = {"format": 2, "keys": ["k"], "config_hashes": [], "step": 1, "max_steps": 2, "device": "cpu",
              "bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
    ck.state_path.write_bytes(checkpoints.MAGIC + json.dumps(header).encode() + b"\n" + body)
    assert ck.load() is None and not marker.exists()


def test_execute_on_a_device_this_machine_lacks_is_one_line(tmp_path, capsys, monkeypatch):
    import papermill
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a kernel was started"))
    assert cli(["execute", str(ROOT / "chapters" / "01_toy_model.ipynb"), str(tmp_path / "x.ipynb"),
                "-p", "device", "cuda", "-p", "scale", "smoke"]) == 2
    assert "not available" in _one_line_error(capsys)


def test_a_record_that_claims_a_device_no_machine_has_is_refused(tmp_path):
    """A resealed file whose meta.device is None or 5 would count as a GPU's and skip being recomputed."""
    from emergence_lib.cache import record_checksum
    from emergence_lib.runs import runner_for

    cache = ResultCache(tmp_path)
    (result,) = runner_for(RUN.kind)([RUN], device="cpu")
    path = cache.save(RUN, result)
    for device in (None, 5, "gpu"):
        record = json.loads(path.read_text())
        record["meta"]["device"] = device
        record["checksum"] = record_checksum(record)
        path.write_text(json.dumps(record))
        with pytest.raises(CacheError, match="meta device"):
            cache.load(RUN)


def test_a_checkout_git_will_not_read_still_protects_its_tracked_files(tmp_path, capsys, monkeypatch):
    """A second hostile round: with GIT_DIR pointing elsewhere (or a checkout git refuses, e.g. another owner's),
    git failed and the output was taken as untracked. Git's environment is ignored, and a failure inside a checkout
    refuses."""
    import subprocess

    import papermill

    from emergence_lib.notebooks import _tracked_by_git

    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: pytest.fail("a notebook was written"))
    theirs = _tracked_notebook_of_another_checkout(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "nowhere"))
    assert cli(["execute", str(ROOT / "chapters" / "01_toy_model.ipynb"), str(theirs), "-p", "scale", "smoke"]) == 2
    assert "git tracks" in _one_line_error(capsys)
    monkeypatch.delenv("GIT_DIR")
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda cmd, *a, **k: real_run(["false"], *a, **k) if cmd[0] == "git"
                        else real_run(cmd, *a, **k))  # git exits 1: "untracked", believed
    assert not _tracked_by_git(theirs)
    monkeypatch.setattr(subprocess, "run", lambda cmd, *a, **k: real_run(["sh", "-c", "exit 128"], *a, **k)
                        if cmd[0] == "git" else real_run(cmd, *a, **k))  # git fails inside a checkout: refused
    assert _tracked_by_git(theirs)
    assert not _tracked_by_git(tmp_path / "loose.ipynb"), "outside any checkout a failure means untracked"


def test_a_long_folder_name_in_the_output_is_one_line(tmp_path, capsys):
    assert cli(["prepare", "--scale", "smoke", "--out", str(tmp_path / ("a" * 300)),
                str(ROOT / "chapters" / "01_toy_model.ipynb")]) == 2
    assert "too long" in _one_line_error(capsys)


def test_an_append_only_file_stops_removal_before_anything_is_removed(data_dir, monkeypatch, capsys):
    """os.access says an append-only file (chattr +a) is writable, yet it cannot be removed."""
    from emergence_lib import removal
    from emergence_lib.experiments import Figure1
    from emergence_lib.runs import runner_for

    cache = ResultCache(data_dir)
    runs = Figure1(scale="cpu").runs()[:2]
    for run, result in zip(runs, runner_for(runs[0].kind)(runs, device="cpu")):
        cache.save(run, result)
    paths = [cache.path(r) for r in runs]
    monkeypatch.setattr(removal, "pinned_by_attributes", lambda p: Path(p) == paths[1])
    assert cli(["clear", "figure1", "--force"]) == 2
    assert "append-only" in _one_line_error(capsys) and all(p.exists() for p in paths)


@pytest.mark.parametrize("header", [{"keys": "k", "step": 1, "max_steps": 2}, {"keys": ["k"]},
                                    {"keys": ["k"], "step": "abc", "max_steps": 2}, {"keys": 5}, ["k"]])
def test_a_malformed_checkpoint_header_is_passed_over(tmp_path, header):
    from emergence_lib import checkpoints

    folder = tmp_path / ".checkpoints"
    folder.mkdir()
    (folder / "chunk-w.ckpt").write_bytes(checkpoints.MAGIC + json.dumps(header).encode() + b"\n")
    assert checkpoints.progress(folder, "k") is None


def test_the_long_work_precheck_is_a_ceiling_so_it_never_waives_long_work(monkeypatch):
    """The cheap pre-check skips timing only where even the slowest plausible rate and every step allowed give
    under an hour; 5 paper-scale runs at (T, d) = (64, 64) (about 1.6 CPU-hours here) were waived by the old floor."""
    from emergence_lib import sweep
    from emergence_lib.configs import TransformerRegressionConfig
    from emergence_lib.estimate import shape_of
    from emergence_lib.experiments import figures

    runs = [r for r in figures()["figure3"](scale="paper").runs() if shape_of(r)[1:3] == (64, 64)][:5]
    assert sum(r.max_steps * sweep._step_ceiling_seconds(r) for r in runs) > sweep.LONG_WORK_HOURS * 3600
    tiny = TransformerRegressionConfig(T=8, d=4, d_model=16, d_qk=4, max_steps=20)
    assert tiny.max_steps * sweep._step_ceiling_seconds(tiny) < 60, "a tiny sweep is never timed"


def test_ctrl_c_while_the_library_loads_is_one_line():
    """Importing torch takes seconds on a busy machine, before the command's own handler is set: Ctrl-C then gave a
    20-line traceback."""
    import subprocess
    import sys

    code = ("import builtins, runpy\n"
            "real = builtins.__import__\n"
            "def slow(name, *a, **k):\n"
            "    if name == 'cli' or name.endswith('.cli'):\n"
            "        raise KeyboardInterrupt\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = slow\n"
            "runpy.run_module('emergence_lib', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 130 and done.stderr.strip() == "interrupted: nothing was done", done.stderr


def test_run_on_a_gpu_sends_every_missing_paper_run_in_one_sweep_in_the_figure_order(data_dir, monkeypatch):
    """On a GPU a figure's missing runs go to one sweep (its points' chunks then share the workers), in the figure's
    registered order, with no CPU estimate timed first; on the CPU the estimate comes first (checked elsewhere)."""
    import emergence_lib.cli as cli_module

    calls: list[list] = []
    monkeypatch.setattr(cli_module, "resolve_device", lambda device: "cuda")
    monkeypatch.setattr(cli_module, "cpu_estimate", lambda *a, **k: pytest.fail("no CPU estimate on a GPU"))
    monkeypatch.setattr(cli_module, "run_sweep", lambda runs, cache, **k: calls.append(list(runs)))
    cli(["run", "figure3_measured", "--scale", "paper_cpu", "--device", "cuda"])
    expected = list({cli_module.run_key(r): r for r in cli_module._figure("figure3_measured", "paper_cpu").runs()}.values())
    assert calls[0] == expected, "the first sweep holds every missing run, in the figure's order"
    assert len({(r.T, r.d, r.B) for r in calls[0]}) > 1, "more than one point, so chunks can run side by side"


def test_a_signal_that_surfaces_as_another_error_still_counts_as_an_interruption():
    """SIGTERM landing in a process pool's lock bookkeeping surfaced once as "release unlocked lock" (its context the
    signal's exception): `run` must still say "interrupted", not print a traceback; a plain error stays an error."""
    from emergence_lib.cli import Terminated, _interrupted_by

    def raised_while_handling(first: BaseException) -> BaseException:
        try:
            try:
                raise first
            except BaseException:
                raise RuntimeError("release unlocked lock")
        except RuntimeError as exc:
            return exc

    assert isinstance(_interrupted_by(raised_while_handling(Terminated())), Terminated)
    assert isinstance(_interrupted_by(raised_while_handling(KeyboardInterrupt())), KeyboardInterrupt)
    assert _interrupted_by(raised_while_handling(ValueError("a bug"))) is None
    assert _interrupted_by(RuntimeError("a bug")) is None


@pytest.mark.integration
def test_run_ends_as_interrupted_when_the_signal_surfaces_as_another_error(tmp_path):
    """Through `main` itself, in a subprocess (it exits with os._exit): an error raised while handling SIGTERM's
    exception exits 143 with the one line, and a plain error still raises with its traceback."""
    import subprocess
    import sys

    script = """
import sys
import emergence_lib.cli as cli
def surfaced(args):
    try:
        raise cli.Terminated()
    except BaseException:
        raise RuntimeError("release unlocked lock")
def plain(args):
    raise RuntimeError("a real bug")
cli.cmd_run = surfaced if sys.argv[1] == "surfaced" else plain
cli.main(["run", "figure1"])
"""
    env = {**__import__("os").environ, "EMERGENCE_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run([sys.executable, "-c", script, "surfaced"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 143 and "interrupted: every finished run is stored" in out.stderr, out.stderr[-500:]
    out = subprocess.run([sys.executable, "-c", script, "plain"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 1 and "a real bug" in out.stderr and "interrupted" not in out.stderr


def test_long_paper_cpu_work_on_a_cpu_asks_for_yes_before_any_run(data_dir, monkeypatch, capsys):
    """`run FIGURE --scale paper_cpu` on a CPU printed its estimate and trained at once; over LONG_WORK_HOURS it now
    refuses without --yes (exit 2, one line) and trains nothing. With --yes it goes on to the sweep."""
    import emergence_lib.cli as cli_module

    class Estimate:
        expected_hours = 5.0

        def describe(self) -> str:
            return "about 5.0 CPU-hours"

        def table_text(self) -> str:
            return ""

    calls: list[list] = []
    monkeypatch.setenv("EMERGENCE_HOST_RATES", "float32=145,bfloat16=690")  # a host where its bfloat16 runs may run
    monkeypatch.setattr(cli_module, "resolve_device", lambda device: "cpu")
    monkeypatch.setattr(cli_module, "cpu_estimate", lambda *a, **k: Estimate())
    monkeypatch.setattr(cli_module, "run_sweep", lambda runs, cache, **k: calls.append(list(runs)))
    code = cli(["run", "unsaid", "--scale", "paper_cpu"])
    assert code == 2 and "pass --yes" in capsys.readouterr().err and calls == []
    cli(["run", "unsaid", "--scale", "paper_cpu", "--yes"])
    assert calls, "with --yes the missing runs go to the sweep"
