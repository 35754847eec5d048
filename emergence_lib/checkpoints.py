"""Checkpoints of long training runs: a run stopped midway resumes where it was, bit-identically, and from nothing else.

A Transformer run longer than `every_s` seconds saves its whole state every `every_s` seconds: the model and the
optimiser, every random stream it draws its batches from, the data-diversity schedule's state, the recorded curve
and steps, and the step to resume at. It saves at the top of a training step, before that step's evaluation, so a
resumed run replays exactly what the uninterrupted one would have done. The files live outside ``data/``
(``<data>/../.checkpoints/`` for the store the sweep writes to, or ``$EMERGENCE_CHECKPOINT_DIR``), one file per
chunk of runs, named by the chunk's run keys with a suffix no result has (``<key>.ckpt``; results are
``<key>.json``, so no clean-up of one can ever touch the other):

    EMERGENCE-CHECKPOINT\\n   the magic line
    {header}\\n               format, run keys, each config's full hash, step, max_steps, device, sha256 and length
    <torch.save bytes>        the state, loaded with weights_only (tensors, containers, numpy arrays only)

A checkpoint is resumed only if every check passes: the format version, the run keys and config hashes of the runs
asking for it, a step within [0, max_steps] equal to the state's own, and the checksum over the state's bytes. A
stale, forged, truncated or foreign file is set aside into ``set_aside/`` with one line saying why, and the run
starts over. `progress` (what `status`, the estimate and the cost guard read) applies the same checks without
unpickling, so it believes only a checkpoint that would really resume. A save that fails (a full disk, a folder
at the path, no permission) is one line; the last good checkpoint is kept and training goes on.

Files of the first format (``<key>.pt`` beside ``<key>.json``, no checksum) are never resumed as they are:
``python -m emergence_lib upgrade-checkpoints`` checks each against the run its name claims and rewrites it
(`checkpoints_legacy`).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import stat as st
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import torch

from .configs import ConfigError
from .checkpoint_state import Refused, check_layout, check_state, check_values, conform_optimizer  # noqa: F401 (Refused: re-exported)

CHECKPOINT_DIR_ENV = "EMERGENCE_CHECKPOINT_DIR"
CHECKPOINT_EVERY_ENV = "EMERGENCE_CHECKPOINT_EVERY_S"
DEFAULT_EVERY_S = 300.0  # "every few minutes": a stop loses at most this much of a run
FORMAT = 2  # 1: <key>.pt + <key>.json, no checksum, no config hash (upgrade with `upgrade_legacy`)
SUFFIX = ".ckpt"
MAGIC = b"EMERGENCE-CHECKPOINT\n"
MAX_HEADER_BYTES = 1_000_000  # a header is a few hundred bytes (a GPU chunk's keys: a few thousand)
MAX_STATE_BYTES = 4 << 30  # a Table-1 run's state is about 19 MB; a batched GPU chunk a few hundred
SET_ASIDE = "set_aside"


def folder_for(data_root: Path) -> Path:
    """Where the checkpoints of runs stored under ``data_root`` go: a hidden sibling of it (never inside it)."""
    return Path(data_root).resolve().parent / ".checkpoints"


def active_folder() -> Path | None:
    """The folder the running sweep set (`sweep.run_sweep` sets ``$EMERGENCE_CHECKPOINT_DIR`` for its store; process
    pool workers inherit it), or None: no checkpoints (the smoke scale, a call without a store)."""
    value = os.environ.get(CHECKPOINT_DIR_ENV)
    return Path(value) if value else None


def every_s() -> float:
    """Seconds between saves: ``$EMERGENCE_CHECKPOINT_EVERY_S`` (a finite number ≥ 0) or 300. Anything else is named:
    nan or inf once turned checkpoints off without a word."""
    value = os.environ.get(CHECKPOINT_EVERY_ENV)
    if value is None or value.strip() == "":
        return DEFAULT_EVERY_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0 or seconds > 7 * 86400:
        raise ConfigError(f"{CHECKPOINT_EVERY_ENV} must be a number of seconds from 0 to 604800 (a week), got {value!r}")
    return seconds


def chunk_name(keys: Sequence[str]) -> str:
    """The file stem of a chunk's checkpoint: its one run key, or a hash of its keys (a batched GPU chunk)."""
    keys = list(keys)
    return keys[0] if len(keys) == 1 else "chunk-" + hashlib.sha256("|".join(keys).encode()).hexdigest()[:20]


