"""The results cache: reuse, invalidation, atomic writes and corrupt files."""

import json

import pytest

from emergence_lib import cache as cache_mod
from emergence_lib import runs
from emergence_lib.cache import CacheError, ResultCache, run_key
from emergence_lib.configs import ToyFlowConfig
from emergence_lib.sweep import run_sweep


@pytest.fixture
def counted(monkeypatch):
    """Count the configs the toy runner actually computes."""
    calls = []
    real = runs.KINDS[ToyFlowConfig.kind]

    def counting(configs, device="cpu"):
        calls.extend(configs)
        return real.run(configs, device=device)

    monkeypatch.setitem(runs.KINDS, ToyFlowConfig.kind, runs.RunKind(counting, real.chunks))
    return calls


def configs(**overrides):
    base = dict(t_max=3000.0, stop_below=0.05, points_per_decade=50)
    base.update(overrides)
    return [ToyFlowConfig(T=T, d=d, **base) for T in (64, 128) for d in (4, 8)]


def test_rerun_reuses_the_cache(tmp_path, counted):
    c = ResultCache(tmp_path)
    first = run_sweep(configs(), c, progress=False)
    assert (first.n_cached, first.n_computed) == (0, 4) and len(counted) == 4
    second = run_sweep(configs(), c, progress=False)
    assert (second.n_cached, second.n_computed) == (4, 0) and len(counted) == 4
    assert second.summary["plateau_length"].tolist() == first.summary["plateau_length"].tolist()
    assert len(second.curves) == len(first.curves)


def test_changing_any_field_gives_a_new_run(tmp_path, counted):
    c = ResultCache(tmp_path)
    run_sweep(configs(), c, progress=False)
    for change in (dict(threshold=0.2), dict(points_per_decade=60), dict(logits="per_position"), dict(t_max=3001.0)):
        before = len(counted)
        result = run_sweep(configs(**change), c, progress=False)
        assert result.n_computed == 4 and len(counted) == before + 4, change
    assert len(set(run_key(x) for x in configs() + configs(threshold=0.2))) == 8


def test_only_missing_runs_are_computed(tmp_path, counted):
    c = ResultCache(tmp_path)
    run_sweep(configs()[:2], c, progress=False)
    result = run_sweep(configs(), c, progress=False)
    assert (result.n_cached, result.n_computed) == (2, 2)
    assert {(x.T, x.d) for x in counted[2:]} == {(x.T, x.d) for x in configs()[2:]}


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path):
    c = ResultCache(tmp_path)
    run_sweep(configs(), c, progress=False)
    files = sorted(p.name for p in (tmp_path / ToyFlowConfig.kind).iterdir())
    assert len(files) == 4 and all(f.endswith(".json") and not f.startswith(".") for f in files)


def test_a_crash_during_save_leaves_no_file(tmp_path, monkeypatch):
    c = ResultCache(tmp_path)
    cfg = configs()[0]
    result = runs.run_toy_flow([cfg])[0]

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cache_mod.json, "dump", boom)
    with pytest.raises(KeyboardInterrupt):
        c.save(cfg, result)
    assert list((tmp_path / cfg.kind).iterdir()) == []


