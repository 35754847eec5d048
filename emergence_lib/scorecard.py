"""What the book shows of the claims registry (`claims`): the landing page's verdict counts and table, each chapter's
result box, the differences table, the band table, the scorecard's intervals, and the paper-scale column.

`claims` judges; this module only reads the registry, the numbers the chapters glued (MyST glue roles) and the
claims log a book build writes (`claims.CLAIMS_LOG_ENV`).
"""

from __future__ import annotations

import math
import os
import re
from typing import TYPE_CHECKING

from .claims import (CLAIMS, CLAIMS_LOG_ENV, MARK, REGISTRY, Claim, ConfigError, IntervalRule, Tolerance, _md,
                     band_why, claims_of)
from .paper_scale import _paper_cpu_cell, glue_paper_scale_column, paper_scale_cached, paper_scale_column, recorded_claims  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    import pandas as pd


def band_table() -> "pd.DataFrame":
    """Every claim judged by a hand-set band: its rule and why it is not an interval."""
    import pandas as pd

    return pd.DataFrame([{"claim": c.key, "rule": c.tolerance.describe(), "why a band": band_why(c)}
                         for c in CLAIMS if isinstance(c.tolerance, Tolerance)])


def forest_table(folder: str | None = None, scale: str = "cpu") -> "pd.DataFrame":
    """Every interval claim the chapters logged (`CLAIMS_LOG_ENV`) at ``scale`` (the book's: the landing table's
    "Ours, cpu" column), as its distance from the paper's value (or from the direction's threshold) with its 95%
    interval: in log units for ratios (the rule's ``log``), in the claim's own units otherwise (exponents,
    differences). One row per claim, in figure order."""
    import json

    import pandas as pd

    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    rows = []
    for c in sorted(CLAIMS, key=lambda c: (c.figure_number, CLAIMS.index(c))):
        path = os.path.join(folder, f"{c.key}@{scale}.json") if folder else ""
        if not isinstance(c.tolerance, IntervalRule) or not path or not os.path.exists(path):
            continue
        with open(path) as f:
            entry = json.load(f)
        if entry["interval"] is None:
            continue
        rule = c.tolerance
        ref = rule.reference(c.paper_value)
        tr = (lambda v: math.log(v) if v > 0 else float("nan")) if rule.log else (lambda v: v)
        low, high = entry["interval"]
        rows.append({"figure": c.figure, "key": c.key, "claim": c.claim, "status": entry["status"],
                     "scale": entry["scale"], "units": "log ratio" if rule.log else "value",
                     "evidence": evidence_kind(c), "distance": tr(entry["ours"]) - tr(ref), "low": tr(low) - tr(ref),
                     "high": tr(high) - tr(ref)})
    return pd.DataFrame(rows, columns=["figure", "key", "claim", "status", "scale", "units", "evidence", "distance",
                                       "low", "high"])


CHAPTER_LABELS: dict[str, str] = {
    "01_toy_model": "Ch. 1", "02_repetition_toy": "Ch. 2", "03_transformer": "Ch. 3", "04_associative_recall": "Ch. 4",
    "A1_toy_theory": "App. A1", "A2_toy_checks": "App. A2", "A3_transformer_dynamics": "App. A3",
    "A4_transformer_ablations": "App. A4", "A5_recall_mechanism": "App. A5",
    "B1_steering": "Beyond 1", "B2_prediction": "Beyond 2", "B3_followup": "Beyond 3",
    "B4_unsaid": "Beyond 4",
}


# Claims on an exact computation (a deterministic reduced flow: no seeds, no sampling), judged by a tolerance on the
# solver's result rather than an interval: their own kind of evidence, neither registered nor a sampled pin.
EXACT_PREFIXES = ("figure1.", "figure2.", "figure6.", "figure7.", "figure8.", "figure10.", "steering.toy_")
EVIDENCE_KINDS = {
    "registered": "registered before their runs (the evidence)",
    "exact": "exact computations (deterministic flows), judged by a tolerance",
    "pinned": "pins set after their data (not evidence)",
}


