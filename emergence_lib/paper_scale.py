"""The landing table's paper-scale column (`scorecard.landing_table`): each chapter executed at the paper's scale
where all its runs are stored, its recorded claims read back, and the cell of a claim judged on Table 1's settings
(paper_cpu) with how much of its registered grid is stored."""

from __future__ import annotations

import ast
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Iterator

from .cache import ResultCache
from .claims import CHAPTER_FIGURES, CLAIMS, REGISTRY, Claim, claims_of
from .experiments import figures


def paper_scale_cached(chapter: str) -> tuple[int, int]:
    """(runs cached, runs needed) of a chapter's figures at paper scale."""
    cache = ResultCache()  # the paper scale's cache: data/
    runs = {}
    for name in CHAPTER_FIGURES[chapter]:
        if not figures()[name].has_scale("paper"):  # a figure of the paper's model only (paper_cpu)
            continue
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


def paper_scale_column(workdir: str, run_chapters: bool = True) -> dict[str, str]:
    """Claim key → the text of the landing table's paper-scale cell.

    A chapter whose paper-scale runs are all in ``data/`` is executed at ``scale="paper"`` (`notebooks.execute`, the
    CLI's path, into ``workdir``; it reads the cache and computes nothing), and its recorded claims are read back
    from the executed notebook. Other chapters say how much of their paper grid is cached. Without
    ``run_chapters`` (the scoreboard at smoke scale, in the tests: the book's build executes them) a cached chapter
    is said to be, not executed."""
    import json
    from pathlib import Path

    import papermill

    from .notebooks import execute

    chapters_dir = Path(__file__).resolve().parent.parent / "chapters"
    cells: dict[str, str] = {}
    cached = []
    for chapter in CHAPTER_FIGURES:
        keys = [c.key for c in claims_of(chapter)]
        have, need = paper_scale_cached(chapter)
        if have < need:
            text = "not run" if have == 0 else f"not run ({have} of {need} runs cached)"
            cells.update({k: text for k in keys})
        elif not run_chapters:
            cells.update({k: "cached, not executed at smoke scale" for k in keys})
        else:
            cached.append(chapter)

    def run(chapter: str) -> BaseException | None:
        # The CLI's own path (`python -m emergence_lib execute`), quietly: no progress bar on the page that asks.
        try:
            execute(chapters_dir / f"{chapter}.ipynb", Path(workdir) / f"{chapter}.paper.ipynb", quiet=True, scale="paper")
        except papermill.PapermillExecutionError as exc:  # a failed claim at paper scale is a result to show
            return exc
        return None

    # Two chapters at a time, one kernel each (a process of its own): the book's build spent 81 s here, one by one.
    with _quiet_stderr(), ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = dict(zip(cached, pool.map(run, cached)))
    for chapter, failed in outcomes.items():
        keys = [c.key for c in claims_of(chapter)]
        if isinstance(failed, papermill.PapermillExecutionError):
            cells.update({k: f"fails at paper scale: {failed.ename}: {str(failed.evalue)[:100]}" for k in keys})
            continue
        recorded = recorded_claims(json.loads((Path(workdir) / f"{chapter}.paper.ipynb").read_text()))
        for k in keys:
            c = REGISTRY[k]
            ours, status = recorded.get(c.glue_key("ours")), recorded.get(c.glue_key("status"))
            cells[k] = f"{ours} ({status})" if ours is not None else "not recorded"
    return cells


def glue_paper_scale_column(workdir: str, run_chapters: bool = True) -> dict[str, str]:
    """Glue every claim's paper-scale cell (``claim.<key>.paper``) for `landing_table`; returns them."""
    from .report import glue_text

    cells = paper_scale_column(workdir, run_chapters)
    for c in CLAIMS:
        glue_text(c.glue_key("paper"), cells.get(c.key, "not run"))
    return cells


def _paper_cpu_cell(c: Claim) -> str:
    """A paper-scale cell from Table 1's settings (paper_cpu): ours, the verdict, and how much of the paper's grid."""
    doc = f"/chapters/{c.chapter}.ipynb"
    # Each registered grid's chapter glues how many of its runs are stored (its show function).
    stored = {"table1.measured.": ("The paper's model where the paper measured", "t1m_runs"),
              "recall_t1.": ("Table 1's recall model", "rt1_runs"),
              "table1.ablations.": ("Table 1's width", "t1a_runs"),
              "table1.joint.": ("fresh seeds of the paper's model", "t1j_runs"),
              "table1.collapse.": ("fresh seeds of the paper's model", "t1j_runs"),
              "table1.bend.": ("fresh seeds of the paper's model", "t1j_runs"),
              "screen16.": ("the d = 16 screen", "screen16_runs"),
              "unsaid.": ("the unstated-choices screen", "unsaid_runs"),
              "unsaid_recall.": ("the recall readings' screen", "unsaid_recall_runs")}
    grid = next((v for k, v in stored.items() if c.key.startswith(k)), None)
    where = (f"{grid[0]}: {{glue:text}}`{doc}::{grid[1]}:s` runs stored" if grid
             else f"Table 1's settings on {{glue:text}}`{doc}::t1_coverage:s`")
    return f"{{glue:text}}`{doc}::{c.glue_key('ours')}:s` {{glue:text}}`{doc}::{c.glue_key('status')}:s` ({where})"
