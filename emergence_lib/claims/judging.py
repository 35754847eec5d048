"""Judging a chapter's number against the registry (`record`), gluing it for the landing table, and the
chapter's table of what it checked (`show_checked`)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from ..configs import ConfigError, check_scale
from .registry import claim
from .rules import MARK, Claim, IntervalRule


class ClaimMismatch(AssertionError):
    """A claim's status at cpu/paper scale is not the one the registry expects."""


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    ours: float
    status: str  # a Status, or "smoke"
    interval: tuple[float, float] | None = None  # our 95% interval, for claims judged by one

    @property
    def ours_text(self) -> str:
        if not math.isfinite(self.ours):
            return "not reached"
        from ..report import format_number

        text = format_number(self.ours, self.claim.fmt)
        if self.interval is not None:
            lo, hi = (format_number(v, self.claim.fmt) if math.isfinite(v) else "?" for v in self.interval)
            text += f" [{lo}, {hi}]"
        return text.replace("-", "−")  # a typographic minus, as the paper prints

    @property
    def on_the_edge(self) -> bool:
        """An end of the interval within 0.02 of a bound the verdict turns on (`rules.IntervalRule.on_the_edge`)."""
        t = self.claim.tolerance
        return (isinstance(t, IntervalRule) and self.interval is not None and self.status != "smoke"
                and t.on_the_edge(self.interval[0], self.interval[1], self.claim.paper_value))

    def row(self) -> dict[str, str]:
        c = self.claim
        edge = " (on the edge: within 0.02 of its bound)" if self.on_the_edge else ""
        return {"figure": c.figure, "claim": c.claim, "paper": c.paper, "ours": self.ours_text,
                "reproduced if": c.tolerance.describe() if c.tolerance else "—", "status": MARK[self.status] + edge}


def record(key: str, ours: float, scale: str, interval: tuple[float, float] | None = None,
           registered: tuple[float, float, float] | None = None) -> ClaimResult:
    """Judge ``ours`` (with its 95% ``interval``, for a claim judged by one) against the registry's rule, fail at
    cpu/paper scale if the status is not the expected one (claims registered before their data expect none),
    and glue the number and the status for the landing table. Returns the result (for the chapter's table).

    A claim of the ``paper_cpu`` scale (`experiments.regression`) is judged whenever the chapter is not at smoke scale: its runs
    are read from ``data/`` whatever grid the chapter itself runs."""
    from ..report import glue_text

    check_scale(scale)
    c = claim(key)
    if c.tolerance is None:
        raise ConfigError(f"claim {key!r} is not computed by any chapter")
    ours = float(ours)
    interval = None if interval is None else (float(interval[0]), float(interval[1]))
    status = "smoke" if scale == "smoke" else c.status(ours, interval)
    result = ClaimResult(c, ours, status, interval)
    glue_text(c.glue_key("ours"), result.ours_text)
    glue_text(c.glue_key("status"), MARK[status])
    # A claim amended after its data also logs the verdict its rule as registered gives (``registered``: ours, low,
    # high of that reading), so the landing page says "only under the amended rule" only where that is true.
    before = None if registered is None or scale == "smoke" else c.status(registered[0], (registered[1], registered[2]))
    _log_result(result, scale, before)
    # At cpu scale the status must be the registry's; at paper scale a claim reproduced at cpu must stay reproduced
    # (one that differs at cpu may well reproduce on the paper's grid: that is reported, not failed).
    if c.expected is None:
        return result
    wrong = status != c.expected if scale == "cpu" else (scale == "paper" and c.expected == "reproduced" and status != c.expected)
    if wrong:
        raise ClaimMismatch(
            f"{key}: ours = {result.ours_text}, paper {c.paper}; reproduced if {c.tolerance.describe()} → {status}, "
            f"but the registry expects {c.expected!r}. If the change is right, update the registry and the prose.")
    return result


# Where `record` also writes each judged claim as JSON, when set (the book build sets it: `make book`), so that the
# scoreboard, executed after the chapters, can draw every interval at once (`forest_table`). Build output, not data:
# nothing reads it but the scoreboard of the same build.
CLAIMS_LOG_ENV = "EMERGENCE_CLAIMS_LOG"


def _log_result(result: ClaimResult, scale: str, registered_status: str | None = None) -> None:
    import json

    folder = os.environ.get(CLAIMS_LOG_ENV)
    if not folder or result.status == "smoke":
        return
    os.makedirs(folder, exist_ok=True)
    entry = {"key": result.claim.key, "scale": scale, "ours": result.ours, "status": result.status,
             "interval": list(result.interval) if result.interval is not None else None}
    if registered_status is not None:
        entry["registered_status"] = registered_status
    # One file per scale: the landing page also executes fully cached chapters at paper scale, after the cpu build.
    with open(os.path.join(folder, f"{result.claim.key}@{scale}.json"), "w") as f:
        json.dump(entry, f)


def record_fit(key: str, fit, name: str, scale: str) -> ClaimResult:
    """Record a fitted power law's exponent ``name`` (or its constant, ``name="C"``) with its 95% t interval from
    the fit's OLS standard error (`metrics.PowerLawFit`)."""
    from ..metrics import t_quantile_975

    t = t_quantile_975(max(fit.n - len(fit.predictors) - 1, 1))
    if name == "C":
        return record(key, fit.constant, scale, interval=(fit.constant * math.exp(-t * fit.log_constant_stderr),
                                                          fit.constant * math.exp(t * fit.log_constant_stderr)))
    value, se = fit.exponents[name], fit.stderr[name]
    return record(key, value, scale, interval=(value - t * se, value + t * se))


def record_not_run(key: str, why: str) -> None:
    """Glue a claim whose runs are not (all) in ``data/`` yet: its cells say so instead of a number."""
    from ..report import glue_text

    c = claim(key)
    glue_text(c.glue_key("ours"), why)
    glue_text(c.glue_key("status"), MARK["not run"])


def show_checked(results: list[ClaimResult], title: str, collapsed: bool = False) -> None:
    """Display the claims a chapter checked as a titled table (MyST markdown, so their maths renders); ``collapsed``:
    in a dropdown whose summary is the title (a section's own verdicts, which the chapter's result box also lists:
    a page opens its verdict table and at most two key tables)."""
    from IPython.display import Markdown, display

    header = [f":::{{dropdown}} {title}", ""] if collapsed else [f"**{title}**", ""]
    rows = header + ["| Fig. | Claim | Paper | Ours | Reproduced if | Status |", "|---|---|---|---|---|---|"]
    for r in results:
        row = r.row()
        rows.append("| " + " | ".join(_md(row[k]) for k in ("figure", "claim", "paper", "ours", "reproduced if", "status")) + " |")
    if collapsed:
        rows += ["", ":::"]
    display(Markdown("\n".join(rows)))


def _md(text: str) -> str:
    """Table-cell text: pipes escaped (claims may hold MyST maths, $…$, which renders)."""
    return text.replace("|", "\\|")


