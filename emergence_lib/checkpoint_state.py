"""What a saved training state must be before a run resumes from it (`checkpoints.Checkpoint.load`): its header's
step, the layout of this run's own fresh state, values a run writes, and the optimiser of this run's config.

A state that fails is refused (`Refused`: the file is set aside and the run starts over), never resumed into a
crash on every rerun or into a record `verify` would call corrupt. The config's optimiser settings always win:
Adam's learning rate, betas and ε come from the run's config, whatever the file says.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import torch


class Refused(Exception):
    """A checkpoint that must not be resumed, with why (one line)."""


# What one saved run may say about its own compute time (seconds per member): at most a year, as a stored record.
MAX_SECONDS = 365 * 24 * 3600.0


def check_state(state: dict[str, Any], header: dict[str, Any]) -> None:
    """The state agrees with its header: the same step, and a curve recorded at steps from 0 to that step."""
    if state.get("step") != header["step"]:
        raise Refused(f"its state is at step {state.get('step')!r}, its header at {header['step']:,}")
    if "device" in header and str(state.get("device", "cpu")) != header["device"]:  # the estimate reads the header's
        raise Refused(f"its state was saved on {str(state.get('device'))[:20]!r}, its header says {header['device']!r}")
    steps = state.get("steps")
    if not isinstance(steps, list) or any(not isinstance(s, int) or not 0 <= s <= header["step"] for s in steps):
        raise Refused("its recorded steps fall outside [0, its step]")
    if steps != sorted(set(steps)):
        raise Refused("its recorded steps are not increasing")


TRAINING_STATE = ("model", "optimizer", "rng", "fired_at", "steps", "records", "crossed_at", "diverged", "n_evals",
                  "stopped_at", "step", "seconds")


def check_layout(state: dict[str, Any], fresh: dict[str, Any]) -> None:
    """Every part `training.train_ensemble` restores is there and has the layout of this run's own fresh state
    (``fresh``: its model's weights, its optimiser's state, its random streams, its number of members): a state
    of another layout once crashed every rerun instead of starting over."""
    missing = [k for k in TRAINING_STATE if k not in state]
    if missing:
        raise Refused(f"its state lacks {', '.join(missing)}")
    if not same_layout(state["model"], fresh["model"]):
        raise Refused("its weights have another layout than this run's model")
    if not same_layout(state["rng"], fresh["rng"]):
        raise Refused("its random streams have another layout than this run's")
    saved_opt, own_opt = state["optimizer"], fresh["optimizer"]
    if not (isinstance(saved_opt, dict) and isinstance(saved_opt.get("param_groups"), list)
            and isinstance(saved_opt.get("state"), dict)
            and [sorted(g.get("params", [])) for g in saved_opt["param_groups"] if isinstance(g, dict)]
            == [sorted(g["params"]) for g in own_opt["param_groups"]]):
        raise Refused("its optimiser state has another layout than this run's")
    shapes = {i: w.shape for i, w in enumerate(fresh["parameters"])}
    for i, entry in saved_opt["state"].items():
        tensors = entry.values() if isinstance(entry, dict) else [None]
        if i not in shapes or any(not isinstance(t, torch.Tensor) or (t.ndim > 0 and t.shape != shapes[i])
                                  for t in tensors):
            raise Refused("its optimiser state does not fit this run's parameters")
    members, n = fresh["members"], len(state["steps"])
    for k in ("n_evals", "stopped_at", "crossed_at", "diverged"):
        if getattr(state[k], "shape", None) != (members,):
            raise Refused(f"its {k} is not one entry per member of this run ({members})")
    if not isinstance(state["records"], dict) or any(not isinstance(v, list) or len(v) != n
                                                     for v in state["records"].values()):
        raise Refused("its recorded curves do not have one entry per recorded step")


def same_layout(saved: Any, fresh: Any) -> bool:
    """The same nesting of dicts, lists and tuples, with tensors and arrays of the same shapes and dtypes."""
    import numpy as np

    if isinstance(fresh, torch.Tensor):
        return isinstance(saved, torch.Tensor) and saved.shape == fresh.shape and saved.dtype == fresh.dtype
    if isinstance(fresh, np.ndarray):
        return isinstance(saved, np.ndarray) and saved.shape == fresh.shape and saved.dtype == fresh.dtype
    if isinstance(fresh, dict):
        return isinstance(saved, dict) and set(saved) == set(fresh) and all(same_layout(saved[k], fresh[k]) for k in fresh)
    if isinstance(fresh, (list, tuple)):
        return (isinstance(saved, (list, tuple)) and len(saved) == len(fresh)
                and all(same_layout(a, b) for a, b in zip(saved, fresh)))
    return isinstance(saved, type(fresh)) or (isinstance(fresh, (int, float)) and isinstance(saved, (int, float)))


def check_values(state: dict[str, Any], members: int) -> None:
    """The saved values are ones a run writes: its compute time a number of seconds, its curves numbers, and each
    member's record count, stop step and crossing consistent with the steps it recorded (a forged ``seconds`` of 'x'
    once crashed every rerun, and a stop step before the recorded steps stored a record `verify` called corrupt)."""
    secs = state["seconds"]
    if isinstance(secs, bool) or not isinstance(secs, numbers.Real) or not (0 <= float(secs) <= MAX_SECONDS):
        raise Refused(f"its compute time {secs!r} is not a number of seconds in [0, {MAX_SECONDS:.0f}]")
    steps = state["steps"]
    for name, values in state["records"].items():
        if any(not isinstance(v, np.ndarray) or v.dtype.kind not in "fiub" or not v.shape or v.shape[0] != members
               for v in values):
            raise Refused(f"its recorded {name!r} holds something other than one number per member")
    n_evals, stopped, crossed = (np.asarray(state[k]) for k in ("n_evals", "stopped_at", "crossed_at"))
    if n_evals.dtype.kind not in "iu" or stopped.dtype.kind not in "iu" or state["diverged"].dtype != bool:
        raise Refused("its per-member counts are not integers and flags")
    for e in range(members):
        n, stop = int(n_evals[e]), int(stopped[e])
        if stop == -1:
            ok = n == len(steps)  # still running: it recorded every evaluation so far
        else:
            ok = 0 < n <= len(steps) and steps[n - 1] == stop  # stopped at its last recorded evaluation
        if not ok:
            raise Refused(f"member {e}'s stop step {stop} and record count {n} disagree with its recorded steps")
        c = float(crossed[e])
        if not (math.isnan(c) or (c.is_integer() and int(c) in steps)):
            raise Refused(f"member {e}'s crossing {c} is not one of its recorded steps")


OPTIMISER_STATE = {"adam": {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}, "sgd": {"momentum_buffer"}}


def conform_optimizer(saved: dict[str, Any], fresh: dict[str, Any]) -> None:
    """The saved optimiser is this run's kind (the same settings in every group, the same state entries), and its
    settings become the config's (``fresh``'s: the learning rate, betas, ε, momentum): a file's own settings never
    override the config (a forged lr of 1000 once trained to a loss of 1e30 and was stored as a run)."""
    own = fresh["param_groups"]
    kind = "adam" if "betas" in own[0] else "sgd"
    for group, mine in zip(saved["param_groups"], own):
        if set(group) != set(mine):
            raise Refused(f"its optimiser is not this run's ({kind}: its settings are {sorted(set(group) - {'params'})})")
        for k, v in mine.items():
            if k != "params":
                group[k] = v
    for entry in saved["state"].values():
        if not isinstance(entry, dict) or not set(entry) <= OPTIMISER_STATE[kind]:
            raise Refused(f"its optimiser state is not {kind}'s")
