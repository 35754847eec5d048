"""The claims registry: each claim of the paper this book checks, in one place.

A `Claim` says which figure it belongs to, what the paper reports, how ours is computed, and the rule that judges
it. The chapter that computes a claim's number hands it to `record`, which

* decides the status from the registry's rule, never from the chapter: a hand-set band (`Tolerance`:
  ``reproduced`` or ``differs``) or a 95% interval (`IntervalRule`: ``agrees``, ``differs`` or ``inconclusive``);
* where the registry gives an expected status, fails the chapter at ``cpu`` scale (and so the book build) when the
  status leaves it. That is a **regression pin**, set after the runs existed: it keeps a change of code from moving
  a result unnoticed, and is no evidence for the claim. A claim registered before its runs expects nothing
  (``expected=None``); `registration` reads from git which is which, and the landing table shows it;
* glues the number and the status, which the landing page and the scoreboard paste (`scorecard.landing_table`).

This package is the registry and the judging only: what the book shows of it is in `scorecard`.

At ``smoke`` scale (tiny grids, for the tests) a claim is recorded but not judged.

The package: `rules` (what a claim is), `measured` (the claims registered before their runs), `registry` (every
claim, by key) and `judging` (`record` and the chapter's table). `registration.REGISTRY_FILES` dates each claim from
git across this package and the single module it was split from.
"""

from ..configs import ConfigError
from .judging import (CLAIMS_LOG_ENV, ClaimMismatch, ClaimResult, _md, record, record_fit, record_not_run,
                      show_checked)
from .measured import (ABLATIONS_MEASURED_CLAIMS, CONFIRM_CLAIMS, MEASURED_CLAIMS, RECALL_MEASURED_CLAIMS,
                       TABLE1_CLAIMS)
from .registry import BAND_WHY, CHAPTER_FIGURES, CLAIMS, REGISTRY, band_why, claim, claims_of
from .rules import (EXPONENT_WIDTH, LOG_RATIO_WIDTH, MARK, TWO_COMPUTATIONS_WIDTH, Claim, IntervalRule, Status,
                    Target, Tolerance, _c)

__all__ = ["ABLATIONS_MEASURED_CLAIMS", "BAND_WHY", "CHAPTER_FIGURES", "CLAIMS", "CLAIMS_LOG_ENV", "CONFIRM_CLAIMS",
           "ClaimMismatch", "ClaimResult", "Claim", "ConfigError", "EXPONENT_WIDTH", "IntervalRule", "LOG_RATIO_WIDTH",
           "MARK", "MEASURED_CLAIMS", "RECALL_MEASURED_CLAIMS", "REGISTRY", "Status", "TABLE1_CLAIMS",
           "TWO_COMPUTATIONS_WIDTH", "Target", "Tolerance", "_c", "_md", "band_why", "claim", "claims_of", "record",
           "record_fit", "record_not_run", "show_checked"]
