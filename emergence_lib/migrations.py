"""Re-keying stored runs when a config gains or retypes a field, without recomputing them.

A run's key hashes every config field, so adding a field (even one whose
default reproduces the old behaviour) changes every key of that kind. A
migration maps each stored config to its new form; the file is rewritten under
the new key with its summary, curve and checksum untouched, and the old file is
removed only after the new one is safely written. It is idempotent: a config
the migration leaves unchanged is skipped. Stored runs are never recomputed
here; that a migrated file still equals a fresh run is what
``tests/test_cache_reproduces.py`` checks.

    python -m emergence_lib migrate [--dry-run]
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .cache import (RESULTS_FORMAT_VERSION, SEALED, CacheError, ResultCache, check_key, content_checksum, record_checksum,
                    run_key, special_file)
from .record_schema import check_record, read_record
from .results import RunResult
from .configs import TransformerRecallConfig, config_from_stored


@dataclass(frozen=True)
class Migration:
    """``transform`` maps an old stored config dict of ``config_class`` to the new one (or returns it unchanged)."""

    name: str
    config_class: type[Any]
    transform: Callable[[dict[str, Any]], dict[str, Any]]


def _recall_layer_norm_options(config: dict[str, Any]) -> dict[str, Any]:
    # layer_norm was a bool (True = pre-LN) and the embedding always the N(0, 1) lookup.
    new = dict(config)
    if isinstance(new.get("layer_norm"), bool):
        new["layer_norm"] = "pre" if new["layer_norm"] else "none"
    new.setdefault("embedding", "lookup")
    return new


MIGRATIONS: tuple[Migration, ...] = (
    Migration("recall: layer_norm pre/post/none and embedding lookup/linear", TransformerRecallConfig,
              _recall_layer_norm_options),
)


def migrate(root: Path | str | None = None, dry_run: bool = False,
            migrations: tuple[Migration, ...] = MIGRATIONS) -> list[tuple[str, Path, Path]]:
    """Apply every migration to the store under ``root``; returns (migration, old path, new path) per file moved."""
    cache = ResultCache(root)
    moved = []
    for m in migrations:
        folder = cache.root / m.config_class.kind
        for old_path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if special_file(old_path) is not None:
                raise CacheError(f"cannot migrate {old_path}: it is {special_file(old_path)}, not a stored run (remove it)")
            try:
                record = read_record(old_path)
                missing = [k for k in ("config", "summary", "curve") if k not in record]
            except (OSError, ValueError, RecursionError, TypeError) as exc:
                raise CacheError(f"cannot migrate {old_path}: unreadable ({type(exc).__name__})") from exc
            if missing:
                raise CacheError(f"cannot migrate {old_path}: it has no {', '.join(missing)} (delete it to recompute that run)")
            if not isinstance(record["config"], dict):
                raise CacheError(f"cannot migrate {old_path}: its config is a {type(record['config']).__name__}, not a "
                                 "mapping of fields (delete it to recompute that run)")
            new_config = m.transform(record["config"])
            if new_config == record["config"]:
                continue
            expected = (record_checksum(record) if record.get("checksum_covers") == SEALED
                        else content_checksum(record["summary"], record["curve"]))
            if record.get("checksum") != expected:  # a file without one is never blessed by a re-keying
                raise CacheError(f"cannot migrate {old_path}: its content does not match its checksum (or it has none)")
            try:  # the old file's name is its old config's key, and it holds what a run writes
                check_key(record, old_path.stem)
                check_record(record)
            except ValueError as exc:
                raise CacheError(f"cannot migrate {old_path}: {exc}") from None
            config = config_from_stored(m.config_class.kind, new_config)  # validates the migrated config
            new_path = cache.path(config)
            moved.append((m.name, old_path, new_path))
            if dry_run:
                continue
            if new_path.exists():
                raise CacheError(f"cannot migrate {old_path}: {new_path} already exists")
            fresh_record = dict(record, config=new_config, key=new_path.stem,
                                meta=dict(record.get("meta", {}), migrated_from=old_path.stem, migration=m.name),
                                checksum_covers=SEALED)
            fresh_record["checksum"] = record_checksum(fresh_record)
            assert fresh_record["format_version"] == RESULTS_FORMAT_VERSION
            tmp = new_path.with_name(f".{new_path.stem}.migrating")
            tmp.write_text(json.dumps(fresh_record, allow_nan=True))
            os.replace(tmp, new_path)
            if cache.load(config) is None:  # read back through the normal path (checks config and checksum)
                raise CacheError(f"migrated file {new_path} does not load")
            old_path.unlink()
    if not dry_run:
        seal_records(cache.root)
    return moved


def seal_records(root: Path | str | None = None, dry_run: bool = False, today: str | None = None) -> list[Path]:
    """Give every stored file whose checksum covers its content only (written before issue 37) the checksum of its
    whole record (`cache.record_checksum`), once its content checksum, its name (its config's key) and its schema
    (`record_schema`) hold; say so in ``meta.checksum_migrated``. A file that fails any of these is named and left as
    it is (CacheError after the others are sealed). Special files are named, never read. Returns the sealed paths."""
    import datetime

    from .cache import _canonical, config_dict

    cache = ResultCache(root)
    today = today or datetime.date.today().isoformat()
    sealed, refused = [], []
    for path in sorted(cache.root.glob("*/*.json")):
        what = special_file(path)
        if what is not None:
            refused.append(f"{path}: {what}")
            continue
        try:
            record = read_record(path)
            if not isinstance(record, dict) or record.get("checksum_covers") == SEALED:
                if not isinstance(record, dict):
                    raise ValueError("not a record")
                continue
            if record.get("checksum") != content_checksum(record["summary"], record["curve"]):
                raise ValueError("its content does not match its checksum")
            if path.parent.name != record.get("kind"):
                raise ValueError(f"a {record.get('kind')} run in the folder of {path.parent.name}")
            check_key(record, path.stem)
            config = config_from_stored(record["kind"], record["config"])  # a config the code accepts …
            if _canonical(config_dict(config)) != _canonical(record["config"]):  # … stored as the code writes it
                raise ValueError("config is not stored in the form the code writes it")
            check_record(record)
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            refused.append(f"{path}: {type(exc).__name__}: {exc}"[:300])
            continue
        sealed.append(path)
        if dry_run:
            continue
        fresh = dict(record, checksum_covers=SEALED,
                     meta=dict(record["meta"], checksum_migrated=f"{today}: sealed from its content, whose checksum, "
                                                                  "key and schema held"))
        fresh["checksum"] = record_checksum(fresh)
        tmp = path.with_name(f".{path.stem}.{os.getpid()}.{os.urandom(4).hex()}.sealing")
        try:
            tmp.write_text(json.dumps(fresh, allow_nan=True))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    if refused:
        raise CacheError(f"sealed {len(sealed)} files; refused {len(refused)}, left as they are: " + "; ".join(refused[:3]))
    return sealed


def add_missing_checksums(root: Path | str | None = None, recompute: tuple[str, ...] = (),
                          dry_run: bool = False) -> dict[str, list[Path]]:
    """One-off: give every stored file written before checksums existed the checksum of its content, so that
    `ResultCache.load` can refuse any file without one. Files of the kinds in ``recompute`` are recomputed first
    (on the CPU, alone) and blessed only if the fresh result equals the stored one (exactly on a machine like the
    one that stored it, else to `cache.REPRODUCE_RTOL`); the others are blessed from their content, which is then
    frozen as it is. Each file's ``meta.checksum_from`` says which. Returns paths by how they were treated:
    ``recomputed``, ``content`` and ``differ`` (recomputed but not equal: left without a checksum, to be looked at)."""
    from .cache import differences, reproduce_rtol
    from .runs import runner_for

    cache = ResultCache(root)
    out: dict[str, list[Path]] = {"recomputed": [], "content": [], "differ": []}
    for path in sorted(cache.root.glob("*/*.json")):
        record = json.loads(path.read_text())
        if "checksum" in record:
            continue
        kind = record["kind"]
        how = "content"
        if kind in recompute:
            config = config_from_stored(kind, record["config"])
            stored = RunResult(summary=dict(record["summary"]),
                               curve={k: np.asarray(v, dtype=float) for k, v in record["curve"].items()})
            (fresh,) = runner_for(kind)([config], device="cpu")
            rtol = reproduce_rtol(kind, record.get("meta", {}))  # None: not comparable on this CPU, never blessed
            if run_key(config) != path.stem or rtol is None or differences(stored, fresh, rtol=rtol):
                out["differ"].append(path)
                continue
            how = "recomputed"
        out[how].append(path)
        if dry_run:
            continue
        meta = dict(record.get("meta", {}), checksum_from="recomputed and identical" if how == "recomputed"
                    else "its content when checksums were made mandatory (not recomputed)")
        fresh_record = dict(record, checksum=content_checksum(record["summary"], record["curve"]), meta=meta)
        tmp = path.with_name(f".{path.stem}.checksumming")
        tmp.write_text(json.dumps(fresh_record, allow_nan=True))
        os.replace(tmp, path)
    return out