def config_hash(config: Any) -> str:
    """The full sha256 of a run's config as its key reads it (fields added later left out at their default, as
    `cache.OMIT_AT_DEFAULT` leaves them out of the key), its kind and its kind's version: the run key is 20 hex
    digits of the same payload; this pins the checkpoint to the exact config. (With every field, a field added to
    the configs at its default set aside every checkpoint saved before it: two runs of 40 minutes were lost so.)"""
    from .cache import _canonical, config_dict, kind_version

    payload = {"kind": config.kind, "config": config_dict(config), "kind_version": kind_version(config)}
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def say(line: str) -> None:
    """One line on stderr: what happened to a checkpoint (the run goes on)."""
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Checkpoint:
    """The checkpoint file of one chunk of runs: their keys, their configs' full hashes and their step budget."""

    folder: Path
    keys: tuple[str, ...]
    hashes: tuple[str, ...] = ()
    max_steps: int | None = None

    @classmethod
    def for_configs(cls, configs: Sequence[Any], folder: Path | None = None) -> "Checkpoint | None":
        from .cache import run_key

        folder = folder if folder is not None else active_folder()
        if folder is None:
            return None
        budgets = {int(getattr(c, "max_steps", -1)) for c in configs}  # a toy flow has no step budget
        return cls(Path(folder), tuple(run_key(c) for c in configs), tuple(config_hash(c) for c in configs),
                   budgets.pop() if len(budgets) == 1 and -1 not in budgets else None)

    @property
    def state_path(self) -> Path:
        return self.folder / f"{chunk_name(self.keys)}{SUFFIX}"

    def save(self, state: dict[str, Any], step: int, max_steps: int) -> None:
        """Write the header and ``state`` atomically (temporary file, fsync, rename): a stop mid-save leaves the last
        good checkpoint. Raises on a step outside [0, max_steps] (a caller's bug, never stored)."""
        if not (isinstance(step, int) and isinstance(max_steps, int) and 0 <= step <= max_steps):
            raise ValueError(f"checkpoint step {step!r} outside [0, {max_steps!r}]")
        buffer = io.BytesIO()
        torch.save(state, buffer)
        body = buffer.getvalue()
        header = {"format": FORMAT, "keys": list(self.keys), "config_hashes": list(self.hashes), "step": step,
                  "max_steps": max_steps, "device": str(state.get("device", "cpu")), "saved_at": time.time(),
                  "bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{self.state_path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + json.dumps(header).encode() + b"\n")
                fh.write(body)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.state_path)
        except BaseException:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            raise

    def _match(self, header: dict[str, Any]) -> dict[str, Any]:
        if header["keys"] != list(self.keys):
            raise Refused("written for other runs")
        if self.hashes and header["config_hashes"] != list(self.hashes):
            raise Refused("written for another config under the same key")
        if self.max_steps is not None and header["max_steps"] != self.max_steps:
            raise Refused(f"its step budget {header['max_steps']:,} is not the run's {self.max_steps:,}")
        return header

    def load(self, fresh: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The saved state, or None: no checkpoint (silently), or one that fails a check (set aside, one line). With
        ``fresh`` (the run's own state before training: `checkpoint_state.check_layout`), the state must have its layout too."""
        if not os.path.lexists(self.state_path):
            return None
        try:
            header, body = read(self.state_path, with_body=True)
            self._match(header)
            state = _unpickle(body)
            check_state(state, header)
            if fresh is not None:
                check_layout(state, fresh)
                check_values(state, fresh["members"])
                conform_optimizer(state["optimizer"], fresh["optimizer"])
        except Refused as why:
            set_aside(self.state_path, str(why))
            return None
        return state

    def remove(self) -> None:
        """Remove the file once its runs are stored; one that cannot be removed (a folder that is a file, an
        immutable folder) is said in one line and left: the results are stored, and the sweep goes on."""
        try:
            self.state_path.unlink()
        except (FileNotFoundError, NotADirectoryError):  # no file, or no folder (a file stands there): none to remove
            pass
        except OSError as exc:
            say(f"checkpoint {self.state_path} not removed ({exc.strerror or exc}); its runs are stored, so it "
                 "is no longer needed: remove it by hand")


def read(path: Path, with_body: bool) -> tuple[dict[str, Any], bytes]:
    """A checkpoint file's header (and body), every check that needs no unpickling passed; raises `Refused`."""
    try:
        info = os.stat(path)  # follows a link: a link to /dev/zero is a device, refused before it is opened
        if not st.S_ISREG(info.st_mode):
            raise Refused("not a regular file")
        if info.st_size > MAX_STATE_BYTES + MAX_HEADER_BYTES:
            raise Refused(f"{info.st_size:,} bytes, over the {MAX_STATE_BYTES:,} a checkpoint may hold")
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                raise Refused("not a checkpoint of this format (no magic line)")
            line = fh.readline(MAX_HEADER_BYTES)
            header = _header(line)
            digest, size = hashlib.sha256(), 0
            chunks = []
            while block := fh.read(1 << 20):
                digest.update(block)
                size += len(block)
                if with_body:
                    chunks.append(block)
    except OSError as exc:
        raise Refused(f"unreadable ({exc.strerror or exc})") from None
    if size != header["bytes"]:
        raise Refused(f"truncated or padded: {size:,} bytes of state, the header says {header['bytes']:,}")
    if digest.hexdigest() != header["sha256"]:
        raise Refused("its checksum does not match its state")
    return header, b"".join(chunks)


def _header(line: bytes) -> dict[str, Any]:
    if not line.endswith(b"\n"):
        raise Refused("no header line")
    try:
        header = json.loads(line)
    except ValueError:
        raise Refused("its header is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise Refused(f"format {header.get('format') if isinstance(header, dict) else '?'!r}, not {FORMAT}")

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not (isinstance(header.get("keys"), list) and header["keys"] and all(isinstance(k, str) for k in header["keys"])
            and isinstance(header.get("config_hashes"), list) and len(header["config_hashes"]) in (0, len(header["keys"]))
            and all(whole(header.get(k)) for k in ("step", "max_steps", "bytes"))
            and isinstance(header.get("sha256"), str) and isinstance(header.get("device"), str)):
        raise Refused("its header lacks a field or has one of the wrong type")
    if not 0 <= header["step"] <= header["max_steps"]:
        raise Refused(f"impossible step {header['step']:,} (of at most {header['max_steps']:,})")
    if not re.fullmatch(r"cpu|cuda|mps", header["device"]):  # what training writes: a device kind ("bpu" once resumed)
        raise Refused(f"its device {header['device'][:20]!r} is not one training writes (cpu, cuda, mps)")
    return header


def _unpickle(body: bytes) -> dict[str, Any]:
    try:
        # Tensors, containers, numbers and numpy arrays (the numpy random stream) only: a planted file that names
        # any other global is refused, never run (weights_only), and the run starts over.
        with torch.serialization.safe_globals(_numpy_globals()):
            state = torch.load(io.BytesIO(body), map_location="cpu", weights_only=True)
    except Exception as exc:
        raise Refused(f"its state does not load ({type(exc).__name__})") from None
    if not isinstance(state, dict):
        raise Refused("its state is not a training state")
    return state


def set_aside(path: Path, reason: str) -> None:
    """Move a refused checkpoint into ``set_aside/`` (kept for a look, never resumed) and say so in one line."""
    target = path.parent / SET_ASIDE / f"{path.name}.{time.strftime('%Y%m%dT%H%M%S')}"
    try:
        target.parent.mkdir(exist_ok=True)
        os.replace(path, target)
        where = f"moved to {target}"
    except OSError:
        where = "left where it is (it could not be moved)"
    say(f"checkpoint {path.name} set aside ({reason}); the run starts over from step 0; {where}")


def _numpy_globals() -> list:
    """What a checkpoint may name beyond tensors: numpy arrays and their dtypes (a generator's state)."""
    import numpy as np

    core = getattr(np, "_core", None) or np.core  # numpy 2 names it _core
    return [np.ndarray, core.multiarray._reconstruct, np.dtype] + [
        getattr(np.dtypes, n) for n in dir(np.dtypes) if n.endswith("DType")]


_HEADERS: dict[tuple[str, int, int], dict[str, Any] | None] = {}  # (path, size, mtime) → its checked header


def _checked_header(path: Path) -> dict[str, Any] | None:
    """The header of ``path`` if the file would pass `Checkpoint.load`'s checks that need no run (its checksum, its
    state unpickled, its state's step agreeing with its header), else None; checked once per version of the file:
    `status` asks for every missing run. A header over a body that is not a training state (a forger's recomputed
    checksum) once made the guard waive a run and the estimate price it at 0."""
    try:
        info = os.stat(path)
        stamp = (str(path), info.st_size, info.st_mtime_ns)
    except OSError:
        return None
    if stamp not in _HEADERS:
        try:
            header, body = read(path, with_body=True)
            check_state(_unpickle(body), header)
            _HEADERS[stamp] = header
        except Refused:
            _HEADERS[stamp] = None
    return _HEADERS[stamp]


def progress(folder: Path, key: str, config: Any = None) -> dict[str, Any] | None:
    """The header of the checkpoint that would resume run ``key`` (alone or in a chunk): {"step", "max_steps",
    "keys", "device", ...}, or None. Only a file that passes every check but unpickling counts, so `status`, the
    estimate and the cost guard never believe a truncated, forged or foreign file; with ``config`` (the run), its
    full config hash and step budget must match too, as `Checkpoint.load` asks."""
    folder = Path(folder)
    direct = folder / f"{key}{SUFFIX}"
    candidates = [direct] if os.path.lexists(direct) else sorted(folder.glob(f"chunk-*{SUFFIX}")) if folder.is_dir() else []
    for path in candidates:
        header = _checked_header(path)
        if header is None or key not in header["keys"] or (path.stem == key) != (header["keys"] == [key]):
            continue
        if config is not None:
            hashes = header["config_hashes"]
            if (not hashes or hashes[header["keys"].index(key)] != config_hash(config)
                    or header["max_steps"] != getattr(config, "max_steps", None)):
                continue
        return header
    return None


def cpu_resume_step(folder: Path, key: str, config: Any = None) -> int:
    """The step run ``key`` resumes from when run alone on a CPU: its own checkpoint's, if saved on a CPU; 0 otherwise
    (a batch of seeds resumes only as that batch, a GPU's state only on a GPU: `training.train_ensemble`)."""
    info = progress(folder, key, config)
    if info is None or info["keys"] != [key] or info["device"] != "cpu":
        return 0
    return int(info["step"])


def resume_folder(data_root: Path) -> Path:
    """The folder a sweep storing under ``data_root`` resumes from: the caller's ``$EMERGENCE_CHECKPOINT_DIR``,
    which wins as in `folder_set`, else `folder_for` it."""
    return active_folder() or folder_for(data_root)


class Saver:
    """When to save during a loop (every ``every_s`` seconds of wall time, the first after ``every_s``), and a save
    that fails said in one line (once per reason): the last good checkpoint is kept, training goes on."""

    def __init__(self, checkpoint: Checkpoint | None, every: float | None = None):
        self.checkpoint = checkpoint
        self.every = every_s() if every is None else every
        self.last = time.perf_counter()
        self.failures: set[str] = set()

    def due(self) -> bool:
        return self.checkpoint is not None and time.perf_counter() - self.last >= self.every

    def save(self, state: dict[str, Any], step: int, max_steps: int) -> None:
        assert self.checkpoint is not None  # due() only with one
        try:
            self.checkpoint.save(state, step, max_steps)
        except Exception as exc:  # OSError mostly; torch wraps some write errors in RuntimeError
            reason = f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
            if reason not in self.failures:
                self.failures.add(reason)
                say(f"checkpoint of {self.checkpoint.state_path.name} not saved at step {step:,} ({reason}); "
                     "training goes on and the last good checkpoint is kept")
        self.last = time.perf_counter()


@contextmanager
def folder_set(data_root: Path | None) -> Iterator[None]:
    """Within the block, training checkpoints into `folder_for(data_root)` (None: no checkpoints), unless
    ``$EMERGENCE_CHECKPOINT_DIR`` was already set by the caller (which wins)."""
    before = os.environ.get(CHECKPOINT_DIR_ENV)
    if before is None and data_root is not None:
        os.environ[CHECKPOINT_DIR_ENV] = str(folder_for(data_root))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CHECKPOINT_DIR_ENV, None)
