"""Per-run result cache under ``data/``: keyed, verified, atomic.

One finished run is one JSON file,

    data/<kind>/<key>.json    with key = sha256(kind, full config, RESULTS_FORMAT_VERSION, kind version)

holding the config it was computed from, a summary row and a curve table.
A file is reused only if its stored kind, config and format version equal the
requested ones exactly; an unreadable file is an error that names it (or is
recomputed, if the caller asks for that). Files are written to a temporary
name and renamed, so an interrupted write never leaves a half file behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .results import RunResult
from .record_schema import NewerRecord, OversizeRecord, read_record
from .reproduce import DISCERNS_CODE, REPRODUCE_RTOL, differences, machine_fingerprint, reproduce_rtol  # noqa: F401 (re-exported)

# Bump when the content or meaning of stored results changes: older files then
# no longer match any key and are recomputed, never reused.
RESULTS_FORMAT_VERSION = 1

OnCorrupt = Literal["raise", "recompute"]


class CacheError(RuntimeError):
    """A cache file exists but cannot be used (unreadable, truncated, or inconsistent)."""


def special_file(path: Path) -> str | None:
    """What stands at ``path`` if it is not a regular file (or a link to one) and not absent: "a FIFO", "a
    device", "a socket", "a folder", "a dangling link"; None otherwise. Read from ``lstat``/``stat`` alone: such a
    file is never opened (a FIFO blocks a reader forever; a link to /dev/zero reads until memory runs out)."""
    import stat as st

    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # absent, or under a file where a folder should be
        return None
    if st.S_ISLNK(mode):
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return "a dangling link"
        except OSError:
            return "a link that cannot be followed"
    if st.S_ISREG(mode):
        return None
    kinds = ((st.S_ISFIFO, "a FIFO"), (st.S_ISCHR, "a device"), (st.S_ISBLK, "a device"), (st.S_ISSOCK, "a socket"),
             (st.S_ISDIR, "a folder"))
    return next((name for test, name in kinds if test(mode)), "a special file")


def default_data_dir() -> Path:
    """``$EMERGENCE_DATA_DIR`` if set, else the repository's ``data/`` folder."""
    env = os.environ.get("EMERGENCE_DATA_DIR")
    if env:
        # A name longer than the file system takes gave a traceback from the first stat: named here, in one line.
        longest = max((len(part.encode()) for part in Path(env).parts), default=0)
        if longest > 255 or len(env.encode()) > 4000:
            raise CacheError(f"EMERGENCE_DATA_DIR names a path too long for the file system (a folder name of "
                             f"{longest} bytes; at most 255 each, 4,000 in all); nothing was read or written")
        return Path(env)
    return Path(__file__).resolve().parent.parent / "data"


# A field added to a run config after runs were stored carries this metadata: at its default value it is left out
# of the key and of the stored config, so that every run stored before it existed keeps its key (and its file).
OMIT_AT_DEFAULT = {"omit_at_default": True}


def config_dict(config: Any, full: bool = False) -> dict[str, Any]:
    """A run config as a plain JSON-able dict (dataclass fields only): what its key hashes and its file stores.

    Fields marked `OMIT_AT_DEFAULT` are left out at their default value, unless ``full`` (tables want every column).
    """
    return {
        f.name: _jsonable(getattr(config, f.name)) for f in dataclasses.fields(config)
        if full or not (f.metadata.get("omit_at_default") and getattr(config, f.name) == f.default)
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)


def content_checksum(summary: dict[str, Any], curve: dict[str, Any]) -> str:
    """SHA-256 of a run's content (summary and curve as written to JSON): what files stored before the whole-record
    checksum carried (`migrations.seal_records` checks it once, then seals the file with `record_checksum`)."""
    return hashlib.sha256(_canonical({"summary": summary, "curve": curve}).encode()).hexdigest()


SEALED = "record"  # a file's ``checksum_covers``: its checksum covers every field but itself


def record_checksum(record: dict[str, Any]) -> str:
    """SHA-256 of a stored run's whole record but its checksum: format, kind, kind version, key, config, summary,
    curve and meta (issue 37 item 1). Another run's content under this run's config, an edited config, meta or key:
    each changes it."""
    return hashlib.sha256(_canonical({k: v for k, v in record.items() if k != "checksum"}).encode()).hexdigest()


