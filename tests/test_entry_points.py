"""Smoke runs of the real entry points, and the committed cache."""

import json

import nbformat
import numpy as np

from emergence_lib.cache import ResultCache
from emergence_lib.cli import main as cli
from emergence_lib.experiments import Figure1, figures


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
        if not figure.has_scale("cpu") or figure.BACKGROUND:  # paper_cpu only; or run in the background
            continue
        fig = figure(scale="cpu")
        for run in fig.runs():
            assert cache.load(run) is not None, f"{name}: cpu run {run} missing from data/"


def test_plateaus_can_be_reread_from_another_recorded_loss():
    from emergence_lib.configs import ToyFlowConfig
    from emergence_lib.experiments.toy.read import plateaus_from_curves
    from emergence_lib.sweep import run_sweep

    res = run_sweep([ToyFlowConfig(T=128, d=16, p=p, stop_below=0.02) for p in (0.0, 0.3)], None, progress=False)
    same = plateaus_from_curves(res, "loss", 0.1)
    np.testing.assert_allclose(same["plateau_length"], res.summary["plateau_length"], rtol=0.02)  # coarse vs refined
    train = plateaus_from_curves(res, "train_loss", 0.1)
    assert train.loc[0, "plateau_length"] == same.loc[0, "plateau_length"]  # p = 0: no separate training loss
    assert train["reached"].all()


def test_the_readme_library_example_runs_as_a_script_with_and_without_its_guard(tmp_path):
    """The README's example, copied from the README, as a script in a fresh folder; and a script
    without the guard whose sweep needs the process pool (several chunks): it falls back to one run after another,
    with a warning, instead of multiprocessing's bootstrapping error."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = re.search(r"## Using the library\n\n```python\n(.*?)```", readme, re.S).group(1)
    guarded = tmp_path / "guarded.py"
    guarded.write_text(block)
    # A sweep of several chunks (70 flows: two chunks of at most 64), which needs the pool.
    pooled = tmp_path / "pooled.py"
    pooled.write_text("from emergence_lib.configs import ToyFlowConfig\nfrom emergence_lib.sweep import run_sweep\n"
                      "r = run_sweep([ToyFlowConfig(T=8 + i, d=4) for i in range(70)], None, progress=False)\n"
                      "print(len(r.summary), 'runs')\n")
    # The README's example reads the committed runs (a copy: the test never writes data/), as a reader's would.
    import shutil

    from emergence_lib.cache import ResultCache as Cache

    readme_data = tmp_path / "data_guarded"
    for r in Figure1(scale="cpu").runs():
        target = readme_data / r.kind / Cache().path(r).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(Cache().path(r), target)
    for script, warned in ((guarded, False), (pooled, True)):
        env = dict(os.environ, EMERGENCE_DATA_DIR=str(tmp_path / f"data_{script.stem}"), OMP_NUM_THREADS="1")
        done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "·" in done.stdout or "70 runs" in done.stdout, done.stdout
        assert ("no `if __name__" in done.stderr) == warned, done.stderr[-2000:]


def test_every_benchmark_runs_at_tiny_sizes():
    """`make bench` runs these scripts; a grid that changed shape (a dict became a dataclass) broke one unseen."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    # All at once, two at a time: each spends most of its seconds starting Python and torch.
    from concurrent.futures import ThreadPoolExecutor

    def run(script: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), "--tiny"], cwd=root, capture_output=True, text=True,
                              timeout=600, env=dict(os.environ, OMP_NUM_THREADS="1"))

    scripts = sorted((root / "bench").glob("*.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        for script, done in zip(scripts, pool.map(run, scripts)):
            assert done.returncode == 0, (script.name, done.stderr[-2000:])
            assert "x" in done.stdout, (script.name, done.stdout)  # every benchmark prints its ratios