def evidence_kind(c: Claim) -> str | None:
    """Which kind of evidence a computed claim is: 'registered' (it pins nothing: registered before its runs, which
    `tests/test_registration.py` checks against git), 'exact' (a deterministic computation) or 'pinned' (its expected
    status was set after its data existed). None for a claim no chapter computes."""
    if c.chapter is None:
        return None
    if c.expected is None:
        return "registered"
    return "exact" if c.key.startswith(EXACT_PREFIXES) else "pinned"


def logged_status(c: Claim, folder: str | None) -> str | None:
    """The status a chapter judged ``c`` at in this build (`claims.CLAIMS_LOG_ENV`), or None if it logged none
    (its runs are not stored yet, or the build logs nothing)."""
    import json

    for scale in ("cpu", c.scale):
        path = os.path.join(folder, f"{c.key}@{scale}.json") if folder else ""
        if path and os.path.exists(path):
            with open(path) as f:
                return str(json.load(f)["status"])
    return None


def logged_entry(c: Claim, folder: str | None) -> dict | None:
    """What a chapter logged for ``c`` in this build (ours, interval, status), as `logged_status` finds it."""
    import json

    for scale in ("cpu", c.scale):
        path = os.path.join(folder, f"{c.key}@{scale}.json") if folder else ""
        if path and os.path.exists(path):
            with open(path) as f:
                return dict(json.load(f))
    return None


# The paper's Figure 3 law, d^1.29 T^0.80 B^-0.80, read on its own model where it measured: the landing's one line.
HEADLINE_LAW = (("table1.measured.d_exponent_T256", "$d$ at $T$ = 256"),
                ("table1.measured.d_exponent_T128", "$d$ at $T$ = 128"),
                ("table1.measured.T_exponent", "$T$ over $T$ = 32–256"),
                ("table1.measured.B_exponent_T256", "$B$ at $T$ = 256"))


def law_line(folder: str | None = None) -> str:
    """'Figure 3's law on the paper's own model, where the paper measured': each exponent of `HEADLINE_LAW` as this
    build judged it (ours [95% interval] against the paper's, and the verdict), or "not run yet"."""
    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    by_key = {c.key: c for c in CLAIMS}
    parts = []
    for key, label in HEADLINE_LAW:
        c, entry = by_key[key], logged_entry(by_key[key], folder)
        if entry is None or entry.get("interval") is None:
            parts.append(f"{label}: {'not run yet' if folder else 'not judged in this build'} (the paper: {c.paper})")
            continue
        ours, low, high = (f"{v:.2f}".replace("-", "−") for v in (entry["ours"], *entry["interval"]))
        widened = " (rule amended after the data: a wider interval where the law misfits)" if c.amended else ""
        parts.append(f"{label}: {ours} [{low}, {high}]{widened} against the paper's {c.paper}, **{entry['status']}**")
    return ("* **Figure 3's law on the paper's own model, where the paper measured** (registered before its runs; the "
            "$T$ exponent also reads the $T$ ≤ 64 runs that existed before it; {doc}`chapter 3 "
            "<chapters/03_transformer>`): " + "; ".join(parts) + ".")


def evidence_counts(folder: str | None = None) -> "pd.DataFrame":
    """One row per computed claim: its kind of evidence, its model (Table 1's, or the laptop grid's), and its status:
    the one judged in this build for a registered claim (or "not run yet"), the pinned one for the others (a pinned
    claim's status is its expected one whenever the book builds: `record` fails the build otherwise). The landing
    page's counts are this table's, and nothing else's (a test checks it)."""
    import pandas as pd

    folder = folder or os.environ.get(CLAIMS_LOG_ENV)
    rows = []
    for c in CLAIMS:
        kind = evidence_kind(c)
        if kind is None:
            continue
        if kind == "registered":
            status = (logged_status(c, folder) or "not run yet") if folder else "not judged in this build"
        else:
            status = str(c.expected)
        group = ("paper" if not c.figure.startswith("B") else "beyond") if c.scale != "paper_cpu" else "table1"
        rows.append({"claim": c.key, "kind": kind, "group": group, "status": status, "amended": bool(c.amended)})
    return pd.DataFrame(rows, columns=["claim", "kind", "group", "status", "amended"])


