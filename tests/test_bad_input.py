"""Bad input fails before any compute, with a message naming the parameter and what is allowed."""

import pytest

from emergence_lib.cache import ResultCache
from emergence_lib.cli import main as cli
from emergence_lib.configs import ConfigError, ToyFlowConfig, check_scale
from emergence_lib.experiments import Figure1
from emergence_lib.notebooks import prepare


@pytest.mark.parametrize("scale", ["laptop", "", "CPU", None])
def test_unknown_scale(scale):
    with pytest.raises(ConfigError, match=r"scale must be one of \('smoke', 'cpu', 'paper_cpu', 'paper'\)"):
        check_scale(scale)
    with pytest.raises(ConfigError, match="scale"):
        Figure1(scale=scale)


def test_a_scale_a_figure_lacks_is_refused_by_name():
    with pytest.raises(ConfigError, match=r"Figure 1 has no 'paper_cpu' grid; scales it has: \['smoke', 'cpu', 'paper'\]"):
        Figure1(scale="paper_cpu")


def test_unknown_scale_for_a_chapter(tmp_path):
    with pytest.raises(ConfigError, match="scale"):
        prepare("chapters/01_toy_model.ipynb", tmp_path / "x.ipynb", scale="huge")
    assert cli(["prepare", "--scale", "huge", "--out", str(tmp_path), "chapters/01_toy_model.ipynb"]) == 2
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("B,T", [(512, 512), (600, 512), (0, 512), (2, 2)])
def test_burstiness_must_leave_an_irrelevant_position(B, T):
    with pytest.raises(ConfigError, match=r"B must"):
        ToyFlowConfig(T=T, d=8, B=B)


@pytest.mark.parametrize("d", [0, -3, 2.5, "8", True])
def test_dimension_must_be_a_positive_integer(d):
    with pytest.raises(ConfigError, match=r"d must be an integer ≥ 1"):
        ToyFlowConfig(T=64, d=d)


@pytest.mark.parametrize("threshold", [0.0, -0.1, 0.5, 0.7])
def test_threshold_must_lie_between_zero_and_the_initial_loss(threshold):
    with pytest.raises(ConfigError, match=r"threshold must lie in \(0, 0.5\)"):
        ToyFlowConfig(T=64, d=8, threshold=threshold)
    with pytest.raises(ConfigError, match="threshold"):
        Figure1(scale="smoke", threshold=threshold)


def test_figure_grids_are_checked():
    with pytest.raises(ConfigError, match="d_values entry must be an integer from 1 to"):
        Figure1(scale="smoke", d_values=[8, 0])
    with pytest.raises(ConfigError, match="T_values entry must be an integer from 2 to"):
        Figure1(scale="smoke", T_values=[1, 64])
    with pytest.raises(ConfigError, match="repeated"):
        Figure1(scale="smoke", d_values=[8, 8])
    with pytest.raises(ConfigError, match="d_values must hold at least 2 values"):
        Figure1(scale="smoke", d_values="16")  # a string reads as its numbers, one place for every command line
    with pytest.raises(ConfigError, match="d_values must be a list of numbers"):
        Figure1(scale="smoke", d_values="sixteen")


def test_a_grid_too_small_for_its_fit_is_refused_before_compute_and_a_typed_list_reads_as_a_list():
    """Issue 62 item 6: `-p T_values '[64]'` passed every check, computed, then failed in the fit after 52 lines of
    traceback; `-p T_values 64,128` was accepted by the command line and refused by the kernel."""
    with pytest.raises(ConfigError, match="T_values must hold at least 2 values"):
        Figure1(scale="smoke", T_values=[64])
    with pytest.raises(ConfigError, match="d_values must hold at least 2 values"):
        Figure1(scale="smoke", d_values=[2048])
    assert Figure1(scale="smoke", T_values="64,128").grid == Figure1(scale="smoke", T_values=(64, 128)).grid \
        == Figure1(scale="smoke", T_values=[128, 64]).grid


def test_other_run_fields():
    with pytest.raises(ConfigError, match="t_max must be > 0"):
        ToyFlowConfig(T=64, d=8, t_max=0)
    with pytest.raises(ConfigError, match="logits must be 'gap' or 'per_position'"):
        ToyFlowConfig(T=64, d=8, logits="tied")
    with pytest.raises(ValueError, match="on_corrupt"):
        ResultCache(on_corrupt="ignore")


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5, float("nan"), "0.2"])
def test_repetition_probability_must_lie_in_zero_one(p):
    from emergence_lib.configs import ToyFullGDConfig, ToySGDConfig

    for cls in (ToyFlowConfig, ToyFullGDConfig, ToySGDConfig):
        with pytest.raises(ConfigError, match=r"p must lie in \[0, 1\)"):
            cls(T=64, d=8, p=p)


