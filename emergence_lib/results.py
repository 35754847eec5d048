"""What one run produces, whatever computed it and wherever it is stored (`cache` stores it, `runs` and `training`
make it, `sweep` gathers it into tables)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class RunResult:
    """What one run produces: a summary (one table row) and a curve (columns of equal length)."""

    summary: dict[str, Any]
    curve: dict[str, np.ndarray]
    # Where and how fast it ran, not what it computed (stored in the file's meta, never in its summary): the run's own
    # CPU seconds and its host's matmul rates (`executors.run_chunk`, `host`).
    host: dict[str, Any] = field(default_factory=dict)