def _count_text(statuses: "pd.Series", hold: str = "agree", differ: str = "differ") -> str:
    n = statuses.value_counts()
    parts = [(n.get("agrees", 0) + n.get("reproduced", 0), hold), (n.get("differs", 0), differ),
             (n.get("inconclusive", 0), "inconclusive"), (n.get("not run yet", 0), "not run yet"),
             (n.get("not judged in this build", 0), "not judged in this build")]
    return ", ".join(f"**{k} {word}**" for k, word in parts if k)


def _amended_text(rows: "pd.DataFrame") -> str:
    """The registered verdicts judged by a rule amended after their data (`claims.Claim.amended`), said beside the
    counts that include them."""
    judged = rows[rows["amended"] & ~rows["status"].isin(["not run yet", "not judged in this build"])]
    if not len(judged):
        return ""
    return (f"; {len(judged)} of these by an interval widened after the data, because the law misfits its points "
            f"(each point counts once: {{doc}}`chapters/methods`)")


def _partly_text(rows: "pd.DataFrame", registration: "pd.DataFrame | None") -> str:
    """How many of ``rows`` (registered claims) also read runs that existed before them (`registration`'s "partly
    after its data"), said beside the count that includes them; empty without a registration table."""
    if registration is None:
        return ""
    partly = set(registration.loc[registration["registration"] == "partly after its data", "claim"])
    n = int(rows["claim"].isin(partly).sum())
    return f"; {n} of these also read runs that existed before them (partly after their runs)" if n else ""


def verdict_summary(folder: str | None = None, registration: "pd.DataFrame | None" = None) -> str:
    """The landing page's first lines (MyST markdown): the verdicts counted by kind of evidence, registered ones first.

    * registered before their runs: counted by the status this build judged (the paper's model first); with
      ``registration`` (`registration.registration_table`), how many of them also read older runs;
    * exact computations: the deterministic flows' tolerances;
    * pins set after the data: their pinned statuses, shown as pins and never as "hold"."""
    t = evidence_counts(folder)
    reg, exact, pins = (t[t["kind"] == k] for k in ("registered", "exact", "pinned"))
    reg_t1, reg_other = reg[reg["group"] == "table1"], reg[reg["group"] != "table1"]
    lines = [
        f"* **Registered before their runs, on the paper's own model (Table 1):** {len(reg_t1)} claims: "
        f"{_count_text(reg_t1['status'])} (Figure 3: {{doc}}`chapter 3 <chapters/03_transformer>`; recall, Figures "
        f"4, 5, 16 and 17: {{doc}}`chapter 4 <chapters/04_associative_recall>` and "
        f"{{doc}}`appendix C.2 <chapters/A5_recall_mechanism>`; Figures 14 and 15: "
        f"{{doc}}`appendix B.3 <chapters/A4_transformer_ablations>`){_amended_text(reg_t1)}"
        f"{_partly_text(reg_t1, registration)}.", "  " + law_line(folder)]  # nested: what the first line's counts decide
    if len(reg_other):
        lines.append(f"* **Registered before their runs, on the laptop grid** (fresh seeds): {len(reg_other)} claims: "
                     f"{_count_text(reg_other['status'])}{_partly_text(reg_other, registration)}.")
    lines += [
        f"* **Exact computations** (the toy model's deterministic flows, judged by a tolerance): {len(exact)}: "
        f"{_count_text(exact['status'], 'within it', 'outside it')}.",
        f"* **Pins set after their data** (the laptop grid, the book's own experiments and the follow-up's claims; "
        f"they guard against a change of code, and are not evidence): {len(pins)}, pinned as "
        f"{_count_text(pins['status'], 'matching the paper', 'differing')}.",
    ]
    return "\n".join(lines)