def check_stored_record(record: Any, stem: str) -> None:
    """Raise ValueError unless ``record`` (a parsed file named ``stem``.json) is sealed, its checksum holds and every
    field is one a run writes (`record_schema`). A file sealed before (content checksum only) is named: `migrate`."""
    from .record_schema import check_record

    if not isinstance(record, dict) or "checksum" not in record:
        raise ValueError("it carries no checksum, so its content cannot be trusted")
    if record.get("checksum_covers") != SEALED:
        raise ValueError("its checksum covers its content only (an older file): run `python -m emergence_lib "
                         "migrate`, which seals files whose content checksum, key and schema hold")
    if record["checksum"] != record_checksum(record):
        raise ValueError("the record does not match the checksum written with it")
    if record.get("format_version") != RESULTS_FORMAT_VERSION:
        raise NewerRecord(f"its results format is {record.get('format_version')!r}, this code reads "
                         f"{RESULTS_FORMAT_VERSION} (a newer checkout's file, or a damaged one)")
    check_key(record, stem)
    check_record(record)


def check_key(record: dict[str, Any], stem: str) -> None:
    """Raise ValueError unless the record's key, and the file's name (``stem``), are the key of the config it
    stores (`stored_key`: the hash `run_key` takes, computed from the stored dict)."""
    if not isinstance(record.get("config"), dict):
        raise ValueError(f"config is a {type(record.get('config')).__name__}, not a mapping of fields")
    version = record.get("kind_version", 1)  # files of a kind's first version predate the field
    if isinstance(version, bool) or not isinstance(version, int):
        raise ValueError(f"kind_version {version!r} is not a version")
    key = stored_key(str(record.get("kind")), record["config"], version)
    if record.get("key") != key or stem != key:
        raise ValueError(f"the file's name or key is not its config's key {key}")


def kind_version(config: Any) -> int:
    """The version of what a run of this kind computes: its config class's ``version`` (1 if it has none).

    Bump it whenever a change to a sampler, model, loop or integrator changes what runs of that kind
    return; older files then no longer match any key. A test recomputes one stored run of every kind
    and compares it (exactly on the machine that stored it), so a change without a bump fails.
    """
    return int(getattr(config, "version", 1))


def run_key(config: Any) -> str:
    """Stable hash of a run: its kind, every config field, the results format version and the kind's version.

    Version 1 of a kind predates the field, so the kind's version enters the hash from 2 on: version-1
    files keep their keys.
    """
    payload = {"kind": config.kind, "config": config_dict(config), "format_version": RESULTS_FORMAT_VERSION}
    if kind_version(config) > 1:
        payload["kind_version"] = kind_version(config)
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()[:20]