@pytest.mark.parametrize("lr", [0, -1.0, float("nan")])
def test_learning_rate_must_be_positive(lr):
    from emergence_lib.configs import ToyFullGDConfig, ToySGDConfig

    for cls in (ToyFullGDConfig, ToySGDConfig):
        with pytest.raises(ConfigError, match=r"lr \(learning rate\) must be a number > 0"):
            cls(T=64, d=8, lr=lr)


@pytest.mark.parametrize("batch_size", [0, -4, 2.0])
def test_batch_size_must_be_at_least_one(batch_size):
    from emergence_lib.configs import ToySGDConfig

    with pytest.raises(ConfigError, match="batch_size must be an integer ≥ 1"):
        ToySGDConfig(T=64, d=8, batch_size=batch_size)


def test_burstiness_is_checked_for_every_toy_run():
    from emergence_lib.configs import ToyFullGDConfig, ToySGDConfig

    for cls in (ToyFullGDConfig, ToySGDConfig):
        with pytest.raises(ConfigError, match="B must satisfy"):
            cls(T=8, d=4, B=8)


def test_cross_sample_flow_needs_B_equal_one():
    with pytest.raises(ConfigError, match="only with B = 1"):
        ToyFlowConfig(T=64, d=8, B=2, p=0.2)


def test_figure_grids_of_probabilities_are_checked():
    from emergence_lib.experiments import Figure2

    with pytest.raises(ConfigError, match="p_values entry"):
        Figure2(scale="smoke", p_values=[0.0, 1.2])
    with pytest.raises(ConfigError, match="B_values entry"):
        Figure2(scale="smoke", B_values=[1, 0])


def _one_line_exit_2(capsys, argv, *needles):
    assert cli(argv) == 2, argv
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:"), err
    for n in needles:
        assert n in err, (n, err)


def test_a_deeply_nested_result_is_named_not_a_crash(data_dir, capsys):
    from emergence_lib.experiments import Figure8

    run = Figure8(scale="cpu").runs()[0]
    path = ResultCache(data_dir).path(run)
    path.parent.mkdir(parents=True)
    path.write_text("[" * 100_000 + "]" * 100_000)
    _one_line_exit_2(capsys, ["verify", "figure8", "--sample", "-1"], "--sample")
    assert cli(["verify", "figure8", "--sample", "0"]) == 1  # named as corrupt, exit 1 (a finding, not a crash)
    assert "corrupt" in capsys.readouterr().out
    assert cli(["status", "figure8"]) == 0


def test_outputs_that_would_overwrite_a_chapter_or_cannot_be_written(tmp_path, capsys):
    from pathlib import Path

    chapters = Path(__file__).resolve().parent.parent / "chapters"
    ch = str(chapters / "01_toy_model.ipynb")
    _one_line_exit_2(capsys, ["execute", ch, ch, "-p", "scale", "smoke"], "chapter itself")
    _one_line_exit_2(capsys, ["prepare", "--scale", "smoke", "--out", str(chapters), ch], "chapter itself")
    _one_line_exit_2(capsys, ["execute", ch, str(chapters / "copy.ipynb")], "committed chapters")
    blocker = tmp_path / "file"
    blocker.write_text("")
    _one_line_exit_2(capsys, ["execute", ch, str(blocker / "sub" / "out.ipynb")], "cannot write")
    assert not (chapters / "copy.ipynb").exists()


def test_other_bad_values_are_one_line(data_dir, capsys, monkeypatch):
    from emergence_lib.devices import resolve_device  # what a chapter's `-p device None` reaches

    with pytest.raises(ConfigError, match="device must be"):
        resolve_device(None)
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "distributed" else real(name, *a))
    _one_line_exit_2(capsys, ["run", "figure1", "--executor", "dask"], "distributed")
    # a folder where a stored run belongs
    from emergence_lib.experiments import Figure15

    run = Figure15(scale="cpu").runs()[0]
    ResultCache(data_dir).path(run).mkdir(parents=True)
    _one_line_exit_2(capsys, ["clear", "figure15"], "is a folder")


def test_migrate_names_a_record_without_its_summary(data_dir, capsys):
    import json

    from emergence_lib import migrations

    folder = data_dir / migrations.MIGRATIONS[0].config_class.kind
    folder.mkdir(parents=True)
    (folder / ("0" * 20 + ".json")).write_text(json.dumps({"config": {}, "curve": {}}))
    _one_line_exit_2(capsys, ["migrate"], "no summary")