@pytest.mark.parametrize("damage", ["truncate", "garbage", "missing_key"])
def test_corrupt_file_is_an_error_naming_it_before_any_compute(tmp_path, counted, damage):
    c = ResultCache(tmp_path)
    run_sweep(configs()[:1], c, progress=False)
    path = c.path(configs()[0])
    text = path.read_text()
    if damage == "truncate":
        path.write_text(text[: len(text) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff not json")
    else:
        record = json.loads(text)
        del record["summary"]
        path.write_text(json.dumps(record))
    n = len(counted)
    with pytest.raises(CacheError, match=path.name):
        run_sweep(configs(), c, progress=False)  # the other 3 runs are missing, but nothing is computed
    assert len(counted) == n
    # Asked to, the sweep reports the corrupt run by name, recomputes it and repairs the file.
    with pytest.warns(UserWarning, match=path.name):
        result = run_sweep(configs(), ResultCache(tmp_path, on_corrupt="recompute"), progress=False)
    assert result.n_computed == 4
    assert ResultCache(tmp_path).load(configs()[0]) is not None


def test_file_whose_config_differs_from_its_key_is_never_reused(tmp_path):
    c = ResultCache(tmp_path)
    run_sweep(configs()[:1], c, progress=False)
    path = c.path(configs()[0])
    record = json.loads(path.read_text())
    record["config"]["threshold"] = 0.3
    path.write_text(json.dumps(record))
    with pytest.raises(CacheError, match="does not match the checksum"):  # the checksum covers the config
        c.load(configs()[0])
    record["checksum"] = cache_mod.record_checksum(record)  # re-sealed by hand: the key no longer matches
    path.write_text(json.dumps(record))
    with pytest.raises(CacheError, match="key"):
        c.load(configs()[0])
    with pytest.warns(UserWarning, match="unreadable"):
        assert ResultCache(tmp_path, on_corrupt="recompute").load(configs()[0]) is None


def test_a_new_results_format_version_does_not_reuse_old_files(tmp_path, counted, monkeypatch):
    c = ResultCache(tmp_path)
    run_sweep(configs(), c, progress=False)
    monkeypatch.setattr(cache_mod, "RESULTS_FORMAT_VERSION", cache_mod.RESULTS_FORMAT_VERSION + 1)
    result = run_sweep(configs(), c, progress=False)
    assert result.n_computed == 4


def test_default_cache_location_follows_the_environment(data_dir):
    assert ResultCache().root == data_dir


def test_smoke_scale_writes_nothing(data_dir):
    from emergence_lib.experiments import Figure1

    Figure1(scale="smoke").run(progress=False)
    assert not data_dir.exists()


def test_smoke_runs_go_to_the_scratch_cache_when_one_is_named(data_dir, tmp_path, monkeypatch):
    from emergence_lib.experiments import SMOKE_CACHE_ENV, Figure1

    scratch = tmp_path / "smoke-cache"
    monkeypatch.setenv(SMOKE_CACHE_ENV, str(scratch))
    first = Figure1(scale="smoke").run(progress=False)
    again = Figure1(scale="smoke").run(progress=False)
    assert not data_dir.exists() and len(list(scratch.rglob("*.json"))) > 0
    assert sum(r.n_computed for r in again.values()) == 0, "a second chapter must reuse the smoke runs"
    assert first["plateaus"].summary["plateau_length"].tolist() == again["plateaus"].summary["plateau_length"].tolist()


def test_a_gpu_record_is_never_asked_to_match_exactly_even_with_this_machines_fingerprint():
    """A GPU run records the fingerprint of the CPU host that launched it; no CPU computed its numbers, so a recompute
    here is checked to the kind's tolerance. On 2026-12-05 a clean clone failed on such a record (plateau 239.6562146676222
    stored, 239.65618551159423 recomputed) because the machine alone decided."""
    here = cache_mod.machine_fingerprint()
    for kind, measured in cache_mod.REPRODUCE_RTOL.items():
        rtol = measured if measured < cache_mod.DISCERNS_CODE else None  # too wide to tell code apart: not compared
        assert cache_mod.reproduce_rtol(kind, {"device": "cuda", "machine": here}) == rtol
        assert cache_mod.reproduce_rtol(kind, {"device": "cuda:0", "machine": here}) == rtol
        assert cache_mod.reproduce_rtol(kind, {"device": "cpu", "machine": here}) == 0.0
        assert cache_mod.reproduce_rtol(kind, {"machine": here}) == 0.0  # records before meta.device were CPU runs
        assert cache_mod.reproduce_rtol(kind, {"device": "cpu", "machine": "elsewhere"}) == rtol


def test_the_cross_cpu_tolerances_are_the_measured_ones():
    """Issue 53 item 7: `verify --sample` called an intact record "differs from its code" on another vendor's CPU
    (1.3e-3 relative against a guessed 1e-4). Each kind's tolerance now comes from bench/cross_cpu_tolerance.py's
    measurements: at least ten times the largest difference any recompute needed, under every instruction set."""
    import json
    from pathlib import Path

    from emergence_lib.configs import RUN_CONFIGS

    report = json.loads((Path(cache_mod.__file__).parent / "cross_cpu_tolerance.json").read_text())
    assert set(report["kinds"]) == set(RUN_CONFIGS) == set(cache_mod.REPRODUCE_RTOL)
    for kind, entry in report["kinds"].items():
        needed = [x for setting in entry["by_setting"].values() for x in setting["needed_rtol"]]
        assert len(entry["runs"]) >= 2 and len(entry["by_setting"]) == 3 and len(needed) == 3 * len(entry["runs"])
        assert entry["largest_needed"] == max(needed)
        assert 10 * max(needed) <= cache_mod.REPRODUCE_RTOL[kind] <= max(50 * max(needed), 1e-10), kind
    # The regression runs stored on another vendor's CPU needed about 1e-3 here, as the hostile round found.
    assert report["kinds"]["transformer_regression"]["largest_needed"] > 1e-4


def test_the_methods_page_states_the_measured_tolerances():
    """The methods page types the tolerances (a markdown page has no glue): they must be the measured file's."""
    from pathlib import Path

    text = (Path(cache_mod.__file__).parent.parent / "chapters" / "methods.md").read_text()
    rtol = cache_mod.REPRODUCE_RTOL
    for kind, typed in (("transformer_regression", r"$5\times10^{-2}$"), ("toy_sgd", r"$2\times10^{-4}$"),
                        ("toy_reduced_flow", r"$10^{-10}$")):
        assert typed in text, typed
        mantissa, _, exponent = typed.strip("$").replace(r"\times10^{", " ").replace("10^{", "1 ").rstrip("}").partition(" ")
        assert float(f"{mantissa}e{exponent}") == rtol[kind], kind
    import json

    measured = json.loads((Path(cache_mod.__file__).parent / "cross_cpu_tolerance.json").read_text())
    recall = round(100 * measured["kinds"]["transformer_recall"]["largest_needed"])
    assert rtol["transformer_recall"] >= cache_mod.DISCERNS_CODE and f"up to {recall}%" in text
