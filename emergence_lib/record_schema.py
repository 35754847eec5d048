"""What a stored run's file may hold (issue 37 item 1): the record's fields, each summary field's type and range, the
curve's columns, and the consistency between them. `cache.load`, whole-store `verify` and `migrate` check every file
against it, after its checksum: a file whose checksum was recomputed over a value no run writes (a plateau of 'abc',
NaN or -5; ``reached`` false beside a finite crossing) is refused all the same.

`check_record` raises ValueError naming the first thing wrong; it never opens anything."""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from typing import Any

FIELDS = {"format_version", "kind", "kind_version", "key", "config", "summary", "curve", "checksum", "checksum_covers",
          "meta"}
CROSSING = ("plateau_length", "emergence_step")  # the one a kind writes: steps (Transformers) or time (toy models)
STATUSES = ("crossed", "not_reached", "diverged")
MEASURED_ON = ("test", "train_distribution", "no_repetition")
TIME_COLUMNS = ("t", "step")
MAX_META_BYTES = 100_000
MAX_RECORD_BYTES = 64 << 20  # the largest stored run is about 1 MB; a 4 GB file at a result path was read whole
TRANSFORMER_KINDS = ("transformer_regression", "transformer_recall")
BUDGET = {"transformer_regression": "max_steps", "transformer_recall": "max_steps", "toy_reduced_flow": "t_max",
          "toy_full_gd": "t_max", "toy_sgd": "t_max"}  # the config field a run's time never exceeds
MIN_SECONDS_PER_STEP = 1e-5  # the fastest stored step is 2e-3 s (a GPU's batched seeds); 1e-6 s once read "0.0 CPU-hours"
SLACK = 1e-9  # relative: a time stored as a float may round past its budget by this much


class NewerRecord(ValueError):
    """A record that holds fields this code does not know, or a newer results format: kept and named, never
    recomputed over (a newer checkout wrote it, or someone who knows more than this code)."""


class OversizeRecord(ValueError):
    """A file at a result path larger than any run writes: never read whole, never overwritten."""


def read_record(path: Any) -> Any:
    """A stored run's file, parsed, after a size check: over `MAX_RECORD_BYTES` raises `OversizeRecord` unread."""
    size = os.stat(path).st_size
    if size > MAX_RECORD_BYTES:
        raise OversizeRecord(f"{size:,} bytes, over the {MAX_RECORD_BYTES:,} a stored run may hold; it was not read")
    with open(path) as fh:
        return json.load(fh)


MAX_RUN_SECONDS = 365 * 24 * 3600.0


def _number(name: str, v: Any, low: float | None = None, high: float | None = None, nan: bool = False,
            inf: bool = False) -> None:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} is {v!r}, not a number")
    f = float(v)
    if math.isnan(f):
        if not nan:
            raise ValueError(f"{name} is NaN")
        return
    if math.isinf(f):
        if not inf or f < 0:
            raise ValueError(f"{name} is {f}")
        return
    if (low is not None and f < low) or (high is not None and f > high):
        raise ValueError(f"{name} is {f}, outside [{low}, {high}]")


