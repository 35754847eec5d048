"""Smoke runs of the real entry points, and the committed cache."""

import json

import nbformat
import numpy as np

from emergence_lib.cache import ResultCache
from emergence_lib.cli import main as cli
from emergence_lib.figures import Figure1, figures


def test_figure1_smoke_runs_end_to_end():
    results = Figure1(scale="smoke").run(progress=False)
    plateaus = results["plateaus"].summary
    assert plateaus["reached"].all()
    assert len(plateaus) == 9
    # the plateau grows with T at every d (a property of the claim, not of the grid)
    for _, g in plateaus.groupby("d"):
        assert np.all(np.diff(g.sort_values("T")["plateau_length"]) > 0)
    curves = results["curves"].curves
    assert {"t", "loss", "w", "delta_a", "alpha", "T", "d", "run"} <= set(curves.columns)
    assert np.allclose(curves.groupby("run")["loss"].first(), 0.5, rtol=1e-12)


def test_prepare_injects_the_scale_after_the_parameters_cell(tmp_path):
    assert cli(["prepare", "--scale", "smoke", "--out", str(tmp_path), "chapters/01_toy_model.ipynb"]) == 0
    nb = nbformat.read(str(tmp_path / "01_toy_model.ipynb"), as_version=4)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    i = next(k for k, t in enumerate(tags) if "parameters" in t)
    assert "injected-parameters" in tags[i + 1]
    assert "scale = \"smoke\"" in nb.cells[i + 1].source


def test_committed_chapters_are_clean():
    from pathlib import Path

    chapters = sorted((Path(__file__).resolve().parent.parent / "chapters").glob("*.ipynb"))
    assert len(chapters) >= 9, "the chapters were not found"
    for path in chapters:
        nb = json.loads(path.read_text())
        assert nb["metadata"]["kernelspec"]["name"] == "python3", path
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert all(not c["outputs"] and c["execution_count"] is None for c in code), f"{path} has outputs"
        assert any("parameters" in c["metadata"].get("tags", []) for c in code), path
        # Figures first: the book shows outputs, with every input collapsed (or removed, for the import cell).
        hidden = [c for c in code if {"hide-input", "remove-input"} & set(c["metadata"].get("tags", []))]
        assert len(hidden) == len(code), f"{path.name}: {len(code) - len(hidden)} code cells show their input"


def test_committed_cache_covers_every_cpu_run():
    """The book build (run by the test command) must read cpu results, not silently recompute them."""
    cache = ResultCache()  # the repository's data/
    for name, figure in figures().items():
        fig = figure(scale="cpu")
        for run in fig.runs():
            assert cache.load(run) is not None, f"{name}: cpu run {run} missing from data/"


def test_plateaus_can_be_reread_from_another_recorded_loss():
    from emergence_lib.configs import ToyFlowConfig
    from emergence_lib.tables import plateaus_from_curves
    from emergence_lib.sweep import run_sweep

    res = run_sweep([ToyFlowConfig(T=128, d=16, p=p, stop_below=0.02) for p in (0.0, 0.3)], None, progress=False)
    same = plateaus_from_curves(res, "loss", 0.1)
    np.testing.assert_allclose(same["plateau_length"], res.summary["plateau_length"], rtol=0.02)  # coarse vs refined
    train = plateaus_from_curves(res, "train_loss", 0.1)
    assert train.loc[0, "plateau_length"] == same.loc[0, "plateau_length"]  # p = 0: no separate training loss
    assert train["reached"].all()