REGISTERED_TEXT = {"before its data": "before its runs", "with its data": "with its runs",
                   "after its data": "after its runs (pinned)", "partly after its data": "partly after its runs",
                   "not yet committed": "not yet committed"}


# A laptop claim → the claim on Table 1's settings that measures the same quantity where the paper measured, where
# the key alone would pick another: Figure 3's exponents come from the paper's panels at T up to 256 (not the cheap
# end's T ≤ 64 fit, which keeps its own rows); the laptop's cross-sample claim is a ratio of speed-ups (largest d over
# smallest); Figure 15's Adam runs are Figure 14's random-position runs.
TWINS = {"figure3.d_exponent": "table1.measured.d_exponent_T256", "figure3.T_exponent": "table1.measured.T_exponent",
         "figure3.B_exponent": "table1.measured.B_exponent_T256",
         "figure3.cross_sample_speedup": "table1.figure3.cross_sample_more_at_larger_d",
         "figure15.adam_d_exponent": "table1.ablations.figure14.d_exponent_random_position",
         "figure15.adam_T_exponent": "table1.ablations.figure14.T_exponent_random_position"}


def landing_table(from_doc: str = "", paper_doc: str = "/intro.ipynb", registration: "pd.DataFrame | None" = None) -> str:
    """The landing table, in figure order (1 → 17), as MyST markdown.

    The ``ours`` and ``status`` cells paste what the chapters glued when the book executed them (from ``data/`` at
    cpu scale): `record` is the only writer of those values. The paper-scale cells paste what
    `glue_paper_scale_column` glued on the page ``paper_doc``. ``from_doc`` is the path from the page that shows
    the table to the book's root ("" for the root page, "../" for a page under chapters/)."""
    when = dict(zip(registration["claim"], registration["registration"])) if registration is not None else {}
    rows = ["| Fig. | Claim | Paper (reproduced if) | Ours, cpu | Status | Ours, paper scale | Registered | Chapter |",
            "|---|---|---|---|---|---|---|---|"]
    rules: dict[str, int] = {}
    for c in sorted(CLAIMS, key=lambda c: (c.figure_number, CLAIMS.index(c))):
        paper_scale = f"{{glue:text}}`{paper_doc}::{c.glue_key('paper')}:s`"
        # The same claim judged on Table 1's settings (paper_cpu): named in TWINS where the keys differ, else Figure
        # 3's model (table1.<key>) or the ablations' at its width (table1.ablations.<key>).
        twin = REGISTRY.get(TWINS.get(c.key, f"table1.{c.key}")) or REGISTRY.get(f"table1.ablations.{c.key}")
        if twin is not None:
            paper_scale = _paper_cpu_cell(twin)
        if c.chapter is None:
            ours, status, where = "—", MARK["not run"], "—"
        else:
            doc = f"/chapters/{c.chapter}.ipynb"
            ours = f"{{glue:text}}`{doc}::{c.glue_key('ours')}:s`"
            status = f"{{glue:text}}`{doc}::{c.glue_key('status')}:s`"
            where = f"{{doc}}`{CHAPTER_LABELS[c.chapter]} <{from_doc}chapters/{c.chapter}>`"
            if c.scale == "paper_cpu":  # judged on Table 1's settings: its number belongs in the paper-scale column
                ours, status, paper_scale = "—", "—", _paper_cpu_cell(c)
        # Each rule once, in the legend under the table (41 rows repeated one 150-character rule): a cell names it.
        rule = c.tolerance.describe().replace(" of the paper" + chr(39) + "s", "") if c.tolerance else ""
        tol = f" (rule {rules.setdefault(rule, len(rules) + 1)})" if rule else ""
        registered = str(REGISTERED_TEXT.get(when.get(c.key, ""), when.get(c.key, "—"))) if c.chapter else "—"
        if c.amended and c.chapter:
            registered += " (interval widened after the data)"
        if evidence_kind(c) == "exact":
            registered = "an exact computation, judged by a tolerance"
        rows.append(f"| {c.figure} | {_md(c.claim)} | {_md(c.paper)}{tol} | {ours} | {status} | {paper_scale} | {registered} "
                    f"| {where} |")
    legend = ["", "**The rules** (a cell's \"rule N\"): " + "; ".join(f"**{n}.** {_md(r)}" for r, n in rules.items()) + "."]
    return "\n".join(rows + (legend if rules else []))


