"""Re-keying stored runs after a config change (`migrations`): nothing lost, nothing recomputed, idempotent;
and every committed file's config still round-trips to its key (a config change without a migration fails here)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from emergence_lib.cache import RESULTS_FORMAT_VERSION, CacheError, ResultCache, _canonical, content_checksum, run_key
from emergence_lib.configs import TransformerRecallConfig, config_from_stored
from emergence_lib.migrations import migrate

DATA = Path(__file__).resolve().parent.parent / "data"


def _legacy_recall_file(root: Path, seed: int) -> tuple[Path, dict]:
    """A recall run as stored before layer_norm took "pre"/"post"/"none": a bool, and no embedding field."""
    config = {"n_tokens": 8, "n_pairs": 3, "B": 1, "p": 0.0, "n_repeated": 2, "n_layers": 2, "n_heads": 2,
              "d_model": 16, "d_qk": 4, "mlp_factor": 4, "layer_norm": True, "lr": 0.001, "batch_size": 32,
              "max_steps": 100, "threshold": 0.5, "emergence_on": "test", "stop_factor": 1.5, "eval_size": 64,
              "evals_per_decade": 30, "seed": seed}
    payload = {"kind": "transformer_recall", "config": config, "format_version": RESULTS_FORMAT_VERSION}
    key = hashlib.sha256(_canonical(payload).encode()).hexdigest()[:20]
    summary = {"emergence_step": 40.0 + seed, "reached": True, "seconds": 1.0}
    curve = {"step": [0.0, 10.0], "accuracy_test": [0.1, 0.6]}
    record = {"format_version": RESULTS_FORMAT_VERSION, "kind": "transformer_recall", "kind_version": 1, "key": key,
              "config": config, "summary": summary, "curve": curve, "checksum": content_checksum(summary, curve), "meta": {}}
    path = root / "transformer_recall" / f"{key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))
    return path, record


def test_migration_rekeys_legacy_recall_runs_keeping_their_content(tmp_path):
    old_path, record = _legacy_recall_file(tmp_path, seed=0)
    _legacy_recall_file(tmp_path, seed=1)
    assert [m[1] for m in migrate(tmp_path, dry_run=True)] == sorted((tmp_path / "transformer_recall").glob("*.json"))
    assert old_path.exists(), "a dry run moved a file"
    moved = migrate(tmp_path)
    assert len(moved) == 2 and not old_path.exists()
    new = TransformerRecallConfig(**(record["config"] | {"layer_norm": "pre"}))
    assert new.embedding == "lookup"
    loaded = ResultCache(tmp_path).load(new)
    assert loaded is not None and loaded.summary == record["summary"]
    assert loaded.curve["accuracy_test"].tolist() == record["curve"]["accuracy_test"]
    assert migrate(tmp_path) == [], "a second migration moved files again"


def test_migration_refuses_a_file_whose_content_fails_its_checksum(tmp_path):
    path, record = _legacy_recall_file(tmp_path, seed=0)
    record["summary"]["emergence_step"] *= 1.3
    path.write_text(json.dumps(record))
    with pytest.raises(CacheError, match="checksum"):
        migrate(tmp_path)
    assert path.exists()


def test_every_committed_run_round_trips_to_its_key():
    """A config field added or retyped without a migration would leave stored files under stale keys."""
    files = sorted(DATA.glob("*/*.json"))
    assert len(files) > 500, f"expected the committed cache under {DATA}, found {len(files)} files"
    assert migrate(DATA, dry_run=True) == [], "committed files need `python -m emergence_lib migrate`"
    for path in files:
        record = json.loads(path.read_text())
        config = config_from_stored(record["kind"], record["config"])
        assert run_key(config) == path.stem, f"{path} is stored under a key its config no longer has"