def _summary(s: dict[str, Any]) -> None:
    known = {"plateau_length", "emergence_step", "reached", "status", "measured_on", "steps_run", "final_time",
             "final_loss", "initial_loss", "final_accuracy", "final_test_accuracy", "seconds", "device", "switched_at",
             "crossing_with_bias", "n_steps"}
    unknown = sorted(set(s) - known)
    if unknown:
        raise NewerRecord(f"summary has fields this code does not know: {', '.join(unknown)}")
    crossing = [k for k in CROSSING if k in s]
    if len(crossing) != 1:
        raise ValueError("summary must hold exactly one of plateau_length and emergence_step")
    value = s[crossing[0]]
    # Never reached: inf (NOT_REACHED); NaN only where the run diverged (it has no crossing to speak of).
    _number(f"summary {crossing[0]}", value, low=0, inf=True, nan=s.get("status") == "diverged")
    if not isinstance(s.get("reached"), bool):
        raise ValueError(f"summary reached is {s.get('reached')!r}, not true or false")
    if s["reached"] != math.isfinite(float(value)):
        raise ValueError(f"summary reached is {s['reached']} beside a crossing of {value}")
    if "status" in s and s["status"] not in STATUSES:
        raise ValueError(f"summary status {s['status']!r} is not one of {STATUSES}")
    if s.get("status") in ("crossed", "not_reached") and s["reached"] != (s["status"] == "crossed"):
        raise ValueError(f"summary status {s['status']!r} contradicts reached {s['reached']}")
    if "measured_on" in s and s["measured_on"] not in MEASURED_ON:
        raise ValueError(f"summary measured_on {s['measured_on']!r} is not one of {MEASURED_ON}")
    for k in ("steps_run", "n_steps"):
        if k in s and (isinstance(s[k], bool) or not isinstance(s[k], int) or s[k] < 0):
            raise ValueError(f"summary {k} is {s[k]!r}, not a count")
    for k in ("final_accuracy", "final_test_accuracy"):
        if k in s:
            _number(f"summary {k}", s[k], 0, 1, nan=True)
    if "final_time" in s:
        _number("summary final_time", s["final_time"], low=0, nan=True)
    if "seconds" in s:  # a run's own compute time: at most a year (a forged 1e300 once passed)
        _number("summary seconds", s["seconds"], low=0, high=MAX_RUN_SECONDS, nan=True)
    for k in ("final_loss", "initial_loss"):
        if k in s:
            _number(f"summary {k}", s[k], low=0, nan=True, inf=True)  # a diverged run's loss
    for k in ("switched_at", "crossing_with_bias"):
        if k in s:
            _number(f"summary {k}", s[k], low=0, nan=True, inf=True)
    if "device" in s and not isinstance(s["device"], str):
        raise ValueError(f"summary device is {s['device']!r}, not a name")


def _curve(c: dict[str, Any]) -> None:
    if not c:
        raise ValueError("curve has no columns")
    time = [k for k in TIME_COLUMNS if k in c]
    if len(time) != 1:
        raise ValueError("curve must hold exactly one time column, t or step")
    lengths = set()
    for name, values in c.items():
        if not isinstance(values, list):
            raise ValueError(f"curve {name} is not a list")
        if not values:  # every run records at least its first evaluation; an empty curve crashed the readers
            raise ValueError(f"curve {name} is empty")
        lengths.add(len(values))
        bounded = name.startswith(("accuracy", "attn_value", "attn_query", "attn_relevant", "trigger_attn",
                                   "repetition_fraction"))  # attention weights and shares (entropies are not)
        for v in values:
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise ValueError(f"curve {name} holds {v!r}, not a number")
            if bounded and not (math.isnan(v) or -1e-6 <= float(v) <= 1 + 1e-6):
                raise ValueError(f"curve {name} holds {v}, outside [0, 1]")
    if len(lengths) > 1:
        raise ValueError(f"curve columns have unequal lengths {sorted(lengths)}")
    t = c[time[0]]
    if any(not math.isfinite(v) for v in t) or any(b < a for a, b in zip(t, t[1:])):
        raise ValueError(f"curve {time[0]} is not finite and non-decreasing")


def check_record(record: Any) -> None:
    """Raise ValueError naming the first thing in ``record`` (a stored run's parsed file) that no run writes: its
    fields, summary and curve (its config and key against the code: `cache.check_stored_record`)."""
    if not isinstance(record, dict):
        raise ValueError("the file is not a record (a JSON object)")
    missing, extra = FIELDS - set(record) - {"checksum_covers", "kind_version"}, set(record) - FIELDS
    if extra and not missing:
        raise NewerRecord(f"record fields this code does not know: {sorted(extra)}")
    if missing or extra:
        raise ValueError(f"record fields: missing {sorted(missing)}, unknown {sorted(extra)}")
    if not isinstance(record["summary"], dict) or not isinstance(record["curve"], dict) or not isinstance(record["meta"], dict):
        raise ValueError("summary, curve and meta must be objects")
    if not isinstance(record["config"], dict):
        raise ValueError(f"config is a {type(record['config']).__name__}, not a mapping of fields")
    if len(json.dumps(record["meta"], allow_nan=True)) > MAX_META_BYTES:
        raise ValueError(f"meta is over {MAX_META_BYTES:,} bytes")
    device = record["meta"].get("device", "cpu")
    if not isinstance(device, str) or not re.fullmatch(r"cpu|cuda(:\d+)?|mps", device):
        raise ValueError(f"meta device is {device!r}, not a device name (cpu, cuda[:N], mps)")
    _summary(record["summary"])
    _curve(record["curve"])
    _against_config(record)