def stored_key(kind: str, config: dict[str, Any], kind_version_: int) -> str:
    """The key `run_key` gives the config a file stores (computed from the stored dict, as `run_key` does)."""
    payload: dict[str, Any] = {"kind": kind, "config": config, "format_version": RESULTS_FORMAT_VERSION}
    if kind_version_ > 1:
        payload["kind_version"] = kind_version_
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()[:20]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class ResultCache:
    """Run results stored as one JSON file per run under ``root``."""

    def __init__(self, root: Path | str | None = None, on_corrupt: OnCorrupt = "raise"):
        if on_corrupt not in ("raise", "recompute"):
            raise ValueError(f"on_corrupt must be 'raise' or 'recompute', got {on_corrupt!r}")
        self.root = Path(root) if root is not None else default_data_dir()
        self.on_corrupt = on_corrupt

    def path(self, config: Any) -> Path:
        return self.root / config.kind / f"{run_key(config)}.json"

    def check_writable(self, configs: list[Any]) -> None:
        """Before any compute: every run's file can be written (its folder exists or can be made, is a
        writable folder, and no folder stands at the file's own path). Raises CacheError naming the path."""
        for folder in sorted({self.path(c).parent for c in configs}):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise CacheError(f"cannot write results under {folder} ({exc.strerror or exc}); nothing was computed") from None
            if not os.access(folder, os.W_OK):
                raise CacheError(f"cannot write results under {folder} (not writable); nothing was computed")
        for c in configs:
            path = self.path(c)
            if path.is_dir():
                raise CacheError(f"cannot write {path}: a folder stands there; nothing was computed")
            if path.exists() and not os.access(path, os.W_OK):  # a corrupt file to recompute, which could not be replaced
                raise CacheError(f"cannot replace {path}: it is read-only or immutable; delete it (or make it writable) "
                                 "to recompute that run; nothing was computed")

    def load(self, config: Any) -> RunResult | None:
        """The cached result of ``config``, or None if absent (or corrupt and on_corrupt='recompute')."""
        path = self.path(config)
        what = special_file(path)
        if what is not None:  # never opened: named, whatever on_corrupt says (a recompute could not replace it)
            raise CacheError(f"{path} is {what}, not a stored run: remove it; nothing was read")
        if not path.exists():
            return None
        try:
            record = read_record(path)
            older = isinstance(record, dict) and "checksum" in record and record.get("checksum_covers") != SEALED
            if older:  # never recomputed over, whatever on_corrupt says: it may be hours of training, or a GPU's run
                raise CacheError(f"{path}: its checksum covers its content only (an older file); run `python -m "
                                 "emergence_lib migrate` to seal it; nothing was recomputed")
            check_stored_record(record, path.stem)
            ok = (
                record["format_version"] == RESULTS_FORMAT_VERSION
                and record["kind"] == config.kind
                and record.get("kind_version", 1) == kind_version(config)
                and _canonical(record["config"]) == _canonical(config_dict(config))
            )
            summary = dict(record["summary"])
            curve = {k: np.asarray(v, dtype=float) for k, v in record["curve"].items()}
        except (NewerRecord, OversizeRecord) as exc:  # never recomputed over, whatever on_corrupt says
            raise CacheError(f"{path}: {exc}; kept as it is (a newer checkout's file, or not a run of ours); "
                             "nothing was recomputed over it") from None
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            if self.on_corrupt == "recompute":
                warnings.warn(f"cache file {path} is unreadable ({type(exc).__name__}); recomputing that run", stacklevel=2)
                return None
            raise CacheError(
                f"cache file {path} is unreadable ({type(exc).__name__}: {exc}). "
                "Delete it to recompute that run, or pass on_corrupt='recompute'."
            ) from exc
        if not ok:
            # Same key but a different config or version: a hash collision or a
            # hand-edited file. Never reuse it.
            if self.on_corrupt == "recompute":
                warnings.warn(f"cache file {path} does not match its key; recomputing that run", stacklevel=2)
                return None
            raise CacheError(
                f"cache file {path} holds a different config or format version than its key says. "
                "Delete it to recompute that run, or pass on_corrupt='recompute'."
            )
        return RunResult(summary=summary, curve=curve)

    def save(self, config: Any, result: RunResult, meta: dict[str, Any] | None = None) -> Path:
        """Write one run's result atomically (temporary file, fsync, rename)."""
        path = self.path(config)
        path.parent.mkdir(parents=True, exist_ok=True)
        summary = {k: _jsonable(v) for k, v in result.summary.items()}
        # Full precision: early in a plateau ½ − L is ~1e-9, below any rounding worth the bytes.
        curve = {k: np.asarray(v, dtype=float).tolist() for k, v in result.curve.items()}
        record = {
            "format_version": RESULTS_FORMAT_VERSION,
            "kind": config.kind,
            "kind_version": kind_version(config),
            "key": run_key(config),
            "config": config_dict(config),
            "summary": summary,
            "curve": curve,
            "meta": meta or {},
            "checksum_covers": SEALED,
        }
        record["checksum"] = record_checksum(record)
        try:  # the schema `load` applies, before anything is written: a file this code stores, it can read back
            check_stored_record(json.loads(json.dumps(record, allow_nan=True)), path.stem)
        except ValueError as exc:
            raise CacheError(f"run {path.stem}: its result is not a run this code writes ({exc}); not stored") from None
        what = special_file(path)
        if what is not None:
            raise CacheError(f"cannot store {path}: {what} stands there; remove it")
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
        except OSError as exc:
            raise CacheError(f"cannot store {path} ({exc.strerror or exc}); the run's result was not kept") from None
        try:
            # mkstemp creates the file 0600; a results folder is often shared, so give it the umask's mode.
            os.chmod(tmp, 0o666 & ~_umask())
            with os.fdopen(fd, "w") as fh:
                json.dump(record, fh, allow_nan=True)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException as exc:
            if os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(exc, OSError):  # a full disk, a read-only folder: one line, and no draft left behind
                raise CacheError(f"cannot store {path} ({exc.strerror or exc}); the run's result was not kept") from None
            raise
        # Drafts of this run's killed stores: the sweep that stores it holds its lock, so no other writer owns them.
        for stale in path.parent.glob(f".{path.stem}.*.tmp"):
            stale.unlink(missing_ok=True)
        return path

    def check_all(self) -> tuple[int, list[str]]:
        """Every stored file under the root read as `load` reads it (its checksum included), whatever figure needs
        it: (files read, one line per bad file)."""
        bad, n = [], 0
        for path in sorted(self.root.glob("*/*.json")):
            n += 1
            what = special_file(path)
            if what is not None:
                bad.append(f"{path}: {what}, not a stored run (never read)")
                continue
            try:
                record = read_record(path)
                check_stored_record(record, path.stem)
                if path.parent.name != record["kind"]:
                    raise ValueError(f"it is a {record['kind']} run in the folder of {path.parent.name}")
            except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
                bad.append(f"{path}: {type(exc).__name__}: {exc}"[:300])
        return n, bad

    def stale_files(self, current_versions: dict[str, int]) -> list[Path]:
        """Stored files of *older* code: an older results format, or an older version of their kind than
        ``current_versions`` (kind → the code's version). A newer format or version belongs to a newer checkout
        sharing this store and is never stale here. Unreadable files are left to `load`."""
        return self.prune_plan(current_versions)["older"]

    def prune_plan(self, current_versions: dict[str, int], leftover_after_s: float = 3600.0) -> dict[str, list[Path]]:
        """What `prune` may remove, and what it keeps: ``older`` (older code), ``unreachable`` (current code, but the
        file's name is not the key of the config it holds: no run can reach it), ``leftover`` (temporary, draft and
        stale-lock files older than ``leftover_after_s``: an interrupted write's remains), ``newer`` (a newer
        checkout's runs: kept) and ``damaged`` (a name that is not its config's key and a checksum that fails: a
        hand-edited record, kept for `verify` to name)."""
        plan: dict[str, list[Path]] = {"older": [], "unreachable": [], "leftover": [], "newer": [], "damaged": []}
        now = time.time()
        for kind, version in sorted(current_versions.items()):
            folder = self.root / kind
            for path in sorted(folder.glob("*.json")):
                if special_file(path) is not None:
                    continue  # never read, never removed: `verify` names it
                try:
                    record = read_record(path)  # a file over any run's size is passed over unread (kept)
                    fmt, kv = int(record["format_version"]), int(record.get("kind_version", 1))
                    config = record["config"]
                except (OSError, ValueError, KeyError, TypeError, RecursionError):
                    continue
                if fmt > RESULTS_FORMAT_VERSION or (fmt == RESULTS_FORMAT_VERSION and kv > version):
                    plan["newer"].append(path)
                elif fmt < RESULTS_FORMAT_VERSION or kv < version:
                    plan["older"].append(path)
                elif path.stem != stored_key(kind, config, kv):
                    # A hand-damaged record looks unreachable too (its config edited): only a file whose checksum
                    # holds is removed; the rest is kept and named, for `verify` (nothing stored is lost).
                    intact = record.get("checksum_covers") == SEALED and record.get("checksum") == record_checksum(record)
                    plan["unreachable" if intact else "damaged"].append(path)
            for pattern in (".*.tmp", ".*.draft", ".*.stale"):
                for path in sorted(folder.glob(pattern)):
                    try:
                        if now - path.stat().st_mtime > leftover_after_s and path.is_file():
                            plan["leftover"].append(path)
                    except OSError:
                        continue
        return plan
