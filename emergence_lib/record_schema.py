"""What a stored run's file may hold (issue 37 item 1): the record's fields, each summary field's type and range, the
curve's columns, and the consistency between them. `cache.load`, whole-store `verify` and `migrate` check every file
against it, after its checksum: a file whose checksum was recomputed over a value no run writes (a plateau of 'abc',
NaN or -5; ``reached`` false beside a finite crossing) is refused all the same.

`check_record` raises ValueError naming the first thing wrong; it never opens anything."""

from __future__ import annotations

import json
import math
import numbers
import re
from typing import Any

FIELDS = {"format_version", "kind", "kind_version", "key", "config", "summary", "curve", "checksum", "checksum_covers",
          "meta"}
CROSSING = ("plateau_length", "emergence_step")  # the one a kind writes: steps (Transformers) or time (toy models)
STATUSES = ("crossed", "not_reached", "diverged")
MEASURED_ON = ("test", "train_distribution", "no_repetition")
TIME_COLUMNS = ("t", "step")
MAX_META_BYTES = 100_000


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
        raise ValueError(f"summary has fields no run writes: {', '.join(unknown)}")
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
    if "measured_on" in s and s["measured_on"] not in MEASURED_ON:
        raise ValueError(f"summary measured_on {s['measured_on']!r} is not one of {MEASURED_ON}")
    for k in ("steps_run", "n_steps"):
        if k in s and (isinstance(s[k], bool) or not isinstance(s[k], int) or s[k] < 0):
            raise ValueError(f"summary {k} is {s[k]!r}, not a count")
    for k in ("final_accuracy", "final_test_accuracy"):
        if k in s:
            _number(f"summary {k}", s[k], 0, 1, nan=True)
    for k in ("final_time", "seconds"):
        if k in s:
            _number(f"summary {k}", s[k], low=0, nan=True)
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
