"""Checkpoints of the first format: ``<key>.pt`` beside ``<key>.json``, with no format version, no checksum and no
config hash. They are never resumed as they are; `upgrade_legacy` checks each against the run its name claims and
rewrites it in this format (``python -m emergence_lib upgrade-checkpoints``)."""

from __future__ import annotations

import json
import os
import stat as st
from pathlib import Path
from typing import Any

import torch

from .checkpoint_state import Refused, check_state
from .checkpoints import MAX_HEADER_BYTES, SUFFIX, Checkpoint, _numpy_globals, progress, say


def legacy(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    """Files of the first format in ``folder``: (stem, its description) for each ``<stem>.pt`` with a readable
    ``<stem>.json`` beside it."""
    out = []
    for pt in sorted(Path(folder).glob("*.pt")) if Path(folder).is_dir() else []:
        described = pt.with_suffix(".json")
        try:
            if not (st.S_ISREG(os.stat(pt).st_mode) and st.S_ISREG(os.stat(described).st_mode)):
                continue
            if os.stat(described).st_size > MAX_HEADER_BYTES:
                continue
            info = json.loads(described.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(info, dict) and isinstance(info.get("step"), int):
            out.append((pt.stem, info))
    return out


def say_not_resumed(folder: Path, keys: list[str]) -> None:
    """One line for each run of ``keys`` with a first-format file in ``folder``, said before the run goes on: the file
    it resumes instead, where a checkpoint of this format passes the checks (the first-format file is then older or
    equal, and `upgrade-checkpoints` keeps the newer), else that it starts over. The step a first-format file claims
    is unchecked: it is never printed as progress."""
    old = dict(legacy(folder))
    for k in keys:
        if k not in old:
            continue
        current = progress(folder, k)
        if current is not None and current["keys"] == [k]:
            say(f"run {k} resumes from {folder / f'{k}{SUFFIX}'} (step {current['step']:,}); its first-format file "
                f"{k}.pt is not read (`upgrade-checkpoints` keeps whichever is further on)")
        else:
            say(f"run {k} has a checkpoint of the first format, not resumed: it starts over unless "
                "`python -m emergence_lib upgrade-checkpoints` checks and rewrites it first")


def upgrade_legacy(folder: Path, configs_by_key: dict[str, Any]) -> list[str]:
    """Rewrite each first-format file of ``folder`` in this format, once it passes every check against the run its
    name claims (one of ``configs_by_key``): the keys inside it, a step within that run's budget equal to the state's,
    recorded steps within it. One line per file; a file that fails stays as it is, never resumed."""
    lines = []
    for stem, info in legacy(folder):
        config = configs_by_key.get(stem)
        if config is None:
            lines.append(f"{stem}.pt: no run of any figure has this key: left as it is")
            continue
        pt = Path(folder) / f"{stem}.pt"
        try:
            with torch.serialization.safe_globals(_numpy_globals()):
                payload = torch.load(pt, map_location="cpu", weights_only=True)
            if not isinstance(payload, dict) or payload.get("keys") != [stem]:
                raise Refused("written for other runs")
            state = payload["state"]
            header = {"step": info["step"], "max_steps": info.get("max_steps")}
            if header["max_steps"] != config.max_steps or not 0 <= header["step"] <= config.max_steps:
                raise Refused(f"step {header['step']!r} of {header['max_steps']!r} is not within the run's budget")
            check_state(state, header)
        except Refused as why:
            lines.append(f"{stem}.pt: {why}: left as it is")
            continue
        except Exception as exc:
            lines.append(f"{stem}.pt: does not load ({type(exc).__name__}): left as it is")
            continue
        ckpt = Checkpoint.for_configs([config], Path(folder))
        assert ckpt is not None
        newer = progress(Path(folder), stem, config)
        if newer is not None and newer["keys"] == [stem] and newer["step"] >= int(info["step"]):
            lines.append(f"{stem}.pt: step {info['step']:,}, but {ckpt.state_path.name} is at step {newer['step']:,}: "
                         "the newer is kept, the first-format file left as it is (remove it by hand)")
            continue
        ckpt.save(state, int(info["step"]), int(config.max_steps))
        pt.unlink()
        pt.with_suffix(".json").unlink()
        lines.append(f"{stem}.pt: upgraded to {ckpt.state_path.name} (step {info['step']:,} of at most "
                     f"{config.max_steps:,})")
    return lines
