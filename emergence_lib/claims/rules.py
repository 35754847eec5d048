"""What a claim is and how one is judged: `Claim`, its two rules (`Tolerance`, a hand-set band; `IntervalRule`,
a 95% interval), `Target`, and the widths past which an interval is inconclusive."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from ..configs import ConfigError, Scale
from ..paper import paper_number

Status = Literal["reproduced", "agrees", "differs", "inconclusive", "not run"]
# Marks in characters the book's fonts have (emoji are not in them).
MARK = {"reproduced": "✓ reproduced", "agrees": "✓ agrees", "differs": "△ differs", "inconclusive": "? inconclusive",
        "not run": "○ not run", "smoke": "· smoke: not judged"}


@dataclass(frozen=True)
class Tolerance:
    """What counts as reproduced: |ours − paper| ≤ ``absolute``, or |ours/paper − 1| ≤ ``relative``, or
    ours in [``low``, ``high``] (either end open) for a claim stated as a direction or a bound."""

    absolute: float | None = None
    relative: float | None = None
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        given = [self.absolute is not None, self.relative is not None, self.low is not None or self.high is not None]
        if sum(given) != 1:
            raise ConfigError("a Tolerance takes exactly one of absolute, relative, or low/high")

    def passes(self, ours: float, paper: float | None) -> bool:
        if not math.isfinite(ours):
            return False
        if self.absolute is not None or self.relative is not None:
            if paper is None:
                raise ConfigError("an absolute or relative tolerance needs the paper's value")
            if self.absolute is not None:
                return abs(ours - paper) <= self.absolute
            assert self.relative is not None  # the one of absolute and relative given
            return abs(ours / paper - 1) <= self.relative
        return (self.low is None or ours >= self.low) and (self.high is None or ours <= self.high)

    def describe(self) -> str:
        if self.absolute is not None:
            return f"±{self.absolute:g} of the paper's"
        if self.relative is not None:
            return f"within {self.relative:.0%} of the paper's"
        if self.low is not None and self.high is not None:
            return f"in [{self.low:g}, {self.high:g}]"
        return f"≥ {self.low:g}" if self.low is not None else f"≤ {self.high:g}"


@dataclass(frozen=True)
class IntervalRule:
    """A three-valued verdict from our 95% interval [low, high] of a measured number:

    * with ``above`` None (a value claim): *differs* if the paper's value lies outside our interval, widened in
      quadrature by ``paper_sd`` (the paper's own scatter about its value: z·paper_sd on each side); else
      *inconclusive* if our interval is wider than ``max_width``; else *agrees*. An interval that excludes the
      paper's value is decisive however wide it is.
    * with ``above`` set (a direction claim: ours > above): *agrees* if the whole interval lies above it,
      *differs* if the whole interval lies below it, else *inconclusive*.
    * with ``outside`` set (a claim that something moves a quantity by more than ``outside``, either way): *agrees*
      if the whole interval lies beyond ±outside, *differs* if it lies within [−outside, outside], else *inconclusive*.
    * with ``within`` set (a claim that a quantity stays within a band around zero, or around 1 with ``log``, an
      equivalence): *agrees* if the whole interval lies within [−within, within], *differs* if it lies wholly beyond
      it on one side, else *inconclusive*.

    With ``log`` the comparison is made on logarithms (ratios: the paper's value is then a ratio too, often 1).
    An interval with a missing end (one seed) is inconclusive unless the point estimate alone is decisive:
    it never is."""

    max_width: float = math.inf
    paper_sd: float = 0.0
    log: bool = False
    above: float | None = None
    z: float = 1.96
    outside: float | None = None
    within: float | None = None

    def judge(self, ours: float, low: float, high: float, paper: float | None) -> Status:
        if not (math.isfinite(low) and math.isfinite(high)):
            return "inconclusive"
        tr = math.log if self.log else (lambda v: v)
        if self.outside is not None:  # with ``log``: a ratio's interval against [1/e^outside, e^outside]
            b, lo, hi = self.outside, tr(low), tr(high)
            return "agrees" if lo > b or hi < -b else "differs" if -b <= lo and hi <= b else "inconclusive"
        if self.within is not None:  # with ``log``: a ratio's interval against [1/e^within, e^within]
            b, lo, hi = self.within, tr(low), tr(high)
            return "agrees" if -b <= lo and hi <= b else "differs" if lo > b or hi < -b else "inconclusive"
        if self.above is not None:
            return "agrees" if tr(low) > tr(self.above) else "differs" if tr(high) < tr(self.above) else "inconclusive"
        if paper is None:
            raise ConfigError("a value claim judged by an interval needs the paper's value")
        m, lo, hi, ref = tr(ours), tr(low), tr(high), tr(paper)
        widen = (self.z * self.paper_sd) ** 2
        lo_w, hi_w = m - math.sqrt((m - lo) ** 2 + widen), m + math.sqrt((hi - m) ** 2 + widen)
        if not lo_w <= ref <= hi_w:
            return "differs"
        return "inconclusive" if hi - lo > self.max_width else "agrees"

    def on_the_edge(self, low: float, high: float, paper: float | None, edge: float = 0.02) -> bool:
        """Whether an end of our interval lies within ``edge`` of a bound the verdict turns on (the paper's value, a
        direction's bound, a band's ends; log units for a ratio): a slightly different interval would flip it."""
        tr = math.log if self.log else (lambda v: v)
        band = self.outside if self.outside is not None else self.within  # already on the rule's scale
        if band is not None:
            refs = [band, -band]
        elif self.above is not None:
            refs = [tr(self.above)] if self.above > 0 or not self.log else []
        elif paper is not None and (paper > 0 or not self.log):
            refs = [tr(paper)]
        else:
            return False
        ends = [tr(v) for v in (low, high) if math.isfinite(v) and (v > 0 or not self.log)]
        return any(abs(e - r) < edge for e in ends for r in refs)

    def reference(self, paper: float | None) -> float | None:
        """What our interval is read against: no change (0, or a ratio of 1) for a band rule, the bound for a
        direction, else the paper's value."""
        if self.outside is not None or self.within is not None:
            return 1.0 if self.log else 0.0
        return self.above if self.above is not None else paper

    def describe(self) -> str:
        unit = " in log" if self.log else ""
        if self.outside is not None and self.log:  # a ratio: its interval against [1/r, r]
            r = math.exp(self.outside)
            return (f"agrees if our 95% interval lies outside [1/{r:.3g}, {r:.3g}] (beyond ±{self.outside:.3g} in log), "
                    f"differs if it lies within it, else inconclusive")
        if self.within is not None and self.log:
            r = math.exp(self.within)
            return (f"agrees if our 95% interval lies within [{1 / r:.3g}, {r:.3g}], differs if it lies wholly outside "
                    "it, else inconclusive")
        if self.within is not None:
            return (f"agrees if our 95% interval lies within [−{self.within:g}, {self.within:g}], differs if it lies "
                    "wholly outside it, else inconclusive")
        if self.outside is not None:
            return (f"agrees if our 95% interval lies beyond ±{self.outside:g}, differs if it lies within "
                    f"[−{self.outside:g}, {self.outside:g}], else inconclusive")
        if self.above is not None:
            return f"agrees if our 95% interval lies above {self.above:g}, differs if below, else inconclusive"
        spread = f", widened by the law's own scatter (σ = {self.paper_sd:.3f}{unit})" if self.paper_sd else ""
        return (f"differs if the paper's value is outside our 95% interval{spread}, however wide; else inconclusive if "
                f"that interval is wider than {self.max_width:g}{unit}; else agrees")


@dataclass(frozen=True)
class Claim:
    key: str  # "figure1.d_exponent": figure, then the quantity
    figure: str  # the paper's figure (and panel), as the landing table prints it: "1c"
    chapter: str | None  # the chapter (docname under chapters/) that computes it; None: not computed here
    claim: str  # the paper's claim, one sentence
    paper: str  # the paper's value as it reports it (text: some are directions or read off a figure)
    paper_value: float | None  # the number compared against, where there is one (from `paper_source`)
    measure: str  # how ours is computed
    tolerance: Tolerance | IntervalRule | None  # None with chapter None
    # The status the registry expects at cpu scale (a change of it is a finding); None: registered before its
    # data existed, so nothing is pinned and whatever the runs show is shown.
    expected: Status | None
    fmt: str = ".2f"
    note: str = ""  # why it differs, where it does
    scale: Scale = "cpu"  # the scale whose runs the chapter judges it on (paper_cpu: Table 1's settings, `experiments.regression`)
    # Where paper_value comes from: an entry of `paper.PAPER` ("figure3.d"), or "target: why" for a value the paper
    # does not print as a number (two of our computations agreeing: an error of 0, a ratio of 1). None: no value.
    paper_source: str | None = None
    # The runs the claim reads, as "figure:sweep" names (`experiments.figures()` at the claim's scale): its
    # registration is judged against these runs alone. Empty: every run of the chapter's figures at its scale.
    reads: tuple[str, ...] = ()
    # A change of the rule made after the data existed, and why (empty: none). Only a change to a wider, design-
    # respecting interval is allowed here; the landing table's "Registered" column and the first screen say so.
    amended: str = ""

    @property
    def figure_number(self) -> int:
        """The paper's figure number; "B<n>" (beyond the paper) sorts after every figure."""
        m = re.match(r"(B?)(\d+)", self.figure)
        assert m is not None  # every registered figure starts with its number (tests/test_claims.py)
        return (100 if m.group(1) else 0) + int(m.group(2))

    def status(self, ours: float, interval: tuple[float, float] | None = None) -> Status:
        if isinstance(self.tolerance, IntervalRule):
            if interval is None:
                raise ConfigError(f"claim {self.key!r} is judged by an interval: record it with interval=(low, high)")
            return self.tolerance.judge(ours, interval[0], interval[1], self.paper_value)
        assert self.tolerance is not None
        return "reproduced" if self.tolerance.passes(ours, self.paper_value) else "differs"

    def glue_key(self, what: Literal["ours", "status", "paper"]) -> str:
        return f"claim.{self.key}.{what}"


@dataclass(frozen=True)
class Target:
    """A value ours is compared with that the paper does not print as a number, with why (e.g. 0: the flow and SGD
    agree; 1: a ratio to the paper's own law)."""

    value: float
    why: str


def _c(key, figure, chapter, claim, paper, paper_value: str | Target | None, measure, tolerance, expected="reproduced",
       fmt=".2f", note="", scale="cpu", reads=(), amended=""):
    """A claim; its number is named, never typed: ``paper_value`` is an entry of `paper.PAPER` ("figure3.d") or a
    `Target`, so every paper value the registry judges against comes from the one table."""
    if isinstance(paper_value, str):
        value, source = paper_number(paper_value), paper_value
    elif isinstance(paper_value, Target):
        value, source = float(paper_value.value), f"target: {paper_value.why}"
    elif paper_value is None:
        value, source = None, None
    else:
        raise ConfigError(f"claim {key!r}: its paper value {paper_value!r} must name an entry of emergence_lib.paper "
                          "(e.g. 'figure3.d') or be a Target with why, not a number typed here")
    return Claim(key, figure, chapter, claim, paper, value, measure, tolerance, expected, fmt, note, scale, source,
                 tuple(reads), amended)


A = Tolerance  # short for the table below
# One width per kind of quantity (issue 36 item 4; the methods page states them): an interval wider than this is
# inconclusive. A test checks every value claim judged by an interval uses its kind's width.
EXPONENT_WIDTH = 0.4
LOG_RATIO_WIDTH = 0.5  # a ratio on a log scale (a point over a law, a constant, a speed-up)
TWO_COMPUTATIONS_WIDTH = 0.05  # two computations of one quantity (the reduced flow against SGD, Figure 9)

