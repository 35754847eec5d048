"""Executors agree, sweeps survive a SIGKILL, and the command line's verbs and errors."""

import json
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
import torch

from emergence_lib.cache import ResultCache
from emergence_lib.cli import main as cli
from emergence_lib.configs import ConfigError, ToyFullGDConfig, TransformerRegressionConfig
from emergence_lib.sweep import run_sweep

FAST = [ToyFullGDConfig(T=T, d=4, lr=1.0, t_max=2000.0, seed=s) for T in (16, 32) for s in (0, 1)]


def table(result):
    cols = ["T", "d", "seed", "plateau_length", "final_time", "final_loss"]
    return result.summary[cols].sort_values(["T", "seed"]).reset_index(drop=True)


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_every_executor_gives_the_serial_table(tmp_path, executor):
    serial = run_sweep(FAST, ResultCache(tmp_path / "serial"), executor="serial", progress=False)
    other = run_sweep(FAST, ResultCache(tmp_path / executor), executor=executor, workers=2, progress=False)
    pd.testing.assert_frame_equal(table(serial), table(other))
    assert other.n_computed == len(FAST)
    files = list((tmp_path / executor / ToyFullGDConfig.kind).glob("*.json"))
    assert len(files) == len(FAST)
    assert all(json.loads(f.read_text())["meta"]["executor"] == executor for f in files)


def test_same_config_and_seed_give_identical_results_on_cpu():
    torch.set_num_threads(1)
    cfg = TransformerRegressionConfig(T=8, d=2, d_model=32, d_qk=8, lr=3e-3, max_steps=60)
    a, b = run_sweep([cfg], None, executor="serial", progress=False), run_sweep([cfg], None, executor="serial", progress=False)
    pd.testing.assert_frame_equal(a.curves, b.curves)


def test_a_killed_sweep_resumes_with_nothing_lost_or_duplicated(tmp_path):
    configs = [ToyFullGDConfig(T=64, d=8, lr=0.5, t_max=3000.0, seed=s) for s in range(8)]
    script = textwrap.dedent(f"""
        from emergence_lib.cache import ResultCache
        from emergence_lib.configs import ToyFullGDConfig
        from emergence_lib.sweep import run_sweep
        configs = [ToyFullGDConfig(T=64, d=8, lr=0.5, t_max=3000.0, seed=s) for s in range(8)]
        run_sweep(configs, ResultCache({str(tmp_path)!r}), executor="serial", progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script])
    folder = tmp_path / ToyFullGDConfig.kind
    deadline = time.time() + 120
    while time.time() < deadline and len(list(folder.glob("*.json"))) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = len(list(folder.glob("*.json")))
    assert 2 <= done_before < len(configs), "the sweep must be killed part-way"
    resumed = run_sweep(configs, ResultCache(tmp_path), executor="serial", progress=False)
    assert resumed.n_cached == done_before and resumed.n_computed == len(configs) - done_before
    files = list(folder.glob("*.json"))
    assert len(files) == len(configs) and all(ResultCache(tmp_path).load(c) is not None for c in configs)


def test_cli_status_run_and_clear(data_dir, capsys):
    data_dir.mkdir()  # an empty store (a missing one is named: test_hostile_inputs)
    assert cli(["status", "figure6"]) == 0
    assert "0/1 cached" in capsys.readouterr().out
    assert cli(["run", "figure6", "--executor", "serial", "--device", "cpu"]) == 0
    assert cli(["status", "figure6"]) == 0
    assert "complete" in capsys.readouterr().out
    assert cli(["clear", "figure6"]) == 0  # Figure 6's run is the same at paper scale: kept, and said why
    out = capsys.readouterr().out
    assert "removed 0 cached runs" in out and "1 shared with figure6 (paper)" in out
    assert cli(["clear", "figure6", "--force"]) == 0
    assert "removed 1 cached runs" in capsys.readouterr().out
    assert not list((data_dir / "toy_reduced_flow").glob("*.json"))


def test_cli_reports_a_corrupt_file_by_name_and_recomputes_it(data_dir, capsys):
    assert cli(["run", "figure6", "--executor", "serial"]) == 0
    (path,) = list((data_dir / "toy_reduced_flow").glob("*.json"))
    path.write_text(path.read_text()[:100])
    capsys.readouterr()
    assert cli(["run", "figure6", "--executor", "serial"]) == 0
    out, err = capsys.readouterr()
    assert "1 computed" in out
    named = [line for line in err.splitlines() if path.name in line]
    assert named and all(line.startswith("warning: cache file") for line in named), "named in one line each"
    json.loads(path.read_text())  # repaired


@pytest.mark.parametrize("argv,message", [
    (["run", "figure99"], "unknown figure 'figure99'; known figures: figure1"),
    (["status", "figure1", "--scale", "huge"], "scale must be one of"),
    (["run", "figure1", "--scale", "smoke"], "never cached"),
    (["run", "figure1", "--executor", "slurm"], "executor must be one of"),
    # At the paper scale a bad flag is reported at once, not after the estimate and its --yes (issue 29).
    (["run", "figure3", "--scale", "paper", "--executor", "slurm"], "executor must be one of"),
    (["run", "figure3", "--scale", "paper", "--workers", "0"], "workers"),
])
def test_cli_errors(argv, message, capsys, data_dir):
    assert cli(argv) == 2
    assert message in capsys.readouterr().err


def test_an_unreachable_scheduler_is_a_clear_error_within_bounded_time(data_dir, capsys):
    t0 = time.time()
    assert cli(["run", "figure6", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert time.time() - t0 < 30
    assert "could not reach the Dask scheduler" in capsys.readouterr().err


def test_bad_executor_arguments_fail_before_any_compute():
    with pytest.raises(ConfigError, match="executor"):
        run_sweep(FAST, None, executor="threads")
    with pytest.raises(ConfigError, match="workers"):
        run_sweep(FAST, None, workers=0)


def test_cli_executes_a_chapter_with_parameters(tmp_path, capsys):
    import nbformat

    out = tmp_path / "ch1.ipynb"
    assert cli(["execute", "chapters/01_toy_model.ipynb", str(out), "-p", "scale", "smoke", "-p", "T_values", "[64, 128]"]) == 0
    nb = nbformat.read(str(out), as_version=4)
    from emergence_lib.scorecard import recorded_claims

    glued = {o["metadata"]["scrapbook"]["name"]: o["data"]["application/papermill.record/text/plain"]
             for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "scrapbook" in o.get("metadata", {})}
    assert glued["fig1_runs"] == "'6'", "the T_values parameter reached the chapter: 2 T values × 3 smoke d values"
    assert recorded_claims(nb)["claim.figure1.d_exponent.status"] == "· smoke: not judged"  # it ran to its claims


def test_nothing_missing_starts_no_dask_cluster(monkeypatch):
    """A sweep whose runs are all stored reads them and starts no pool and no cluster (issue 29: Dask started a
    local cluster, seconds and a port, with nothing to compute)."""
    from emergence_lib import executors

    def no_cluster(*args, **kwargs):
        raise AssertionError("a Dask cluster was started with nothing to compute")

    monkeypatch.setattr(executors, "dask_client", no_cluster)
    assert list(executors.run_chunks([], executor="dask")) == []
    assert list(executors.run_chunks([], executor="local")) == []
