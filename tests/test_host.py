"""Prices true on the host that runs them, and bfloat16 only where it is fast (issue 62 items 1 and 2): the host's
matmul rates, the estimate scaled by them, a run's CPU seconds preferred over its wall seconds, and the refusal."""

from __future__ import annotations

import subprocess
import sys

import pytest

from emergence_lib import host
from emergence_lib.configs import ConfigError, TransformerRegressionConfig
from emergence_lib.estimate import shape_of, stored_step_seconds

pytestmark = pytest.mark.unit
RUN = TransformerRegressionConfig(T=256, d=16, d_model=256, d_qk=64, lr=1e-4, max_steps=50_000, seed=5)
BF16 = TransformerRegressionConfig(T=256, d=16, d_model=256, d_qk=64, lr=1e-4, max_steps=50_000, seed=5,
                                   precision="bfloat16")


def test_a_shape_stored_on_a_host_twice_as_fast_is_priced_twice_as_long_here():
    summary = {"seconds": 1500.0, "steps_run": 1000}
    fast = {"matmul_gflops": {"float32": 80.0, "bfloat16": 400.0}}
    here = {"float32": 40.0, "bfloat16": 1.0}
    assert stored_step_seconds([(RUN, summary, fast)], here)[shape_of(RUN)][0] == pytest.approx(3.0)
    assert stored_step_seconds([(RUN, summary, fast)])[shape_of(RUN)][0] == pytest.approx(1.5), "unscaled without here"
    # The run's precision decides which rate scales it: bfloat16 here is 400x slower than there.
    assert stored_step_seconds([(BF16, summary, fast)], here)[shape_of(BF16)][0] == pytest.approx(1.5 * 400)


def test_a_run_stored_without_rates_counts_as_from_the_stated_default_host():
    here = {"float32": host.DEFAULT_RATES["float32"] / 4, "bfloat16": host.DEFAULT_RATES["bfloat16"]}
    got = stored_step_seconds([(RUN, {"seconds": 100.0, "steps_run": 100}, {})], here)[shape_of(RUN)][0]
    assert got == pytest.approx(4.0)


def test_a_runs_own_cpu_seconds_are_read_over_the_steps_they_covered():
    """Wall seconds count the neighbours' load; a resumed run's CPU seconds cover the steps after its checkpoint."""
    summary = {"seconds": 9000.0, "steps_run": 1000}
    meta = {"cpu_seconds": 600.0, "cpu_from_step": 400}
    assert stored_step_seconds([(RUN, summary, meta)])[shape_of(RUN)][0] == pytest.approx(1.0)


def test_bfloat16_is_refused_where_it_is_slower_and_allowed_where_it_is_faster(monkeypatch):
    monkeypatch.setenv(host.RATES_ENV, "float32=38.7,bfloat16=0.6")
    with pytest.raises(ConfigError) as refused:
        host.check_precision([RUN, BF16])
    line = str(refused.value)
    assert "0.6 GFLOP/s against 38.7" in line and "precision='float32'" in line and "\n" not in line
    host.check_precision([RUN])  # float32 runs: nothing to refuse
    monkeypatch.setenv(host.RATES_ENV, "float32=145,bfloat16=690")
    host.check_precision([BF16])


@pytest.mark.parametrize("bad", ["fast", "float32=1", "float32=1,bfloat16=-2", "float32=x,bfloat16=1"])
def test_a_bad_rates_setting_is_named(monkeypatch, bad):
    monkeypatch.setenv(host.RATES_ENV, bad)
    with pytest.raises(ConfigError, match=host.RATES_ENV):
        host.matmul_rates()


def test_the_rates_are_measured_in_well_under_a_second(monkeypatch):
    import time

    monkeypatch.delenv(host.RATES_ENV, raising=False)
    host._measured.cache_clear()
    t = time.perf_counter()
    rates = host.matmul_rates()
    assert time.perf_counter() - t < 2.0 and rates["float32"] > 0 and rates["bfloat16"] > 0


@pytest.mark.integration
def test_the_command_line_refuses_a_slow_bfloat16_run_before_any_compute(tmp_path):
    """`run unsaid` on an empty store: its bfloat16 readings are refused in one line, exit 2, nothing stored."""
    env = {"EMERGENCE_DATA_DIR": str(tmp_path / "data"), host.RATES_ENV: "float32=38.7,bfloat16=0.6",
           "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "emergence_lib", "run", "unsaid", "--scale", "paper_cpu", "--yes"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 2, done.stderr[-800:]
    assert "bfloat16 runs refused" in done.stderr and "38.7" in done.stderr
    assert not list((tmp_path / "data").rglob("*.json"))


def test_a_run_stored_here_without_rates_counts_as_from_this_host():
    from emergence_lib.reproduce import machine_fingerprint

    here = {"float32": 30.0, "bfloat16": 0.7}
    meta = {"machine": machine_fingerprint()}
    got = stored_step_seconds([(RUN, {"seconds": 100.0, "steps_run": 100}, meta)], here)[shape_of(RUN)][0]
    assert got == pytest.approx(1.0), "this host's own runs are not rescaled"