RESULT_BOX_OPEN = 4  # verdicts a chapter's result box shows before "N more verdicts"


def result_box(chapter: str) -> str:
    """The box at the top of a chapter (MyST markdown): each claim it judges, its verdict and our number, pasted from
    what the chapter's own `record` calls glue further down the page. Claims on Table 1's settings (paper_cpu) are
    summed up in one line that points to their section."""
    doc = f"/chapters/{chapter}.ipynb"
    mine = claims_of(chapter)
    if not mine:
        raise ConfigError(f"no claim of the registry belongs to chapter {chapter!r}")
    lines = ["::::{admonition} What this chapter finds", ":class: tip", ""]
    # The verdicts registered before their runs lead (the evidence), but a point's ratio to a law, which its section's
    # table shows; then the laptop grid's (pinned) ones.
    point = re.compile(r"\.(T\d+_d\d+_B\d+|V\d+_N\d+)$")  # a point against a law: its section's table shows it
    registered = sorted([c for c in mine if c.expected is None and not point.search(c.key)],
                        key=lambda c: not c.key.startswith("table1.measured."))  # where the paper measured, first
    shown = registered + [c for c in mine if c.scale != "paper_cpu" and c not in registered]

    def bullet(c: Claim) -> str:
        # A pin is labelled as one where it stands: it guards the code and is not evidence (the registered check of
        # the same claim, where there is one, is listed above it).
        pin = " *(pin, set after its data: not evidence)*" if evidence_kind(c) == "pinned" else ""
        pin += " *(rule amended after the data: a wider interval where the law misfits)*" if c.amended else ""
        return (f"- {{glue:text}}`{doc}::{c.glue_key('status')}:s` {c.claim}: ours "
                f"{{glue:text}}`{doc}::{c.glue_key('ours')}:s`, the paper {c.paper}.{pin}")

    # The first few verdicts open, the rest one click away: on a phone a long box would push the chapter's main
    # figure past its first two screens.
    lines += [bullet(c) for c in shown[:RESULT_BOX_OPEN]]
    if len(shown) > RESULT_BOX_OPEN:
        lines += ["", f":::{{dropdown}} {len(shown) - RESULT_BOX_OPEN} more verdicts", ""]
        lines += [bullet(c) for c in shown[RESULT_BOX_OPEN:]]
        lines += [":::", ""]
    table1_claims = [c for c in mine if c.scale == "paper_cpu" and c not in registered]
    if table1_claims:
        lines.append(f"- On Table 1's own settings, {len(table1_claims)} more claims are judged point by point in the "
                     "sections on the paper's model below, as far as their runs are stored.")
    lines += ["", "Each verdict comes from the registry's rule ({doc}`methods`); the table at each section's end gives the rule.",
              "::::"]
    return "\n".join(lines)


def differences_table(from_doc: str = "") -> str:
    """The claims expected to differ at cpu scale, with why (MyST markdown)."""
    rows = ["| Fig. | Claim | Paper | Ours (cpu) | Why | Where |", "|---|---|---|---|---|---|"]
    for c in sorted(CLAIMS, key=lambda c: (c.figure_number, CLAIMS.index(c))):
        if c.expected not in ("differs", "inconclusive") or c.chapter is None:
            continue
        ours = f"{{glue:text}}`/chapters/{c.chapter}.ipynb::{c.glue_key('ours')}:s`"
        where = f"{{doc}}`{CHAPTER_LABELS[c.chapter]} <{from_doc}chapters/{c.chapter}>`"
        rows.append(f"| {c.figure} | {_md(c.claim)} | {_md(c.paper)} | {ours} | {_md(c.note)} | {where} |")
    return "\n".join(rows)
