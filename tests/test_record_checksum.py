"""Issue 37 item 1: a checksum over the whole record, a schema every stored file must meet, and the sealing
migration. Each tamper case of the issue is a test; each one passed `verify` and `status` before."""

from __future__ import annotations

import json
import math

import pytest

from emergence_lib.cache import SEALED, CacheError, ResultCache, content_checksum, record_checksum
from emergence_lib.cli import main as cli
from emergence_lib.configs import ToyFlowConfig
from emergence_lib.migrations import seal_records
from emergence_lib.sweep import run_sweep

A, B = ToyFlowConfig(T=16, d=4), ToyFlowConfig(T=32, d=4)


@pytest.fixture
def store(data_dir):
    run_sweep([A, B], ResultCache(data_dir), progress=False)
    return ResultCache(data_dir)


def _record(cache, config):
    return json.loads(cache.path(config).read_text())


def _write(cache, config, record, reseal=True):
    if reseal:
        record["checksum"] = record_checksum(record)
    cache.path(config).write_text(json.dumps(record, allow_nan=True))


def test_a_saved_file_is_sealed_over_its_whole_record(store):
    r = _record(store, A)
    assert r["checksum_covers"] == SEALED and r["checksum"] == record_checksum(r)
    assert store.load(A) is not None


def test_another_runs_content_and_checksum_under_this_runs_config_is_refused(store):
    a, b = _record(store, A), _record(store, B)
    forged = dict(a, summary=b["summary"], curve=b["curve"], checksum=b["checksum"])
    _write(store, A, forged, reseal=False)
    with pytest.raises(CacheError, match="does not match the checksum"):
        store.load(A)


@pytest.mark.parametrize("field", ["config", "meta", "key", "kind_version"])
def test_an_edit_outside_summary_and_curve_is_refused(store, field, capsys):
    r = _record(store, A)
    if field == "config":
        r["config"]["lr"] = 0.5
    elif field == "meta":
        r["meta"]["device"] = "cuda"
    elif field == "key":
        r["key"] = "0" * 20
    else:
        r["kind_version"] = 7
    _write(store, A, r, reseal=False)
    with pytest.raises(CacheError):
        store.load(A)
    assert cli(["verify"]) == 1, "whole-store verify names it too"
    assert "1 bad" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["abc", float("nan"), -5.0])
def test_a_value_no_run_writes_is_refused_even_with_its_checksum_recomputed(store, value):
    r = _record(store, A)
    r["summary"]["plateau_length"] = value
    _write(store, A, r)
    with pytest.raises(CacheError, match="plateau_length"):
        store.load(A)


def test_reached_false_beside_a_finite_crossing_is_refused(store):
    r = _record(store, A)
    assert math.isfinite(r["summary"]["plateau_length"])
    r["summary"]["reached"] = False
    _write(store, A, r)
    with pytest.raises(CacheError, match="reached"):
        store.load(A)


def test_a_run_in_another_kinds_folder_is_refused(store):
    r = _record(store, A)
    other = store.root / "toy_sgd" / store.path(A).name
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_text(json.dumps(r))
    n, bad = store.check_all()
    assert len(bad) == 1 and "toy_sgd" in bad[0]


def _unseal(store, config):
    """The file as stored before issue 37: its checksum over summary and curve only."""
    r = _record(store, config)
    del r["checksum_covers"]
    r["meta"] = {k: v for k, v in r["meta"].items() if k != "checksum_migrated"}
    r["checksum"] = content_checksum(r["summary"], r["curve"])
    store.path(config).write_text(json.dumps(r))
    return r


def test_an_older_file_is_never_recomputed_over_and_says_migrate(store):
    _unseal(store, A)
    for cache in (store, ResultCache(store.root, on_corrupt="recompute")):
        with pytest.raises(CacheError, match="migrate"):
            cache.load(A)


def test_migrate_seals_older_files_from_their_content_and_says_so(store, capsys):
    before = _unseal(store, A)
    sealed = seal_records(store.root, today="2026-12-03")
    assert sealed == [store.path(A)]
    after = _record(store, A)
    assert after["summary"] == before["summary"] and after["curve"] == before["curve"]
    assert after["meta"]["checksum_migrated"].startswith("2026-12-03: sealed from its content")
    assert store.load(A) is not None
    assert seal_records(store.root) == [], "idempotent"
    assert cli(["migrate"]) == 0


def test_migrate_refuses_an_older_file_whose_content_or_key_does_not_hold(store):
    r = _unseal(store, A)
    r["summary"]["plateau_length"] *= 2  # changed after its content checksum was written
    store.path(A).write_text(json.dumps(r))
    _unseal(store, B)
    with pytest.raises(CacheError, match="sealed 1 files; refused 1"):
        seal_records(store.root)
    assert _record(store, B)["checksum_covers"] == SEALED, "the good one is sealed"
    assert "checksum_covers" not in _record(store, A), "the bad one is left as it is"


def test_a_rekeying_never_blesses_a_file_without_a_checksum_or_with_a_wrong_name(data_dir):
    """The review's case: a legacy recall file with no checksum, a hand-edited crossing and a wrong name was sealed
    by the re-keying migration. Now it is refused and left as it is."""
    from emergence_lib.migrations import migrate

    sys_path = __import__("tests.test_migrations", fromlist=["_legacy_recall_file"])
    path, record = sys_path._legacy_recall_file(data_dir, seed=0)
    del record["checksum"]
    path.write_text(json.dumps(record))
    with pytest.raises(CacheError, match="has none"):
        migrate(data_dir)
    assert path.exists()
    path2, record2 = sys_path._legacy_recall_file(data_dir, seed=1)
    path.unlink()
    renamed = path2.with_name("0" * 20 + ".json")
    path2.rename(renamed)
    with pytest.raises(CacheError, match="key"):
        migrate(data_dir)
    assert renamed.exists()


def test_whole_store_verify_names_a_file_of_another_results_format(store):
    r = _record(store, A)
    r["format_version"] = 99
    _write(store, A, r)
    n, bad = store.check_all()
    assert len(bad) == 1 and "results format is 99" in bad[0]
