"""What the book shows of the claims registry (`claims`): the landing page's verdict counts and table, each chapter's
result box, the differences table, the band table, the scorecard's intervals, and the paper-scale column.

`claims` judges; this module only reads the registry, the numbers the chapters glued (MyST glue roles) and the
claims log a book build writes (`claims.CLAIMS_LOG_ENV`).
"""

from __future__ import annotations

import ast
import math
import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from .cache import ResultCache
from .claims import (CHAPTER_FIGURES, CLAIMS, CLAIMS_LOG_ENV, MARK, REGISTRY, Claim, ConfigError, IntervalRule, Tolerance, _md,
                     band_why, claims_of)
from .experiments import figures

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
        ref = rule.above if rule.above is not None else c.paper_value
        tr = (lambda v: math.log(v) if v > 0 else float("nan")) if rule.log else (lambda v: v)
        low, high = entry["interval"]
        rows.append({"figure": c.figure, "key": c.key, "claim": c.claim, "status": entry["status"],
                     "scale": entry["scale"], "units": "log ratio" if rule.log else "value",
                     "distance": tr(entry["ours"]) - tr(ref), "low": tr(low) - tr(ref), "high": tr(high) - tr(ref)})
    return pd.DataFrame(rows, columns=["figure", "key", "claim", "status", "scale", "units", "distance", "low", "high"])


CHAPTER_LABELS: dict[str, str] = {
    "01_toy_model": "Ch. 1", "02_repetition_toy": "Ch. 2", "03_transformer": "Ch. 3", "04_associative_recall": "Ch. 4",
    "A1_toy_theory": "App. A1", "A2_toy_checks": "App. A2", "A3_transformer_dynamics": "App. A3",
    "A4_transformer_ablations": "App. A4", "A5_recall_mechanism": "App. A5",
    "B1_steering": "Beyond 1", "B2_prediction": "Beyond 2", "B3_followup": "Beyond 3",
}


def paper_scale_cached(chapter: str) -> tuple[int, int]:
    """(runs cached, runs needed) of a chapter's figures at paper scale."""
    cache = ResultCache()  # the paper scale's cache: data/
    runs = {}
    for name in CHAPTER_FIGURES[chapter]:
        for r in figures()[name](scale="paper").runs():
            runs[str(cache.path(r))] = r
    have = sum(1 for path in runs if os.path.exists(path))
    return have, len(runs)


def recorded_claims(notebook: dict) -> dict[str, str]:
    """The claim values a chapter glued (``claim.<key>.ours`` / ``.status``), read from an executed notebook."""
    out: dict[str, str] = {}
    for cell in notebook.get("cells", []):
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name", "")
            if name.startswith("claim."):
                text = o.get("data", {}).get("application/papermill.record/text/plain", "")
                try:
                    text = ast.literal_eval(text)
                except (ValueError, SyntaxError):
                    pass
                out[name] = str(text)
    return out


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Nothing on this process's stderr (file descriptor 2, which a chapter's kernel inherits, and papermill's
    warnings): the page that builds the paper-scale column shows no other notebook's log lines."""
    import logging
    import sys

    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    level = logging.getLogger("papermill").level
    logging.getLogger("papermill").setLevel(logging.ERROR)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
        logging.getLogger("papermill").setLevel(level)


def paper_scale_column(workdir: str) -> dict[str, str]:
    """Claim key → the text of the landing table's paper-scale cell.

    A chapter whose paper-scale runs are all in ``data/`` is executed at ``scale="paper"`` (`notebooks.execute`, the
    CLI's path, into ``workdir``; it reads the cache and computes nothing), and its recorded claims are read back
    from the executed notebook. Other chapters say how much of their paper grid is cached."""
    import json
    from pathlib import Path

    import papermill

    from .notebooks import execute

    chapters_dir = Path(__file__).resolve().parent.parent / "chapters"
    cells: dict[str, str] = {}
    for chapter in CHAPTER_FIGURES:
        keys = [c.key for c in claims_of(chapter)]
        have, need = paper_scale_cached(chapter)
        if have < need:
            text = "not run" if have == 0 else f"not run ({have} of {need} runs cached)"
            cells.update({k: text for k in keys})
            continue
        out = Path(workdir) / f"{chapter}.paper.ipynb"
        # The CLI's own path (`python -m emergence_lib execute`), quietly: no progress bar on the page that asks.
        try:
            with _quiet_stderr():
                execute(chapters_dir / f"{chapter}.ipynb", out, quiet=True, scale="paper")
        except papermill.PapermillExecutionError as exc:  # a failed claim at paper scale is a result to show
            cells.update({k: f"fails at paper scale: {exc.ename}: {str(exc.evalue)[:100]}" for k in keys})
            continue
        recorded = recorded_claims(json.loads(out.read_text()))
        for k in keys:
            c = REGISTRY[k]
            ours, status = recorded.get(c.glue_key("ours")), recorded.get(c.glue_key("status"))
            cells[k] = f"{ours} ({status})" if ours is not None else "not recorded"
    return cells


def glue_paper_scale_column(workdir: str) -> dict[str, str]:
    """Glue every claim's paper-scale cell (``claim.<key>.paper``) for `landing_table`; returns them."""
    from .report import glue_text

    cells = paper_scale_column(workdir)
    for c in CLAIMS:
        glue_text(c.glue_key("paper"), cells.get(c.key, "not run"))
    return cells


