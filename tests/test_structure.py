"""The library's shape: no import cycles, one registry with every figure, the analysis helpers the chapters
use, and the attention codec. (Unit tier.)"""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from emergence_lib import attention
from emergence_lib.experiments import figures
from emergence_lib.experiments.recall import read as recall_read
from emergence_lib.experiments.regression import read as regression_read
from emergence_lib.experiments.toy import read as toy_read
from emergence_lib.sweep import SweepResult

LIB = Path(__file__).resolve().parent.parent / "emergence_lib"


def _imports() -> dict[str, set[str]]:
    """Module → the library modules it imports, at any depth (inside functions too)."""
    graph: dict[str, set[str]] = {}
    for path in LIB.rglob("*.py"):
        parts = path.relative_to(LIB.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
                names = [f"{target}.{a.name}" for a in node.names]
                deps |= {n for n in names if (LIB.parent / (n.replace(".", "/") + ".py")).exists()} or {target}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("emergence_lib"):
                deps.add(node.module)
        graph[module] = {d for d in deps if d != module}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_library_has_no_import_cycles():
    graph = _imports()
    assert len(graph) > 30 and "emergence_lib.experiments.base" in graph
    assert _cycle(graph) is None, f"import cycle: {' → '.join(_cycle(graph))}"


def test_the_cycle_check_finds_a_cycle():  # the check above can fail
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


LAYERS = {"runs": 0, "read": 1, "show": 2}
GROUPS = ("toy", "toy_appendix", "regression", "table1", "table1_joint", "bend", "unsaid", "unsaid_recall", "recall", "recall_table1", "ablations_table1", "confirm", "ablations", "steering", "prediction", "followup")


def _layer(module: str) -> int:
    """0, 1 or 2 for an experiment's runs, read or show module; -1 for anything else."""
    parts = module.split(".")
    return LAYERS.get(parts[3], -1) if parts[:2] == ["emergence_lib", "experiments"] and len(parts) == 4 else -1


def _upward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return [(m, d) for m, deps in graph.items() for d in deps if _layer(m) >= 0 and _layer(d) > _layer(m)]


def test_experiments_import_runs_then_read_then_show():
    """In every experiment folder the imports go runs → read → show (across folders too): a grid never reads
    results and a reader never draws."""
    graph = _imports()
    assert {f"emergence_lib.experiments.{g}.runs" for g in GROUPS} <= set(graph)
    assert _upward_imports(graph) == []
    assert _upward_imports({"emergence_lib.experiments.toy.runs": {"emergence_lib.experiments.toy.show"}})  # it can fail


def test_the_engine_never_imports_an_experiment():
    """Below the experiments only the entry points that list them (the command line, the landing page's tables, the
    registration record, the paper's points that the landing rows price) and the claims registered before their runs (`claims.measured`: the paper_cpu points of
    `experiments.regression.runs` and the other measured grids) import them, and nothing below them imports a read or show module."""
    graph = _imports()
    entry_points = {"emergence_lib.cli", "emergence_lib.scorecard", "emergence_lib.registration", "emergence_lib.claims.measured",
                   "emergence_lib.claims.unsaid", "emergence_lib.claims.bend", "emergence_lib.paper_scale", "emergence_lib.run_index", "emergence_lib.cli_store",
                   "emergence_lib.paper_point"}
    for module, deps in graph.items():
        if module.startswith("emergence_lib.experiments") or module in entry_points:
            continue
        assert not {d for d in deps if d.startswith("emergence_lib.experiments")}, module
    assert {d for d in graph["emergence_lib.claims.measured"] if d.startswith("emergence_lib.experiments")} == {
        "emergence_lib.experiments.regression.runs", "emergence_lib.experiments.table1.runs",
        "emergence_lib.experiments.recall_table1.runs", "emergence_lib.experiments.ablations_table1.runs"}


def test_each_experiment_is_one_folder():
    """Every experiment's code is in its folder: runs.py, read.py (but toy_appendix, whose readers sit with its
    views) and show.py, and no module of the old split (figures/, panels/, tables, beyond, prediction, followup, table1)."""
    root = LIB / "experiments"
    for g in GROUPS:
        names = {p.name for p in (root / g).glob("*.py")}
        assert names == {"__init__.py", "runs.py", "show.py"} | ({"read.py"} if g != "toy_appendix" else set()), (g, names)
    old = ["figures", "panels", "tables.py", "beyond.py", "prediction.py", "followup.py", "table1.py"]
    assert not [n for n in old if (LIB / n).exists()]


def test_the_registry_has_every_paper_figure():
    names = set(figures())
    assert {f"figure{i}" for i in range(1, 18)} <= names
    for name, cls in figures().items():
        fig = cls(scale="smoke")
        assert fig.runs(), name  # every figure has runs (Figure 12 shares Figure 3's)


def test_attention_codec_round_trip_and_tidy():
    rng = np.random.default_rng(0)
    weights = rng.random((5, 3, 2))  # (n_evals, layers, heads)
    columns = attention.to_columns("attn_relevant", weights)
    assert sorted(columns)[:2] == ["attn_relevant_L1H1", "attn_relevant_L1H2"]
    curve = pd.DataFrame({"step": np.arange(5.0), "loss_test": 1.0, **columns})
    assert attention.recordings(curve.columns) == ["attn_relevant"]
    assert np.array_equal(attention.as_array(curve, "attn_relevant"), weights)
    tidy = attention.tidy(curve)
    assert len(tidy) == 5 * 3 * 2 and set(tidy["kind"]) == {"relevant"}
    row = tidy[(tidy["step"] == 3) & (tidy["layer"] == 2) & (tidy["head"] == 1)]
    assert row["weight"].item() == weights[3, 1, 0]
    with pytest.raises(KeyError, match="attn_query"):
        attention.as_array(curve, "attn_query")


def _sweep(rows: list[dict], curves: list[pd.DataFrame]) -> SweepResult:
    summary = pd.DataFrame(rows)
    frames = [c.assign(run=r["run"], **{k: v for k, v in r.items() if k != "run"}) for r, c in zip(rows, curves)]
    return SweepResult(summary, pd.concat(frames, ignore_index=True), 0, 0)


def test_crossings_and_the_training_distribution_fallback():
    steps = np.array([0.0, 10.0, 20.0, 30.0])
    repeated = pd.DataFrame({"step": steps, "accuracy_test": [0.0, 0.1, 0.3, 0.9], "accuracy_train_distribution": [0.0, 0.6, 0.9, 1.0]})
    plain = pd.DataFrame({"step": steps, "accuracy_test": [0.0, 0.2, 0.6, 1.0], "accuracy_train_distribution": np.nan})
    res = _sweep([{"run": "a", "n_pairs": 4, "seed": 0}, {"run": "b", "n_pairs": 8, "seed": 0}], [repeated, plain])
    train = res.crossings("train_distribution_accuracy", 0.5, direction="up").set_index("run")["crossing"]
    assert train["a"] == pytest.approx(10 * 0.5 / 0.6) and train["b"] == pytest.approx(10 + 10 * 0.3 / 0.4)
    per_pairs = recall_read.crossing_steps(res, {4: 0.2, 8: 0.6}).set_index("run")
    assert per_pairs.loc["a", "emergence_step"] == pytest.approx(15.0) and per_pairs.loc["b", "emergence_step"] == 20.0
    assert list(per_pairs["level"]) == [0.2, 0.6]
    assert len(res.subset(["b"]).curves) == 4 and list(res.subset(["b"]).summary["run"]) == ["b"]


def test_exponent_drift_recovers_exponents_on_every_part_of_the_grid():
    rows = [{"d": d, "T": T, "B": 1, "plateau_length": 3.0 * d**1.3 * T**0.8} for d in (4, 8, 16, 32) for T in (16, 32, 64, 128)]
    joint = pd.DataFrame(rows)
    larger = pd.DataFrame([{"d": 64, "T": 64, "B": 1, "plateau_length": 3.0 * 64**1.3 * 64**0.8}])
    drift = regression_read.exponent_drift(joint, larger)
    assert "whole grid + larger points" in drift.index and len(drift) == 5
    assert np.allclose(drift["α (d)"], 1.3) and np.allclose(drift["β (T)"], 0.8)


def test_constant_investigation_reads_each_candidate_against_the_baseline():
    def flows(scale: float, T: int = 64) -> SweepResult:
        rows, curves = [], []
        for i, (d, p) in enumerate([(d, p) for d in (4, 16) for p in (0.0, 0.4)]):
            f = np.sqrt(p**2 * d + (1 - p) ** 2)
            plateau = scale * (np.sqrt(d) * T / f)
            rows.append({"run": f"{scale}-{T}-{i}", "T": T, "d": d, "p": p, "plateau_length": plateau})
            curves.append(pd.DataFrame({"t": [0.0, 2 * plateau], "loss": [0.5, 0.01], "train_loss": [0.5, 0.01]}))
        return _sweep(rows, curves)

    table = toy_read.constant_investigation({"|x̃| = 2": flows(2.0), "T = 128": flows(1.0, T=128)}, flows(1.0), 2.15)
    assert table.loc["baseline: reduced 3-D flow", "C"] == pytest.approx(1.0)
    assert table.loc["|x̃| = 2", "C"] == pytest.approx(2.0) and table.loc["|x̃| = 2", "plateau / baseline (median)"] == pytest.approx(2.0)
    assert table.loc["T = 128, plotted as T = 64", "C"] == pytest.approx(2.0)  # a mislabelled T doubles the constant
    assert table.loc["time counted in steps at lr = 0.5", "C"] == pytest.approx(2.0)
    assert table["γ"].round(6).eq(1.0).all()


def test_attention_summary_is_one_row_per_run_step_layer_head():
    w = np.arange(12, dtype=float).reshape(2, 3, 2)
    curve = pd.DataFrame({"step": [0.0, 5.0], **attention.to_columns("attn_value_to_key", w)})
    res = _sweep([{"run": "r", "seed": 3}], [curve])
    att = recall_read.attention_summary(res)
    assert len(att) == 12 and set(att["seed"]) == {3} and set(att["kind"]) == {"value_to_key"}
    assert att.set_index(["step", "layer", "head"]).loc[(5.0, 3, 2), "weight"] == w[1, 2, 1]


def test_the_package_ships_every_subpackage():
    """A wheel (`pip install .`) holds every package under emergence_lib: pyproject's find rule matches each folder
    with an __init__.py (a bare ``packages = ["emergence_lib"]`` left the experiments out)."""
    import tomllib

    from setuptools import find_packages

    config = tomllib.loads((LIB.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    rule = config["packages"]  # a list of names, or {"find": {...}}
    found = set(rule) if isinstance(rule, list) else set(find_packages(str(LIB.parent), **rule["find"]))
    on_disk = {".".join(p.parent.relative_to(LIB.parent).parts) for p in LIB.rglob("__init__.py")}
    assert on_disk <= found, sorted(on_disk - found)
    assert {"emergence_lib.experiments", "emergence_lib.experiments.regression"} <= on_disk


MAX_MODULE_LINES = 450  # the developers' guide: small modules, one concern each


def _long_modules(root: Path, limit: int) -> list[str]:
    return sorted(f"{p.relative_to(root.parent)}: {n} lines" for p in root.rglob("*.py")
                  if (n := len(p.read_text().splitlines())) > limit)


def test_every_module_of_the_library_is_at_most_450_lines(tmp_path):
    assert _long_modules(LIB, MAX_MODULE_LINES) == []
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert _long_modules(tmp_path / "lib", MAX_MODULE_LINES) == ["lib/long.py: 451 lines"]  # the check can fail