def test_long_work_on_a_cpu_is_refused_wherever_it_starts(data_dir, monkeypatch):
    """Figure.run (what a chapter and a script call) at the paper scales on a CPU: an estimate from every shape,
    then a refusal naming how to say yes and the cheap scale; confirm_cost or confirm_long_work lets it start."""
    import emergence_lib.estimate as estimate_module
    import emergence_lib.experiments.base as base
    from emergence_lib.experiments import Figure3, confirm_long_work

    monkeypatch.setattr(estimate_module, "step_seconds",
                        lambda runs, timer=None, progress=None: {estimate_module.shape_of(r): 0.2 for r in runs})
    for scale in ("paper", "paper_cpu"):
        with pytest.raises(ConfigError, match=r"CPU-hours.*confirm_cost True.*-p scale cpu"):
            Figure3(scale=scale).run(device="cpu", progress=False)
    assert not list(data_dir.rglob("*.json")), "nothing trained before the user agreed"
    started = []
    monkeypatch.setattr(base, "run_sweep", lambda runs, *a, **k: started.append(len(runs)))
    Figure3(scale="paper_cpu").run(device="cpu", progress=False, confirm_cost=True)
    assert started
    confirm_long_work(True)
    try:
        Figure3(scale="paper").run(device="cpu", progress=False)
    finally:
        confirm_long_work(False)
    with pytest.raises(ConfigError, match="confirm_cost must be True or False"):
        confirm_long_work("yes")


def test_every_chapter_passes_its_parameters_to_its_context():
    """Every chapter starts with `experiments.chapter_context(scale, device, confirm_cost)`: its parameters checked
    before any compute, its confirm_cost handed to the long-work guard, its runs through `Context.run`."""
    import json
    from pathlib import Path

    for path in sorted((Path(__file__).resolve().parent.parent / "chapters").glob("*.ipynb")):
        if path.stem == "scoreboard":
            continue
        nb = json.loads(path.read_text())
        params = "".join(next(c["source"] for c in nb["cells"] if "parameters" in c["metadata"].get("tags", [])))
        code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        assert "confirm_cost = False" in params, path.name
        assert "ctx = experiments.chapter_context(scale, device, confirm_cost)" in code, path.name
        assert ".run(device=" not in code and "resolve_device" not in code, path.name  # runs go through ctx


def test_a_context_checks_its_parameters_before_any_compute():
    from emergence_lib.experiments import Context, Figure1

    with pytest.raises(ConfigError, match="scale"):
        Context("laptop")
    with pytest.raises(ConfigError, match="device must be"):
        Context("smoke", device="tpu")
    with pytest.raises(ConfigError, match="device must be"):
        Context("smoke", device=None)  # what `-p device None` reaches
    with pytest.raises(ConfigError, match="confirm_cost must be True or False"):
        Context("smoke", confirm_cost="yes")
    with pytest.raises(ConfigError, match="at scale 'cpu', this chapter at 'smoke'"):
        Context("smoke").run(Figure1(scale="cpu"))
    ctx = Context("smoke")
    assert ctx.smoke and ctx.tolerance(smoke=0.5, otherwise=0.9) == 0.5
    assert Context("cpu").tolerance(smoke=0.5, otherwise=0.9) == 0.9


def test_smoke_runs_never_go_into_data(monkeypatch):
    from emergence_lib.cache import default_data_dir
    from emergence_lib.experiments import cache_for

    for where in (default_data_dir(), default_data_dir() / "sub"):
        monkeypatch.setenv("EMERGENCE_SMOKE_CACHE", str(where))
        with pytest.raises(ConfigError, match="never stored there"):
            cache_for("smoke")


def test_a_figure_checks_every_sweep_is_writable_before_the_first_computes(data_dir):
    """A later sweep that cannot be stored used to fail after an earlier one had been computed and stored."""
    from emergence_lib.cache import CacheError
    from emergence_lib.experiments import Figure1

    fig = Figure1(scale="cpu")
    last = list(fig.sweeps().values())[-1][0]
    ResultCache(data_dir).path(last).mkdir(parents=True)  # a folder where the last sweep's first run belongs
    with pytest.raises(CacheError, match="a folder stands there; nothing was computed"):
        fig.run(progress=False)
    assert not [p for p in data_dir.rglob("*.json") if p.is_file()], "no sweep computed before the check"


def test_a_corrupt_file_that_cannot_be_replaced_is_refused_before_recomputing(data_dir, monkeypatch):
    """Recomputing a corrupt, immutable file used to lose the recomputed result on save."""
    import os

    from emergence_lib.cache import CacheError

    cache = ResultCache(data_dir, on_corrupt="recompute")
    config = ToyFlowConfig(T=8, d=4)
    path = cache.path(config)
    path.parent.mkdir(parents=True)
    path.write_text("{corrupt")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(path) and mode == os.W_OK else real(p, mode))
    with pytest.raises(CacheError, match="read-only or immutable"):
        cache.check_writable([config])