def _against_config(record: dict[str, Any]) -> None:
    """The content agrees with its config: no time beyond the run's budget, no negative time, a plausible
    compute time, and a device its kind can run on (the toy models are numpy: the CPU only)."""
    kind, config, s, c = record.get("kind"), record["config"], record["summary"], record["curve"]
    if kind not in BUDGET:
        raise ValueError(f"kind {kind!r} is not one of {sorted(BUDGET)}")
    budget = config.get(BUDGET[kind])
    _number(f"config {BUDGET[kind]}", budget, low=1e-12)
    ceiling = float(budget) * (1 + SLACK)
    crossing = next(s[k] for k in CROSSING if k in s)
    if math.isfinite(float(crossing)) and float(crossing) > ceiling:
        raise ValueError(f"summary crossing {crossing} is beyond the run's {BUDGET[kind]} {budget}")
    for k in ("steps_run", "final_time"):
        if k in s and isinstance(s[k], numbers.Real) and math.isfinite(s[k]) and s[k] > ceiling:
            raise ValueError(f"summary {k} {s[k]} is beyond the run's {BUDGET[kind]} {budget}")
    time = c["step" if "step" in c else "t"]
    if time[0] < 0 or time[-1] > ceiling:
        raise ValueError(f"curve time runs from {time[0]} to {time[-1]}, outside [0, {budget}]")
    ran = s.get("steps_run")
    if kind in TRANSFORMER_KINDS and isinstance(ran, int):  # evaluated at steps it ran, crossed between two of them
        if time[-1] > ran or (math.isfinite(float(crossing)) and float(crossing) > ran * (1 + SLACK)):
            raise ValueError(f"curve or crossing beyond the {ran:,} steps the run says it ran")
    for name, values in c.items():  # a loss is a mean of squares or a cross-entropy: never below zero
        if name.startswith(("loss", "train_loss")) and any(v < -1e-12 for v in values if math.isfinite(v)):
            raise ValueError(f"curve {name} holds a negative loss")
    _crossing_in_curve(kind, config, s, c, crossing)
    if kind in TRANSFORMER_KINDS and s.get("steps_run", 0) > 0 and isinstance(s.get("seconds"), numbers.Real):
        if s["seconds"] < MIN_SECONDS_PER_STEP * s["steps_run"]:
            raise ValueError(f"summary seconds {s['seconds']} for {s['steps_run']:,} steps: under "
                             f"{MIN_SECONDS_PER_STEP} s a step, faster than any device runs one")
    devices = {record["meta"].get("device", "cpu"), s.get("device", "cpu")}
    if kind not in TRANSFORMER_KINDS and devices != {"cpu"}:
        raise ValueError(f"device {sorted(devices)} on a {kind} run, which runs on the CPU only")


def _crossing_in_curve(kind: str, config: dict[str, Any], s: dict[str, Any], c: dict[str, Any], crossing: Any) -> None:
    """A run that crossed has a recorded point at or past its threshold on the curve it is measured on."""
    threshold = config.get("threshold")
    if not math.isfinite(float(crossing)) or not isinstance(threshold, numbers.Real):
        return
    recall = kind == "transformer_recall"
    name = (f"accuracy_{s.get('measured_on', 'test')}" if recall else f"loss_{s.get('measured_on', 'no_repetition')}"
            ) if kind in TRANSFORMER_KINDS else "loss"
    values = [v for v in c.get(name, []) if math.isfinite(v)]
    if values and (max(values) < threshold * (1 - SLACK) if recall else min(values) > threshold * (1 + SLACK)):
        raise ValueError(f"summary says the run crossed {threshold} at {crossing}, but its curve {name} never does")
