"""Checkpoints of long training runs: a run stopped midway resumes where it was, bit-identically.

A Transformer run longer than `every_s` seconds saves its whole state every `every_s` seconds: the model and the
optimiser, every random stream it draws its batches from, the data-diversity schedule's state, the recorded curve
and steps, and the step to resume at. It saves at the top of a training step, before that step's evaluation, so a
resumed run replays exactly what the uninterrupted one would have done. The files live outside ``data/``
(``<data>/../.checkpoints/`` for the store the sweep writes to, or ``$EMERGENCE_CHECKPOINT_DIR``), one pair per
chunk of runs, named by the chunk's run keys:

    <key>.pt     the state (torch.save; written to a temporary name and renamed)
    <key>.json   {"step": k, "max_steps": n, "keys": [...], "saved_at": ...}: what `status` prints

A checkpoint is read back only if it was written for the same run keys (each key hashes the config and its kind's
version, `cache.run_key`): a change of code that bumps a version never resumes an old state. The sweep removes a
chunk's checkpoint once its results are stored (`remove`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import torch

CHECKPOINT_DIR_ENV = "EMERGENCE_CHECKPOINT_DIR"
CHECKPOINT_EVERY_ENV = "EMERGENCE_CHECKPOINT_EVERY_S"
DEFAULT_EVERY_S = 300.0  # "every few minutes": a stop loses at most this much of a run


def folder_for(data_root: Path) -> Path:
    """Where the checkpoints of runs stored under ``data_root`` go: a hidden sibling of it (never inside it)."""
    return Path(data_root).resolve().parent / ".checkpoints"


def active_folder() -> Path | None:
    """The folder the running sweep set (`sweep.run_sweep` sets ``$EMERGENCE_CHECKPOINT_DIR`` for its store; process
    pool workers inherit it), or None: no checkpoints (the smoke scale, a call without a store)."""
    value = os.environ.get(CHECKPOINT_DIR_ENV)
    return Path(value) if value else None


def every_s() -> float:
    value = os.environ.get(CHECKPOINT_EVERY_ENV)
    try:
        return float(value) if value else DEFAULT_EVERY_S
    except ValueError:
        return DEFAULT_EVERY_S


def chunk_name(keys: Sequence[str]) -> str:
    """The file stem of a chunk's checkpoint: its one run key, or a hash of its keys (a batched GPU chunk)."""
    keys = list(keys)
    return keys[0] if len(keys) == 1 else "chunk-" + hashlib.sha256("|".join(keys).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Checkpoint:
    """The checkpoint files of one chunk of runs (identified by their run keys)."""

    folder: Path
    keys: tuple[str, ...]

    @classmethod
    def for_configs(cls, configs: Sequence[Any], folder: Path | None = None) -> "Checkpoint | None":
        from .cache import run_key

        folder = folder if folder is not None else active_folder()
        return None if folder is None else cls(Path(folder), tuple(run_key(c) for c in configs))

    @property
    def state_path(self) -> Path:
        return self.folder / f"{chunk_name(self.keys)}.pt"

    @property
    def info_path(self) -> Path:
        return self.folder / f"{chunk_name(self.keys)}.json"

    def save(self, state: dict[str, Any], step: int, max_steps: int) -> None:
        """Write ``state`` atomically (temporary file, fsync, rename), then its small description."""
        self.folder.mkdir(parents=True, exist_ok=True)
        payload = {"keys": list(self.keys), "state": state}
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{self.state_path.stem}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                torch.save(payload, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.state_path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        info = {"step": int(step), "max_steps": int(max_steps), "keys": list(self.keys), "saved_at": time.time(),
                "device": str(state.get("device", "cpu"))}  # a state resumes only on its kind of device
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{self.info_path.stem}.", suffix=".tmp")
        with os.fdopen(fd, "w") as fh:
            json.dump(info, fh)
        os.replace(tmp, self.info_path)

    def load(self) -> dict[str, Any] | None:
        """The saved state, or None (no checkpoint, an unreadable one, or one written for other runs)."""
        if not self.state_path.is_file():
            return None
        try:
            # Tensors, containers, numbers and numpy arrays (the numpy random stream) only: a planted file that
            # names any other global is refused, never run (weights_only), and the run starts over.
            with torch.serialization.safe_globals(_numpy_globals()):
                payload = torch.load(self.state_path, map_location="cpu", weights_only=True)
        except Exception:  # a truncated or foreign file: start over (the run is recomputed, nothing is lost)
            return None
        if not isinstance(payload, dict) or payload.get("keys") != list(self.keys):
            return None
        return payload["state"]

    def remove(self) -> None:
        for path in (self.state_path, self.info_path):
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def _numpy_globals() -> list:
    """What a checkpoint may name beyond tensors: numpy arrays and their dtypes (a generator's state)."""
    import numpy as np

    core = getattr(np, "_core", None) or np.core  # numpy 2 names it _core
    return [np.ndarray, core.multiarray._reconstruct, np.dtype] + [
        getattr(np.dtypes, n) for n in dir(np.dtypes) if n.endswith("DType")]


MAX_INFO_BYTES = 1_000_000  # a checkpoint's description is a few hundred bytes


def progress(folder: Path, key: str) -> dict[str, Any] | None:
    """The description of the checkpoint holding run ``key`` (alone or in a chunk): {"step", "max_steps", ...}.
    Only a regular file of a sane size is read: a FIFO, a device or a huge file there is passed over, never opened."""
    import stat as st

    folder = Path(folder)
    direct = folder / f"{key}.json"
    candidates = [direct] if direct.is_file() else sorted(folder.glob("chunk-*.json")) if folder.is_dir() else []
    for path in candidates:
        try:
            info_stat = path.stat()
            if not st.S_ISREG(info_stat.st_mode) or info_stat.st_size > MAX_INFO_BYTES:
                continue
            info = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        # A description names its runs in a list and counts steps in integers; anything else is not one of ours.
        if (isinstance(info, dict) and isinstance(info.get("keys"), list) and key in info["keys"]
                and all(isinstance(info.get(k), int) and not isinstance(info.get(k), bool) and info[k] >= 0
                        for k in ("step", "max_steps"))):
            return info
    return None


def cpu_resume_step(folder: Path, key: str) -> int:
    """The step run ``key`` resumes from when run alone on a CPU: its own checkpoint's, if saved on a CPU; 0 otherwise
    (a batch of seeds resumes only as that batch, a GPU's state only on a GPU: `training.train_ensemble`)."""
    info = progress(folder, key)
    if info is None or info.get("keys") != [key] or str(info.get("device", "cpu")) != "cpu":
        return 0
    return int(info["step"]) if Checkpoint(Path(folder), (key,)).state_path.is_file() else 0  # no state: afresh


def resume_folder(data_root: Path) -> Path:
    """The folder a sweep storing under ``data_root`` resumes from: the caller's ``$EMERGENCE_CHECKPOINT_DIR``,
    which wins as in `folder_set`, else `folder_for` it."""
    return active_folder() or folder_for(data_root)


class Saver:
    """When to save during a loop: every ``every_s`` seconds of wall time (the first save after ``every_s``)."""

    def __init__(self, checkpoint: Checkpoint | None, every: float | None = None):
        self.checkpoint = checkpoint
        self.every = every_s() if every is None else every
        self.last = time.perf_counter()

    def due(self) -> bool:
        return self.checkpoint is not None and time.perf_counter() - self.last >= self.every

    def saved(self) -> None:
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
