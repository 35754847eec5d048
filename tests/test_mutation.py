"""A mutation test of the verdicts (issue 25): scale some of Figure 1's stored plateaus by 1.3 in a scratch copy of
data/. The claims that read them must change verdict, the others must not, and a file changed without its checksum
is refused rather than judged."""

import json
import shutil

import pytest

from emergence_lib import claims
from emergence_lib.cache import CacheError, ResultCache, default_data_dir, record_checksum
from emergence_lib.experiments import Figure1
from emergence_lib.metrics import fit_power_law


def _figure1_statuses():
    """Figure 1's claims as chapter 01 computes them: the power law over every (T, d) plateau, and the mechanism
    from the curves (which the mutation leaves alone)."""
    results = Figure1(scale="cpu").run(progress=False)
    fit = fit_power_law(results["plateaus"].summary, ["d", "T"])
    return {k: claims.claim(k).status(fit.exponents[e]) for k, e in (("figure1.d_exponent", "d"), ("figure1.T_exponent", "T"))}


def test_scaling_the_largest_T_plateaus_changes_exactly_the_claims_that_read_them(tmp_path, monkeypatch):
    runs = Figure1(scale="cpu").runs()
    source = ResultCache(default_data_dir())
    scratch = tmp_path / "data"
    for r in runs:
        target = scratch / r.kind / source.path(r).name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source.path(r), target)
    monkeypatch.setenv("EMERGENCE_DATA_DIR", str(scratch))
    before = _figure1_statuses()
    assert before == {"figure1.d_exponent": "reproduced", "figure1.T_exponent": "reproduced"}

    plateau_runs = Figure1(scale="cpu").sweeps()["plateaus"]
    top = max(r.T for r in plateau_runs)
    mutated = [r for r in plateau_runs if r.T == top]
    for r in mutated:
        path = ResultCache(scratch).path(r)
        record = json.loads(path.read_text())
        record["summary"]["plateau_length"] *= 1.3
        path.write_text(json.dumps(record))
    # Changed without its checksum: refused, never judged.
    with pytest.raises(CacheError, match="does not match the checksum"):
        Figure1(scale="cpu").run(progress=False)
    for r in mutated:  # what a result of other code would look like: a consistent file
        path = ResultCache(scratch).path(r)
        record = json.loads(path.read_text())
        record["checksum"] = record_checksum(record)
        path.write_text(json.dumps(record))
    after = _figure1_statuses()
    assert after["figure1.T_exponent"] == "differs", "the T exponent reads the largest T's plateaus"
    assert after["figure1.d_exponent"] == before["figure1.d_exponent"], "the d exponent is the same at every T"
    # At cpu scale the registry's pin turns that change into a failed build.
    results = Figure1(scale="cpu").run(progress=False)
    fit = fit_power_law(results["plateaus"].summary, ["d", "T"])
    with pytest.raises(claims.ClaimMismatch, match="figure1.T_exponent"):
        claims.record("figure1.T_exponent", fit.exponents["T"], "cpu")