def verdict_summary() -> str:
    """The landing page's first lines: counts of the verdicts the book build reaches, per group, as MyST markdown.

    A pinned claim's status at the laptop scale *is* its expected one whenever the book builds (`record` fails the
    build otherwise), so pinned claims are counted from the registry; claims judged on Table 1's settings pin nothing
    and are judged as their runs arrive, so they are pointed to, not counted."""
    def counts(group: list[Claim], differ: str = "differ") -> str:
        n = {k: sum(1 for c in group if c.expected == k) for k in ("reproduced", "agrees", "differs", "inconclusive")}
        parts = [f"**{n['reproduced'] + n['agrees']} hold**", f"**{n['differs']} {differ}**"]
        if n["inconclusive"]:
            parts.append(f"**{n['inconclusive']} inconclusive**")
        return ", ".join(parts)

    judged = [c for c in CLAIMS if c.chapter is not None and c.expected is not None]
    paper = [c for c in judged if not c.figure.startswith("B")]
    ours = [c for c in judged if c.figure.startswith(("B1", "B2"))]
    follow = [c for c in judged if c.figure.startswith("B3")]
    table1_claims = [c for c in CLAIMS if c.scale == "paper_cpu"]
    return "\n".join([
        f"* **The paper's claims, on our laptop grid:** {len(paper)} judged: {counts(paper)}.",
        f"* **Beyond the paper** (its proposals, and predictions): {len(ours)} findings: {counts(ours, 'do not hold')}.",
        f"* **A 2026 follow-up's claims, tested here:** {len(follow)}: {counts(follow, 'do not hold')}.",
        f"* **The paper's own model (Table 1) at the cheap end of its grid:** {len(table1_claims)} claims registered "
        "before their runs, judged as the runs arrive (Figure 3's rows of the table, and {doc}`chapters/03_transformer`).",
    ])


REGISTERED_TEXT = {"before its data": "before its runs", "with its data": "with its runs",
                   "after its data": "after its runs (pinned)", "partly after its data": "partly after its runs",
                   "not yet committed": "not yet committed"}


def landing_table(from_doc: str = "", paper_doc: str = "/intro.ipynb", registration: "pd.DataFrame | None" = None) -> str:
    """The landing table, in figure order (1 → 17), as MyST markdown.

    The ``ours`` and ``status`` cells paste what the chapters glued when the book executed them (from ``data/`` at
    cpu scale): `record` is the only writer of those values. The paper-scale cells paste what
    `glue_paper_scale_column` glued on the page ``paper_doc``. ``from_doc`` is the path from the page that shows
    the table to the book's root ("" for the root page, "../" for a page under chapters/)."""
    when = dict(zip(registration["claim"], registration["registration"])) if registration is not None else {}
    rows = ["| Fig. | Claim | Paper (reproduced if) | Ours, cpu | Status | Ours, paper scale | Registered | Chapter |",
            "|---|---|---|---|---|---|---|---|"]
    for c in sorted(CLAIMS, key=lambda c: (c.figure_number, CLAIMS.index(c))):
        paper_scale = f"{{glue:text}}`{paper_doc}::{c.glue_key('paper')}:s`"
        twin = REGISTRY.get(f"table1.{c.key}")  # the same claim judged on Table 1's settings (paper_cpu)
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
        tol = f" ({c.tolerance.describe().replace(' of the paper' + chr(39) + 's', '')})" if c.tolerance else ""
        registered = REGISTERED_TEXT.get(when.get(c.key, ""), when.get(c.key, "—")) if c.chapter else "—"
        rows.append(f"| {c.figure} | {_md(c.claim)} | {_md(c.paper)}{tol} | {ours} | {status} | {paper_scale} | {registered} "
                    f"| {where} |")
    return "\n".join(rows)


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
    shown = [c for c in mine if c.scale != "paper_cpu"]

    def bullet(c: Claim) -> str:
        return (f"- {{glue:text}}`{doc}::{c.glue_key('status')}:s` {c.claim}: ours "
                f"{{glue:text}}`{doc}::{c.glue_key('ours')}:s`, the paper {c.paper}.")

    # The first few verdicts open, the rest one click away: on a phone a long box would push the chapter's main
    # figure past its first two screens.
    lines += [bullet(c) for c in shown[:RESULT_BOX_OPEN]]
    if len(shown) > RESULT_BOX_OPEN:
        lines += ["", f":::{{dropdown}} {len(shown) - RESULT_BOX_OPEN} more verdicts", ""]
        lines += [bullet(c) for c in shown[RESULT_BOX_OPEN:]]
        lines += [":::", ""]
    table1_claims = [c for c in mine if c.scale == "paper_cpu"]
    if table1_claims:
        lines.append(f"- On Table 1's own settings, {len(table1_claims)} more claims are judged point by point in the "
                     "section on the paper's settings below, as far as their runs are stored.")
    lines += ["", "Each verdict comes from the registry's rule ({doc}`methods`); the table at each section's end gives the rule.",
              "::::"]
    return "\n".join(lines)


def _paper_cpu_cell(c: Claim) -> str:
    """A paper-scale cell from Table 1's settings (paper_cpu): ours, the verdict, and how much of the paper's grid."""
    doc = f"/chapters/{c.chapter}.ipynb"
    return (f"{{glue:text}}`{doc}::{c.glue_key('ours')}:s` {{glue:text}}`{doc}::{c.glue_key('status')}:s` "
            f"(Table 1's settings on {{glue:text}}`{doc}::t1_coverage:s`)")


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
